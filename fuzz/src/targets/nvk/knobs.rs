//! NVK's knobs: the NVIDIA chip the shim is (`nvk_chip`, `NOUVEAU_CHIPSET` in hex, Maxwell to
//! Blackwell; each of these enumerates on 26.2.6's shim, 1a0 does not) and NAK's switches
//! (`nvk_debug`, `NAK_DEBUG`; `src/nouveau/compiler/nak/api.rs`).

use crate::case::section::{knob_section, Section};
use crate::case::Case;
use crate::rng::SplitMix64;
use crate::targets::driver::words::{OneOf, SetOf, Words};

/// The chips a case draws (the shim's `NOUVEAU_CHIPSET`, hex; the default an Ampere).
pub struct ChipList;

impl Words for ChipList {
    const KNOB: &'static str = "nvk_chip";
    const WORDS: &'static [&'static str] = &["170", "120", "130", "140", "160", "190", "1b0"];
}

/// The simulated GPU (`NOUVEAU_CHIPSET`).
pub type Chip = OneOf<ChipList>;

/// NAK's switches that change the code it makes.
pub struct NakSwitchesList;

impl Words for NakSwitchesList {
    const KNOB: &'static str = "nvk_debug";
    const WORDS: &'static [&'static str] = &["serial", "spill", "nougpr"];
}

/// The compiler's debug switches a case sets (`NAK_DEBUG`).
pub type NakSwitches = SetOf<NakSwitchesList>;

/// The `nvk` section.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NvkKnobs {
    /// The simulated GPU (`NOUVEAU_CHIPSET`).
    pub gpu: Chip,
    /// The compiler's debug switches (`NAK_DEBUG`).
    pub debug: NakSwitches,
}

impl NvkKnobs {
    /// The case's nvk section.
    pub fn of(case: &Case) -> &NvkKnobs {
        case.config.sections.get()
    }
}

knob_section!(NvkKnobs {
    "nvk_chip" => gpu: Chip,
    "nvk_debug" => debug: NakSwitches,
});

impl Section for NvkKnobs {
    /// From its own stream of the hash, apart from the other knobs' draws.
    fn draw_from_hash(&mut self, rest: &[u8]) {
        let r = &mut SplitMix64::for_input(crate::rng::fnv1a(rest), 0x006e_766b);
        self.gpu = Chip::draw(r.next_u64());
        self.debug = NakSwitches::draw(r.next_u64());
    }
}
