//! turnip's knobs: the Adreno the shim is (`turnip_gpu`: a6xx 618, 630, 660; a7xx 730, 740, 750)
//! and ir3's debug switches (`turnip_debug`, `IR3_SHADER_DEBUG`; `nocache` is always set so
//! each program compiles).

use crate::case::section::{knob_section, Section};
use crate::case::Case;
use crate::rng::SplitMix64;
use crate::targets::driver::words::{OneOf, SetOf, Words};

/// The Adrenos a case draws: a6xx and a7xx GPUs the freedreno shim knows.
pub struct AdrenoList;

impl Words for AdrenoList {
    const KNOB: &'static str = "turnip_gpu";
    const WORDS: &'static [&'static str] = &["630", "618", "660", "730", "740", "750"];
}

/// The simulated GPU (`FD_GPU_ID`).
pub type Adreno = OneOf<AdrenoList>;

/// ir3's switches that change the code it makes (`ir3_compiler.c`, `shader_debug_options`; `asmroundtrip` is 26.x's).
pub struct Ir3SwitchesList;

impl Words for Ir3SwitchesList {
    const KNOB: &'static str = "turnip_debug";
    const WORDS: &'static [&'static str] = &[
        "spillall",
        "nopreamble",
        "noearlypreamble",
        "nouboopt",
        "nofp16",
        "expandrpt",
        "noaliastex",
        "nodescprefetch",
        "fullsync",
        "fullnop",
        "asmroundtrip",
    ];
}

/// The compiler's debug switches a case sets (`IR3_SHADER_DEBUG`).
pub type Ir3Switches = SetOf<Ir3SwitchesList>;

/// The `turnip` section.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TurnipKnobs {
    /// The simulated GPU (`FD_GPU_ID`).
    pub gpu: Adreno,
    /// The compiler's debug switches (`IR3_SHADER_DEBUG`).
    pub debug: Ir3Switches,
}

impl TurnipKnobs {
    /// The case's turnip section.
    pub fn of(case: &Case) -> &TurnipKnobs {
        case.config.sections.get()
    }

    /// The ISA generation of its GPU (`FD_GPU_ID` 6xx or 7xx), which ir3's code is read as.
    pub fn generation(&self) -> sim::ir3::Gen {
        if self.gpu.word().starts_with('7') {
            sim::ir3::Gen::A7xx
        } else {
            sim::ir3::Gen::A6xx
        }
    }
}

/// What the executor needs to know of a GPU (`common/freedreno_devices.py`, 25.0.7; the
/// a630 and a750 listings of 26.2.6 agree, `docs/ir3-dispatch.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AdrenoFacts {
    /// The ISA generation and the scalar ALU (`has_scalar_alu`: a660 and every a7xx).
    pub chip: sim::ir3::exec::Chip,
    /// 64-byte descriptors a storage buffer takes: 2 where `storage_8bit` adds an 8-bit view,
    /// else 1 (`descriptor_size`, `vulkan/tu_descriptor_set.cc`). 25.0.7 has it on a750
    /// only; 26.2.6's code indexes every a7xx's buffers in twos (measured: `t#2`, `stib … 2`
    /// for binding 1 on a730 and a740).
    pub ssbo_descriptors: u32,
    /// `load_shader_consts_via_preamble` (a750): driver params come from a UBO the preamble
    /// copies with `ldc.k`, and the preamble stores the immediates with `stc`.
    pub consts_via_preamble: bool,
    /// Const vec4s of the compute const file (`max_const_compute`: 256 before a7xx, 512).
    pub const_vec4s: usize,
}

impl TurnipKnobs {
    /// The facts of the case's GPU.
    pub fn facts(&self) -> AdrenoFacts {
        let gen = self.generation();
        let word = self.gpu.word();
        let a7 = gen == sim::ir3::Gen::A7xx;
        AdrenoFacts {
            chip: sim::ir3::exec::Chip {
                gen,
                scalar_alu: a7 || word == "660",
            },
            ssbo_descriptors: if a7 { 2 } else { 1 },
            consts_via_preamble: word == "750",
            const_vec4s: if a7 { 512 } else { 256 },
        }
    }
}

knob_section!(TurnipKnobs {
    "turnip_gpu" => gpu: Adreno,
    "turnip_debug" => debug: Ir3Switches,
});

impl Section for TurnipKnobs {
    /// From its own stream of the hash, apart from the other knobs' draws.
    fn draw_from_hash(&mut self, rest: &[u8]) {
        let r = &mut SplitMix64::for_input(crate::rng::fnv1a(rest), 0x7475_726e);
        self.gpu = Adreno::draw(r.next_u64());
        self.debug = Ir3Switches::draw(r.next_u64());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a7xx_gpus_are_read_as_a7xx_code() {
        for (gpu, gen) in [("630", sim::ir3::Gen::A6xx), ("750", sim::ir3::Gen::A7xx)] {
            let k = TurnipKnobs {
                gpu: gpu.parse().unwrap(),
                ..TurnipKnobs::default()
            };
            assert_eq!(k.generation(), gen, "{gpu}");
        }
    }
}
