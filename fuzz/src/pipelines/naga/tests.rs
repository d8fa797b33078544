//! naga's failures bucketed by step, and naga refusing invalid SPIR-V blamed on us. (Its runs
//! on the device need the worker binary: `triage/tests/naga.rs`.)

use super::*;

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
