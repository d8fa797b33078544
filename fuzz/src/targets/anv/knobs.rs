//! anv's knobs, the `anv` section of a case: the simulated platform (`anv_platform`) and brw's
//! switches (`anv_debug`), drawn from a hash of the input with the section's own salt. Both are
//! the same words on every machine and every Mesa version: the dispatch widths a case allows
//! are a set, which each version's switches spell their own way at run time
//! (`super::versions`), so decoding never asks which anv is installed.

use super::jay::{Backend, BackendName, JaySwitches};
use crate::case::section::{knob_section, Section};
use crate::rng::SplitMix64;
use crate::targets::knob_values::KnobValues;
use sim::intel::Gen;
use std::fmt;
use std::str::FromStr;

/// The `anv` section.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AnvKnobs {
    /// The simulated Intel GPU (`INTEL_STUB_GPU_PLATFORM`).
    pub platform: Platform,
    /// brw's switches (`spill_fs+nocompact+cs16`, or `none`).
    pub debug: Switches,
    /// Which backend compiles: brw, or Jay (`super::jay`).
    pub backend: BackendName,
    /// Jay's switches (`spill+nosched`, or `none`), read when Jay compiles.
    pub jay_debug: JaySwitches,
}

impl AnvKnobs {
    /// The case's anv section.
    pub fn of(case: &crate::case::Case) -> &AnvKnobs {
        case.config.sections.get()
    }

    /// The backend with its switches.
    pub fn backend(&self) -> Backend {
        match self.backend {
            BackendName::Brw => Backend::Brw,
            BackendName::Jay => Backend::Jay(self.jay_debug),
        }
    }
}

knob_section!(AnvKnobs {
    "anv_platform" => platform: Platform,
    "anv_debug" => debug: Switches,
    "anv_backend" => backend: BackendName,
    "jay_debug" => jay_debug: JaySwitches,
});

impl Section for AnvKnobs {
    /// From its own stream of the hash, apart from the other knobs' draws so theirs stay what
    /// they were.
    fn draw_from_hash(&mut self, rest: &[u8]) {
        let r = &mut SplitMix64::for_input(crate::rng::fnv1a(rest), 0x0061_6e76);
        self.platform = Platform::draw(r.next_u64());
        self.debug = Switches::draw(r.next_u64());
        self.backend = BackendName::draw(r.next_u64(), self.platform);
        self.jay_debug = JaySwitches::draw(r.next_u64());
    }
}

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

impl Platform {
    /// Draws the platform from a hash, each as often.
    pub fn draw(hash: u64) -> Platform {
        Platform::ALL[(hash % Platform::ALL.len() as u64) as usize]
    }
}

impl KnobValues for Platform {
    fn values() -> String {
        let names: Vec<&str> = Platform::ALL.iter().map(|p| p.name()).collect();
        names.join("|")
    }
}

/// A set of the compute dispatch widths (8, 16, 32): those brw may compile a case at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Widths(u8);

impl Widths {
    /// Every width: brw's own choice.
    pub const ALL: Widths = Widths(0b111);
    /// The widths, narrowest first.
    pub const EACH: [u32; 3] = [8, 16, 32];

    /// Width `simd` alone.
    pub fn only(simd: u32) -> Widths {
        Widths(Widths::bit(simd))
    }

    fn bit(simd: u32) -> u8 {
        match simd {
            8 => 1,
            16 => 2,
            _ => 4,
        }
    }

    /// Whether no width is allowed (not a case's: a step toward one).
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether width `simd` is allowed.
    pub fn has(self, simd: u32) -> bool {
        self.0 & Widths::bit(simd) != 0
    }

    /// Every width but `simd`: what keeps brw from the width that ran.
    pub fn without(self, simd: u32) -> Widths {
        Widths(self.0 & !Widths::bit(simd))
    }

    /// The allowed widths, narrowest first.
    pub fn iter(self) -> impl Iterator<Item = u32> {
        Widths::EACH.into_iter().filter(move |&w| self.has(w))
    }

    /// Every set a case draws other than [`Widths::ALL`]: one width, or two.
    const RESTRICTED: [Widths; 6] = [
        Widths(0b001),
        Widths(0b010),
        Widths(0b100),
        Widths(0b011),
        Widths(0b101),
        Widths(0b110),
    ];
}

impl Default for Widths {
    fn default() -> Widths {
        Widths::ALL
    }
}

/// brw's debug switches a case runs with, as any Mesa version's words name them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Switches {
    /// `spill_fs`: the register allocator spills whatever it can (real spill code everywhere).
    pub spill_fs: bool,
    /// `nocompact`: every instruction native (16 bytes).
    pub nocompact: bool,
    /// The dispatch widths brw may compile at (spelt `cs8`, `cs16`, `cs32` when not all).
    pub widths: Widths,
    /// `do32`: try SIMD32 even when a narrower variant compiled — an `INTEL_DEBUG` word of Mesa
    /// 22.3.6 and 25.0.7 only, read from saved cases but never drawn (a version without it
    /// refuses the case when it runs).
    pub do32: bool,
}

