//! `--config KEY=VALUE` settings: which middle-end passes run and the backend's knobs. The
//! knobs are those of the fuzzer's case configuration ([`CaseConfig`], the same names
//! `--case` and a `program.ir` header take), so a knob added there is a `--config` key here
//! too. Each target accepts the knobs it declares ([`Target::knobs`]) and every middle-end
//! pass; an unknown key or a bad value is an error that lists what
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
//! | `anv_debug` | `anv` | brw's switches joined by `+` (`spill_fs+nocompact+cs8+cs32`: the widths allowed) or `none` |
//! | `anv_backend` | `anv` | `brw` (default) or `jay` (Intel's new backend; lnl, on the Jay copy `scripts/mesa-sid.sh` makes) |
//! | `jay_debug` | `anv` | Jay's switches (`noopt`, `spill`, `sync`, `noacc`, `nosched`, `strict`) joined by `+`, or `none` |

use crate::Error;
use compiler::passes::pipeline::PASSES;
use fuzz::oracle::CaseConfig;
use fuzz::targets::{self, Target};
use std::fmt;

/// The registered target called `name`, if it has statistics
/// ([`Target::measurements`]); the error lists those that have.
pub fn target(name: &str) -> Result<&'static dyn Target, Error> {
    if let Some(t) = targets::by_name(name).filter(|t| t.measurements().is_some()) {
        return Ok(t);
    }
    targets::select(&[name.to_string()]).map_err(Error::FuzzText)?;
    Err(Error::NoStatistics {
        target: name.to_string(),
        with_statistics: targets::all()
            .iter()
            .filter(|t| t.measurements().is_some())
            .map(|t| t.name())
            .collect(),
    })
}

/// The case knobs `target` takes, in the case configuration's order.
fn backend_keys(target: &dyn Target) -> Vec<&'static str> {
    CaseConfig::keys()
        .iter()
        .copied()
        .filter(|k| target.knobs().contains(k))
        .collect()
}

/// Everything `--target` and `--config` decide.
#[derive(Clone)]
pub struct Settings {
    /// The target.
    pub target: &'static dyn Target,
    /// Pass toggles and backend knobs, as the fuzzer's oracle reads them.
    pub case: CaseConfig,
}

impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Settings")
            .field("target", &self.target.name())
            .field("case", &self.case)
            .finish()
    }
}

impl Settings {
    /// The defaults for `target`: every pass on, the backends' default options.
    pub fn new(target: &'static dyn Target) -> Settings {
        Settings {
            target,
            case: CaseConfig::default(),
        }
    }

    /// Parses `--config` settings (`KEY=VALUE` each) for `target`.
    pub fn parse(target: &'static dyn Target, config: &[String]) -> Result<Settings, Error> {
        let mut s = Settings::new(target);
        for kv in config {
            let (key, value) = kv.split_once('=').ok_or_else(|| Error::ConfigNotKeyValue {
                setting: kv.clone(),
            })?;
            s.set(kv, key.trim(), value.trim())?;
        }
        Ok(s)
    }

    /// Applies `setting`, which is `key=value` as given (the errors quote it).
    fn set(&mut self, setting: &str, key: &str, value: &str) -> Result<(), Error> {
        if let Some(i) = PASSES.iter().position(|(n, _)| *n == key) {
            let on = boolean(value).ok_or_else(|| Error::ConfigNotOnOff {
                setting: setting.to_string(),
                value: value.to_string(),
            })?;
            if on {
                self.case.disabled_passes &= !(1 << i);
            } else {
                self.case.disabled_passes |= 1 << i;
            }
            return Ok(());
        }
        if !backend_keys(self.target).contains(&key) {
            return Err(Error::ConfigUnknownKey {
                setting: setting.to_string(),
                key: key.to_string(),
                target: self.target.name(),
                keys: self.keys(),
            });
        }
        self.case
            .set_checked(&format!("{key}={value}"))
            .map_err(|error| Error::ConfigKnob {
                setting: setting.to_string(),
                error,
            })
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
        let mut keys = backend_keys(self.target);
        keys.extend(PASSES.iter().map(|(n, _)| *n));
        keys
    }
}

fn boolean(v: &str) -> Option<bool> {
    match v {
        "on" | "true" | "1" | "yes" => Some(true),
        "off" | "false" | "0" | "no" => Some(false),
        _ => None,
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
            target("gen8").unwrap(),
            &cfg(&["gen9=off", "gen_grfs=16", "opt_cse=off"]),
        )
        .unwrap();
        assert_eq!((s.case.gen9, s.case.gen_grfs), (false, 16));
        assert_eq!(s.disabled_passes(), vec!["opt_cse".to_string()]);
        let s = Settings::parse(
            target("a6xx").unwrap(),
            &cfg(&["a6xx_predicates=1", "a6xx_wave128=on"]),
        )
        .unwrap();
        assert_eq!((s.case.a6xx_predicates, s.case.a6xx_wave128), (1, true));
    }

    #[test]
    fn bad_keys_and_values_are_clear_errors() {
        let t = |name| target(name).unwrap();
        let e = Settings::parse(t("middle"), &cfg(&["gen_grfs=16"]))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("unknown key \"gen_grfs\" for target middle"),
            "{e}"
        );
        let e = Settings::parse(t("a6xx"), &cfg(&["gen_grfs=16"]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("a6xx_registers"), "{e}");
        let e = Settings::parse(t("a6xx"), &cfg(&["a6xx_predicates=2"]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("must be 1|4"), "{e}");
        let e = Settings::parse(t("gen16"), &cfg(&["gen_grfs=8"]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("10..=125"), "{e}");
        let e = Settings::parse(t("gen16"), &cfg(&["gen_zero_samples"]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("KEY=VALUE"), "{e}");
        let e = target("gen12").map(|t| t.name()).unwrap_err().to_string();
        assert!(e.contains("middle") && e.contains("a6xx"), "{e}");
        assert!(target("ir").is_err());
        let e = target("vulkan").map(|t| t.name()).unwrap_err().to_string();
        assert!(
            e.contains("statistics") || e.contains("not available"),
            "{e}"
        );
    }
}
