//! What differs in anv between the Mesa versions we run: the dispatch-width switches brw knows
//! and the syntax of its disassembly. Mesa's `INTEL_DEBUG` parser ignores words it does not
//! know, so a switch of another version would silently do nothing: a version not in this table
//! is refused at start, and so is a switch its row does not list.
//!
//! - 22.3.6, 25.0.7: `INTEL_DEBUG` has `no8`, `no16`, `no32` (drop a width) and `do32` (try
//!   SIMD32 too); brw 25's syntax.
//! - 26.2.6: those words are gone; `INTEL_SIMD_DEBUG=cs8` (`cs16`, `cs32`) compiles compute
//!   shaders at that width only (seen: the listing's executable is that width); brw 26's syntax.
//!
//! `spill_fs` and `nocompact` are `INTEL_DEBUG` words in all three.

use super::{Simd, Switches};
use sim::intel::Syntax;

/// One Mesa version's anv.
#[derive(Debug, PartialEq, Eq)]
pub struct Version {
    /// The version (`26.2.6`), as the driver reports it.
    pub mesa: &'static str,
    /// The dispatch-width switches it knows; the draw picks among these.
    pub simd: &'static [Simd],
    /// How its brw prints a listing.
    pub syntax: Syntax,
}

const INTEL_DEBUG_WIDTHS: &[Simd] = &[Simd::No8, Simd::No16, Simd::No32, Simd::Do32];

/// Every version we run, oldest first.
pub const VERSIONS: &[Version] = &[
    Version {
        mesa: "22.3.6",
        simd: INTEL_DEBUG_WIDTHS,
        syntax: Syntax::Brw25,
    },
    Version {
        mesa: "25.0.7",
        simd: INTEL_DEBUG_WIDTHS,
        syntax: Syntax::Brw25,
    },
    Version {
        mesa: "26.2.6",
        simd: &[Simd::Cs8, Simd::Cs16, Simd::Cs32],
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
    /// Refuses switches this version does not know, naming the ones it does.
    pub fn check(&self, switches: Switches) -> Result<(), String> {
        if switches.simd == Simd::Default || self.simd.contains(&switches.simd) {
            return Ok(());
        }
        let known: Vec<String> = self.simd.iter().map(|s| s.to_string()).collect();
        Err(format!(
            "anv_debug {switches}: Mesa {}'s anv has no {} switch (its width switches: {}; also \
             spill_fs, nocompact)",
            self.mesa,
            switches.simd,
            known.join(", ")
        ))
    }

    /// The width switch that keeps brw from the width `simd` that ran, so that another one does.
    pub fn other_width(&self, simd: u32) -> Simd {
        let wanted = match (self.syntax, simd) {
            (Syntax::Brw25, 8) => Simd::No8,
            (Syntax::Brw25, 16) => Simd::No16,
            (Syntax::Brw25, _) => Simd::No32,
            (Syntax::Brw26, 8) => Simd::Cs16,
            (Syntax::Brw26, _) => Simd::Cs8,
        };
        debug_assert!(self.simd.contains(&wanted), "{wanted} not in {}", self.mesa);
        wanted
    }
}

/// `--case help`'s words for `anv_debug`: each version's widths from this table.
impl crate::pipelines::knob_values::KnobValues for Switches {
    fn values() -> String {
        let widths: Vec<String> = VERSIONS
            .iter()
            .map(|v| {
                let words: Vec<String> = v.simd.iter().map(|s| s.to_string()).collect();
                format!("{} (Mesa {})", words.join("|"), v.mesa)
            })
            .collect();
        format!(
            "none, or spill_fs, nocompact and at most one width word joined by `+`; widths: {}",
            widths.join(", ")
        )
    }
}

impl crate::pipelines::knob_values::KnobValues for super::Platform {
    fn values() -> String {
        let names: Vec<&str> = super::Platform::ALL.iter().map(|p| p.name()).collect();
        names.join("|")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_switch_unknown_to_the_version_is_refused() {
        let v26 = of("26.2.6").expect("26.2.6");
        let no8: Switches = Switches::parse_words("spill_fs+no8").expect("a word of 25.0.7");
        let e = v26.check(no8).expect_err("26.2.6 has no no8");
        assert!(e.contains("no no8") && e.contains("cs16"), "{e}");
        let cs16: Switches = Switches::parse_words("cs16").expect("a word of 26.2.6");
        assert!(of("25.0.7").expect("25.0.7").check(cs16).is_err());
        assert!(of("22.3.6").expect("22.3.6").check(no8).is_ok());
        assert!(v26.check(cs16).is_ok());
    }

    #[test]
    fn an_unknown_version_is_refused_naming_the_known_ones() {
        let e = of("26.1.6").expect_err("not in the table");
        assert!(e.contains("22.3.6, 25.0.7, 26.2.6"), "{e}");
        assert_eq!(of("25.0.7-debugoptimized").map(|v| v.mesa), Ok("25.0.7"));
    }

    #[test]
    fn the_draw_uses_only_the_versions_own_switches() {
        for v in VERSIONS {
            let mut widths = Vec::new();
            for h in 0..4000u64 {
                let s = Switches::draw_for(v, h.wrapping_mul(0x9e37_79b9_7f4a_7c15));
                assert!(v.check(s).is_ok(), "{} drew {s}", v.mesa);
                widths.push(s.simd);
            }
            for simd in v.simd {
                assert!(widths.contains(simd), "{} never drew {simd}", v.mesa);
            }
        }
        let v26 = of("26.2.6").expect("26.2.6");
        for h in 0..4000u64 {
            let s = Switches::draw_for(v26, h);
            assert!(
                !INTEL_DEBUG_WIDTHS.contains(&s.simd),
                "26.2.6 drew {s} ({})",
                s.intel_debug()
            );
            assert!(!s.intel_debug().contains("no8") && !s.intel_debug().contains("do32"));
        }
    }

    #[test]
    fn the_other_width_is_a_switch_of_the_same_version() {
        for v in VERSIONS {
            for simd in [8, 16, 32] {
                assert!(v
                    .check(Switches {
                        simd: v.other_width(simd),
                        ..Switches::default()
                    })
                    .is_ok());
            }
        }
    }
}
