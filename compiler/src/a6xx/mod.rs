//! The Adreno a6xx backend: IR (SSA with phis, structured control flow) → `sim::a6xx`
//! machine code, in the manner of Mesa's ir3.
//!
//! Phases, in order (one file each):
//! 1. [`lower`] (+ `lower_alu`) — scalar virtual ir3 code ([`vir`]) in blocks with explicit
//!    terminators; booleans as 0/1 GPRs, branch conditions as predicates; phis as parallel
//!    copies at the ends of predecessors;
//! 2. [`opt_predicates`] — bit ops write predicates directly, `and`/`or`/`not` feeding only a
//!    branch fold into `braa`/`brao` and invert bits, `cmps` CSE (toggle:
//!    [`Options::opt_predicates`]);
//! 3. [`ra_predicates`] — predicate RA with rematerialisation and back-edge fix-ups;
//! 4. [`ra`] (+ `ra_rewrite`) — out-of-SSA copies, GPR linear scan with private-memory spills;
//! 5. [`legalize`] — `(ss)`/`(sy)`, delay slots, layout, branch offsets, `(jp)`, to a fixpoint;
//! 6. [`checker`] — the symbolic allocation checker, run on every compile.
//!
//! Shared: [`vir`] (the virtual code), [`liveness`] (bit sets, block liveness).

pub mod checker;
pub mod legalize;
pub mod liveness;
pub mod lower;
mod lower_alu;
pub mod lower_tex;
pub mod opt_predicates;
pub mod ra;
pub mod ra_predicates;
mod ra_rewrite;
pub mod vir;

pub use checker::CheckError;
pub use lower_tex::register_floor;

use crate::executed::{Executed, Role};
use crate::heuristics::A6xxHeuristics;
use crate::ir;
use crate::planted::Plants;
use crate::profile::{self, Phase};
use sim::a6xx::{Config, Program, WaveSize};
use vir::RecKind;

/// Knobs of one compile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Fibers per wave (64 or 128); only the simulator cares.
    pub wave: WaveSize,
    /// Predicate registers to allocate: 4 (a6xx) or 1 (`p0.x` only).
    pub predicates: u8,
    /// Scalar GPR budget (at most 192); small budgets force spilling.
    pub registers: u32,
    /// Run [`opt_predicates`].
    pub opt_predicates: bool,
    /// Allocation choices (defaults: the tuned ones).
    pub heuristics: A6xxHeuristics,
    /// Planted bugs switched on.
    pub plants: Plants,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            wave: WaveSize::W64,
            predicates: 4,
            registers: 192,
            opt_predicates: true,
            heuristics: A6xxHeuristics::default(),
            plants: Plants::NONE,
        }
    }
}

/// Per-compile counters (static, shader-db style).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompileStats {
    /// Machine instructions, nops included.
    pub instructions: u32,
    /// Delay cycles: `nop` instructions and `(nopN)` slots.
    pub nops: u32,
    /// Instructions with `(ss)`.
    pub ss: u32,
    /// Instructions with `(sy)`.
    pub sy: u32,
    /// `stp` spill stores.
    pub spills: u32,
    /// `ldp` spill reloads.
    pub fills: u32,
    /// Predicate reloads (cloned defs).
    pub pred_reloads: u32,
    /// GPRs used (highest index + 1).
    pub registers_used: u32,
    /// Private words per fiber the locals and spill slots take.
    pub private_words: u32,
}

/// A compiled program.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The machine code.
    pub program: Program,
    /// Static counters.
    pub stats: CompileStats,
    /// The allocation checker's verdict.
    pub check: Result<(), CheckError>,
    /// What each instruction of `program` is for (spill code, predicate reloads).
    pub roles: Vec<Role>,
    /// The simulator configuration it runs under: see [`Compiled::sim_config`].
    sim: Config,
}

impl Compiled {
    /// What spill code and predicate reloads executed in `run` (a run of this program).
    pub fn executed(&self, run: &sim::a6xx::RunResult) -> Executed {
        crate::executed::a6xx(&self.program, &self.roles, &run.profile)
    }

    /// The simulator configuration matching the options this program was compiled with, and
    /// private memory enough for its locals and spill slots: never less than
    /// [`lower::PRIVATE_WORDS`], so that accesses past them are still caught.
    pub fn sim_config(&self) -> Config {
        self.sim
    }
}

