//! Atomics: one `OpAtomic*` per IR operation, relaxed (semantics `None`: the IR's atomics
//! order nothing; barriers do), at `Workgroup` scope on shared arrays and `Device` scope on
//! buffers. 32-bit integer atomics on `StorageBuffer` and `Workgroup` storage need no
//! capability or device feature in Vulkan.

use crate::emitter::Emitter;
use crate::EmitError;
use compiler::ir::AtomicOp;
use rspirv::spirv::{self, Word};

/// Applies `op` with `value` to the `uint` `ptr` points at; the old word.
pub(crate) fn apply(
    e: &mut Emitter,
    op: AtomicOp,
    ptr: Word,
    scope: spirv::Scope,
    value: Word,
) -> Result<Word, EmitError> {
    let u = e.uvec(1);
    let scope = e.cu(scope as u32, 1);
    let relaxed = e.cu(spirv::MemorySemantics::RELAXED.bits(), 1);
    let b = &mut e.b;
    let old = match op {
        AtomicOp::Add => b.atomic_i_add(u, None, ptr, scope, relaxed, value),
        AtomicOp::Umin => b.atomic_u_min(u, None, ptr, scope, relaxed, value),
        AtomicOp::Umax => b.atomic_u_max(u, None, ptr, scope, relaxed, value),
        AtomicOp::Imin => b.atomic_s_min(u, None, ptr, scope, relaxed, value),
        AtomicOp::Imax => b.atomic_s_max(u, None, ptr, scope, relaxed, value),
        AtomicOp::And => b.atomic_and(u, None, ptr, scope, relaxed, value),
        AtomicOp::Or => b.atomic_or(u, None, ptr, scope, relaxed, value),
        AtomicOp::Xor => b.atomic_xor(u, None, ptr, scope, relaxed, value),
        AtomicOp::Xchg => b.atomic_exchange(u, None, ptr, scope, relaxed, value),
    }?;
    Ok(old)
}
