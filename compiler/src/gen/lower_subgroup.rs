//! Subgroup operations on the Gen EU: a thread's channels are `width / workgroup` whole
//! workgroups, each a subgroup, and the channels enabled at an instruction are its active
//! invocations (Gen's channel mask is the IR's maximal reconvergence: `if`/`else`/`endif`
//! and `while` re-enable channels exactly where the IR's lockstep joins them).
//!
//! Everything is built from three things the EU has: a `NoMask` write, which reaches the
//! disabled channels too; a masked write, which does not; and a scalar source `<0,1,0>`,
//! which gives every channel one channel's dword. A value is first spread into a *lane
//! array*: every channel's dword holds the operation's identity (`NoMask`), then the enabled
//! channels overwrite theirs (masked, a partial write), so disabled channels contribute
//! nothing. Channel `d`'s dword is then read by all, and each channel keeps what concerns it
//! by a predicate: a reduction folds its workgroup's dwords, a scan the dwords of its
//! workgroup up to (or below) its own, a shuffle the one dword it names. Ballot, elect and
//! broadcast-first are a reduction, a scan and a shuffle of something else.

use super::lower::{Comp, Lower};
use super::vinst::{VInst, VRef, VReg, VSrc};
use crate::ir::{AluOp, AtomicOp, SubgroupOp};
use crate::planted::Plant;
use sim::gen::{CondMod, Op, Pred, Type};
use sim::semantics::identity;

