//! The Gen allocator's live intervals: from liveness in the first round, then carried
//! through each spill rather than recomputed.
//!
//! Spill code touches only fresh temporaries and sits in the block of the instruction it
//! serves, so every other register is live at the same instructions and block boundaries as
//! before; only the positions move. A position names a place between or in instructions:
//! `2i` before instruction `i` reads, `2i + 1` where it writes. After a spill, an odd
//! position goes with its instruction; an even one `2i` opens into the gap of inserted
//! instructions between `i - 1` and `i`, and which end of the gap it takes depends on why it
//! is an interval's end:
//! * a read of instruction `i` starts there: just before `i` itself;
//! * a write of `i - 1` ends there: just after it, before the spill code it got;
//! * a block boundary (a start of a block or loop it is live into, an end of a block or loop
//!   it is live out of): the block's new start, where its fills begin. Block boundaries
//!   only widen an interval, so where a boundary and an instruction give the same end, the
//!   boundary's is the one that moves furthest out.
//!
//! The spilled registers are gone, and the new ones live only within the spill code of one
//! instruction (never across a block boundary), so their intervals are the hulls of their
//! reads and writes there. The result is what liveness would compute afresh.

use super::liveness::{Hulls, Liveness};
use super::spill::Moved;
use super::vinst::{VProgram, VReg};
use cranelift_entity::EntityRef;

/// One live interval per register and what its ends are.
#[derive(Clone, Debug, Default)]
pub struct Intervals {
    /// `[start, end)` in positions; `start >= end` if the register is live nowhere.
    pub iv: Vec<(u32, u32)>,
    /// Whether the start is a block boundary rather than a read or write.
    start_at_boundary: Vec<bool>,
    /// Whether the end is a block boundary rather than a read or write.
    end_at_boundary: Vec<bool>,
}

impl Intervals {
    /// The intervals of `p` with liveness `l`.
    pub fn new(p: &VProgram, l: &Liveness) -> Intervals {
        let Hulls { boundary, access } = super::liveness::hulls(p, l);
        let iv: Vec<(u32, u32)> = boundary
            .iter()
            .zip(&access)
            .map(|(b, a)| (b.0.min(a.0), b.1.max(a.1)))
            .collect();
        Intervals {
            start_at_boundary: boundary
                .iter()
                .zip(&access)
                .map(|(b, a)| b.0 <= a.0)
                .collect(),
            end_at_boundary: boundary
                .iter()
                .zip(&access)
                .map(|(b, a)| b.1 >= a.1)
                .collect(),
            iv,
        }
    }

    /// The intervals after `spill_regs` took `spilled` out of `p` (now rewritten), added the
    /// registers from `first_new` on and moved the instructions as `moved` says.
    pub fn after_spill(&mut self, p: &VProgram, moved: &Moved, spilled: &[VReg], first_new: usize) {
        for &v in spilled {
            self.iv[v.index()] = (u32::MAX, 0);
        }
        let (first, at) = (&moved.first, &moved.at);
        for ((iv, &sb), &eb) in self
            .iv
            .iter_mut()
            .zip(&self.start_at_boundary)
            .zip(&self.end_at_boundary)
        {
            let (s, e) = *iv;
            if s >= e {
                continue;
            }
            let (si, ei) = ((s / 2) as usize, (e / 2) as usize);
            let start = match (s % 2 == 1, sb) {
                (true, _) => 2 * at[si] + 1,
                (false, true) => 2 * first[si],
                (false, false) => 2 * at[si],
            };
            let end = match (e % 2 == 1, eb) {
                (true, _) => 2 * at[ei] + 1,
                (false, true) => 2 * first[ei],
                (false, false) => 2 * at[ei - 1] + 2,
            };
            *iv = (start, end);
        }
        let n = p.regs.len();
        self.iv.resize(n, (u32::MAX, 0));
        self.start_at_boundary.resize(n, false);
        self.end_at_boundary.resize(n, false);
        let iv = &mut self.iv;
        let mut widen = |r: VReg, off: u8, n: u8, s: u32, e: u32| {
            // Operands past the register's end touch none of it (as in liveness).
            if r.index() >= first_new && off < p.regs[r].size && n > 0 {
                let v = &mut iv[r.index()];
                v.0 = v.0.min(s);
                v.1 = v.1.max(e);
            }
        };
        for &i in &moved.touched {
            let i = i as usize;
            for k in first[i] as usize..first[i + 1] as usize {
                let inst = &p.insts[k];
                let pos = 2 * k as u32;
                inst.for_each_use(|r, n| widen(r.reg, r.off, n, pos, pos + 1));
                if let Some(d) = &inst.dst {
                    let n = inst.dst_regs(|r| p.regs[r].size);
                    widen(d.reg, d.off, n, pos + 1, pos + 2);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::gen::spill_rounds;
    use crate::gen::{intervals::Intervals, liveness};

    /// Spills a few registers per round, round after round, on programs with loops, ifs,
    /// breaks and multi-GRF values at both widths; the carried intervals must be what
    /// liveness computes afresh after each spill.
    #[test]
    fn carried_intervals_are_recomputed_ones() {
        let checked = spill_rounds::for_each(
            8,
            2,
            6,
            |_, iv| iv.clone(),
            |carried, r| {
                carried.after_spill(r.p, r.moved, r.gone, r.first_new);
                let live = liveness::compute(r.p).expect("structured");
                assert_eq!(carried.iv, Intervals::new(r.p, &live).iv, "{}", r.at);
            },
        );
        assert!(checked >= 30, "only {checked} spill rounds checked");
    }
}
