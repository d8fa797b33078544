//! The module skeleton, the top of the emitter: capabilities, the float controls, the
//! invocation id, the descriptor bindings, the function with its prologue (`id >= invocations`
//! returns at once), the body (`flow`) and the final assembly.

use crate::emitter::{sampled_image_type, Edge, EdgePred, Emitter};
use crate::interface::{Interface, Resource, StorageRole};
use crate::{EmitError, EmitOptions};
use compiler::ir::Program;
use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{self, Word};

/// Builds the whole module for `program` with the bindings of `interface`.
pub(crate) fn build(
    program: &Program,
    interface: &Interface,
    options: &EmitOptions,
) -> Result<Vec<u32>, EmitError> {
    let mut b = Builder::new();
    b.set_version(1, 3);
    b.capability(spirv::Capability::Shader);
    if options.preserve_nan_inf || options.preserve_denormals {
        b.extension("SPV_KHR_float_controls");
    }
    if options.preserve_nan_inf {
        b.capability(spirv::Capability::SignedZeroInfNanPreserve);
    }
    if options.preserve_denormals {
        b.capability(spirv::Capability::DenormPreserve);
    }
    let glsl = b.ext_inst_import("GLSL.std.450");
    b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
    let mut e = Emitter::new(b, program, interface, glsl);
    let gid = declare_interface(&mut e)?;

    let void = e.b.type_void();
    let fn_ty = e.b.type_function(void, []);
    let main =
        e.b.begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)?;
    let entry = e.b.begin_block(None)?;
    crate::memory::declare_locals(&mut e)?;
    let uvec3 = e.uvec(3);
    let gid_value = e.b.load(uvec3, None, gid, None, [])?;
    let u = e.uvec(1);
    e.invocation = e.b.composite_extract(u, None, gid_value, [0])?;
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
    let body = &program.func.body;
    crate::flow::emit_list(&mut e, body, None, exit)?;
    e.b.begin_block(Some(exit))?;
    e.b.ret()?;
    e.b.end_function()?;

    e.b.entry_point(spirv::ExecutionModel::GLCompute, main, "main", [gid]);
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
    crate::flow::insert_phis(&mut e)?;
    Ok(e.b.module().assemble())
}

/// Declares `GlobalInvocationID` (returned) and one variable per binding.
fn declare_interface(e: &mut Emitter) -> Result<Word, EmitError> {
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
    for binding in &e.interface.bindings {
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