/// Why a program could not be compiled.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum CompileError {
    /// The program uses something this backend does not take.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The register budget is too small for the fixed reservations.
    #[error("no register left: budget {budget}, {needed} needed for payload and spill code")]
    NoRegisters {
        /// The budget given.
        budget: u32,
        /// What the reservations need.
        needed: u32,
    },
    /// Locals, or locals and spill slots, do not fit private memory.
    #[error("{words} words of private memory needed for {what}, {available} available")]
    PrivateMemory {
        /// What needs them: `local variables` or `local variables and spill slots`.
        what: std::borrow::Cow<'static, str>,
        /// Words needed.
        words: u32,
        /// Words there are for it.
        available: u32,
    },
}

/// The simulator configuration matching `opts`, for a program whose locals and spill slots
/// take `private_words` per fiber.
fn sim_config(opts: &Options, private_words: u32) -> Config {
    Config {
        wave: opts.wave,
        predicates: opts.predicates,
        registers: opts.registers.min(sim::a6xx::GPRS as u32) as u16,
        private_words: private_words.max(lower::PRIVATE_WORDS),
        // Spill fills wait ~110 cycles each: starved budgets run far longer than the default.
        cycle_budget: 50_000_000,
        ..Config::default()
    }
}

/// What this backend has no lowering for, when `p` uses it: the target skips such programs
/// (counted by this reason) rather than report a compile error. turnip's ir3 code, which
/// has both, runs on the `turnip` target.
pub fn refuses(p: &ir::Program) -> Option<&'static str> {
    if p.has_atomics() {
        Some("atomics: not in the a6xx backend")
    } else if p.has_subgroup_ops() {
        Some("subgroup operations: not in the a6xx backend")
    } else if p.sized_ints() != (false, false) {
        Some("16- or 64-bit integers: not in the a6xx backend")
    } else {
        None
    }
}

/// Compiles `p` (SSA after the middle end) for the a6xx simulator.
pub fn compile(p: &ir::Program, opts: &Options) -> Result<Compiled, CompileError> {
    if let Some(why) = refuses(p) {
        return Err(CompileError::Unsupported(why.into()));
    }
    let mut f = profile::time(Phase::Lower, || {
        lower::lower(&crate::passes::lower_bit_ops::lowered(p, opts.plants))
    })?;
    let vid = 0;
    if opts.opt_predicates {
        profile::time(Phase::Opt, || {
            opt_predicates::opt_predicates(&mut f, opts.predicates, opts.plants)
        });
    }
    // The whole allocator (its liveness, interference and spilling included) counts as colour.
    let (pred_reloads, alloc) = profile::time(Phase::Colour, || {
        let pred_reloads = ra_predicates::ra_predicates(
            &mut f,
            opts.predicates,
            opts.heuristics.pred_pick,
            opts.plants,
        );
        ra::ra(&mut f, opts).map(|alloc| (pred_reloads, alloc))
    })?;
    let leg = profile::time(Phase::Emit, || {
        legalize::legalize(alloc.blocks, opts.plants)
    });
    let check = profile::time(Phase::Check, || {
        checker::check(&leg.program, &leg.recs, &[(sim::a6xx::Reg::r(0, 0), vid)])
    });
    let instrs = &leg.program.instrs;
    let stats = CompileStats {
        instructions: instrs.len() as u32,
        nops: leg.nops,
        ss: instrs.iter().filter(|i| i.flags.ss).count() as u32,
        sy: instrs.iter().filter(|i| i.flags.sy).count() as u32,
        spills: alloc.spills,
        fills: alloc.fills,
        pred_reloads,
        registers_used: alloc.registers_used,
        private_words: alloc.private_words,
    };
    let roles = leg
        .recs
        .iter()
        .map(|r| match r.kind {
            RecKind::Spill => Role::Spill,
            RecKind::Fill => Role::Fill,
            RecKind::PredReload => Role::PredReload(r.defs.first().map_or(0, |d| d.1)),
            RecKind::Normal | RecKind::Move => Role::Program,
        })
        .collect::<Vec<_>>();
    debug_assert_eq!(
        roles
            .iter()
            .filter(|r| matches!(r, Role::PredReload(_)))
            .count(),
        pred_reloads as usize,
        "every clone ra_predicates placed is marked as a reload"
    );
    Ok(Compiled {
        program: leg.program,
        sim: sim_config(opts, stats.private_words),
        stats,
        check,
        roles,
    })
}
