//! shader-db style statistics: compile a corpus for a target, record per-program counters,
//! and compare two such records the way Mesa's `report.py` does.
//!
//! Reading order (one phase per file):
//! 1. [`corpus`] — the programs: a folder of `.ir` files or `N` generated from a seed (and
//!    writing such a folder canonically, for the checked-in `corpus/stats/`);
//! 2. [`options`] — `--config KEY=VALUE` into the middle end's and the backends' options;
//! 3. [`collect`] — per target with statistics (`middle`, `gen8`, `gen16`, `a6xx`): run the middle end and the
//!    backend, run the simulator, and record the counters of [`MEASUREMENTS`];
//! 4. [`compare`] — helped/HURT, affected totals, min/max/mean/median and the 95% confidence
//!    interval of the mean change (with [`tdist`]), and the verdict; [`cost`] — executed cost
//!    (cycles, spill bytes) per budget of a sweep, judged by the worst budget;
//!    [`executed`] — a corpus's executed spill traffic, reloads and sends;
//! 5. [`text`] — the `report.py` layout; [`html`] — a page with a histogram per stat.
//!
//! A stats file is JSON ([`StatsFile`]): the target, the options, the measurement names in
//! report order and one record per program (name → counter). Programs that failed to compile
//! or run are listed apart, so the report can say what was LOST or GAINED.

pub mod collect;
pub mod compare;
pub mod corpus;
pub mod cost;
pub mod executed;
pub mod html;
pub mod options;
pub mod tdist;
pub mod text;

use crate::Error;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Every measurement a target may record, in report order, with what it counts. Static
/// counts describe the compiled code; dynamic ones come from the simulator (summed over every
/// invocation of the dispatch).
pub const MEASUREMENTS: &[(&str, &str)] = &[
    (
        "instructions",
        "static instructions (IR: placed instructions)",
    ),
    ("cycles", "simulated cycles (dynamic)"),
    (
        "executed",
        "instructions executed (dynamic; IR: interpreter steps)",
    ),
    ("loops", "loops"),
    ("spills", "spill stores (gen: scratch writes; a6xx: stp)"),
    ("fills", "spill reloads (gen: scratch reads; a6xx: ldp)"),
    ("sends", "SEND instructions (gen)"),
    ("mlen", "total message length of SENDs, in GRFs (gen)"),
    ("stalls", "cycles waiting for operands (gen, dynamic)"),
    (
        "registers",
        "registers used (gen: GRFs; a6xx: scalar GPRs, highest + 1)",
    ),
    (
        "nops",
        "nop cycles: nop instructions and (nopN) slots (a6xx)",
    ),
    ("non-nops", "instructions that are not nop (a6xx)"),
    ("(ss)", "instructions with (ss) (a6xx)"),
    ("(sy)", "instructions with (sy) (a6xx)"),
    ("sstall", "cycles stalled by (ss) (a6xx, dynamic)"),
    ("systall", "cycles stalled by (sy) (a6xx, dynamic)"),
    ("pred-reloads", "predicate registers rematerialised (a6xx)"),
    (
        "spills-run",
        "spill stores executed (dynamic; gen: spill code's scratch block writes; a6xx: stp)",
    ),
    (
        "fills-run",
        "fills executed (dynamic; gen: scratch block reads before a use; a6xx: ldp)",
    ),
    (
        "prefills-run",
        "gen pre-fills executed (dynamic; block reads before a partial write of a spilled register)",
    ),
    (
        "spill-bytes",
        "bytes spill code moved (dynamic; gen: 32 per GRF; a6xx: 4 per word per fiber)",
    ),
    (
        "pred-reloads-run",
        "predicate reloads executed (a6xx, dynamic)",
    ),
    (
        "loop-pred-reloads",
        "most distinct predicates whose reloads ran inside one loop (a6xx, dynamic)",
    ),
    ("sends-run", "SENDs executed (gen, dynamic)"),
    ("sent-mlen", "payload GRFs of the SENDs executed (gen, dynamic)"),
    ("sent-rlen", "response GRFs of the SENDs executed (gen, dynamic)"),
    ("cat0", "category 0 instructions: flow and nop (a6xx)"),
    ("cat1", "category 1 instructions: mov and cov (a6xx)"),
    ("cat2", "category 2 instructions: ALU (a6xx)"),
    ("cat3", "category 3 instructions: three-source ALU (a6xx)"),
    ("cat4", "category 4 instructions: SFU (a6xx)"),
    ("cat5", "category 5 instructions: texture (a6xx)"),
    ("cat6", "category 6 instructions: memory (a6xx)"),
    ("cat7", "category 7 instructions: barriers (a6xx)"),
    (
        "waves",
        "waves the register count allows (a6xx; higher is better)",
    ),
    ("alu", "ALU instructions (IR)"),
    ("phis", "phis (IR)"),
    ("ifs", "if nodes (IR)"),
    (
        "memory",
        "loads and stores of buffers, uniforms, outputs, textures, variables (IR)",
    ),
];

/// Whether a larger value of `measurement` is an improvement (report.py's `threads`).
pub fn higher_is_better(measurement: &str) -> bool {
    matches!(measurement, "waves" | "threads")
}

/// Whether `report.py` prints no statistics for `measurement` ("usually meaningless").
pub fn counts_only(measurement: &str) -> bool {
    matches!(measurement, "spills" | "fills")
}

/// One program's counters.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramStats {
    /// The program's name: its file name in the corpus, or `gen-<seed>-<index>`.
    pub name: String,
    /// Measurement → value.
    pub stats: BTreeMap<String, u64>,
}

/// A program that could not be compiled or run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// The program's name.
    pub name: String,
    /// What went wrong.
    pub error: String,
}

/// The result of `gpufuzz stats`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatsFile {
    /// The target (every target with statistics: `middle`, `gen8`, `gen16`, `a6xx`).
    pub target: String,
    /// The `--config` settings, as given.
    pub config: Vec<String>,
    /// Where the programs came from (a folder, or `generate N seed S`).
    pub corpus: String,
    /// The measurements recorded, in report order.
    pub measurements: Vec<String>,
    /// One record per program that compiled and ran.
    pub programs: Vec<ProgramStats>,
    /// Programs that failed.
    #[serde(default)]
    pub failed: Vec<Failure>,
    /// The budgets of a `--sweep`, as `KEY=V` in sweep order (each program's name ends in
    /// `@KEY=V`); empty without a sweep.
    #[serde(default)]
    pub sweep: Vec<String>,
}

impl StatsFile {
    /// Reads a stats file.
    pub fn read(path: &Path) -> Result<StatsFile, Error> {
        let text = std::fs::read_to_string(path).map_err(Error::io(path))?;
        serde_json::from_str(&text).map_err(|error| Error::StatsJson {
            path: path.to_path_buf(),
            error,
        })
    }

    /// Writes it as pretty JSON (atomically).
    pub fn write(&self, path: &Path) -> Result<(), Error> {
        let mut text = serde_json::to_string_pretty(self).map_err(Error::StatsEncode)?;
        text.push('\n');
        fuzz::store::write_atomically(path, text.as_bytes()).map_err(Error::io(path))
    }
}
