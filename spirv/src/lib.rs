//! The SPIR-V emitter: an IR [`Program`] as a Vulkan GLCompute shader, with the interface a
//! runner needs to feed it and read it back, and the rules that say which result words a
//! driver must reproduce bit for bit.
//!
//! * [`emit`] — the module (one invocation of the IR program per `GlobalInvocationID.x`);
//!   works on generated IR and on the middle end's output alike (phis, local variables and
//!   derefs, registers);
//! * [`Interface`] (in [`interface`]) — the descriptor bindings in set 0 with their initial
//!   contents, the dispatch size, and [`Interface::results`] to turn read-back words into the
//!   interpreter's [`sim::dispatch::Results`];
//! * [`inexact`] — which output and buffer words derive from an operation the Vulkan spec does
//!   not make exact, and a comparison that leaves exactly those out; [`denormals`] — whether a
//!   run touches a denormal (what decides exactness on a device that may flush them);
//! * [`fuse`] — several programs as one shader, side by side (one driver compile for all);
//! * [`disassemble`] — the module as text (`gpufuzz run --emit spirv`).
//!
//! Inside: `module` builds the skeleton (capabilities, types, constants, bindings), `flow`
//! the structured control flow and phis, `alu` the ALU ops with the guards our semantics
//! need, `memory` uniforms, buffers, outputs, local variables, registers and textures. How
//! the IR maps to SPIR-V, and what is guarded, is written in `docs/spirv.md`.

#![deny(missing_docs)]

mod alu;
mod atomic;
pub mod binary;
pub mod bounded;
pub mod denormals;
mod emitter;
mod flow;
pub mod fuse;
pub mod inexact;
pub mod interface;
mod memory;
mod module;
mod subgroup;
pub mod ulp;
pub mod validate;
mod workgroup;

pub use bounded::{comparison, Comparison, SlotRule};
pub use fuse::{emit_fused, FusedModule};
pub use inexact::{compare, inexact_words, inexact_words_for, InexactWords};
pub use interface::{subgroup_needs, SubgroupNeeds};
pub use interface::{Binding, Interface, Resource, StorageRole, TextureData};

use compiler::ir::Program;
use sim::semantics::TextureDesc;

/// How to emit: the workgroup size and which float controls the device supports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmitOptions {
    /// Invocations per workgroup (`LocalSize` x); at least 1.
    pub local_size: u32,
    /// Ask for `SignedZeroInfNanPreserve` on 32-bit floats (`SPV_KHR_float_controls`), so
    /// NaNs, infinities and signed zeros behave as IEEE says. Needs
    /// `shaderSignedZeroInfNanPreserveFloat32` on the device.
    pub preserve_nan_inf: bool,
    /// Ask for `DenormPreserve` on 32-bit floats. Needs `shaderDenormPreserveFloat32`.
    pub preserve_denormals: bool,
    /// Ask for `RoundingModeRTE` on 32-bit floats, so that an inexact correctly-rounded
    /// result (`OpFAdd`, `OpFMul`, conversions to float) is the nearest-even neighbour the
    /// interpreter computes, not either neighbour. Needs `shaderRoundingModeRTEFloat32`.
    pub round_to_nearest_even: bool,
    /// Ask for `MaximallyReconvergesKHR` on a module with subgroup operations, which pins
    /// down the invocations a divergent one sees (`crate::subgroup`). Needs
    /// `shaderMaximalReconvergence`; without it such a module's results are the driver's to
    /// choose, which only a compile-only target, judging the compiler's health, may accept.
    pub maximal_reconvergence: bool,
}

impl Default for EmitOptions {
    fn default() -> Self {
        EmitOptions {
            local_size: 64,
            preserve_nan_inf: true,
            preserve_denormals: true,
            round_to_nearest_even: true,
            maximal_reconvergence: true,
        }
    }
}

impl EmitOptions {
    /// Whether every float op the spec calls correctly rounded is exact with these options,
    /// whatever the program: only when both NaN/infinity and denormal preservation were
    /// requested. Otherwise a driver may flush or assume no NaN anywhere. (Without
    /// `round_to_nearest_even` an inexact result may still be either neighbour: compared
    /// exactly all the same, see `docs/spirv.md`.)
    pub fn floats_exact(&self) -> bool {
        self.preserve_nan_inf && self.preserve_denormals
    }
}

