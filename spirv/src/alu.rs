//! ALU ops, with the guards that make SPIR-V compute exactly what `AluOp::eval` defines.
//!
//! 32-bit values live as `uint`, 16- and 64-bit ones as unsigned integers of their width
//! (signed ops read them signed, as SPIR-V's do); float ops bitcast to `float` and back.
//! Where SPIR-V leaves a result undefined and our IR defines it, the emitted code never
//! reaches the undefined case:
//!
//! * shifts mask the amount with the width less one (31 for 32 bits);
//! * `udiv`/`umod`/`idiv`/`irem`/`imod` divide by 1 instead of 0 (and `idiv` instead of -1
//!   for `INT_MIN / -1`, which gives `INT_MIN`, our answer) and select the by-zero result
//!   (`~0`, `-1`, or the dividend); `irem`/`imod` are `OpUMod` of the magnitudes with the
//!   sign fixed up, never `OpSRem`/`OpSMod` (undefined on negative operands in Vulkan
//!   without `maintenance8`);
//! * `f2i`/`f2u` convert only in-range values (0.0 otherwise) and select the saturated ends;
//!   NaN converts 0.0, giving 0;
//! * `fmin`/`fmax` are built from ordered compares, `IsNan` and the sign bit (minNum/maxNum,
//!   `-0 < +0`); `fneg`/`fabs` are sign-bit operations on the `uint`;
//! * `ubitfield_extract`/`ibitfield_extract`/`bitfield_insert` clamp the offset to 32 and the count to what is
//!   left of the word (`OpBitField[SU]Extract` is undefined past bit 31), per component: the
//!   instruction's offset and count are scalars;
//! * `iabs` is a select of the wrapping negation (GLSL's `SAbs` of `INT_MIN` is unspecified);
//! * every float op that can make a NaN ends in `nan(bits) ? 0x7fc00000 : bits`, so NaN
//!   payloads never reach a bit-observing use. The NaN test is on the integer bits, not
//!   `OpIsNan`, which `SignedZeroInfNanPreserve` does not cover (see [`is_nan_bits`]).

use crate::emitter::Emitter;
use crate::EmitError;
use compiler::ir::{AluOp, BitSize, Type, Value};
use rspirv::spirv::{GlslStd450Op, Word};
use sim::semantics::CANONICAL_NAN;

