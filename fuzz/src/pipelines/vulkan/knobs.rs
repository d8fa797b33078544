//! The `vulkan` section of a case: what the driver is given — the middle end's output or the
//! generator's program (`vulkan_unoptimised`), and the `spirv-opt` passes run in front of it
//! (`vulkan_spirv_opt`). Both are drawn from the bytes the generator left after the program, so
//! inputs saved before these knobs existed still decode to the same program and backend knobs.

use crate::case::section::{knob_section, Section};
use crate::pipelines::spirv_opt::SpirvOptPasses;
use arbitrary::Unstructured;

/// The `vulkan` section.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VulkanKnobs {
    /// The driver gets the generator's program rather than the middle end's output.
    pub unoptimised: bool,
    /// `spirv-opt` passes run between the emitter and the driver (`ccp+merge-blocks`; empty:
    /// none).
    pub spirv_opt: SpirvOptPasses,
}

impl VulkanKnobs {
    /// The case's vulkan section.
    pub fn of(case: &crate::case::Case) -> &VulkanKnobs {
        case.config.sections.get()
    }
}

knob_section!(VulkanKnobs {
    "vulkan_unoptimised" => unoptimised: bool,
    "vulkan_spirv_opt" => spirv_opt: SpirvOptPasses,
});

impl Section for VulkanKnobs {
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