/// An emitted shader and what a runner must bind to run it.
#[derive(Clone, Debug, PartialEq)]
pub struct EmittedModule {
    /// The SPIR-V binary (version 1.3, Vulkan 1.1 environment), entry point `main`.
    pub words: Vec<u32>,
    /// Bindings, their contents and the dispatch size.
    pub interface: Interface,
}

/// Why a program could not be emitted.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum EmitError {
    /// The program does not verify; only well-formed programs are emitted.
    #[error("the program does not verify: {0}")]
    Invalid(String),
    /// The program uses something the emitter does not map (the oracle skips such programs).
    #[error("unsupported by the SPIR-V emitter: {0}")]
    Unsupported(String),
    /// rspirv refused an instruction: a bug in the emitter.
    #[error("SPIR-V builder error: {0}")]
    Builder(String),
}

impl From<rspirv::dr::Error> for EmitError {
    fn from(e: rspirv::dr::Error) -> Self {
        EmitError::Builder(e.to_string())
    }
}

/// Emits `program` as a GLCompute shader. The program must verify.
pub fn emit(program: &Program, options: &EmitOptions) -> Result<EmittedModule, EmitError> {
    compiler::ir::verify(program).map_err(|e| EmitError::Invalid(e.to_string()))?;
    if options.local_size == 0 {
        return Err(EmitError::Unsupported("a local size of 0".into()));
    }
    check_dispatch(&program.dispatch)?;
    let mut interface = Interface::new(&program.dispatch, options.local_size);
    interface.subgroups = interface::subgroup_needs(program)?;
    let words = module::build(program, &interface, options)?;
    Ok(EmittedModule { words, interface })
}

/// Largest storage binding emitted, in words (64 MiB): the interpreter allows up to 2^32.
pub const MAX_BINDING_WORDS: u64 = 1 << 24;

/// Refuses dispatches that cannot exist (as the interpreter's `BadDispatch`) or that are too
/// big for a device, before anything is allocated.
pub(crate) fn check_dispatch(d: &sim::dispatch::Dispatch) -> Result<(), EmitError> {
    let n = u64::from(d.invocations);
    let per_invocation = std::iter::once(d.outputs).chain(d.buffers.iter().copied());
    let words = per_invocation
        .map(|len| u64::from(len) * n)
        .chain([d.uniforms.len() as u64]);
    if let Some(words) = words.max().filter(|&w| w > MAX_BINDING_WORDS) {
        return Err(EmitError::Unsupported(format!(
            "a storage binding of {words} words"
        )));
    }
    for (t, desc) in d.textures.iter().enumerate() {
        let shape = [desc.width, desc.height, desc.levels, desc.layers];
        if shape.contains(&0) || desc.levels > 32 {
            return Err(EmitError::Invalid(format!(
                "texture {t}: {}x{} with {} levels and {} layers cannot exist",
                desc.width, desc.height, desc.levels, desc.layers
            )));
        }
        let width = interface::image_width(desc);
        if width > interface::MAX_IMAGE_WIDTH || desc.height > interface::MAX_IMAGE_WIDTH {
            return Err(EmitError::Unsupported(format!(
                "texture {t}: {}x{} with {} levels needs a {width}-texel-wide image",
                desc.width, desc.height, desc.levels
            )));
        }
        let texels: u64 = (0..desc.levels)
            .map(|l| {
                let (w, h) = TextureDesc { width, ..*desc }.level_size(l);
                u64::from(w) * u64::from(h)
            })
            .sum();
        if texels * u64::from(desc.layers) * 4 > MAX_BINDING_WORDS {
            return Err(EmitError::Unsupported(format!(
                "texture {t}: too many texels"
            )));
        }
    }
    Ok(())
}

/// The module as SPIR-V assembly text (rspirv's disassembler), or why it cannot be parsed.
pub fn disassemble(words: &[u32]) -> Result<String, String> {
    use rspirv::binary::Disassemble;
    rspirv::dr::load_words(words)
        .map(|m| m.disassemble())
        .map_err(|e| e.to_string())
}

