//! A compile-only target over a vendor's no-op drm-shim, written once for every driver that is
//! only compiled (turnip, NVK, Asahi): the shim answers the kernel, so the driver enumerates a
//! GPU and compiles, and its submissions do nothing — nothing runs, nothing is compared. What
//! a driver brings is a [`ShimDriver`]: its name, its environment file, the environment a
//! case's knobs make (the GPU, its compiler's debug switches) and the statistic that says it
//! spilled.
//!
//! A finding is the compile dying (an assertion's text, a Rust panic's place — NAK is Rust —,
//! else the signal and faulting frame), not ending, or the driver refusing the pipeline; a
//! crash is judged again in a fresh worker before it is one (a long-lived worker carries
//! earlier compiles' state, the shim's buffer space among it).

use super::causes::{emit_failed, of_run_error, Asks};
use super::mesa::{self, Environment};
use super::module::{compile_only_job, emit, emit_options, emitter_refusal, source};
use super::workers::with_worker;
use crate::case::coverage::Coverage;
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::cause::Cause;
use crate::finding::{Finding, FindingKind};
use crate::targets::shown::{Shown, Written};
use crate::targets::{caused, Target};
use compiler::ir::Program;
use sim::dispatch::Results;
use spirv_emit::{EmitError, EmittedModule};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;
use vulkan_runner::{Executable, RunError, StatValue, Worker, WorkerCommand, WorkerOptions};

/// How long one compile may take before the worker is presumed hung.
const COMPILE_TIMEOUT: Duration = Duration::from_secs(20);

/// What a compile-only driver brings to [`CompileOnly`].
pub trait ShimDriver: Sync {
    /// The target's name (`turnip`).
    fn name(&self) -> &'static str;
    /// One line for `--target` help.
    fn description(&self) -> &'static str;
    /// Its environment file in the Mesa folder (`turnip.env`) and the lines' prefix
    /// (`GPUFUZZ_TURNIP`); `<prefix>_ENV` names another file.
    fn env_file(&self) -> (&'static str, &'static str);
    /// Every switch word a case may set, by variable: checked against the driver's library
    /// when the environment is read (Mesa ignores a name it does not know).
    fn switches(&self) -> &'static [(&'static str, &'static str)];
    /// The driver's environment for `case` (its GPU and switches; the shim is added).
    fn driver_env(&self, case: &Case) -> Vec<(String, String)>;
    /// The case's knob names.
    fn knobs(&self) -> &'static [&'static str];
    /// Whether its compiler is Rust (NAK), whose switch names the library holds unterminated.
    fn in_rust(&self) -> bool {
        false
    }
    /// The statistics `gpufuzz stats` records, in report order; those marked as spills say,
    /// when not zero, that the compile spilled.
    fn statistics(&self) -> &'static [Statistic];
    /// What the driver's own code is checked for once the compile ended (turnip: our ir3
    /// decoder against ir3's listing); what cannot be checked is counted in `coverage`.
    fn check(
        &self,
        _case: &Case,
        _capture: &Capture,
        _coverage: &mut Coverage,
    ) -> Result<(), Disagreement> {
        Ok(())
    }
    /// The driver's code run and judged, when the target can execute it (turnip: ir3's code
    /// on our a6xx executor against the interpreter); `program` is the one the driver
    /// compiled. What cannot be run is counted in `coverage`.
    fn judge(
        &self,
        _case: &Case,
        _program: &Program,
        _capture: &Capture,
        _opts: &OracleOptions,
        _coverage: &mut Coverage,
    ) -> Result<(), Box<Finding>> {
        Ok(())
    }
    /// What `gpufuzz run` says of the driver's code beyond its statistics (turnip: the
    /// executor's verdict, the hazards, and with `--trace` the executed instructions), and
    /// whether that is clean.
    fn explain(
        &self,
        _case: &Case,
        _program: &Program,
        _capture: &Capture,
        _opts: &OracleOptions,
    ) -> (String, bool) {
        (String::new(), true)
    }
    /// What `--emit asm` adds after the driver's representations (turnip: ir3's words with
    /// our decoding where it differs).
    fn annotate(&self, _case: &Case, _capture: &Capture) -> String {
        String::new()
    }
}

/// One statistic a driver reports for an executable (`VK_KHR_pipeline_executable_properties`).
pub struct Statistic {
    /// The driver's name for it (`STP Count`).
    pub theirs: &'static str,
    /// Ours, in stats files (`spills`).
    pub ours: &'static str,
    /// Whether a non-zero value means the compile spilled.
    pub spills: bool,
}

