//! The Vulkan spec's precision for the float ops it does not make exact ("Precision and
//! Operation of SPIR-V Instructions", 32-bit floats), as a check of one driver result against
//! the op's operands: the centre is the exact result (computed in `f64` from the `f32`
//! operands, where every op here is exact to far below an `f32` ULP), the bound the table's.
//!
//! | op | bound | not compared |
//! |---|---|---|
//! | `ffma` | the fused or the unfused result, bit for bit (`Fma` inherits `OpFMul` + `OpFAdd`) | a denormal operand, product or result |
//! | `frcp` (`OpFDiv 1.0, x`) | 2.5 ULP | \|x\| outside [2^-126, 2^126] |
//! | `frsq` (`InverseSqrt`) | 2 ULP | x ≤ 0 |
//! | `fsqrt` (`Sqrt`) | inherited from `1.0 / InverseSqrt(x)`: relative 4.5·2^-23 (2 ULP, then 2.5 ULP; an ULP is at most 2^-23 of the value) | x < 0 |
//! | `fexp2` (`Exp2`) | 3 + 2·\|x\| ULP | a result beyond `f32` range or below 2^-126 |
//! | `flog2` (`Log2`) | 3 ULP outside [0.5, 2]; absolute error < 2^-21 inside | x ≤ 0 |
//! | `fsin` `fcos` | absolute error ≤ 2^-11 | \|x\| > π |
//!
//! An ULP is that of the exact result's binade (`2^(e-23)` for `2^e ≤ |r| < 2^(e+1)`, `e` at
//! least -126). Everywhere: a denormal operand or exact result is not compared (a device
//! without `DenormPreserve` may flush it), nor a NaN or infinite operand (the table bounds
//! finite ones), and a result that is NaN or infinite where the exact one is finite is outside
//! the bound.

use compiler::ir::AluOp;