/// The name of every instruction in a module: core ones as `OpIAdd`, `GLSL.std.450` extended
/// instructions by their own name (`Floor`, `SMax`). What `docs/spirv.md`'s table of Vulkan's
/// rules must cover (`fuzz/tests/spirv.rs` checks it over everything the emitter writes).
pub fn instruction_names(words: &[u32]) -> Result<std::collections::BTreeSet<String>, String> {
    use rspirv::dr::Operand;
    let module = rspirv::dr::load_words(words).map_err(|e| e.to_string())?;
    let mut names = std::collections::BTreeSet::new();
    for inst in module.all_inst_iter() {
        names.insert(format!("Op{:?}", inst.class.opcode));
        if inst.class.opcode == rspirv::spirv::Op::ExtInst {
            // Operands: the set's id, then the instruction number. The emitter imports only
            // GLSL.std.450.
            match inst.operands.get(1) {
                Some(&Operand::LiteralExtInstInteger(n)) => {
                    let op = rspirv::spirv::GlslStd450Op::from_u32(n)
                        .ok_or_else(|| format!("GLSL.std.450 has no instruction {n}"))?;
                    names.insert(format!("{op:?}"));
                }
                other => return Err(format!("an OpExtInst without its number: {other:?}")),
            }
        }
    }
    Ok(names)
}

/// What a module holds at one result id: the instruction that defines it, its result type's
/// instruction, and every instruction that takes it as an operand (names as `OpLoad`), for
/// reading an error that names only an id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Definition {
    /// The defining instruction.
    pub op: String,
    /// Its result type's defining instruction (`OpTypeSampledImage`).
    pub type_op: Option<String>,
    /// The instructions that read it.
    pub used_by: std::collections::BTreeSet<String>,
}

