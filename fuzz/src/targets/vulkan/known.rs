//! Known driver bugs as rules over the program and the difference, never over a driver's name.
//!
//! Each known bug is a model of the wrong lowering: a rewrite of the program into what the
//! buggy driver computes (`imod` as `irem`, `0.0 - x` as `-x`). A mismatch is that bug when the
//! rewrite touches the program and the interpreter's results for the rewritten program equal
//! the driver's on every compared word — the whole difference, not only its first word, is
//! explained. The rule is applied on every driver; a driver that fixed the bug simply never
//! matches it, and a new driver that has it is recognised without an edit here.
//!
//! A `spirv-opt` finding that goes away without one pass of the case's list is a SPIRV-Tools
//! bug fixed upstream after the version here when that pass is listed in
//! [`SPIRV_OPT_FIXED_UPSTREAM`].
//!
//! A known bug gets its own bucket (its class) so that it does not hide new bugs, and `repro
//! --also-icd` compares two drivers by it.

use super::VulkanOptions;
use crate::targets::driver::spirv_opt::SpirvOptPasses;
use compiler::interp::{self, RunOptions};
use compiler::ir::{AluOp, InstKind, Program};
use sim::dispatch::Results;
use spirv_emit::{Comparison, InexactWords};

/// One known driver bug.
pub struct KnownBug {
    /// Its bucketing class (`known-<what>`).
    pub class: &'static str,
    /// One line for reports: what the driver does wrong, where it was seen.
    pub summary: &'static str,
    /// The program as the buggy driver computes it, or `None` when the program has nothing
    /// the bug touches.
    pub rewrite: fn(&Program) -> Option<Program>,
}

/// Every known bug, tried in this order.
pub const KNOWN_BUGS: &[KnownBug] = &[
    KnownBug {
        class: "known-smod-as-srem",
        summary: "OpSMod computed as OpSRem: the result of operands with different signs keeps \
                  the dividend's sign (lavapipe, Mesa 22.3.6 and 25.0.7; docs/found-bugs/lavapipe-smod-as-srem.md)",
        rewrite: smod_as_srem,
    },
    KnownBug {
        class: "known-zero-minus-x-as-fneg",
        summary: "0.0 - x computed as -x under SignedZeroInfNanPreserve: 0.0 - (+0.0) gives -0.0 \
                  (lavapipe, Mesa 22.3.6 and 25.0.7; docs/found-bugs/lavapipe-signed-zero-fsub.md)",
        rewrite: zero_minus_x_as_fneg,
    },
    KnownBug {
        class: "known-spirv-opt-signed-min-max-folded-unsigned",
        summary: "GLSL.std.450 SMin/SMax (and SClamp) of uint-typed constants folded as \
                  unsigned (spirv-opt v2023.1 and v2026.4, still in the newest; \
                  docs/found-bugs/spirv-opt-sclamp-unsigned-fold.md)",
        rewrite: signed_min_max_as_unsigned,
    },
];

/// SPIRV-Tools bugs fixed upstream after the version Debian ships (v2023.1, February 2023):
/// a finding that goes away when the pass named is dropped from the case's list is "known,
/// fixed upstream", its own bucket.
pub const SPIRV_OPT_FIXED_UPSTREAM: &[(&str, KnownBug)] = &[(
    "loop-invariant-code-motion",
    KnownBug {
        class: "known-spirv-opt-licm-fixed-upstream",
        summary: "spirv-opt's loop-invariant-code-motion hoists a buffer load above a store to \
                  the same buffer inside the loop (SPIRV-Tools v2023.1; fixed upstream in March \
                  2023; docs/found-bugs/spirv-opt-licm-load-above-store.md)",
        rewrite: |_| None,
    },
)];

/// The SPIRV-Tools bug fixed upstream that explains a `spirv-opt` finding: the case's pass
/// list without that bug's pass gives results with no compared difference.
pub fn spirv_opt_fixed_upstream(
    program: &Program,
    passes: &SpirvOptPasses,
    opts: &VulkanOptions,
    plan: &Comparison,
) -> Option<&'static KnownBug> {
    let expected = interp::run(program, &RunOptions::default()).ok()?;
    SPIRV_OPT_FIXED_UPSTREAM.iter().find_map(|(pass, bug)| {
        if !passes.0.contains(pass) {
            return None;
        }
        let without = SpirvOptPasses(passes.0.iter().copied().filter(|p| p != pass).collect());
        let done = super::execute(program, &without, opts).ok()?;
        plan.first_difference(&expected, &done.results, &program.dispatch)
            .is_none()
            .then_some(bug)
    })
}

