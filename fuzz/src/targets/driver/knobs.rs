//! The module's section of a case: what a driver is given — the middle end's output or the
//! generator's program (`vulkan_unoptimised`), and the `spirv-opt` passes run in front of it
//! (`vulkan_spirv_opt`). Both are drawn from the bytes the generator left after the program, so
//! inputs saved before these knobs existed still decode to the same program and backend knobs.

use crate::case::section::{knob_section, Section};
use crate::targets::driver::spirv_opt::SpirvOptPasses;
use arbitrary::Unstructured;

/// The module's section (its keys keep the `vulkan_` names saved cases have).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleKnobs {
    /// The driver gets the generator's program rather than the middle end's output.
    pub unoptimised: bool,
    /// `spirv-opt` passes run between the emitter and the driver (`ccp+merge-blocks`; empty:
    /// none).
    pub spirv_opt: SpirvOptPasses,
}

impl ModuleKnobs {
    /// The case's module section.
    pub fn of(case: &crate::case::Case) -> &ModuleKnobs {
        case.config.sections.get()
    }
}

knob_section!(ModuleKnobs {
    "vulkan_unoptimised" => unoptimised: bool,
    "vulkan_spirv_opt" => spirv_opt: SpirvOptPasses,
});

impl Section for ModuleKnobs {
    /// One case in four with bytes left puts spirv-opt before the driver; one in four gives
    /// the driver the generator's program, unoptimised by us. Out of bytes, `ratio` would
    /// always say yes: neither is drawn then.
    fn draw_from_tail(&mut self, u: &mut Unstructured) {
        if u.len() >= 4 && u.ratio(1, 4).unwrap_or(false) {
            self.spirv_opt = SpirvOptPasses::draw(u).unwrap_or_default();
        }
        if u.len() >= 4 && u.ratio(1, 4).unwrap_or(false) {
            self.unoptimised = true;
        }
    }
}
