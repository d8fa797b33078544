//! Lane arithmetic of cat1–cat4 as ir3 uses each opcode. Where ir3's meaning is not the
//! mnemonic's, the fact and its source are given: `sad.s32` is the three-source add
//! (`has_iadd3 = has_sad`, `ir3_compiler.c`; `nir_op_iadd3` → `sad.s32`, `ir3_compiler_nir.c`),
//! `mull.u` multiplies the low halves (`umul_low`), `madsh.m16` adds the low half of its first
//! source times the high half of its second, shifted up 16 (`imadsh_mix16`, the 32-bit
//! multiply's cross term), `shrm`/`shlm`/`shrg`/`shlg`/`andg` are `nir_opcodes.py`'s
//! `*_ir3` shifts with the shift amount first. Float results go through `semantics::canon`, as the interpreter's do.

use crate::semantics::{canon, f2i, f2u, fmax, fmin, i2f, u2f};

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

/// How an opcode reads its sources' `(neg)`/`(abs)` bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// Float sign bits.
    Float,
    /// Two's complement negation and absolute value.
    Int,
    /// `(neg)` is a bitwise not.
    Bits,
}

/// `x` with a source's modifiers applied as an opcode of `kind` reads them.
pub(super) fn modify(kind: Kind, x: u32, abs: bool, neg: bool) -> u32 {
    match kind {
        Kind::Float => {
            let x = if abs { x & 0x7fff_ffff } else { x };
            if neg {
                x ^ 0x8000_0000
            } else {
                x
            }
        }
        Kind::Int => {
            let x = if abs {
                (x as i32).wrapping_abs() as u32
            } else {
                x
            };
            if neg {
                x.wrapping_neg()
            } else {
                x
            }
        }
        Kind::Bits => {
            if neg {
                !x
            } else {
                x
            }
        }
    }
}

/// The kind of a cat2/cat3 opcode's sources.
pub(super) fn kind(name: &str) -> Kind {
    if name.ends_with(".f") || name.contains(".f32") || name.starts_with("cmps.f") {
        Kind::Float
    } else if name.ends_with(".b") || name.starts_with("sel.b") || name == "andg" {
        Kind::Bits
    } else {
        Kind::Int
    }
}

/// A two-source cat2 (one-source ones ignore `b`); `None`: not modelled.
pub(super) fn cat2(name: &str, a: u32, b: u32) -> Option<u32> {
    let s = |x: u32| x as i32;
    Some(match name {
        "add.f" => canon(f(a) + f(b)),
        "mul.f" => canon(f(a) * f(b)),
        "min.f" => fmin(a, b),
        "max.f" => fmax(a, b),
        "absneg.f" => canon(f(a)),
        "floor.f" => canon(f(a).floor()),
        "ceil.f" => canon(f(a).ceil()),
        "trunc.f" => canon(f(a).trunc()),
        "rndne.f" => canon(f(a).round_ties_even()),
        "add.u" | "add.s" => a.wrapping_add(b),
        "sub.u" | "sub.s" => a.wrapping_sub(b),
        "min.s" => s(a).min(s(b)) as u32,
        "max.s" => s(a).max(s(b)) as u32,
        "min.u" => a.min(b),
        "max.u" => a.max(b),
        "absneg.s" => a,
        "and.b" => a & b,
        "or.b" => a | b,
        "xor.b" => a ^ b,
        "not.b" => !a,
        "shl.b" => a << (b & 31),
        "shr.b" => a >> (b & 31),
        "ashr.b" => (s(a) >> (b & 31)) as u32,
        "mull.u" => (a & 0xffff) * (b & 0xffff),
        "mul.u24" => (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff),
        "mul.s24" => (s(a << 8) >> 8).wrapping_mul(s(b << 8) >> 8) as u32,
        "bfrev.b" => a.reverse_bits(),
        "cbits.b" => a.count_ones(),
        // No bit found is -1, not 32: ir3 relies on it, selecting clz.b's result itself for
        // ufind_msb of 0 and taking find_lsb as clz.b(bfrev.b(x)); clz.s counts the leading
        // copies of the sign bit, -1 for 0 and -1 (ifind_msb keeps it when `cmps.s.ge
        // clz, 0` fails). ir3_compiler_nir.c, nir_op_ufind_msb / find_lsb / ifind_msb.
        "clz.b" => leading_zeros_or_none(a),
        "clz.s" => leading_zeros_or_none(if s(a) < 0 { !a } else { a }),
        "getbit.b" => (a >> (b & 31)) & 1,
        _ => return None,
    })
}

