//! Everything that reads or writes memory: uniforms, buffers, outputs, local variables
//! through derefs, registers and textures. Every index is wrapped or clamped in the shader
//! exactly as `docs/semantics.md` says, so no access is ever out of bounds.
//!
//! * Uniforms, buffers and outputs are `uint` storage buffers; an invocation's part of a
//!   buffer or of the outputs starts at `invocation * len`.
//! * A local variable is one flat `uint[words + 1]` in `Function` storage, zero-initialised,
//!   reached with `OpAccessChain`; a deref is its word offset as an SSA `uint` (so
//!   `deref_cast` is free and exact). The extra last word is a sink: a store past the
//!   variable's end goes there and a load past the end selects 0 — both only reachable in
//!   unverified programs, but never undefined.
//! * A register is a `Function` variable of its type, zero-initialised.
//! * `txf` clamps lod and layer (`SMax`/`SMin`) and wraps x and y (Euclidean remainder by the level
//!   size, from `OpUMod` of the magnitude), then `OpImageFetch`es. `tex` computes our nearest texel (`sample_coords`) the same
//!   way and samples it at its centre with an explicit integer `Lod` through the nearest sampler, so
//!   the sampler hardware reads exactly that texel.

use crate::alu::{canonical, float_to_int, min_max};
use crate::emitter::{image_type, need, sampled_image_type, Emitter};
use crate::interface::StorageRole;
use crate::EmitError;
use compiler::ir::{deref_type, InstKind, TexDim, TexParams, Type, Value, VarType};
use rspirv::dr::Operand;
use rspirv::spirv::{self, GlslStd450Op, Word};

/// Largest local variable emitted (words); the interpreter allows more, drivers choke.
const MAX_LOCAL_WORDS: u32 = 1 << 16;

/// Declares the local variables and registers (they must open the entry block).
pub(crate) fn declare_locals(e: &mut Emitter) -> Result<(), EmitError> {
    let func = e.func;
    let u = e.uvec(1);
    for (var, ty) in func.vars.iter() {
        let words = ty.words();
        if words > MAX_LOCAL_WORDS {
            return Err(EmitError::Unsupported(format!(
                "{var}: a local variable of {words} words"
            )));
        }
        let len = e.cu(words + 1, 1);
        let array = e.b.type_array(u, len);
        let ptr = e.b.type_pointer(None, spirv::StorageClass::Function, array);
        let null = e.b.constant_null(array);
        let id =
            e.b.variable(ptr, None, spirv::StorageClass::Function, Some(null));
        e.vars.insert(var, id);
    }
    for (reg, &ty) in func.regs.iter() {
        let t = e.data_type(ty)?;
        let ptr = e.b.type_pointer(None, spirv::StorageClass::Function, t);
        let null = e.b.constant_null(t);
        let id =
            e.b.variable(ptr, None, spirv::StorageClass::Function, Some(null));
        e.regs.insert(reg, id);
    }
    Ok(())
}

