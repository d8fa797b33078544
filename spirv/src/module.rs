//! The module skeleton, the top of the emitter: the invocation id, the descriptor bindings,
//! the function with its prologue (`id >= invocations` returns at once), the body (`flow`),
//! the entry point and the final assembly. A fused module ([`crate::fuse`]) holds one such
//! function per program, called in turn by `main`.

use crate::emitter::{sampled_image_type, Edge, EdgePred, Emitter, Placement};
use crate::interface::{Interface, Resource, StorageRole};
use crate::{EmitError, EmitOptions};
use compiler::ir::Program;
use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{self, Word};

/// Builds the whole module for `program` with the bindings of `interface`: the program is
/// `main` itself.
pub(crate) fn build(
    program: &Program,
    interface: &Interface,
    options: &EmitOptions,
) -> Result<Vec<u32>, EmitError> {
    let mut e = Emitter::new(program, Placement::alone(interface), options);
    e.declare_int_widths(program.sized_ints());
    if let Some(needs) = interface.subgroups {
        crate::subgroup::declare(&mut e, needs, options.maximal_reconvergence);
        e.subgroups = Some(needs);
    }
    let gid = declare_interface(&mut e, interface)?;
    let mut inputs = vec![gid];
    inputs.extend(crate::workgroup::declare(&mut e)?);
    let main = emit_function(&mut e, gid)?;
    finish(e, main, &inputs, interface, options)
}

/// Builds one module for several programs with the bindings of `interface`: program `k` is a
/// function of its own at `places[k]` over the workgroups `workgroups[k]`, and `main`
/// switches on the workgroup id to call the one whose workgroup it is. The workgroup id is
/// the same for a whole workgroup, so a driver that runs a workgroup's invocations together
/// (lavapipe's SIMD lanes) branches once instead of masking every other program's code.
pub(crate) fn build_fused(
    programs: &[&Program],
    places: Vec<Placement>,
    workgroups: &[std::ops::Range<u32>],
    interface: &Interface,
    options: &EmitOptions,
) -> Result<Vec<u32>, EmitError> {
    let Some(&first) = programs.first() else {
        return Err(EmitError::Invalid("fusing no programs".into()));
    };
    if programs.iter().any(|p| p.has_subgroup_ops()) {
        return Err(EmitError::Unsupported(
            "subgroup operations in a fused module (each needs its own pipeline)".into(),
        ));
    }
    let mut e = Emitter::new(first, Placement::default(), options);
    let (b16, b64) = programs.iter().fold((false, false), |(a, b), p| {
        let (c, d) = p.sized_ints();
        (a || c, b || d)
    });
    e.declare_int_widths((b16, b64));
    let gid = declare_interface(&mut e, interface)?;
    let uvec3 = e.uvec(3);
    let input_ptr = e.b.type_pointer(None, spirv::StorageClass::Input, uvec3);
    let wid =
        e.b.variable(input_ptr, None, spirv::StorageClass::Input, None);
    e.b.decorate(
        wid,
        spirv::Decoration::BuiltIn,
        [Operand::BuiltIn(spirv::BuiltIn::WorkgroupId)],
    );
    let mut functions = Vec::new();
    for (program, place) in programs.iter().zip(places) {
        e.start(program, place);
        functions.push(emit_function(&mut e, gid)?);
    }
    let void = e.b.type_void();
    let fn_ty = e.b.type_function(void, []);
    let main =
        e.b.begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)?;
    e.b.begin_block(None)?;
    let wid_value = e.b.load(uvec3, None, wid, None, [])?;
    let u = e.uvec(1);
    let workgroup = e.b.composite_extract(u, None, wid_value, [0])?;
    let end = e.b.id();
    let labels: Vec<Word> = functions.iter().map(|_| e.b.id()).collect();
    let cases: Vec<(Operand, Word)> = workgroups
        .iter()
        .zip(&labels)
        .flat_map(|(range, &label)| {
            range
                .clone()
                .map(move |w| (Operand::LiteralBit32(w), label))
        })
        .collect();
    e.b.selection_merge(end, spirv::SelectionControl::NONE)?;
    e.b.switch(workgroup, end, cases)?;
    for (f, label) in functions.into_iter().zip(labels) {
        e.b.begin_block(Some(label))?;
        e.b.function_call(void, None, f, [])?;
        e.b.branch(end)?;
    }
    e.b.begin_block(Some(end))?;
    e.b.ret()?;
    e.b.end_function()?;
    finish(e, main, &[gid, wid], interface, options)
}

