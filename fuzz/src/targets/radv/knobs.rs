//! radv's knobs, the `radv` section of a case: the simulated GPU (`radv_gpu`) and the compute
//! wave size (`radv_wave`), drawn from a hash of the input with the section's own salt. The
//! GPUs drawn are a fixed table, so an input decodes to the same GPU on every machine; whether
//! the chosen Mesa's shim has it is asked at run time (`super::unsupported`).

use crate::case::section::{knob_section, Section};
use crate::rng::SplitMix64;
use crate::targets::knob_values::KnobValues;
use std::fmt;
use std::str::FromStr;

/// The `radv` section.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RadvKnobs {
    /// The simulated AMD GPU (`AMDGPU_GPU_ID`).
    pub gpu: Gpu,
    /// The compute wave size (`64`, or `32`: `RADV_PERFTEST=cswave32`).
    pub wave: Wave,
}

impl RadvKnobs {
    /// The case's radv section.
    pub fn of(case: &crate::case::Case) -> &RadvKnobs {
        case.config.sections.get()
    }
}

knob_section!(RadvKnobs {
    "radv_gpu" => gpu: Gpu,
    "radv_wave" => wave: Wave,
});

impl Section for RadvKnobs {
    /// From its own stream of the hash, apart from the other knobs' draws so theirs stay what
    /// they were.
    fn draw_from_hash(&mut self, rest: &[u8]) {
        let r = &mut SplitMix64::for_input(crate::rng::fnv1a(rest), 0x7261_6476);
        self.gpu = Gpu::draw(r.next_u64());
        self.wave = Wave::draw(r.next_u64());
    }
}

/// The GPUs a case draws, in Mesa 26.2.6's amdgpu shim's order (its `amdgpu_devices[]`, read
/// with [`shim::gpus`]): a fixed table, so that an input decodes to the same GPU on every
/// machine. Mesa 25.0.7's shim (also the one 22.3.6's radv runs over) lists 14 of them — not
/// navi33, strix1, gfx1201, vega20, rembrandt, phoenix — and a case drawing one of those is
/// skipped there, saying so.
pub const GPUS: [&str; 20] = [
    "renoir",
    "raven",
    "raven2",
    "stoney",
    "vangogh",
    "raphael_mendocino",
    "polaris10",
    "polaris12",
    "vega10",
    "navi10",
    "navi31",
    "navi33",
    "navi21",
    "pitcairn",
    "bonaire",
    "strix1",
    "gfx1201",
    "vega20",
    "rembrandt",
    "phoenix",
];

/// GPUs an older shim lists that are not drawn, but may be named (`--case radv_gpu=gfx1150`):
/// Mesa 25.0.7's shim has gfx1150, 26.2.6's no longer.
const OLDER_GPUS: [&str; 1] = ["gfx1150"];

/// A simulated AMD GPU: a name `AMDGPU_GPU_ID` takes ([`GPUS`], or [`OLDER_GPUS`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Gpu(String);

impl Default for Gpu {
    /// Navi 21 (RDNA2, GFX10.3): wave32 and wave64 both compile there.
    fn default() -> Gpu {
        Gpu("navi21".into())
    }
}

impl Gpu {
    /// The name `AMDGPU_GPU_ID` takes.
    pub fn name(&self) -> &str {
        &self.0
    }

    /// One of [`GPUS`], drawn from a hash.
    pub fn draw(hash: u64) -> Gpu {
        Gpu(GPUS[(hash % GPUS.len() as u64) as usize].to_string())
    }
}

impl fmt::Display for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for Gpu {
    type Err = String;
    /// One of [`GPUS`] or [`OLDER_GPUS`]; whether the installed shim has it is a question for
    /// the run ([`Gpu::unsupported`]), not for reading a case.
    fn from_str(s: &str) -> Result<Self, String> {
        if GPUS.iter().chain(&OLDER_GPUS).any(|g| *g == s) {
            Ok(Gpu(s.to_string()))
        } else {
            Err(format!(
                "unknown radv GPU {s:?}; gpufuzz knows: {}",
                GPUS.iter()
                    .chain(&OLDER_GPUS)
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        }
    }
}

impl KnobValues for Gpu {
    fn values() -> String {
        format!(
            "{} (drawn), {} (named only)",
            GPUS.join("|"),
            OLDER_GPUS.join("|")
        )
    }
}

impl KnobValues for Wave {
    fn values() -> String {
        "64|32".into()
    }
}

/// The compute wave size radv compiles for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Wave {
    /// Wave64, radv's default for compute.
    #[default]
    W64,
    /// Wave32 (`RADV_PERFTEST=cswave32`; GFX10 and later).
    W32,
}

impl Wave {
    /// Wave32 half the time.
    pub fn draw(hash: u64) -> Wave {
        if hash.is_multiple_of(2) {
            Wave::W64
        } else {
            Wave::W32
        }
    }
}

impl fmt::Display for Wave {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Wave::W64 => "64",
            Wave::W32 => "32",
        })
    }
}

impl FromStr for Wave {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "64" => Ok(Wave::W64),
            "32" => Ok(Wave::W32),
            _ => Err(format!("radv_wave is 32 or 64, not {s:?}")),
        }
    }
}
