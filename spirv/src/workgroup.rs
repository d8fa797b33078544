//! Workgroups: the `LocalInvocationIndex` and `WorkgroupId` built-ins, the shared arrays and
//! barriers. A program whose dispatch has workgroups ([`Dispatch::has_workgroups`]) is
//! emitted alone with `LocalSize` its workgroup size, so the driver's workgroups are ours.
//!
//! * A shared array is a `Workgroup`-storage `uint[len + size]` (the last `size` words a
//!   sink, see [`prologue`]). Vulkan leaves workgroup memory undefined at the start (unless
//!   the device zero-initialises it on request), while ours starts at 0, so a prologue has
//!   each invocation zero the words `local + k * size` of every array and then waits at a
//!   barrier. Indices wrap at the length, as everywhere.
//! * `barrier` is GLSL's `barrier()`: `OpControlBarrier` at workgroup scope with
//!   acquire-release semantics on workgroup memory. It is only ever in the top-level list
//!   (the verifier's `barrier-placement`), where every invocation of a workgroup reaches it:
//!   the dispatch is whole workgroups, so no invocation returns early.
//! * Without workgroups the local id is 0, the workgroup id the invocation id, and a barrier
//!   orders nothing: nothing is declared.
//!
//! [`Dispatch::has_workgroups`]: sim::dispatch::Dispatch::has_workgroups

use crate::emitter::{need, Emitter, Workgroup};
use crate::memory::{component_of, compose, wrapped_index};
use crate::EmitError;
use compiler::ir::{InstKind, Value};
use rspirv::dr::Operand;
use rspirv::spirv::{self, Word};

/// Most words the shared arrays may take together: Vulkan's smallest
/// `maxComputeSharedMemorySize`, 16 KiB.
const MAX_SHARED_WORDS: u32 = 4096;

/// Most stores the zeroing prologue may unroll, per invocation.
const MAX_ZEROING_STORES: u32 = 64;

/// Declares the built-ins and shared arrays when the dispatch has workgroups; the input
/// variables the entry point must list.
pub(crate) fn declare(e: &mut Emitter) -> Result<Vec<Word>, EmitError> {
    let d = e.dispatch;
    if !d.has_workgroups() {
        return Ok(Vec::new());
    }
    let size = d.workgroup.max(1);
    // Each array with its sink (an empty array is not declared).
    let words: u64 = (d.shared.iter().filter(|&&l| l > 0))
        .map(|&l| u64::from(l) + u64::from(size))
        .sum();
    if words > u64::from(MAX_SHARED_WORDS) {
        return Err(EmitError::Unsupported(format!(
            "{words} words of shared arrays (a device need not have more than {MAX_SHARED_WORDS})"
        )));
    }
    let stores: u32 = d.shared.iter().map(|&l| l.div_ceil(size)).sum();
    if stores > MAX_ZEROING_STORES {
        return Err(EmitError::Unsupported(format!(
            "shared arrays needing {stores} zeroing stores per invocation"
        )));
    }
    let u = e.uvec(1);
    let uvec3 = e.uvec(3);
    let input = |e: &mut Emitter, ty: Word, builtin: spirv::BuiltIn| {
        let ptr = e.b.type_pointer(None, spirv::StorageClass::Input, ty);
        let var = e.b.variable(ptr, None, spirv::StorageClass::Input, None);
        e.b.decorate(var, spirv::Decoration::BuiltIn, [Operand::BuiltIn(builtin)]);
        var
    };
    // With subgroup operations the local id is the subgroup's numbering (`crate::subgroup`).
    let local = if e.subgroups.is_some() {
        spirv::BuiltIn::SubgroupLocalInvocationId
    } else {
        spirv::BuiltIn::LocalInvocationIndex
    };
    let local_var = input(e, u, local);
    let group_var = input(e, uvec3, spirv::BuiltIn::WorkgroupId);
    let mut arrays = Vec::new();
    for &len in &d.shared {
        // A zero-length array cannot be declared; it is never read or written (loads are 0).
        if len == 0 {
            arrays.push((0, 0));
            continue;
        }
        // The words past the end are the zeroing prologue's sink, one per invocation.
        let n = e.cu(len + size, 1);
        let array = e.b.type_array(u, n);
        let ptr =
            e.b.type_pointer(None, spirv::StorageClass::Workgroup, array);
        let var =
            e.b.variable(ptr, None, spirv::StorageClass::Workgroup, None);
        arrays.push((var, len));
    }
    e.workgroup = Some(Workgroup {
        local_var,
        group_var,
        arrays,
        local: 0,
        group: 0,
    });
    Ok(vec![local_var, group_var])
}

/// The prologue, in the function's entry block before anything else: load the built-ins,
/// zero this invocation's words of every shared array, then wait for the whole workgroup.
pub(crate) fn prologue(e: &mut Emitter) -> Result<(), EmitError> {
    let Some(mut w) = e.workgroup.take() else {
        return Ok(());
    };
    let u = e.uvec(1);
    let uvec3 = e.uvec(3);
    w.local = e.b.load(u, None, w.local_var, None, [])?;
    let group = e.b.load(uvec3, None, w.group_var, None, [])?;
    w.group = e.b.composite_extract(u, None, group, [0])?;
    let size = e.dispatch.workgroup.max(1);
    let zero = e.cu(0, 1);
    let bool_ty = e.bvec(1);
    for &(var, len) in &w.arrays {
        for k in 0..len.div_ceil(size) {
            let step = e.cu(k * size, 1);
            let at = e.b.i_add(u, None, w.local, step)?;
            // Only the last round can pass the end, and only when the length is not a
            // multiple of the size: an invocation past it zeroes its own word of the sink
            // after the array instead (another word would race with its owner's store).
            let at = if (k + 1) * size > len {
                let end = e.cu(len, 1);
                let sink = e.b.i_add(u, None, w.local, end)?;
                let over = e.b.u_less_than_equal(bool_ty, None, end, at)?;
                e.b.select(u, None, over, sink, at)?
            } else {
                at
            };
            let ptr = shared_ptr(e, var, at)?;
            e.b.store(ptr, zero, None, [])?;
        }
    }
    e.workgroup = Some(w);
    if !e.dispatch.shared.is_empty() {
        barrier(e)?;
    }
    Ok(())
}

