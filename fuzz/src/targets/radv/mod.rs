//! The `radv` target (opt-in, compile-only): the program as SPIR-V, compiled by AMD's
//! production Vulkan driver (radv, with ACO as its backend) on a simulated GPU — Mesa's amdgpu
//! no-op drm-shim preloaded into the worker process answers the kernel's calls,
//! `AMDGPU_GPU_ID` picks the device — with ACO's own validators switched on, and the driver's
//! statistics captured through `VK_KHR_pipeline_executable_properties`.
//!
//! ACO's validators (`ACO_DEBUG`, `src/amd/compiler/aco_validate.cpp`): `validatera` checks
//! every register assignment after allocation (spilling included) and aborts on an error
//! after printing it and the program; `validateir` checks the IR after every pass; it is on
//! by default only in debug builds, but the release library honours the switch — it prints
//! each error (`ACO ERROR:`) and, the `assert` being compiled out, carries on — and
//! `validate-livevars` checks the liveness the allocator relies on. All three are always on.
//!
//! What is a finding: an ACO validator's message on the worker's stderr (`ra-check` for the
//! allocation validator, else `compile-error` class `aco-validator`; the worker's stderr is
//! cut per compile by `vulkan_runner`), the worker dying (`crash`: an assertion or a signal;
//! bucketed by the validator's message or the assertion's text), a compile outliving the
//! deadline (`timeout`), the driver refusing the pipeline (`compile-error`). Nothing runs:
//! the shim's submissions do nothing, so results are never compared. A validator's finding
//! carries a typed cause ([`AcoValidator`], `causes`: the check, the GPU's generation, the
//! message and the opcode it quotes); a known ACO bug (`known`) gets its own bucket. A crash
//! is judged again in a fresh worker before it is a finding ([`compile_with`]).
//!
//! Case knobs (drawn per input from a hash of its bytes, recorded in the `; case:` header):
//! `radv_gpu`, the device, one of the GPUs the shim library itself lists (`shim`; Mesa 25.0.7:
//! GFX6 pitcairn to GFX11.5 gfx1150), and `radv_wave`, the compute wave size: 64 (radv's
//! default) or 32 (`RADV_PERFTEST=cswave32`, GFX10 and later; older GPUs only have wave64,
//! and the executable's subgroup size says which ran). Each (GPU, wave) pair is one worker
//! process (`crate::targets::driver::workers`).
//!
//! The driver and shim come from `scripts/mesa-backports.sh`, which writes `radv.env` in
//! `${GPUFUZZ_CACHE:-~/.cache/gpufuzz}/mesa-25.0.7/`; `GPUFUZZ_RADV_ENV` names another file.

pub mod causes;
pub mod gfx;
pub mod knobs;
pub mod known;
pub mod shim;
mod stats;

pub use self::causes::{AcoCheck, AcoValidator};
use self::gfx::GfxLevel;
pub use self::knobs::{Gpu, RadvKnobs, Wave, GPUS};
use super::shown::{Shown, Written};
use super::target::{caused, Target};
use crate::case::coverage::Coverage;
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::cause::Cause;
use crate::finding::{Finding, FindingKind};
use crate::targets::driver;
use crate::targets::driver::causes::{emit_failed, of_run_error, Asks};
use crate::targets::driver::compile_only::number;
use crate::targets::driver::mesa::{self, Environment};
use crate::targets::driver::workers::with_worker;
use compiler::ir::Program;
use sim::dispatch::Results;
use spirv_emit::EmitError;
use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;
use vulkan_runner::{Compiled, Executable, RunError, Worker, WorkerCommand, WorkerOptions};

/// The `radv` target.
pub struct Radv;

/// `ACO_DEBUG` for every compile: all of ACO's validators the version has (22.3.6 has no
/// `validate-livevars`; its library holds no such name, so asking for it would be ignored).
pub fn aco_debug_for(mesa: &str) -> &'static str {
    if mesa.starts_with("22.") {
        "validateir,validatera"
    } else {
        "validateir,validatera,validate-livevars"
    }
}

/// [`aco_debug_for`] the installed radv.
pub fn aco_debug() -> &'static str {
    environment().map_or(aco_debug_for(""), |e| aco_debug_for(&e.mesa))
}

/// How long one compile may take before the worker is presumed hung.
pub const COMPILE_TIMEOUT: Duration = Duration::from_secs(20);

