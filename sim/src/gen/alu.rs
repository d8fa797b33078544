//! ALU instructions: every per-lane operation, evaluated half (8 channels) at a time so a
//! SIMD16 instruction behaves as two compressed SIMD8 halves, with every float result through
//! `semantics::canon` and every special case through the shared `semantics` helpers.

use super::decode::{Cmp, Decoded, FlagWrite, Kind, Modifier, Operand};
use super::hazard::{Hazard, HazardKind, HazardLog};
use super::isa::CondMod;
use super::state::Thread;
use crate::semantics::{canon, f2i, f2u, fmax, fmin, i2f, idiv, irem, u2f, udiv, umod};

#[inline(always)]
fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

/// Whether `a cm b` holds, compared as `ty`.
#[inline(always)]
pub(super) fn holds(cm: CondMod, ty: Cmp, a: u32, b: u32) -> bool {
    use std::cmp::Ordering;
    let ord = match ty {
        Cmp::F => f(a).partial_cmp(&f(b)),
        Cmp::D => Some((a as i32).cmp(&(b as i32))),
        Cmp::U => Some(a.cmp(&b)),
    };
    match (cm, ord) {
        (CondMod::Nz, None) => true,
        (_, None) => false,
        (CondMod::Z, Some(o)) => o == Ordering::Equal,
        (CondMod::Nz, Some(o)) => o != Ordering::Equal,
        (CondMod::L, Some(o)) => o == Ordering::Less,
        (CondMod::Le, Some(o)) => o != Ordering::Greater,
        (CondMod::G, Some(o)) => o == Ordering::Greater,
        (CondMod::Ge, Some(o)) => o != Ordering::Less,
    }
}

#[inline(always)]
fn fetch(t: &Thread, op: Operand, m: Modifier, h: u32) -> [u32; 8] {
    let mut v = match op {
        Operand::None => return [0; 8],
        Operand::Imm(x) => return [x; 8],
        Operand::Scalar(s) => [t.grf[s as usize]; 8],
        Operand::Vector(s) => t.get8((s + h * 8) as usize),
    };
    if m != Modifier::None {
        modify(&mut v, m);
    }
    v
}

/// Apply a source modifier to eight values (kept out of line: rare, and `map` is inlined
/// into every opcode).
#[inline(never)]
fn modify(v: &mut [u32; 8], m: Modifier) {
    let g: fn(u32) -> u32 = match m {
        Modifier::None => return,
        Modifier::NegF => |x| x ^ 0x8000_0000,
        Modifier::AbsF => |x| x & 0x7fff_ffff,
        Modifier::NegAbsF => |x| x | 0x8000_0000,
        Modifier::NegI => |x| x.wrapping_neg(),
        Modifier::AbsI => |x| (x as i32).wrapping_abs() as u32,
        Modifier::NegAbsI => |x| ((x as i32).wrapping_abs() as u32).wrapping_neg(),
    };
    for x in v.iter_mut() {
        *x = g(*x);
    }
}

/// Apply `op` to every enabled channel of `d`; write results and flags. `op` reads the first
/// `SRCS` sources; the others are not fetched (`op` ignores them: `0` is passed).
#[inline(always)]
fn map<const SRCS: usize, F: Fn(u32, u32, u32) -> u32>(
    t: &mut Thread,
    d: &Decoded,
    en: u32,
    valid: u32,
    op: F,
) {
    map_flagging::<SRCS, false, F>(t, d, en, valid, op);
}

