//! The `anv` target: the program compiled by Mesa's anv/brw on a simulated Intel
//! GPU (`super`), recorded with brw's own statistics — what
//! `VK_KHR_pipeline_executable_properties` reports for the widest SIMD variant brw kept — so
//! `gpufuzz report` compares two Mesa versions, platforms or `INTEL_DEBUG` switches over a
//! corpus the way shader-db compares two builds. brw counts scratch loads and stores of local
//! arrays as spills and fills too, not only register-allocator spills.
//!
//! Besides brw's numbers: `bytes` of machine code, `compacted` instructions, and `decoded`
//! (instructions our decoder printed as brw did); a decoder disagreement makes the program a
//! failure (our bug, shown with the instruction). On platforms whose code runs on our executor
//! (skl, tgl, dg2, mtl), one of `ran` (to the end, agreeing with the interpreter), `not-run` (a feature the
//! executor does not model), `unconfirmed` (a difference not shown to be brw's) and
//! `brw-differs` (a difference that survived the re-runs of `corroborate`) is 1; `sim-cycles`
//! is the first thread's cycles on the executor by the Gen simulator's cycle model, beside
//! brw's own static estimate `cycles`.

use super::AnvKnobs;
use super::CompileError;
use crate::case::coverage::Coverage;
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::finding::FindingKind;

/// What the anv target records, in report order: brw's statistic, our name for it.
const BRW: &[(&str, &str)] = &[
    ("Instruction Count", "instructions"),
    ("SEND Count", "sends"),
    ("Loop Count", "loops"),
    ("Cycle Count", "cycles"),
    ("Spill Count", "spills"),
    ("Fill Count", "fills"),
    ("Scratch Memory Size", "scratch"),
    ("Max live registers", "max-live"),
];

/// What the anv target records besides brw's statistics, in report order.
const OURS: &[&str] = &[
    "simd",
    "bytes",
    "compacted",
    "decoded",
    "ran",
    "not-run",
    "unconfirmed",
    "brw-differs",
    "sim-cycles",
];

/// What the anv target records, in report order.
pub fn measurements() -> Vec<&'static str> {
    (BRW.iter().map(|(_, ours)| *ours))
        .chain(OURS.iter().copied())
        .collect()
}

use crate::targets::driver::compile_only::number;

/// brw's numbers for `case` (its configuration names platform and switches).
pub fn record(case: &Case) -> Result<Vec<(String, u64)>, String> {
    let c = AnvKnobs::of(case);
    let capture = super::compile(
        &case.program,
        super::Install::Target,
        c.platform,
        c.debug,
        c.backend(),
    )
    .map_err(|e| match e {
        CompileError::Emit(e) => format!("emit: {e}"),
        CompileError::Run(e) => format!("anv {}: {e}", c.platform),
    })?;
    if let Some(f) = capture.finding() {
        return Err(format!("{}: {}", f.kind, f.detail));
    }
    let widest = capture
        .kernels
        .iter()
        .max_by_key(|k| k.simd)
        .ok_or("no executables")?;
    let mut r: Vec<(&str, u64)> = BRW
        .iter()
        .map(|(brw, ours)| (*ours, capture.statistic(brw).map_or(0, number)))
        .collect();
    let insts = &widest.listing.insts;
    r.push(("simd", u64::from(widest.simd)));
    r.push(("bytes", insts.iter().map(|i| i.bytes.len() as u64).sum()));
    r.push((
        "compacted",
        insts.iter().filter(|i| i.bytes.len() == 8).count() as u64,
    ));
    r.push(("decoded", widest.agreement.agreed() as u64));
    // On platforms whose code runs on our executor: ran to the end and agreed with the
    // interpreter, could not run (a feature not modelled), or differs (unconfirmed).
    if c.platform.executed() {
        let mut coverage = Coverage::default();
        let verdict = super::judge::judge(
            case,
            &case.program,
            &case.program,
            &capture,
            &OracleOptions::default(),
            &mut coverage,
        );
        let not_run = !coverage.skipped.is_empty();
        r.push(("ran", u64::from(verdict.is_ok() && !not_run)));
        r.push(("not-run", u64::from(not_run)));
        r.push((
            "sim-cycles",
            verdict.as_ref().ok().copied().flatten().unwrap_or(0),
        ));
        let kind = verdict.err().map(|f| f.kind);
        r.push((
            "unconfirmed",
            u64::from(kind == Some(FindingKind::Unconfirmed)),
        ));
        r.push((
            "brw-differs",
            u64::from(kind == Some(FindingKind::Mismatch)),
        ));
    }
    Ok(r.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}
