//! The `nvk` target (opt-in, compile-only): the program as SPIR-V, compiled by NVK (NVIDIA's
//! Vulkan driver in Mesa, with NAK, its Rust backend) on the nouveau no-op drm-shim
//! (`NOUVEAU_CHIPSET`), with NAK's debug switches drawn per case (`NAK_DEBUG`: serial
//! dependencies, spill everything, no uniform GPRs). A NAK panic is a crash classed by its
//! place. Judged as `driver::compile_only` says.

pub mod knobs;

pub use knobs::NvkKnobs;

use crate::case::Case;
use crate::targets::driver::compile_only::{ShimDriver, Statistic};

/// The `nvk` target's driver.
pub struct Nvk;

/// The switch words a compile may set, as the driver's library must know them.
const SWITCHES: &[(&str, &str)] = &[("NAK_DEBUG", "serial,spill,nougpr")];

/// What NVK reports for NAK's executable, in report order.
const STATISTICS: &[Statistic] = &[
    Statistic::count("Instruction count", "instructions"),
    Statistic::count("Code size", "bytes"),
    Statistic::count("Static cycle count", "cycles"),
    Statistic::count("Number of GPRs", "gprs"),
    Statistic::count("Max warps/SM", "warps"),
    Statistic::spill("Spills to memory", "spills"),
    Statistic::count("Fills from memory", "fills"),
    Statistic::spill("Spills to reg", "spills-to-reg"),
    Statistic::count("Fills from reg", "fills-from-reg"),
    Statistic::count("SLM size", "slm"),
];

impl ShimDriver for Nvk {
    fn name(&self) -> &'static str {
        "nvk"
    }

    fn description(&self) -> &'static str {
        "NAK via NVK on the nouveau drm-shim, compile only (scripts/mesa-sid.sh)"
    }

    fn env_file(&self) -> (&'static str, &'static str) {
        ("nvk.env", "GPUFUZZ_NVK")
    }

    fn switches(&self) -> &'static [(&'static str, &'static str)] {
        SWITCHES
    }

    fn driver_env(&self, case: &Case) -> Vec<(String, String)> {
        let c = NvkKnobs::of(case);
        let mut words: Vec<&str> = vec![];
        words.extend(c.debug.words());
        let mut env: Vec<(String, String)> = vec![("NOUVEAU_CHIPSET".into(), c.gpu.word().into())];
        if !words.is_empty() {
            env.push(("NAK_DEBUG".into(), words.join(",")));
        }
        env
    }

    fn in_rust(&self) -> bool {
        true
    }

    fn knobs(&self) -> &'static [&'static str] {
        &["nvk_chip", "nvk_debug"]
    }

    fn statistics(&self) -> &'static [Statistic] {
        STATISTICS
    }
}
