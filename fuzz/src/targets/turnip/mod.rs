//! The `turnip` target (opt-in, compile-only): the program as SPIR-V, compiled by Qualcomm Adreno's
//! Vulkan driver (turnip, with ir3 as its backend) on the freedreno no-op drm-shim
//! (`FD_GPU_ID`), with ir3's own debug switches drawn per case (`IR3_SHADER_DEBUG`: spill
//! everything, preambles off, full syncs and nops, …). Judged as `driver::compile_only` says.

pub mod knobs;

pub use knobs::TurnipKnobs;

use crate::case::Case;
use crate::targets::driver::compile_only::ShimDriver;

/// The `turnip` target's driver.
pub struct Turnip;

/// The switch words a compile may set, as the driver's library must know them.
const SWITCHES: &[(&str, &str)] = &[("IR3_SHADER_DEBUG", "nocache,spillall,nopreamble,noearlypreamble,nouboopt,nofp16,expandrpt,noaliastex,nodescprefetch,fullsync,fullnop,asmroundtrip")];

impl ShimDriver for Turnip {
    fn name(&self) -> &'static str {
        "turnip"
    }

    fn description(&self) -> &'static str {
        "ir3 via turnip on the freedreno drm-shim, compile only (scripts/mesa-sid.sh)"
    }

    fn env_file(&self) -> (&'static str, &'static str) {
        ("turnip.env", "GPUFUZZ_TURNIP")
    }

    fn switches(&self) -> &'static [(&'static str, &'static str)] {
        SWITCHES
    }

    fn driver_env(&self, case: &Case) -> Vec<(String, String)> {
        let c = TurnipKnobs::of(case);
        let mut words: Vec<&str> = vec!["nocache"];
        words.extend(c.debug.words());
        let mut env: Vec<(String, String)> = vec![("FD_GPU_ID".into(), c.gpu.word().into())];
        if !words.is_empty() {
            env.push(("IR3_SHADER_DEBUG".into(), words.join(",")));
        }
        env
    }

    fn knobs(&self) -> &'static [&'static str] {
        &["turnip_gpu", "turnip_debug"]
    }

    fn spill_statistics(&self) -> &'static [&'static str] {
        &["STP Count", "LDP Count"]
    }
}
