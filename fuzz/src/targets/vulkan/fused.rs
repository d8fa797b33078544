//! The `vulkan` target's fused runs: a batch of cases as one compute shader
//! ([`spirv_emit::fuse`]), so that one pipeline compile — on lavapipe almost all of a case's
//! time, and mostly LLVM's fixed cost per shader — judges them all.
//!
//! Cases whose knob sends them through `spirv-opt` run alone (each has its own pass list), so
//! do programs that sample textures (see [`samples`]) and a run of cases the fused shader
//! cannot hold ([`spirv_emit::fuse::groups`]). A
//! fused shader that fails as a whole (the driver refuses or crashes on it, a dispatch
//! times out) fails every case in it: the oracle re-runs each alone to say whose bug it is.

use super::{device, run_finding, run_job, spirv_opt_finding, ExecuteError, Vulkan};
use crate::case::coverage::Coverage;
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::targets::driver::causes::emit_failed;
use crate::targets::driver::knobs::ModuleKnobs;
use crate::targets::driver::module::{emit_options, source};
use crate::targets::target::{FusedOutcome, Target};
use crate::targets::vulkan::VulkanOptions;
use compiler::ir::Program;
use sim::dispatch::Results;
use spirv_emit::{EmitError, FusedModule};
use vulkan_runner::{RunError, Timings};

/// Several programs run as one shader, with where the time went.
#[derive(Clone, Debug)]
pub struct ExecutedFused {
    /// The fused module.
    pub module: FusedModule,
    /// Each program's decoded results, in order.
    pub results: Vec<Results>,
    /// The driver's pipeline creation and the dispatch (measured in the worker).
    pub driver: Timings,
}

/// Emits `programs` as one shader for the device of `opts` (they must fit one, see
/// [`spirv_emit::fuse::groups`]), runs it and decodes each program's results.
pub fn execute_fused(
    programs: &[&Program],
    opts: &VulkanOptions,
) -> Result<ExecutedFused, ExecuteError> {
    let info = device(opts).map_err(ExecuteError::Run)?;
    let module =
        spirv_emit::emit_fused(programs, &emit_options(&info)).map_err(ExecuteError::Emit)?;
    let job = crate::targets::driver::module::job_of(&module.words, &module.interface);
    let out = run_job(&job, opts).map_err(ExecuteError::Run)?;
    let results = programs
        .iter()
        .enumerate()
        .map(|(k, p)| module.results(k, &p.dispatch, &out.buffers))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ExecuteError::Run(RunError::Failed(format!("read-back: {e}"))))?;
    Ok(ExecutedFused {
        module,
        results,
        driver: out.timings,
    })
}

/// Whether `program` reads a texture through the sampler or `txf`: lavapipe 22.3 (gallivm)
/// inlines a whole sampler per such instruction, and LLVM's time grows faster than the
/// function it compiles, so a fused shader holding such programs compiles slower than the
/// programs alone (measured: docs/fusion.md). They run alone.
fn samples(program: &Program) -> bool {
    let f = &program.func;
    f.insts_in_order().iter().any(|&(_, i)| {
        matches!(
            f.insts[i].kind,
            compiler::ir::InstKind::Tex { .. } | compiler::ir::InstKind::Txf { .. }
        )
    })
}

/// [`Target::run_fused`] of the `vulkan` target.
pub(super) fn run_fused(cases: &[(&Case, &Program)], opts: &OracleOptions) -> Vec<FusedOutcome> {
    let v = &opts.vulkan;
    let alone = |k: usize| {
        let (case, optimised) = cases[k];
        FusedOutcome {
            outcome: Vulkan.run(case, optimised, opts, &mut Coverage::default()),
            shared: false,
        }
    };
    let shared = |outcome| FusedOutcome {
        outcome,
        shared: true,
    };
    let mut outcomes: Vec<Option<FusedOutcome>> = vec![None; cases.len()];
    let fusable: Vec<usize> = (0..cases.len())
        .filter(|&k| {
            let (case, optimised) = cases[k];
            ModuleKnobs::of(case).spirv_opt.is_empty() && !samples(source(case, optimised))
        })
        .collect();
    let programs: Vec<&Program> = fusable
        .iter()
        .map(|&k| source(cases[k].0, cases[k].1))
        .collect();
    let local_size = spirv_emit::EmitOptions::default().local_size;
    let dispatches: Vec<_> = programs.iter().map(|p| &p.dispatch).collect();
    for group in spirv_emit::fuse::groups(&dispatches, usize::MAX, local_size) {
        if group.len() == 1 {
            let k = fusable[group.start];
            outcomes[k] = Some(alone(k));
            continue;
        }
        let members = &fusable[group.clone()];
        match execute_fused(&programs[group], v) {
            Ok(done) => {
                for (&k, results) in members.iter().zip(done.results) {
                    outcomes[k] = Some(shared(Ok(results)));
                }
            }
            Err(e) => {
                let f = match e {
                    ExecuteError::Run(e) => run_finding(e, v),
                    ExecuteError::Emit(EmitError::Unsupported(_)) => {
                        // What the fused emitter cannot hold runs alone, as it always would.
                        for &k in members {
                            outcomes[k] = Some(alone(k));
                        }
                        continue;
                    }
                    ExecuteError::Emit(e) => emit_failed("vulkan", &e),
                    ExecuteError::SpirvOpt(e) => spirv_opt_finding(e),
                };
                for &k in members {
                    outcomes[k] = Some(shared(Err(f.clone())));
                }
            }
        }
    }
    outcomes
        .into_iter()
        .enumerate()
        .map(|(k, o)| o.unwrap_or_else(|| alone(k)))
        .collect()
}
