//! Dead-code elimination on virtual instructions: drops instructions without side effects
//! whose every written GRF is dead afterwards (the zeroing of IR registers that are always
//! stored before being read, payload parameters `opt_zero_samples` cut off, unused results).
//! Repeats until nothing changes, since removing one use can kill another definition; but
//! a round whose dead instructions read no register changes no liveness (their writes were
//! dead), so nothing new can die and the round that would find that out is not run.
//!
//! A last round that finds nothing dead has computed the liveness of the program as it is
//! left: [`eliminate_dead_code_keeping_liveness`] hands it on, so that the allocator does not
//! compute it again.

use super::liveness::{self, Liveness};
use super::vinst::VProgram;

/// Removes dead instructions from `p`; returns how many.
pub fn eliminate_dead_code(p: &mut VProgram) -> usize {
    eliminate_dead_code_keeping_liveness(p).0
}

/// Removes dead instructions from `p`; returns how many, and the liveness of `p` as left when
/// the last round computed it (`None` when that round removed instructions).
pub fn eliminate_dead_code_keeping_liveness(p: &mut VProgram) -> (usize, Option<Liveness>) {
    let mut removed = 0;
    loop {
        let Some(live) = liveness::compute(p) else {
            return (removed, None);
        };
        let mut dead = vec![false; p.insts.len()];
        let mut any = false;
        // Whether a dead instruction reads a register (its removal may kill more).
        let mut reads = false;
        let mut l = liveness::BitSet::default();
        for b in 0..live.graph.len() {
            l.0.clear();
            l.0.extend_from_slice(live.live_out(b));
            for i in live.graph.range(b).rev() {
                let inst = &p.insts[i];
                if !inst.has_side_effects() {
                    if let Some(d) = &inst.dst {
                        let n = inst.dst_regs(|r| p.regs[r].size);
                        if !live.units_of(p, d, n).any(|u| l.has(u)) {
                            dead[i] = true;
                            any = true;
                            inst.for_each_use(|r, n| {
                                reads |= !live.units_of(p, r, n).is_empty();
                            });
                            continue;
                        }
                    }
                }
                live.step_back(p, inst, &mut l);
            }
        }
        if !any {
            return (removed, Some(live));
        }
        let mut k = 0;
        p.insts.retain(|_| {
            let keep = !dead[k];
            k += 1;
            keep
        });
        removed += dead.iter().filter(|&&d| d).count();
        if !reads {
            return (removed, None);
        }
    }
}
