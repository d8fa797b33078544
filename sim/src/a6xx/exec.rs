//! The issue loop of one wave: sync-flag stalls, then the instruction, then the cycle count
//! and the min-PC reschedule. Each instruction issues at `now` (after any `(ss)`/`(sy)`
//! stall), reads its sources and produces its results at that cycle, and takes one cycle plus
//! its `(nopN)`.

use super::access::Producer;
use super::isa::{Op, Space};
use super::machine::Machine;
use super::timing::{Reader, SFU_LATENCY};
use super::validate::{Fault, FaultKind};

/// Why a wave stopped early.
pub(super) enum Stop {
    /// The cycle or instruction budget ran out.
    Timeout,
    /// The program did something the machine cannot do.
    Fault(Fault),
}

impl<const W: usize> Machine<'_, W> {
    /// Runs the current wave until all its fibers end.
    pub fn run_wave(&mut self) -> Result<(), Stop> {
        if self.mask == 0 {
            return Ok(());
        }
        // What the earlier waves left of the cycle budget: one comparison per issue.
        let Some(cycles_left) = self.config.cycle_budget.checked_sub(self.stats.cycles) else {
            return Err(Stop::Timeout);
        };
        let inst_budget = self.config.instruction_budget;
        loop {
            if self.now > cycles_left || self.stats.instructions >= inst_budget {
                return Err(Stop::Timeout);
            }
            if self.pc >= self.prog.len() {
                return Err(Stop::Fault(Fault {
                    pc: self.prog.len() as u32,
                    kind: FaultKind::FellOffEnd,
                }));
            }
            if !self.issue() {
                return Ok(());
            }
        }
    }

    /// Issues the instruction at `pc`; returns false when the wave has finished.
    #[inline]
    fn issue(&mut self) -> bool {
        let ins = self.prog[self.pc];
        let fl = ins.flags;
        if fl.ss {
            self.stats.ss += 1;
            if self.now < self.ss_ready {
                self.stats.sstall += self.ss_ready - self.now;
                self.now = self.ss_ready;
            }
            self.ss_epoch = self.ss_epoch.wrapping_add(1);
        }
        if fl.sy {
            self.stats.sy += 1;
            if self.now < self.sy_ready {
                self.stats.systall += self.sy_ready - self.now;
                self.now = self.sy_ready;
            }
            self.sy_epoch = self.sy_epoch.wrapping_add(1);
        }
        self.stats.instructions += 1;
        self.profile[self.pc] += 1;
        self.stats.fiber_instructions += self.fibers;
        self.stats.categories[ins.op.category()] += 1;
        let mut cycles = 1 + fl.nop as u64;
        self.stats.nops += fl.nop as u64;
        let pc = self.pc;
        match ins.op {
            Op::Nop { repeat } => {
                cycles += repeat as u64;
                self.stats.nops += 1 + repeat as u64;
                self.pc = pc + 1;
            }
            Op::End => {
                self.now += cycles;
                return self.end_group();
            }
            Op::Jump { offset } => {
                self.pc = target(pc, offset);
                self.now += cycles;
                self.reschedule();
                return true;
            }
            Op::Br { cond, offset } => {
                let t = self.cond_mask(cond);
                self.branch(t, target(pc, offset));
            }
            Op::Braa { a, b, offset } => {
                let t = self.cond_mask(a) & self.cond_mask(b);
                self.branch(t, target(pc, offset));
            }
            Op::Brao { a, b, offset } => {
                let t = self.cond_mask(a) | self.cond_mask(b);
                self.branch(t, target(pc, offset));
            }
            Op::Bany { cond, offset } => {
                let t = if self.cond_mask(cond) != 0 {
                    self.mask
                } else {
                    0
                };
                self.branch(t, target(pc, offset));
            }
            Op::Ball { cond, offset } => {
                let t = if self.cond_mask(cond) == self.mask {
                    self.mask
                } else {
                    0
                };
                self.branch(t, target(pc, offset));
            }
            Op::Getone { offset } => {
                let keep = self.mask & self.mask.wrapping_neg();
                self.branch(self.mask & !keep, target(pc, offset));
            }
            Op::Mov { dst, src } => {
                let a = self.read(src, Reader::Alu);
                self.write(dst, &a, Producer::Alu);
            }
            Op::Cov { conv, dst, src } => {
                let mut a = self.read(src, Reader::Alu);
                super::alu::convert(conv, &mut a);
                self.write(dst, &a, Producer::Alu);
            }
            Op::Alu1 { op, dst, src } => {
                let mut a = self.read(src, Reader::Alu);
                super::alu::unary(op, &mut a);
                self.write(dst, &a, Producer::Alu);
            }
            Op::Alu2 {
                op,
                dst,
                a: sa,
                b: sb,
            } => {
                let mut a = self.read(sa, Reader::Alu);
                let b = self.read(sb, Reader::Alu);
                super::alu::binary(op, &mut a, &b);
                self.write(dst, &a, Producer::Alu);
            }
            Op::Cmps {
                ty,
                cond,
                dst,
                a: sa,
                b: sb,
            } => {
                let mut a = self.read(sa, Reader::Alu);
                let b = self.read(sb, Reader::Alu);
                super::alu::compare(ty, cond, &mut a, &b);
                self.write(dst, &a, Producer::Alu);
            }
            Op::Alu3 {
                op,
                dst,
                a: sa,
                b: sb,
                c: sc,
            } => {
                let mut a = self.read(sa, Reader::Alu);
                let b = self.read(sb, Reader::Alu);
                let c = self.read(sc, Reader::AluLate);
                super::alu::ternary(op, &mut a, &b, &c);
                self.write(dst, &a, Producer::Alu);
            }
            Op::Sfu { op, dst, src } => {
                let until = self.now + SFU_LATENCY;
                let mut a = self.read(src, Reader::Other);
                super::alu::sfu(op, &mut a);
                self.ss_ready = self.ss_ready.max(until);
                self.write(dst, &a, Producer::Ss(SFU_LATENCY));
                self.note_src(src, until);
            }
            Op::Div {
                op,
                dst,
                a: sa,
                b: sb,
            } => {
                let until = self.now + SFU_LATENCY;
                let mut a = self.read(sa, Reader::Other);
                let b = self.read(sb, Reader::Other);
                super::alu::divide(op, &mut a, &b);
                self.ss_ready = self.ss_ready.max(until);
                self.write(dst, &a, Producer::Ss(SFU_LATENCY));
                self.note_src(sa, until);
                self.note_src(sb, until);
            }
            Op::Tex {
                op,
                dst,
                wrmask,
                src,
                params,
                tex,
            } => {
                self.sy_ready = self.sy_ready.max(self.now + super::timing::TEX_LATENCY);
                self.texture(op, dst, wrmask, src, params, tex);
            }
            Op::Load {
                space,
                dst,
                addr,
                count,
            } => {
                let lat = match space {
                    Space::Uniform => super::timing::ldc_latency(count),
                    _ => super::timing::MEM_LATENCY,
                };
                self.stats.ldp += (space == Space::Private) as u64;
                self.sy_ready = self.sy_ready.max(self.now + lat);
                self.load(space, dst, addr, count);
            }
            Op::Store {
                space,
                addr,
                src,
                count,
            } => {
                self.stats.stp += (space == Space::Private) as u64;
                self.store(space, addr, src, count);
            }
        }
        if ins.op.category() != 0 {
            self.pc = pc + 1;
        }
        self.now += cycles;
        self.reschedule();
        true
    }

    /// Notes that an SFU-class instruction holds `src` until `until` (after its own write,
    /// so an instruction may overwrite its own source).
    fn note_src(&mut self, src: super::reg::Src, until: u64) {
        if let super::reg::Src::Reg(r) = src {
            self.note_late_read(r, until, false);
        }
    }
}

/// The absolute target of a branch at `pc` (validated to lie inside the program).
#[inline]
fn target(pc: usize, offset: i32) -> usize {
    (pc as i64 + offset as i64) as usize
}
