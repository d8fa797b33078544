//! Subgroup operations: one `OpGroupNonUniform*` at `Subgroup` scope per IR operation.
//!
//! The IR's subgroup is its workgroup, numbered by local id, and the invocations active at an
//! operation are those that reach it together under maximal reconvergence
//! (`docs/semantics.md`). Vulkan gives neither for free, so a module with subgroup operations
//! asks for both:
//! * the pipeline requires a subgroup size equal to the workgroup size with full subgroups
//!   (`VK_EXT_subgroup_size_control`): each workgroup is then exactly one subgroup, with every
//!   invocation in it;
//! * Vulkan relates `SubgroupLocalInvocationId` to no other id, so the IR's local id *is*
//!   `SubgroupLocalInvocationId`, and the invocation id `workgroup * size + local` (how the
//!   spec's note says an application numbers its invocations with full subgroups): a driver
//!   may place invocations in a subgroup in any order, and each still computes, and stores
//!   to, what the IR invocation of that number does;
//! * the entry point is `MaximallyReconvergesKHR` (`SPV_KHR_maximal_reconvergence`), so
//!   divergent operations see the invocations the interpreter's lockstep does.
//!
//! The runner refuses a device that cannot honour any of it (`SubgroupNeeds`, in the
//! interface).

use crate::emitter::{need, Emitter};
use crate::interface::{features, SubgroupNeeds};
use crate::EmitError;
use compiler::ir::{AtomicOp, SubgroupOp, Value};
use rspirv::spirv::{self, GroupOperation, Word};

/// The capabilities of `needs` (and the extension of maximal reconvergence, when asked for),
/// in the module header.
pub(crate) fn declare(e: &mut Emitter, needs: SubgroupNeeds, maximal_reconvergence: bool) {
    if maximal_reconvergence {
        e.b.extension("SPV_KHR_maximal_reconvergence");
    }
    e.b.capability(spirv::Capability::GroupNonUniform);
    for (bit, cap) in [
        (
            features::ARITHMETIC,
            spirv::Capability::GroupNonUniformArithmetic,
        ),
        (features::BALLOT, spirv::Capability::GroupNonUniformBallot),
        (features::SHUFFLE, spirv::Capability::GroupNonUniformShuffle),
    ] {
        if needs.operations & bit != 0 {
            e.b.capability(cap);
        }
    }
}

/// `OpExecutionMode main MaximallyReconvergesKHR`.
pub(crate) fn execution_mode(e: &mut Emitter, main: Word) {
    e.b.execution_mode(main, spirv::ExecutionMode::MaximallyReconvergesKHR, []);
}

/// Emits one subgroup operation.
pub(crate) fn emit(
    e: &mut Emitter,
    op: SubgroupOp,
    args: &[Value; 2],
    result: Option<Value>,
) -> Result<(), EmitError> {
    let v = need(result, op.mnemonic())?;
    let scope = e.cu(spirv::Scope::Subgroup as u32, 1);
    let u = e.uvec(1);
    let id = match op {
        SubgroupOp::Reduce(c) => combine(e, c, GroupOperation::Reduce, args[0])?,
        SubgroupOp::InclusiveScan(c) => combine(e, c, GroupOperation::InclusiveScan, args[0])?,
        SubgroupOp::ExclusiveScan(c) => combine(e, c, GroupOperation::ExclusiveScan, args[0])?,
        SubgroupOp::Ballot => {
            let cond = e.val(args[0])?;
            let uvec4 = e.uvec(4);
            let mask = e.b.group_non_uniform_ballot(uvec4, None, scope, cond)?;
            // Invocations are numbered below the subgroup size, at most 8 here: word 0.
            e.b.composite_extract(u, None, mask, [0])?
        }
        SubgroupOp::Elect => {
            let bool_ty = e.bvec(1);
            e.b.group_non_uniform_elect(bool_ty, None, scope)?
        }
        SubgroupOp::Shuffle => {
            let (x, from) = (e.val(args[0])?, e.val(args[1])?);
            e.b.group_non_uniform_shuffle(u, None, scope, x, from)?
        }
        SubgroupOp::BroadcastFirst => {
            let x = e.val(args[0])?;
            e.b.group_non_uniform_broadcast_first(u, None, scope, x)?
        }
    };
    e.vals.insert(v, id);
    Ok(())
}

/// A reduction or scan of `value` with `op`.
fn combine(
    e: &mut Emitter,
    op: AtomicOp,
    group: GroupOperation,
    value: Value,
) -> Result<Word, EmitError> {
    let u = e.uvec(1);
    let scope = e.cu(spirv::Scope::Subgroup as u32, 1);
    let x = e.val(value)?;
    let b = &mut e.b;
    let id = match op {
        AtomicOp::Add => b.group_non_uniform_i_add(u, None, scope, group, x, None),
        AtomicOp::Umin => b.group_non_uniform_u_min(u, None, scope, group, x, None),
        AtomicOp::Umax => b.group_non_uniform_u_max(u, None, scope, group, x, None),
        AtomicOp::Imin => b.group_non_uniform_s_min(u, None, scope, group, x, None),
        AtomicOp::Imax => b.group_non_uniform_s_max(u, None, scope, group, x, None),
        AtomicOp::And => b.group_non_uniform_bitwise_and(u, None, scope, group, x, None),
        AtomicOp::Or => b.group_non_uniform_bitwise_or(u, None, scope, group, x, None),
        AtomicOp::Xor => b.group_non_uniform_bitwise_xor(u, None, scope, group, x, None),
        AtomicOp::Xchg => {
            return Err(EmitError::Invalid(
                "xchg is not a combining operation".into(),
            ))
        }
    }?;
    Ok(id)
}
