//! Static checks run before the first instruction, so the executor never meets a register it
//! does not have, a branch into nowhere or a resource the dispatch lacks. A failed check is a
//! [`Fault`]: the run stops without executing anything.
//!
//! Rules, per instruction:
//! * every GPR (including each register of a consecutive range) is below `Config::registers`;
//! * every predicate (branch conditions, `cmps`/bit-op destinations, `mov`/bit-op sources) is
//!   below `Config::predicates`; predicates appear only where listed in [`super::isa::Op`];
//! * branch targets lie inside the program;
//! * `(nopN)` has N ≤ 3 and sits on cat2/cat3 only; `(rptN)nop` has N ≤ 7;
//! * counts: loads/stores 1..=4 words, `sam` 1..=5 and `isam` 1..=4 parameters, write masks
//!   1..=15; textures and buffers exist in the dispatch; stores never target the uniform file
//!   and loads never read outputs.

use std::fmt;

use super::config::Config;
use super::isa::{Binary, Op, Program, Space, TexKind, Unary};
use super::reg::{Cond, Reg, Src};
use crate::dispatch::Dispatch;
use crate::semantics::TexDim;

/// Why a program cannot run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// The program has no instructions.
    Empty,
    /// A GPR at or past the register budget, or a range running past `r47.w`.
    RegisterOutOfBudget,
    /// A predicate at or past the predicate count.
    PredicateUnavailable,
    /// A predicate where the instruction needs a GPR, or the reverse.
    WrongRegisterFile,
    /// A branch to an index outside the program.
    BranchOutOfRange {
        /// The target index.
        target: i64,
    },
    /// Execution ran past the last instruction without `end`.
    FellOffEnd,
    /// `(nopN)` with N > 3, on something other than cat2/cat3, or `(rptN)nop` with N > 7.
    BadNop,
    /// A count, parameter number or write mask out of range.
    BadCount,
    /// A texture the dispatch does not have.
    NoSuchTexture,
    /// A buffer the dispatch does not have.
    NoSuchBuffer,
    /// A store to the uniform file or a load from outputs.
    BadSpace,
}

/// A program the machine refuses, at instruction `pc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fault {
    /// Index of the offending instruction (the program length for [`FaultKind::Empty`] and
    /// [`FaultKind::FellOffEnd`]).
    pub pc: u32,
    /// What is wrong.
    pub kind: FaultKind,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "fault at #{}: {:?}", self.pc, self.kind)
    }
}

struct Check<'a> {
    config: &'a Config,
}

type R = Result<(), FaultKind>;