impl Lower<'_> {
    /// Lowers one subgroup operation with operands `a` (and `b`, a shuffle's source).
    pub(super) fn subgroup(&mut self, op: SubgroupOp, a: Comp, b: Comp) -> Comp {
        match op {
            SubgroupOp::Reduce(c) => {
                let t = self.lane_array(a, identity(c));
                self.reduce(c, t)
            }
            SubgroupOp::InclusiveScan(c) | SubgroupOp::ExclusiveScan(c) => {
                let t = self.lane_array(a, identity(c));
                self.scan(c, t, matches!(op, SubgroupOp::InclusiveScan(_)))
            }
            SubgroupOp::Ballot => {
                // Each enabled channel whose boolean holds contributes its bit.
                let local = self.local_lane();
                let bit = self.alu(AluOp::Ishl, [Comp::Imm(1), local, Comp::None]);
                let mine = self.alu(AluOp::Bcsel, [a, bit, Comp::Imm(0)]);
                let t = self.lane_array(mine, 0);
                self.reduce(AtomicOp::Or, t)
            }
            SubgroupOp::Elect if self.plants.has(Plant::GenElectFirstChannel) => {
                // Planted: the workgroup's first channel, enabled or not.
                let local = self.local_lane();
                self.alu(AluOp::Ieq, [local, Comp::Imm(0), Comp::None])
            }
            SubgroupOp::Elect => {
                // The first enabled channel is the one no enabled channel precedes.
                let t = self.lane_array(Comp::Imm(1), 0);
                let before = self.scan(AtomicOp::Add, t, false);
                self.alu(AluOp::Ieq, [before, Comp::Imm(0), Comp::None])
            }
            SubgroupOp::BroadcastFirst => {
                let local = self.local_lane();
                let t = self.lane_array(local, u32::MAX);
                let first = self.reduce(AtomicOp::Umin, t);
                self.shuffle(a, first)
            }
            SubgroupOp::Shuffle => self.shuffle(a, b),
        }
    }

    /// The channel's number in its thread, `0..width` (threads start at multiples of the
    /// width, so it is the invocation id's low bits).
    fn thread_lane(&mut self) -> Comp {
        let mask = self.width.lanes() - 1;
        self.alu(AluOp::Iand, [Comp::Fixed(1), Comp::Imm(mask), Comp::None])
    }

    /// The channel's local id: its number in its workgroup.
    fn local_lane(&mut self) -> Comp {
        let mask = self.dispatch.workgroup.max(1) - 1;
        self.alu(AluOp::Iand, [Comp::Fixed(1), Comp::Imm(mask), Comp::None])
    }

    /// A register whose every channel holds `identity` (`NoMask`) except the enabled ones,
    /// which hold `value`.
    fn lane_array(&mut self, value: Comp, identity: u32) -> VReg {
        let t = self.new_reg(self.per());
        let mut fill = VInst::new(
            Op::Mov,
            self.width,
            Some(VRef::new(t, 0, Type::UD)),
            [
                VSrc::Imm {
                    bits: identity,
                    ty: Type::UD,
                },
                VSrc::Null,
                VSrc::Null,
            ],
        );
        fill.no_mask = true;
        self.emit(fill);
        let s = self.src(value, Type::UD);
        let mut mine = VInst::new(
            Op::Mov,
            self.width,
            Some(VRef::new(t, 0, Type::UD)),
            [s, VSrc::Null, VSrc::Null],
        );
        // The disabled channels keep the identity: the write does not replace the register.
        mine.partial = true;
        self.emit(mine);
        self.multi_def.insert(t);
        t
    }

    /// Channel `d`'s dword of `t`, for every channel.
    fn channel(t: VReg, d: u32) -> VSrc {
        VSrc::Reg(VRef::channel(t, d, Type::UD))
    }

    /// `op(x, y)` on full width.
    fn combine(&mut self, op: AtomicOp, x: Comp, y: VSrc) -> Comp {
        let (gen_op, ty, cmod) = match op {
            AtomicOp::Add => (Op::Add, Type::UD, None),
            AtomicOp::And => (Op::And, Type::UD, None),
            AtomicOp::Or => (Op::Or, Type::UD, None),
            AtomicOp::Xor | AtomicOp::Xchg => (Op::Xor, Type::UD, None),
            AtomicOp::Umin => (Op::Sel, Type::UD, Some(CondMod::L)),
            AtomicOp::Umax => (Op::Sel, Type::UD, Some(CondMod::Ge)),
            AtomicOp::Imin => (Op::Sel, Type::D, Some(CondMod::L)),
            AtomicOp::Imax => (Op::Sel, Type::D, Some(CondMod::Ge)),
        };
        let x = self.reg_src(x, ty);
        let y = retype(y, ty);
        self.op_with(gen_op, ty, [x, y, VSrc::Null], cmod, Pred::None)
    }

    /// `f0.0 = (lane - lo) <u n`: the channel's thread lane lies in `lo..lo + n`.
    fn lane_in(&mut self, lane: Comp, lo: u32, n: u32) {
        let off = self.alu(
            AluOp::Iadd,
            [lane, Comp::Imm(lo.wrapping_neg()), Comp::None],
        );
        self.flag_cmp(off, CondMod::L, n);
    }

    /// `f0.0 ? x : y`.
    fn select(&mut self, x: Comp, y: Comp) -> Comp {
        let x = self.reg_src(x, Type::UD);
        let y = self.src(y, Type::UD);
        self.op_with(Op::Sel, Type::UD, [x, y, VSrc::Null], None, Pred::Normal)
    }

    /// Each channel gets `op` over its workgroup's dwords of `t`.
    fn reduce(&mut self, op: AtomicOp, t: VReg) -> Comp {
        let size = self.dispatch.workgroup.max(1).min(self.width.lanes());
        let lane = self.thread_lane();
        let mut result = Comp::None;
        for base in (0..self.width.lanes()).step_by(size as usize) {
            let first = Self::channel(t, base);
            let mut total = self.op(Op::Mov, Type::UD, [first, VSrc::Null, VSrc::Null]);
            for d in base + 1..base + size {
                total = self.combine(op, total, Self::channel(t, d));
            }
            result = if base == 0 {
                total
            } else {
                self.lane_in(lane, base, size);
                self.select(total, result)
            };
        }
        result
    }

    /// Each channel gets `op` over its workgroup's dwords of `t` up to its own (`inclusive`)
    /// or below it.
    fn scan(&mut self, op: AtomicOp, t: VReg, inclusive: bool) -> Comp {
        let size = self.dispatch.workgroup.max(1).min(self.width.lanes());
        let lane = self.thread_lane();
        let mut acc = Comp::Imm(identity(op));
        for d in 0..self.width.lanes() {
            // Channels `d..` (inclusive) or `d + 1..` up to the end of `d`'s workgroup.
            let end = d - d % size + size;
            let lo = if inclusive { d } else { d + 1 };
            if lo >= end {
                continue;
            }
            let with = self.combine(op, acc, Self::channel(t, d));
            self.lane_in(lane, lo, end - lo);
            acc = self.select(with, acc);
        }
        acc
    }

    /// Each channel gets `value` of the channel of its workgroup numbered `from`.
    fn shuffle(&mut self, value: Comp, from: Comp) -> Comp {
        let size = self.dispatch.workgroup.max(1).min(self.width.lanes());
        let lane = self.thread_lane();
        // Every channel's dword is read below, and the disabled ones are then discarded: they
        // must still be written (a read of a register nothing wrote is a hazard).
        let t = self.lane_array(value, 0);
        // The channel read: the workgroup's first plus `from`.
        let base = self.alu(AluOp::Iand, [lane, Comp::Imm(!(size - 1)), Comp::None]);
        let at = self.alu(AluOp::Iadd, [base, from, Comp::None]);
        let mut result = Comp::Imm(0);
        for d in 0..self.width.lanes() {
            self.lane_in(at, d, 1);
            let read = Self::channel(t, d);
            let x = self.op(Op::Mov, Type::UD, [read, VSrc::Null, VSrc::Null]);
            result = self.select(x, result);
        }
        result
    }
}

/// `s` read as `ty`.
fn retype(s: VSrc, ty: Type) -> VSrc {
    match s {
        VSrc::Imm { bits, .. } => VSrc::Imm { bits, ty },
        VSrc::Fixed { grf, .. } => VSrc::Fixed { grf, ty },
        VSrc::Reg(r) => VSrc::Reg(VRef { ty, ..r }),
        VSrc::Null => VSrc::Null,
    }
}
