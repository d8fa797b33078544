//! The `asahi` target (opt-in, compile-only): the program as SPIR-V, compiled by Honeykrisp
//! (Asahi's Vulkan driver for Apple GPUs, with the AGX backend) on the asahi no-op drm-shim,
//! which is an M1 (G13G) and nothing else, with AGX's debug switches drawn per case
//! (`AGX_MESA_DEBUG`: optimisations, scheduling or preambles off, spill everything). Judged as
//! `driver::compile_only` says.

pub mod knobs;

pub use knobs::AsahiKnobs;

use crate::case::Case;
use crate::targets::driver::compile_only::{ShimDriver, Statistic};

/// The `asahi` target's driver.
pub struct Asahi;

/// The switch words a compile may set, as the driver's library must know them.
const SWITCHES: &[(&str, &str)] = &[(
    "AGX_MESA_DEBUG",
    "noopt,nopreamble,demand,nosched,spill,nopromote",
)];

/// What Honeykrisp reports for AGX's executable, in report order.
const STATISTICS: &[Statistic] = &[
    Statistic::count("Instructions", "instructions"),
    Statistic::count("Code size", "bytes"),
    Statistic::count("ALU", "alu"),
    Statistic::count("FSCIB", "fscib"),
    Statistic::count("IC", "ic"),
    Statistic::count("GPRs", "gprs"),
    Statistic::count("Uniforms", "uniforms"),
    Statistic::count("Threads", "threads"),
    Statistic::count("Loops", "loops"),
    Statistic::spill("Spills", "spills"),
    Statistic::count("Fills", "fills"),
    Statistic::spill("Scratch", "scratch"),
    Statistic::count("Preamble instructions", "preamble"),
];

impl ShimDriver for Asahi {
    fn name(&self) -> &'static str {
        "asahi"
    }

    fn description(&self) -> &'static str {
        "AGX via Honeykrisp (Asahi) on the asahi drm-shim, compile only (scripts/mesa-sid.sh)"
    }

    fn env_file(&self) -> (&'static str, &'static str) {
        ("asahi.env", "GPUFUZZ_ASAHI")
    }

    fn switches(&self) -> &'static [(&'static str, &'static str)] {
        SWITCHES
    }

    fn driver_env(&self, case: &Case) -> Vec<(String, String)> {
        let c = AsahiKnobs::of(case);
        let mut words: Vec<&str> = vec![];
        words.extend(c.debug.words());
        let mut env: Vec<(String, String)> = vec![];
        if !words.is_empty() {
            env.push(("AGX_MESA_DEBUG".into(), words.join(",")));
        }
        env
    }

    fn knobs(&self) -> &'static [&'static str] {
        &["asahi_debug"]
    }

    fn statistics(&self) -> &'static [Statistic] {
        STATISTICS
    }
}
