//! The `anv` target (opt-in): the program as SPIR-V, compiled by Intel's
//! production Vulkan driver (anv, with brw as its backend) on a simulated GPU — Mesa's drm-shim
//! preloaded into the worker process answers the kernel's calls, `INTEL_STUB_GPU_PLATFORM`
//! picks the device — and brw's output captured through `VK_KHR_pipeline_executable_properties`:
//! per SIMD width kept, the "GEN Assembly" listing with each instruction's bytes
//! (`INTEL_DEBUG=hex`) and brw's statistics.
//!
//! What is a finding: the worker dying (an assertion in NIR, brw or anv aborts the process:
//! `crash`, bucketed by the assertion's text), a compile outliving the worker's deadline
//! (`timeout`), the driver refusing the pipeline (`compile-error`), brw's own validator
//! complaining in the listing (`compile-error`, class `brw-validator`), and — a bug of ours,
//! never brw's — our decoder (Gen9, Gen12, Gen12.5, Xe2) printing an instruction otherwise
//! than brw's disassembler (`decoder`). The shim's submissions do nothing; on skl, tgl, dg2, mtl brw's code
//! runs on our executor instead (`execute`, `sim::intel::exec`; on Gen12 its scoreboard
//! annotations are checked, class `hazard`) and is compared with the
//! interpreter: a difference is re-run with other brw switches and on our own Gen backend
//! (`corroborate`) and stays `unconfirmed` unless those show it to be brw's; a feature the
//! executor does not model is a counted skip.
//!
//! Case knobs (drawn per input from a hash of its bytes, recorded in the `; case:` header):
//! `anv_platform` (skl, or an LSC platform: dg2, mtl, lnl; tgl) and `anv_debug`, brw's own
//! switches: `spill_fs` (forces register-allocator spills), `nocompact`, and the SIMD widths
//! allowed (`cs8+cs16`; `knobs`), spelt per Mesa version (`versions`). Each (platform, switches) pair is one worker
//! process, since the driver reads them from its environment at start (`crate::targets::driver::workers`).
//!
//! anv caches pipelines in memory per device: the same SPIR-V twice in one worker is a cache
//! hit, and brw does not run again. Generated programs differ, so the fuzz loop compiles every
//! one; `compile` of an identical module returns the first compile's capture.
//!
//! The driver and shim come from `scripts/mesa.sh`, which writes `anv.env` in
//! `${GPUFUZZ_CACHE:-~/.cache/gpufuzz}/mesa-25.0.7/`; `GPUFUZZ_ANV_ENV` names another file.
//! The proof re-runs also compile with a second Mesa, Debian bookworm's own anv 22.3.6, whose
//! `anv.env` the same script writes in `mesa-22.3.6/` ([`Mesa`]).

mod binding_table;
mod binding_table_22;
pub mod causes;
mod corroborate;
mod execute;
mod jay;
mod judge;
pub mod knobs;
mod push;
mod stats;
pub mod trace;
pub mod versions;

pub use causes::AnvClass;
pub use jay::{Backend, BackendName, JaySwitches};
pub use knobs::{AnvKnobs, Platform, Switches, Widths};

use super::shown::{Shown, Written};
use super::target::{caused, Target};
use crate::case::coverage::Coverage;
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::cause::Cause;
use crate::finding::{Finding, FindingKind};
use crate::targets::driver;
use crate::targets::driver::causes::{emit_failed, of_run_error, Asks};
use crate::targets::driver::workers::with_worker;
use compiler::ir::Program;
use sim::dispatch::Results;
use sim::intel::{Agreement, Listing, Syntax};
use spirv_emit::EmitError;
use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;
use vulkan_runner::{Compiled, RunError, StatValue, WorkerCommand, WorkerOptions};

/// The `anv` target.
pub struct Anv;

pub use crate::targets::driver::mesa::Environment;