/// The [`Definition`] of `id` in the module, `None` when nothing defines it.
pub fn definition(words: &[u32], id: u32) -> Result<Option<Definition>, String> {
    use rspirv::dr::Operand;
    let module = rspirv::dr::load_words(words).map_err(|e| e.to_string())?;
    let name = |op: rspirv::spirv::Op| format!("Op{op:?}");
    let Some(def) = module.all_inst_iter().find(|i| i.result_id == Some(id)) else {
        return Ok(None);
    };
    let type_op = def.result_type.and_then(|t| {
        (module.all_inst_iter())
            .find(|i| i.result_id == Some(t))
            .map(|i| name(i.class.opcode))
    });
    let used_by = (module.all_inst_iter())
        .filter(|i| i.operands.contains(&Operand::IdRef(id)))
        .map(|i| name(i.class.opcode))
        .collect();
    Ok(Some(Definition {
        op: name(def.class.opcode),
        type_op,
        used_by,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use compiler::ir::text::parse_program;

    fn program(header: &str) -> Program {
        let src = format!("{header}\nblock_0:\n  vec1 32 ssa_0 = load_invocation_id\n");
        parse_program(&src, "test").unwrap()
    }

    #[test]
    fn dispatches_that_cannot_exist_or_fit_are_refused_not_allocated() {
        let opts = EmitOptions::default();
        let mut p = program("invocations 4\noutputs 1\ntexture 4x4 levels 1 layers 1\n");
        assert!(emit(&p, &opts).is_ok());
        p.dispatch.textures[0].levels = 0;
        assert!(matches!(emit(&p, &opts), Err(EmitError::Invalid(_))));
        p.dispatch.textures[0].levels = 20; // a 524288-texel-wide image
        assert!(matches!(emit(&p, &opts), Err(EmitError::Unsupported(_))));
        let mut p = program("invocations 4\noutputs 1\nbuffer 16\n");
        p.dispatch.invocations = 4096;
        p.dispatch.buffers[0] = 65536;
        assert!(matches!(emit(&p, &opts), Err(EmitError::Unsupported(_))));
        p.dispatch.buffers[0] = 16;
        assert!(emit(&p, &opts).is_ok());
        let zero = EmitOptions {
            local_size: 0,
            ..opts
        };
        assert!(matches!(emit(&p, &zero), Err(EmitError::Unsupported(_))));
    }

    #[test]
    fn a_dispatch_with_workgroups_is_its_own_workgroups_and_fits_a_device() {
        let opts = EmitOptions::default();
        let p = program("invocations 8\noutputs 1\nworkgroup 4\nshared 8\n");
        let m = emit(&p, &opts).unwrap();
        assert_eq!((m.interface.local_size, m.interface.workgroups), (4, 2));
        // Without workgroups, the options' size.
        let plain = emit(&program("invocations 8\noutputs 1\n"), &opts).unwrap();
        assert_eq!(plain.interface.local_size, opts.local_size);
        // The zeroing prologue unrolls at most 64 stores per invocation: 256 words over 4
        // invocations are 64, 257 are 65.
        let mut big = program("invocations 4\noutputs 1\nworkgroup 4\nshared 256\n");
        assert!(emit(&big, &opts).is_ok());
        big.dispatch.shared = vec![257];
        assert!(matches!(emit(&big, &opts), Err(EmitError::Unsupported(_))));
    }

    #[test]
    fn texture_shapes_it_cannot_map_exactly_are_refused() {
        let opts = EmitOptions::default();
        let head = "invocations 4\noutputs 4\ntexture 4x4 levels 1 layers 1\n\nblock_0:\n  vec1 32 ssa_0 = load_const (0x00000000)\n  vec2 32 ssa_1 = vec2 ssa_0, ssa_0\n  vec3 32 ssa_2 = vec3 ssa_0, ssa_0, ssa_0\n";
        let plain = "tex 0, ssa_1, lod ssa_0, layer ssa_0";
        for (line, mapped) in [
            (plain, true),
            ("txf 0, ssa_1, lod ssa_0", true),
            ("tex 0, ssa_1, offset (1, -1)", true),
            ("tex 0, ssa_1, compare ssa_0", true),
            ("tex 0, ssa_2, dim 3d", true),
            ("txf 0, ssa_0, dim 1d", true),
            ("txs 0, lod ssa_0", true),
            ("tex 0, ssa_2, dim cube", false),
            ("tex 0, ssa_1, ddx ssa_1, ddy ssa_1", true),
            ("tex 0, ssa_2, dim cube, gather 0", false),
            ("tex 0, ssa_1, compare ssa_0, gather 2", true),
        ] {
            let src = format!("{head}  vec4 32 ssa_3 = {line}\n  store_output 0, ssa_3\n");
            let p = parse_program(&src, "test").unwrap();
            let r = emit(&p, &opts);
            if mapped {
                assert!(r.is_ok(), "{line}");
            } else {
                assert!(matches!(r, Err(EmitError::Unsupported(_))), "{line}");
            }
        }
    }

    /// Every float arithmetic instruction is `NoContraction`: the IR's ops and the texel
    /// arithmetic (sample level, nearest texel, gather corner, gradients, texel centre) each
    /// stand for one rounding, and a driver may fuse or re-associate undecorated ones.
    #[test]
    fn every_float_arithmetic_result_is_no_contraction() {
        use rspirv::dr::Operand;
        use rspirv::spirv::{Decoration, Op};
        let src = "invocations 2\noutputs 16\ntexture 8x4 levels 2 layers 2\n\nblock_0:\n  \
                   vec1 32 ssa_0 = load_invocation_id\n  \
                   vec1 32 ssa_1 = u2f ssa_0\n  \
                   vec2 32 ssa_2 = vec2 ssa_1, ssa_1\n  \
                   vec1 32 ssa_3 = fmul ssa_1, ssa_1\n  \
                   vec1 32 ssa_4 = fadd ssa_3, ssa_1\n  \
                   vec1 32 ssa_5 = fsub ssa_4, ssa_1\n  \
                   vec1 32 ssa_6 = frcp ssa_5\n  \
                   store_output 0, ssa_6\n  \
                   vec4 32 ssa_7 = tex 0, ssa_2, bias ssa_1, layer ssa_1\n  \
                   store_output 1, ssa_7\n  \
                   vec4 32 ssa_8 = tex 0, ssa_2, offset (1, -2), gather 1\n  \
                   store_output 5, ssa_8\n  \
                   vec4 32 ssa_9 = tex 0, ssa_2, ddx ssa_2, ddy ssa_2\n  \
                   store_output 9, ssa_9\n";
        let p = parse_program(src, "float-arithmetic").unwrap();
        let m = emit(&p, &EmitOptions::default()).unwrap();
        let module = rspirv::dr::load_words(&m.words).unwrap();
        let unfused: std::collections::HashSet<u32> = module
            .annotations
            .iter()
            .filter(|d| d.operands.get(1) == Some(&Operand::Decoration(Decoration::NoContraction)))
            .filter_map(|d| d.operands[0].id_ref_any())
            .collect();
        let mut arithmetic = 0;
        for inst in module.all_inst_iter() {
            if matches!(inst.class.opcode, Op::FAdd | Op::FSub | Op::FMul | Op::FDiv) {
                arithmetic += 1;
                let id = inst.result_id.unwrap();
                assert!(
                    unfused.contains(&id),
                    "%{id} = {:?} may be contracted",
                    inst.class.opcode
                );
            }
        }
        // fmul, fadd, fsub, frcp; lod + bias, two nearest-texel products, two centres each
        // (+ 0.5 and / width); a gather's two products and two `- 0.5`; gradients' products.
        assert!(
            arithmetic >= 14,
            "only {arithmetic} float arithmetic instructions"
        );
    }
}
