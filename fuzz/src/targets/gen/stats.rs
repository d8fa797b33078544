//! The `gen8` and `gen16` targets: `compiler::gen` at SIMD8 or SIMD16, run on `sim::gen`.
//! Static counts (instructions, sends, total `mlen`, spills and fills — the scratch block
//! writes and reads of spill code —, GRFs used, loops) come from the compile; `cycles`,
//! `executed` and `stalls` (cycles waiting for operands) from the simulator, summed over all
//! threads of the dispatch. Executed spill traffic (`spills-run`, `fills-run`,
//! `prefills-run`, `spill-bytes`) and the sends executed (`sends-run`, `sent-mlen`,
//! `sent-rlen`, and one `sent TYPE mM rR` counter per message type and length pair) come from
//! the compile's marks folded with the simulator's per-instruction profile
//! (`compiler::executed`).

use compiler::executed::SendShape;
use compiler::gen::Compiled;
use compiler::ir::Program;
use sim::gen::Outcome;

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
    "spills-run",
    "fills-run",
    "prefills-run",
    "spill-bytes",
    "sends-run",
    "sent-mlen",
    "sent-rlen",
    "loops",
];

/// The counter name of sends of one type and length pair.
pub fn send_shape_key(s: &SendShape) -> String {
    format!("sent {} m{} r{}", s.message, s.mlen, s.rlen)
}

/// Runs `c`, the compile of `p` (the register-form program, whose dispatch it runs), and
/// counts: the counters of [`MEASUREMENTS`], then the per-shape send counters.
pub fn record(p: &Program, c: &Compiled) -> Result<Vec<(String, u64)>, String> {
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
    let e = c.executed(&r);
    let sends = compiler::executed::gen_sends(&c.program, &r.profile);
    let (mut run, mut mlen, mut rlen) = (0, 0, 0);
    for (shape, &n) in &sends {
        run += n;
        mlen += n * u64::from(shape.mlen);
        rlen += n * u64::from(shape.rlen);
    }
    let fixed: Vec<(&str, u64)> = vec![
        ("instructions", st.instructions.into()),
        ("cycles", r.stats.cycles),
        ("executed", r.stats.instructions),
        ("stalls", r.stats.stall_cycles),
        ("sends", st.sends.into()),
        ("mlen", st.total_mlen.into()),
        ("registers", st.registers_used.into()),
        ("spills", st.spills.into()),
        ("fills", st.fills.into()),
        ("spills-run", e.spills),
        ("fills-run", e.fills),
        ("prefills-run", e.prefills),
        ("spill-bytes", e.spill_bytes),
        ("sends-run", run),
        ("sent-mlen", mlen),
        ("sent-rlen", rlen),
        ("loops", st.loops.into()),
    ];
    let shapes = sends.iter().map(|(s, &n)| (send_shape_key(s), n));
    Ok(fixed
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .chain(shapes)
        .collect())
}