/// What the check of one word says.
#[derive(Clone, Debug, PartialEq)]
pub enum Judged {
    /// The driver's word is within the op's bound.
    Within,
    /// It is not; the text states the bound and the exact result.
    Outside(String),
    /// The spec gives no bound here (the reason).
    NotCompared(&'static str),
}

/// The ops [`check`] has a rule for.
pub const BOUNDED_OPS: &[AluOp] = &[
    AluOp::Ffma,
    AluOp::Frcp,
    AluOp::Frsq,
    AluOp::Fsqrt,
    AluOp::Fexp2,
    AluOp::Flog2,
    AluOp::Fsin,
    AluOp::Fcos,
];

const TWO_23: f64 = 8_388_608.0;

fn f(bits: u32) -> f32 {
    f32::from_bits(bits)
}

fn denormal(x: f32) -> bool {
    x != 0.0 && x.is_finite() && x.abs() < f32::MIN_POSITIVE
}

/// The ULP of `r`'s binade, as an `f32` spacing.
pub fn ulp(r: f64) -> f64 {
    let e = ((r.abs().to_bits() >> 52) & 0x7ff) as i32 - 1023;
    2f64.powi(e.max(-126) - 23)
}

/// Checks the driver's `actual` word for `op` applied to `operands` (bit patterns; unused
/// operands ignored).
pub fn check(op: AluOp, operands: [u32; 3], actual: u32) -> Judged {
    let [a, b, c] = operands.map(f);
    let got = f(actual);
    if operands[..op.arity()].iter().any(|&x| denormal(f(x))) {
        return Judged::NotCompared("a denormal operand");
    }
    if op == AluOp::Ffma {
        return fma(a, b, c, actual);
    }
    // The precision table bounds results of finite operands; a NaN or an infinity in is
    // `SignedZeroInfNanPreserve`'s business (a NaN in, a NaN out), or undefined without it.
    if operands[..op.arity()].iter().any(|&x| !f(x).is_finite()) {
        return Judged::NotCompared("a NaN or infinite operand");
    }
    let x = f64::from(a);
    // (exact result, absolute bound, strict) or a verdict.
    let (exact, bound, strict) = match op {
        AluOp::Frcp => {
            if !(2f64.powi(-126)..=2f64.powi(126)).contains(&x.abs()) {
                return Judged::NotCompared("1/x with |x| outside [2^-126, 2^126]");
            }
            let r = 1.0 / x;
            (r, 2.5 * ulp(r), false)
        }
        AluOp::Frsq => {
            if x <= 0.0 {
                return Judged::NotCompared("inversesqrt of x <= 0");
            }
            let r = 1.0 / x.sqrt();
            (r, 2.0 * ulp(r), false)
        }
        AluOp::Fsqrt => {
            if x < 0.0 {
                return Judged::NotCompared("sqrt of x < 0");
            }
            let r = x.sqrt();
            (r, 4.5 / TWO_23 * r, false)
        }
        AluOp::Fexp2 => {
            let r = x.exp2();
            if r > f64::from(f32::MAX) || r < f64::from(f32::MIN_POSITIVE) {
                return Judged::NotCompared("exp2 beyond the normal f32 range");
            }
            (r, (3.0 + 2.0 * x.abs()) * ulp(r), false)
        }
        AluOp::Flog2 => {
            if x <= 0.0 {
                return Judged::NotCompared("log2 of x <= 0");
            }
            let r = x.log2();
            if (0.5..=2.0).contains(&x) {
                (r, 2f64.powi(-21), true)
            } else {
                (r, 3.0 * ulp(r), false)
            }
        }
        AluOp::Fsin | AluOp::Fcos => {
            if x.abs() > std::f64::consts::PI {
                return Judged::NotCompared("sin/cos outside [-pi, pi]");
            }
            let r = if op == AluOp::Fsin { x.sin() } else { x.cos() };
            (r, 2f64.powi(-11), false)
        }
        _ => return Judged::NotCompared("an op without a precision rule"),
    };
    if exact != 0.0 && denormal(exact as f32) {
        return Judged::NotCompared("a denormal result");
    }
    let error = (f64::from(got) - exact).abs();
    let inside = if strict {
        error < bound
    } else {
        error <= bound
    };
    if got.is_finite() && inside {
        Judged::Within
    } else {
        Judged::Outside(format!(
            "{} of {:?}: exact {exact:e}, got {got:e} ({actual:#010x}), error {error:e} over the \
             bound {bound:e}",
            op.name(),
            &operands[..op.arity()]
                .iter()
                .map(|&w| f(w))
                .collect::<Vec<_>>()
        ))
    }
}

/// `Fma`: the fused result (one rounding) or `OpFMul` then `OpFAdd` (two), bit for bit after
/// the emitter's NaN canonicalisation.
fn fma(a: f32, b: f32, c: f32, actual: u32) -> Judged {
    let fused = a.mul_add(b, c);
    let product = a * b;
    let unfused = product + c;
    if [fused, product, unfused].into_iter().any(denormal) {
        return Judged::NotCompared("a denormal product or result");
    }
    let canon = |x: f32| if x.is_nan() { 0x7fc0_0000 } else { x.to_bits() };
    if actual == canon(fused) || actual == canon(unfused) {
        Judged::Within
    } else {
        Judged::Outside(format!(
            "ffma of [{a:e}, {b:e}, {c:e}]: fused {fused:e}, unfused {unfused:e}, got {:e} \
             ({actual:#010x})",
            f(actual)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `x` moved by `n` f32 steps (up for positive `n`).
    fn step(x: f32, n: i32) -> u32 {
        (x.to_bits() as i32 + if x < 0.0 { -n } else { n }) as u32
    }

    fn judged(op: AluOp, x: f32, got: u32) -> Judged {
        check(op, [x.to_bits(), 0, 0], got)
    }

    fn within(op: AluOp, x: f32, got: u32) -> bool {
        judged(op, x, got) == Judged::Within
    }

    fn outside(op: AluOp, x: f32, got: u32) -> bool {
        matches!(judged(op, x, got), Judged::Outside(_))
    }

    #[test]
    fn rcp_is_within_2_5_ulp_and_not_3() {
        // 1/4 = 0.25 exactly; its ULP is 2^-25.
        assert!(within(AluOp::Frcp, 4.0, step(0.25, 2)));
        assert!(outside(AluOp::Frcp, 4.0, step(0.25, 3)));
        assert!(matches!(
            judged(AluOp::Frcp, 2f32.powi(127), 0),
            Judged::NotCompared(_)
        ));
    }

    #[test]
    fn rsq_is_within_2_ulp_at_the_bound() {
        assert!(within(AluOp::Frsq, 4.0, step(0.5, 2)));
        assert!(outside(AluOp::Frsq, 4.0, step(0.5, 3)));
        assert!(matches!(
            judged(AluOp::Frsq, 0.0, 0x7f80_0000),
            Judged::NotCompared(_)
        ));
    }

    #[test]
    fn sqrt_inherits_4_5_ulp_relative() {
        // sqrt(4) = 2, ULP 2^-22: 4.5 · 2^-23 · 2 is 4.5 ULP.
        assert!(within(AluOp::Fsqrt, 4.0, step(2.0, 4)));
        assert!(outside(AluOp::Fsqrt, 4.0, step(2.0, 5)));
        assert!(within(AluOp::Fsqrt, 0.0, 0));
    }

    #[test]
    fn exp2_is_within_3_plus_2x_ulp_at_the_bound() {
        // exp2(3) = 8: 3 + 6 = 9 ULP.
        assert!(within(AluOp::Fexp2, 3.0, step(8.0, 9)));
        assert!(outside(AluOp::Fexp2, 3.0, step(8.0, 10)));
        assert!(within(AluOp::Fexp2, -3.0, step(0.125, -9)));
        assert!(outside(AluOp::Fexp2, -3.0, step(0.125, 10)));
        assert!(matches!(
            judged(AluOp::Fexp2, 200.0, 0x7f80_0000),
            Judged::NotCompared(_)
        ));
    }

    #[test]
    fn log2_is_3_ulp_outside_and_under_2_pow_minus_21_inside_half_to_two() {
        // log2(8) = 3, ULP 2^-22.
        assert!(within(AluOp::Flog2, 8.0, step(3.0, 3)));
        assert!(outside(AluOp::Flog2, 8.0, step(3.0, 4)));
        // log2(1) = 0: the absolute bound is strict.
        let bound = 2f32.powi(-21);
        assert!(within(AluOp::Flog2, 1.0, step(bound, -1)));
        assert!(outside(AluOp::Flog2, 1.0, bound.to_bits()));
        assert!(matches!(
            judged(AluOp::Flog2, -1.0, 0x7fc0_0000),
            Judged::NotCompared(_)
        ));
    }

    #[test]
    fn sin_and_cos_are_within_2_pow_minus_11_in_minus_pi_to_pi() {
        let bound = 2f32.powi(-11);
        assert!(within(AluOp::Fsin, 0.0, bound.to_bits()));
        assert!(outside(AluOp::Fsin, 0.0, step(bound, 1)));
        assert!(within(AluOp::Fcos, 0.0, (1.0 - bound).to_bits()));
        assert!(outside(AluOp::Fcos, 0.0, step(1.0 - bound, -1)));
        assert!(matches!(
            judged(AluOp::Fsin, 4.0, 0),
            Judged::NotCompared(_)
        ));
    }

    #[test]
    fn fma_is_the_fused_or_the_unfused_result_and_nothing_else() {
        // (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 fused; the product rounds to 1 + 2^-11 first.
        let a = (1.0 + 2f32.powi(-12)).to_bits();
        let minus_one = (-1.0f32).to_bits();
        let fused = (2f32.powi(-11) + 2f32.powi(-24)).to_bits();
        let unfused = 2f32.powi(-11).to_bits();
        assert_ne!(fused, unfused);
        assert_eq!(check(AluOp::Ffma, [a, a, minus_one], fused), Judged::Within);
        assert_eq!(
            check(AluOp::Ffma, [a, a, minus_one], unfused),
            Judged::Within
        );
        assert!(matches!(
            check(AluOp::Ffma, [a, a, minus_one], fused + 1),
            Judged::Outside(_)
        ));
    }

    #[test]
    fn a_non_finite_result_for_a_finite_exact_one_is_outside() {
        assert!(outside(AluOp::Fsin, 1.0, 0x7fc0_0000));
        assert!(outside(AluOp::Fexp2, 1.0, 0x7f80_0000));
    }

    #[test]
    fn a_nan_or_infinite_operand_is_not_compared() {
        // A 600 s run on lavapipe 26.2.6 called sin(NaN) = NaN outside the bound.
        for op in BOUNDED_OPS.iter().filter(|&&op| op != AluOp::Ffma) {
            for x in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                assert!(
                    matches!(judged(*op, x, 0x7fc0_0000), Judged::NotCompared(_)),
                    "{op:?} of {x}"
                );
            }
        }
    }
}
