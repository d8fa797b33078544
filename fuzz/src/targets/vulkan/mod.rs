//! The `vulkan` pipeline: the program as a SPIR-V compute shader (`spirv-emit`), run on a real
//! Vulkan driver through `vulkan-runner`'s worker process, its buffers decoded into
//! [`Results`] and compared with the interpreter's on the words the Vulkan spec makes exact.
//!
//! The driver gets the middle end's output, or the generator's program untouched when the case
//! knob `vulkan_unoptimised` is set (one input in four; the driver's own optimiser then sees
//! what ours would have cleaned up). Each fuzz thread keeps one worker process; a hang (fence timeout)
//! becomes a `timeout` finding, a driver crash a `panic` finding naming the signal, and the
//! next case gets a fresh worker. Every finding's detail names device, driver and version.
//!
//! With the case knob `vulkan_spirv_opt` (drawn for one case in four), SPIRV-Tools'
//! `spirv-opt` runs between emitter and driver (see [`crate::targets::driver::spirv_opt`]).
//!
//! With `--fuse N` the oracle hands the target batches of cases, each batch one shader
//! ([`fused`]): one driver compile judges several programs.
//!
//! Known driver bugs are rules over the program and its difference ([`known`]), each its own
//! bucket. Known limits of a driver are skips, not findings: lavapipe stops a shader after 65535 loop
//! iterations in total (gallivm's loop limiter), so a case whose interpreter run passes
//! through loop bodies that often is not judged there.

pub mod fused;
pub mod known;
pub mod options;
pub mod repro;

pub use options::VulkanOptions;

use super::shown::format_results;
use super::shown::{Shown, Written};
use super::target::{caused, FusedOutcome, Target};
use crate::case::coverage::Coverage;
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::cause::Cause;
use crate::finding::{Finding, FindingKind, Mismatch};
use crate::targets::driver;
use crate::targets::driver::causes::{emit_failed, of_run_error, Asks};
use crate::targets::driver::knobs::ModuleKnobs;
use crate::targets::driver::module::{
    emit_options, emitter_refusal, int_width_refusal, job, source, subgroup_refusal,
};
use crate::targets::driver::spirv_opt::{self, RunFailure, SpirvOptPasses};
use crate::targets::driver::workers;
use compiler::ir::Program;
use sim::dispatch::Results;
use spirv_emit::{EmitError, EmittedModule};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use vulkan_runner::{DeviceInfo, Job, RunError, Timings, Worker};

/// Loop-body passes (over all invocations) below which lavapipe's limit of 65535 loop
/// iterations per shader run cannot be reached, with room for loops the emitter or NIR add.
pub const LLVMPIPE_LOOP_PASSES: u64 = 65_000;

/// A dispatch that misses its time limit is retried once with this many times the limit
/// before it is a timeout finding.
pub const RETRY_FACTOR: u32 = 3;

/// The `vulkan` target.
pub struct Vulkan;

/// `finding.json` environment keys: the device index, the ICD manifest (when not the loader's
/// default) and the device and driver as [`DeviceInfo::describe`] names them.
pub const ENV_DEVICE: &str = "vulkan_device";
/// See [`ENV_DEVICE`].
pub const ENV_ICD: &str = "vulkan_icd";
/// See [`ENV_DEVICE`].
pub const ENV_DRIVER: &str = "vulkan_driver";
/// The SPIRV-Tools the `spirv-opt` stage runs (`spirv-opt --version`).
pub const ENV_SPIRV_TOOLS: &str = "spirv-tools";

/// The options a finding recorded with `environment` was found under: its device and ICD,
/// the rest from `base`.
pub fn options_of(environment: &serde_json::Value, base: &VulkanOptions) -> VulkanOptions {
    let get = |k: &str| environment.get(k).and_then(|v| v.as_str());
    VulkanOptions {
        device: get(ENV_DEVICE)
            .and_then(|d| d.parse().ok())
            .unwrap_or(base.device),
        icd: get(ENV_ICD).map(PathBuf::from).or_else(|| base.icd.clone()),
        ..base.clone()
    }
}

/// Why a finding recorded with `environment` may not show on the device of `opts`: "not
/// reproduced on <this driver>; found on <that driver>", or `None` when both are the same.
pub fn elsewhere(environment: &serde_json::Value, opts: &VulkanOptions) -> Option<String> {
    let found = environment.get(ENV_DRIVER)?.as_str()?;
    let here = device(opts).ok()?.describe();
    (here != found).then(|| format!("not reproduced on {here}; found on {found}"))
}

