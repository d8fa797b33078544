//! Known naga bugs: rules over where naga stopped and what it said, and — for a wrong value
//! — models of the wrong translation (as `vulkan::known` has for drivers: the program
//! rewritten into what naga's module computes; the mismatch is that bug when the
//! interpreter's results for the rewrite equal the device's on every compared word). A
//! finding a rule recognises gets the bug's own bucket, counted and reported as that bug, so
//! that a new bug of the same step still gets a bucket of its own.

use super::Step;
use crate::targets::vulkan::known::{with_ops, KnownBug};
use compiler::ir::{AluOp, AtomicOp, InstKind, Program};

/// A naga bug recognised by the step that stops and its message.
pub struct KnownError {
    /// Its bucketing class (`known-naga-<what>`).
    pub class: &'static str,
    /// One line for reports: what naga does wrong.
    pub summary: &'static str,
    /// The step whose error it is.
    pub step: Step,
    /// Words of the message, any one of which makes it this bug.
    pub says: &'static [&'static str],
    /// For a message that names only an id (`invalid id %28`): what the module must hold at
    /// that id for it to be this bug.
    pub at_id: Option<fn(&spirv_emit::Definition) -> bool>,
}

/// naga's errors that are known bugs.
pub const KNOWN_ERRORS: &[KnownError] = &[KnownError {
    class: "known-naga-logical-op-on-bool-vectors",
    summary: "naga's SPIR-V front end turns OpLogicalAnd/OpLogicalOr on bool vectors into \
              LogicalAnd/LogicalOr, which its own validator accepts only on scalars since \
              wgpu#7368 (naga 30.0.2, front/spv/next_block.rs; docs/found-bugs/naga-logical-op-on-bool-vectors.md)",
    step: Step::Validator,
    says: &[
        "Incompatible operands: LogicalAnd(Vector",
        "Incompatible operands: LogicalOr(Vector",
    ],
    at_id: None,
}, KnownError {
    class: "known-naga-snegate-on-uint",
    summary: "naga's SPIR-V front end turns OpSNegate of a uint into Negate of a u32, which its \
              own validator refuses (naga 30.0.2; docs/found-bugs/naga-snegate-on-uint.md)",
    step: Step::Validator,
    // Our emitter negates only 32-bit integers (floats flip the sign bit as integers).
    says: &["Operation Negate can't work with"],
    at_id: None,
}, KnownError {
    class: "known-naga-loaded-combined-image-sampler",
    summary: "naga's SPIR-V front end takes no OpLoad of a combined image sampler: the OpImage \
              (txf, gather) or OpImageSampleExplicitLod (tex) that reads it stops with \
              \"invalid id\" naming the load (naga 30.0.2; \
              docs/found-bugs/naga-loaded-combined-image-sampler.md)",
    step: Step::FrontEnd,
    says: &["invalid id %"],
    at_id: Some(|d| d.op == "OpLoad" && d.type_op.as_deref() == Some("OpTypeSampledImage")),
}];

/// naga's wrong translations that are known bugs (see the module's text).
pub const KNOWN_MISMATCHES: &[KnownBug] = &[KnownBug {
    class: "known-naga-signed-op-on-uint",
    summary: "naga's SPIR-V front end takes an operation's signedness from its operands' type, \
              not the opcode: GLSL.std.450 SMin/SMax/FindSMsb, OpShiftRightArithmetic, OpSDiv \
              and OpBitFieldSExtract on uint operands become UMin/UMax/FindUMsb, \
              OpShiftRightLogical, OpUDiv and OpBitFieldUExtract, OpAtomicSMin/SMax on a uint \
              pointer atomic Min/Max of u32 (naga 30.0.2, front/spv/next_block.rs; \
              docs/found-bugs/naga-signed-op-on-uint.md)",
    rewrite: signed_as_unsigned,
}];

/// `p` with every signed operation naga reads as unsigned made unsigned (`None` without one):
/// the ALU ops, and the atomics' `imin`/`imax`.
fn signed_as_unsigned(p: &Program) -> Option<Program> {
    let alu = with_ops(
        p,
        &[
            (AluOp::Imin, AluOp::Umin),
            (AluOp::Imax, AluOp::Umax),
            (AluOp::Ishr, AluOp::Ushr),
            // The emitter's guard keeps `INT_MIN / -1` from the division (it divides by 1
            // instead), which `udiv` does not model: that one case stays unexplained.
            (AluOp::Idiv, AluOp::Udiv),
            (AluOp::IfindMsb, AluOp::UfindMsb),
            (AluOp::IbitfieldExtract, AluOp::UbitfieldExtract),
        ],
    );
    let mut touched = alu.is_some();
    let mut q = alu.unwrap_or_else(|| p.clone());
    for inst in q.func.insts.values_mut() {
        if let InstKind::AtomicBuffer { op, .. } | InstKind::AtomicShared { op, .. } =
            &mut inst.kind
        {
            *op = match *op {
                AtomicOp::Imin => AtomicOp::Umin,
                AtomicOp::Imax => AtomicOp::Umax,
                _ => continue,
            };
            touched = true;
        }
    }
    touched.then_some(q)
}

/// The known bug naga's error at `step` saying `message` about the module `words` is, if one.
pub fn error(step: Step, message: &str, words: &[u32]) -> Option<&'static KnownError> {
    KNOWN_ERRORS.iter().find(|k| {
        k.step == step
            && k.says.iter().any(|s| message.contains(s))
            && k.at_id.is_none_or(|holds| {
                named_id(message)
                    .and_then(|id| spirv_emit::definition(words, id).ok().flatten())
                    .is_some_and(|d| holds(&d))
            })
    })
}

/// The id a message names as `%N` (its first).
fn named_id(message: &str) -> Option<u32> {
    let (_, after) = message.split_once('%')?;
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}
