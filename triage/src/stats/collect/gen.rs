//! The `gen8` and `gen16` targets: `compiler::gen` at SIMD8 or SIMD16, run on `sim::gen`.
//! Static counts (instructions, sends, total `mlen`, spills and fills — the scratch block
//! writes and reads of spill code —, GRFs used, loops) come from the compile; `cycles`,
//! `executed` and `stalls` (cycles waiting for operands) from the simulator, summed over all
//! threads of the dispatch.

use super::Record;
use compiler::gen::compile;
use fuzz::oracle::{Case, OracleOptions};
use sim::gen::{ExecSize, Outcome};

/// What the Gen targets record, in report order.
pub const MEASUREMENTS: &[&str] = &[
    "instructions",
    "cycles",
    "executed",
    "stalls",
    "sends",
    "mlen",
    "registers",
    "spills",
    "fills",
    "loops",
];

/// Compiles and runs `p` (after the middle end).
pub fn record(case: &Case, width: ExecSize) -> Result<Record, String> {
    let p = &case.program;
    let options = fuzz::pipelines::gen::options(case, &OracleOptions::default(), width);
    let c = compile(p, &options).map_err(|e| format!("compile: {e}"))?;
    c.check
        .as_ref()
        .map_err(|e| format!("allocation checker: {e}"))?;
    let r = sim::gen::run(&c.program, &p.dispatch, &c.sim_config())
        .map_err(|e| format!("simulator rejected the program: {}", e[0]))?;
    if r.outcome != Outcome::Completed {
        return Err("simulator: out of cycles".into());
    }
    if let Some(h) = r.hazards.first() {
        return Err(format!("simulator hazard: {h:?}"));
    }
    let st = &c.stats;
    Ok(vec![
        ("instructions", st.instructions.into()),
        ("cycles", r.stats.cycles),
        ("executed", r.stats.instructions),
        ("stalls", r.stats.stall_cycles),
        ("sends", st.sends.into()),
        ("mlen", st.total_mlen.into()),
        ("registers", st.registers_used.into()),
        ("spills", st.spills.into()),
        ("fills", st.fills.into()),
        ("loops", st.loops.into()),
    ])
}
