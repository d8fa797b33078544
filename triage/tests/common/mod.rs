//! Shared helpers: find a planted bug by fuzzing, fuzz into an output folder, and reach the
//! Vulkan device through this build's `gpufuzz vk-worker` (a test binary has no worker of its
//! own).

#![allow(dead_code)]

use compiler::planted::{Plant, Plants};
use fuzz::finding::Verdict;
use fuzz::fuzz_loop::{self, FuzzOptions};
use fuzz::oracle::{self, Case, OracleOptions};
use fuzz::targets::vulkan::{self, VulkanOptions};
use std::path::Path;
use std::process::Command;
use vulkan_runner::client::unavailable;
use vulkan_runner::{RunError, WorkerCommand};

/// The gpufuzz binary of this build.
pub const GPUFUZZ: &str = env!("CARGO_BIN_EXE_gpufuzz");

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
    let stats = fuzz_loop::fuzz(&opts, &|b| oracle::judge_bytes(b, &oracle_opts));
    stats.total_findings()
}

/// A fresh temporary folder.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("gpufuzz-triage-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// This build's `gpufuzz vk-worker`.
pub fn worker_command() -> WorkerCommand {
    WorkerCommand {
        program: GPUFUZZ.into(),
        args: vec!["vk-worker".into()],
    }
}

/// Oracle options judging only `target` (a driver target), on this build's worker.
pub fn on_device(target: &str) -> OracleOptions {
    OracleOptions {
        targets: vec![target.into()],
        vulkan: VulkanOptions {
            worker: Some(worker_command()),
            ..VulkanOptions::default()
        },
        ..OracleOptions::default()
    }
}

/// Whether the device of `opts` opens (a failure under CI, a printed skip locally otherwise).
pub fn have_device(opts: &OracleOptions) -> bool {
    match vulkan::device(&opts.vulkan) {
        Ok(info) => {
            eprintln!("vulkan: {}", info.describe());
            true
        }
        Err(RunError::NoVulkan(why)) => {
            unavailable(&format!("a Vulkan device ({why})"));
            false
        }
        Err(e) => panic!("opening the device: {e}"),
    }
}

/// `spvasm` assembled for Vulkan 1.1 (SPIR-V 1.3), or `None` without spirv-as (said why).
pub fn assemble(spvasm: &str, tag: &str) -> Option<Vec<u32>> {
    let stem = format!("gpufuzz-spvasm-{}-{tag}", std::process::id());
    let (src, out) = (
        std::env::temp_dir().join(format!("{stem}.spvasm")),
        std::env::temp_dir().join(format!("{stem}.spv")),
    );
    std::fs::write(&src, spvasm).unwrap();
    let status = Command::new("spirv-as")
        .args(["--target-env", "vulkan1.1", "-o"])
        .arg(&out)
        .arg(&src)
        .status();
    let bytes = std::fs::read(&out);
    let _ = std::fs::remove_file(&src);
    let _ = std::fs::remove_file(&out);
    match status {
        Ok(s) => assert!(s.success(), "spirv-as {}", src.display()),
        Err(e) => {
            unavailable(&format!("spirv-as from spirv-tools ({e})"));
            return None;
        }
    }
    Some(spirv_emit::binary::from_bytes(&bytes.unwrap()).expect("spirv-as wrote a module"))
}
