//! The flags every compiling command shares ([`ConfigArgs`]: `--plant NAME`, `--target T` and
//! [`DriverArgs`], the `vulkan` target's device) and the ones that set one case's
//! configuration ([`CaseArgs`]: `--disable-pass NAME`, `--case KEY=VALUE`, `--limit NAME=N`),
//! all repeatable. They are exactly what a report's repro command prints, so a reduced finding
//! reproduces with its configuration. Every name is checked here, before any work: an unknown
//! target, plant, pass or knob is a usage error that lists what exists, and a flag that would
//! have no effect is one too.

use super::error::{CliError, UsageContext};
use clap::Args;
use compiler::ir::text::Limits;
use compiler::planted::{Plant, Plants};
use fuzz::case::text as case_text;
use fuzz::oracle::{CaseConfig, OracleOptions};
use fuzz::targets;
use fuzz::targets::driver::mesa;
use fuzz::targets::vulkan::{self, VulkanOptions};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The `vulkan` target's default dispatch limit, in milliseconds.
const VK_TIMEOUT_MS: u64 = 2000;

/// The planted bugs named; an unknown name lists the catalog.
pub fn plants(names: &[String]) -> Result<Plants, CliError> {
    names.iter().try_fold(Plants::NONE, |set, name| {
        let p = Plant::from_name(name).ok_or_else(|| {
            let all: Vec<&str> = Plant::ALL.iter().map(|p| p.name()).collect();
            CliError::Usage(format!("unknown plant {name:?}; known: {}", all.join(", ")))
        })?;
        Ok(set.with(p))
    })
}

#[derive(Args, Debug, Clone)]
pub struct ConfigArgs {
    /// Switch a planted bug on (repeatable); `gpufuzz plant --list` shows the catalog.
    #[arg(long = "plant", value_name = "NAME")]
    pub plants: Vec<String>,
    /// Only these targets (repeatable), or `all` (which adds the opt-in targets); default every
    /// target of the default set. An unknown name is an error listing every target with what
    /// it runs.
    #[arg(long = "target", value_name = "T")]
    pub targets: Vec<String>,
    #[command(flatten)]
    pub driver: DriverArgs,
}

/// The `vulkan` target's device and limit: for the commands that run it (`fuzz`, `run`,
/// `repro`, `reduce`) and `triage`, which re-judges `vulkan` findings.
#[derive(Args, Debug, Clone)]
pub struct DriverArgs {
    /// `vulkan` target: the physical device to run on (index, as `vulkaninfo` lists them).
    #[arg(long = "vk-device", value_name = "N", default_value_t = 0)]
    pub vk_device: u32,
    /// `vulkan` target: the ICD manifest to load instead of the loader's default (sets
    /// `VK_ICD_FILENAMES` for the worker), e.g. another Mesa's `lvp_icd.x86_64.json`.
    #[arg(long = "vk-icd", value_name = "JSON")]
    pub vk_icd: Option<PathBuf>,
    /// `vulkan` target: milliseconds a dispatch may run before it is a timeout finding.
    #[arg(long = "vk-timeout-ms", value_name = "MS", default_value_t = VK_TIMEOUT_MS)]
    pub vk_timeout_ms: u64,
    /// Real-driver targets (`vulkan`, `naga`, `anv`, `radv`): the Mesa whose drivers and
    /// SPIRV-Tools run — `newest` (the newest installed; the system's when none is),
    /// `system`, or an installed version (`26.2.6`; scripts/mesa-sid.sh installs the newest).
    /// Default: `$GPUFUZZ_MESA`, else the Mesa a saved finding records, else `newest`.
    #[arg(long = "mesa", value_name = "V", env = mesa::VARIABLE)]
    pub mesa: Option<String>,
}

impl DriverArgs {
    /// Makes the `--mesa` choice this process's, checked before any work: a version not
    /// installed is a usage error listing those that are.
    pub fn select_mesa(&self) -> Result<(), CliError> {
        let choice = self.mesa.as_deref().unwrap_or("newest");
        let chosen = mesa::resolve(choice).map_err(CliError::Usage)?;
        mesa::select(chosen).map_err(CliError::Failed)
    }

    /// Whether `--vk-device` or `--vk-icd` names a driver (rather than the loader's default,
    /// or for triage the one each finding was found on).
    pub fn driver_given(&self) -> bool {
        self.vk_icd.is_some() || self.vk_device != 0
    }