impl Statistic {
    /// A statistic that counts something other than spills.
    pub const fn count(theirs: &'static str, ours: &'static str) -> Self {
        Statistic {
            theirs,
            ours,
            spills: false,
        }
    }

    /// A statistic whose non-zero value means the compile spilled.
    pub const fn spill(theirs: &'static str, ours: &'static str) -> Self {
        Statistic {
            theirs,
            ours,
            spills: true,
        }
    }
}

/// Our decoder disagreeing with the driver's listing: a finding against us.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// Where and how (the instruction, its words, both texts).
    pub detail: String,
    /// The bucket: what disagreed (an opcode, a field).
    pub class: String,
}

/// The target of a [`ShimDriver`].
pub struct CompileOnly(pub &'static dyn ShimDriver);

/// What the driver made of one program.
#[derive(Clone, Debug)]
pub struct Capture {
    /// The emitted SPIR-V module.
    pub module: EmittedModule,
    /// The options it was emitted with (the float rules a comparison follows).
    pub emit_options: spirv_emit::EmitOptions,
    /// The pipeline's executables, with the driver's statistics and representations.
    pub executables: Vec<Executable>,
    /// What the driver printed on stderr while compiling.
    pub stderr: String,
    /// Pipeline creation time measured in the worker.
    pub pipeline: Duration,
    /// The data of a pipeline cache holding this pipeline alone (turnip keeps ir3's code
    /// there).
    pub pipeline_cache: Vec<u8>,
    /// The device and driver, for findings.
    pub device: String,
    /// Why the compile was judged in a fresh worker (the long-lived one died on it).
    pub rejudged: Option<String>,
}

impl Capture {
    /// The statistic `name` of the first executable that reports it.
    pub fn statistic(&self, name: &str) -> Option<StatValue> {
        self.executables.iter().find_map(|x| x.statistic(name))
    }
}

/// Why [`compile`] gave no capture.
#[derive(Debug)]
pub enum CompileError {
    /// The emitter refused the program.
    Emit(EmitError),
    /// The runner or driver failed.
    Run(RunError),
}

/// `driver`'s environment on the current Mesa, its switches checked (read once per driver and
/// process: the library checked is tens of MB).
pub fn environment(driver: &dyn ShimDriver) -> Result<Environment, String> {
    static READ: Mutex<Option<HashMap<&'static str, Result<Environment, String>>>> =
        Mutex::new(None);
    let mut read = READ.lock().unwrap_or_else(|e| e.into_inner());
    let read = read.get_or_insert_with(HashMap::new);
    read.entry(driver.name())
        .or_insert_with(|| {
            let (file, prefix) = driver.env_file();
            let env = mesa::driver_environment(&format!("{prefix}_ENV"), file, prefix)?;
            if driver.in_rust() {
                env.check_rust_switches(driver.switches())?;
            } else {
                env.check_switches(driver.switches())?;
            }
            Ok(env)
        })
        .clone()
}

/// Emits `program` and compiles it with `worker`; a crash is judged again in a fresh worker
/// (the crashed one is gone; `compile` starts another) before it is the driver's.
pub fn compile_with(worker: &mut Worker, program: &Program) -> Result<Capture, CompileError> {
    let info = worker.info().clone();
    let emit_options = emit_options(&info);
    let module = emit(program, &emit_options).map_err(CompileError::Emit)?;
    let job = compile_only_job(&module, &info);
    let mut rejudged = None;
    let compiled = match worker.compile(&job) {
        // A fresh worker crashed on it too, under gdb: the driver's crash.
        Err(e @ RunError::WorkerCrashed { stack: Ok(_), .. }) => return Err(CompileError::Run(e)),
        Err(RunError::WorkerCrashed { status, .. }) => {
            let again = worker.compile(&job).map_err(CompileError::Run)?;
            rejudged = Some(format!(
                "a long-lived worker died ({status}); compiled in a fresh one"
            ));
            again
        }
        other => other.map_err(CompileError::Run)?,
    };
    Ok(Capture {
        module,
        emit_options,
        executables: compiled.executables,
        stderr: compiled.stderr,
        pipeline: compiled.pipeline,
        pipeline_cache: compiled.pipeline_cache,
        device: info.describe(),
        rejudged,
    })
}

/// The worker's whole environment for `case`: the shim preloaded, then the driver's own.
fn worker_env(driver: &dyn ShimDriver, env: &Environment, case: &Case) -> Vec<(String, String)> {
    let shim = env.shim.as_ref().map(|s| s.display().to_string());
    (shim.map(|s| ("LD_PRELOAD".to_string(), s)).into_iter())
        .chain(driver.driver_env(case))
        .collect()
}

/// Runs `f` with this thread's worker of `driver` for `case` (started if needed).
fn on_worker<R>(
    driver: &dyn ShimDriver,
    case: &Case,
    f: impl FnOnce(&mut Worker) -> R,
) -> Result<R, RunError> {
    let env = environment(driver).map_err(RunError::NoVulkan)?;
    let vars = worker_env(driver, &env, case);
    let key = (
        driver.name(),
        vars.iter().map(|(k, v)| (k.into(), v.into())).collect(),
    );
    let options = || {
        let program = crate::exe::worker_program();
        let mut o = WorkerOptions::new(WorkerCommand {
            program,
            args: vec!["vk-worker".into()],
        });
        o.icd = Some(env.icd.clone());
        o.root = env.root.clone();
        o.compile_timeout = COMPILE_TIMEOUT;
        o.env = vars
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        Ok(o)
    };
    with_worker(key, options, f)
}

/// Emits `program` and compiles it with `driver` as `case` asks.
pub fn compile(
    driver: &dyn ShimDriver,
    case: &Case,
    program: &Program,
) -> Result<Capture, CompileError> {
    on_worker(driver, case, |w| compile_with(w, program)).map_err(CompileError::Run)?
}

/// The place of a Rust panic in a dead worker's stderr (`panicked at
/// ../src/nouveau/compiler/nak/spill_values.rs:102:9`), the crash's class when the compiler
/// panicked (NAK); `None` for another death.
pub fn rust_panic(stderr: &str) -> Option<String> {
    let line = stderr.lines().find(|l| l.contains("panicked at "))?;
    let place = line
        .split("panicked at ")
        .nth(1)?
        .trim_end_matches(':')
        .trim();
    let place = place.rsplit_once("/src/").map_or(place, |(_, p)| p);
    Some(format!("panicked at {place}"))
}

/// The finding for a failed compile of `case` by `driver`.
fn run_finding(driver: &dyn ShimDriver, case: &Case, e: RunError) -> Box<Finding> {
    let (kind, mut class) = of_run_error(&e, Asks::Compile);
    if let RunError::WorkerCrashed { stderr, .. } = &e {
        if let Some(panic) = rust_panic(stderr) {
            class = panic;
        }
    }
    let vars: Vec<String> = (driver.driver_env(case).into_iter())
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let at = format!("[{} {}]", driver.name(), vars.join(" "));
    caused(
        driver.name(),
        kind,
        format!("{e} {at}"),
        Cause::named(class),
    )
}

/// The SPIR-V module `driver` compiles for `case` (after the middle end), without compiling
/// it: a crash's standalone repro.
fn standalone_module(
    driver: &dyn ShimDriver,
    case: &Case,
    opts: &OracleOptions,
) -> Result<Vec<u32>, String> {
    let optimised = crate::targets::middle::optimise(case, opts, &mut Coverage::default())
        .map_err(|f| f.to_string())?;
    let info = on_worker(driver, case, |w| w.info().clone()).map_err(|e| e.to_string())?;
    emit(source(case, &optimised), &emit_options(&info))
        .map(|m| m.words)
        .map_err(|e| e.to_string())
}

impl Target for CompileOnly {
    fn name(&self) -> &'static str {
        self.0.name()
    }

    fn description(&self) -> &'static str {
        self.0.description()
    }

    fn in_default_set(&self) -> bool {
        false
    }

    fn available(&self) -> Result<(), String> {
        environment(self.0).map(|_| ())
    }

    fn runs_on_mesa(&self) -> bool {
        true
    }

    fn environment(&self, _opts: &OracleOptions) -> Vec<(String, String)> {
        mesa::current().record()
    }

    fn skip(&self, case: &Case, _opts: &OracleOptions, _coverage: &Coverage) -> Option<String> {
        emitter_refusal(case, &spirv_emit::EmitOptions::default())
    }

    fn run(
        &self,
        case: &Case,
        optimised: &Program,
        opts: &OracleOptions,
        coverage: &mut Coverage,
    ) -> Result<Results, Box<Finding>> {
        let capture = match compile(self.0, case, source(case, optimised)) {
            Ok(capture) => capture,
            Err(CompileError::Emit(e)) => return Err(emit_failed(self.0.name(), &e)),
            Err(CompileError::Run(e)) => return Err(run_finding(self.0, case, e)),
        };
        if capture.executables.is_empty() {
            return Err(caused(
                self.0.name(),
                FindingKind::CompileError,
                format!("the pipeline has no executables [{}]", capture.device),
                Cause::named("no-executables"),
            ));
        }
        // Counted, not reported as the driver's: the crash was the long-lived worker's state.
        if let Some(why) = &capture.rejudged {
            coverage.skipped.push(format!("{}: {why}", self.0.name()));
        }
        coverage.spills |= (self.0.statistics().iter().filter(|s| s.spills))
            .any(|s| capture.statistic(s.theirs).is_some_and(|v| number(v) > 0));
        // Ours, never the driver's: a decoder that disagrees with the driver's own listing.
        if let Err(d) = self.0.check(case, &capture, coverage) {
            return Err(caused(
                self.0.name(),
                FindingKind::Decoder,
                format!("{} [{}]", d.detail, capture.device),
                Cause::named(format!("decoder {}", d.class)),
            ));
        }
        self.0
            .judge(case, source(case, optimised), &capture, opts, coverage)?;
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

    /// The driver's capture: its statistics and stderr, with `asm` the SPIR-V module and the
    /// driver's own representations (ir3's assembly, NAK's, AGX's).
    fn show(
        &self,
        case: &Case,
        opts: &OracleOptions,
        optimised: &Program,
        asm: bool,
    ) -> Result<Shown, String> {
        let vars: Vec<String> = (self.0.driver_env(case).into_iter())
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let mut out = format!("// {} with {}\n", self.0.name(), vars.join(" "));
        let capture = match compile(self.0, case, source(case, optimised)) {
            Ok(capture) => capture,
            Err(CompileError::Emit(e)) => return Err(format!("emit: {e}")),
            Err(CompileError::Run(e)) => {
                out += &format!("// compile: {}\n", run_finding(self.0, case, e));
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
            out += "// -- the SPIR-V module the driver was given\n";
            out += &spirv_emit::disassemble(&capture.module.words)?;
            out.push('\n');
        }
        for line in capture.stderr.lines().filter(|l| !l.trim().is_empty()) {
            out += &format!("// stderr: {line}\n");
        }
        for x in &capture.executables {
            out += &format!("// == {} (subgroup size {})\n", x.name, x.subgroup_size);
            if asm {
                for (name, text) in &x.representations {
                    out += &format!("// -- {name}\n{}\n", text.trim_end());
                }
            }
            for s in &x.statistics {
                out += &format!("// {}: {}\n", s.name, s.value);
            }
        }
        if asm {
            out += &self.0.annotate(case, &capture);
        }
        let (verdict, clean) = self
            .0
            .explain(case, source(case, optimised), &capture, opts);
        out += &verdict;
        Ok(Shown {
            text: out,
            clean: clean && !capture.executables.is_empty(),
        })
    }

    /// The SPIR-V module the driver was given, headed by its environment; the compile itself
    /// is not repeated here (a crash would take triage with it).
    fn listing(
        &self,
        case: &Case,
        _opts: &OracleOptions,
        optimised: &Program,
        _first_output: Option<u32>,
    ) -> Option<String> {
        let module = emit(source(case, optimised), &Default::default()).ok()?;
        let spvasm = spirv_emit::disassemble(&module.words).ok()?;
        let mesa = environment(self.0).map_or_else(|_| "?".into(), |e| e.mesa);
        let mut out = format!("; {} (Mesa {mesa}), compiled with:\n", self.0.name());
        for (k, v) in self.0.driver_env(case) {
            out += &format!(";   {k}={v}\n");
        }
        out += &spvasm;
        Some(out)
    }

    fn standalone_forms(&self) -> &'static [&'static str] {
        &["spvasm"]
    }

    fn standalone(&self, case: &Case, opts: &OracleOptions, form: &str) -> Result<String, String> {
        if form != "spvasm" {
            return Err(format!("target {} has no --emit {form}", self.0.name()));
        }
        super::standalone::disassemble(&standalone_module(self.0, case, opts)?)
    }

    /// The SPIR-V module the driver compiles (or crashes on), as `<stem>.spvasm`.
    fn write_standalone(
        &self,
        case: &Case,
        opts: &OracleOptions,
        dir: &Path,
        stem: &str,
    ) -> Option<Result<Written, String>> {
        Some(
            standalone_module(self.0, case, opts)
                .and_then(|words| super::standalone::write_module(&words, dir, stem)),
        )
    }

    fn knobs(&self) -> &'static [&'static str] {
        self.0.knobs()
    }

    fn measurements(&self) -> Option<Vec<&'static str>> {
        Some(self.0.statistics().iter().map(|s| s.ours).collect())
    }

    /// The driver's statistics for the compile of `case.program` with the GPU and switches
    /// `case` draws; a compile that dies or reports a statistic short is an error, never a
    /// row of zeros.
    fn record(&self, case: &Case) -> Result<Vec<(String, u64)>, String> {
        let name = self.0.name();
        let capture = compile(self.0, case, &case.program).map_err(|e| match e {
            CompileError::Emit(e) => format!("emit: {e}"),
            CompileError::Run(e) => run_finding(self.0, case, e).to_string(),
        })?;
        (self.0.statistics().iter())
            .map(|s| match capture.statistic(s.theirs) {
                Some(v) => Ok((s.ours.to_string(), number(v))),
                None => Err(format!(
                    "{name} reported no {:?} statistic [{}]",
                    s.theirs, capture.device
                )),
            })
            .collect()
    }
}

