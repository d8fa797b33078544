//! The `radv` target's shader-db numbers: what radv and ACO report through
//! `VK_KHR_pipeline_executable_properties` for the compute shader (`radv_pipeline.c`'s
//! statistics and ACO's `aco_statistic_*`), so `gpufuzz report` compares two Mesa versions,
//! GPUs or wave sizes over a corpus the way shader-db compares two builds.

use super::CompileError;
use super::RadvKnobs;
use crate::case::Case;

/// What the radv target records, in report order: the driver's statistic, our name for it.
const RADV: &[(&str, &str)] = &[
    ("Instructions", "instructions"),
    ("Code size", "bytes"),
    ("SGPRs", "sgprs"),
    ("VGPRs", "vgprs"),
    ("Spilled SGPRs", "spilled-sgprs"),
    ("Spilled VGPRs", "spilled-vgprs"),
    ("Scratch size", "scratch"),
    ("Copies", "copies"),
    ("Branches", "branches"),
    ("Latency", "latency"),
    ("Inverse Throughput", "inverse-throughput"),
    ("VALU", "valu"),
    ("SALU", "salu"),
    ("VMEM", "vmem"),
    ("SMEM", "smem"),
    ("Subgroups per SIMD", "waves-per-simd"),
];

/// What the radv target records, in report order: radv's statistics, then `wave`, the
/// subgroup size that ran.
pub fn measurements() -> Vec<&'static str> {
    (RADV.iter().map(|(_, ours)| *ours))
        .chain(["wave"])
        .collect()
}

use crate::targets::driver::compile_only::number;

/// radv's numbers for `case` (its configuration names GPU and wave size); a validator's
/// message or a failed compile is an error, never a row of zeros.
pub fn record(case: &Case) -> Result<Vec<(String, u64)>, String> {
    let c = RadvKnobs::of(case);
    let capture = super::compile(&case.program, &c.gpu, c.wave).map_err(|e| match e {
        CompileError::Emit(e) => format!("emit: {e}"),
        CompileError::Run(e) => format!("radv {}: {e}", c.gpu),
    })?;
    if let Some(f) = capture.finding() {
        return Err(format!("{}: {}", f.kind, f.detail));
    }
    let mut r: Vec<(String, u64)> = Vec::new();
    for (radv, ours) in RADV {
        let v = capture
            .statistic(radv)
            .ok_or_else(|| format!("radv reported no {radv:?} statistic"))?;
        r.push((ours.to_string(), number(v)));
    }
    let wave = capture.executables.first().map_or(0, |x| x.subgroup_size);
    r.push(("wave".into(), u64::from(wave)));
    Ok(r)
}