/// Emits a memory instruction (anything but constants, ALU, vec, mov, phis and jumps).
pub(crate) fn emit_memory(
    e: &mut Emitter,
    kind: &InstKind,
    result: Option<Value>,
) -> Result<(), EmitError> {
    let func = e.func;
    match kind {
        InstKind::LoadUniform { index } => {
            let v = need(result, "load_uniform")?;
            let len = e.dispatch.uniforms.len() as u32;
            let id = load_words(e, StorageRole::Uniforms, None, len, *index, func.ty(v))?;
            e.vals.insert(v, id);
        }
        InstKind::LoadBuffer { buffer, index } => {
            let v = need(result, "load_buffer")?;
            let len = buffer_len(e, *buffer)?;
            let role = StorageRole::Buffer(*buffer);
            let id = load_words(e, role, Some(len), len, *index, func.ty(v))?;
            e.vals.insert(v, id);
        }
        InstKind::StoreBuffer {
            buffer,
            index,
            value,
        } => {
            let len = buffer_len(e, *buffer)?;
            if len == 0 || e.dispatch.invocations == 0 {
                return Ok(());
            }
            let base = invocation_base(e, len)?;
            let index = e.val(*index)?;
            for c in 0..func.ty(*value).comps() {
                let word = wrapped_index(e, index, c, len)?;
                let u = e.uvec(1);
                let at = e.b.i_add(u, None, base, word)?;
                let ptr = storage_ptr(e, StorageRole::Buffer(*buffer), at)?;
                let x = component_of(e, *value, c)?;
                e.b.store(ptr, x, None, [])?;
            }
        }
        InstKind::AtomicBuffer {
            buffer,
            op,
            index,
            value,
        } => {
            let v = need(result, "atomic_buffer")?;
            let len = buffer_len(e, *buffer)?;
            let old = if len == 0 || e.dispatch.invocations == 0 {
                e.cu(0, 1)
            } else {
                let base = invocation_base(e, len)?;
                let index = e.val(*index)?;
                let word = wrapped_index(e, index, 0, len)?;
                let u = e.uvec(1);
                let at = e.b.i_add(u, None, base, word)?;
                let ptr = storage_ptr(e, StorageRole::Buffer(*buffer), at)?;
                let x = e.val(*value)?;
                crate::atomic::apply(e, *op, ptr, spirv::Scope::Device, x)?
            };
            e.vals.insert(v, old);
        }
        InstKind::StoreOutput { slot, value } => {
            let outputs = e.dispatch.outputs;
            if outputs == 0 || e.dispatch.invocations == 0 {
                return Ok(());
            }
            let base = invocation_base(e, outputs)?;
            for c in 0..func.ty(*value).comps() {
                let word = e.cu(slot.wrapping_add(u32::from(c)) % outputs, 1);
                let u = e.uvec(1);
                let at = e.b.i_add(u, None, base, word)?;
                let ptr = storage_ptr(e, StorageRole::Outputs, at)?;
                let x = component_of(e, *value, c)?;
                e.b.store(ptr, x, None, [])?;
            }
        }
        InstKind::DerefVar { var } => {
            let v = need(result, "deref_var")?;
            let zero = e.cu(0, 1);
            e.derefs.insert(v, (*var, zero));
        }
        InstKind::DerefArray { parent, index } => {
            let v = need(result, "deref_array")?;
            let (var, offset) = deref(e, *parent)?;
            let Some(VarType::Array(elem, len)) = deref_type(func, *parent) else {
                return Err(EmitError::Invalid(format!(
                    "{v}: deref_array of a non-array"
                )));
            };
            if len == 0 {
                return Err(EmitError::Invalid(format!("{v}: an array of length 0")));
            }
            let u = e.uvec(1);
            let index = component_of(e, *index, 0)?;
            let len = e.cu(len, 1);
            let element = e.b.u_mod(u, None, index, len)?;
            let stride = e.cu(elem.words(), 1);
            let step = e.b.i_mul(u, None, element, stride)?;
            let offset = e.b.i_add(u, None, offset, step)?;
            e.derefs.insert(v, (var, offset));
        }
        InstKind::DerefStruct { parent, field } => {
            let v = need(result, "deref_struct")?;
            let (var, offset) = deref(e, *parent)?;
            let Some(field_offset) = deref_type(func, *parent).and_then(|t| t.field_offset(*field))
            else {
                return Err(EmitError::Invalid(format!(
                    "{v}: a field that does not exist"
                )));
            };
            let u = e.uvec(1);
            let step = e.cu(field_offset, 1);
            let offset = e.b.i_add(u, None, offset, step)?;
            e.derefs.insert(v, (var, offset));
        }
        InstKind::DerefCast { parent, .. } => {
            let v = need(result, "deref_cast")?;
            let d = deref(e, *parent)?;
            e.derefs.insert(v, d);
        }
        InstKind::LoadDeref { deref: d } => {
            let v = need(result, "load_deref")?;
            let t = func.ty(v);
            let (var, offset) = deref(e, *d)?;
            let mut parts = Vec::new();
            for c in 0..t.comps() {
                let (ptr, in_range) = local_word(e, var, offset, c)?;
                let u = e.uvec(1);
                let x = e.b.load(u, None, ptr, None, [])?;
                let zero = e.cu(0, 1);
                parts.push(e.b.select(u, None, in_range, x, zero)?);
            }
            let id = compose(e, t, parts)?;
            e.vals.insert(v, id);
        }
        InstKind::StoreDeref { deref: d, value } => {
            let (var, offset) = deref(e, *d)?;
            for c in 0..func.ty(*value).comps() {
                let (ptr, _) = local_word(e, var, offset, c)?;
                let x = component_of(e, *value, c)?;
                e.b.store(ptr, x, None, [])?;
            }
        }
        InstKind::LoadReg { reg } => {
            let v = need(result, "load_reg")?;
            let ty = e.data_type(func.ty(v))?;
            let var = *e
                .regs
                .get(reg)
                .ok_or_else(|| EmitError::Invalid(format!("{reg} is not declared")))?;
            let id = e.b.load(ty, None, var, None, [])?;
            e.vals.insert(v, id);
        }
        InstKind::StoreReg { reg, value } => {
            let var = *e
                .regs
                .get(reg)
                .ok_or_else(|| EmitError::Invalid(format!("{reg} is not declared")))?;
            let x = e.val(*value)?;
            e.b.store(var, x, None, [])?;
        }
        InstKind::Txf { params, .. }
        | InstKind::Tex { params, .. }
        | InstKind::Txs { params, .. }
            if !mapped_shape(params) =>
        {
            return Err(EmitError::Unsupported(format!(
                "{} of a cube (the emitter does not map cubes)",
                kind.name(),
            )))
        }
        InstKind::Txs { texture, params } => {
            let v = need(result, "txs")?;
            let id = size(e, *texture, params)?;
            e.vals.insert(v, id);
        }
        InstKind::Txf {
            texture,
            coord,
            params,
        } => {
            let v = need(result, "txf")?;
            let id = fetch(e, *texture, *coord, params)?;
            e.vals.insert(v, id);
        }
        InstKind::Tex {
            texture,
            coord,
            params,
        } => {
            let v = need(result, "tex")?;
            let id = match params.gather {
                Some(c) => gather(e, *texture, *coord, params, c)?,
                None => sample(e, *texture, *coord, params)?,
            };
            e.vals.insert(v, id);
        }
        k => {
            return Err(EmitError::Unsupported(format!(
                "{} in the memory emitter",
                k.name()
            )))
        }
    }
    Ok(())
}