impl Check<'_> {
    fn gpr(&self, r: Reg) -> R {
        if r.is_pred() {
            Err(FaultKind::WrongRegisterFile)
        } else if r.row() >= self.config.registers as usize {
            Err(FaultKind::RegisterOutOfBudget)
        } else {
            Ok(())
        }
    }

    fn range(&self, r: Reg, n: u8) -> R {
        for k in 0..n {
            self.gpr(r.add(k).ok_or(FaultKind::RegisterOutOfBudget)?)?;
        }
        Ok(())
    }

    fn pred(&self, r: Reg) -> R {
        let p = r.row() - super::reg::GPRS;
        if p < self.config.predicates.min(4) as usize {
            Ok(())
        } else {
            Err(FaultKind::PredicateUnavailable)
        }
    }

    fn reg(&self, r: Reg, pred_ok: bool) -> R {
        match (r.is_pred(), pred_ok) {
            (true, true) => self.pred(r),
            (true, false) => Err(FaultKind::WrongRegisterFile),
            _ => self.gpr(r),
        }
    }

    fn src(&self, s: Src, pred_ok: bool) -> R {
        match s {
            Src::Reg(r) => self.reg(r, pred_ok),
            _ => Ok(()),
        }
    }

    fn cond(&self, c: Cond) -> R {
        self.pred(c.reg().ok_or(FaultKind::PredicateUnavailable)?)
    }

    fn count(ok: bool) -> R {
        if ok {
            Ok(())
        } else {
            Err(FaultKind::BadCount)
        }
    }

    fn op(&self, op: &Op, dispatch: &Dispatch) -> R {
        match *op {
            Op::Nop { repeat } => Self::count(repeat <= 7).map_err(|_| FaultKind::BadNop),
            Op::Jump { .. } | Op::Getone { .. } | Op::End => Ok(()),
            Op::Br { cond, .. } | Op::Bany { cond, .. } | Op::Ball { cond, .. } => self.cond(cond),
            Op::Braa { a, b, .. } | Op::Brao { a, b, .. } => {
                self.cond(a)?;
                self.cond(b)
            }
            Op::Mov { dst, src } => {
                self.gpr(dst)?;
                self.src(src, true)
            }
            Op::Cov { dst, src, .. } => {
                self.gpr(dst)?;
                self.src(src, false)
            }
            Op::Alu1 { op, dst, src } => {
                let bits = op == Unary::NotB;
                self.reg(dst, bits)?;
                self.src(src, bits)
            }
            Op::Alu2 { op, dst, a, b } => {
                let bits = matches!(op, Binary::AndB | Binary::OrB | Binary::XorB);
                self.reg(dst, bits)?;
                self.src(a, bits)?;
                self.src(b, bits)
            }
            Op::Cmps { dst, a, b, .. } => {
                self.reg(dst, true)?;
                self.src(a, false)?;
                self.src(b, false)
            }
            Op::Alu3 { dst, a, b, c, .. } => {
                self.gpr(dst)?;
                self.src(a, false)?;
                self.src(b, false)?;
                self.src(c, false)
            }
            Op::Sfu { dst, src, .. } => {
                self.gpr(dst)?;
                self.src(src, false)
            }
            Op::Div { dst, a, b, .. } => {
                self.gpr(dst)?;
                self.src(a, false)?;
                self.src(b, false)
            }
            Op::Tex {
                op,
                dst,
                wrmask,
                src,
                params,
                tex,
            } => {
                let max = op.layout().len.max(1);
                let offsets_ok = !op.offset || op.dim != TexDim::Cube;
                let kind_ok = match op.kind {
                    TexKind::Isam | TexKind::Isaml => op.dim != TexDim::Cube && !op.shadow,
                    TexKind::Gather4(c) => c < 4 && matches!(op.dim, TexDim::D2 | TexDim::Cube),
                    _ => true,
                };
                Self::count(
                    (1..=15).contains(&wrmask)
                        && (1..=max).contains(&params)
                        && usize::from(params) <= super::mem::MAX_TEX_PARAMS
                        && offsets_ok
                        && kind_ok,
                )?;
                for i in 0..4 {
                    if wrmask & (1 << i) != 0 {
                        self.gpr(dst.add(i).ok_or(FaultKind::RegisterOutOfBudget)?)?;
                    }
                }
                self.range(src, params)?;
                if (tex as usize) < dispatch.textures.len() {
                    Ok(())
                } else {
                    Err(FaultKind::NoSuchTexture)
                }
            }
            Op::Load {
                space,
                dst,
                addr,
                count,
            } => {
                Self::count((1..=4).contains(&count))?;
                self.range(dst, count)?;
                self.space(space, dispatch, space == Space::Output)?;
                addr.base.map_or(Ok(()), |r| self.gpr(r))
            }
            Op::Store {
                space,
                addr,
                src,
                count,
            } => {
                Self::count((1..=4).contains(&count))?;
                self.range(src, count)?;
                self.space(space, dispatch, space == Space::Uniform)?;
                addr.base.map_or(Ok(()), |r| self.gpr(r))
            }
        }
    }

    fn space(&self, space: Space, dispatch: &Dispatch, forbidden: bool) -> R {
        if forbidden {
            return Err(FaultKind::BadSpace);
        }
        match space {
            Space::Global(b) if b as usize >= dispatch.buffers.len() => {
                Err(FaultKind::NoSuchBuffer)
            }
            _ => Ok(()),
        }
    }
}

/// Checks every rule in the module header; the first broken one is the fault.
pub fn validate(program: &Program, dispatch: &Dispatch, config: &Config) -> Result<(), Fault> {
    let len = program.instrs.len();
    if len == 0 {
        return Err(Fault {
            pc: 0,
            kind: FaultKind::Empty,
        });
    }
    let check = Check { config };
    for (pc, ins) in program.instrs.iter().enumerate() {
        let fault = |kind| Fault {
            pc: pc as u32,
            kind,
        };
        let cat = ins.op.category();
        if ins.flags.nop > 3 || (ins.flags.nop > 0 && cat != 2 && cat != 3) {
            return Err(fault(FaultKind::BadNop));
        }
        check.op(&ins.op, dispatch).map_err(fault)?;
        if let Some(off) = ins.op.branch_offset() {
            let target = pc as i64 + off as i64;
            if target < 0 || target >= len as i64 {
                return Err(fault(FaultKind::BranchOutOfRange { target }));
            }
        }
    }
    Ok(())
}