/// Emits the current program as a `void()` function with its prologue (invocations outside
/// the program return at once) and its phis; returns the function's id.
fn emit_function(e: &mut Emitter, gid: Word) -> Result<Word, EmitError> {
    let void = e.b.type_void();
    let fn_ty = e.b.type_function(void, []);
    let function =
        e.b.begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)?;
    let entry = e.b.begin_block(None)?;
    crate::memory::declare_locals(e)?;
    crate::workgroup::prologue(e)?;
    let uvec3 = e.uvec(3);
    let gid_value = e.b.load(uvec3, None, gid, None, [])?;
    let u = e.uvec(1);
    let global = e.b.composite_extract(u, None, gid_value, [0])?;
    // Below the first invocation the subtraction wraps far above the count.
    e.invocation = match (
        crate::workgroup::numbered_invocation(e)?,
        e.place.first_invocation,
    ) {
        (Some(id), _) => id,
        (None, 0) => global,
        (None, first) => {
            let first = e.cu(first, 1);
            e.b.i_sub(u, None, global, first)?
        }
    };
    let count = e.cu(e.dispatch.invocations, 1);
    let bool_ty = e.bvec(1);
    let in_range = e.b.u_less_than(bool_ty, None, e.invocation, count)?;
    let exit = e.b.id();
    let Some(first) = compiler::ir::first_block(&e.func.body) else {
        return Err(EmitError::Invalid("an empty body".into()));
    };
    let first_label = e.label(first);
    e.b.selection_merge(exit, spirv::SelectionControl::NONE)?;
    e.b.branch_conditional(in_range, first_label, exit, [])?;
    e.edges.push(Edge {
        to: first_label,
        from: entry,
        pred: EdgePred::None,
    });
    let body = &e.func.body;
    crate::flow::emit_list(e, body, None, exit)?;
    e.b.begin_block(Some(exit))?;
    e.b.ret()?;
    e.b.end_function()?;
    crate::flow::insert_phis(e)?;
    Ok(function)
}

/// Makes `main` the entry point (its interface the input variables `inputs`) with its
/// execution modes and assembles the module.
fn finish(
    mut e: Emitter,
    main: Word,
    inputs: &[Word],
    interface: &Interface,
    options: &EmitOptions,
) -> Result<Vec<u32>, EmitError> {
    e.b.entry_point(spirv::ExecutionModel::GLCompute, main, "main", inputs);
    e.b.execution_mode(
        main,
        spirv::ExecutionMode::LocalSize,
        [interface.local_size, 1, 1],
    );
    if options.preserve_nan_inf {
        e.b.execution_mode(main, spirv::ExecutionMode::SignedZeroInfNanPreserve, [32]);
    }
    if options.preserve_denormals {
        e.b.execution_mode(main, spirv::ExecutionMode::DenormPreserve, [32]);
    }
    if options.round_to_nearest_even {
        e.b.execution_mode(main, spirv::ExecutionMode::RoundingModeRTE, [32]);
    }
    if e.subgroups.is_some() && options.maximal_reconvergence {
        crate::subgroup::execution_mode(&mut e, main);
    }
    Ok(e.b.module().assemble())
}

/// Declares `GlobalInvocationID` (returned) and one variable per binding.
fn declare_interface(e: &mut Emitter, interface: &Interface) -> Result<Word, EmitError> {
    let uvec3 = e.uvec(3);
    let input_ptr = e.b.type_pointer(None, spirv::StorageClass::Input, uvec3);
    let gid =
        e.b.variable(input_ptr, None, spirv::StorageClass::Input, None);
    e.b.decorate(
        gid,
        spirv::Decoration::BuiltIn,
        [Operand::BuiltIn(spirv::BuiltIn::GlobalInvocationId)],
    );
    let mut block_ptr = None;
    let mut texture_ptr = None;
    for binding in &interface.bindings {
        let var = match &binding.resource {
            Resource::Storage { role, .. } => {
                let ptr = *block_ptr.get_or_insert_with(|| storage_block_pointer(&mut e.b));
                let var =
                    e.b.variable(ptr, None, spirv::StorageClass::StorageBuffer, None);
                if *role == StorageRole::Uniforms {
                    e.b.decorate(var, spirv::Decoration::NonWritable, []);
                }
                var
            }
            Resource::Texture(_) => {
                let ptr = *texture_ptr.get_or_insert_with(|| {
                    let ty = sampled_image_type(&mut e.b);
                    e.b.type_pointer(None, spirv::StorageClass::UniformConstant, ty)
                });
                e.b.variable(ptr, None, spirv::StorageClass::UniformConstant, None)
            }
        };
        e.b.decorate(
            var,
            spirv::Decoration::DescriptorSet,
            [Operand::LiteralBit32(0)],
        );
        e.b.decorate(
            var,
            spirv::Decoration::Binding,
            [Operand::LiteralBit32(binding.binding)],
        );
        e.binding_vars.push(var);
    }
    Ok(gid)
}

/// `StorageBuffer` pointer to `struct { uint data[]; }` (decorated once).
fn storage_block_pointer(b: &mut Builder) -> Word {
    let u = b.type_int(32, 0);
    let array = b.type_runtime_array(u);
    b.decorate(
        array,
        spirv::Decoration::ArrayStride,
        [Operand::LiteralBit32(4)],
    );
    let block = b.type_struct([array]);
    b.decorate(block, spirv::Decoration::Block, []);
    b.member_decorate(
        block,
        0,
        spirv::Decoration::Offset,
        [Operand::LiteralBit32(0)],
    );
    b.type_pointer(None, spirv::StorageClass::StorageBuffer, block)
}
