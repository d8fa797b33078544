//! Integers of 16 and 64 bits (`Config::sized_int_rate`): a chain of width-generic integer
//! ops on values widened from 32-bit ones in scope, brought back to 32 bits so the result
//! reaches the outputs.
//!
//! A chain is: one or two wide operands (a 32-bit value in scope converted with `i2i`/`u2u`,
//! a wide value an earlier chain left in scope, or for 64 bits two words joined as
//! `u2u(lo) | u2u(hi) << 32`; for 16 bits sometimes a constant), up to four ops of
//! `Sizing::Same` among them (shift amounts mostly below the width, so the high half moves),
//! then a narrowing: `u2u`/`i2i` to 32 bits, the high word of a 64-bit value, or a compare
//! (of the chain's value or of fresh operands, so compares of conversions are common).
//! The widened sums of two 32-bit words are where a carry into bit 32 shows (what a 64-bit
//! add lowered to two 32-bit ones must propagate).

use super::ctx::Gen;
use super::pool::Flavor;
use arbitrary::Result;
use compiler::ir::alu::{Kind, Sizing};
use compiler::ir::{AluOp, BitSize, InstKind, Type, Value};

/// The width-generic ops with an integer result (`Sizing::Same`): what a chain draws from
/// (compares and `i2b` end a chain instead).
fn ops() -> impl Iterator<Item = AluOp> {
    AluOp::ALL
        .iter()
        .copied()
        .filter(|op| op.sizing() == Sizing::Same && op.dst() == Kind::Int)
}

/// Emits one chain (see the module comment).
pub fn chain(g: &mut Gen) -> Result<()> {
    let (bits, comps) = if g.u.arbitrary::<bool>()? {
        (BitSize::B64, 1)
    } else {
        (BitSize::B16, g.comps()?)
    };
    let ty = Type::int(bits, comps);
    let mut x = operand(g, ty)?;
    // No op at all now and then: a conversion narrowed straight back.
    for _ in 0..g.u.int_in_range(0..=4)? {
        let n = ops().count();
        let op = ops().nth(g.index(n)?).unwrap_or(AluOp::Iadd);
        x = match op.arity() {
            1 => g.alu(op, &[x]),
            _ if matches!(op, AluOp::Ishl | AluOp::Ishr | AluOp::Ushr) => {
                let amount = shift_amount(g, ty)?;
                g.alu(op, &[x, amount])
            }
            _ => {
                let y = operand(g, ty)?;
                if g.u.arbitrary::<bool>()? {
                    g.alu(op, &[x, y])
                } else {
                    g.alu(op, &[y, x])
                }
            }
        };
    }
    narrow(g, x, ty)
}

/// A wide operand of type `ty`.
fn operand(g: &mut Gen, ty: Type) -> Result<Value> {
    let (c, bits) = (ty.comps(), ty.bits().unwrap_or(BitSize::B32));
    let kept = g.pool.matching(ty).last().copied();
    match (g.u.int_in_range(0..=5)?, kept) {
        (0 | 1, Some(i)) => Ok(g.pool.entries()[i].v),
        (2, _) if ty.bits() == Some(BitSize::B16) => {
            const EDGES: [u32; 6] = [0, 1, 0x7fff, 0x8000, 0xffff, 0xfff9];
            let mut words = [0u32; 4];
            for w in words.iter_mut().take(usize::from(c)) {
                *w = g.pick(&EDGES)?;
            }
            Ok(g.emit(InstKind::Const { bits: words }, ty, Flavor::Int))
        }
        (3, _) if ty.bits() == Some(BitSize::B64) => {
            // Two words joined: the high one moves into bits 32..63.
            let lo = g.int()?;
            let hi = g.int()?;
            let lo = g.convert(AluOp::U2u, lo, bits);
            let hi = g.convert(AluOp::U2u, hi, bits);
            let k = g.sized_const(32, bits);
            let high = g.alu(AluOp::Ishl, &[hi, k]);
            Ok(g.alu(AluOp::Ior, &[lo, high]))
        }
        _ => {
            let w = g.get(Type::vec32(c), Flavor::Int)?;
            let op = g.pick(&[AluOp::U2u, AluOp::I2i])?;
            Ok(g.convert(op, w, bits))
        }
    }
}

/// A shift amount of type `ty`: mostly a constant below the width, sometimes any value.
fn shift_amount(g: &mut Gen, ty: Type) -> Result<Value> {
    let bits = ty.bits().unwrap_or(BitSize::B32);
    let width = bits.bits();
    let w = if g.u.int_in_range(0..=3)? == 0 {
        g.get(Type::vec32(ty.comps()), Flavor::Int)?
    } else {
        let k = g.u.int_in_range(0..=width - 1)?;
        let mut words = [0u32; 4];
        words[..usize::from(ty.comps())].fill(k);
        g.emit(
            InstKind::Const { bits: words },
            Type::vec32(ty.comps()),
            Flavor::Int,
        )
    };
    Ok(g.convert(AluOp::U2u, w, bits))
}

/// Brings `x` (of `ty`) back to 32-bit data in scope.
fn narrow(g: &mut Gen, x: Value, ty: Type) -> Result<()> {
    let bits = ty.bits().unwrap_or(BitSize::B32);
    let to32 = |g: &mut Gen, op: AluOp, v: Value| g.convert(op, v, BitSize::B32);
    match g.u.int_in_range(0..=4)? {
        0 => {
            to32(g, AluOp::U2u, x);
        }
        1 => {
            to32(g, AluOp::I2i, x);
        }
        2 if bits == BitSize::B64 => {
            let k = g.sized_const(32, bits);
            let high = g.alu(AluOp::Ushr, &[x, k]);
            to32(g, AluOp::U2u, high);
        }
        _ => {
            let x = if g.u.arbitrary::<bool>()? {
                x
            } else {
                operand(g, ty)?
            };
            let y = operand(g, ty)?;
            let op = g.pick(&[AluOp::Ult, AluOp::Ilt, AluOp::Ieq, AluOp::Ine, AluOp::Ige])?;
            let b = g.alu(op, &[x, y]);
            g.alu(AluOp::B2i, &[b]);
        }
    }
    Ok(())
}