/// Runs `f` with this thread's worker for `opts` (the floor's pool: one worker per option
/// set, which is the driver's whole environment), starting it first if needed.
pub fn with_worker<R>(
    opts: &VulkanOptions,
    f: impl FnOnce(&mut Worker) -> R,
) -> Result<R, RunError> {
    let wanted = opts.worker_options()?;
    let key = (
        "vulkan",
        vec![("options".into(), format!("{wanted:?}").into())],
    );
    workers::with_worker(key, || Ok(wanted), f)
}

/// The device `opts` selects, opening it if this thread has not yet; the error says what to
/// install or which devices exist.
pub fn device(opts: &VulkanOptions) -> Result<DeviceInfo, RunError> {
    with_worker(opts, |w| w.info().clone())
}

/// One program run on the device, with where the time went.
#[derive(Clone, Debug)]
pub struct Executed {
    /// The emitted module.
    pub module: EmittedModule,
    /// The decoded results.
    pub results: Results,
    /// Time to emit SPIR-V.
    pub emit: Duration,
    /// Time spent in `spirv-opt` (zero without a pass list).
    pub spirv_opt: Duration,
    /// The driver's pipeline creation and the dispatch (measured in the worker).
    pub driver: Timings,
}

/// Why [`execute`] produced no results.
#[derive(Debug)]
pub enum ExecuteError {
    /// The emitter refused the program.
    Emit(EmitError),
    /// `spirv-opt` failed on the emitted module.
    SpirvOpt(RunFailure),
    /// The runner or driver failed.
    Run(RunError),
}

/// Emits `program` for the device of `opts`, runs `passes` of spirv-opt over it (if any),
/// runs it and decodes the results.
pub fn execute(
    program: &Program,
    passes: &SpirvOptPasses,
    opts: &VulkanOptions,
) -> Result<Executed, ExecuteError> {
    let info = device(opts).map_err(ExecuteError::Run)?;
    let started = Instant::now();
    let mut module =
        driver::module::emit(program, &emit_options(&info)).map_err(ExecuteError::Emit)?;
    let emit = started.elapsed();
    let started = Instant::now();
    if !passes.is_empty() {
        module.words = spirv_opt::run(&module.words, passes).map_err(ExecuteError::SpirvOpt)?;
    }
    let spirv_opt = started.elapsed();
    let out = run_job(&job(&module), opts).map_err(ExecuteError::Run)?;
    let results = module
        .interface
        .results(&program.dispatch, &out.buffers)
        .map_err(|e| ExecuteError::Run(RunError::Failed(format!("read-back: {e}"))))?;
    Ok(Executed {
        module,
        results,
        emit,
        spirv_opt,
        driver: out.timings,
    })
}

/// Runs `job` on this thread's worker, retrying a timeout once with a longer limit.
fn run_job(job: &Job, opts: &VulkanOptions) -> Result<vulkan_runner::Output, RunError> {
    with_worker(opts, |w| {
        w.run(job).or_else(|e| match e {
            // lavapipe compiles at the first dispatch, so a loaded machine can miss the limit
            // once; a hang misses a three times longer one too.
            RunError::Timeout(_) => w.run_within(job, opts.dispatch_timeout * RETRY_FACTOR),
            e => Err(e),
        })
    })
    .and_then(|r| r)
}

/// Whether two findings (of the same case on two drivers) show the same bug: the same known
/// bug ([`known`]), or the same kind with the same first compared word wrong in the same way,
/// or, for findings without a difference (a crash, a timeout, a refused pipeline), the same
/// kind and class. Driver names and versions play no part.
pub fn same_bug(a: &Finding, b: &Finding) -> bool {
    let known = |f: &Finding| match &f.cause {
        Some(Cause::Target { classes }) => classes
            .iter()
            .find_map(|c| known::by_class(c))
            .map(|k| k.class),
        _ => None,
    };
    if known(a).is_some() || known(b).is_some() {
        return known(a) == known(b);
    }
    a.kind == b.kind
        && match (&a.difference, &b.difference) {
            (Some(x), Some(y)) => x == y,
            (None, None) => a.class == b.class,
            _ => false,
        }
}

/// `detail` with the device named, for every finding of this target.
fn on_device(detail: impl std::fmt::Display, opts: &VulkanOptions) -> String {
    match device(opts) {
        Ok(info) => format!("{detail} [on {}]", info.describe()),
        Err(_) => detail.to_string(),
    }
}

