//! naga's failures bucketed by step, and naga refusing invalid SPIR-V blamed on us. (Its runs
//! on the device need the worker binary: `triage/tests/naga.rs`.)

use super::*;
use crate::targets::driver;

#[test]
fn naga_refusing_invalid_spirv_is_ours_and_its_own_failures_are_bucketed_by_step() {
    // Not SPIR-V at all: naga's front end refuses it, and so does spirv-val — ours.
    let garbage = [0x0723_0203u32, 0x0001_0000, 0, 0, 0, 0xdead_beef];
    let e = round_trip(&garbage).unwrap_err();
    assert_eq!(e.step, Step::FrontEnd);
    let f = naga_finding(e, &garbage);
    match spirv_val(&[]) {
        Err(ValidateError::Missing(_)) => {
            return vulkan_runner::client::unavailable("spirv-val (package spirv-tools)")
        }
        _ => assert_eq!(f.class.as_deref(), Some("spirv-val"), "{f}"),
    }
    let e = NagaError {
        step: Step::Validator,
        message: "Function [1] 'main' is invalid".into(),
        class: "Function".into(),
    };
    let f = naga_finding(e, &garbage);
    assert_eq!(f.class.as_deref(), Some("naga validator Function"));
}

/// A vector `idiv`: the emitter guards `INT_MIN / -1` with `OpLogicalAnd` on a bool vector,
/// which naga 30.0.2's front end turns into an expression its own validator rejects.
const VECTOR_IDIV: &str =
    include_str!("../../../../docs/found-bugs/naga-logical-op-on-bool-vectors.ir");

fn parsed(src: &str) -> Program {
    compiler::ir::text::parse_program(src, "t.ir").unwrap()
}

#[test]
fn naga_rejecting_its_own_logical_and_on_bool_vectors_is_the_known_bug() {
    let module = driver::module::emit(&parsed(VECTOR_IDIV), &emit_options()).unwrap();
    let e = round_trip(&module.words).unwrap_err();
    assert_eq!(e.step, Step::Validator, "{e:?}");
    let f = naga_finding(e, &module.words);
    assert_eq!(
        f.class.as_deref(),
        Some("known-naga-logical-op-on-bool-vectors"),
        "{f}"
    );
    assert!(f.detail.contains("known: naga's"), "{}", f.detail);
    // The same step saying something else is naga's, but not this bug.
    let other = NagaError {
        step: Step::Validator,
        message: "Incompatible operands: Add(Vector".into(),
        class: "Function".into(),
    };
    let f = naga_finding(other, &module.words);
    assert_eq!(f.class.as_deref(), Some("naga validator Function"));
}

/// `docs/found-bugs/naga-signed-op-on-uint-*.ir`, reduced by `gpufuzz reduce --target naga`,
/// with the words naga's module computed on lavapipe: (program, slot, naga's word).
const SIGNED_OPS_ON_UINT: [(&str, usize, u32); 4] = [
    (
        include_str!("../../../../docs/found-bugs/naga-signed-op-on-uint-smin.ir"),
        0,
        0x0000_0000,
    ),
    (
        include_str!("../../../../docs/found-bugs/naga-signed-op-on-uint-smax.ir"),
        3,
        0xb54c_da57,
    ),
    (
        include_str!("../../../../docs/found-bugs/naga-signed-op-on-uint-sra.ir"),
        2 * 5 + 2,
        0x39b5_7188,
    ),
    (
        include_str!("../../../../docs/found-bugs/naga-signed-op-on-uint-sdiv.ir"),
        0,
        0x3f5f_583e,
    ),
];

#[test]
fn signed_ops_on_uint_computed_unsigned_explain_what_naga_computed() {
    for (src, slot, naga_word) in SIGNED_OPS_ON_UINT {
        let program = parsed(src);
        let expected = compiler::interp::run(&program, &Default::default()).unwrap();
        let plan = spirv_emit::comparison(&program, &emit_options());
        // The model of the bug: the program with its signed ops unsigned.
        let bug = &known::KNOWN_MISMATCHES[0];
        let wrong = (bug.rewrite)(&program).expect("the program has a signed op");
        let wrong = compiler::interp::run(&wrong, &Default::default()).unwrap();
        assert_ne!(expected.outputs[slot], naga_word);
        assert_eq!(
            wrong.outputs[slot], naga_word,
            "the model computes naga's word"
        );
        let found = explaining_among(
            known::KNOWN_MISMATCHES,
            &program,
            &expected,
            &wrong,
            &plan.inexact,
        );
        assert_eq!(found.map(|b| b.class), Some("known-naga-signed-op-on-uint"));
        // Another wrong word is not this bug.
        let mut other = wrong.clone();
        other.outputs[slot] ^= 1;
        assert!(explaining_among(
            known::KNOWN_MISMATCHES,
            &program,
            &expected,
            &other,
            &plan.inexact
        )
        .is_none());
    }
}

#[test]
fn the_validators_refusal_of_a_uint_negation_is_the_known_snegate_bug_and_only_that() {
    let said = "Function [0] '' is invalid: Expression [7] is invalid: Operation Negate can't \
                work with [3]";
    let bug = known::error(Step::Validator, said, &[]).expect("known");
    assert_eq!(bug.class, "known-naga-snegate-on-uint");
    // The same words from another step, or another refusal, are not it.
    assert!(known::error(Step::FrontEnd, said, &[]).is_none());
    assert!(known::error(Step::Validator, "Operation Not can't work with [3]", &[]).is_none());
}

/// One `txf` and one `tex`: the emitter's `OpImage` and `OpImageSampleExplicitLod` of an
/// `OpLoad` of a combined image sampler.
const TEXTURE_READS: [&str; 2] = [
    include_str!("../../../../docs/found-bugs/naga-loaded-combined-image-sampler-txf.ir"),
    include_str!("../../../../docs/found-bugs/naga-loaded-combined-image-sampler-tex.ir"),
];

#[test]
fn an_invalid_id_is_the_known_sampler_load_bug_only_when_the_module_loads_one_there() {
    for src in TEXTURE_READS {
        let module = driver::module::emit(&parsed(src), &emit_options()).unwrap();
        let e = round_trip(&module.words).unwrap_err();
        assert_eq!(e.step, Step::FrontEnd, "{e:?}");
        let f = naga_finding(e.clone(), &module.words);
        assert_eq!(
            f.class.as_deref(),
            Some("known-naga-loaded-combined-image-sampler"),
            "{f}"
        );
        // The same words naming another id of the module (the GLSL import's) are naga's, not
        // it.
        let other = NagaError {
            message: e
                .message
                .replace(&e.message[e.message.find('%').unwrap()..], "%1"),
            ..e.clone()
        };
        assert!(known::error(other.step, &other.message, &module.words).is_none());
        // Nor without the module.
        assert!(known::error(e.step, &e.message, &[]).is_none());
    }
}