    /// The first `--vk-*` flag given, if any.
    fn first_given(&self) -> Option<&'static str> {
        if self.vk_device != 0 {
            Some("--vk-device")
        } else if self.vk_icd.is_some() {
            Some("--vk-icd")
        } else if self.vk_timeout_ms != VK_TIMEOUT_MS {
            Some("--vk-timeout-ms")
        } else {
            None
        }
    }

    /// The `vulkan` target's device, ICD (as an absolute path, so that the commands and
    /// records that carry it work from any folder) and time limit.
    pub fn vulkan(&self) -> VulkanOptions {
        VulkanOptions {
            device: self.vk_device,
            icd: self
                .vk_icd
                .as_ref()
                .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())),
            dispatch_timeout: Duration::from_millis(self.vk_timeout_ms),
            worker: None,
        }
    }
}

impl ConfigArgs {
    /// The planted bugs named.
    pub fn plants(&self) -> Result<Plants, CliError> {
        plants(&self.plants)
    }

    /// The targets named, checked against the registry (empty: the default set).
    pub fn targets(&self) -> Result<Vec<String>, CliError> {
        let chosen = targets::select(&self.targets).usage()?;
        Ok(if self.targets.is_empty() {
            Vec::new()
        } else {
            chosen.into_iter().map(String::from).collect()
        })
    }

    /// Oracle options with these plants and targets.
    pub fn oracle(&self) -> Result<OracleOptions, CliError> {
        let opts = self.open()?;
        self.driver_used(&opts)?;
        Ok(opts)
    }

    /// A `--vk-*` flag typed for a command whose targets do not include `vulkan` would have no
    /// effect: an error.
    fn driver_used(&self, opts: &OracleOptions) -> Result<(), CliError> {
        match self.driver.first_given() {
            Some(flag) if !opts.targets.iter().any(|t| reads_driver_flags(t)) => {
                Err(CliError::Usage(format!(
                    "{flag} sets up the vulkan target, which this command does not run: add \
                     --target vulkan (or --target all with a Vulkan driver installed)"
                )))
            }
            _ => Ok(()),
        }
    }

    /// The oracle options; when `vulkan` is among the targets its device (`--vk-device`,
    /// `--vk-icd`) is opened first (and named once per process): without one it is a usage
    /// error saying what to install.
    fn open(&self) -> Result<OracleOptions, CliError> {
        self.driver.select_mesa()?;
        let opts = OracleOptions {
            targets: self.targets()?,
            plants: self.plants()?,
            vulkan: self.driver.vulkan(),
            ..OracleOptions::default()
        };
        let mut lines = Vec::new();
        for t in opts.targets.iter().filter_map(|t| targets::by_name(t)) {
            lines.extend(t.prepare(&opts)?);
        }
        static NAMED: std::sync::Once = std::sync::Once::new();
        NAMED.call_once(|| lines.iter().for_each(|l| eprintln!("{l}")));
        Ok(opts)
    }

    /// [`ConfigArgs::oracle`] for judging `file`: when it is a saved finding's input (its
    /// folder holds `finding.json`) and the flags name no driver, on the device and ICD the
    /// finding was found on.
    pub fn oracle_for(&self, file: &Path) -> Result<OracleOptions, CliError> {
        if self.driver.driver_given() {
            return self.oracle();
        }
        let recorded = recorded_environment(file);
        let found = vulkan::options_of(&recorded, &self.driver.vulkan());
        let opts = ConfigArgs {
            driver: DriverArgs {
                vk_device: found.device,
                vk_icd: found.icd,
                mesa: self
                    .driver
                    .mesa
                    .clone()
                    .or_else(|| recorded[mesa::RECORDED].as_str().map(str::to_string)),
                ..self.driver.clone()
            },
            ..self.clone()
        }
        .open()?;
        // The flags as typed are checked, not the driver the finding recorded.
        self.driver_used(&opts)?;
        Ok(opts)
    }

    /// Checks every name and value the flags give, for commands that use only some of them.
    pub fn check(&self) -> Result<(), CliError> {
        self.oracle().map(|_| ())
    }

    /// The flags again, for commands printed to the user.
    pub fn flags(&self) -> String {
        let mut s = String::new();
        for p in &self.plants {
            s.push_str(&format!(" --plant {p}"));
        }
        for t in &self.targets {
            s.push_str(&format!(" --target {t}"));
        }
        // The device and limits of the `vulkan` target, when it may run.
        if self
            .targets
            .iter()
            .any(|t| t == "all" || reads_driver_flags(t))
        {
            let d = &self.driver;
            if d.vk_device != 0 {
                s.push_str(&format!(" --vk-device {}", d.vk_device));
            }
            if let Some(icd) = &d.vulkan().icd {
                s.push_str(&format!(" --vk-icd {}", icd.display()));
            }
            if d.vk_timeout_ms != VK_TIMEOUT_MS {
                s.push_str(&format!(" --vk-timeout-ms {}", d.vk_timeout_ms));
            }
        }
        // The Mesa the real-driver targets ran on, as resolved (`newest` names a version),
        // so a printed command judges on the same one wherever it is run.
        if self
            .targets
            .iter()
            .any(|t| t == "all" || targets::by_name(t).is_some_and(|p| p.runs_on_mesa()))
        {
            s.push_str(&format!(" --mesa {}", mesa::current()));
        }
        s.trim_start().to_string()
    }
}