fn leading_zeros_or_none(a: u32) -> u32 {
    if a == 0 {
        u32::MAX
    } else {
        a.leading_zeros()
    }
}

/// `cmps.<ty>.<cond>`: whether it holds. `half`: 16-bit sources.
pub(super) fn compare(
    ty: char,
    cond: crate::ir3::CmpCond,
    a: u32,
    b: u32,
    half: bool,
) -> Option<bool> {
    use crate::ir3::CmpCond::*;
    use std::cmp::Ordering;
    let ord = match (ty, half) {
        ('f', false) => f(a).partial_cmp(&f(b)),
        ('u', _) => Some(a.cmp(&b)),
        ('s', false) => Some((a as i32).cmp(&(b as i32))),
        ('s', true) => Some((a as u16 as i16).cmp(&(b as u16 as i16))),
        _ => return None,
    };
    Some(match ord {
        None => cond == Ne,
        Some(o) => match cond {
            Lt => o == Ordering::Less,
            Le => o != Ordering::Greater,
            Gt => o == Ordering::Greater,
            Ge => o != Ordering::Less,
            Eq => o == Ordering::Equal,
            Ne => o != Ordering::Equal,
        },
    })
}

/// A cat3; `None`: not modelled.
pub(super) fn cat3(name: &str, a: u32, b: u32, c: u32) -> Option<u32> {
    let s = |x: u32| x as i32;
    Some(match name {
        "mad.f32" => canon(f(a).mul_add(f(b), f(c))),
        "mad.u24" => (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff).wrapping_add(c),
        "mad.s24" => (s(a << 8) >> 8)
            .wrapping_mul(s(b << 8) >> 8)
            .wrapping_add(s(c)) as u32,
        "madsh.m16" => ((a & 0xffff).wrapping_mul(b >> 16) << 16).wrapping_add(c),
        "sel.b32" | "sel.b16" => {
            if b != 0 {
                a
            } else {
                c
            }
        }
        "sad.s32" => a.wrapping_add(b).wrapping_add(c),
        // The shift amount is the first source (`nir_op_shrm_ir3` → `ir3_SHRM(shift, value,
        // mask)`, `ir3_compiler_nir.c`).
        "shrm" => (b >> (a & 31)) & c,
        "shlm" => (b << (a & 31)) & c,
        "shrg" => (b >> (a & 31)) | c,
        "shlg" => (b << (a & 31)) | c,
        "andg" => (a & b) | c,
        _ => return None,
    })
}

/// A cat4 (SFU); `None`: not modelled.
pub(super) fn cat4(name: &str, a: u32) -> Option<u32> {
    let x = f(a);
    Some(canon(match name {
        "rcp" => 1.0 / x,
        "rsq" => 1.0 / x.sqrt(),
        "sqrt" => x.sqrt(),
        "log2" => x.log2(),
        "exp2" => x.exp2(),
        "sin" => x.sin(),
        "cos" => x.cos(),
        _ => return None,
    }))
}

/// cat1 `cov.<from><to>` of a value already read (16-bit sources zero-extended); `None`:
/// not modelled.
pub(super) fn convert(from: &str, to: &str, x: u32) -> Option<u32> {
    let sext16 = |x: u32| x as u16 as i16 as i32 as u32;
    Some(match (from, to) {
        (a, b) if a == b => x,
        ("u32" | "s32", "u16" | "s16") => x & 0xffff,
        ("u16", "u32" | "s32") => x & 0xffff,
        ("s16", "u32" | "s32") => sext16(x),
        ("u16", "s16") | ("s16", "u16") => x,
        ("u32", "s32") | ("s32", "u32") => x,
        ("f32", "s32") => f2i(x),
        ("f32", "u32") => f2u(x),
        ("s32", "f32") => i2f(x),
        ("u32", "f32") => u2f(x),
        ("u16", "f32") => u2f(x & 0xffff),
        ("s16", "f32") => i2f(sext16(x)),
        _ => return None,
    })
}