/// The current Mesa's `radv.env` (`GPUFUZZ_RADV_ENV` names another file), with the switches
/// a compile sets checked against its driver; the error says what to run. Read once per
/// process: every compile asks, and the library checked is 20 MB.
pub fn environment() -> Result<Environment, String> {
    static ENVIRONMENT: OnceLock<Result<Environment, String>> = OnceLock::new();
    ENVIRONMENT
        .get_or_init(|| {
            let env = mesa::driver_environment(ENV_VARIABLE, "radv.env", "GPUFUZZ_RADV")?;
            env.check_switches(&[
                ("ACO_DEBUG", aco_debug_for(&env.mesa)),
                ("RADV_DEBUG", RADV_DEBUG),
                ("RADV_PERFTEST", WAVE32),
            ])?;
            Ok(env)
        })
        .clone()
}

/// `RADV_DEBUG` for every compile: every program really compiled (radv's in-memory and disk
/// caches off).
const RADV_DEBUG: &str = "nocache";

/// `RADV_PERFTEST` for a wave32 compile.
const WAVE32: &str = "cswave32";

/// The variable naming another `radv.env`.
pub const ENV_VARIABLE: &str = "GPUFUZZ_RADV_ENV";

/// The amdgpu shim of `env`, as a file of this system.
fn shim_of(env: &Environment) -> Result<std::path::PathBuf, String> {
    env.shim_file().ok_or_else(|| {
        format!(
            "radv's environment (Mesa {}) names no amdgpu drm-shim",
            env.mesa
        )
    })
}

/// The GPUs the installed shim knows, in its order (read once).
pub fn shim_gpus() -> Result<&'static [String], String> {
    static GPUS: OnceLock<Result<Vec<String>, String>> = OnceLock::new();
    GPUS.get_or_init(|| shim::gpus(&shim_of(&environment()?)?))
        .as_deref()
        .map_err(Clone::clone)
}

/// Why the chosen Mesa's shim cannot simulate `gpu`, if it cannot.
pub fn unsupported(gpu: &Gpu) -> Option<String> {
    let gpus = shim_gpus().ok()?;
    (!gpus.iter().any(|g| g == gpu.name())).then(|| {
        let mesa = environment().map_or_else(|_| "?".into(), |e| e.mesa.clone());
        format!("GPU {} is not in Mesa {mesa}'s amdgpu shim", gpu.name())
    })
}

/// The driver's environment for a GPU and wave size (besides the ICD).
fn driver_env(gpu: &Gpu, wave: Wave, shim: &std::path::Path) -> Vec<(String, String)> {
    let mut env = vec![
        ("LD_PRELOAD".into(), shim.display().to_string()),
        ("AMDGPU_GPU_ID".into(), gpu.name().to_string()),
        ("ACO_DEBUG".into(), aco_debug().into()),
        ("RADV_DEBUG".into(), RADV_DEBUG.into()),
    ];
    if wave == Wave::W32 {
        env.push(("RADV_PERFTEST".into(), WAVE32.into()));
    }
    env
}

fn worker_options(env: Vec<(String, String)>, installed: Environment) -> WorkerOptions {
    let program = crate::exe::worker_program();
    let mut o = WorkerOptions::new(WorkerCommand {
        program,
        args: vec!["vk-worker".into()],
    });
    o.icd = Some(installed.icd);
    o.root = installed.root;
    o.compile_timeout = COMPILE_TIMEOUT;
    o.env = env.into_iter().map(|(k, v)| (k.into(), v.into())).collect();
    o
}

/// What radv made of one program.
#[derive(Clone, Debug)]
pub struct Capture {
    /// The device.
    pub gpu: Gpu,
    /// The wave size asked for.
    pub wave: Wave,
    /// The emitted SPIR-V module.
    pub module: spirv_emit::EmittedModule,
    /// The pipeline's executables (one compute shader), with radv's and ACO's statistics.
    pub executables: Vec<Executable>,
    /// What the driver printed on stderr while compiling.
    pub stderr: String,
    /// Target creation time measured in the worker.
    pub pipeline: Duration,
    /// The device and driver, for findings.
    pub device: String,
    /// Why the compile was judged in a fresh worker process: the worker that had compiled
    /// earlier cases crashed on it, and a fresh one compiled it (see [`compile_with`]).
    pub rejudged: Option<String>,
}