/// The known bug that explains every compared difference between the interpreter's results
/// for `program` (`expected`) and the driver's `actual` ones, if one does.
pub fn explaining(
    program: &Program,
    expected: &Results,
    actual: &Results,
    inexact: &InexactWords,
) -> Option<&'static KnownBug> {
    explaining_among(KNOWN_BUGS, program, expected, actual, inexact)
}

/// The bug of `bugs` that explains every compared difference (see [`explaining`]).
pub fn explaining_among(
    bugs: &'static [KnownBug],
    program: &Program,
    expected: &Results,
    actual: &Results,
    inexact: &InexactWords,
) -> Option<&'static KnownBug> {
    let differ = |x: &Results, y: &Results| spirv_emit::compare(x, y, &program.dispatch, inexact);
    bugs.iter().find(|bug| {
        (bug.rewrite)(program)
            .and_then(|p| interp::run(&p, &RunOptions::default()).ok())
            // A model that computes what the program computes explains no difference.
            .is_some_and(|wrong| {
                differ(&wrong, actual).is_none() && differ(&wrong, expected).is_some()
            })
    })
}

/// The known bug called `class`.
pub fn by_class(class: &str) -> Option<&'static KnownBug> {
    KNOWN_BUGS
        .iter()
        .chain(SPIRV_OPT_FIXED_UPSTREAM.iter().map(|(_, b)| b))
        .find(|b| b.class == class)
}

/// `program` with every `imod` as `irem` (`None` without an `imod`).
fn smod_as_srem(program: &Program) -> Option<Program> {
    with_ops(program, &[(AluOp::Imod, AluOp::Irem)])
}

/// `program` with every `imin`/`imax` as `umin`/`umax` (`None` without one): the emitter
/// writes them as `SMin`/`SMax` on `uint`, which spirv-opt folds through the type's
/// signedness once both operands are constants.
fn signed_min_max_as_unsigned(program: &Program) -> Option<Program> {
    with_ops(
        program,
        &[(AluOp::Imin, AluOp::Umin), (AluOp::Imax, AluOp::Umax)],
    )
}

/// `program` with every ALU op `from` as its `to`, for each pair of `ops` (`None` when none
/// of the `from`s occurs): a lowering that picks the wrong one of two related operations.
pub fn with_ops(program: &Program, ops: &[(AluOp, AluOp)]) -> Option<Program> {
    let mut p = program.clone();
    let mut touched = false;
    for inst in p.func.insts.values_mut() {
        if let InstKind::Alu { op, .. } = &mut inst.kind {
            if let Some(&(_, to)) = ops.iter().find(|(from, _)| from == op) {
                *op = to;
                touched = true;
            }
        }
    }
    touched.then_some(p)
}