/// Emits `op` on `args` with result type `t`; returns the result id.
pub(crate) fn emit_alu(
    e: &mut Emitter,
    op: AluOp,
    args: &[Value; 4],
    t: Type,
) -> Result<Word, EmitError> {
    use AluOp::*;
    let n = t.comps();
    let mut ids = [0; 4];
    for (i, &a) in args[..op.arity()].iter().enumerate() {
        ids[i] = e.val(a)?;
    }
    let [a, b, c, d] = ids;
    // The integers' width: the ops of `Sizing::Same` take and give it (`u`); a conversion
    // gives the result's (`to`, its type `e.ivec(to, n)`).
    let (int, result) = e.func.alu_widths(op, args, t);
    let to = result
        .filter(|b| BitSize::INTS.contains(b))
        .unwrap_or(BitSize::B32);
    let u = e.ivec(int, n);
    let bt = e.bvec(n);
    let ft = e.fvec(n);
    Ok(match op {
        Iadd => e.b.i_add(u, None, a, b)?,
        Isub => e.b.i_sub(u, None, a, b)?,
        Imul => e.b.i_mul(u, None, a, b)?,
        Ineg => e.b.s_negate(u, None, a)?,
        Iabs => {
            let zero = e.ci(int, 0, n);
            let neg = e.b.s_less_than(bt, None, a, zero)?;
            let negated = e.b.s_negate(u, None, a)?;
            e.b.select(u, None, neg, negated, a)?
        }
        Imin => e.glsl(u, GlslStd450Op::SMin, &[a, b])?,
        Imax => e.glsl(u, GlslStd450Op::SMax, &[a, b])?,
        Umin => e.glsl(u, GlslStd450Op::UMin, &[a, b])?,
        Umax => e.glsl(u, GlslStd450Op::UMax, &[a, b])?,
        Iand => e.b.bitwise_and(u, None, a, b)?,
        Ior => e.b.bitwise_or(u, None, a, b)?,
        Ixor => e.b.bitwise_xor(u, None, a, b)?,
        Inot => e.b.not(u, None, a)?,
        Ishl | Ishr | Ushr => {
            let mask = e.ci(int, u64::from(int.bits() - 1), n);
            let amount = e.b.bitwise_and(u, None, b, mask)?;
            match op {
                Ishl => e.b.shift_left_logical(u, None, a, amount)?,
                Ishr => e.b.shift_right_arithmetic(u, None, a, amount)?,
                _ => e.b.shift_right_logical(u, None, a, amount)?,
            }
        }
        Udiv | Umod | Idiv | Irem | Imod => division(e, op, a, b, int, n)?,
        Fadd | Fsub | Fmul | Frcp => {
            let fa = e.b.bitcast(ft, None, a)?;
            let x = match op {
                Frcp => {
                    let one = e.cf(1.0, n);
                    let r = e.b.f_div(ft, None, one, fa)?;
                    e.no_contraction(r)
                }
                _ => {
                    let fb = e.b.bitcast(ft, None, b)?;
                    let r = match op {
                        Fadd => e.b.f_add(ft, None, fa, fb)?,
                        Fsub => e.b.f_sub(ft, None, fa, fb)?,
                        _ => e.b.f_mul(ft, None, fa, fb)?,
                    };
                    // Our `fadd`/`fmul` round on their own: a driver may contract an
                    // undecorated `a * b + c` into an fma (SPIR-V's NoContraction).
                    e.no_contraction(r)
                }
            };
            canonical(e, x, n)?
        }
        Ffma => {
            let fs = [a, b, c]
                .map(|x| e.b.bitcast(ft, None, x))
                .into_iter()
                .collect::<Result<Vec<_>, _>>()?;
            let x = e.glsl(ft, GlslStd450Op::Fma, &fs)?;
            canonical(e, x, n)?
        }
        Fneg => {
            let sign = e.cu(0x8000_0000, n);
            e.b.bitwise_xor(u, None, a, sign)?
        }
        Fabs => {
            let magnitude = e.cu(0x7fff_ffff, n);
            e.b.bitwise_and(u, None, a, magnitude)?
        }
        Fmin | Fmax => min_max(e, op == Fmin, a, b, n)?,
        Ffloor | Fceil | Ftrunc | FroundEven | Ffract | Fsqrt | Frsq | Fexp2 | Flog2 | Fsin
        | Fcos => {
            let inst = match op {
                Ffloor => GlslStd450Op::Floor,
                Fceil => GlslStd450Op::Ceil,
                Ftrunc => GlslStd450Op::Trunc,
                FroundEven => GlslStd450Op::RoundEven,
                Ffract => GlslStd450Op::Fract,
                Fsqrt => GlslStd450Op::Sqrt,
                Frsq => GlslStd450Op::InverseSqrt,
                Fexp2 => GlslStd450Op::Exp2,
                Flog2 => GlslStd450Op::Log2,
                Fsin => GlslStd450Op::Sin,
                _ => GlslStd450Op::Cos,
            };
            let fa = e.b.bitcast(ft, None, a)?;
            let x = e.glsl(ft, inst, &[fa])?;
            canonical(e, x, n)?
        }
        Ieq => e.b.i_equal(bt, None, a, b)?,
        Ine => e.b.i_not_equal(bt, None, a, b)?,
        Ilt => e.b.s_less_than(bt, None, a, b)?,
        Ige => e.b.s_greater_than_equal(bt, None, a, b)?,
        Ult => e.b.u_less_than(bt, None, a, b)?,
        Uge => e.b.u_greater_than_equal(bt, None, a, b)?,
        Feq | Fne | Flt | Fge => {
            let fa = e.b.bitcast(ft, None, a)?;
            let fb = e.b.bitcast(ft, None, b)?;
            match op {
                Feq => e.b.f_ord_equal(bt, None, fa, fb)?,
                Fne => e.b.f_unord_not_equal(bt, None, fa, fb)?,
                Flt => e.b.f_ord_less_than(bt, None, fa, fb)?,
                _ => e.b.f_ord_greater_than_equal(bt, None, fa, fb)?,
            }
        }
        Band => e.b.logical_and(bt, None, a, b)?,
        Bor => e.b.logical_or(bt, None, a, b)?,
        Bxor => e.b.logical_not_equal(bt, None, a, b)?,
        Bnot => e.b.logical_not(bt, None, a)?,
        Bcsel => {
            let ty = e.data_type(t)?;
            e.b.select(ty, None, a, b, c)?
        }
        I2f | U2f => {
            let x = if op == I2f {
                e.b.convert_s_to_f(ft, None, a)?
            } else {
                e.b.convert_u_to_f(ft, None, a)?
            };
            e.b.bitcast(u, None, x)?
        }
        F2i | F2u => {
            let fa = e.b.bitcast(ft, None, a)?;
            float_to_int(e, fa, op == F2i, n)?
        }
        B2i => {
            let (r, one, zero) = (e.ivec(to, n), e.ci(to, 1, n), e.ci(to, 0, n));
            e.b.select(r, None, a, one, zero)?
        }
        B2f => {
            let (one, zero) = (e.cu(1.0f32.to_bits(), n), e.cu(0, n));
            e.b.select(u, None, a, one, zero)?
        }
        I2b => {
            let zero = e.ci(int, 0, n);
            e.b.i_not_equal(bt, None, a, zero)?
        }
        // `OpSConvert`/`OpUConvert` change the width (the same width is no conversion, and
        // SPIR-V has none for it); `OpSConvert` reads its operand signed.
        I2i | U2u if result == Some(int) => a,
        I2i => {
            // Through signed types: SPIRV-Tools v2026.4 folds an `OpSConvert` of an unsigned
            // constant as a zero-extension (docs/found-bugs/spirv-opt-sconvert-unsigned-fold.md),
            // though the opcode, not the type, gives the operation.
            let (from, signed_to, r) = (e.svec(int, n), e.svec(to, n), e.ivec(to, n));
            let signed = e.b.bitcast(from, None, a)?;
            let converted = e.b.s_convert(signed_to, None, signed)?;
            e.b.bitcast(r, None, converted)?
        }
        U2u => {
            let r = e.ivec(to, n);
            e.b.u_convert(r, None, a)?
        }
        UbitfieldExtract | IbitfieldExtract => bit_field(e, op, &[a, b, c], n)?,
        BitfieldInsert => bit_field(e, op, &[a, b, c, d], n)?,
        BitCount => e.b.bit_count(u, None, a)?,
        BitfieldReverse => e.b.bit_reverse(u, None, a)?,
        FindLsb => e.glsl(u, GlslStd450Op::FindILsb, &[a])?,
        UfindMsb => e.glsl(u, GlslStd450Op::FindUMsb, &[a])?,
        IfindMsb => e.glsl(u, GlslStd450Op::FindSMsb, &[a])?,
        UmulHigh | ImulHigh | UaddCarry | UsubBorrow => {
            // Each gives a struct of two words; ours is the second (the high word, the carry
            // or the borrow).
            let pair = e.b.type_struct([u, u]);
            let both = match op {
                UmulHigh => e.b.u_mul_extended(pair, None, a, b)?,
                ImulHigh => e.b.s_mul_extended(pair, None, a, b)?,
                UaddCarry => e.b.i_add_carry(pair, None, a, b)?,
                _ => e.b.i_sub_borrow(pair, None, a, b)?,
            };
            e.b.composite_extract(u, None, both, [1])?
        }
    })
}

