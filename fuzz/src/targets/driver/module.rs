//! The SPIR-V module a driver target gets: which program ([`source`]), emitted how for a device
//! ([`emit_options`]), made once per case and reused by every target that takes it ([`emit`]),
//! and as the runner's job ([`job`]).

use super::knobs::ModuleKnobs;
use crate::case::Case;
use compiler::ir::Program;
use spirv_emit::{EmitError, EmitOptions, EmittedModule, Interface};
use std::cell::RefCell;
use vulkan_runner::{Binding, DeviceInfo, Image, Job, Resource};

/// Modules a thread keeps: a case's targets emit its program (the middle end's output, or the
/// generator's) for one or two devices' options, so a few cover a case.
const KEPT: usize = 4;

/// A module kept, with the program and options it was emitted from.
type Kept = (Program, EmitOptions, Result<EmittedModule, EmitError>);

thread_local! {
    /// This thread's latest modules, most recent last.
    static MODULES: RefCell<Vec<Kept>> = const { RefCell::new(Vec::new()) };
}

/// `program` emitted with `options`: once per case however many targets take it (the emitter
/// is a function of the two, so the copy kept is the module the target would have made).
pub fn emit(program: &Program, options: &EmitOptions) -> Result<EmittedModule, EmitError> {
    MODULES.with_borrow_mut(|kept| {
        if let Some((_, _, module)) = kept.iter().find(|(p, o, _)| o == options && p == program) {
            return module.clone();
        }
        let module = spirv_emit::emit(program, options);
        if kept.len() >= KEPT {
            let _evicted = kept.remove(0);
        }
        kept.push((program.clone(), *options, module.clone()));
        module
    })
}

/// The emitter's options for a device: preserve NaN/infinity and denormals and round to
/// nearest even where the device can, so that exact float ops are compared exactly.
pub fn emit_options(info: &DeviceInfo) -> EmitOptions {
    EmitOptions {
        preserve_nan_inf: info.float_controls.signed_zero_inf_nan_preserve,
        preserve_denormals: info.float_controls.denorm_preserve,
        round_to_nearest_even: info.float_controls.rounding_mode_rte,
        maximal_reconvergence: info.subgroups.maximal_reconvergence,
        ..EmitOptions::default()
    }
}

/// The program the driver gets for `case`.
pub fn source<'a>(case: &'a Case, optimised: &'a Program) -> &'a Program {
    if ModuleKnobs::of(case).unoptimised {
        &case.program
    } else {
        optimised
    }
}

/// The runner's job for an emitted module.
pub fn job(module: &EmittedModule) -> Job {
    job_of(&module.words, &module.interface)
}

/// The job a compile-only target gives a device `info` for `module`: [`job`]'s, but with a
/// subgroup size the device cannot require left to the driver. Such a target judges the
/// compiler's health, not the results, and the compiler must take any module at any size.
pub fn compile_only_job(module: &EmittedModule, info: &DeviceInfo) -> Job {
    let mut job = job(module);
    job.subgroup_size = job
        .subgroup_size
        .filter(|&s| info.subgroups.size_refusal(s).is_none());
    job
}

/// The runner's job for a module (`words`) with `interface` (a fused one too).
pub fn job_of(words: &[u32], interface: &Interface) -> Job {
    Job {
        spirv: words.to_vec(),
        workgroups: [interface.workgroups.max(1), 1, 1],
        bindings: bindings(interface),
        subgroup_size: interface.subgroups.map(|s| s.size),
    }
}

fn bindings(interface: &Interface) -> Vec<Binding> {
    interface
        .bindings
        .iter()
        .map(|b| Binding {
            binding: b.binding,
            resource: match &b.resource {
                spirv_emit::Resource::Storage { words, .. } => Resource::Buffer(words.clone()),
                spirv_emit::Resource::Texture(t) => Resource::Image(Image {
                    width: t.width,
                    height: t.height,
                    levels: t.desc.levels,
                    layers: t.desc.layers,
                    texels: t.subresources.concat(),
                }),
            },
        })
        .collect()
}

/// Why the device cannot run `case`'s subgroup operations as the IR means them (a subgroup
/// of its workgroup's size, full, maximally reconverging: `spirv_emit::subgroup`), when the
/// program has any: a skip, never a finding.
pub fn subgroup_refusal(case: &Case, info: &DeviceInfo) -> Option<String> {
    let needs = spirv_emit::subgroup_needs(&case.program).ok()??;
    let why = info.subgroups.refusal(needs.size, needs.operations)?;
    Some(format!("subgroups: {why}"))
}

/// Why a target that does not take subgroup operations yet skips `case`, when it has any.
pub fn no_subgroups(case: &Case, target: &str) -> Option<String> {
    case.program
        .has_subgroup_ops()
        .then(|| format!("subgroup operations: not on the {target} target yet"))
}

/// Why a target that does not take 16- or 64-bit integers yet (naga) skips `case`, when it
/// has them.
pub fn no_sized_ints(case: &Case, target: &str) -> Option<String> {
    (case.program.sized_ints() != (false, false))
        .then(|| format!("16- or 64-bit integers: not on the {target} target yet"))
}

/// Why the device cannot run `case`'s 16- or 64-bit integers, when the program has them and
/// the device lacks `shaderInt16`/`shaderInt64`: a skip, never a finding.
pub fn int_width_refusal(case: &Case, info: &DeviceInfo) -> Option<String> {
    let (b16, b64) = case.program.sized_ints();
    info.ints.refusal(b16, b64)
}

/// Why the SPIR-V emitter refuses `case`'s program (what it does not map), if it does: a skip
/// for every target that feeds a driver our SPIR-V, never a finding.
pub fn emitter_refusal(case: &Case, options: &spirv_emit::EmitOptions) -> Option<String> {
    match emit(&case.program, options) {
        Err(EmitError::Unsupported(what)) => Some(format!("unsupported: {what}")),
        _ => None,
    }
}