/// Which Mesa's anv compiles: the one under test, or the second one the proof re-runs compare
/// it with. Each has an `anv.env` (`scripts/mesa-sid.sh`, `scripts/mesa.sh`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Install {
    /// The Mesa under test (`--mesa`; `$GPUFUZZ_ANV_ENV` names another `anv.env`).
    Target,
    /// Debian bookworm's own 22.3.6 (`mesa-22.3.6/anv.env`, or `$GPUFUZZ_ANV_SECOND_ENV`).
    Second,
}

/// The second Mesa's version.
pub(super) const SECOND: &str = "22.3.6";

impl Install {
    /// The variable that names another environment file.
    fn variable(self) -> &'static str {
        match self {
            Install::Target => "GPUFUZZ_ANV_ENV",
            Install::Second => "GPUFUZZ_ANV_SECOND_ENV",
        }
    }

    /// Its environment file (`scripts/mesa.sh` writes it).
    pub fn environment_file(self) -> Result<std::path::PathBuf, String> {
        match self {
            Install::Target => {
                crate::targets::driver::mesa::driver_environment_file(self.variable(), "anv.env")
            }
            Install::Second => {
                match std::env::var_os(self.variable()) {
                    Some(f) => Ok(f.into()),
                    None => Ok(crate::targets::driver::mesa::cache()?
                        .join(format!("mesa-{SECOND}/anv.env"))),
                }
            }
        }
    }

    /// Reads its environment file; the error says what to run.
    pub fn environment(self) -> Result<Environment, String> {
        let file = self.environment_file()?;
        crate::targets::driver::mesa::read_environment(
            &file,
            "GPUFUZZ_ANV",
            crate::targets::driver::mesa::SCRIPTS,
        )
    }
}

/// Reads the target's `anv.env` (`GPUFUZZ_ANV_ENV` names another file); the error says what
/// to run.
pub fn environment() -> Result<Environment, String> {
    Install::Target.environment()
}

/// How long one compile may take before the worker is presumed hung.
pub const COMPILE_TIMEOUT: Duration = Duration::from_secs(20);

fn worker_options(
    mesa: Install,
    platform: Platform,
    switches: Switches,
    backend: Backend,
) -> Result<WorkerOptions, String> {
    let env = mesa.environment()?;
    let program = crate::exe::worker_program();
    let mut o = WorkerOptions::new(WorkerCommand {
        program,
        args: vec!["vk-worker".into()],
    });
    let shim = env.shim.ok_or_else(|| {
        format!(
            "anv's environment (Mesa {}) names no Intel drm-shim",
            env.mesa
        )
    })?;
    o.icd = Some(match backend {
        Backend::Brw => env.icd,
        Backend::Jay(_) => jay::icd(&mesa.environment_file()?)?,
    });
    o.root = env.root;
    o.compile_timeout = COMPILE_TIMEOUT;
    let mut variables = versions::of(&env.mesa)?.variables(switches)?;
    variables.extend(backend.variables());
    o.env = vec![("LD_PRELOAD".into(), shim.into())];
    o.env.extend(driver_env(platform, variables));
    Ok(o)
}

/// What the driver is told of the case: the simulated platform and brw's switches (with the
/// shim preloaded, the worker's whole environment; and what tells two workers apart).
fn driver_env(platform: Platform, variables: Vec<(String, String)>) -> Vec<(OsString, OsString)> {
    let platform = (
        "INTEL_STUB_GPU_PLATFORM".to_string(),
        platform.name().to_string(),
    );
    (std::iter::once(platform).chain(variables))
        .map(|(k, v)| (k.into(), v.into()))
        .collect()
}

/// One SIMD variant brw kept.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The executable's name (`SIMD16 compute shader`).
    pub name: String,
    /// Its subgroup size (the dispatch width).
    pub simd: u32,
    /// The listing: anv's header and every instruction with bytes and brw's text.
    pub listing: Listing,
    /// brw's validator's complaints printed in the listing.
    pub validator_errors: Vec<String>,
    /// brw's statistics, in the driver's order.
    pub statistics: Vec<(String, StatValue)>,
    /// Our decoder against brw's disassembly.
    pub agreement: Agreement,
    /// anv's binding table, read from the executable's "Final NIR", or why it is not known.
    pub binding_table: Result<binding_table::BindingTable, String>,
    /// The driver constants the kernel reads, from its "Shader push map" and "Final NIR"
    /// (Mesa 26's push map is a representation of its own; [`push`]).
    pub reads: push::Reads,
}