/// `OpBitField[SU]Extract` / `OpBitFieldInsert` with the field clamped to the word (offset at
/// most 32, then count at most `32 - offset`): Vulkan leaves a field past bit 31 undefined,
/// and our IR clamps. The instruction's offset and count are scalars, so a vector is done
/// per component. `operands` are the value operands (base, and for an insert the inserted
/// bits), then offset and count.
fn bit_field(e: &mut Emitter, op: AluOp, operands: &[Word], n: u8) -> Result<Word, EmitError> {
    let u = e.uvec(1);
    let w = e.cu(32, 1);
    let mut parts = Vec::with_capacity(usize::from(n));
    for i in 0..u32::from(n) {
        let mut x = Vec::with_capacity(operands.len());
        for &v in operands {
            x.push(if n == 1 {
                v
            } else {
                e.b.composite_extract(u, None, v, [i])?
            });
        }
        let [values @ .., offset, count] = x.as_slice() else {
            unreachable!("a bit-field op has an offset and a count")
        };
        let offset = e.glsl(u, GlslStd450Op::UMin, &[*offset, w])?;
        let room = e.b.i_sub(u, None, w, offset)?;
        let count = e.glsl(u, GlslStd450Op::UMin, &[*count, room])?;
        parts.push(match (op, values) {
            (AluOp::UbitfieldExtract, &[base]) => {
                e.b.bit_field_u_extract(u, None, base, offset, count)?
            }
            (AluOp::IbitfieldExtract, &[base]) => {
                e.b.bit_field_s_extract(u, None, base, offset, count)?
            }
            (_, &[base, insert]) => e.b.bit_field_insert(u, None, base, insert, offset, count)?,
            _ => unreachable!("{op} is not a bit-field op"),
        });
    }
    if n == 1 {
        return Ok(parts[0]);
    }
    let v = e.uvec(n);
    Ok(e.b.composite_construct(v, None, parts)?)
}

