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
//! switches: `spill_fs` (forces register-allocator spills), `nocompact`, and one of
//! `no8`/`no16`/`no32`/`do32` (SIMD widths). Each (platform, switches) pair is one worker
//! process, since the driver reads them from its environment at start (`super::shim_workers`).
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
mod corroborate;
mod execute;
mod judge;
mod push;
mod stats;
pub mod trace;
pub mod versions;

use super::pipeline::{caused, Pipeline};
use super::shim_workers::with_worker;
use super::shown::{Shown, Written};
use super::vulkan;
use crate::case::coverage::Coverage;
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::cause::Cause;
use crate::finding::{Finding, FindingKind};
use compiler::ir::Program;
use sim::dispatch::Results;
use sim::intel::{Agreement, Gen, Listing, Syntax};
use spirv_emit::EmitError;
use std::ffi::OsString;
use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::time::Duration;
use vulkan_runner::{crash_class, Compiled, RunError, StatValue, WorkerCommand, WorkerOptions};

/// The `anv` target.
pub struct Anv;

/// A simulated Intel GPU (`INTEL_STUB_GPU_PLATFORM`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Platform {
    /// Skylake, Gfx9.
    #[default]
    Skl,
    /// Tiger Lake, Gfx12.
    Tgl,
    /// DG2 (Alchemist), Gfx12.5: LSC messages.
    Dg2,
    /// Meteor Lake, Gfx12.5 (LSC).
    Mtl,
    /// Lunar Lake, Xe2 (LSC).
    Lnl,
}

impl Platform {
    /// Every platform, the default first.
    pub const ALL: &'static [Platform] = &[
        Platform::Skl,
        Platform::Tgl,
        Platform::Dg2,
        Platform::Mtl,
        Platform::Lnl,
    ];

    /// The name `INTEL_STUB_GPU_PLATFORM` takes.
    pub fn name(self) -> &'static str {
        match self {
            Platform::Skl => "skl",
            Platform::Tgl => "tgl",
            Platform::Dg2 => "dg2",
            Platform::Mtl => "mtl",
            Platform::Lnl => "lnl",
        }
    }

    /// The encoding of its machine code.
    pub fn gen(self) -> Gen {
        match self {
            Platform::Skl => Gen::Gfx9,
            Platform::Tgl => Gen::Gfx12,
            Platform::Dg2 => Gen::Gfx125,
            Platform::Mtl => Gen::Gfx125Mtl,
            Platform::Lnl => Gen::Xe2,
        }
    }

    /// Whether its code runs on our executor and is judged by the interpreter: Gfx9, Gfx12
    /// and Gfx12.5 (Xe2's 64-byte registers are not modelled).
    pub fn executed(self) -> bool {
        matches!(
            self,
            Platform::Skl | Platform::Tgl | Platform::Dg2 | Platform::Mtl
        )
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Platform {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Platform::ALL
            .iter()
            .copied()
            .find(|p| p.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = Platform::ALL.iter().map(|p| p.name()).collect();
                format!(
                    "unknown anv platform {s:?}; platforms: {}",
                    names.join(", ")
                )
            })
    }
}

/// brw's dispatch-width switches; at most one is drawn, among those of the Mesa version
/// (`versions`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Simd {
    /// brw's own choice.
    #[default]
    Default,
    /// `no8`: no SIMD8 variant.
    No8,
    /// `no16`.
    No16,
    /// `no32`.
    No32,
    /// `do32`: try SIMD32 even when a narrower variant compiled.
    Do32,
    /// `INTEL_SIMD_DEBUG=cs8` (Mesa 26): compute shaders at SIMD8 only.
    Cs8,
    /// `INTEL_SIMD_DEBUG=cs16`.
    Cs16,
    /// `INTEL_SIMD_DEBUG=cs32`.
    Cs32,
}

impl Simd {
    /// Whether it is an `INTEL_SIMD_DEBUG` value rather than an `INTEL_DEBUG` word.
    fn is_simd_debug(self) -> bool {
        matches!(self, Simd::Cs8 | Simd::Cs16 | Simd::Cs32)
    }
}