/// What anv made of one program.
#[derive(Clone, Debug)]
pub struct Capture {
    /// The device.
    pub platform: Platform,
    /// brw's switches.
    pub switches: Switches,
    /// The backend that compiled (brw, or Jay with its switches).
    pub backend: Backend,
    /// The emitted SPIR-V module.
    pub module: spirv_emit::EmittedModule,
    /// The options it was emitted with (the device's float controls), for the comparison.
    pub emit_options: spirv_emit::EmitOptions,
    /// The SIMD variants, in the driver's order.
    pub kernels: Vec<Kernel>,
    /// Target creation time measured in the worker.
    pub pipeline: Duration,
    /// The device and driver, for findings.
    pub device: String,
    /// The Mesa version the driver reports (`25.0.7`, from `Mesa 25.0.7-2~bpo12+1`).
    pub mesa: String,
}

/// Why [`compile`] gave no capture.
#[derive(Debug)]
pub enum CompileError {
    /// The emitter refused the program.
    Emit(EmitError),
    /// The runner, driver or listing failed.
    Run(RunError),
}

/// Emits `program` and compiles it on `mesa`'s anv for `platform` with `switches`, by
/// `backend`.
pub fn compile(
    program: &Program,
    mesa: Install,
    platform: Platform,
    switches: Switches,
    backend: Backend,
) -> Result<Capture, CompileError> {
    let target = match mesa {
        Install::Target => "anv",
        Install::Second => "anv (second Mesa)",
    };
    // The case's words tell two workers apart; each Mesa spells them its own way.
    let key = (
        target,
        vec![
            (platform.name().into(), switches.to_string().into()),
            ("backend".into(), format!("{backend:?}").into()),
        ],
    );
    let options = || worker_options(mesa, platform, switches, backend);
    let (info, done) = with_worker(key, options, |w| {
        let info = w.info().clone();
        let module = driver::module::emit(program, &driver::module::emit_options(&info));
        let module = match module {
            Ok(m) => m,
            Err(e) => return (info, Err(CompileError::Emit(e))),
        };
        let job = driver::module::job(&module);
        (
            info,
            w.compile(&job)
                .map(|c| (module, c))
                .map_err(CompileError::Run),
        )
    })
    .map_err(CompileError::Run)?;
    let (module, compiled) = done?;
    let mut c = capture(platform, switches, module, compiled, info.describe());
    c.backend = backend;
    c.emit_options = driver::module::emit_options(&info);
    Ok(c)
}

/// The version in a device description (`… Mesa 22.3.6] …`, `Mesa 25.0.7-2~bpo12+1`).
fn mesa_version(device: &str) -> String {
    let (_, after) = device.rsplit_once("Mesa ").unwrap_or_default();
    after
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .next()
        .unwrap_or_default()
        .to_string()
}

/// Lines brw's validator adds to a listing (`brw_validate_instructions`: `ERROR: ...`).
fn is_validator_error(line: &str) -> bool {
    line.trim_start().starts_with("ERROR")
}