/// [`map`]; with `OUTCOME` (a `cmp`, the commonest flag write), a comparison outcome's flag
/// bits are set in line rather than through [`write_flags`].
#[inline(always)]
fn map_flagging<const SRCS: usize, const OUTCOME: bool, F: Fn(u32, u32, u32) -> u32>(
    t: &mut Thread,
    d: &Decoded,
    en: u32,
    valid: u32,
    op: F,
) {
    let rel = en >> d.group;
    let valid = valid >> d.group;
    for h in 0..d.halves {
        let shift = h * 8;
        let live = (rel >> shift) & d.half_bits;
        let a = fetch(t, d.src[0], d.mods[0], h);
        let b = if SRCS >= 2 {
            fetch(t, d.src[1], d.mods[1], h)
        } else {
            [0; 8]
        };
        let c = if SRCS >= 3 {
            fetch(t, d.src[2], d.mods[2], h)
        } else {
            [0; 8]
        };
        let mut out = [0u32; 8];
        for i in 0..8 {
            out[i] = op(a[i], b[i], c[i]);
        }
        if let Some(base) = d.dst {
            let base = base + shift;
            store(t, base, live, &out);
            t.mark(base, live & (valid >> shift));
        }
        if OUTCOME && d.flag_write == FlagWrite::Outcome {
            set_flags(t, d, h, live, channels_where(&out, |r| r != 0));
        } else if d.flag_write != FlagWrite::None {
            write_flags(t, d, h, live, &out);
        }
    }
}

/// [`map`] for a `cmp`: two sources, the outcome's flag bits set in line.
#[inline(always)]
fn map_compare<F: Fn(u32, u32, u32) -> u32>(
    t: &mut Thread,
    d: &Decoded,
    en: u32,
    valid: u32,
    op: F,
) {
    map_flagging::<2, true, F>(t, d, en, valid, op);
}

/// Write `out[i]` to dword `base + i` for each channel `i` set in `live`.
#[inline(always)]
fn store(t: &mut Thread, base: u32, live: u32, out: &[u32; 8]) {
    if live == 0xff {
        // The common case, every channel of a full half: one copy.
        t.set8(base as usize, *out);
    } else if live == 1 {
        // Next, one channel: SIMD1 header set-up in the spill and fill code.
        t.grf[base as usize] = out[0];
    } else {
        let mut v = t.get8(base as usize);
        // Branch-free, and each channel's mask from a constant bit rather than a shift by
        // the channel number: a test against a constant vector vectorises on the baseline
        // x86-64 target (a per-lane variable shift does not).
        for i in 0..8 {
            let m = 0u32.wrapping_sub((live & (1 << i) != 0) as u32);
            v[i] = (v[i] & !m) | (out[i] & m);
        }
        t.set8(base as usize, v);
    }
}

/// `mov` without modifiers or flag write: the commonest instruction (copies, spill and fill
/// code, payload set-up), kept to a plain copy per half.
#[inline(always)]
pub(super) fn copy(t: &mut Thread, d: &Decoded, en: u32, valid: u32) {
    let Some(dst) = d.dst else { return };
    let rel = en >> d.group;
    let valid = valid >> d.group;
    for h in 0..d.halves {
        let shift = h * 8;
        let live = (rel >> shift) & d.half_bits;
        let base = dst + shift;
        match d.src[0] {
            Operand::Vector(s) if live == 0xff => {
                let v = t.get8((s + shift) as usize);
                t.set8(base as usize, v);
            }
            src => {
                let out = fetch(t, src, Modifier::None, h);
                store(t, base, live, &out);
            }
        }
        t.mark(base, live & (valid >> shift));
    }
}

/// [`super::decode::Step::CopyGrf`]: [`check_sources`] and [`copy`] with every one of the
/// eight channels enabled, so the channels that matter are those the control-flow mask
/// enables and each other one's result counts as written if its source dword was.
#[inline(always)]
pub(super) fn copy_grf(t: &mut Thread, d: &Decoded, log: &mut HazardLog, pc: u32) {
    let (Operand::Vector(src), Some(dst)) = (d.src[0], d.dst) else {
        unreachable!("a whole-GRF copy without a register source and destination")
    };
    let have = t.window(src) & 0xff;
    let matter = t.mask & 0xff;
    if !have & matter != 0 {
        report_unwritten(t, d, matter, log, pc);
    }
    let v = t.get8(src as usize);
    t.set8(dst as usize, v);
    t.mark(dst, matter | have);
}

/// [`super::decode::Step::SetDword`]: [`copy_imm`] of its one channel, always enabled.
#[inline(always)]
pub(super) fn set_dword(t: &mut Thread, d: &Decoded) {
    let (Operand::Imm(x), Some(dst)) = (d.src[0], d.dst) else {
        unreachable!("a dword set without an immediate and a destination")
    };
    t.grf[dst as usize] = x;
    t.mark(dst, 1);
}