/// Whether the emitter maps a texture instruction's shape exactly: everything but cubes (the
/// face choice divides, and OpFDiv is not exact in Vulkan), which are refused, so the Vulkan
/// pipeline skips such programs rather than reporting them.
fn mapped_shape(p: &TexParams) -> bool {
    p.dim != TexDim::Cube
}

fn buffer_len(e: &Emitter, buffer: u32) -> Result<u32, EmitError> {
    e.dispatch
        .buffers
        .get(buffer as usize)
        .copied()
        .ok_or_else(|| EmitError::Invalid(format!("buffer {buffer} is not declared")))
}

/// Component `c` of an IR value.
pub(crate) fn component_of(e: &mut Emitter, v: Value, c: u8) -> Result<Word, EmitError> {
    let id = e.val(v)?;
    e.component(id, e.func.ty(v), u32::from(c))
}

/// A vector of type `t` from its components.
pub(crate) fn compose(e: &mut Emitter, t: Type, parts: Vec<Word>) -> Result<Word, EmitError> {
    if parts.len() == 1 {
        return Ok(parts[0]);
    }
    let ty = e.data_type(t)?;
    Ok(e.b.composite_construct(ty, None, parts)?)
}

/// `invocation * len`: where this invocation's part of a buffer or the outputs starts.
fn invocation_base(e: &mut Emitter, len: u32) -> Result<Word, EmitError> {
    let u = e.uvec(1);
    let len = e.cu(len, 1);
    Ok(e.b.i_mul(u, None, e.invocation, len)?)
}

