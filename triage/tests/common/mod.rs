//! Shared helpers: find a planted bug by fuzzing, and fuzz into an output folder.

#![allow(dead_code)]

use compiler::planted::{Plant, Plants};
use fuzz::driver::{self, FuzzOptions};
use fuzz::finding::Verdict;
use fuzz::oracle::{self, Case, OracleOptions};
use std::path::Path;

/// Oracle options with one plant on, middle end only.
pub fn planted(plant: Plant) -> OracleOptions {
    triage::selftest::oracle_options(Some(plant))
}

/// The first input of `seed` that shows a finding with `plant` on, decoded.
pub fn first_finding(plant: Plant, seed: u64) -> Case {
    let opts = planted(plant);
    let mut buf = Vec::new();
    for i in 0..3000 {
        fuzz::rng::input_bytes(seed, i, 64, 2048, &mut buf);
        if let Verdict::Finding(_) = oracle::judge_bytes(&buf, &opts).verdict {
            return oracle::decode(&buf).expect("a finding decodes");
        }
    }
    panic!("{plant} not found in 3000 inputs of seed {seed}");
}

/// Fuzzes `runs` inputs of `seed` with `plant` on into `out`, keeping `keep` per signature.
pub fn fuzz_into(out: &Path, plant: Plant, seed: u64, runs: u64, keep: usize) -> u64 {
    let opts = FuzzOptions {
        seed,
        runs: Some(runs),
        time: None,
        out: Some(out.to_path_buf()),
        status_every: None,
        keep_per_signature: keep,
        repro_flags: format!("--plant {}", plant.name()),
        stop_on_finding: keep == 1,
        ..FuzzOptions::default()
    };
    let oracle_opts = OracleOptions {
        plants: Plants::NONE.with(plant),
        ..OracleOptions::default()
    };
    let stats = driver::fuzz(&opts, &|b| oracle::judge_bytes(b, &oracle_opts));
    stats.total_findings()
}

/// A fresh temporary folder.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("gpufuzz-triage-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
