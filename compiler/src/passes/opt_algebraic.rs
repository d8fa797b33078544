//! Algebraic simplification: a small set of identities that are exact under our semantics.
//!
//! Integer and boolean identities only, plus float sign-bit ops: `iadd x, 0`, `isub x, 0`,
//! `isub x, x`, `imul x, 1`, `imul x, 0`, `iand`/`ior`/`ixor` with `x`, `0` or `~0`, shifts
//! by a multiple of the width (amounts are taken modulo it) and of 0, double `inot`/`ineg`/`bnot`/
//! `fneg`, `fabs` of `fneg`/`fabs`, `imin`/`imax`/`umin`/`umax x, x`, `band`/`bor`/`bxor`
//! with `x`, `true`, `false`, integer compares of `x` with itself, division by 1, remainders
//! by 1, `i2b(b2i x)`, `bcsel c, x, x`, `bcsel c, true, false`, `bcsel (bnot c), x, y`.
//!
//! Deliberately absent: float identities that change a NaN payload or a zero's sign.
//! `fadd x, 0.0` turns `-0.0` into `+0.0`; `fmul x, 1.0` turns a non-canonical NaN into the
//! canonical one (every float arithmetic result that is a NaN is canonicalised); `fmin x, x`
//! does the same; `feq x, x` is false for NaN. `fneg`/`fabs` are pure bit operations, so
//! their double forms are exact.
//!
//! Invariant relied on: a replacement is an operand (or an operand's operand) of the
//! simplified instruction, so its definition dominates every use. A constant operand counts
//! only if all of its components equal the constant. Results that are constants are written
//! in place (`load_const`, unused components 0).

use super::config::PassConfig;
use crate::ir::edit::{resolve, Subst};
use crate::ir::{AluOp, BitSize, Function, Inst, InstKind, Type, Value};
use crate::planted::{Plant, Plants};
use cranelift_entity::packed_option::ReservedValue;
use cranelift_entity::SecondaryMap;

enum Step {
    /// The result equals this value.
    Replace(Value),
    /// The result is this constant in every component.
    Splat(u32),
    /// The instruction becomes this one.
    Rewrite(InstKind),
}

/// Applies exact algebraic identities; returns whether anything changed.
pub fn algebraic(func: &mut Function) -> bool {
    algebraic_with(func, &PassConfig::default())
}

/// [`algebraic`] under a pass configuration (its planted bugs).
pub fn algebraic_with(func: &mut Function, config: &PassConfig) -> bool {
    let plants = config.plants;
    let mut subst = Subst::with_capacity(func.values.len());
    let mut dead: SecondaryMap<Inst, bool> = SecondaryMap::with_capacity(func.insts.len());
    let mut progress = false;
    for (_, inst) in func.insts_in_order() {
        let Some(result) = func.result(inst) else {
            continue;
        };
        let InstKind::Alu { op, mut args } = func.insts[inst].kind else {
            continue;
        };
        for a in &mut args[..op.arity()] {
            *a = resolve(&subst, *a);
        }
        func.insts[inst].kind = InstKind::Alu { op, args };
        let Some(step) = simplify(func, op, args, func.ty(result))
            .or_else(|| planted(func, op, args, func.ty(result), plants))
        else {
            continue;
        };
        if matches!(step, Step::Splat(_)) && func.ty(result).bits() == Some(BitSize::B64) {
            // The IR has no 64-bit constants.
            continue;
        }
        progress = true;
        match step {
            Step::Replace(v) => {
                subst[result] = v.into();
                dead[inst] = true;
            }
            Step::Splat(k) => {
                let n = usize::from(func.ty(result).comps());
                let mut bits = [0; 4];
                bits[..n].fill(k);
                func.insts[inst].kind = InstKind::Const { bits };
            }
            Step::Rewrite(kind) => func.insts[inst].kind = kind,
        }
    }
    if progress {
        func.apply_subst(&subst);
        func.remove_insts(&dead);
    }
    progress
}

/// Whether `v` is a constant all of whose components satisfy `pred`.
fn is_const(func: &Function, v: Value, pred: impl Fn(u32) -> bool) -> bool {
    let n = usize::from(func.ty(v).comps());
    func.const_bits(v)
        .is_some_and(|bits| bits[..n].iter().all(|&b| pred(b)))
}