/// `(index + c) % len` (wrapping add, unsigned modulo; `len` > 0).
pub(crate) fn wrapped_index(
    e: &mut Emitter,
    index: Word,
    c: u8,
    len: u32,
) -> Result<Word, EmitError> {
    let u = e.uvec(1);
    let index = if c == 0 {
        index
    } else {
        let c = e.cu(u32::from(c), 1);
        e.b.i_add(u, None, index, c)?
    };
    let len = e.cu(len, 1);
    Ok(e.b.u_mod(u, None, index, len)?)
}

/// A pointer to word `at` of a storage binding.
fn storage_ptr(e: &mut Emitter, role: StorageRole, at: Word) -> Result<Word, EmitError> {
    let Some((binding, offset)) = e.place.storage(role) else {
        return Err(EmitError::Invalid(format!("no binding for {role:?}")));
    };
    let var = e.binding_vars[binding as usize];
    let u = e.uvec(1);
    // A fused program's part starts at `offset` (0 alone, and for the first program with one).
    let at = match offset {
        0 => at,
        offset => {
            let offset = e.cu(offset, 1);
            e.b.i_add(u, None, at, offset)?
        }
    };
    let ptr =
        e.b.type_pointer(None, spirv::StorageClass::StorageBuffer, u);
    let zero = e.cu(0, 1);
    Ok(e.b.access_chain(ptr, None, var, [zero, at])?)
}

/// `load_uniform`/`load_buffer`: component `c` is word `(index + c) % len` of the binding's
/// part starting at `invocation * part` (`part` none for the shared uniforms); 0 if `len` is 0.
fn load_words(
    e: &mut Emitter,
    role: StorageRole,
    part: Option<u32>,
    len: u32,
    index: Value,
    t: Type,
) -> Result<Word, EmitError> {
    if len == 0 || e.dispatch.invocations == 0 {
        let zeros = vec![0; t.comps() as usize];
        return e.const_vector(t, &zeros);
    }
    let base = part.map(|p| invocation_base(e, p)).transpose()?;
    let index = component_of(e, index, 0)?;
    let u = e.uvec(1);
    let mut parts = Vec::new();
    for c in 0..t.comps() {
        let mut at = wrapped_index(e, index, c, len)?;
        if let Some(base) = base {
            at = e.b.i_add(u, None, base, at)?;
        }
        let ptr = storage_ptr(e, role, at)?;
        parts.push(e.b.load(u, None, ptr, None, [])?);
    }
    compose(e, t, parts)
}

fn deref(e: &Emitter, d: Value) -> Result<(compiler::ir::Var, Word), EmitError> {
    e.derefs
        .get(&d)
        .copied()
        .ok_or_else(|| EmitError::Invalid(format!("{d} is not an emitted deref")))
}

/// A pointer to word `offset + c` of a local variable (the sink word past its end) and
/// whether that word is inside the variable.
fn local_word(
    e: &mut Emitter,
    var: compiler::ir::Var,
    offset: Word,
    c: u8,
) -> Result<(Word, Word), EmitError> {
    let words = e
        .func
        .vars
        .get(var)
        .map(VarType::words)
        .ok_or_else(|| EmitError::Invalid(format!("{var} is not declared")))?;
    let (u, bt) = (e.uvec(1), e.bvec(1));
    let at = if c == 0 {
        offset
    } else {
        let c = e.cu(u32::from(c), 1);
        e.b.i_add(u, None, offset, c)?
    };
    let end = e.cu(words, 1);
    let in_range = e.b.u_less_than(bt, None, at, end)?;
    let safe = e.b.select(u, None, in_range, at, end)?;
    let ptr_ty = e.b.type_pointer(None, spirv::StorageClass::Function, u);
    let ptr = e.b.access_chain(ptr_ty, None, e.vars[&var], [safe])?;
    Ok((ptr, in_range))
}