fn capture(
    platform: Platform,
    switches: Switches,
    module: spirv_emit::EmittedModule,
    compiled: Compiled,
    device: String,
) -> Capture {
    let mesa = mesa_version(&device);
    // The worker was started only for a version in the table (`worker_options`).
    let syntax = versions::of(&mesa).map_or(Syntax::Brw25, |v| v.syntax);
    let kernels = compiled
        .executables
        .iter()
        .map(|x| {
            let text = x.representation("GEN Assembly").unwrap_or_default();
            let validator_errors: Vec<String> = text
                .lines()
                .filter(|l| is_validator_error(l))
                .map(|l| l.trim().to_string())
                .collect();
            let clean: String = text
                .lines()
                .filter(|l| !is_validator_error(l))
                .flat_map(|l| [l, "\n"])
                .collect();
            let listing = sim::intel::parse(&clean).unwrap_or_default();
            let agreement = sim::intel::check_in(platform.gen(), syntax, &listing);
            let binding_table = match x.representation("Final NIR") {
                Some(nir) => binding_table(nir),
                None => Err("the driver gave no Final NIR".into()),
            };
            let reads = push::Reads::read(
                x.representation("Shader push map"),
                x.representation("Final NIR"),
            );
            Kernel {
                name: x.name.clone(),
                simd: x.subgroup_size,
                listing,
                validator_errors,
                statistics: x
                    .statistics
                    .iter()
                    .map(|s| (s.name.clone(), s.value))
                    .collect(),
                agreement,
                binding_table,
                reads,
            }
        })
        .collect();
    Capture {
        platform,
        switches,
        backend: Backend::Brw,
        module,
        emit_options: spirv_emit::EmitOptions::default(),
        kernels,
        pipeline: compiled.pipeline,
        mesa,
        device,
    }
}

/// The finding for a failed compile.
fn run_finding(e: RunError, c: &AnvKnobs) -> Box<Finding> {
    let (kind, class) = of_run_error(&e, Asks::Compile);
    caused(
        "anv",
        kind,
        format!(
            "{e} [anv {}, {}{}]",
            c.platform,
            versions::target_variables_text(c.debug),
            c.backend().text()
        ),
        Cause::named(class),
    )
}

impl Capture {
    /// The variables the driver ran with, as its version spells the case's switches (and
    /// Jay's, when Jay compiled).
    pub fn variables_text(&self) -> String {
        let brw = versions::of(&self.mesa).map_or_else(
            |_| format!("anv_debug={}", self.switches),
            |v| v.variables_text(self.switches),
        );
        brw + &self.backend.text()
    }

    /// The first problem the capture shows: a validator complaint (brw's), an empty capture,
    /// or a decoder disagreement (ours).
    pub fn finding(&self) -> Option<Box<Finding>> {
        let at = format!(
            "[anv {}, {}; {}]",
            self.platform,
            self.variables_text(),
            self.device
        );
        if self.kernels.is_empty() {
            return Some(caused(
                "anv",
                FindingKind::CompileError,
                format!("the pipeline has no executables {at}"),
                AnvClass::NoExecutables.cause(),
            ));
        }
        for k in &self.kernels {
            if let Some(e) = k.validator_errors.first() {
                return Some(caused(
                    "anv",
                    FindingKind::CompileError,
                    format!("{}: brw's validator: {e} {at}", k.name),
                    AnvClass::BrwValidator.cause(),
                ));
            }
            if k.listing.insts.is_empty() {
                return Some(caused(
                    "anv",
                    FindingKind::CompileError,
                    format!(
                        "{}: no instructions with bytes in the GEN Assembly {at}",
                        k.name
                    ),
                    AnvClass::NoListing.cause(),
                ));
            }
            if let Some(d) = k.agreement.disagreements.first() {
                return Some(caused(
                    "anv",
                    FindingKind::Decoder,
                    format!("{}: our decoder disagrees with brw {d} {at}", k.name),
                    AnvClass::Decoder(d.field.0.to_string()).cause(),
                ));
            }
        }
        None
    }

    /// brw's statistic `name` of the widest kernel (`Spill Count`, `Cycle Count`, ...), by its
    /// name before Mesa 26 (26.2.6 reports `Spills`, `Cycles`, ...: [`RENAMED_IN_26`]).
    pub fn statistic(&self, name: &str) -> Option<StatValue> {
        let renamed = (RENAMED_IN_26.iter())
            .find(|(old, _)| *old == name)
            .map(|(_, new)| *new);
        self.kernels
            .iter()
            .max_by_key(|k| k.simd)?
            .statistics
            .iter()
            .find(|(n, _)| n == name || Some(n.as_str()) == renamed)
            .map(|(_, v)| *v)
    }
}