/// A statistic as a count.
pub fn number(v: StatValue) -> u64 {
    match v {
        StatValue::Bool(b) => u64::from(b),
        StatValue::Int(i) => i.max(0) as u64,
        StatValue::Uint(u) => u,
        StatValue::Float(f) => f.max(0.0) as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NAK's panics are bucketed by their place in Mesa's tree, not the build's path.
    #[test]
    fn a_rust_panic_is_classed_by_its_place() {
        let stderr =
            "thread '<unnamed>' panicked at ../src/nouveau/compiler/nak/spill_values.rs:102:9:\n\
                      assertion failed: x\nnote: run with RUST_BACKTRACE=1\n";
        assert_eq!(
            rust_panic(stderr).as_deref(),
            Some("panicked at nouveau/compiler/nak/spill_values.rs:102:9")
        );
        assert_eq!(rust_panic("Segmentation fault"), None);
    }

    struct Stand;
    impl ShimDriver for Stand {
        fn name(&self) -> &'static str {
            "stand-in"
        }
        fn description(&self) -> &'static str {
            "a stand-in driver"
        }
        fn env_file(&self) -> (&'static str, &'static str) {
            ("stand-in.env", "GPUFUZZ_STAND_IN")
        }
        fn switches(&self) -> &'static [(&'static str, &'static str)] {
            &[]
        }
        fn driver_env(&self, _case: &Case) -> Vec<(String, String)> {
            vec![("NAK_DEBUG".into(), "spill".into())]
        }
        fn knobs(&self) -> &'static [&'static str] {
            &[]
        }
        fn statistics(&self) -> &'static [Statistic] {
            &[]
        }
    }

    /// A compiler that panics (NAK) makes a crash finding classed by the panic's place, with
    /// the driver's environment in its detail; a C compiler's assertion by its text.
    #[test]
    fn a_dead_compile_is_a_crash_of_the_right_class() {
        use crate::targets::driver::fake_worker::{fake_worker, program, Answer};
        let panic = "thread '<unnamed>' panicked at ../src/nouveau/compiler/nak/ra.rs:77:13:\n\
                     no register\n";
        let case = Case {
            config: Default::default(),
            program: program(),
        };
        let assertion = "nvk: ../src/nouveau/vulkan/nvk_shader.c:12: f: Assertion `y' failed.\n";
        for (stderr, class) in [
            (panic, "panicked at nouveau/compiler/nak/ra.rs:77:13"),
            (assertion, "Assertion `y' failed."),
        ] {
            let (mut w, dir) = fake_worker(stderr, Answer::Abort);
            let Err(CompileError::Run(e)) = compile_with(&mut w, &case.program) else {
                panic!("the stand-in died")
            };
            let f = run_finding(&Stand, &case, e);
            let _ = std::fs::remove_dir_all(dir);
            assert_eq!(f.kind, FindingKind::Crash, "{f}");
            assert!(f.class.as_deref().unwrap().ends_with(class), "{f}");
            assert!(
                f.detail.contains("[stand-in NAK_DEBUG=spill]"),
                "{}",
                f.detail
            );
        }
    }
}