/// The bits of float `x` (`float` id of `n` components), NaN made canonical.
pub(crate) fn canonical(e: &mut Emitter, x: Word, n: u8) -> Result<Word, EmitError> {
    let u = e.uvec(n);
    let bits = e.b.bitcast(u, None, x)?;
    let nan = is_nan_bits(e, bits, n)?;
    let canon = e.cu(CANONICAL_NAN, n);
    Ok(e.b.select(u, None, nan, canon, bits)?)
}

/// Whether `uint` bits are a NaN's (exponent all ones, mantissa non-zero), tested on the
/// integer: `OpIsNan` is not among the instructions Vulkan requires to respect
/// `SignedZeroInfNanPreserve` (under `shader_float_controls2`'s wording a driver may assume
/// its operand is not a NaN), so a guard built on it could be folded away.
fn is_nan_bits(e: &mut Emitter, bits: Word, n: u8) -> Result<Word, EmitError> {
    let (u, bt) = (e.uvec(n), e.bvec(n));
    let magnitude_mask = e.cu(0x7fff_ffff, n);
    let infinity = e.cu(0x7f80_0000, n);
    let magnitude = e.b.bitwise_and(u, None, bits, magnitude_mask)?;
    Ok(e.b.u_greater_than(bt, None, magnitude, infinity)?)
}

/// Integer division and remainders with our results for a zero divisor and `INT_MIN / -1`.
///
/// Signed remainders never reach `OpSRem`/`OpSMod`: Vulkan leaves both undefined when an
/// operand is negative unless the device enables `maintenance8` ("Precision and Operation of
/// SPIR-V Instructions"), so they are computed from magnitudes ([`signed_remainder`]).
fn division(
    e: &mut Emitter,
    op: AluOp,
    a: Word,
    b: Word,
    int: BitSize,
    n: u8,
) -> Result<Word, EmitError> {
    use AluOp::*;
    let (u, bt) = (e.ivec(int, n), e.bvec(n));
    let zero = e.ci(int, 0, n);
    let one = e.ci(int, 1, n);
    let by_zero = e.b.i_equal(bt, None, b, zero)?;
    // Only a signed quotient overflows: the remainder of `INT_MIN` by -1 comes out 0 from
    // the magnitudes (2^31 mod 1) without a special case.
    let all_ones = int.mask();
    let bad = if op == Idiv {
        let min = e.ci(int, 1 << (int.bits() - 1), n);
        let minus_one = e.ci(int, all_ones, n);
        let a_min = e.b.i_equal(bt, None, a, min)?;
        let b_minus_one = e.b.i_equal(bt, None, b, minus_one)?;
        let overflow = e.b.logical_and(bt, None, a_min, b_minus_one)?;
        e.b.logical_or(bt, None, by_zero, overflow)?
    } else {
        by_zero
    };
    let divisor = e.b.select(u, None, bad, one, b)?;
    let (x, when_zero) = match op {
        Udiv => (e.b.u_div(u, None, a, divisor)?, e.ci(int, all_ones, n)),
        Umod => (e.b.u_mod(u, None, a, divisor)?, a),
        Idiv => (e.b.s_div(u, None, a, divisor)?, e.ci(int, all_ones, n)),
        Irem => (signed_remainder(e, a, divisor, false, int, n)?, a),
        _ => (signed_remainder(e, a, divisor, true, int, n)?, a),
    };
    Ok(e.b.select(u, None, by_zero, when_zero, x)?)
}