/// The flags that set one case's configuration and bounds: for commands that judge a given
/// program or input (`run`, `repro`, `reduce`), never for `fuzz`, where every input decodes
/// its own.
#[derive(Args, Debug, Clone, Default)]
pub struct CaseArgs {
    /// Switch an optional middle-end pass off (repeatable); adds to a `.ir` file's
    /// `; disable-pass:` header.
    #[arg(long = "disable-pass", value_name = "NAME")]
    pub disabled: Vec<String>,
    // The help text is made from the table the values are checked against.
    #[arg(long = "case", value_name = "KEY=VALUE", help = case_text::case_flag_help(),
          value_parser = case_value)]
    pub case: Vec<String>,
    /// Raise (or lower) a bound on what a `.ir` program may ask for (repeatable):
    /// `invocations` (default 4096), `outputs` (256), `uniforms` (4096), `buffer_words`
    /// (4096), `shared_words` (4096), `resources` (32), `texture_extent` (16384),
    /// `variable_words` (65536),
    /// `result_words` (16777216, all invocations' outputs and buffers).
    #[arg(long = "limit", value_name = "NAME=N")]
    pub limits: Vec<String>,
}

impl CaseArgs {
    /// `config` with the command line's `--disable-pass` and `--case` applied on top.
    pub fn apply(&self, mut config: CaseConfig) -> Result<CaseConfig, CliError> {
        for name in &self.disabled {
            config
                .disable_pass(name)
                .map_err(|e| CliError::Usage(format!("--disable-pass: {e}")))?;
        }
        for kv in &self.case {
            config
                .set_checked(kv)
                .map_err(|e| CliError::Usage(format!("--case {kv}: {e}")))?;
        }
        Ok(config)
    }

    /// The bounds a `.ir` program is read within.
    pub fn limits(&self) -> Result<Limits, CliError> {
        let mut limits = Limits::default();
        for l in &self.limits {
            limits.set(l).usage()?;
        }
        Ok(limits)
    }

    /// Checks every name and value the flags give, before any work.
    pub fn check(&self) -> Result<(), CliError> {
        self.limits()?;
        self.apply(CaseConfig::default()).map(|_| ())
    }
}

/// `fuzz --case KEY=VALUE`: knobs pinned for a whole run — every input decodes as always, then
/// these are set on its case (recorded in the run's flags, so `--resume`, the worker processes
/// and every finding's repro command carry them).
#[derive(Args, Debug, Clone, Default)]
pub struct PinArgs {
    /// Pin a knob of every case the run judges (repeatable), e.g. `gen_grfs=16`,
    /// `radv_gpu=navi31`, `anv_platform=mtl`; `--case help` lists every knob with its values.
    #[arg(long = "case", value_name = "KEY=VALUE", value_parser = case_value)]
    pub pins: Vec<String>,
}

impl PinArgs {
    /// The pins, each checked: an unknown knob or a bad value is a usage error.
    pub fn checked(&self) -> Result<Vec<String>, CliError> {
        for kv in &self.pins {
            CaseConfig::default()
                .set_checked(kv)
                .map_err(|e| CliError::Usage(format!("--case {kv}: {e}")))?;
        }
        Ok(self.pins.clone())
    }

    /// The flags again (` --case K=V` each), for commands printed to the user.
    pub fn flags(&self) -> String {
        self.pins.iter().map(|kv| format!(" --case {kv}")).collect()
    }
}

/// Reads a `--case` value. `--case help` prints every knob and ends the process with status 0,
/// as `--help` does, before any other argument is required.
fn case_value(s: &str) -> Result<String, std::convert::Infallible> {
    if s == "help" {
        print!("{}", case_text::knob_help());
        std::process::exit(0);
    }
    Ok(s.to_string())
}

/// The `environment` a saved finding's `finding.json` (beside `file`) records; null when there
/// is none.
pub fn recorded_environment(file: &Path) -> serde_json::Value {
    let record = file.parent().map(|d| d.join("finding.json"));
    record
        .and_then(|r| std::fs::read_to_string(r).ok())
        .and_then(|s| serde_json::from_str::<serde_json::Value>(&s).ok())
        .map(|v| v["environment"].clone())
        .unwrap_or_default()
}

/// Whether target `name` reads the `--vk-*` flags.
fn reads_driver_flags(name: &str) -> bool {
    fuzz::targets::by_name(name).is_some_and(|p| p.reads_driver_flags())
}
