//! The flags every compiling command shares: `--plant NAME`, `--target T`,
//! `--disable-pass NAME` (all repeatable). They are exactly what a report's repro command
//! prints, so a reduced finding reproduces with its configuration.

use clap::Args;
use compiler::passes::pipeline::PASSES;
use compiler::planted::{Plant, Plants};
use fuzz::oracle::{CaseConfig, OracleOptions};

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

    /// Oracle options with these plants and targets.
    pub fn oracle(&self) -> Result<OracleOptions, String> {
        Ok(OracleOptions {
            targets: self.targets.clone(),
            plants: self.plants()?,
            ..OracleOptions::default()
        })
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
        s.trim_start().to_string()
    }
}
