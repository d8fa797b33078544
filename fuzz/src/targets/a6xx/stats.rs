//! The `a6xx` target: `compiler::a6xx`, run on `sim::a6xx`, counted the way ir3's shader-db
//! output counts (static: instructions, nops, non-nops, cat0–cat7, `(ss)`, `(sy)`, spills
//! (`stp`) and fills (`ldp`), predicate reloads, registers, waves) plus the simulator's
//! dynamic `cycles`, `executed` (instructions issued, per wave) and `sstall`/`systall`
//! (cycles stalled by `(ss)`/`(sy)`), and what the allocators' code executed: `spills-run`,
//! `fills-run`, `spill-bytes` (4 per word per fiber), `pred-reloads-run` and
//! `loop-pred-reloads` (most distinct predicates reloaded inside one loop), from the compile's
//! marks and the simulator's per-instruction profile (`compiler::executed`).
//!
//! As in ir3's `ir3_collect_info`, an instruction counts `1 + repeat + N` for its `(rptN)`
//! and `(nopN)`; `nops` are the `nop` instructions' cycles plus every `(nopN)` slot, which
//! also count as cat0; so `instructions = nops + non-nops` and a change in delay slots shows
//! in `nops`, `cat0` and `instructions` alike.
//!
//! Waves follow ir3's `ir3_get_reg_dependent_max_waves`: with `r` scalar GPRs used, i.e.
//! `v = ceil(r / 4)` vec4 registers, `waves = min(16, floor(96 / (v × d)) × 2)` where 96 is
//! a6xx's register file in vec4s per wave slot pair, 2 the wave granularity, 16 the maximum,
//! and `d` 2 for 128-fiber waves (1 for 64); 16 when no register is used.

use compiler::a6xx::Compiled;
use compiler::ir::Program;
use sim::a6xx::{Op, Outcome, WaveSize};

/// What the a6xx target records, in report order.
pub const MEASUREMENTS: &[&str] = &[
    "instructions",
    "cycles",
    "executed",
    "nops",
    "non-nops",
    "cat0",
    "cat1",
    "cat2",
    "cat3",
    "cat4",
    "cat5",
    "cat6",
    "cat7",
    "spills",
    "fills",
    "sstall",
    "(ss)",
    "systall",
    "(sy)",
    "pred-reloads",
    "spills-run",
    "fills-run",
    "spill-bytes",
    "pred-reloads-run",
    "loop-pred-reloads",
    "registers",
    "waves",
    "loops",
];

/// The waves `registers` scalar GPRs allow (see the file header).
pub fn max_waves(registers: u32, wave: WaveSize) -> u64 {
    const REG_SIZE_VEC4: u64 = 96;
    const GRANULARITY: u64 = 2;
    const MAX_WAVES: u64 = 16;
    let vec4 = u64::from(registers.div_ceil(4));
    if vec4 == 0 {
        return MAX_WAVES;
    }
    let double = if wave == WaveSize::W128 { 2 } else { 1 };
    (REG_SIZE_VEC4 / (vec4 * double) * GRANULARITY).min(MAX_WAVES)
}

/// Runs `c`, the compile of `p` (after the middle end) for waves of `wave` fibers, and counts;
/// `loops` is the IR's loop count.
pub fn record(
    p: &Program,
    c: &Compiled,
    wave: WaveSize,
    loops: u64,
) -> Result<Vec<(String, u64)>, String> {
    c.check
        .as_ref()
        .map_err(|e| format!("allocation checker: {e}"))?;
    let r = sim::a6xx::run(&c.program, &p.dispatch, &c.sim_config());
    match r.outcome {
        Outcome::Completed => {}
        Outcome::Timeout => return Err("simulator: out of cycles".into()),
        Outcome::Fault(f) => return Err(format!("simulator fault: {f}")),
    }
    if let Some(h) = r.hazards.first() {
        return Err(format!("simulator hazard: {h}"));
    }
    let (mut cats, mut nops, mut non_nops) = ([0u64; 8], 0u64, 0u64);
    for i in &c.program.instrs {
        let slots = u64::from(i.flags.nop);
        if let Op::Nop { repeat } = i.op {
            nops += 1 + u64::from(repeat);
        } else {
            non_nops += 1;
            cats[i.op.category()] += 1;
        }
        nops += slots;
    }
    cats[0] += nops;
    let st = &c.stats;
    let e = c.executed(&r);
    debug_assert_eq!(
        nops,
        u64::from(st.nops),
        "nop cycles disagree with the backend's"
    );
    let mut rec: Vec<(&str, u64)> = vec![
        ("instructions", nops + non_nops),
        ("cycles", r.stats.cycles),
        ("executed", r.stats.instructions),
        ("nops", nops),
        ("non-nops", non_nops),
    ];
    const CATS: [&str; 8] = [
        "cat0", "cat1", "cat2", "cat3", "cat4", "cat5", "cat6", "cat7",
    ];
    rec.extend(CATS.iter().zip(cats).map(|(n, v)| (*n, v)));
    rec.extend([
        ("spills", st.spills.into()),
        ("fills", st.fills.into()),
        ("sstall", r.stats.sstall),
        ("(ss)", st.ss.into()),
        ("systall", r.stats.systall),
        ("(sy)", st.sy.into()),
        ("pred-reloads", st.pred_reloads.into()),
        ("spills-run", e.spills),
        ("fills-run", e.fills),
        ("spill-bytes", e.spill_bytes),
        ("pred-reloads-run", e.pred_reloads),
        ("loop-pred-reloads", e.loop_pred_reloads.into()),
        ("registers", st.registers_used.into()),
        ("waves", max_waves(st.registers_used, wave)),
        ("loops", loops),
    ]);
    Ok(rec.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waves_follow_ir3() {
        assert_eq!(max_waves(0, WaveSize::W64), 16);
        assert_eq!(max_waves(48, WaveSize::W64), 16); // 12 vec4: 96 / 12 × 2 = 16
        assert_eq!(max_waves(64, WaveSize::W64), 12); // 16 vec4: 6 × 2
        assert_eq!(max_waves(65, WaveSize::W64), 10); // 17 vec4: 5 × 2
        assert_eq!(max_waves(64, WaveSize::W128), 6); // doubled: 3 × 2
        assert_eq!(max_waves(192, WaveSize::W64), 4); // the whole file: 48 vec4
    }
}
