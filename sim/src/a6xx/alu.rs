//! Lane arithmetic of cat1–cat4, over whole rows: one `match` per instruction, then a tight
//! loop the compiler can vectorise (every choice an instruction fixes, a comparison's
//! condition included, is made before the loop). Results replace the first source in place.
//! Every float result goes through `semantics::canon`, every rule that the IR interpreter
//! shares comes from `crate::semantics`.

use super::isa::{Binary, CmpCond, CmpType, Conv, DivOp, SfuOp, Ternary, Unary};
use crate::semantics::{canon, f2i, f2u, fmax, fmin, i2f, idiv, imod, irem, u2f, udiv, umod};

#[inline(always)]
fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

#[inline(always)]
fn map1<const W: usize>(a: &mut [u32; W], op: impl Fn(u32) -> u32) {
    for x in a.iter_mut() {
        *x = op(*x);
    }
}

#[inline(always)]
fn map2<const W: usize>(a: &mut [u32; W], b: &[u32; W], op: impl Fn(u32, u32) -> u32) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x = op(*x, y);
    }
}

/// `cov`.
pub(super) fn convert<const W: usize>(conv: Conv, a: &mut [u32; W]) {
    match conv {
        Conv::F32S32 => map1(a, f2i),
        Conv::F32U32 => map1(a, f2u),
        Conv::S32F32 => map1(a, i2f),
        Conv::U32F32 => map1(a, u2f),
    }
}

/// cat2 one-source operations.
pub(super) fn unary<const W: usize>(op: Unary, a: &mut [u32; W]) {
    match op {
        Unary::NotB => map1(a, |x| !x),
        Unary::AbsNegF { abs, neg } => {
            let clear = if abs { 0x7fff_ffff } else { u32::MAX };
            let flip = if neg { 0x8000_0000 } else { 0 };
            map1(a, |x| (x & clear) ^ flip)
        }
        Unary::AbsNegS { abs, neg } => map1(a, |x| {
            let v = if abs {
                (x as i32).wrapping_abs()
            } else {
                x as i32
            };
            (if neg { v.wrapping_neg() } else { v }) as u32
        }),
        Unary::FloorF => map1(a, |x| canon(f(x).floor())),
        Unary::CeilF => map1(a, |x| canon(f(x).ceil())),
        Unary::TruncF => map1(a, |x| canon(f(x).trunc())),
        Unary::RndneF => map1(a, |x| canon(f(x).round_ties_even())),
    }
}

/// cat2 two-source operations.
pub(super) fn binary<const W: usize>(op: Binary, a: &mut [u32; W], b: &[u32; W]) {
    match op {
        Binary::AddF => map2(a, b, |x, y| canon(f(x) + f(y))),
        Binary::MulF => map2(a, b, |x, y| canon(f(x) * f(y))),
        Binary::MinF => map2(a, b, fmin),
        Binary::MaxF => map2(a, b, fmax),
        Binary::AddU => map2(a, b, u32::wrapping_add),
        Binary::SubU => map2(a, b, u32::wrapping_sub),
        Binary::MulLU => map2(a, b, u32::wrapping_mul),
        Binary::AndB => map2(a, b, |x, y| x & y),
        Binary::OrB => map2(a, b, |x, y| x | y),
        Binary::XorB => map2(a, b, |x, y| x ^ y),
        Binary::ShlB => map2(a, b, |x, y| x << (y & 31)),
        Binary::ShrB => map2(a, b, |x, y| x >> (y & 31)),
        Binary::AshrB => map2(a, b, |x, y| ((x as i32) >> (y & 31)) as u32),
        Binary::MinS => map2(a, b, |x, y| (x as i32).min(y as i32) as u32),
        Binary::MaxS => map2(a, b, |x, y| (x as i32).max(y as i32) as u32),
        Binary::MinU => map2(a, b, u32::min),
        Binary::MaxU => map2(a, b, u32::max),
    }
}

#[inline(always)]
fn cmp_with<const W: usize, T: PartialOrd>(
    cond: CmpCond,
    a: &mut [u32; W],
    b: &[u32; W],
    conv: impl Fn(u32) -> T + Copy,
) {
    match cond {
        CmpCond::Lt => map2(a, b, |x, y| (conv(x) < conv(y)) as u32),
        CmpCond::Le => map2(a, b, |x, y| (conv(x) <= conv(y)) as u32),
        CmpCond::Gt => map2(a, b, |x, y| (conv(x) > conv(y)) as u32),
        CmpCond::Ge => map2(a, b, |x, y| (conv(x) >= conv(y)) as u32),
        CmpCond::Eq => map2(a, b, |x, y| (conv(x) == conv(y)) as u32),
        CmpCond::Ne => map2(a, b, |x, y| (conv(x) != conv(y)) as u32),
    }
}

/// `cmps`: 1 where the comparison holds, else 0 (float NaN: only `ne` holds).
pub(super) fn compare<const W: usize>(ty: CmpType, cond: CmpCond, a: &mut [u32; W], b: &[u32; W]) {
    match ty {
        CmpType::F => cmp_with(cond, a, b, f),
        CmpType::U => cmp_with(cond, a, b, |x| x),
        CmpType::S => cmp_with(cond, a, b, |x| x as i32),
    }
}

/// cat3 operations.
pub(super) fn ternary<const W: usize>(op: Ternary, a: &mut [u32; W], b: &[u32; W], c: &[u32; W]) {
    match op {
        Ternary::MadF32 => {
            for i in 0..W {
                a[i] = canon(f(a[i]).mul_add(f(b[i]), f(c[i])));
            }
        }
        Ternary::MadU24 => {
            for i in 0..W {
                a[i] = (a[i] & 0xff_ffff)
                    .wrapping_mul(b[i] & 0xff_ffff)
                    .wrapping_add(c[i]);
            }
        }
        Ternary::SelB32 => {
            for i in 0..W {
                a[i] = if b[i] != 0 { a[i] } else { c[i] };
            }
        }
    }
}

/// cat4 SFU functions.
pub(super) fn sfu<const W: usize>(op: SfuOp, a: &mut [u32; W]) {
    match op {
        SfuOp::Rcp => map1(a, |x| canon(1.0 / f(x))),
        SfuOp::Rsq => map1(a, |x| canon(1.0 / f(x).sqrt())),
        SfuOp::Sqrt => map1(a, |x| canon(f(x).sqrt())),
        SfuOp::Log2 => map1(a, |x| canon(f(x).log2())),
        SfuOp::Exp2 => map1(a, |x| canon(f(x).exp2())),
        SfuOp::Sin => map1(a, |x| canon(f(x).sin())),
        SfuOp::Cos => map1(a, |x| canon(f(x).cos())),
    }
}

/// SFU-class integer division.
pub(super) fn divide<const W: usize>(op: DivOp, a: &mut [u32; W], b: &[u32; W]) {
    match op {
        DivOp::Udiv => map2(a, b, udiv),
        DivOp::Umod => map2(a, b, umod),
        DivOp::Idiv => map2(a, b, idiv),
        DivOp::Irem => map2(a, b, irem),
        DivOp::Imod => map2(a, b, imod),
    }
}