impl fmt::Display for Simd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = SIMD_NAMES
            .iter()
            .find(|(s, _)| s == self)
            .map_or("default", |(_, n)| n);
        f.write_str(name)
    }
}

/// brw's debug switches a case runs with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Switches {
    /// `spill_fs`: the register allocator spills whatever it can (real spill code everywhere).
    pub spill_fs: bool,
    /// `nocompact`: every instruction native (16 bytes).
    pub nocompact: bool,
    /// The dispatch-width switch.
    pub simd: Simd,
}

const SIMD_NAMES: [(Simd, &str); 7] = [
    (Simd::No8, "no8"),
    (Simd::No16, "no16"),
    (Simd::No32, "no32"),
    (Simd::Do32, "do32"),
    (Simd::Cs8, "cs8"),
    (Simd::Cs16, "cs16"),
    (Simd::Cs32, "cs32"),
];

impl Switches {
    /// The `INTEL_DEBUG` words, `hex` (the bytes in the listing) first.
    pub fn intel_debug(self) -> String {
        let mut words = vec!["hex"];
        words.extend(self.words());
        if self.simd.is_simd_debug() {
            // The width switch is last, and goes to INTEL_SIMD_DEBUG.
            words.pop();
        }
        words.join(",")
    }

    /// The `INTEL_SIMD_DEBUG` value, if the width switch is one.
    pub fn simd_debug(self) -> Option<&'static str> {
        SIMD_NAMES
            .iter()
            .find(|(s, _)| *s == self.simd && s.is_simd_debug())
            .map(|(_, n)| *n)
    }

    /// The variables the worker runs with, as findings and comparisons name them
    /// (`INTEL_DEBUG=hex,spill_fs INTEL_SIMD_DEBUG=cs16`).
    pub fn variables(self) -> Vec<(String, String)> {
        let mut v = vec![("INTEL_DEBUG".to_string(), self.intel_debug())];
        if let Some(s) = self.simd_debug() {
            v.push(("INTEL_SIMD_DEBUG".into(), s.into()));
        }
        v
    }

    /// [`Switches::variables`] as `NAME=value` words.
    pub fn variables_text(self) -> String {
        let words: Vec<String> = (self.variables().into_iter())
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        words.join(" ")
    }

    fn words(self) -> Vec<&'static str> {
        let mut words = Vec::new();
        if self.spill_fs {
            words.push("spill_fs");
        }
        if self.nocompact {
            words.push("nocompact");
        }
        if let Some((_, n)) = SIMD_NAMES.iter().find(|(s, _)| *s == self.simd) {
            words.push(n);
        }
        words
    }

    /// Draws switches from a hash for the target's anv (the newest version's table when no
    /// anv is installed: nothing runs the case then).
    pub fn draw(hash: u64) -> Switches {
        Switches::draw_for(versions::target().unwrap_or(versions::newest()), hash)
    }

    /// Draws switches from a hash among `version`'s: spill_fs one case in three, nocompact one
    /// in four, a width switch one in two.
    pub fn draw_for(version: &versions::Version, hash: u64) -> Switches {
        let widths = version.simd;
        Switches {
            spill_fs: hash.is_multiple_of(3),
            nocompact: (hash >> 8).is_multiple_of(4),
            simd: if (hash >> 16).is_multiple_of(2) || widths.is_empty() {
                Simd::Default
            } else {
                widths[((hash >> 24) % widths.len() as u64) as usize]
            },
        }
    }
}

impl fmt::Display for Switches {
    /// `none` or the words joined by `+` (`spill_fs+no16`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let words = self.words();
        if words.is_empty() {
            f.write_str("none")
        } else {
            f.write_str(&words.join("+"))
        }
    }
}

impl FromStr for Switches {
    type Err = String;
    /// [`Switches::parse_words`], then refused if the installed anv does not know a word: it
    /// would ignore it. So a command line's `--case` or a finding's header is refused when read.
    fn from_str(s: &str) -> Result<Self, String> {
        let out = Switches::parse_words(s)?;
        if let Ok(version) = versions::target() {
            version.check(out)?;
        }
        Ok(out)
    }
}