/// The loaded combined image sampler of texture `t` and its shape.
fn texture(e: &mut Emitter, t: u32) -> Result<(Word, sim::semantics::TextureDesc), EmitError> {
    let desc = *e
        .dispatch
        .textures
        .get(t as usize)
        .ok_or_else(|| EmitError::Invalid(format!("texture {t} is not declared")))?;
    let binding = e
        .place
        .texture(t)
        .ok_or_else(|| EmitError::Invalid(format!("no binding for texture {t}")))?;
    let var = e.binding_vars[binding as usize];
    let ty = sampled_image_type(&mut e.b);
    Ok((e.b.load(ty, None, var, None, [])?, desc))
}

/// `clamp(x as i32, 0, count - 1)`, as `SMin(SMax(x, 0), count - 1)`: spirv-opt's constant
/// folding (2022-era, `gpufuzz fuzz --seed 13 --target vulkan`, input 16) folds a `SClamp` of
/// `uint`-typed operands as an unsigned clamp, so a negative constant layer became the last
/// layer.
fn clamp_index(e: &mut Emitter, x: Word, count: u32) -> Result<Word, EmitError> {
    let u = e.uvec(1);
    let (zero, last) = (e.cu(0, 1), e.cu(count - 1, 1));
    let low = e.glsl(u, GlslStd450Op::SMax, &[x, zero])?;
    e.glsl(u, GlslStd450Op::SMin, &[low, last])
}

/// The size of level `lod` in one dimension: `max(1, size >> lod)`.
fn level_size(e: &mut Emitter, size: u32, lod: Word) -> Result<Word, EmitError> {
    let u = e.uvec(1);
    let size = e.cu(size, 1);
    let shifted = e.b.shift_right_logical(u, None, size, lod)?;
    let one = e.cu(1, 1);
    e.glsl(u, GlslStd450Op::UMax, &[shifted, one])
}

/// `x` wrapped (Euclidean) at `size` (≥ 1, below 2^31) as a signed integer, from `OpUMod` of
/// its magnitude: `size - r` when `x` is negative and `r` non-zero. Neither `OpSRem` nor
/// `OpSMod`: Vulkan leaves both undefined for a negative operand without `maintenance8`
/// (and `OpSMod` stays the program's own op to test where `maintenance8` is on).
fn wrap(e: &mut Emitter, x: Word, size: Word) -> Result<Word, EmitError> {
    let (u, bt) = (e.uvec(1), e.bvec(1));
    let zero = e.cu(0, 1);
    let negative = e.b.s_less_than(bt, None, x, zero)?;
    let negated = e.b.s_negate(u, None, x)?;
    let magnitude = e.b.select(u, None, negative, negated, x)?;
    let r = e.b.u_mod(u, None, magnitude, size)?;
    let nonzero = e.b.i_not_equal(bt, None, r, zero)?;
    let lift = e.b.logical_and(bt, None, negative, nonzero)?;
    let lifted = e.b.i_sub(u, None, size, r)?;
    Ok(e.b.select(u, None, lift, lifted, r)?)
}

/// Adds texel offset `k` of `params` (if nonzero) to integer coordinate `x`.
fn offset_by(e: &mut Emitter, x: Word, params: &TexParams, k: usize) -> Result<Word, EmitError> {
    match params.offset[k] {
        0 => Ok(x),
        o => {
            let u = e.uvec(1);
            let o = e.cu(o as i32 as u32, 1);
            Ok(e.b.i_add(u, None, x, o)?)
        }
    }
}

