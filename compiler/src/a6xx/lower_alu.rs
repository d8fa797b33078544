//! Phase 1, ALU part: one IR ALU op on one component → ir3 instructions. Sequences for what
//! the ALU lacks: `fsub` = `absneg.f` + `add.f` (IEEE `a - b` is `a + (-b)` exactly),
//! `ffract` = `x + -floor(x)`, `bnot` = `xor.b x, 1` (booleans are 0/1), `b2f` = `cov.u32f32`,
//! `i2b` = `cmps.u.ne x, 0`, `bcsel` = `sel.b32`. Shifts take the amount modulo 32 on both
//! sides; division goes to the sim's SFU-class `Div` ops with the shared semantics.

use super::vir::{Dst, Opnd, VInst, VReg};
use crate::ir::AluOp;
use sim::a6xx::{Binary, CmpCond, CmpType, Conv, DivOp, SfuOp, Ternary, Unary};

/// Where lowered instructions go: fresh registers, and the block being filled (`lower`'s
/// `Lower`).
pub(super) trait Out {
    /// A fresh general-purpose register.
    fn new_gpr(&mut self) -> VReg;
    /// Appends `i` to the current block.
    fn emit(&mut self, i: VInst);
}

/// Emits a cat2 two-source op into a fresh register.
pub(super) fn alu2(l: &mut impl Out, op: Binary, a: Opnd, b: Opnd) -> Opnd {
    let d = l.new_gpr();
    l.emit(VInst::Alu2 {
        op,
        dst: Dst::G(d),
        a,
        b,
    });
    Opnd::V(d)
}

