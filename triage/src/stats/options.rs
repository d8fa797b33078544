//! `--config KEY=VALUE` settings: which middle-end passes run and the backend's knobs. The
//! knobs are those of the fuzzer's case configuration ([`CaseConfig`], the same names
//! `--case` and a `program.ir` header take), so a knob added there is a `--config` key here
//! too. Each target accepts the knobs of its backend (`gen…` for `gen8`/`gen16`, `a6xx_…` for
//! `a6xx`) and every middle-end pass; an unknown key or a bad value is an error that lists what
//! the target accepts.
//!
//! | keys | targets | values |
//! |---|---|---|
//! | any optional middle-end pass (`opt_cse`, `opt_dce`, …) | all | `on`/`off` |
//! | `gen9` | `gen8`, `gen16` | `true` (generation 9, default) or `false` (generation 7) |
//! | `gen_grfs` | `gen8`, `gen16` | GRF budget at SIMD8, 10–125 (default 125; doubled for SIMD16 when starved) |
//! | `gen_zero_samples` | `gen8`, `gen16` | `opt_zero_samples`, `on`/`off` (default on) |
//! | `a6xx_registers` | `a6xx` | scalar GPR budget, 8–192 (default 192) |
//! | `a6xx_predicates` | `a6xx` | `1` or `4` (default 4) |
//! | `a6xx_wave128` | `a6xx` | `on` (waves of 128) or `off` (64, default) |
//! | `a6xx_opt_predicates` | `a6xx` | `on`/`off` (default on) |
//! | `anv_platform` | `anv` | `skl` (default), `tgl`, `dg2`, `mtl`, `lnl` |
//! | `anv_debug` | `anv` | brw's switches joined by `+` (`spill_fs+nocompact+no16`) or `none` |

use compiler::passes::pipeline::PASSES;
use fuzz::oracle::CaseConfig;
use std::fmt;

/// What to compile for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The middle end only: IR counts and the interpreter's step count.
    Middle,
    /// The Gen backend, SIMD8.
    Gen8,
    /// The Gen backend, SIMD16.
    Gen16,
    /// The a6xx backend.
    A6xx,
    /// Mesa's anv/brw on a simulated Intel GPU (compile-only, brw's statistics).
    Anv,
}

impl Target {
    /// Every target with statistics, by its name in the fuzzer's target registry.
    pub const ALL: &'static [(&'static str, Target)] = &[
        ("middle", Target::Middle),
        ("gen8", Target::Gen8),
        ("gen16", Target::Gen16),
        ("a6xx", Target::A6xx),
        ("anv", Target::Anv),
    ];

    /// Parses a target name: one of the registry's (`fuzz::pipelines`) that has statistics.
    pub fn parse(s: &str) -> Result<Target, String> {
        if let Some(&(_, t)) = Target::ALL.iter().find(|(n, _)| *n == s) {
            return Ok(t);
        }
        fuzz::pipelines::select(&[s.to_string()])?;
        let names: Vec<_> = Target::ALL.iter().map(|(n, _)| *n).collect();
        Err(format!(
            "target {s:?} has no statistics (targets with statistics: {})",
            names.join(", ")
        ))
    }

    /// The prefix of the case knobs this target's backend reads (none for the middle end).
    fn knob_prefix(self) -> Option<&'static str> {
        match self {
            Target::Middle => None,
            Target::Gen8 | Target::Gen16 => Some("gen"),
            Target::A6xx => Some("a6xx_"),
            Target::Anv => Some("anv_"),
        }
    }

    /// The case knobs this target takes.
    fn backend_keys(self) -> Vec<&'static str> {
        let Some(prefix) = self.knob_prefix() else {
            return Vec::new();
        };
        CaseConfig::KNOBS
            .iter()
            .copied()
            .filter(|k| k.starts_with(prefix))
            .collect()
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = Target::ALL.iter().find(|(_, t)| t == self).map(|(n, _)| *n);
        f.write_str(name.unwrap_or("?"))
    }
}

