//! Arithmetic, logic, comparison and `math` instructions, lane by lane: every source is read
//! for every lane before the destination is written (a region may overlap its sources), the
//! conditional modifier sees the result as the destination type holds it, and only enabled
//! lanes write the destination and their flag bits.
//!
//! Integer instructions compute on 64-bit widened sources and truncate into the destination;
//! float instructions compute in binary32, round to nearest even, make every NaN result the
//! canonical NaN ([`semantics::canon`]) and flush denormal inputs and results unless cr0 keeps
//! them. `mad` is `src0 + src1 * src2` with one rounding; `lrp` is
//! `src0 * src1 + (1 - src0) * src2`. Rules taken from [`crate::semantics`] so that the
//! interpreter and this machine share them: minNum/maxNum for `sel.l`/`sel.ge`, integer
//! division by zero, float → integer conversion.

use super::super::inst::{Inst, Src};
use super::super::opcode::Opcode;
use super::super::types::Type;
use super::operand::{bits_of, num, Num, Regs};
use super::{unsupported, Stop};
use crate::semantics;

/// Lanes an instruction can have.
const MAX_LANES: usize = 32;

/// Executes an ALU or `math` instruction. `exec` has bit `i` set for each lane the execution
/// mask enables; `pred` for each lane whose predicate holds (all when unpredicated).
pub fn execute(r: &mut Regs, inst: &Inst, exec: u32, pred: u32) -> Result<(), Stop> {
    if inst.align16 && !inst.is_3src() {
        return unsupported(format!("align16 {}", inst.opcode.name()));
    }
    r.check_float_mode()?;
    let op = inst.opcode;
    let is_sel = op == Opcode::SEL;
    // `sel` writes every enabled lane; its predicate chooses the source.
    let lanes = if is_sel { exec } else { exec & pred };
    let Some(dst) = inst.dst else {
        return unsupported(format!("{} without a destination", op.name()));
    };
    let flush = !r.keeps_denormals();
    let n = inst.exec_size as usize;
    let mut results: [Option<(Num, Option<bool>)>; MAX_LANES] = [None; MAX_LANES];
    for (lane, slot) in results.iter_mut().enumerate().take(n) {
        if lanes >> lane & 1 == 0 {
            continue;
        }
        let mut s = [None; 3];
        for (k, src) in inst.src.iter().enumerate() {
            if let Some(src) = src {
                s[k] = Some(source(r, src, lane, op.is_logic())?);
            }
        }
        *slot = Some(lane_result(inst, &s, pred >> lane & 1 == 1, flush)?);
    }
    let group = inst.group() as usize;
    let writes_flag = inst.cond_modifier != 0 && !is_sel;
    for (lane, slot) in results.iter().enumerate().take(n) {
        let Some((value, compared)) = *slot else {
            continue;
        };
        let value = if flush { flushed(value) } else { value };
        let bits = match compared {
            // cmp writes all ones or zero whatever the destination's type: brw gives a float
            // compare an F destination (`brw_builder.h:603-623`, the destination typed like
            // src0) and uses it as a 0/~0 boolean.
            Some(on) if on => u64::MAX >> (64 - 8 * dst.ty.size()),
            Some(_) => 0,
            None => bits_of(dst.ty, value, inst.saturate)?,
        };
        r.write_bits(&dst, lane, bits)?;
        if writes_flag {
            let on = match compared {
                Some(on) => on,
                None => {
                    let uq = dst.ty == Type::UQ;
                    let v = ordered(num(dst.ty, bits)?, uq);
                    condition(inst.cond_modifier, v, ordered(Num::Int(0), uq))?
                }
            };
            r.set_flag_bit(inst.flag, group + lane, on)?;
        }
    }
    Ok(())
}

/// A source element with its modifiers: on logic ops negate is a bitwise not; on floats
/// abs and negate act on the sign bit.
fn source(r: &Regs, src: &Src, lane: usize, logic: bool) -> Result<Num, Stop> {
    let v = r.read(src, lane)?;
    let Src::Reg(reg) = src else {
        return Ok(v);
    };
    Ok(match v {
        Num::Int(i) => {
            let i = if reg.abs { i.wrapping_abs() } else { i };
            match (reg.negate, logic) {
                (false, _) => Num::Int(i),
                (true, true) => Num::Int(!i),
                (true, false) => Num::Int(i.wrapping_neg()),
            }
        }
        Num::Float(f) => {
            let f = if reg.abs { f.abs() } else { f };
            Num::Float(if reg.negate { -f } else { f })
        }
    })
}