/// What the no-op shim prints when its buffer space is used up: in a long-lived worker radv
/// then crashes on a program that compiles in a fresh one (each compile takes space the shim
/// never gives back).
const SHIM_OUT_OF_SPACE: &str = "Failed to allocate a buffer";

/// Why [`compile`] gave no capture.
#[derive(Debug)]
pub enum CompileError {
    /// The emitter refused the program.
    Emit(EmitError),
    /// The runner or driver failed.
    Run(RunError),
}

/// Emits `program` and compiles it with `worker` (a radv worker of `gpu` and `wave`).
///
/// A crash is judged again in a fresh worker process (the crashed one is gone; `compile`
/// starts another) before it is a finding: a worker that compiled earlier cases carries their
/// state — in a long-lived worker the no-op shim's buffer space runs out, and radv then
/// crashes on any program. The fresh worker's verdict is the case's; a crash that does not
/// come back is noted in the capture ([`Capture::rejudged`]), not reported as radv's.
pub fn compile_with(
    worker: &mut Worker,
    program: &Program,
    gpu: &Gpu,
    wave: Wave,
) -> Result<Capture, CompileError> {
    let info = worker.info().clone();
    let module = driver::module::emit(program, &driver::module::emit_options(&info))
        .map_err(CompileError::Emit)?;
    let job = driver::module::compile_only_job(&module, &info);
    let mut rejudged = None;
    let compiled: Compiled = match worker.compile(&job) {
        // A fresh worker crashed on it too, under gdb: the driver's crash.
        Err(e @ RunError::WorkerCrashed { stack: Ok(_), .. }) => return Err(CompileError::Run(e)),
        Err(RunError::WorkerCrashed { stderr, status, .. }) => {
            let again = worker.compile(&job).map_err(CompileError::Run)?;
            rejudged = Some(if stderr.contains(SHIM_OUT_OF_SPACE) {
                "the shim ran out of buffer space in a long-lived worker; compiled in a fresh one"
                    .to_string()
            } else {
                format!("a long-lived worker died ({status}); compiled in a fresh one")
            });
            again
        }
        other => other.map_err(CompileError::Run)?,
    };
    Ok(Capture {
        gpu: gpu.clone(),
        wave,
        module,
        executables: compiled.executables,
        stderr: compiled.stderr,
        pipeline: compiled.pipeline,
        device: info.describe(),
        rejudged,
    })
}

/// Runs `f` with this thread's radv worker for `gpu` at `wave` (started if needed).
fn on_worker<R>(gpu: &Gpu, wave: Wave, f: impl FnOnce(&mut Worker) -> R) -> Result<R, RunError> {
    let env = environment().map_err(RunError::NoVulkan)?;
    let shim = env.shim.clone().ok_or_else(|| {
        RunError::NoVulkan(format!(
            "radv's environment (Mesa {}) names no amdgpu drm-shim",
            env.mesa
        ))
    })?;
    let driver = driver_env(gpu, wave, &shim);
    let key = (
        "radv",
        driver
            .iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect::<Vec<_>>(),
    );
    let options = || Ok(worker_options(driver, env));
    with_worker(key, options, f)
}

/// Emits `program` and compiles it on radv for `gpu` at `wave`.
pub fn compile(program: &Program, gpu: &Gpu, wave: Wave) -> Result<Capture, CompileError> {
    on_worker(gpu, wave, |w| compile_with(w, program, gpu, wave)).map_err(CompileError::Run)?
}

/// The SPIR-V module radv compiles for `program` on `gpu` (emitted for the worker's device, as
/// [`compile`] emits it), without compiling it: a crash's standalone repro.
pub fn module(program: &Program, gpu: &Gpu, wave: Wave) -> Result<Vec<u32>, String> {
    let info = on_worker(gpu, wave, |w| w.info().clone()).map_err(|e| e.to_string())?;
    driver::module::emit(program, &driver::module::emit_options(&info))
        .map(|m| m.words)
        .map_err(|e| e.to_string())
}

/// The module radv compiles for `case` (after the middle end, as the target runs it).
fn standalone_module(case: &Case, opts: &OracleOptions) -> Result<Vec<u32>, String> {
    let optimised =
        super::middle::optimise(case, opts, &mut Coverage::default()).map_err(|f| f.to_string())?;
    let c = RadvKnobs::of(case);
    module(driver::module::source(case, &optimised), &c.gpu, c.wave)
}

