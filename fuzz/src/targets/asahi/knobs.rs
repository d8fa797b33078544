//! Asahi's knobs: AGX's debug switches (`asahi_debug`, `AGX_MESA_DEBUG`;
//! `asahi/compiler/agx_compile.c`, `agx_debug_options`, those that change the code). The shim
//! is one GPU.

use crate::case::section::{knob_section, Section};
use crate::case::Case;
use crate::rng::SplitMix64;
use crate::targets::driver::words::{SetOf, Words};

/// AGX's switches that change the code it makes.
pub struct AgxSwitchesList;

impl Words for AgxSwitchesList {
    const KNOB: &'static str = "asahi_debug";
    const WORDS: &'static [&'static str] = &[
        "noopt",
        "nopreamble",
        "demand",
        "nosched",
        "spill",
        "nopromote",
    ];
}

/// The compiler's debug switches a case sets (`AGX_MESA_DEBUG`).
pub type AgxSwitches = SetOf<AgxSwitchesList>;

/// The `asahi` section.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AsahiKnobs {
    /// The compiler's debug switches (`AGX_MESA_DEBUG`).
    pub debug: AgxSwitches,
}

impl AsahiKnobs {
    /// The case's asahi section.
    pub fn of(case: &Case) -> &AsahiKnobs {
        case.config.sections.get()
    }
}

knob_section!(AsahiKnobs {
    "asahi_debug" => debug: AgxSwitches,
});

impl Section for AsahiKnobs {
    /// From its own stream of the hash, apart from the other knobs' draws.
    fn draw_from_hash(&mut self, rest: &[u8]) {
        let r = &mut SplitMix64::for_input(crate::rng::fnv1a(rest), 0x6167_7878);
        self.debug = AgxSwitches::draw(r.next_u64());
    }
}
