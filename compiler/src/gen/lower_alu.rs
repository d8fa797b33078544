//! Phase 1, ALU part: every `AluOp` as one Gen instruction or a short sequence.
//!
//! Where the EU has no direct op: `fsub` adds a negated source; `fceil` is `-rndd(-x)`
//! (negated by a multiply so a NaN stays canonical); `imod` is `irem` plus the divisor when
//! the remainder is non-zero and its sign differs from the divisor's (computed with two
//! `cmp`s into registers, no flag); integer division is the math box (`IntDiv`/`IntMod` on
//! D for signed, UD for unsigned); conversions are typed moves; `b2i`/`b2f` mask the 0/~0
//! boolean with 1 / 1.0; `bcsel` is a predicated `sel`; compares write 0/~0.

use super::lower::{Comp, Lower};
use super::vinst::VSrc;
use crate::ir::AluOp;
use sim::gen::{CondMod, MathFn, Op, Pred, Type};

use Type::{D, F, UD};

impl Lower<'_> {
    /// One component of `op` applied to `a`.
    pub(super) fn alu(&mut self, op: AluOp, a: [Comp; 3]) -> Comp {
        use AluOp::*;
        let n = VSrc::Null;
        match op {
            Iadd => self.bin(Op::Add, D, a),
            Isub => {
                let x = self.reg_src(a[0], D);
                let y = self.vreg_src(a[1], D);
                self.op(Op::Add, D, [x, negate(y), n])
            }
            Imul => self.bin(Op::Mul, D, a),
            Ineg => {
                let x = self.vreg_src(a[0], D);
                self.op(Op::Mov, D, [negate(x), n, n])
            }
            Iabs => {
                let x = self.vreg_src(a[0], D);
                self.op(Op::Mov, D, [absolute(x), n, n])
            }
            Imin => self.minmax(CondMod::L, D, a),
            Imax => self.minmax(CondMod::Ge, D, a),
            Umin => self.minmax(CondMod::L, UD, a),
            Umax => self.minmax(CondMod::Ge, UD, a),
            Iand | Band => self.bin(Op::And, UD, a),
            Ior | Bor => self.bin(Op::Or, UD, a),
            Ixor | Bxor => self.bin(Op::Xor, UD, a),
            Inot | Bnot => self.un(Op::Not, UD, UD, a[0]),
            Ishl => self.bin(Op::Shl, UD, a),
            Ishr => self.bin(Op::Asr, D, a),
            Ushr => self.bin(Op::Shr, UD, a),
            Udiv => self.bin(Op::Math(MathFn::IntDiv), UD, a),
            Umod => self.bin(Op::Math(MathFn::IntMod), UD, a),
            Idiv => self.bin(Op::Math(MathFn::IntDiv), D, a),
            Irem => self.bin(Op::Math(MathFn::IntMod), D, a),
            Imod => self.imod(a),
            Fadd => self.bin(Op::Add, F, a),
            Fsub => {
                let x = self.reg_src(a[0], F);
                let y = self.vreg_src(a[1], F);
                self.op(Op::Add, F, [x, negate(y), n])
            }
            Fmul => self.bin(Op::Mul, F, a),
            Ffma => {
                let c = self.reg_src(a[2], F);
                let x = self.reg_src(a[0], F);
                let y = self.reg_src(a[1], F);
                self.op(Op::Mad, F, [c, x, y])
            }
            Fneg => {
                let x = self.vreg_src(a[0], F);
                self.op(Op::Mov, F, [negate(x), n, n])
            }
            Fabs => {
                let x = self.vreg_src(a[0], F);
                self.op(Op::Mov, F, [absolute(x), n, n])
            }
            Fmin => self.minmax(CondMod::L, F, a),
            Fmax => self.minmax(CondMod::Ge, F, a),
            Ffloor => self.un(Op::Rndd, F, F, a[0]),
            Fceil => {
                let x = self.vreg_src(a[0], F);
                let t = self.op(Op::Rndd, F, [negate(x), n, n]);
                let t = self.src(t, F);
                self.op(
                    Op::Mul,
                    F,
                    [
                        t,
                        VSrc::Imm {
                            bits: (-1.0f32).to_bits(),
                            ty: F,
                        },
                        n,
                    ],
                )
            }
            Ftrunc => self.un(Op::Rndz, F, F, a[0]),
            FroundEven => self.un(Op::Rnde, F, F, a[0]),
            Ffract => self.un(Op::Frc, F, F, a[0]),
            Fsqrt => self.un(Op::Math(MathFn::Sqrt), F, F, a[0]),
            Frcp => self.un(Op::Math(MathFn::Inv), F, F, a[0]),
            Frsq => self.un(Op::Math(MathFn::Rsq), F, F, a[0]),
            Fexp2 => self.un(Op::Math(MathFn::Exp), F, F, a[0]),
            Flog2 => self.un(Op::Math(MathFn::Log), F, F, a[0]),
            Fsin => self.un(Op::Math(MathFn::Sin), F, F, a[0]),
            Fcos => self.un(Op::Math(MathFn::Cos), F, F, a[0]),
            Ieq => self.cmp(CondMod::Z, D, a),
            Ine => self.cmp(CondMod::Nz, D, a),
            Ilt => self.cmp(CondMod::L, D, a),
            Ige => self.cmp(CondMod::Ge, D, a),
            Ult => self.cmp(CondMod::L, UD, a),
            Uge => self.cmp(CondMod::Ge, UD, a),
            Feq => self.cmp(CondMod::Z, F, a),
            Fne => self.cmp(CondMod::Nz, F, a),
            Flt => self.cmp(CondMod::L, F, a),
            Fge => self.cmp(CondMod::Ge, F, a),
            Bcsel => {
                self.flag_from(a[0]);
                let x = self.reg_src(a[1], UD);
                let y = self.src(a[2], UD);
                self.op_with(Op::Sel, UD, [x, y, n], None, Pred::Normal)
            }
            I2f => self.un(Op::Mov, F, D, a[0]),
            U2f => self.un(Op::Mov, F, UD, a[0]),
            F2i => self.un(Op::Mov, D, F, a[0]),
            F2u => self.un(Op::Mov, UD, F, a[0]),
            B2i => self.bin(Op::And, UD, [a[0], Comp::Imm(1), Comp::None]),
            // 32 bits to 32 (the backend refuses other widths).
            I2i | U2u => self.un(Op::Mov, UD, UD, a[0]),
            B2f => self.bin(Op::And, UD, [a[0], Comp::Imm(1.0f32.to_bits()), Comp::None]),
            I2b => self.cmp(CondMod::Nz, D, [a[0], Comp::Imm(0), Comp::None]),
            UbitfieldExtract | IbitfieldExtract | BitCount | BitfieldReverse | FindLsb
            | UfindMsb | IfindMsb | UmulHigh | ImulHigh | UaddCarry | UsubBorrow
            | BitfieldInsert => {
                unreachable!("{op} is expanded by passes::lower_bit_ops before selection")
            }
        }
    }

    /// `dst:ty = op src0:ty, src1:ty` (src1 may be an immediate).
    fn bin(&mut self, op: Op, ty: Type, a: [Comp; 3]) -> Comp {
        let x = self.reg_src(a[0], ty);
        let y = self.src(a[1], ty);
        self.op(op, ty, [x, y, VSrc::Null])
    }

    /// `dst:dty = op src0:sty`.
    fn un(&mut self, op: Op, dty: Type, sty: Type, a: Comp) -> Comp {
        let x = self.reg_src(a, sty);
        self.op(op, dty, [x, VSrc::Null, VSrc::Null])
    }

    /// `sel.l` (min) or `sel.ge` (max).
    fn minmax(&mut self, cm: CondMod, ty: Type, a: [Comp; 3]) -> Comp {
        let x = self.reg_src(a[0], ty);
        let y = self.src(a[1], ty);
        self.op_with(Op::Sel, ty, [x, y, VSrc::Null], Some(cm), Pred::None)
    }

    /// `cmp.cm dst:UD, src0:ty, src1:ty`: 0/~0.
    fn cmp(&mut self, cm: CondMod, ty: Type, a: [Comp; 3]) -> Comp {
        let x = self.reg_src(a[0], ty);
        let y = self.src(a[1], ty);
        let dty = if ty == F { UD } else { ty };
        self.op_with(Op::Cmp, dty, [x, y, VSrc::Null], Some(cm), Pred::None)
    }

    /// GLSL `mod`: `r = irem(a, b); r + (r != 0 && (r ^ b) < 0 ? b : 0)`.
    fn imod(&mut self, a: [Comp; 3]) -> Comp {
        let r = self.bin(Op::Math(MathFn::IntMod), D, a);
        let b = self.src(a[1], D);
        let rs = self.src(r, D);
        let t = self.op(Op::Xor, D, [rs, b, VSrc::Null]);
        let neg = self.cmp(CondMod::L, D, [t, Comp::Imm(0), Comp::None]);
        let nz = self.cmp(CondMod::Nz, D, [r, Comp::Imm(0), Comp::None]);
        let m = self.bin(Op::And, UD, [neg, nz, Comp::None]);
        let bs = self.src(a[1], D);
        let ms = self.src(m, D);
        let adj = self.op(Op::And, D, [ms, bs, VSrc::Null]);
        let rs = self.src(r, D);
        let adj = self.src(adj, D);
        self.op(Op::Add, D, [rs, adj, VSrc::Null])
    }
}

fn negate(s: VSrc) -> VSrc {
    match s {
        VSrc::Reg(mut r) => {
            r.neg = !r.neg;
            VSrc::Reg(r)
        }
        s => s,
    }
}

fn absolute(s: VSrc) -> VSrc {
    match s {
        VSrc::Reg(mut r) => {
            r.abs = true;
            VSrc::Reg(r)
        }
        s => s,
    }
}