/// An error ACO's validators printed: the check's message and where ACO raised it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AcoError {
    /// `aco_validate.cpp:1160`, from the message's `In file` line.
    pub at: String,
    /// The message, its first line (`RA error found at instruction in BB0:`, `Operand
    /// and Definition types do not match: ...`) and the lines after it.
    pub message: String,
}

impl AcoError {
    /// The validator that raised it.
    pub fn check(&self) -> AcoCheck {
        if self.message.starts_with("RA error") || self.message.contains("Assignment of element") {
            AcoCheck::Ra
        } else {
            AcoCheck::Ir
        }
    }

    /// The opcode of the instruction the message's first line quotes after its head
    /// (`Too many SGPRs/literals:  v1: %35 = v_cndmask_b32 1.0, %34, %33` → `v_cndmask_b32`).
    pub fn opcode(&self) -> Option<String> {
        let first = self.message.lines().next()?;
        let (_, inst) = first.split_once(": ")?;
        let inst = inst.split_once(" = ").map_or(inst, |(_, op)| op);
        let op = inst.split_whitespace().next()?;
        op.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
            .then(|| op.to_string())
    }

    /// The cause of a finding on `gpu`: the check, the GPU's generation, the message's head
    /// and the quoted opcode, and the known ACO bug they make, if one.
    pub fn cause(&self, gpu: &Gpu) -> Cause {
        let gfx = GfxLevel::of_gpu(gpu.name());
        let (check, message, opcode) = (self.check(), self.head(), self.opcode());
        let known = known::explaining(check, &message, opcode.as_deref(), gfx);
        let facts = AcoValidator {
            check,
            gfx,
            message,
            opcode,
        };
        facts.cause(known.map(|k| k.class))
    }

    /// The message's head without what varies between programs (temporaries `%12`, blocks
    /// `BB3`, registers `v[4]`, numbers): with the check and the generation, the bucket.
    pub fn head(&self) -> String {
        let first = self.message.lines().next().unwrap_or("");
        let head = first.split(": ").next().unwrap_or(first);
        let mut out = String::new();
        let mut last_digit = false;
        for c in head.chars().take(120) {
            if c.is_ascii_digit() {
                if !last_digit {
                    out.push('N');
                }
                last_digit = true;
            } else {
                out.push(c);
                last_digit = false;
            }
        }
        out.trim_end_matches(':').to_string()
    }
}

/// The errors ACO's validators printed in `stderr` (`_aco_err`: `ACO ERROR:`, an `In file
/// <path>:<line>` line, then the message, indented), in order.
pub fn aco_errors(stderr: &str) -> Vec<AcoError> {
    let mut out = Vec::new();
    let mut lines = stderr.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() != "ACO ERROR:" {
            continue;
        }
        let mut at = String::new();
        let mut message = Vec::new();
        while let Some(next) = lines.peek() {
            let t = next.trim();
            if t == "ACO ERROR:" || !next.starts_with("    ") && !message.is_empty() {
                break;
            }
            if let Some(file) = t.strip_prefix("In file ") {
                at = file.rsplit('/').next().unwrap_or(file).to_string();
            } else if !t.is_empty() {
                message.push(t.to_string());
            }
            lines.next();
        }
        out.push(AcoError {
            at,
            message: message.join("\n"),
        });
    }
    out
}

impl Capture {
    /// Where the capture was made, for findings.
    fn at(&self) -> String {
        format!(
            "[radv {}, wave{}, ACO_DEBUG={}; {}]",
            self.gpu,
            self.wave,
            aco_debug(),
            self.device
        )
    }

    /// The first problem the capture shows: an ACO validator's error, or no executable.
    pub fn finding(&self) -> Option<Box<Finding>> {
        if let Some(e) = aco_errors(&self.stderr).first() {
            return Some(validator_finding(e, &self.gpu, &self.at()));
        }
        if self.executables.is_empty() {
            return Some(caused(
                "radv",
                FindingKind::CompileError,
                format!("the pipeline has no executables {}", self.at()),
                Cause::named("no-executables"),
            ));
        }
        None
    }