impl Switches {
    /// Reads `none` or words joined by `+`, any version's.
    pub fn parse_words(s: &str) -> Result<Switches, String> {
        let mut out = Switches::default();
        if s == "none" {
            return Ok(out);
        }
        for w in s.split('+') {
            match w {
                "spill_fs" => out.spill_fs = true,
                "nocompact" => out.nocompact = true,
                _ => {
                    let (simd, _) = SIMD_NAMES.iter().find(|(_, n)| *n == w).ok_or_else(|| {
                        format!(
                            "unknown anv_debug word {w:?}; words: spill_fs, nocompact, no8, no16, no32, do32 (Mesa 22.3.6, 25.0.7), cs8, cs16, cs32 (26.2.6) (joined by +), or none"
                        )
                    })?;
                    if out.simd != Simd::Default {
                        return Err(format!("{s:?} names two dispatch-width switches"));
                    }
                    out.simd = *simd;
                }
            }
        }
        Ok(out)
    }
}

/// Draws the platform from a hash, each as often.
pub fn draw_platform(hash: u64) -> Platform {
    Platform::ALL[(hash % Platform::ALL.len() as u64) as usize]
}

pub use super::mesa::Environment;

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
            Install::Target => super::mesa::driver_environment_file(self.variable(), "anv.env"),
            Install::Second => match std::env::var_os(self.variable()) {
                Some(f) => Ok(f.into()),
                None => Ok(super::mesa::cache()?.join(format!("mesa-{SECOND}/anv.env"))),
            },
        }
    }

    /// Reads its environment file; the error says what to run.
    pub fn environment(self) -> Result<Environment, String> {
        let file = self.environment_file()?;
        super::mesa::read_environment(&file, "GPUFUZZ_ANV", super::mesa::SCRIPTS)
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
) -> Result<WorkerOptions, String> {
    let env = mesa.environment()?;
    let program =
        std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?;
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
    o.icd = Some(env.icd);
    o.root = env.root;
    o.compile_timeout = COMPILE_TIMEOUT;
    versions::of(&env.mesa)?.check(switches)?;
    o.env = vec![("LD_PRELOAD".into(), shim.into())];
    o.env.extend(driver_env(platform, switches));
    Ok(o)
}