/// `txf`: `texture_result`'s fetch rule in the shader (offsets added, then wrapped; a 3D
/// `z` in the layer slot, wrapped at the level's depth), then `OpImageFetch`.
fn fetch(e: &mut Emitter, t: u32, coord: Value, params: &TexParams) -> Result<Word, EmitError> {
    let (sampled, desc) = texture(e, t)?;
    let dim = params.dim;
    let lod = e.scalar_or_zero(params.lod())?;
    let lod = clamp_index(e, lod, desc.levels)?;
    let w = level_size(e, desc.width, lod)?;
    let h = level_size(e, desc.height, lod)?;
    let x = component_of(e, coord, 0)?;
    let x = offset_by(e, x, params, 0)?;
    let x = wrap(e, x, w)?;
    let y = if dim.coords() >= 2 {
        let y = component_of(e, coord, 1)?;
        let y = offset_by(e, y, params, 1)?;
        wrap(e, y, h)?
    } else {
        e.cu(0, 1)
    };
    let slot = if dim == TexDim::D3 {
        let d = level_size(e, desc.layers, lod)?;
        let z = component_of(e, coord, 2)?;
        let z = offset_by(e, z, params, 2)?;
        wrap(e, z, d)?
    } else {
        let layer = e.scalar_or_zero(params.layer())?;
        clamp_index(e, layer, desc.layers)?
    };
    let uvec3 = e.uvec(3);
    let at = e.b.composite_construct(uvec3, None, [x, y, slot])?;
    let image_ty = image_type(&mut e.b);
    let image = e.b.image(image_ty, None, sampled)?;
    let uvec4 = e.uvec(4);
    Ok(e.b.image_fetch(
        uvec4,
        None,
        image,
        at,
        Some(spirv::ImageOperands::LOD),
        [Operand::IdRef(lod)],
    )?)
}

/// `tex`: `texture_result`'s sample rule in the shader (nearest texel plus offset, wrapped; 1D
/// at row 0; a 3D `z` in the layer slot), then a sample at that texel's centre with an
/// explicit integer lod; with a compare, the compare result in the shader.
fn sample(e: &mut Emitter, t: u32, coord: Value, params: &TexParams) -> Result<Word, EmitError> {
    let (sampled, desc) = texture(e, t)?;
    let dim = params.dim;
    let f = e.fvec(1);
    let as_float = |e: &mut Emitter, x: Word| e.b.bitcast(f, None, x);
    let lod = e.scalar_or_zero(params.lod())?;
    let bias = e.scalar_or_zero(params.bias())?;
    let layer = e.scalar_or_zero(params.layer())?;
    let (lod, bias, layer) = (as_float(e, lod)?, as_float(e, bias)?, as_float(e, layer)?);
    let level = match params.grad() {
        Some((dx, dy)) => grad_level(e, &desc, dim, dx, dy)?,
        None => {
            // floor(lod + bias): a NaN sum converts to 0 either way, so no canonicalisation.
            let sum = e.b.f_add(f, None, lod, bias)?;
            let sum = e.no_contraction(sum);
            let level = e.glsl(f, GlslStd450Op::Floor, &[sum])?;
            float_to_int(e, level, true, 1)?
        }
    };
    let level = clamp_index(e, level, desc.levels)?;
    // The nearest texel of float coordinate `c` on an axis of `size` texels, offset, wrapped.
    let nearest = |e: &mut Emitter, c: u8, size: Word| -> Result<Word, EmitError> {
        let size_f = e.b.convert_u_to_f(f, None, size)?;
        let x = component_of(e, coord, c)?;
        let x = as_float(e, x)?;
        let scaled = e.b.f_mul(f, None, x, size_f)?;
        let scaled = e.no_contraction(scaled);
        let texel = e.glsl(f, GlslStd450Op::Floor, &[scaled])?;
        let texel = float_to_int(e, texel, true, 1)?;
        let texel = offset_by(e, texel, params, c as usize)?;
        wrap(e, texel, size)
    };
    let slot = if dim == TexDim::D3 {
        let d = level_size(e, desc.layers, level)?;
        nearest(e, 2, d)?
    } else {
        let layer = e.glsl(f, GlslStd450Op::RoundEven, &[layer])?;
        let layer = float_to_int(e, layer, true, 1)?;
        clamp_index(e, layer, desc.layers)?
    };
    let mut centre = Vec::new();
    let image_width = crate::interface::image_width(&desc);
    for (c, size, image_size) in [(0, desc.width, image_width), (1, desc.height, desc.height)] {
        let size = level_size(e, size, level)?;
        let texel = if u32::from(c) < dim.coords() {
            nearest(e, c, size)?
        } else {
            e.cu(0, 1)
        };
        let texel = e.b.convert_u_to_f(f, None, texel)?;
        let half = e.cf(0.5, 1);
        let mid = e.b.f_add(f, None, texel, half)?;
        let mid = e.no_contraction(mid);
        // Normalised by the image level's size, which may be wider than ours.
        let image_size = level_size(e, image_size, level)?;
        let image_size = e.b.convert_u_to_f(f, None, image_size)?;
        let at = e.b.f_div(f, None, mid, image_size)?;
        centre.push(e.no_contraction(at));
    }
    centre.push(e.b.convert_u_to_f(f, None, slot)?);
    let vec3 = e.fvec(3);
    let at = e.b.composite_construct(vec3, None, centre)?;
    let lod = e.b.convert_u_to_f(f, None, level)?;
    let uvec4 = e.uvec(4);
    let texel = e.b.image_sample_explicit_lod(
        uvec4,
        None,
        sampled,
        at,
        spirv::ImageOperands::LOD,
        [Operand::IdRef(lod)],
    )?;
    match params.compare() {
        None => Ok(texel),
        Some(r) => {
            let (u, bt) = (e.uvec(1), e.bvec(1));
            let x = e.b.composite_extract(u, None, texel, [0])?;
            let x = as_float(e, x)?;
            let r = e.val(r)?;
            let r = as_float(e, r)?;
            let le = e.b.f_ord_less_than_equal(bt, None, r, x)?;
            let (one, zero) = (e.cu(1.0f32.to_bits(), 1), e.cu(0, 1));
            let c = e.b.select(u, None, le, one, zero)?;
            Ok(e.b.composite_construct(uvec4, None, [c, zero, zero, one])?)
        }
    }
}