/// Emits `op a, b, c` for one component and returns where the result is.
pub(super) fn alu(l: &mut impl Out, op: AluOp, s: [Opnd; 3]) -> Opnd {
    use AluOp::*;
    let [a, b, c] = s;
    match op {
        Iadd => alu2(l, Binary::AddU, a, b),
        Isub => alu2(l, Binary::SubU, a, b),
        Imul => alu2(l, Binary::MulLU, a, b),
        Ineg => alu1(
            l,
            Unary::AbsNegS {
                abs: false,
                neg: true,
            },
            a,
        ),
        Iabs => alu1(
            l,
            Unary::AbsNegS {
                abs: true,
                neg: false,
            },
            a,
        ),
        Imin => alu2(l, Binary::MinS, a, b),
        Imax => alu2(l, Binary::MaxS, a, b),
        Umin => alu2(l, Binary::MinU, a, b),
        Umax => alu2(l, Binary::MaxU, a, b),
        Iand | Band => alu2(l, Binary::AndB, a, b),
        Ior | Bor => alu2(l, Binary::OrB, a, b),
        Ixor | Bxor => alu2(l, Binary::XorB, a, b),
        Inot => alu1(l, Unary::NotB, a),
        Bnot => alu2(l, Binary::XorB, a, Opnd::Imm(1)),
        Ishl => alu2(l, Binary::ShlB, a, b),
        Ishr => alu2(l, Binary::AshrB, a, b),
        Ushr => alu2(l, Binary::ShrB, a, b),
        Udiv => div(l, DivOp::Udiv, a, b),
        Umod => div(l, DivOp::Umod, a, b),
        Idiv => div(l, DivOp::Idiv, a, b),
        Irem => div(l, DivOp::Irem, a, b),
        Imod => div(l, DivOp::Imod, a, b),
        Fadd => alu2(l, Binary::AddF, a, b),
        Fsub => {
            let nb = alu1(
                l,
                Unary::AbsNegF {
                    abs: false,
                    neg: true,
                },
                b,
            );
            alu2(l, Binary::AddF, a, nb)
        }
        Fmul => alu2(l, Binary::MulF, a, b),
        Ffma => alu3(l, Ternary::MadF32, a, b, c),
        Fneg => alu1(
            l,
            Unary::AbsNegF {
                abs: false,
                neg: true,
            },
            a,
        ),
        Fabs => alu1(
            l,
            Unary::AbsNegF {
                abs: true,
                neg: false,
            },
            a,
        ),
        Fmin => alu2(l, Binary::MinF, a, b),
        Fmax => alu2(l, Binary::MaxF, a, b),
        Ffloor => alu1(l, Unary::FloorF, a),
        Fceil => alu1(l, Unary::CeilF, a),
        Ftrunc => alu1(l, Unary::TruncF, a),
        FroundEven => alu1(l, Unary::RndneF, a),
        Ffract => {
            let fl = alu1(l, Unary::FloorF, a);
            let n = alu1(
                l,
                Unary::AbsNegF {
                    abs: false,
                    neg: true,
                },
                fl,
            );
            alu2(l, Binary::AddF, a, n)
        }
        Fsqrt => sfu(l, SfuOp::Sqrt, a),
        Frcp => sfu(l, SfuOp::Rcp, a),
        Frsq => sfu(l, SfuOp::Rsq, a),
        Fexp2 => sfu(l, SfuOp::Exp2, a),
        Flog2 => sfu(l, SfuOp::Log2, a),
        Fsin => sfu(l, SfuOp::Sin, a),
        Fcos => sfu(l, SfuOp::Cos, a),
        Ieq => cmp(l, CmpType::U, CmpCond::Eq, a, b),
        Ine => cmp(l, CmpType::U, CmpCond::Ne, a, b),
        Ilt => cmp(l, CmpType::S, CmpCond::Lt, a, b),
        Ige => cmp(l, CmpType::S, CmpCond::Ge, a, b),
        Ult => cmp(l, CmpType::U, CmpCond::Lt, a, b),
        Uge => cmp(l, CmpType::U, CmpCond::Ge, a, b),
        Feq => cmp(l, CmpType::F, CmpCond::Eq, a, b),
        Fne => cmp(l, CmpType::F, CmpCond::Ne, a, b),
        Flt => cmp(l, CmpType::F, CmpCond::Lt, a, b),
        Fge => cmp(l, CmpType::F, CmpCond::Ge, a, b),
        Bcsel => alu3(l, Ternary::SelB32, b, a, c),
        I2f => cov(l, Conv::S32F32, a),
        U2f | B2f => cov(l, Conv::U32F32, a),
        F2i => cov(l, Conv::F32S32, a),
        F2u => cov(l, Conv::F32U32, a),
        // 32 bits to 32 (the backend refuses other widths).
        B2i | I2i | U2u => a,
        I2b => cmp(l, CmpType::U, CmpCond::Ne, a, Opnd::Imm(0)),
        UbitfieldExtract | IbitfieldExtract | BitCount | BitfieldReverse | FindLsb | UfindMsb
        | IfindMsb | UmulHigh | ImulHigh | UaddCarry | UsubBorrow | BitfieldInsert => {
            unreachable!("{op} is expanded by passes::lower_bit_ops before selection")
        }
    }
}

fn alu1(l: &mut impl Out, op: Unary, src: Opnd) -> Opnd {
    let d = l.new_gpr();
    l.emit(VInst::Alu1 {
        op,
        dst: Dst::G(d),
        src,
    });
    Opnd::V(d)
}

fn alu3(l: &mut impl Out, op: Ternary, a: Opnd, b: Opnd, c: Opnd) -> Opnd {
    let d = l.new_gpr();
    l.emit(VInst::Alu3 {
        op,
        dst: d,
        a,
        b,
        c,
    });
    Opnd::V(d)
}

fn cmp(l: &mut impl Out, ty: CmpType, cond: CmpCond, a: Opnd, b: Opnd) -> Opnd {
    let d = l.new_gpr();
    l.emit(VInst::Cmps {
        ty,
        cond,
        dst: Dst::G(d),
        a,
        b,
    });
    Opnd::V(d)
}

fn sfu(l: &mut impl Out, op: SfuOp, src: Opnd) -> Opnd {
    let d = l.new_gpr();
    l.emit(VInst::Sfu { op, dst: d, src });
    Opnd::V(d)
}

fn div(l: &mut impl Out, op: DivOp, a: Opnd, b: Opnd) -> Opnd {
    let d = l.new_gpr();
    l.emit(VInst::Div { op, dst: d, a, b });
    Opnd::V(d)
}

fn cov(l: &mut impl Out, conv: Conv, src: Opnd) -> Opnd {
    let d = l.new_gpr();
    l.emit(VInst::Cov { conv, dst: d, src });
    Opnd::V(d)
}
