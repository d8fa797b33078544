//! The `turnip` target (opt-in, compile-only): the program as SPIR-V, compiled by Qualcomm Adreno's
//! Vulkan driver (turnip, with ir3 as its backend) on the freedreno no-op drm-shim
//! (`FD_GPU_ID`), with ir3's own debug switches drawn per case (`IR3_SHADER_DEBUG`: spill
//! everything, preambles off, full syncs and nops, …). Judged as `driver::compile_only` says.

mod agree;
mod binary;
mod execute;
mod judge;
pub mod knobs;
mod trace;

pub use knobs::TurnipKnobs;

use crate::case::coverage::Coverage;
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::finding::Finding;
use crate::targets::driver::compile_only::{Capture, Disagreement, ShimDriver, Statistic};
use agree::{Code, Unchecked};
use compiler::ir::Program;

/// The `turnip` target's driver.
pub struct Turnip;

/// The switch words a compile may set, as the driver's library must know them.
const SWITCHES: &[(&str, &str)] = &[("IR3_SHADER_DEBUG", "nocache,spillall,nopreamble,noearlypreamble,nouboopt,nofp16,expandrpt,noaliastex,nodescprefetch,fullsync,fullnop,asmroundtrip")];

/// What turnip reports for ir3's executable, in report order.
const STATISTICS: &[Statistic] = &[
    Statistic::count("Instruction Count", "instructions"),
    Statistic::count("Code size", "bytes"),
    Statistic::count("NOPs Count", "nops"),
    Statistic::count("MOV Count", "movs"),
    Statistic::count("COV Count", "covs"),
    Statistic::count("Registers used", "registers"),
    Statistic::count("Half-registers used", "half-registers"),
    Statistic::count("Max Waves Per Core", "waves"),
    Statistic::count("Instructions with SS sync bit", "ss"),
    Statistic::count("Instructions with SY sync bit", "sy"),
    Statistic::count("Estimated cycles stalled on SS", "ss-stalls"),
    Statistic::count("Estimated cycles stalled on SY", "sy-stalls"),
    Statistic::count("cat0 instructions", "cat0"),
    Statistic::count("cat1 instructions", "cat1"),
    Statistic::count("cat2 instructions", "cat2"),
    Statistic::count("cat3 instructions", "cat3"),
    Statistic::count("cat4 instructions", "cat4"),
    Statistic::count("cat5 instructions", "cat5"),
    Statistic::count("cat6 instructions", "cat6"),
    Statistic::count("cat7 instructions", "cat7"),
    Statistic::count("Loops", "loops"),
    Statistic::spill("STP Count", "spills"),
    Statistic::spill("LDP Count", "fills"),
    Statistic::count("Preamble Instruction Count", "preamble"),
    Statistic::count("Const file size", "consts"),
];

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

    fn statistics(&self) -> &'static [Statistic] {
        STATISTICS
    }

    /// Our ir3 decoder against ir3's listing: every word decoded is printed as ir3 printed
    /// it; a word we do not decode, or code not found, is counted by its reason.
    fn check(
        &self,
        case: &Case,
        capture: &Capture,
        coverage: &mut Coverage,
    ) -> Result<(), Disagreement> {
        let gen = TurnipKnobs::of(case).generation();
        let code = match Code::of(capture, gen) {
            Ok(code) => code,
            Err(why) => {
                coverage
                    .skipped
                    .push(format!("turnip: ir3 code unchecked: {}", class(&why)));
                return Ok(());
            }
        };
        let mut reasons: Vec<String> = code.undecoded().map(|why| why.to_string()).collect();
        coverage.decoded.push((
            "turnip",
            (
                code.words.len() as u64,
                (code.words.len() - reasons.len()) as u64,
            ),
        ));
        // Once per program and reason, as every skip is counted.
        reasons.sort();
        reasons.dedup();
        for why in reasons {
            coverage
                .skipped
                .push(format!("turnip: ir3 word not decoded: {why}"));
        }
        match code.first_difference() {
            Some(d) => Err(agree::disagreement(&d)),
            None => Ok(()),
        }
    }

    /// ir3's code run on our executor against the interpreter, its rules checked
    /// ([`judge`]).
    fn judge(
        &self,
        case: &Case,
        program: &Program,
        capture: &Capture,
        opts: &OracleOptions,
        coverage: &mut Coverage,
    ) -> Result<(), Box<Finding>> {
        judge::judge(self, case, program, capture, opts, coverage)
    }

    fn explain(
        &self,
        case: &Case,
        program: &Program,
        capture: &Capture,
        opts: &OracleOptions,
    ) -> (String, bool) {
        trace::explain(case, program, capture, opts)
    }

    fn annotate(&self, case: &Case, capture: &Capture) -> String {
        let gen = TurnipKnobs::of(case).generation();
        match Code::of(capture, gen) {
            Ok(code) => code.annotated(),
            Err(why) => format!("// ir3's words: {why}\n"),
        }
    }
}

/// A reason the code went unchecked, without the numbers that would split its count.
fn class(why: &Unchecked) -> String {
    match why {
        Unchecked::NotFound(binary::NotFound::NoWindow { .. }) => {
            "not found in the pipeline cache".into()
        }
        Unchecked::NotFound(binary::NotFound::Ambiguous { .. }) => {
            "found twice in the pipeline cache".into()
        }
        other => other.to_string(),
    }
}