/// `grad_lod` in the shader: the exponent field of the `fmax` chain (from `+0.0`) of
/// `canon(|d| * size)` over the axes and both gradients, minus 127 (not yet clamped).
fn grad_level(
    e: &mut Emitter,
    desc: &sim::semantics::TextureDesc,
    dim: TexDim,
    dx: Value,
    dy: Value,
) -> Result<Word, EmitError> {
    let (u, f) = (e.uvec(1), e.fvec(1));
    let sizes = [desc.width, desc.height, desc.layers];
    let mut rho = e.cu(0, 1);
    for (i, &size) in sizes.iter().enumerate().take(dim.coords() as usize) {
        for d in [dx, dy] {
            let g = component_of(e, d, i as u8)?;
            let mask = e.cu(0x7fff_ffff, 1);
            let a = e.b.bitwise_and(u, None, g, mask)?;
            let a = e.b.bitcast(f, None, a)?;
            let n = e.cf(size as f32, 1);
            let m = e.b.f_mul(f, None, a, n)?;
            let m = e.no_contraction(m);
            let m = canonical(e, m, 1)?;
            rho = min_max(e, false, rho, m, 1)?;
        }
    }
    let (shift, field, bias) = (e.cu(23, 1), e.cu(0xff, 1), e.cu(127, 1));
    let x = e.b.shift_right_logical(u, None, rho, shift)?;
    let x = e.b.bitwise_and(u, None, x, field)?;
    Ok(e.b.i_sub(u, None, x, bias)?)
}

