//! Jay, Intel's new backend, beside brw: the `anv_backend` and `jay_debug` knobs, and the
//! anv that runs it.
//!
//! Mesa 26.2.6's `libvulkan_intel.so` carries Jay, but anv's four calls into it are guarded
//! by one predicate that the release build compiles to `return false` (measured in Debian's
//! 26.2.6-1 binary: `docs/drivers.md`, "Jay"). No platform or environment variable reaches it,
//! so `scripts/mesa-sid.sh` keeps a copy of that library whose predicate answers true, and
//! names its ICD in `anv.env` as `GPUFUZZ_ANV_JAY_ICD`. A Jay case runs on that copy with
//! `JAY_DEBUG` set from the case's `jay_debug`; everything else (shim, platform, brw's
//! `INTEL_DEBUG` words) is as for brw.

use crate::targets::knob_values::KnobValues;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// Which backend compiles a case (`anv_backend`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BackendName {
    /// brw, anv's own.
    #[default]
    Brw,
    /// Jay, on Xe2 (lnl) only.
    Jay,
}

impl BackendName {
    /// Draws the backend of a case on `platform`: Jay for one lnl case in two, brw otherwise
    /// (Jay compiles Xe2 and newer only).
    pub fn draw(hash: u64, platform: super::Platform) -> BackendName {
        if platform == super::Platform::Lnl && hash.is_multiple_of(2) {
            BackendName::Jay
        } else {
            BackendName::Brw
        }
    }
}

impl fmt::Display for BackendName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BackendName::Brw => "brw",
            BackendName::Jay => "jay",
        })
    }
}

impl FromStr for BackendName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "brw" => Ok(BackendName::Brw),
            "jay" => Ok(BackendName::Jay),
            _ => Err(format!("unknown anv_backend {s:?}; backends: brw, jay")),
        }
    }
}

impl KnobValues for BackendName {
    fn values() -> String {
        "brw|jay (Jay: lnl only, on the anv scripts/mesa-sid.sh switches Jay on in)".into()
    }
}

/// `JAY_DEBUG`'s words that change the code (26.2.6's table; `printdemand` only prints).
const WORDS: [&str; 6] = ["noopt", "spill", "sync", "noacc", "nosched", "strict"];

/// Jay's switches (`jay_debug`): a set of [`WORDS`], read only when Jay compiles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct JaySwitches(u8);

impl JaySwitches {
    /// Draws each word for one case in four.
    pub fn draw(hash: u64) -> JaySwitches {
        let bits = (0..WORDS.len()).filter(|i| (hash >> (8 * i)).is_multiple_of(4));
        JaySwitches(bits.fold(0, |set, i| set | 1 << i))
    }

    fn words(self) -> impl Iterator<Item = &'static str> {
        (WORDS.iter().enumerate())
            .filter(move |(i, _)| self.0 & 1 << i != 0)
            .map(|(_, w)| *w)
    }

    /// `JAY_DEBUG`'s value: the words joined by commas (empty for none).
    pub fn variable(self) -> String {
        self.words().collect::<Vec<_>>().join(",")
    }
}

impl fmt::Display for JaySwitches {
    /// `none` or the words joined by `+`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let words: Vec<_> = self.words().collect();
        if words.is_empty() {
            f.write_str("none")
        } else {
            f.write_str(&words.join("+"))
        }
    }
}

impl FromStr for JaySwitches {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "none" {
            return Ok(JaySwitches(0));
        }
        s.split('+').try_fold(JaySwitches(0), |set, w| {
            let i = WORDS.iter().position(|x| *x == w).ok_or_else(|| {
                format!(
                    "unknown jay_debug word {w:?}; words: {}, joined by +; or none",
                    WORDS.join(", ")
                )
            })?;
            Ok(JaySwitches(set.0 | 1 << i))
        })
    }
}

impl KnobValues for JaySwitches {
    fn values() -> String {
        format!("none, or {} joined by `+`", WORDS.join(", "))
    }
}

/// The backend a case compiles with: brw, or Jay with its switches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// brw.
    #[default]
    Brw,
    /// Jay with `JAY_DEBUG` set from these switches.
    Jay(JaySwitches),
}

impl Backend {
    /// What the driver's environment gets beyond brw's: `JAY_DEBUG`, when it names words.
    pub fn variables(self) -> Vec<(String, String)> {
        match self {
            Backend::Jay(s) if s != JaySwitches(0) => vec![("JAY_DEBUG".into(), s.variable())],
            _ => Vec::new(),
        }
    }

    /// How reports name it: `` (brw) or `, Jay JAY_DEBUG=spill,nosched`.
    pub fn text(self) -> String {
        match self {
            Backend::Brw => String::new(),
            Backend::Jay(s) => format!(", Jay JAY_DEBUG={}", s.variable()),
        }
    }
}

/// The ICD of the anv with Jay switched on that `anv.env` (`file`) names, inside the root as
/// the worker sees it; the error says what installs it.
pub fn icd(file: &std::path::Path) -> Result<PathBuf, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    text.lines()
        .find_map(|l| l.strip_prefix("GPUFUZZ_ANV_JAY_ICD="))
        .map(PathBuf::from)
        .ok_or_else(|| {
            format!(
                "anv_backend=jay: {} names no anv with Jay switched on (GPUFUZZ_ANV_JAY_ICD); \
                 scripts/mesa-sid.sh makes one for Debian's Mesa 26.2.6",
                file.display()
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jay_switches_round_trip_and_every_word_is_drawn() {
        let mut seen = 0u8;
        for i in 0..200u64 {
            let s = JaySwitches::draw(crate::rng::SplitMix64::for_input(i, 9).next_u64());
            assert_eq!(s.to_string().parse::<JaySwitches>().unwrap(), s);
            seen |= s.0;
        }
        assert_eq!(seen, 0b11_1111);
        let s: JaySwitches = "spill+nosched".parse().unwrap();
        assert_eq!(s.variable(), "spill,nosched");
        assert_eq!(
            Backend::Jay(s).variables(),
            [("JAY_DEBUG".to_string(), "spill,nosched".to_string())]
        );
        assert!(Backend::Jay(JaySwitches(0)).variables().is_empty());
        let e = "spill+printdemand".parse::<JaySwitches>().unwrap_err();
        assert!(e.contains("printdemand") && e.contains("nosched"), "{e}");
        assert!("aco".parse::<BackendName>().is_err());
    }

    #[test]
    fn jay_is_drawn_on_lnl_only() {
        use super::super::Platform;
        for h in 0..64u64 {
            assert_eq!(BackendName::draw(h, Platform::Tgl), BackendName::Brw);
        }
        assert!((0..64u64).any(|h| BackendName::draw(h, Platform::Lnl) == BackendName::Jay));
        assert!((0..64u64).any(|h| BackendName::draw(h, Platform::Lnl) == BackendName::Brw));
    }
}