impl Switches {
    /// Draws switches from a hash: spill_fs one case in three, nocompact one in four, the
    /// widths restricted one in two (to one width or two, each set as often).
    pub fn draw(hash: u64) -> Switches {
        let sets = Widths::RESTRICTED;
        Switches {
            spill_fs: hash.is_multiple_of(3),
            nocompact: (hash >> 8).is_multiple_of(4),
            widths: if (hash >> 16).is_multiple_of(2) {
                Widths::ALL
            } else {
                sets[((hash >> 24) % sets.len() as u64) as usize]
            },
            do32: false,
        }
    }

    /// The words, as the `anv_debug` knob spells them.
    fn words(self) -> Vec<String> {
        let mut words: Vec<String> = [
            (self.spill_fs, "spill_fs"),
            (self.nocompact, "nocompact"),
            (self.do32, "do32"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, w)| w.to_string())
        .collect();
        if self.widths != Widths::ALL {
            words.extend(self.widths.iter().map(|w| format!("cs{w}")));
        }
        words
    }
}

impl fmt::Display for Switches {
    /// `none` or the words joined by `+` (`spill_fs+cs8+cs16`).
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
    /// `none` or words joined by `+`. A width is named as the widths allowed (`cs8`, `cs16`,
    /// `cs32`: these only) or as the widths dropped (`no8`, `no16`, `no32`, the words of Mesa
    /// 22.3.6 and 25.0.7, which saved cases hold): `no8` is `cs16+cs32`.
    fn from_str(s: &str) -> Result<Self, String> {
        let mut out = Switches::default();
        if s == "none" {
            return Ok(out);
        }
        let (mut only, mut dropped) = (None::<Widths>, Widths(0));
        for w in s.split('+') {
            match w {
                "spill_fs" => out.spill_fs = true,
                "nocompact" => out.nocompact = true,
                "do32" => out.do32 = true,
                "cs8" | "cs16" | "cs32" => {
                    let set = only.get_or_insert(Widths(0));
                    set.0 |= Widths::bit(w[2..].parse().unwrap_or(32));
                }
                "no8" | "no16" | "no32" => dropped.0 |= Widths::bit(w[2..].parse().unwrap_or(32)),
                _ => {
                    return Err(format!(
                        "unknown anv_debug word {w:?}; words: spill_fs, nocompact, the widths                          allowed (cs8, cs16, cs32) or dropped (no8, no16, no32), do32 (Mesa 22.3.6                          and 25.0.7 only), joined by +; or none"
                    ))
                }
            }
        }
        out.widths = Widths(only.unwrap_or(Widths::ALL).0 & !dropped.0);
        if out.widths.0 == 0 {
            return Err(format!("anv_debug {s:?} leaves brw no dispatch width"));
        }
        Ok(out)
    }
}

impl KnobValues for Switches {
    fn values() -> String {
        "none, or spill_fs, nocompact and the widths allowed (cs8, cs16, cs32; every one when \
         none is named) joined by `+`; no8, no16, no32 (a width dropped) and do32 are read too"
            .into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switches_and_platforms_round_trip_through_their_text() {
        for hash in 0..200u64 {
            let h = hash.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let s = Switches::draw(h);
            assert_eq!(s.to_string().parse::<Switches>().unwrap(), s);
            let p = Platform::draw(h);
            assert_eq!(p.to_string().parse::<Platform>().unwrap(), p);
        }
        let parse = |s: &str| s.parse::<Switches>().map(|s| s.to_string());
        assert_eq!(parse("spill_fs+no8").unwrap(), "spill_fs+cs16+cs32");
        assert_eq!(parse("no8+no16").unwrap(), "cs32");
        assert_eq!(parse("cs16+cs8").unwrap(), "cs8+cs16");
        assert_eq!(parse("nocompact+do32").unwrap(), "nocompact+do32");
        assert_eq!(parse("cs8+cs16+cs32").unwrap(), "none");
        assert!(parse("no8+cs8").unwrap_err().contains("no dispatch width"));
        assert!("fast".parse::<Switches>().is_err());
        assert!("gfx9".parse::<Platform>().is_err());
    }

    #[test]
    fn every_switch_and_platform_is_drawn() {
        let draws: Vec<u64> = (0..400u64)
            .map(|i| crate::rng::SplitMix64::for_input(i, 7).next_u64())
            .collect();
        for p in Platform::ALL {
            assert!(draws.iter().any(|&h| Platform::draw(h) == *p), "{p}");
        }
        for set in Widths::RESTRICTED.into_iter().chain([Widths::ALL]) {
            assert!(
                draws.iter().any(|&h| Switches::draw(h).widths == set),
                "{set:?}"
            );
        }
        assert!(draws.iter().any(|&h| Switches::draw(h).spill_fs));
        assert!(draws.iter().any(|&h| Switches::draw(h).nocompact));
        assert!(!draws.iter().any(|&h| Switches::draw(h).do32));
    }
}