/// The operand of a unary `op` defining `v`, if `v` is defined so.
fn unary_of(func: &Function, v: Value, op: AluOp) -> Option<Value> {
    match func.def_kind(v)? {
        InstKind::Alu { op: o, args } if *o == op => Some(args[0]),
        _ => None,
    }
}

fn alu1(op: AluOp, a: Value) -> InstKind {
    let r = Value::reserved_value();
    InstKind::Alu {
        op,
        args: [a, r, r, r],
    }
}

/// The planted bugs' wrong identities (`crate::planted`), when on.
fn planted(func: &Function, op: AluOp, args: [Value; 4], ty: Type, plants: Plants) -> Option<Step> {
    let [a, b, ..] = args;
    // `x` when `v` is `conv x` from a narrower width.
    let narrowed = |v: Value, conv: AluOp| {
        let x = unary_of(func, v, conv)?;
        let (from, to) = (func.ty(x).bits()?, func.ty(v).bits()?);
        (from.bits() < to.bits()).then_some(x)
    };
    match op {
        AluOp::Ilt | AluOp::Ige if plants.has(Plant::AlgebraicNarrowCompareSigned) => {
            let (x, y) = (narrowed(a, AluOp::U2u)?, narrowed(b, AluOp::U2u)?);
            (func.ty(x) == func.ty(y)).then(|| {
                let r = Value::reserved_value();
                Step::Rewrite(InstKind::Alu {
                    op,
                    args: [x, y, r, r],
                })
            })
        }
        AluOp::I2i if plants.has(Plant::AlgebraicDropSextPair) => {
            // `a` is `i2i x`, a truncation of `x` to `a`'s width; the result has `x`'s type.
            let x = unary_of(func, a, AluOp::I2i)?;
            let narrows = func.ty(a).bits()?.bits() < func.ty(x).bits()?.bits();
            (narrows && func.ty(x) == ty).then_some(Step::Replace(x))
        }
        _ => None,
    }
}

fn simplify(func: &Function, op: AluOp, args: [Value; 4], ty: Type) -> Option<Step> {
    use AluOp::*;
    use Step::*;
    let [a, b, c, _] = args;
    // Shift amounts are taken modulo the width.
    let width = ty.bits().map_or(32, BitSize::bits);
    let k = |v: Value, x: u32| is_const(func, v, |bits| bits == x);
    // For commutative ops: the other operand when one is the constant `x`.
    let either = |x: u32| {
        if k(b, x) {
            Some(a)
        } else if k(a, x) {
            Some(b)
        } else {
            None
        }
    };
    let step = match op {
        Iadd | Ior | Ixor | Bor | Bxor if either(0).is_some() => Replace(either(0)?),
        Imul | Band if either(1).is_some() => Replace(either(1)?),
        Iand if either(u32::MAX).is_some() => Replace(either(u32::MAX)?),
        Imul | Iand | Band if either(0).is_some() => Splat(0),
        Ior if either(u32::MAX).is_some() => Splat(u32::MAX),
        Bor if either(1).is_some() => Splat(1),
        Iand | Ior | Band | Bor | Imin | Imax | Umin | Umax if a == b => Replace(a),
        Ixor | Isub | Bxor if a == b => Splat(0),
        Ieq | Ige | Uge if a == b => Splat(1),
        Ine | Ilt | Ult if a == b => Splat(0),
        Isub if k(b, 0) => Replace(a),
        Ishl | Ishr | Ushr if is_const(func, b, |s| s % width == 0) => Replace(a),
        Ishl | Ishr | Ushr if k(a, 0) => Replace(a),
        Udiv | Idiv if k(b, 1) => Replace(a),
        Umod | Irem | Imod if k(b, 1) => Splat(0),
        Inot | Ineg | Bnot | Fneg => Replace(unary_of(func, a, op)?),
        Fabs => {
            let inner = unary_of(func, a, Fneg).or_else(|| unary_of(func, a, Fabs))?;
            Rewrite(alu1(Fabs, inner))
        }
        I2b => Replace(unary_of(func, a, B2i)?),
        Bcsel if b == c => Replace(b),
        Bcsel if func.ty(a) == ty && k(b, 1) && k(c, 0) => Replace(a),
        Bcsel => Rewrite(InstKind::Alu {
            op: Bcsel,
            args: [unary_of(func, a, Bnot)?, c, b, Value::reserved_value()],
        }),
        _ => return None,
    };
    Some(step)
}