/// `program` with every `fsub` whose first operand is a constant +0.0 (in every component) as
/// `fneg` of its second (`None` without one): the fold `0.0 - x → -x`, right only when signed
/// zeros may be ignored.
fn zero_minus_x_as_fneg(program: &Program) -> Option<Program> {
    let mut p = program.clone();
    let zero_minuend: Vec<_> = p
        .func
        .insts
        .iter()
        .filter_map(|(inst, i)| match i.kind {
            InstKind::Alu {
                op: AluOp::Fsub,
                args,
            } => matches!(
                p.func.def_kind(args[0]),
                Some(InstKind::Const { bits }) if bits.iter().all(|&b| b == 0)
            )
            .then_some((inst, args)),
            _ => None,
        })
        .collect();
    for &(inst, [_, x, unused, _]) in &zero_minuend {
        // `fsub` has two operands, so its third slot holds the reserved "no value".
        p.func.insts[inst].kind = InstKind::Alu {
            op: AluOp::Fneg,
            args: [x, unused, unused, unused],
        };
    }
    (!zero_minuend.is_empty()).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use compiler::ir::text::parse_program;

    fn run(src: &str) -> (Program, Results) {
        let p = parse_program(src, "t.ir").unwrap();
        let r = interp::run(&p, &RunOptions::default()).unwrap();
        (p, r)
    }

    const SMOD: &str = "invocations 2\noutputs 1\n\nblock_0:\n  \
        vec1 32 ssa_0 = load_invocation_id\n  vec1 32 ssa_1 = load_const (0xfffffffd)\n  \
        vec1 32 ssa_2 = imod ssa_0, ssa_1\n  store_output 0, ssa_2\n";

    #[test]
    fn smod_as_srem_explains_exactly_the_srem_results() {
        let (p, expected) = run(SMOD);
        assert_eq!(expected.outputs, [0, 0xffff_fffe]); // 1 mod -3 = -2
        let none = spirv_emit::inexact_words(&p, true);
        let srem = Results {
            outputs: vec![0, 1],
            ..expected.clone()
        };
        let bug = explaining(&p, &expected, &srem, &none).expect("explained");
        assert_eq!(bug.class, "known-smod-as-srem");
        // Another wrong value is not this bug.
        let other = Results {
            outputs: vec![0, 7],
            ..expected.clone()
        };
        assert!(explaining(&p, &expected, &other, &none).is_none());
        // Where irem and imod agree (operands of one sign) the model computes the right
        // results, and explains no difference: not even results that are right.
        let (same_sign, right) = run(&SMOD.replace("0xfffffffd", "0x00000003"));
        assert!(explaining(&same_sign, &right, &right, &none).is_none());
    }

    #[test]
    fn signed_min_max_folded_unsigned_explains_the_folded_values_only() {
        // SMin(0x8ff34781, 3) and SMax(0x8ff34781, 3): spirv-opt's --ccp stores 3 and
        // 0x8ff34781 (docs/found-bugs/spirv-opt-sclamp-unsigned-fold.md).
        let src = "invocations 1\noutputs 2\n\nblock_0:\n  \
            vec1 32 ssa_0 = load_const (0x8ff34781)\n  vec1 32 ssa_1 = load_const (0x00000003)\n  \
            vec1 32 ssa_2 = imin ssa_0, ssa_1\n  store_output 0, ssa_2\n  \
            vec1 32 ssa_3 = imax ssa_0, ssa_1\n  store_output 1, ssa_3\n";
        let (p, expected) = run(src);
        assert_eq!(expected.outputs, [0x8ff3_4781, 3]);
        let none = spirv_emit::inexact_words(&p, true);
        let folded = Results {
            outputs: vec![3, 0x8ff3_4781],
            ..expected.clone()
        };
        let bug = explaining(&p, &expected, &folded, &none).expect("explained");
        assert_eq!(bug.class, "known-spirv-opt-signed-min-max-folded-unsigned");
        let half = Results {
            outputs: vec![3, 3],
            ..expected.clone()
        };
        assert!(explaining(&p, &expected, &half, &none).is_none());
    }

    #[test]
    fn zero_minus_x_as_fneg_explains_a_negative_zero_only() {
        let src = "invocations 1\noutputs 2\nuniforms 0x00000000 0x3f800000\n\nblock_0:\n  \
            vec1 32 ssa_0 = load_const (0x00000000)\n  vec1 32 ssa_1 = load_uniform ssa_0\n  \
            vec1 32 ssa_2 = fsub ssa_0, ssa_1\n  store_output 0, ssa_2\n  \
            vec1 32 ssa_3 = load_const (0x00000001)\n  vec1 32 ssa_4 = load_uniform ssa_3\n  \
            vec1 32 ssa_5 = fsub ssa_0, ssa_4\n  store_output 1, ssa_5\n";
        let (p, expected) = run(src);
        assert_eq!(expected.outputs, [0, 0xbf80_0000]);
        let none = spirv_emit::inexact_words(&p, true);
        let negative_zero = Results {
            outputs: vec![0x8000_0000, 0xbf80_0000],
            ..expected.clone()
        };
        let bug = explaining(&p, &expected, &negative_zero, &none).expect("explained");
        assert_eq!(bug.class, "known-zero-minus-x-as-fneg");
        let smod_program = parse_program(SMOD, "t.ir").unwrap();
        assert!(zero_minus_x_as_fneg(&smod_program).is_none());
    }
}
