//! What differs in anv between the Mesa versions we run: how brw is told the dispatch widths
//! a case allows, and the syntax of its disassembly. Mesa's `INTEL_DEBUG` parser ignores words
//! it does not know, so a switch of another version would silently do nothing: a version not in
//! this table is refused at start, and a case asking for what its row lacks is refused when it
//! runs ([`Version::variables`]).
//!
//! - 22.3.6: `INTEL_DEBUG` has `no8`, `no16`, `no32` (drop a width; any of them together) and
//!   `do32` (try SIMD32 too); it has no `INTEL_SIMD_DEBUG`. brw 25's syntax.
//! - 25.0.7: the same words; it also reads `INTEL_SIMD_DEBUG`, and `no8` is exactly clearing
//!   `cs8` there (`intel/dev/intel_debug.c`, `process_intel_debug_variable_once`). We keep the
//!   `INTEL_DEBUG` words, which its findings were reported with.
//! - 26.2.6: the `no*` and `do32` words are gone; `INTEL_SIMD_DEBUG=cs8,cs16` (a list) compiles
//!   compute shaders at those widths only (seen: with one width, the listing's executable is
//!   that width). brw 26's syntax.
//!
//! `spill_fs` and `nocompact` are `INTEL_DEBUG` words in all three.

use super::knobs::{Switches, Widths};
use sim::intel::Syntax;

/// How a version is told which dispatch widths brw may compile at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WidthSwitch {
    /// `INTEL_DEBUG` words dropping the others (`no8`, `no16`, `no32`).
    Dropped,
    /// `INTEL_SIMD_DEBUG`, listing the allowed (`cs8,cs16`).
    Allowed,
}

/// One Mesa version's anv.
#[derive(Debug, PartialEq, Eq)]
pub struct Version {
    /// The version (`26.2.6`), as the driver reports it.
    pub mesa: &'static str,
    /// How it is told the widths.
    pub widths: WidthSwitch,
    /// Whether it knows `do32`.
    pub do32: bool,
    /// How its brw prints a listing.
    pub syntax: Syntax,
}

/// Every version we run, oldest first.
pub const VERSIONS: &[Version] = &[
    Version {
        mesa: "22.3.6",
        widths: WidthSwitch::Dropped,
        do32: true,
        syntax: Syntax::Brw25,
    },
    Version {
        mesa: "25.0.7",
        widths: WidthSwitch::Dropped,
        do32: true,
        syntax: Syntax::Brw25,
    },
    Version {
        mesa: "26.2.6",
        widths: WidthSwitch::Allowed,
        do32: false,
        syntax: Syntax::Brw26,
    },
];

/// The newest version: its table serves the draw when no anv is installed (nothing runs it).
pub fn newest() -> &'static Version {
    VERSIONS.last().expect("a version")
}

/// The row of `mesa` (`25.0.7`; a suffix such as `-debugoptimized` is not part of it), or an
/// error naming the versions we know.
pub fn of(mesa: &str) -> Result<&'static Version, String> {
    let number = mesa
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .next();
    VERSIONS
        .iter()
        .find(|v| Some(v.mesa) == number)
        .ok_or_else(|| {
            let known: Vec<&str> = VERSIONS.iter().map(|v| v.mesa).collect();
            format!(
                "anv of Mesa {mesa} is not one we know the switches and disassembly of (known: {}); \
                 choose one with --mesa",
                known.join(", ")
            )
        })
}

/// The version the target's anv is (its `anv.env`), if one is installed and known.
pub fn target() -> Result<&'static Version, String> {
    static TARGET: std::sync::OnceLock<Result<&'static Version, String>> =
        std::sync::OnceLock::new();
    TARGET
        .get_or_init(|| of(&super::environment()?.mesa))
        .clone()
}