    /// The statistic `name` of the compute shader (`VGPRs`, `Spilled SGPRs`, `Instructions`).
    pub fn statistic(&self, name: &str) -> Option<vulkan_runner::StatValue> {
        self.executables.iter().find_map(|x| x.statistic(name))
    }
}

/// An ACO validator's error on `gpu` as a finding; a known ACO bug is bucketed as that bug.
fn validator_finding(e: &AcoError, gpu: &Gpu, at: &str) -> Box<Finding> {
    let kind = match e.check() {
        AcoCheck::Ra => FindingKind::RaCheck,
        AcoCheck::Ir => FindingKind::CompileError,
    };
    let cause = e.cause(gpu);
    let mut detail = format!("ACO's validator ({}): {} {at}", e.at, e.message);
    if let Some(k) = cause.known().and_then(known::by_class) {
        detail += &format!("; known: {}", k.summary);
    }
    caused("radv", kind, detail, cause)
}

/// The finding for a failed compile.
fn run_finding(e: RunError, gpu: &Gpu, wave: Wave) -> Box<Finding> {
    let at = format!("[radv {gpu}, wave{wave}, ACO_DEBUG={}]", aco_debug());
    if let RunError::WorkerCrashed { stderr, .. } = &e {
        // `validatera` prints its errors and the program, then aborts.
        if let Some(v) = aco_errors(stderr).first() {
            return validator_finding(v, gpu, &at);
        }
    }
    let (kind, class) = of_run_error(&e, Asks::Compile);
    caused("radv", kind, format!("{e} {at}"), Cause::named(class))
}

/// A capture's outcome as the target reports it.
fn judged(
    result: Result<Capture, CompileError>,
    gpu: &Gpu,
    wave: Wave,
) -> Result<Capture, Box<Finding>> {
    match result {
        Ok(capture) => match capture.finding() {
            Some(f) => Err(f),
            None => Ok(capture),
        },
        Err(CompileError::Run(e)) => Err(run_finding(e, gpu, wave)),
        Err(CompileError::Emit(e)) => Err(emit_failed("radv", &e)),
    }
}