/// The type of a source (immediate or register).
fn src_type(src: &Option<Src>) -> Option<Type> {
    match src.as_ref()? {
        Src::Imm { ty, .. } => Some(*ty),
        Src::Reg(r) => Some(r.ty),
    }
}

/// One lane's result and, for `cmp`, its comparison outcome.
fn lane_result(
    inst: &Inst,
    s: &[Option<Num>; 3],
    pred: bool,
    flush: bool,
) -> Result<(Num, Option<bool>), Stop> {
    let op = inst.opcode;
    let a = s[0].unwrap_or(Num::Int(0));
    let b = s[1].unwrap_or(Num::Int(0));
    let c = s[2].unwrap_or(Num::Int(0));
    match op.0 {
        // mov: a conversion into the destination's type.
        1 => return Ok((a, None)),
        // sel: predicated choice, or min/max with .l/.ge.
        2 => {
            return Ok((
                match inst.cond_modifier {
                    0 => {
                        if pred {
                            a
                        } else {
                            b
                        }
                    }
                    5 | 4 => {
                        // Picked in the sources' order; the pick is the source itself.
                        let uq = src_type(&inst.src[0]) == Some(Type::UQ);
                        let (oa, ob) = (ordered(a, uq), ordered(b, uq));
                        let picked = min_max(oa, ob, inst.cond_modifier == 5)?;
                        if picked == oa {
                            a
                        } else {
                            b
                        }
                    }
                    m => return unsupported(format!("sel with conditional modifier {m}")),
                },
                None,
            ));
        }
        // cmp: all ones where the comparison holds.
        16 => {
            let uq = src_type(&inst.src[0]) == Some(Type::UQ);
            let on = condition(inst.cond_modifier, ordered(a, uq), ordered(b, uq))?;
            return Ok((Num::Int(if on { -1 } else { 0 }), Some(on)));
        }
        56 => return math(inst, a, b, flush).map(|v| (v, None)),
        _ => {}
    }
    let floats = s
        .iter()
        .flatten()
        .filter(|v| matches!(v, Num::Float(_)))
        .count();
    let present = s.iter().flatten().count();
    if floats > 0 && floats != present {
        return unsupported(format!("{} with float and integer sources", op.name()));
    }
    if floats > 0 {
        // Every present source is a float (checked above); absent ones read as 0.
        let f = |v: Option<Num>| match v {
            Some(Num::Float(x)) if flush => flush_f(x),
            Some(Num::Float(x)) => x,
            _ => 0.0,
        };
        let (x, y, z) = (f(s[0]), f(s[1]), f(s[2]));
        let r = match op.0 {
            64 => x + y,
            65 => x * y,
            67 => x - x.floor(),
            68 => x.ceil(),
            69 => x.floor(),
            70 => x.round_ties_even(),
            71 => x.trunc(),
            91 => y.mul_add(z, x),
            92 => x * y + (1.0 - x) * z,
            _ => return unsupported(format!("float {}", op.name())),
        };
        return Ok((Num::Float(f32::from_bits(semantics::canon(r))), None));
    }
    let (x, y, z) = (int(a), int(b), int(c));
    let ty0 = src_type(&inst.src[0]).unwrap_or(Type::UD);
    let bits0 = ty0.size() * 8;
    let r = match op.0 {
        4 => !x,
        5 => x & y,
        6 => x | y,
        7 => x ^ y,
        // Shifts: the count's low bits (5 for dword types, 6 for qwords); shr reads src0 as
        // unsigned and asr as signed in its own width.
        8 => ((unsigned(x, bits0) as u64) >> shift(y, bits0)) as i64,
        9 => x.wrapping_shl(shift(y, bits0) as u32),
        12 => signed(x, bits0) >> shift(y, bits0),
        64 => x.wrapping_add(y),
        // add3 (Gfx12.5): the three sources' sum, wrapped in the destination.
        82 => x.wrapping_add(y).wrapping_add(z),
        // ror/rol (Gfx11+): rotates in src0's width by the count's low bits.
        14 | 15 if matches!(bits0, 16 | 32) => {
            let v = unsigned(x, bits0) as u64;
            let n = (y as u32) % bits0;
            let n = if op.0 == 14 { n } else { (bits0 - n) % bits0 };
            let mask = (1u64 << bits0) - 1;
            (((v >> n) | (v << ((bits0 - n) % bits0))) & mask) as i64
        }
        65 => x.wrapping_mul(y),
        66 => (x + y + 1) >> 1,
        // Integer mad (Gfx12+ brw uses it for multiply-adds of words): src0 + src1 * src2 on
        // the widened sources, wrapped in the destination like the other integer ops.
        91 => x.wrapping_add(y.wrapping_mul(z)),
        // mach: the high 32 bits of the full product of its sources (brw pairs it with a
        // `mul` into acc0 of the same sources; the product is formed here at once).
        73 => ((x as i128 * y as i128) >> 32) as i64,
        74 => (x as u32).leading_zeros() as i64,
        75 => first_bit_high(x as u32, ty0 == Type::D),
        76 => {
            let v = x as u32;
            if v == 0 {
                u32::MAX as i64
            } else {
                v.trailing_zeros() as i64
            }
        }
        77 => (x as u32).count_ones() as i64,
        23 => (x as u32).reverse_bits() as i64,
        24 => bit_field_extract(
            x as u32,
            y as u32,
            z as u32,
            inst.dst.map(|d| d.ty) == Some(Type::D),
        ),
        25 => {
            let width = x as u32 & 31;
            let offset = y as u32 & 31;
            (((1u64 << width) - 1) << offset) as u32 as i64
        }
        26 => bit_field_insert(x as u32, y as u32, z as u32),
        _ => return unsupported(format!("integer {}", op.name())),
    };
    Ok((Num::Int(r), None))
}