/// A gather (`texture_result`'s rule in the shader): the 2×2 footprint's corner from the float
/// coordinates at level 0, four `OpImageFetch`es, channel `comp` of each (or its compare
/// result).
fn gather(
    e: &mut Emitter,
    t: u32,
    coord: Value,
    params: &TexParams,
    comp: u8,
) -> Result<Word, EmitError> {
    let (sampled, desc) = texture(e, t)?;
    let (u, f, bt) = (e.uvec(1), e.fvec(1), e.bvec(1));
    let mut corners = Vec::new();
    for (c, size) in [(0u8, desc.width), (1, desc.height)] {
        let x = component_of(e, coord, c)?;
        let x = e.b.bitcast(f, None, x)?;
        let n = e.cf(size as f32, 1);
        let scaled = e.b.f_mul(f, None, x, n)?;
        let scaled = e.no_contraction(scaled);
        let half = e.cf(0.5, 1);
        let shifted = e.b.f_sub(f, None, scaled, half)?;
        let shifted = e.no_contraction(shifted);
        let low = e.glsl(f, GlslStd450Op::Floor, &[shifted])?;
        let low = float_to_int(e, low, true, 1)?;
        let low = offset_by(e, low, params, c as usize)?;
        let one = e.cu(1, 1);
        let high = e.b.i_add(u, None, low, one)?;
        let size = e.cu(size, 1);
        corners.push((wrap(e, low, size)?, wrap(e, high, size)?));
    }
    let layer = e.scalar_or_zero(params.layer())?;
    let layer = e.b.bitcast(f, None, layer)?;
    let layer = e.glsl(f, GlslStd450Op::RoundEven, &[layer])?;
    let layer = float_to_int(e, layer, true, 1)?;
    let layer = clamp_index(e, layer, desc.layers)?;
    let ((x0, x1), (y0, y1)) = (corners[0], corners[1]);
    let image_ty = image_type(&mut e.b);
    let image = e.b.image(image_ty, None, sampled)?;
    let (uvec3, uvec4) = (e.uvec(3), e.uvec(4));
    let zero = e.cu(0, 1);
    let reference = match params.compare() {
        Some(r) => {
            let r = e.val(r)?;
            Some(e.b.bitcast(f, None, r)?)
        }
        None => None,
    };
    let mut taps = Vec::with_capacity(4);
    for (x, y) in [(x0, y1), (x1, y1), (x1, y0), (x0, y0)] {
        let at = e.b.composite_construct(uvec3, None, [x, y, layer])?;
        let texel = e.b.image_fetch(
            uvec4,
            None,
            image,
            at,
            Some(spirv::ImageOperands::LOD),
            [Operand::IdRef(zero)],
        )?;
        taps.push(match reference {
            None => {
                e.b.composite_extract(u, None, texel, [u32::from(comp & 3)])?
            }
            Some(r) => {
                let x = e.b.composite_extract(u, None, texel, [0])?;
                let x = e.b.bitcast(f, None, x)?;
                let le = e.b.f_ord_less_than_equal(bt, None, r, x)?;
                let one = e.cu(1.0f32.to_bits(), 1);
                e.b.select(u, None, le, one, zero)?
            }
        });
    }
    Ok(e.b.composite_construct(uvec4, None, taps)?)
}

/// `txs`: `texture_result`'s size rule in the shader (sizes of the clamped level, zeros for a
/// lod outside the texture, the level count last).
fn size(e: &mut Emitter, t: u32, params: &TexParams) -> Result<Word, EmitError> {
    let (_, desc) = texture(e, t)?;
    let (u, bt) = (e.uvec(1), e.bvec(1));
    let lod = e.scalar_or_zero(params.lod())?;
    let levels = e.cu(desc.levels, 1);
    let inside = e.b.u_less_than(bt, None, lod, levels)?;
    let l = clamp_index(e, lod, desc.levels)?;
    let w = level_size(e, desc.width, l)?;
    let h = level_size(e, desc.height, l)?;
    let layers = e.cu(desc.layers, 1);
    let zero = e.cu(0, 1);
    let parts = match params.dim {
        TexDim::D1 => [w, layers, zero],
        TexDim::D2 | TexDim::Cube => [w, h, layers],
        TexDim::D3 => [w, h, level_size(e, desc.layers, l)?],
    };
    let mut out = Vec::with_capacity(4);
    for x in parts {
        out.push(e.b.select(u, None, inside, x, zero)?);
    }
    out.push(levels);
    let uvec4 = e.uvec(4);
    Ok(e.b.composite_construct(uvec4, None, out)?)
}