impl Target for Radv {
    fn name(&self) -> &'static str {
        "radv"
    }

    fn description(&self) -> &'static str {
        "SPIR-V compiled (not run) by Mesa's radv/ACO, its validators on, on a simulated AMD GPU (scripts/mesa-backports.sh)"
    }

    fn in_default_set(&self) -> bool {
        false
    }

    fn available(&self) -> Result<(), String> {
        shim_gpus().map(|_| ())
    }

    fn standalone_forms(&self) -> &'static [&'static str] {
        &["spvasm"]
    }

    /// `spvasm`: the module radv compiles (`spirv-dis`).
    fn standalone(&self, case: &Case, opts: &OracleOptions, _form: &str) -> Result<String, String> {
        driver::standalone::disassemble(&standalone_module(case, opts)?)
    }

    /// The SPIR-V module radv compiles (or crashes on), as `<stem>.spvasm`: a crash
    /// reproduces from it with any Vulkan application on the GPU, without gpufuzz.
    fn write_standalone(
        &self,
        case: &Case,
        opts: &OracleOptions,
        dir: &Path,
        stem: &str,
    ) -> Option<Result<Written, String>> {
        Some(
            standalone_module(case, opts)
                .and_then(|words| driver::standalone::write_module(&words, dir, stem)),
        )
    }

    fn skip(&self, case: &Case, _opts: &OracleOptions, _coverage: &Coverage) -> Option<String> {
        unsupported(&RadvKnobs::of(case).gpu)
            .or_else(|| driver::module::emitter_refusal(case, &spirv_emit::EmitOptions::default()))
    }

    fn run(
        &self,
        case: &Case,
        optimised: &Program,
        _opts: &OracleOptions,
        coverage: &mut Coverage,
    ) -> Result<Results, Box<Finding>> {
        let c = RadvKnobs::of(case);
        let program = driver::module::source(case, optimised);
        let capture = judged(compile(program, &c.gpu, c.wave), &c.gpu, c.wave)?;
        // Counted, not reported as radv's: the crash was the long-lived worker's state.
        if let Some(why) = &capture.rejudged {
            coverage.skipped.push(format!("radv: {why}"));
        }
        coverage.spills |= ["Spilled SGPRs", "Spilled VGPRs"]
            .iter()
            .any(|s| capture.statistic(s).is_some_and(|v| number(v) > 0));
        Ok(Results::default())
    }

    fn compare(
        &self,
        _case: &Case,
        _optimised: &Program,
        _opts: &OracleOptions,
        _expected: &Results,
        _actual: &Results,
    ) -> Option<Finding> {
        // Compile-only: the shim's submissions do nothing, so there is nothing to compare.
        None
    }

    /// radv's capture: the driver's statistics and what it printed on stderr, with `asm` the
    /// SPIR-V module, ACO's IR and the disassembly; a failed compile or a validator's message
    /// is printed and makes the run unclean.
    fn show(
        &self,
        case: &Case,
        _opts: &OracleOptions,
        optimised: &Program,
        asm: bool,
    ) -> Result<Shown, String> {
        let c = RadvKnobs::of(case);
        let program = driver::module::source(case, optimised);
        let mut out = format!(
            "// radv on {} at wave{} with ACO_DEBUG={}\n",
            c.gpu,
            c.wave,
            aco_debug()
        );
        let capture = match compile(program, &c.gpu, c.wave) {
            Ok(capture) => capture,
            Err(CompileError::Emit(e)) => return Err(format!("emit: {e}")),
            Err(CompileError::Run(e)) => {
                out += &format!("// compile: {}\n", run_finding(e, &c.gpu, c.wave));
                return Ok(Shown {
                    text: out,
                    clean: false,
                });
            }
        };
        out += &format!(
            "// device: {}\n// pipeline {:?}\n",
            capture.device, capture.pipeline
        );
        if asm {
            out += "// -- the SPIR-V module radv was given\n";
            out += &spirv_emit::disassemble(&capture.module.words)?;
            out.push('\n');
        }
        for line in capture.stderr.lines().filter(|l| !l.trim().is_empty()) {
            out += &format!("// stderr: {line}\n");
        }
        for x in &capture.executables {
            out += &format!("// == {} (subgroup size {})\n", x.name, x.subgroup_size);
            if asm {
                for name in ["ACO IR", "Assembly"] {
                    if let Some(text) = x.representation(name) {
                        out += &format!("// -- {name}\n{}\n", text.trim_end());
                    }
                }
            }
            for s in &x.statistics {
                out += &format!("// {}: {}\n", s.name, s.value);
            }
        }
        let finding = capture.finding();
        if let Some(f) = &finding {
            out += &format!("// finding: {f}\n");
        }
        Ok(Shown {
            text: out,
            clean: finding.is_none(),
        })
    }

    /// The SPIR-V module radv was given (`.spvasm`), headed by the GPU and switches; the
    /// compile itself is not repeated here (a crash would take triage with it).
    fn listing(
        &self,
        case: &Case,
        _opts: &OracleOptions,
        optimised: &Program,
        _first_output: Option<u32>,
    ) -> Option<String> {
        let c = RadvKnobs::of(case);
        let module =
            driver::module::emit(driver::module::source(case, optimised), &Default::default())
                .ok()?;
        let spvasm = spirv_emit::disassemble(&module.words).ok()?;
        let env = environment().ok();
        let shim = env
            .as_ref()
            .and_then(|e| e.shim.clone())
            .unwrap_or_default();
        let mut out = format!(
            "; radv {} at wave{} (Mesa {}), compiled with:\n",
            c.gpu,
            c.wave,
            env.as_ref().map_or("?", |e| e.mesa.as_str())
        );
        for (k, v) in driver_env(&c.gpu, c.wave, &shim) {
            out += &format!(";   {k}={v}\n");
        }
        out += &spvasm;
        Some(out)
    }

    /// The Mesa it runs (`--mesa`).
    fn runs_on_mesa(&self) -> bool {
        true
    }

    fn environment(&self, _opts: &OracleOptions) -> Vec<(String, String)> {
        crate::targets::driver::mesa::current().record()
    }

    fn knobs(&self) -> &'static [&'static str] {
        &["radv_gpu", "radv_wave"]
    }

    fn measurements(&self) -> Option<Vec<&'static str>> {
        Some(stats::measurements())
    }

    fn record(&self, case: &Case) -> Result<Vec<(String, u64)>, String> {
        stats::record(case)
    }
}

#[cfg(test)]
mod tests;