/// What the driver is told of the case: the simulated platform and brw's switches (with the
/// shim preloaded, the worker's whole environment; and what tells two workers apart).
fn driver_env(platform: Platform, switches: Switches) -> Vec<(OsString, OsString)> {
    let platform = (
        "INTEL_STUB_GPU_PLATFORM".to_string(),
        platform.name().to_string(),
    );
    (std::iter::once(platform).chain(switches.variables()))
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
    /// The emitted SPIR-V module.
    pub module: spirv_emit::EmittedModule,
    /// The options it was emitted with (the device's float controls), for the comparison.
    pub emit_options: spirv_emit::EmitOptions,
    /// The SIMD variants, in the driver's order.
    pub kernels: Vec<Kernel>,
    /// Pipeline creation time measured in the worker.
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

/// Emits `program` and compiles it on `mesa`'s anv for `platform` with `switches`.
pub fn compile(
    program: &Program,
    mesa: Install,
    platform: Platform,
    switches: Switches,
) -> Result<Capture, CompileError> {
    let target = match mesa {
        Install::Target => "anv",
        Install::Second => "anv (second Mesa)",
    };
    let key = (target, driver_env(platform, switches));
    let options = || worker_options(mesa, platform, switches);
    let (info, done) = with_worker(key, options, |w| {
        let info = w.info().clone();
        let module = spirv_emit::emit(program, &vulkan::emit_options(&info));
        let module = match module {
            Ok(m) => m,
            Err(e) => return (info, Err(CompileError::Emit(e))),
        };
        let job = vulkan::job(&module);
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
    c.emit_options = vulkan::emit_options(&info);
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
        module,
        emit_options: spirv_emit::EmitOptions::default(),
        kernels,
        pipeline: compiled.pipeline,
        mesa,
        device,
    }
}

/// The finding for a failed compile.
fn run_finding(e: RunError, platform: Platform, switches: Switches) -> Box<Finding> {
    let (kind, class) = match &e {
        RunError::Timeout(_) => (FindingKind::Timeout, "timeout".to_string()),
        RunError::WorkerCrashed {
            status,
            stderr,
            stack,
        } => (FindingKind::Crash, crash_class(status, stderr, stack)),
        RunError::PipelineCreation(_) => (FindingKind::CompileError, "pipeline".to_string()),
        RunError::NoVulkan(_) => (FindingKind::CompileError, "no-device".to_string()),
        RunError::DeviceLost(_) | RunError::Failed(_) => {
            (FindingKind::CompileError, "runner".to_string())
        }
    };
    caused(
        "anv",
        kind,
        format!("{e} [anv {platform}, {}]", switches.variables_text()),
        Cause::named(class),
    )
}

impl Capture {
    /// The first problem the capture shows: a validator complaint (brw's), an empty capture,
    /// or a decoder disagreement (ours).
    pub fn finding(&self) -> Option<Box<Finding>> {
        let at = format!(
            "[anv {}, {}; {}]",
            self.platform,
            self.switches.variables_text(),
            self.device
        );
        if self.kernels.is_empty() {
            return Some(caused(
                "anv",
                FindingKind::CompileError,
                format!("the pipeline has no executables {at}"),
                Cause::named("no-executables"),
            ));
        }
        for k in &self.kernels {
            if let Some(e) = k.validator_errors.first() {
                return Some(caused(
                    "anv",
                    FindingKind::CompileError,
                    format!("{}: brw's validator: {e} {at}", k.name),
                    Cause::named("brw-validator"),
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
                    Cause::named("no-listing"),
                ));
            }
            if let Some(d) = k.agreement.disagreements.first() {
                return Some(caused(
                    "anv",
                    FindingKind::Decoder,
                    format!("{}: our decoder disagrees with brw {d} {at}", k.name),
                    Cause::named(format!("decoder {}", d.field.0)),
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

impl Pipeline for Anv {
    fn name(&self) -> &'static str {
        "anv"
    }

    fn description(&self) -> &'static str {
        "SPIR-V compiled by Mesa's anv/brw on a simulated Intel GPU, its skl, tgl, dg2 and mtl code run on our executor (scripts/mesa.sh)"
    }

    fn in_default_set(&self) -> bool {
        false
    }

    /// Installed, and a version whose switches and disassembly we know.
    fn available(&self) -> Result<(), String> {
        versions::of(&environment()?.mesa).map(|_| ())
    }

    fn skip(&self, case: &Case, _opts: &OracleOptions, _coverage: &Coverage) -> Option<String> {
        let c = &case.config;
        if c.anv_platform == Platform::Lnl && c.anv_debug.simd == Simd::Cs8 {
            // Xe2 has no SIMD8 compute: anv then refuses the pipeline, which is no brw bug.
            return Some("anv: lnl compiles no SIMD8 compute shader (INTEL_SIMD_DEBUG=cs8)".into());
        }
        vulkan::emitter_refusal(case, &spirv_emit::EmitOptions::default())
    }

    fn run(
        &self,
        case: &Case,
        optimised: &Program,
        opts: &OracleOptions,
        coverage: &mut Coverage,
    ) -> Result<Results, Box<Finding>> {
        let c = &case.config;
        let program = vulkan::source(case, optimised);
        match compile(program, Install::Target, c.anv_platform, c.anv_debug) {
            Ok(capture) => {
                if let Some(f) = capture.finding() {
                    return Err(f);
                }
                let spilled = capture
                    .statistic("Spill Count")
                    .is_some_and(|v| !matches!(v, StatValue::Uint(0) | StatValue::Int(0)));
                coverage.spills |= spilled;
                if c.anv_platform.executed() {
                    judge::judge(case, optimised, program, &capture, opts, coverage)?;
                }
                Ok(Results::default())
            }
            Err(CompileError::Run(e)) => Err(run_finding(e, c.anv_platform, c.anv_debug)),
            Err(CompileError::Emit(e)) => Err(caused(
                "anv",
                FindingKind::CompileError,
                e.to_string(),
                Cause::named("emit"),
            )),
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
        let c = &case.config;
        let program = vulkan::source(case, optimised);
        let mut out = format!(
            "// anv on {} with {}\n",
            c.anv_platform,
            c.anv_debug.variables_text()
        );
        let capture = match compile(program, Install::Target, c.anv_platform, c.anv_debug) {
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
        Some(trace::listing(case, vulkan::source(case, optimised), opts))
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
            let c = &case.config;
            let program = vulkan::source(case, &optimised);
            let capture = compile(program, Install::Target, c.anv_platform, c.anv_debug)
                .map_err(|e| format!("anv: {e:?}"))?;
            vulkan::standalone::write_module(&capture.module.words, dir, stem)
        };
        Some(write())
    }

    /// The Mesa it runs (`--mesa`).
    fn runs_on_mesa(&self) -> bool {
        true
    }

    fn environment(&self, _opts: &OracleOptions) -> Vec<(String, String)> {
        super::mesa::current().record()
    }

    fn knobs(&self) -> &'static [&'static str] {
        &["anv_platform", "anv_debug"]
    }

    fn measurements(&self) -> Option<&'static [&'static str]> {
        Some(stats::MEASUREMENTS)
    }

    fn record(&self, case: &Case) -> Result<Vec<(String, u64)>, String> {
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
mod tests {
    use super::*;

    #[test]
    fn switches_and_platforms_round_trip_through_their_text() {
        for hash in 0..200u64 {
            let s = Switches::draw_for(
                versions::of("25.0.7").unwrap(),
                hash.wrapping_mul(0x9e37_79b9_7f4a_7c15),
            );
            assert_eq!(Switches::parse_words(&s.to_string()).unwrap(), s);
            let p = draw_platform(hash.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            assert_eq!(p.to_string().parse::<Platform>().unwrap(), p);
        }
        assert_eq!(
            Switches::parse_words("spill_fs+nocompact+do32")
                .unwrap()
                .intel_debug(),
            "hex,spill_fs,nocompact,do32"
        );
        let cs16 = Switches::parse_words("spill_fs+cs16").unwrap();
        assert_eq!(
            cs16.variables_text(),
            "INTEL_DEBUG=hex,spill_fs INTEL_SIMD_DEBUG=cs16"
        );
        assert!(Switches::parse_words("no8+no16").is_err());
        assert!(Switches::parse_words("no8+cs16").is_err());
        assert!("fast".parse::<Switches>().is_err());
        assert!("gfx9".parse::<Platform>().is_err());
    }

    #[test]
    fn the_mesa_version_is_read_from_the_drivers_own_description() {
        let d25 = "Intel(R) HD Graphics 530 (SKL GT2) [Intel open-source Mesa driver Mesa 25.0.7-2~bpo12+1] (Vulkan 1.4.305, device 0)";
        let d22 = "Intel(R) HD Graphics 530 (SKL GT2) [Intel open-source Mesa driver Mesa 22.3.6] (Vulkan 1.3.230, device 0)";
        assert_eq!(mesa_version(d25), "25.0.7");
        assert_eq!(mesa_version(d22), "22.3.6");
        assert_eq!(mesa_version("llvmpipe"), "");
    }

    #[test]
    fn every_switch_and_platform_is_drawn() {
        let draws: Vec<u64> = (0..400u64)
            .map(|i| crate::rng::SplitMix64::for_input(i, 7).next_u64())
            .collect();
        for p in Platform::ALL {
            assert!(draws.iter().any(|&h| draw_platform(h) == *p), "{p}");
        }
        // Every width switch is drawn by the version that has it (`versions` checks the rest).
        for (simd, _) in SIMD_NAMES {
            assert!(versions::VERSIONS
                .iter()
                .any(|v| { draws.iter().any(|&h| Switches::draw_for(v, h).simd == simd) }));
        }
        assert!(draws.iter().any(|&h| Switches::draw(h).spill_fs));
        assert!(draws.iter().any(|&h| Switches::draw(h).nocompact));
    }
}
