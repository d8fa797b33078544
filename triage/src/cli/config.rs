//! The flags every compiling command shares: `--plant NAME`, `--target T`,
//! `--disable-pass NAME` (all repeatable). They are exactly what a report's repro command
//! prints, so a reduced finding reproduces with its configuration.

use clap::Args;
use compiler::passes::pipeline::PASSES;
use compiler::planted::{Plant, Plants};
use fuzz::oracle::{CaseConfig, OracleOptions};
use fuzz::pipelines::vulkan::{self, VulkanOptions};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args, Debug, Clone, Default)]
pub struct ConfigArgs {
    /// Switch a planted bug on (repeatable); see `compiler/src/planted.rs`.
    #[arg(long = "plant", value_name = "NAME")]
    pub plants: Vec<String>,
    /// Only these pipelines (repeatable); default all.
    #[arg(long = "target", value_name = "T")]
    pub targets: Vec<String>,
    /// Switch an optional middle-end pass off (repeatable; `.ir` inputs only).
    #[arg(long = "disable-pass", value_name = "NAME")]
    pub disabled: Vec<String>,
    /// Set a backend knob of the case configuration (repeatable; `.ir` inputs only), e.g.
    /// `a6xx_registers=12`, `gen_grfs=16`, `gen9=false`, `a6xx_predicates=1`.
    #[arg(long = "case", value_name = "KEY=VALUE")]
    pub case: Vec<String>,
    /// `vulkan` target: the physical device to run on (index, as `vulkaninfo` lists them).
    #[arg(long = "vk-device", value_name = "N", default_value_t = 0)]
    pub vk_device: u32,
    /// `vulkan` target: the ICD manifest to load instead of the loader's default (sets
    /// `VK_ICD_FILENAMES` for the worker), e.g. another Mesa's `lvp_icd.x86_64.json`.
    #[arg(long = "vk-icd", value_name = "JSON")]
    pub vk_icd: Option<PathBuf>,
    /// `vulkan` target: milliseconds a dispatch may run before it is a timeout finding.
    #[arg(long = "vk-timeout-ms", value_name = "MS", default_value_t = 2000)]
    pub vk_timeout_ms: u64,
}

impl ConfigArgs {
    /// The planted bugs named.
    pub fn plants(&self) -> Result<Plants, String> {
        self.plants.iter().try_fold(Plants::NONE, |set, name| {
            let p = Plant::from_name(name).ok_or_else(|| {
                let all: Vec<&str> = Plant::ALL.iter().map(|p| p.name()).collect();
                format!("unknown plant {name:?}; known: {}", all.join(", "))
            })?;
            Ok(set.with(p))
        })
    }

    /// Oracle options with these plants and targets. Asking for `vulkan` (or `all`) opens
    /// the device first: without one it is a usage error saying what to install.
    pub fn oracle(&self) -> Result<OracleOptions, String> {
        let opts = OracleOptions {
            targets: self.targets.clone(),
            plants: self.plants()?,
            vulkan: self.vulkan(),
            ..OracleOptions::default()
        };
        if self.targets.iter().any(|t| t == "vulkan" || t == "all") {
            let info = vulkan::device(&opts.vulkan).map_err(|e| format!("--target vulkan: {e}"))?;
            eprintln!("vulkan: {}", info.describe());
        }
        Ok(opts)
    }

    /// The `vulkan` target's device, ICD and time limit.
    pub fn vulkan(&self) -> VulkanOptions {
        VulkanOptions {
            device: self.vk_device,
            icd: self.vk_icd.clone(),
            dispatch_timeout: Duration::from_millis(self.vk_timeout_ms),
            worker: None,
        }
    }

    /// The case configuration for a `.ir` input.
    pub fn case_config(&self) -> Result<CaseConfig, String> {
        let mut c = CaseConfig::default();
        for name in &self.disabled {
            let i = PASSES
                .iter()
                .position(|(n, _)| n == name)
                .ok_or_else(|| format!("unknown pass {name:?}"))?;
            c.disabled_passes |= 1 << i;
        }
        for kv in &self.case {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| format!("--case {kv}: expected KEY=VALUE"))?;
            c.set(k, v)?;
        }
        Ok(c)
    }

    /// The flags again, for commands printed to the user.
    pub fn flags(&self) -> String {
        let mut s = String::new();
        for p in &self.plants {
            s.push_str(&format!(" --plant {p}"));
        }
        // The `vulkan` target is opt-in: its findings reproduce only when it is named.
        if self.targets.iter().any(|t| t == "vulkan" || t == "all") {
            for t in &self.targets {
                s.push_str(&format!(" --target {t}"));
            }
            if self.vk_device != 0 {
                s.push_str(&format!(" --vk-device {}", self.vk_device));
            }
            if let Some(icd) = &self.vk_icd {
                s.push_str(&format!(" --vk-icd {}", icd.display()));
            }
            if self.vk_timeout_ms != 2000 {
                s.push_str(&format!(" --vk-timeout-ms {}", self.vk_timeout_ms));
            }
        }
        s.trim_start().to_string()
    }
}