fn int(v: Num) -> i64 {
    match v {
        Num::Int(i) => i,
        Num::Float(f) => f.to_bits() as i64,
    }
}

fn unsigned(x: i64, bits: u32) -> i64 {
    if bits >= 64 {
        x
    } else {
        x & ((1i64 << bits) - 1)
    }
}

fn signed(x: i64, bits: u32) -> i64 {
    if bits >= 64 {
        x
    } else {
        (x << (64 - bits)) >> (64 - bits)
    }
}

fn shift(count: i64, bits: u32) -> i64 {
    count & if bits > 32 { 63 } else { 31 }
}

/// `fbh`: the bit index counted from the MSB of the first bit that differs from the sign
/// (signed) or is set (unsigned); all ones when there is none.
fn first_bit_high(v: u32, signed: bool) -> i64 {
    let v = if signed && (v as i32) < 0 { !v } else { v };
    if v == 0 {
        u32::MAX as i64
    } else {
        v.leading_zeros() as i64
    }
}

/// `bfe width, offset, value` (PRM BFE; GLSL `bitfieldExtract` for widths and offsets below
/// 32).
fn bit_field_extract(width: u32, offset: u32, value: u32, signed: bool) -> i64 {
    let (width, offset) = (width & 31, offset & 31);
    if width == 0 {
        return 0;
    }
    if width + offset < 32 {
        let shifted = value << (32 - width - offset);
        if signed {
            ((shifted as i32) >> (32 - width)) as i64
        } else {
            (shifted >> (32 - width)) as i64
        }
    } else if signed {
        ((value as i32) >> offset) as i64
    } else {
        (value >> offset) as i64
    }
}

/// `bfi2 mask, insert, base`: `insert` shifted up to the mask's lowest set bit, inside the
/// mask; `base` outside it (NIR's `bfi`, which brw emits as `bfi2` after `bfi1` made the mask;
/// the shift is the instruction's, brw does not shift `insert` itself).
fn bit_field_insert(mask: u32, insert: u32, base: u32) -> i64 {
    if mask == 0 {
        return base as i64;
    }
    (((insert << mask.trailing_zeros()) & mask) | (base & !mask)) as i64
}

/// `sel.l` (min) or `sel.ge` (max).
fn min_max(a: Num, b: Num, min: bool) -> Result<Num, Stop> {
    Ok(match (a, b) {
        (Num::Float(x), Num::Float(y)) => {
            let r = if min {
                semantics::fmin(x.to_bits(), y.to_bits())
            } else {
                semantics::fmax(x.to_bits(), y.to_bits())
            };
            Num::Float(f32::from_bits(r))
        }
        (Num::Int(x), Num::Int(y)) => Num::Int(if min { x.min(y) } else { x.max(y) }),
        _ => return unsupported("sel with float and integer sources"),
    })
}