/// A copy of an immediate: every enabled channel's result counts as written (there is no
/// source to have been unwritten), so there is nothing to check.
#[inline(always)]
pub(super) fn copy_imm(t: &mut Thread, d: &Decoded, en: u32) {
    let (Some(dst), Operand::Imm(x)) = (d.dst, d.src[0]) else {
        return;
    };
    let rel = en >> d.group;
    for h in 0..d.halves {
        let shift = h * 8;
        let live = (rel >> shift) & d.half_bits;
        let base = dst + shift;
        store(t, base, live, &[x; 8]);
        t.mark(base, live);
    }
}

/// Conditional-modifier flag bits of half `h` from its results (out of line, like `modify`).
#[inline(never)]
fn write_flags(t: &mut Thread, d: &Decoded, h: u32, live: u32, out: &[u32; 8]) {
    // The test is chosen once per half, not per channel; channels past the instruction's
    // are computed too but `live` leaves them out.
    let bits = match d.flag_write {
        FlagWrite::Outcome => channels_where(out, |r| r != 0),
        FlagWrite::Result(cm, ty) => channels_where(out, |r| holds(cm, ty, r, 0)),
        FlagWrite::None => 0,
    };
    set_flags(t, d, h, live, bits);
}

/// Set the flag bits of the channels of half `h` in `live` to `bits` (bit `i` = channel `i`
/// of the half) and mark them written.
#[inline(always)]
fn set_flags(t: &mut Thread, d: &Decoded, h: u32, live: u32, bits: u32) {
    let shift = d.group + h * 8;
    let m = live << shift;
    let fl = &mut t.flags[d.flag];
    *fl = (*fl & !m) | ((bits << shift) & m);
    t.flag_written[d.flag] |= m;
}

/// Bit `i` set where `test(out[i])` holds.
#[inline(always)]
fn channels_where(out: &[u32; 8], test: impl Fn(u32) -> bool) -> u32 {
    let mut bits = 0u32;
    for (i, &r) in out.iter().enumerate() {
        bits |= (test(r) as u32).wrapping_shl(i as u32);
    }
    bits
}

/// Report reads of unwritten dwords by the sources of `d` in the channels that matter, and
/// return the channels whose result counts as written.
///
/// The channels that matter are the enabled ones; for a NoMask instruction only those the
/// control-flow mask enables too. A NoMask instruction's other channels propagate
/// written-ness instead: their result counts as written only if every source dword they read
/// was (so a NoMask copy of a partially written register, as spill code makes, is no hazard,
/// while a later masked read of the copy's unwritten channels still is).
///
/// `SRCS` is how many sources `d` may have (a copy: 1); the others are not looked at.
#[inline(always)]
pub(super) fn check_sources<const SRCS: usize>(
    t: &Thread,
    d: &Decoded,
    en: u32,
    log: &mut HazardLog,
    pc: u32,
) -> u32 {
    let mut have = written(t, d.src[0]);
    if SRCS > 1 {
        have &= written(t, d.src[1]) & written(t, d.src[2]);
    }
    // `en` lies within the instruction's channels: shifted down, within `all`.
    let matter = if d.no_mask { en & t.mask } else { en };
    // Every source needs the same channels except in a predicated `sel`; when all of them
    // were written there (the common case) there is nothing to report.
    if matches!(d.kind, Kind::SelPred) || !have & (matter >> d.group) != 0 {
        report_unwritten(t, d, matter, log, pc);
    }
    if d.no_mask {
        matter | (en & (have << d.group))
    } else {
        // Every enabled channel matters.
        en
    }
}

/// Written-ness of source `op` per channel (bit `i` = channel `group + i`); all ones for
/// an operand that reads no register.
#[inline(always)]
fn written(t: &Thread, op: Operand) -> u32 {
    match op {
        Operand::Vector(s) => t.window(s),
        Operand::Scalar(s) => 0u32.wrapping_sub(t.window(s) & 1),
        Operand::None | Operand::Imm(_) => u32::MAX,
    }
}

