//! `--config KEY=VALUE` settings: which middle-end passes run and the backend's knobs. Each
//! target accepts its own keys; an unknown key or a bad value is an error that lists what
//! the target accepts.
//!
//! | keys | targets | values |
//! |---|---|---|
//! | any optional middle-end pass (`opt_cse`, `opt_dce`, …) | all | `on`/`off` |
//! | `gen` | `gen8`, `gen16` | `7` or `9` (default 9) |
//! | `grfs` | `gen8`, `gen16` | GRF budget, 2–125 (default 125) |
//! | `opt_zero_samples` | `gen8`, `gen16` | `on`/`off` (default on) |
//! | `registers` | `a6xx` | scalar GPR budget, 1–192 (default 192) |
//! | `predicates` | `a6xx` | `1` or `4` (default 4) |
//! | `wave` | `a6xx` | `64` or `128` (default 64) |
//! | `opt_predicates` | `a6xx` | `on`/`off` (default on) |

use compiler::passes::pipeline::PASSES;
use std::fmt;

/// What to compile for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The middle end only: IR counts and the interpreter's step count.
    Ir,
    /// The Gen backend, SIMD8.
    Gen8,
    /// The Gen backend, SIMD16.
    Gen16,
    /// The a6xx backend.
    A6xx,
}

impl Target {
    /// Every target, by name.
    pub const ALL: &'static [(&'static str, Target)] = &[
        ("ir", Target::Ir),
        ("gen8", Target::Gen8),
        ("gen16", Target::Gen16),
        ("a6xx", Target::A6xx),
    ];

    /// Parses a target name.
    pub fn parse(s: &str) -> Result<Target, String> {
        Target::ALL
            .iter()
            .find(|(n, _)| *n == s)
            .map(|&(_, t)| t)
            .ok_or_else(|| {
                let names: Vec<_> = Target::ALL.iter().map(|(n, _)| *n).collect();
                format!("unknown target {s:?} (targets: {})", names.join(", "))
            })
    }

    /// The backend keys this target takes.
    fn backend_keys(self) -> &'static [&'static str] {
        match self {
            Target::Ir => &[],
            Target::Gen8 | Target::Gen16 => &["gen", "grfs", "opt_zero_samples"],
            Target::A6xx => &["registers", "predicates", "wave", "opt_predicates"],
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = Target::ALL.iter().find(|(_, t)| t == self).map(|(n, _)| *n);
        f.write_str(name.unwrap_or("?"))
    }
}

/// The Gen backend's knobs, before they become `compiler::gen::Options`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenSettings {
    /// 7 or 9.
    pub gen: u8,
    /// GRF budget.
    pub grfs: u32,
    /// Run `opt_zero_samples`.
    pub opt_zero_samples: bool,
}

/// The a6xx backend's knobs, before they become `compiler::a6xx::Options`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct A6xxSettings {
    /// Scalar GPR budget.
    pub registers: u32,
    /// Predicate registers, 1 or 4.
    pub predicates: u8,
    /// Fibers per wave, 64 or 128.
    pub wave: u32,
    /// Run `opt_predicates`.
    pub opt_predicates: bool,
}

/// Everything `--target` and `--config` decide.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The target.
    pub target: Target,
    /// Middle-end passes switched off.
    pub disabled_passes: Vec<String>,
    /// Gen knobs (used by `gen8` and `gen16`).
    pub gen: GenSettings,
    /// a6xx knobs.
    pub a6xx: A6xxSettings,
}

impl Settings {
    /// The defaults for `target`: every pass on, the backends' default options.
    pub fn new(target: Target) -> Settings {
        Settings {
            target,
            disabled_passes: Vec::new(),
            gen: GenSettings {
                gen: 9,
                grfs: 125,
                opt_zero_samples: true,
            },
            a6xx: A6xxSettings {
                registers: 192,
                predicates: 4,
                wave: 64,
                opt_predicates: true,
            },
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
        if PASSES.iter().any(|(n, _)| *n == key) {
            self.disabled_passes.retain(|p| p != key);
            if !boolean(value)? {
                self.disabled_passes.push(key.to_string());
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
        match key {
            "gen" => self.gen.gen = one_of(value, &[7, 9])? as u8,
            "grfs" => self.gen.grfs = in_range(value, 2, 125)?,
            "opt_zero_samples" => self.gen.opt_zero_samples = boolean(value)?,
            "registers" => self.a6xx.registers = in_range(value, 1, 192)?,
            "predicates" => self.a6xx.predicates = one_of(value, &[1, 4])? as u8,
            "wave" => self.a6xx.wave = one_of(value, &[64, 128])?,
            "opt_predicates" => self.a6xx.opt_predicates = boolean(value)?,
            _ => unreachable!("backend_keys lists only keys handled here: {key}"),
        }
        Ok(())
    }

    /// Every key this target accepts.
    pub fn keys(&self) -> Vec<&'static str> {
        let mut keys: Vec<&'static str> = self.target.backend_keys().to_vec();
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

fn number(v: &str) -> Result<u32, String> {
    v.parse().map_err(|_| format!("{v:?} is not a number"))
}

fn one_of(v: &str, allowed: &[u32]) -> Result<u32, String> {
    let n = number(v)?;
    if allowed.contains(&n) {
        Ok(n)
    } else {
        Err(format!("{n} is not one of {allowed:?}"))
    }
}

fn in_range(v: &str, lo: u32, hi: u32) -> Result<u32, String> {
    let n = number(v)?;
    if (lo..=hi).contains(&n) {
        Ok(n)
    } else {
        Err(format!("{n} is outside {lo}..={hi}"))
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
        let s = Settings::parse(Target::Gen8, &cfg(&["gen=7", "grfs=16", "opt_cse=off"])).unwrap();
        assert_eq!((s.gen.gen, s.gen.grfs), (7, 16));
        assert_eq!(s.disabled_passes, vec!["opt_cse".to_string()]);
        let s = Settings::parse(Target::A6xx, &cfg(&["predicates=1", "wave=128"])).unwrap();
        assert_eq!((s.a6xx.predicates, s.a6xx.wave), (1, 128));
    }

    #[test]
    fn bad_keys_and_values_are_clear_errors() {
        let e = Settings::parse(Target::Ir, &cfg(&["grfs=16"])).unwrap_err();
        assert!(e.contains("unknown key \"grfs\" for target ir"), "{e}");
        let e = Settings::parse(Target::A6xx, &cfg(&["predicates=2"])).unwrap_err();
        assert!(e.contains("not one of [1, 4]"), "{e}");
        let e = Settings::parse(Target::Gen16, &cfg(&["opt_zero_samples"])).unwrap_err();
        assert!(e.contains("KEY=VALUE"), "{e}");
        assert!(Target::parse("gen12")
            .unwrap_err()
            .contains("ir, gen8, gen16, a6xx"));
    }
}