impl Version {
    /// The variables the worker runs with for `switches`, as findings and comparisons name
    /// them (`INTEL_DEBUG=hex,spill_fs INTEL_SIMD_DEBUG=cs16`); `hex` (the bytes in the
    /// listing) is always first. Refused when this version cannot say what the case asks.
    pub fn variables(&self, switches: Switches) -> Result<Vec<(String, String)>, String> {
        if switches.do32 && !self.do32 {
            return Err(format!(
                "anv_debug {switches}: Mesa {}'s anv has no do32 switch (it has spill_fs, \
                 nocompact and the widths cs8, cs16, cs32)",
                self.mesa
            ));
        }
        let mut words = vec!["hex".to_string()];
        for (on, word) in [
            (switches.spill_fs, "spill_fs"),
            (switches.nocompact, "nocompact"),
            (switches.do32, "do32"),
        ] {
            if on {
                words.push(word.into());
            }
        }
        let restricted = switches.widths != Widths::ALL;
        let mut simd_debug = None;
        match self.widths {
            WidthSwitch::Dropped => {
                let dropped = Widths::EACH
                    .into_iter()
                    .filter(|&w| !switches.widths.has(w));
                words.extend(dropped.map(|w| format!("no{w}")));
            }
            WidthSwitch::Allowed if restricted => {
                let allowed: Vec<String> =
                    switches.widths.iter().map(|w| format!("cs{w}")).collect();
                simd_debug = Some(allowed.join(","));
            }
            WidthSwitch::Allowed => {}
        }
        let mut v = vec![("INTEL_DEBUG".to_string(), words.join(","))];
        v.extend(simd_debug.map(|s| ("INTEL_SIMD_DEBUG".to_string(), s)));
        Ok(v)
    }

    /// [`Version::variables`] as `NAME=value` words; the switches themselves when this version
    /// refuses them.
    pub fn variables_text(&self, switches: Switches) -> String {
        match self.variables(switches) {
            Ok(vars) => {
                let words: Vec<String> = vars.iter().map(|(k, v)| format!("{k}={v}")).collect();
                words.join(" ")
            }
            Err(_) => format!("anv_debug={switches}"),
        }
    }
}

/// The variables text of `switches` for the target's anv (as the newest version spells them
/// when none is installed: then nothing runs).
pub fn target_variables_text(switches: Switches) -> String {
    target().unwrap_or(newest()).variables_text(switches)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(mesa: &str, switches: &str) -> Result<String, String> {
        let v = of(mesa)?;
        let vars = v.variables(switches.parse()?)?;
        Ok(vars
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" "))
    }

    /// One case's switches, each version's words: the widths dropped by 22.3.6 and 25.0.7, the
    /// widths allowed by 26.2.6.
    #[test]
    fn each_version_spells_the_widths_its_own_way() {
        assert_eq!(
            text("25.0.7", "spill_fs+cs8").unwrap(),
            "INTEL_DEBUG=hex,spill_fs,no16,no32"
        );
        assert_eq!(
            text("26.2.6", "spill_fs+cs8").unwrap(),
            "INTEL_DEBUG=hex,spill_fs INTEL_SIMD_DEBUG=cs8"
        );
        assert_eq!(text("22.3.6", "no16").unwrap(), "INTEL_DEBUG=hex,no16");
        assert_eq!(
            text("26.2.6", "no16").unwrap(),
            "INTEL_DEBUG=hex INTEL_SIMD_DEBUG=cs8,cs32"
        );
        assert_eq!(
            text("26.2.6", "nocompact").unwrap(),
            "INTEL_DEBUG=hex,nocompact"
        );
        assert_eq!(
            text("25.0.7", "nocompact+do32").unwrap(),
            "INTEL_DEBUG=hex,nocompact,do32"
        );
        let e = text("26.2.6", "do32").unwrap_err();
        assert!(e.contains("26.2.6's anv has no do32"), "{e}");
    }

    #[test]
    fn an_unknown_version_is_refused_naming_the_known_ones() {
        let e = of("26.1.6").expect_err("not in the table");
        assert!(e.contains("22.3.6, 25.0.7, 26.2.6"), "{e}");
        assert_eq!(of("25.0.7-debugoptimized").map(|v| v.mesa), Ok("25.0.7"));
    }

    /// Every drawn case runs on every version.
    #[test]
    fn every_version_runs_every_drawn_case() {
        for v in VERSIONS {
            for h in 0..4000u64 {
                let s = Switches::draw(h.wrapping_mul(0x9e37_79b9_7f4a_7c15));
                assert!(v.variables(s).is_ok(), "{} refused {s}", v.mesa);
            }
        }
    }
}