/// The signed remainder of `a` by a non-zero `b`, with the dividend's sign (`irem`, truncated
/// division) or, `floored`, with the divisor's (`imod`), from `OpUMod` of the magnitudes.
///
/// A magnitude is the wrapping negation of a negative value read as unsigned, so `INT_MIN`'s
/// is 2^31, exactly; `|a| mod |b|` is then the magnitude of the truncated remainder, which
/// takes `a`'s sign. The floored one differs only when that remainder is non-zero and the
/// signs differ: then it is the truncated one plus `b`.
pub(crate) fn signed_remainder(
    e: &mut Emitter,
    a: Word,
    b: Word,
    floored: bool,
    int: BitSize,
    n: u8,
) -> Result<Word, EmitError> {
    let (u, bt) = (e.ivec(int, n), e.bvec(n));
    let zero = e.ci(int, 0, n);
    let a_negative = e.b.s_less_than(bt, None, a, zero)?;
    let b_negative = e.b.s_less_than(bt, None, b, zero)?;
    let a_negated = e.b.s_negate(u, None, a)?;
    let b_negated = e.b.s_negate(u, None, b)?;
    let a_magnitude = e.b.select(u, None, a_negative, a_negated, a)?;
    let b_magnitude = e.b.select(u, None, b_negative, b_negated, b)?;
    let r = e.b.u_mod(u, None, a_magnitude, b_magnitude)?;
    let r_negated = e.b.s_negate(u, None, r)?;
    let truncated = e.b.select(u, None, a_negative, r_negated, r)?;
    if !floored {
        return Ok(truncated);
    }
    let nonzero = e.b.i_not_equal(bt, None, r, zero)?;
    let signs_differ = e.b.logical_not_equal(bt, None, a_negative, b_negative)?;
    let lift = e.b.logical_and(bt, None, nonzero, signs_differ)?;
    let lifted = e.b.i_add(u, None, truncated, b)?;
    Ok(e.b.select(u, None, lift, lifted, truncated)?)
}

/// `fmin`/`fmax` on `uint` bits: minNum/maxNum, both NaN → canonical NaN, `-0 < +0`. The
/// ordered compares decide only between two non-NaN operands.
pub(crate) fn min_max(
    e: &mut Emitter,
    min: bool,
    a: Word,
    b: Word,
    n: u8,
) -> Result<Word, EmitError> {
    let (u, bt, ft) = (e.uvec(n), e.bvec(n), e.fvec(n));
    let fa = e.b.bitcast(ft, None, a)?;
    let fb = e.b.bitcast(ft, None, b)?;
    let a_nan = is_nan_bits(e, a, n)?;
    let b_nan = is_nan_bits(e, b, n)?;
    let a_wins = if min {
        e.b.f_ord_less_than(bt, None, fa, fb)?
    } else {
        e.b.f_ord_greater_than(bt, None, fa, fb)?
    };
    let equal = e.b.f_ord_equal(bt, None, fa, fb)?;
    // Equal floats with different bits are -0 and +0: the sign bit decides.
    let zero = e.cu(0, n);
    let a_negative = e.b.s_less_than(bt, None, a, zero)?;
    let a_wins_tie = if min {
        a_negative
    } else {
        e.b.logical_not(bt, None, a_negative)?
    };
    let tie = e.b.select(u, None, a_wins_tie, a, b)?;
    let ordered_pick = e.b.select(u, None, a_wins, a, b)?;
    let ordered = e.b.select(u, None, equal, tie, ordered_pick)?;
    let canon = e.cu(CANONICAL_NAN, n);
    let both_nan = e.b.select(u, None, b_nan, canon, b)?;
    let a_ok = e.b.select(u, None, b_nan, a, ordered)?;
    Ok(e.b.select(u, None, a_nan, both_nan, a_ok)?)
}

