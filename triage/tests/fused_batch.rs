//! A finding only a fused shader shows reproduces from one command and reduces as a batch:
//! with the test-only `fused-toy` target (the interpreter, wrong on the second program of a
//! fused run), `gpufuzz fuzz --fuse 8`'s loop saves the batch beside the finding, its
//! `reproduce` command (`gpufuzz repro DIR/batch`) shows it again while the program alone
//! passes, and `gpufuzz reduce DIR/batch` shrinks the batch to what the bug needs.

mod common;

use fuzz::fuzz_loop::{self, FuzzOptions};
use fuzz::oracle::{self, OracleOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

const GPUFUZZ: &str = env!("CARGO_BIN_EXE_gpufuzz");

fn gpufuzz(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(GPUFUZZ).args(args).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).to_string();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

/// Fuzzes 24 inputs of seed 5 in batches of 8 on `fused-toy` into `out`; the finding folders.
fn fuzz_fused(out: &Path) -> Vec<PathBuf> {
    let opts = FuzzOptions {
        seed: 5,
        runs: Some(24),
        time: None,
        fuse: 8,
        out: Some(out.to_path_buf()),
        status_every: None,
        repro_flags: "--target fused-toy".into(),
        ..FuzzOptions::default()
    };
    let oracle_opts = OracleOptions {
        targets: vec!["fused-toy".into()],
        ..OracleOptions::default()
    };
    fuzz_loop::fuzz_fused(&opts, &|inputs| oracle::judge_batch(inputs, &oracle_opts));
    let mut folders: Vec<PathBuf> = std::fs::read_dir(out.join("findings"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    folders.sort();
    folders
}

#[test]
fn a_fused_finding_reproduces_from_its_batch_and_reduces_to_what_it_needs() {
    let dir = common::temp_dir("fused-batch");
    let folders = fuzz_fused(&dir);
    assert!(!folders.is_empty(), "no finding");
    let folder = &folders[0];
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("finding.json")).unwrap())
            .unwrap();
    assert_eq!(record["finding"]["class"], "fused", "{record}");
    assert_eq!(record["batch"]["inputs"], 8, "{record}");
    let position = record["batch"]["position"].as_u64().unwrap() as usize;
    let batch = folder.join("batch");
    let saved: Vec<Vec<u8>> = (0..8)
        .map(|k| std::fs::read(batch.join(format!("{k:02}.bin"))).unwrap())
        .collect();
    assert_eq!(
        saved[position],
        std::fs::read(folder.join("input.bin")).unwrap()
    );
    let reproduce = record["reproduce"].as_str().unwrap();
    assert_eq!(
        reproduce,
        format!("gpufuzz repro {} --target fused-toy", batch.display())
    );

    // The one command shows it again, on the program it was given to; alone it passes.
    let batch_arg = batch.to_str().unwrap();
    let (code, stdout, stderr) = gpufuzz(&["repro", batch_arg, "--target", "fused-toy"]);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    let line = format!("{position:02}.bin: [fused-toy] mismatch (fused)");
    assert!(stdout.contains(&line), "{stdout}");
    let input = folder.join("input.bin");
    let (code, stdout, stderr) =
        gpufuzz(&["repro", input.to_str().unwrap(), "--target", "fused-toy"]);
    assert_eq!((code, stdout.trim()), (Some(0), "pass"), "{stderr}");

    // Reduced: the two programs the toy's bug needs, each as small as a program gets.
    let reduced = dir.join("reduced");
    let (code, stdout, stderr) = gpufuzz(&[
        "reduce",
        batch_arg,
        "--target",
        "fused-toy",
        "-o",
        reduced.to_str().unwrap(),
        "--time",
        "60",
    ]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stderr.contains("-> 2 programs"), "{stderr}");
    let mut files: Vec<_> = std::fs::read_dir(&reduced)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    files.sort();
    assert_eq!(files, ["00.ir", "01.ir"]);
    let (code, stdout, stderr) =
        gpufuzz(&["repro", reduced.to_str().unwrap(), "--target", "fused-toy"]);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert!(
        stdout.contains("01.ir: [fused-toy] mismatch (fused)"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