/// brw's statistics Mesa 26 renamed (seen in 26.2.6's captures), by their earlier names; the
/// others (`Scratch Memory Size`, `Max live registers`, ...) kept theirs.
const RENAMED_IN_26: &[(&str, &str)] = &[
    ("Instruction Count", "Instructions"),
    ("SEND Count", "SENDs"),
    ("Loop Count", "Loops"),
    ("Cycle Count", "Cycles"),
    ("Spill Count", "Spills"),
    ("Fill Count", "Fills"),
];

impl Target for Anv {
    fn name(&self) -> &'static str {
        "anv"
    }

    fn description(&self) -> &'static str {
        "SPIR-V compiled by Mesa's anv/brw (or Jay, on lnl) on a simulated Intel GPU, its skl, tgl, dg2 and mtl code run on our executor (scripts/mesa.sh)"
    }

    fn in_default_set(&self) -> bool {
        false
    }

    /// Installed, and a version whose switches and disassembly we know.
    fn available(&self) -> Result<(), String> {
        versions::of(&environment()?.mesa).map(|_| ())
    }

    fn skip(&self, case: &Case, _opts: &OracleOptions, _coverage: &Coverage) -> Option<String> {
        let c = AnvKnobs::of(case);
        if c.platform == Platform::Lnl && c.debug.widths == Widths::only(8) {
            // Xe2 has no SIMD8 compute: anv then refuses the pipeline, which is no brw bug.
            return Some("lnl compiles no SIMD8 compute shader (anv_debug cs8)".into());
        }
        // A switch the installed anv lacks (a saved case's `do32` on 26.2.6): a refusal, never
        // a finding.
        if let Err(why) = versions::target().and_then(|v| v.variables(c.debug)) {
            return Some(why);
        }
        if c.backend == BackendName::Jay {
            if c.platform != Platform::Lnl {
                return Some(format!("Jay compiles Xe2 (lnl) only, not {}", c.platform));
            }
            if let Err(why) = Install::Target
                .environment_file()
                .and_then(|f| jay::icd(&f))
            {
                return Some(why);
            }
        }
        driver::module::no_subgroups(case, "anv")
            .or_else(|| driver::module::emitter_refusal(case, &spirv_emit::EmitOptions::default()))
    }

    fn run(
        &self,
        case: &Case,
        optimised: &Program,
        opts: &OracleOptions,
        coverage: &mut Coverage,
    ) -> Result<Results, Box<Finding>> {
        let c = AnvKnobs::of(case);
        let program = driver::module::source(case, optimised);
        match compile(program, Install::Target, c.platform, c.debug, c.backend()) {
            Ok(capture) => {
                if let Some(f) = capture.finding() {
                    return Err(f);
                }
                let spilled = capture
                    .statistic("Spill Count")
                    .is_some_and(|v| !matches!(v, StatValue::Uint(0) | StatValue::Int(0)));
                coverage.spills |= spilled;
                if c.platform.executed() {
                    judge::judge(case, optimised, program, &capture, opts, coverage)?;
                }
                Ok(Results::default())
            }
            Err(CompileError::Run(e)) => Err(run_finding(e, c)),
            Err(CompileError::Emit(e)) => Err(emit_failed("anv", &e)),
        }
    }

    fn compare(
        &self,
        _case: &Case,
        _optimised: &Program,
        _opts: &OracleOptions,
        _expected: &Results,
        _actual: &Results,
    ) -> Option<Finding> {
        // Nothing to compare here: `run` judged the case (executed platforms) or only compiled it.
        None
    }

    /// anv's capture: per SIMD variant brw kept, the listing (with `asm`), brw's statistics and
    /// our decoder's agreement with brw's disassembly; a failed compile or any finding the
    /// capture shows is printed and makes the run unclean.
    fn show(
        &self,
        case: &Case,
        _opts: &OracleOptions,
        optimised: &Program,
        asm: bool,
    ) -> Result<Shown, String> {
        let c = AnvKnobs::of(case);
        let program = driver::module::source(case, optimised);
        let mut out = format!(
            "// anv on {} with {}{}\n",
            c.platform,
            versions::target_variables_text(c.debug),
            c.backend().text()
        );
        let capture = match compile(program, Install::Target, c.platform, c.debug, c.backend()) {
            Ok(capture) => capture,
            Err(CompileError::Emit(e)) => return Err(format!("emit: {e}")),
            Err(CompileError::Run(e)) => {
                out += &format!("// compile: {e}\n");
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
        for k in &capture.kernels {
            out += &format!("// == {} (SIMD{})\n", k.name, k.simd);
            if asm {
                for line in &k.listing.header {
                    out += &format!("// {line}\n");
                }
                for i in &k.listing.insts {
                    let hex: Vec<String> = i.bytes.iter().map(|b| format!("{b:02x}")).collect();
                    out += &format!(
                        "{:<48}{}\n",
                        hex.join(" "),
                        i.text
                            .replace('\n', "\n                                                ")
                    );
                }
            }
            for (name, value) in &k.statistics {
                out += &format!("// {name}: {value}\n");
            }
            let a = &k.agreement;
            out += &format!(
                "// decoder: {} of {} instructions ({} compacted) print as brw printed them\n",
                a.agreed(),
                a.instructions,
                a.compacted
            );
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

    /// brw's listing of the width that ran, with the first instruction whose result differs
    /// from the interpreter's marked and named in the IR ([`trace`]).
    fn listing(
        &self,
        case: &Case,
        opts: &OracleOptions,
        optimised: &Program,
        _first_output: Option<u32>,
    ) -> Option<String> {
        Some(trace::listing(
            case,
            driver::module::source(case, optimised),
            opts,
        ))
    }

    /// The SPIR-V module anv compiled, as `<stem>.spvasm` (`spirv-dis`; `spirv-as
    /// --target-env vulkan1.1` reads it back).
    fn write_standalone(
        &self,
        case: &Case,
        opts: &OracleOptions,
        dir: &Path,
        stem: &str,
    ) -> Option<Result<Written, String>> {
        let write = || {
            let optimised = super::middle::optimise(case, opts, &mut Coverage::default())
                .map_err(|f| f.to_string())?;
            let c = AnvKnobs::of(case);
            let program = driver::module::source(case, &optimised);
            let capture = compile(program, Install::Target, c.platform, c.debug, c.backend())
                .map_err(|e| format!("anv: {e:?}"))?;
            driver::standalone::write_module(&capture.module.words, dir, stem)
        };
        Some(write())
    }

    /// The Mesa it runs (`--mesa`).
    fn runs_on_mesa(&self) -> bool {
        true
    }

    fn environment(&self, _opts: &OracleOptions) -> Vec<(String, String)> {
        crate::targets::driver::mesa::current().record()
    }

    fn knobs(&self) -> &'static [&'static str] {
        &["anv_platform", "anv_debug", "anv_backend", "jay_debug"]
    }

    fn measurements(&self) -> Option<Vec<&'static str>> {
        Some(stats::measurements())
    }

    /// What the target skips it does not measure either: `Err` with the same reason.
    fn record(&self, case: &Case) -> Result<Vec<(String, u64)>, String> {
        if let Some(why) = driver::module::no_subgroups(case, "anv") {
            return Err(why);
        }
        stats::record(case)
    }
}

/// anv's binding table, from the executable's "Final NIR": its `resource_intel` intrinsics,
/// or for Mesa 22.3's NIR, which has none, solved from the accesses (`binding_table_22`).
fn binding_table(nir: &str) -> Result<binding_table::BindingTable, String> {
    if binding_table_22::is_mesa_22(nir) {
        binding_table_22::from_nir(nir)
    } else {
        binding_table::from_nir(nir)
    }
}

#[cfg(test)]
mod tests;