/// The finding for a failed spirv-opt step, bucketed by where a crash crashed.
fn spirv_opt_finding(e: RunFailure) -> Box<Finding> {
    let class = match &e {
        RunFailure::Failed(f) => f.class(),
        RunFailure::NotStarted(_) => "spirv-opt".into(),
    };
    caused(
        "vulkan",
        FindingKind::CompileError,
        e.to_string(),
        Cause::named(class),
    )
}

/// The finding for a failed run.
fn run_finding(e: RunError, opts: &VulkanOptions) -> Box<Finding> {
    let (kind, class) = of_run_error(&e, Asks::Run);
    caused("vulkan", kind, on_device(&e, opts), Cause::named(class))
}

impl Target for Vulkan {
    fn name(&self) -> &'static str {
        "vulkan"
    }

    fn description(&self) -> &'static str {
        "SPIR-V compute shader on a Vulkan driver (lavapipe: apt-get install mesa-vulkan-drivers libvulkan1)"
    }

    fn in_default_set(&self) -> bool {
        false
    }

    fn available(&self) -> Result<(), String> {
        // Device 0 of the default ICDs; `--vk-device`/`--vk-icd` are checked when the
        // oracle's options are built.
        device(&VulkanOptions::default())
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    /// Opens the device of `--vk-device`/`--vk-icd`: without one, `--target vulkan` is a usage
    /// error saying what to install.
    fn prepare(&self, opts: &OracleOptions) -> Result<Option<String>, String> {
        let info = device(&opts.vulkan).map_err(|e| match &opts.vulkan.icd {
            Some(icd) => format!("--target vulkan with ICD {}: {e}", icd.display()),
            None => format!("--target vulkan: {e}"),
        })?;
        Ok(Some(format!("vulkan: {}", info.describe())))
    }

    fn fuses(&self) -> bool {
        true
    }

    fn run_fused(&self, cases: &[(&Case, &Program)], opts: &OracleOptions) -> Vec<FusedOutcome> {
        fused::run_fused(cases, opts)
    }

    fn reads_driver_flags(&self) -> bool {
        true
    }

    fn elsewhere(&self, environment: &serde_json::Value, opts: &OracleOptions) -> Option<String> {
        elsewhere(environment, &opts.vulkan)
    }

    fn with_driver(
        &self,
        opts: &OracleOptions,
        icd: &Path,
    ) -> Option<Result<(OracleOptions, String), String>> {
        let mut other = opts.clone();
        other.vulkan.icd = Some(icd.to_path_buf());
        Some(match device(&other.vulkan) {
            Ok(info) => Ok((other, info.describe())),
            Err(e) => Err(format!("{}: cannot open: {e}", icd.display())),
        })
    }

    fn same_bug(&self, a: &Finding, b: &Finding) -> bool {
        same_bug(a, b)
    }

    /// A vkrunner script, an Amber script and the SPIR-V assembly ([`standalone`]).
    fn standalone_forms(&self) -> &'static [&'static str] {
        &["vk_shader_test", "amber", "spvasm"]
    }

    fn standalone(&self, case: &Case, opts: &OracleOptions, form: &str) -> Result<String, String> {
        let s = repro::of_case(case, opts)?;
        Ok(match form {
            "vk_shader_test" => s.vk_shader_test,
            "amber" => s.amber,
            _ => s.spvasm,
        })
    }

    fn write_standalone(
        &self,
        case: &Case,
        opts: &OracleOptions,
        dir: &Path,
        stem: &str,
    ) -> Option<Result<Written, String>> {
        // spirv-opt fails on the module: the repro is SPIRV-Tools' alone.
        if let Some(fails) = repro::spirv_opt_failure(case, opts) {
            return Some(fails.and_then(|f| {
                Ok(Written {
                    files: f.write(dir, stem).map_err(|e| e.to_string())?,
                    shown: f.script(stem),
                    by_hand: None,
                    how: Some(
                        "spirv-opt fails on the module our emitter made: SPIRV-Tools alone \
                         shows it (run the script where the files are):"
                            .into(),
                    ),
                })
            }));
        }
        Some(repro::of_case(case, opts).and_then(|s| {
            Ok(Written {
                files: s.write(dir, stem).map_err(|e| e.to_string())?,
                shown: s.vk_shader_test,
                by_hand: s.spirv_opt.map(|o| o.command),
                how: None,
            })
        }))
    }

    /// Emit, spirv-opt, pipeline creation, dispatch (measured in the worker), and the rest
    /// (the worker's round trip).
    fn timed_parts(&self) -> &'static [&'static str] {
        &["emit", "spirv-opt", "pipeline", "dispatch", "worker"]
    }

    fn timed_run(
        &self,
        case: &Case,
        optimised: &Program,
        opts: &OracleOptions,
    ) -> Result<Vec<Duration>, String> {
        let t = Instant::now();
        let passes = &ModuleKnobs::of(case).spirv_opt;
        let done =
            execute(source(case, optimised), passes, &opts.vulkan).map_err(|e| format!("{e:?}"))?;
        let (emit, optimise) = (done.emit, done.spirv_opt);
        let (pipeline, dispatch) = (done.driver.pipeline, done.driver.dispatch);
        let rest = t
            .elapsed()
            .saturating_sub(emit + optimise + pipeline + dispatch);
        Ok(vec![emit, optimise, pipeline, dispatch, rest])
    }

    /// Its time is a device's, not a backend's to hold against the interpreter.
    fn bench_against_interpreter(&self) -> bool {
        false
    }

    fn runs_on_mesa(&self) -> bool {
        true
    }

    fn environment(&self, opts: &OracleOptions) -> Vec<(String, String)> {
        let v = &opts.vulkan;
        let mut env = crate::targets::driver::mesa::current().record();
        if let Some(version) = spirv_opt::version() {
            env.push((ENV_SPIRV_TOOLS.into(), version.into()));
        }
        env.push((ENV_DEVICE.to_string(), v.device.to_string()));
        if let Some(icd) = &v.icd {
            env.push((ENV_ICD.into(), icd.display().to_string()));
        }
        if let Ok(info) = device(v) {
            env.push((ENV_DRIVER.into(), info.describe()));
        }
        env
    }

    fn skip(&self, case: &Case, opts: &OracleOptions, coverage: &Coverage) -> Option<String> {
        let info = device(&opts.vulkan).ok()?;
        if info.driver_name == "llvmpipe" && coverage.loop_passes >= LLVMPIPE_LOOP_PASSES {
            return Some("llvmpipe loop limit".into());
        }
        if !ModuleKnobs::of(case).spirv_opt.is_empty() {
            if !spirv_opt::installed() {
                return Some("spirv-opt not installed (package spirv-tools)".into());
            }
            if case.program.has_subgroup_ops() && !spirv_opt::reads_maximal_reconvergence() {
                return Some(format!(
                    "subgroups: {} predates MaximallyReconvergesKHR",
                    spirv_opt::version().unwrap_or("spirv-opt")
                ));
            }
        }
        // The emitter's own refusals (what it does not map) are skips; the same check runs
        // on the program `run` will emit.
        emitter_refusal(case, &emit_options(&info))
            .or_else(|| subgroup_refusal(case, &info))
            .or_else(|| int_width_refusal(case, &info))
    }

    fn run(
        &self,
        case: &Case,
        optimised: &Program,
        opts: &OracleOptions,
        _coverage: &mut Coverage,
    ) -> Result<Results, Box<Finding>> {
        let v = &opts.vulkan;
        match execute(source(case, optimised), &ModuleKnobs::of(case).spirv_opt, v) {
            Ok(done) => Ok(done.results),
            Err(ExecuteError::Run(e)) => Err(run_finding(e, v)),
            Err(ExecuteError::SpirvOpt(e)) => Err(spirv_opt_finding(e)),
            Err(ExecuteError::Emit(e)) => Err(emit_failed("vulkan", &e)),
        }
    }

    fn compare(
        &self,
        case: &Case,
        optimised: &Program,
        opts: &OracleOptions,
        expected: &Results,
        actual: &Results,
    ) -> Option<Finding> {
        // The device was opened by `run`; its float controls decide which words are exact.
        let opts = &opts.vulkan;
        let info = device(opts).ok()?;
        let program = source(case, optimised);
        // Exact words bit for bit, a word one inexact op makes within the Vulkan spec's bound
        // for it, the rest not at all (without DenormPreserve, float ops that touch a
        // denormal count as inexact).
        let plan = spirv_emit::comparison(program, &emit_options(&info));
        let (d, bound) = plan.first_difference(expected, actual, &program.dispatch)?;
        let m = Mismatch::from(d);
        let mut f = Finding::new(FindingKind::Mismatch, "vulkan", on_device(m, opts));
        f.difference = Some(m);
        let mut class = Vec::new();
        // Outside an inexact op's bound: a bucket per op.
        let op = bound.as_deref().and_then(|why| why.split(' ').next());
        let bound_class = op.map(|op| format!("outside-bound-{op}"));
        if let (Some(why), Some(c)) = (&bound, &bound_class) {
            f.detail += &format!(" (outside the Vulkan precision bound: {why})");
            class.push(c.as_str());
        }
        // With spirv-opt in between the bug may be SPIRV-Tools': its own bucket.
        let passes = &ModuleKnobs::of(case).spirv_opt;
        if !passes.is_empty() {
            class.push("spirv-opt");
            f.detail += &format!(" (spirv-opt {passes})");
            if let Some(fixed) = known::spirv_opt_fixed_upstream(program, passes, opts, &plan) {
                class.push(fixed.class);
                f.detail += &format!(": {}", fixed.summary);
            }
        }
        // A known driver bug gets its own bucket, so that it does not hide new ones.
        if let Some(bug) = known::explaining(program, expected, actual, &plan.inexact) {
            class.push(bug.class);
        }
        if !class.is_empty() {
            f.set_cause(Cause::target(&class));
        }
        Some(f)
    }

    /// The SPIR-V the driver gets (disassembled with `asm`), the device, where the time went,
    /// and the outputs the device produced; a runner error (timeout, crash, refused pipeline)
    /// is printed and makes the run unclean.
    fn show(
        &self,
        case: &Case,
        opts: &OracleOptions,
        optimised: &Program,
        asm: bool,
    ) -> Result<Shown, String> {
        let program = source(case, optimised);
        let info = device(&opts.vulkan).map_err(|e| e.to_string())?;
        let mut out = format!(
            "// device: {}\n// program: {}\n",
            info.describe(),
            if ModuleKnobs::of(case).unoptimised {
                "the generator's (vulkan_unoptimised=true)"
            } else {
                "after the middle end"
            }
        );
        if asm {
            let module = driver::module::emit(program, &emit_options(&info))
                .map_err(|e| format!("emit: {e}"))?;
            let passes = &ModuleKnobs::of(case).spirv_opt;
            let words = if passes.is_empty() {
                module.words
            } else {
                out += &format!("// after spirv-opt {passes}\n");
                spirv_opt::optimise(&module.words, passes)?
            };
            out += &spirv_emit::disassemble(&words)?;
            out.push('\n');
        }
        let done = match execute(program, &ModuleKnobs::of(case).spirv_opt, &opts.vulkan) {
            Ok(done) => done,
            Err(ExecuteError::Emit(e)) => return Err(format!("emit: {e}")),
            Err(ExecuteError::SpirvOpt(e)) => return Err(e.to_string()),
            Err(ExecuteError::Run(e)) => {
                out += &format!("// run: {e}\n");
                return Ok(Shown {
                    text: out,
                    clean: false,
                });
            }
        };
        out += &format!(
            "// emit {:?}, pipeline {:?}, dispatch {:?}\n",
            done.emit, done.driver.pipeline, done.driver.dispatch
        );
        out += &format_results(&program.dispatch, &done.results);
        Ok(Shown {
            text: out,
            clean: true,
        })
    }

    /// The SPIR-V module the driver got (after spirv-opt, if the case has a pass list), with
    /// the device it ran on: what a driver developer needs beside the `.ir`.
    fn listing(
        &self,
        case: &Case,
        opts: &OracleOptions,
        optimised: &Program,
        _first_output: Option<u32>,
    ) -> Option<String> {
        let info = device(&opts.vulkan).ok()?;
        let module = driver::module::emit(source(case, optimised), &emit_options(&info)).ok()?;
        let passes = &ModuleKnobs::of(case).spirv_opt;
        let words = if passes.is_empty() {
            module.words
        } else {
            spirv_opt::optimise(&module.words, passes).ok()?
        };
        let mut s = format!("; device: {}\n", info.describe());
        if !passes.is_empty() {
            s += &format!("; after spirv-opt {passes}\n");
        }
        s += &spirv_emit::disassemble(&words).ok()?;
        s.push('\n');
        Some(s)
    }

    fn knobs(&self) -> &'static [&'static str] {
        &["vulkan_unoptimised", "vulkan_spirv_opt"]
    }
}