/// Everything `--target` and `--config` decide.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The target.
    pub target: Target,
    /// Pass toggles and backend knobs, as the fuzzer's oracle reads them.
    pub case: CaseConfig,
}

impl Settings {
    /// The defaults for `target`: every pass on, the backends' default options.
    pub fn new(target: Target) -> Settings {
        Settings {
            target,
            case: CaseConfig::default(),
        }
    }

    /// Parses `--config` settings (`KEY=VALUE` each) for `target`.
    pub fn parse(target: Target, config: &[String]) -> Result<Settings, String> {
        let mut s = Settings::new(target);
        for kv in config {
            let (key, value) = kv
                .split_once('=')
                .ok_or_else(|| format!("--config {kv:?}: expected KEY=VALUE"))?;
            s.set(key.trim(), value.trim())
                .map_err(|e| format!("--config {kv:?}: {e}"))?;
        }
        Ok(s)
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        if let Some(i) = PASSES.iter().position(|(n, _)| *n == key) {
            if boolean(value)? {
                self.case.disabled_passes &= !(1 << i);
            } else {
                self.case.disabled_passes |= 1 << i;
            }
            return Ok(());
        }
        if !self.target.backend_keys().contains(&key) {
            return Err(format!(
                "unknown key {key:?} for target {} (keys: {})",
                self.target,
                self.keys().join(", ")
            ));
        }
        self.case.set_checked(&format!("{key}={value}"))
    }

    /// Middle-end passes switched off, by name.
    pub fn disabled_passes(&self) -> Vec<String> {
        self.case
            .disabled_pass_names()
            .into_iter()
            .map(String::from)
            .collect()
    }

    /// Every key this target accepts.
    pub fn keys(&self) -> Vec<&'static str> {
        let mut keys = self.target.backend_keys();
        keys.extend(PASSES.iter().map(|(n, _)| *n));
        keys
    }
}

fn boolean(v: &str) -> Result<bool, String> {
    match v {
        "on" | "true" | "1" | "yes" => Ok(true),
        "off" | "false" | "0" | "no" => Ok(false),
        _ => Err(format!("{v:?} is not on or off")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn keys_parse_into_settings() {
        let s = Settings::parse(
            Target::Gen8,
            &cfg(&["gen9=off", "gen_grfs=16", "opt_cse=off"]),
        )
        .unwrap();
        assert_eq!((s.case.gen9, s.case.gen_grfs), (false, 16));
        assert_eq!(s.disabled_passes(), vec!["opt_cse".to_string()]);
        let s = Settings::parse(
            Target::A6xx,
            &cfg(&["a6xx_predicates=1", "a6xx_wave128=on"]),
        )
        .unwrap();
        assert_eq!((s.case.a6xx_predicates, s.case.a6xx_wave128), (1, true));
    }

    #[test]
    fn bad_keys_and_values_are_clear_errors() {
        let e = Settings::parse(Target::Middle, &cfg(&["gen_grfs=16"])).unwrap_err();
        assert!(
            e.contains("unknown key \"gen_grfs\" for target middle"),
            "{e}"
        );
        let e = Settings::parse(Target::A6xx, &cfg(&["gen_grfs=16"])).unwrap_err();
        assert!(e.contains("a6xx_registers"), "{e}");
        let e = Settings::parse(Target::A6xx, &cfg(&["a6xx_predicates=2"])).unwrap_err();
        assert!(e.contains("must be 1|4"), "{e}");
        let e = Settings::parse(Target::Gen16, &cfg(&["gen_grfs=8"])).unwrap_err();
        assert!(e.contains("10..=125"), "{e}");
        let e = Settings::parse(Target::Gen16, &cfg(&["gen_zero_samples"])).unwrap_err();
        assert!(e.contains("KEY=VALUE"), "{e}");
        let e = Target::parse("gen12").unwrap_err();
        assert!(e.contains("middle") && e.contains("a6xx"), "{e}");
        assert!(Target::parse("ir").is_err());
    }
}
