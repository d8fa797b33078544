//! Divergence by min-PC scheduling. The wave runs one group of fibers (a PC and a mask) at a
//! time; the others are parked at their PCs. After every instruction, if a parked group sits
//! at a PC not above the running one, the machine switches: equal PCs merge, a lower parked PC
//! runs first (the running group is parked). So on a divergent branch the fibers going to the
//! earlier address run first and the others wait at the later one, and groups reconverge at
//! the first instruction they share — which the program must mark `(jp)` (else
//! [`HazardKind::MissingJp`], behaviour unchanged).
//!
//! `end` retires the running group's fibers; the lowest parked group (if any) resumes.

use super::hazard::HazardKind;
use super::machine::Machine;
use super::reg::Cond;
use super::timing::Reader;

impl<const W: usize> Machine<'_, W> {
    /// Active fibers for which `c` holds.
    #[inline]
    pub fn cond_mask(&mut self, c: Cond) -> u128 {
        let v = match c.reg() {
            Some(r) => self.read_reg(r, Reader::Other),
            None => [0; W],
        };
        // Bit 0 of each fiber, gathered eight fibers at a time so that every shift is by a
        // constant (shifts by the fiber index cost several instructions each).
        let (bytes, _) = v.as_chunks::<8>();
        let mut bits = 0u128;
        for (k, b) in bytes.iter().enumerate() {
            let byte = b
                .iter()
                .enumerate()
                .fold(0u32, |acc, (i, &x)| acc | (x & 1) << i);
            bits |= u128::from(byte) << (8 * k);
        }
        if c.inv {
            bits = !bits;
        }
        bits & self.mask
    }

    /// A per-fiber branch: fibers in `taken` go to `target`, the rest to the next instruction.
    #[inline]
    pub fn branch(&mut self, taken: u128, target: usize) {
        let next = self.pc + 1;
        let stay = self.mask & !taken;
        if taken == 0 {
            self.pc = next;
        } else if stay == 0 {
            self.pc = target;
        } else if target < next {
            self.set_mask(taken);
            self.pc = target;
            self.park(next, stay);
        } else {
            self.set_mask(stay);
            self.pc = next;
            self.park(target, taken);
        }
    }

    /// Parks `mask` at `pc`, merging with a group already there.
    fn park(&mut self, pc: usize, mask: u128) {
        if let Some(g) = self.parked.iter_mut().find(|g| g.0 == pc) {
            g.1 |= mask;
        } else {
            self.parked.push((pc, mask));
            self.parked_min = self.parked_min.min(pc);
        }
    }

    /// Takes the lowest parked group out of the list.
    fn unpark_min(&mut self) -> (usize, u128) {
        let k = (0..self.parked.len())
            .min_by_key(|&k| self.parked[k].0)
            .unwrap_or(0);
        let g = self.parked.swap_remove(k);
        self.parked_min = self.parked.iter().map(|g| g.0).min().unwrap_or(usize::MAX);
        g
    }

    /// Applies the min-PC rule after the running group moved.
    #[inline]
    pub fn reschedule(&mut self) {
        if self.parked_min > self.pc {
            return;
        }
        let (pc, mask) = self.unpark_min();
        if pc == self.pc {
            self.set_mask(self.mask | mask);
        } else {
            self.park(self.pc, self.mask);
            self.pc = pc;
            self.set_mask(mask);
        }
        self.check_jp();
    }

    /// Retires the running group; returns false when the wave has no fibers left.
    pub fn end_group(&mut self) -> bool {
        if self.parked.is_empty() {
            return false;
        }
        let (pc, mask) = self.unpark_min();
        self.pc = pc;
        self.set_mask(mask);
        self.check_jp();
        true
    }

    fn check_jp(&mut self) {
        if self.prog.get(self.pc).is_some_and(|i| !i.flags.jp) {
            self.hazard(HazardKind::MissingJp, None, None);
        }
    }
}