/// Report each source of `d` that reads an unwritten dword in a channel that matters
/// (out of line: a hazard is a compiler bug, rare).
#[cold]
#[inline(never)]
fn report_unwritten(t: &Thread, d: &Decoded, matter: u32, log: &mut HazardLog, pc: u32) {
    let mut need = [matter; 3];
    if matches!(d.kind, Kind::SelPred) {
        let p = t.pred_bits(d);
        need = [matter & p, matter & !p, 0];
    }
    let all = d.exec_bits >> d.group;
    for (&src, &need) in d.src.iter().zip(&need) {
        let rel = (need >> d.group) & all;
        let missing = !written(t, src) & rel;
        if missing != 0 {
            let start = match src {
                Operand::Vector(s) => s + missing.trailing_zeros(),
                Operand::Scalar(s) => s,
                _ => 0,
            };
            log.report(Hazard {
                thread: t.index,
                inst: pc,
                reg: (start / 8) as u16,
                kind: HazardKind::UnwrittenRead,
            });
        }
    }
}

/// Execute an ALU instruction on channels `en`.
pub(super) fn execute(t: &mut Thread, d: &Decoded, en: u32, valid: u32) {
    match d.kind {
        Kind::Copy => copy(t, d, en, valid),
        Kind::CopyImm => copy_imm(t, d, en),
        Kind::MovRaw => map::<1, _>(t, d, en, valid, |a, _, _| a),
        Kind::MovF2I => map::<1, _>(t, d, en, valid, |a, _, _| f2i(a)),
        Kind::MovF2U => map::<1, _>(t, d, en, valid, |a, _, _| f2u(a)),
        Kind::MovI2F => map::<1, _>(t, d, en, valid, |a, _, _| i2f(a)),
        Kind::MovU2F => map::<1, _>(t, d, en, valid, |a, _, _| u2f(a)),
        Kind::SelPred => select(t, d, en, valid),
        Kind::MinF => map::<2, _>(t, d, en, valid, |a, b, _| fmin(a, b)),
        Kind::MaxF => map::<2, _>(t, d, en, valid, |a, b, _| fmax(a, b)),
        Kind::MinD => map::<2, _>(t, d, en, valid, |a, b, _| (a as i32).min(b as i32) as u32),
        Kind::MaxD => map::<2, _>(t, d, en, valid, |a, b, _| (a as i32).max(b as i32) as u32),
        Kind::MinU => map::<2, _>(t, d, en, valid, |a, b, _| a.min(b)),
        Kind::MaxU => map::<2, _>(t, d, en, valid, |a, b, _| a.max(b)),
        Kind::Not => map::<1, _>(t, d, en, valid, |a, _, _| !a),
        Kind::And => map::<2, _>(t, d, en, valid, |a, b, _| a & b),
        Kind::Or => map::<2, _>(t, d, en, valid, |a, b, _| a | b),
        Kind::Xor => map::<2, _>(t, d, en, valid, |a, b, _| a ^ b),
        Kind::Shl => map::<2, _>(t, d, en, valid, |a, b, _| a << (b & 31)),
        Kind::Shr => map::<2, _>(t, d, en, valid, |a, b, _| a >> (b & 31)),
        Kind::Asr => map::<2, _>(t, d, en, valid, |a, b, _| ((a as i32) >> (b & 31)) as u32),
        Kind::AddI => map::<2, _>(t, d, en, valid, |a, b, _| a.wrapping_add(b)),
        Kind::AddF => map::<2, _>(t, d, en, valid, |a, b, _| canon(f(a) + f(b))),
        Kind::MulI => map::<2, _>(t, d, en, valid, |a, b, _| a.wrapping_mul(b)),
        Kind::MulF => map::<2, _>(t, d, en, valid, |a, b, _| canon(f(a) * f(b))),
        Kind::MadI => map::<3, _>(t, d, en, valid, |a, b, c| b.wrapping_mul(c).wrapping_add(a)),
        Kind::MadF => map::<3, _>(t, d, en, valid, |a, b, c| canon(f(b).mul_add(f(c), f(a)))),
        Kind::Cmp(Cmp::F) => compare(t, d, en, valid, f),
        Kind::Cmp(Cmp::D) => compare(t, d, en, valid, |x| x as i32),
        Kind::Cmp(Cmp::U) => compare(t, d, en, valid, |x| x),
        Kind::Frc => map::<1, _>(t, d, en, valid, |a, _, _| canon(f(a) - f(a).floor())),
        Kind::Rndd => map::<1, _>(t, d, en, valid, |a, _, _| canon(f(a).floor())),
        Kind::Rndz => map::<1, _>(t, d, en, valid, |a, _, _| canon(f(a).trunc())),
        Kind::Rnde => map::<1, _>(t, d, en, valid, |a, _, _| canon(f(a).round_ties_even())),
        Kind::Inv => map::<1, _>(t, d, en, valid, |a, _, _| canon(1.0 / f(a))),
        Kind::Sqrt => map::<1, _>(t, d, en, valid, |a, _, _| canon(f(a).sqrt())),
        Kind::Rsq => map::<1, _>(t, d, en, valid, |a, _, _| canon(1.0 / f(a).sqrt())),
        Kind::Exp => map::<1, _>(t, d, en, valid, |a, _, _| canon(f(a).exp2())),
        Kind::Log => map::<1, _>(t, d, en, valid, |a, _, _| canon(f(a).log2())),
        Kind::Sin => map::<1, _>(t, d, en, valid, |a, _, _| canon(f(a).sin())),
        Kind::Cos => map::<1, _>(t, d, en, valid, |a, _, _| canon(f(a).cos())),
        Kind::Pow => map::<2, _>(t, d, en, valid, |a, b, _| canon(f(a).powf(f(b)))),
        Kind::DivD => map::<2, _>(t, d, en, valid, |a, b, _| idiv(a, b)),
        Kind::DivU => map::<2, _>(t, d, en, valid, |a, b, _| udiv(a, b)),
        Kind::ModD => map::<2, _>(t, d, en, valid, |a, b, _| irem(a, b)),
        Kind::ModU => map::<2, _>(t, d, en, valid, |a, b, _| umod(a, b)),
        _ => {}
    }
}