/// Saturating float → int (`signed`) or → uint; NaN → 0. Only in-range values reach the
/// conversion instruction.
pub(crate) fn float_to_int(
    e: &mut Emitter,
    fa: Word,
    signed: bool,
    n: u8,
) -> Result<Word, EmitError> {
    let (u, bt, ft) = (e.uvec(n), e.bvec(n), e.fvec(n));
    let (low, high) = if signed {
        (-2_147_483_648.0f32, 2_147_483_648.0f32)
    } else {
        (0.0, 4_294_967_296.0)
    };
    let (lo, hi) = (e.cf(low, n), e.cf(high, n));
    let above_low = e.b.f_ord_greater_than_equal(bt, None, fa, lo)?;
    let below_high = e.b.f_ord_less_than(bt, None, fa, hi)?;
    let in_range = e.b.logical_and(bt, None, above_low, below_high)?;
    let fzero = e.cf(0.0, n);
    let safe = e.b.select(ft, None, in_range, fa, fzero)?;
    let converted = if signed {
        e.b.convert_f_to_s(u, None, safe)?
    } else {
        e.b.convert_f_to_u(u, None, safe)?
    };
    let too_big = e.b.f_ord_greater_than_equal(bt, None, fa, hi)?;
    let max = e.cu(if signed { i32::MAX as u32 } else { u32::MAX }, n);
    let high_clamped = e.b.select(u, None, too_big, max, converted)?;
    if !signed {
        return Ok(high_clamped);
    }
    let too_small = e.b.f_ord_less_than(bt, None, fa, lo)?;
    let min = e.cu(i32::MIN as u32, n);
    Ok(e.b.select(u, None, too_small, min, high_clamped)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use compiler::ir::alu::Kind;
    use compiler::ir::text::parse_program;

    /// A program applying `op` to uniforms (booleans from a compare) and storing the result.
    fn one_op(op: AluOp) -> String {
        let mut src = String::from(
            "invocations 1\noutputs 1\nuniforms 0x00000007 0x00000000\n\nblock_0:\n  \
             vec1 32 ssa_0 = load_const (0x00000000)\n  \
             vec1 32 ssa_1 = load_uniform ssa_0\n  \
             vec1 1 ssa_2 = ieq ssa_1, ssa_0\n",
        );
        let args: Vec<&str> = op
            .srcs()
            .iter()
            .map(|k| if *k == Kind::Bool { "ssa_2" } else { "ssa_1" })
            .collect();
        let result_bool = op.dst() == Kind::Bool;
        let ty = if result_bool { "vec1 1" } else { "vec1 32" };
        src += &format!("  {ty} ssa_3 = {} {}\n", op.name(), args.join(", "));
        if result_bool {
            src += "  vec1 32 ssa_4 = b2i ssa_3\n  store_output 0, ssa_4\n";
        } else {
            src += "  store_output 0, ssa_3\n";
        }
        src
    }

    fn disassembly(op: AluOp) -> String {
        let p = parse_program(&one_op(op), op.name()).unwrap();
        let m =
            crate::emit(&p, &crate::EmitOptions::default()).unwrap_or_else(|e| panic!("{op}: {e}"));
        crate::disassemble(&m.words).unwrap()
    }

    #[test]
    fn every_alu_op_emits() {
        for &op in AluOp::ALL {
            assert!(disassembly(op).contains("OpFunctionEnd"), "{op}");
        }
    }

    #[test]
    fn guarded_ops_carry_their_guards() {
        let has = |op, what: &[&str]| {
            let d = disassembly(op);
            for w in what {
                assert!(d.contains(w), "{op} lacks {w}:\n{d}");
            }
        };
        // The divisor is replaced before dividing, and the by-zero result selected after.
        has(AluOp::Udiv, &["OpIEqual", "OpUDiv", "OpSelect"]);
        has(
            AluOp::Idiv,
            &["OpLogicalAnd", "OpLogicalOr", "OpSDiv", "OpSelect"],
        );
        // Signed remainders from magnitudes: no OpSRem/OpSMod (undefined on negatives).
        for op in [AluOp::Irem, AluOp::Imod] {
            has(op, &["OpSNegate", "OpUMod", "OpSelect"]);
            let d = disassembly(op);
            assert!(!d.contains("OpSRem") && !d.contains("OpSMod"), "{op}:\n{d}");
        }
        has(AluOp::Ishl, &["OpBitwiseAnd", "OpShiftLeftLogical"]);
        has(
            AluOp::F2i,
            &["OpFOrdGreaterThanEqual", "OpFOrdLessThan", "OpConvertFToS"],
        );
        has(AluOp::F2u, &["OpConvertFToU", "OpSelect"]);
        has(
            AluOp::Fmin,
            &["OpUGreaterThan", "OpFOrdEqual", "OpSLessThan"],
        );
        has(AluOp::Fadd, &["OpFAdd", "OpUGreaterThan", "OpSelect"]);
        assert!(!disassembly(AluOp::Fmin).contains("OpIsNan"));
        has(AluOp::Fneg, &["OpBitwiseXor"]);
        has(AluOp::Iabs, &["OpSNegate", "OpSelect"]);
        assert!(!disassembly(AluOp::Fneg).contains("OpFNegate"));
        // Bit fields are clamped to the word before the extract.
        has(
            AluOp::UbitfieldExtract,
            &["UMin", "OpISub", "OpBitFieldUExtract"],
        );
        has(AluOp::IbitfieldExtract, &["UMin", "OpBitFieldSExtract"]);
        has(AluOp::ImulHigh, &["OpSMulExtended", "OpCompositeExtract"]);
        has(AluOp::UaddCarry, &["OpIAddCarry"]);
        has(AluOp::BitfieldInsert, &["UMin", "OpBitFieldInsert"]);
        has(AluOp::UsubBorrow, &["OpISubBorrow"]);
        has(AluOp::IfindMsb, &["FindSMsb"]);
    }
}