/// An integer in the order its type gives it: a `uq` of 2^63 or more reads as a negative
/// `i64`, so `uq` values (`unsigned64`) have their top bit flipped, which makes `i64` order
/// theirs (narrower unsigned types read as non-negative `i64`s already).
fn ordered(v: Num, unsigned64: bool) -> Num {
    match v {
        Num::Int(i) if unsigned64 => Num::Int(i ^ i64::MIN),
        v => v,
    }
}

/// Whether `a <cond> b` holds (1 z, 2 nz, 3 g, 4 ge, 5 l, 6 le, 9 unordered). A NaN makes
/// every ordered comparison false and `nz` true.
pub fn condition(cond: u8, a: Num, b: Num) -> Result<bool, Stop> {
    use std::cmp::Ordering::*;
    let order = match (a, b) {
        (Num::Int(x), Num::Int(y)) => Some(x.cmp(&y)),
        (Num::Float(x), Num::Float(y)) => x.partial_cmp(&y),
        (Num::Float(x), Num::Int(0)) => x.partial_cmp(&0.0),
        _ => return unsupported("comparison of float and integer"),
    };
    Ok(match cond {
        1 => order == Some(Equal),
        2 => order != Some(Equal),
        3 => order == Some(Greater),
        4 => matches!(order, Some(Greater | Equal)),
        5 => order == Some(Less),
        6 => matches!(order, Some(Less | Equal)),
        9 => order.is_none(),
        m => return unsupported(format!("conditional modifier {m}")),
    })
}

fn flush_f(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

fn flushed(v: Num) -> Num {
    match v {
        Num::Float(x) => Num::Float(flush_f(x)),
        i => i,
    }
}

/// The extended math unit: float functions correctly rounded from binary64 (within every
/// Vulkan precision bound), integer division with the shared rules for a zero divisor.
fn math(inst: &Inst, a: Num, b: Num, flush: bool) -> Result<Num, Stop> {
    let function = inst.math_function.unwrap_or(0);
    if matches!(function, 12 | 13) {
        let (Num::Int(x), Num::Int(y)) = (a, b) else {
            return unsupported("integer math on float sources");
        };
        let is_signed = src_type(&inst.src[0]) == Some(Type::D);
        let (x, y) = (x as u32, y as u32);
        let r = match (function, is_signed) {
            (12, true) => semantics::idiv(x, y) as i32 as i64,
            (12, false) => semantics::udiv(x, y) as i64,
            (13, true) => semantics::irem(x, y) as i32 as i64,
            _ => semantics::umod(x, y) as i64,
        };
        return Ok(Num::Int(r));
    }
    let f = |v: Num| match v {
        Num::Float(x) if flush => Ok(flush_f(x) as f64),
        Num::Float(x) => Ok(x as f64),
        Num::Int(_) => unsupported("float math on integer sources"),
    };
    let x = f(a)?;
    let r = match function {
        1 => (1.0 / x as f32) as f64,
        2 => x.log2(),
        3 => x.exp2(),
        4 => (x as f32).sqrt() as f64,
        5 => 1.0 / x.sqrt(),
        6 => x.sin(),
        7 => x.cos(),
        10 => x.powf(f(b)?),
        m => return unsupported(format!("math function {m}")),
    };
    Ok(Num::Float(f32::from_bits(semantics::canon(r as f32))))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `bfi2` places the insert at the mask's lowest bit (NIR's `bfi`, brw's `bfi1` + `bfi2`
    /// for `bitfieldInsert`); `bfe` takes the width and offset's low five bits.
    #[test]
    fn bit_field_instructions_as_brw_uses_them() {
        assert_eq!(bit_field_insert(0x0ff0, 0xab, 0), 0x0ab0);
        assert_eq!(bit_field_insert(0x0ff0, 0xab, u32::MAX), 0xffff_fabf);
        assert_eq!(bit_field_insert(0, 0xab, 0x1234), 0x1234);
        assert_eq!(
            bit_field_insert(0b10, !1, 1),
            1,
            "bit 1 of base from bit 0 of insert"
        );
        assert_eq!(bit_field_extract(8, 8, 0xabcd_1234, false), 0x12);
        assert_eq!(
            bit_field_extract(33, 1, 33, false),
            0,
            "width 33 reads as 1"
        );
        assert_eq!(bit_field_extract(8, 24, 0xabcd_1234, true), -0x55);
    }
}