/// With subgroup operations, the invocation id numbered by the subgroup: `workgroup * size +
/// local` (`crate::subgroup`); otherwise none (the global invocation id serves).
pub(crate) fn numbered_invocation(e: &mut Emitter) -> Result<Option<Word>, EmitError> {
    let (Some(w), Some(_)) = (e.workgroup.clone(), e.subgroups) else {
        return Ok(None);
    };
    let u = e.uvec(1);
    let size = e.cu(e.dispatch.workgroup.max(1), 1);
    let base = e.b.i_mul(u, None, w.group, size)?;
    Ok(Some(e.b.i_add(u, None, base, w.local)?))
}

/// `OpControlBarrier(Workgroup, Workgroup, AcquireRelease | WorkgroupMemory)`.
fn barrier(e: &mut Emitter) -> Result<(), EmitError> {
    let scope = e.cu(spirv::Scope::Workgroup as u32, 1);
    let semantics =
        spirv::MemorySemantics::ACQUIRE_RELEASE | spirv::MemorySemantics::WORKGROUP_MEMORY;
    let semantics = e.cu(semantics.bits(), 1);
    e.b.control_barrier(scope, scope, semantics)?;
    Ok(())
}

/// A pointer to word `at` of a shared array variable.
fn shared_ptr(e: &mut Emitter, var: Word, at: Word) -> Result<Word, EmitError> {
    let u = e.uvec(1);
    let ptr = e.b.type_pointer(None, spirv::StorageClass::Workgroup, u);
    Ok(e.b.access_chain(ptr, None, var, [at])?)
}

/// Emits a workgroup instruction: the ids, shared loads and stores, barriers.
pub(crate) fn emit(
    e: &mut Emitter,
    kind: &InstKind,
    result: Option<Value>,
) -> Result<(), EmitError> {
    let func = e.func;
    let w = e.workgroup.clone();
    match kind {
        InstKind::LocalId => {
            let v = need(result, "load_local_id")?;
            let id = match &w {
                Some(w) => w.local,
                None => e.cu(0, 1),
            };
            e.vals.insert(v, id);
        }
        InstKind::WorkgroupId => {
            let v = need(result, "load_workgroup_id")?;
            let id = w.as_ref().map_or(e.invocation, |w| w.group);
            e.vals.insert(v, id);
        }
        InstKind::Barrier => {
            if w.is_some() {
                barrier(e)?;
            }
        }
        InstKind::LoadShared { shared, index } => {
            let v = need(result, "load_shared")?;
            let t = func.ty(v);
            let (var, len) = array(&w, *shared)?;
            if len == 0 {
                let zeros = vec![0; t.comps() as usize];
                let id = e.const_vector(t, &zeros)?;
                e.vals.insert(v, id);
                return Ok(());
            }
            let index = component_of(e, *index, 0)?;
            let u = e.uvec(1);
            let mut parts = Vec::new();
            for c in 0..t.comps() {
                let at = wrapped_index(e, index, c, len)?;
                let ptr = shared_ptr(e, var, at)?;
                parts.push(e.b.load(u, None, ptr, None, [])?);
            }
            let id = compose(e, t, parts)?;
            e.vals.insert(v, id);
        }
        InstKind::StoreShared {
            shared,
            index,
            value,
        } => {
            let (var, len) = array(&w, *shared)?;
            if len == 0 {
                return Ok(());
            }
            let index = component_of(e, *index, 0)?;
            for c in 0..func.ty(*value).comps() {
                let at = wrapped_index(e, index, c, len)?;
                let ptr = shared_ptr(e, var, at)?;
                let x = component_of(e, *value, c)?;
                e.b.store(ptr, x, None, [])?;
            }
        }
        InstKind::AtomicShared {
            shared,
            op,
            index,
            value,
        } => {
            let v = need(result, "atomic_shared")?;
            let (var, len) = array(&w, *shared)?;
            let old = if len == 0 {
                e.cu(0, 1)
            } else {
                let index = component_of(e, *index, 0)?;
                let at = wrapped_index(e, index, 0, len)?;
                let ptr = shared_ptr(e, var, at)?;
                let x = e.val(*value)?;
                crate::atomic::apply(e, *op, ptr, spirv::Scope::Workgroup, x)?
            };
            e.vals.insert(v, old);
        }
        other => {
            return Err(EmitError::Invalid(format!(
                "{} is not a workgroup instruction",
                other.name()
            )))
        }
    }
    Ok(())
}

/// Shared array `a`'s variable and length.
fn array(w: &Option<Workgroup>, a: u32) -> Result<(Word, u32), EmitError> {
    w.as_ref()
        .and_then(|w| w.arrays.get(a as usize).copied())
        .ok_or_else(|| EmitError::Invalid(format!("no shared array {a}")))
}