/// `cmp`: all ones where `a cm b` holds for the values as `key` reads them, else 0. The
/// condition is chosen once per instruction rather than per channel; Rust's operators on
/// `f32` give what [`holds`] does (`!=` holds for NaN, the orderings do not).
#[inline(always)]
fn compare<T: PartialOrd, K: Fn(u32) -> T>(
    t: &mut Thread,
    d: &Decoded,
    en: u32,
    valid: u32,
    key: K,
) {
    let all = |c: bool| 0u32.wrapping_sub(c as u32);
    match d.cmod.unwrap_or(CondMod::Nz) {
        CondMod::Z => map_compare(t, d, en, valid, |a, b, _| all(key(a) == key(b))),
        CondMod::Nz => map_compare(t, d, en, valid, |a, b, _| all(key(a) != key(b))),
        CondMod::L => map_compare(t, d, en, valid, |a, b, _| all(key(a) < key(b))),
        CondMod::Le => map_compare(t, d, en, valid, |a, b, _| all(key(a) <= key(b))),
        CondMod::G => map_compare(t, d, en, valid, |a, b, _| all(key(a) > key(b))),
        CondMod::Ge => map_compare(t, d, en, valid, |a, b, _| all(key(a) >= key(b))),
    }
}

/// Predicated `sel`: every enabled channel takes `src0` where the predicate holds, else `src1`.
fn select(t: &mut Thread, d: &Decoded, en: u32, valid: u32) {
    let rel = en >> d.group;
    let valid = valid >> d.group;
    let p = t.pred_bits(d) >> d.group;
    for h in 0..d.lanes.div_ceil(8) {
        let n = (d.lanes - h * 8).min(8);
        let live = (rel >> (h * 8)) & ((1u32 << n) - 1);
        let choose = p >> (h * 8);
        let a = fetch(t, d.src[0], d.mods[0], h);
        let b = fetch(t, d.src[1], d.mods[1], h);
        if let Some(base) = d.dst {
            let base = base + h * 8;
            let dst = &mut t.grf[base as usize..base as usize + 8];
            for i in 0..n as usize {
                if live >> i & 1 != 0 {
                    dst[i] = if choose >> i & 1 != 0 { a[i] } else { b[i] };
                }
            }
            t.mark(base, live & (valid >> (h * 8)));
        }
    }
}
