//! A run whose targets stop working stops and says so (issue 53): workers start from a copy
//! of the run's own executable, so replacing or deleting the file the run started from (a
//! rebuild) breaks nothing; a worker that cannot start at all makes each input a test of
//! nothing, never a finding, and five in a row stop the run with exit 2, its findings kept
//! and `--resume` pointing at the first input that tested nothing.
//!
//! The `vulkan` target with a 1 ms dispatch limit times out on most programs, so its worker is
//! restarted all the time. Without a device these tests fail under CI and print why they skip
//! otherwise.

mod common;

use common::{have_device, GPUFUZZ};
use fuzz::fuzz_loop::Summary;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `gpufuzz` copied to `dir/bin/gpufuzz`: a file the test may delete under a running run.
fn own_copy(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let exe = bin.join("gpufuzz");
    std::fs::copy(GPUFUZZ, &exe).unwrap();
    exe
}

/// A `vulkan` run of `secs` seconds into `out` whose workers restart after nearly every
/// program.
fn restarting_run(exe: &Path, out: &Path, secs: u32) -> Child {
    Command::new(exe)
        .args([
            "fuzz",
            "--target",
            "vulkan",
            "--mesa",
            "system",
            "--vk-timeout-ms",
            "1",
        ])
        .args(["--status", "0", "--time", &secs.to_string(), "--out"])
        .arg(out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn finish(child: Child) -> (Option<i32>, String, String) {
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_rebuild_during_a_run_breaks_no_worker() {
    if !have_device(&common::on_device("vulkan")) {
        return;
    }
    let dir = common::temp_dir("rebuilt");
    let exe = own_copy(&dir);
    let run = restarting_run(&exe, &dir.join("out"), 8);
    std::thread::sleep(Duration::from_secs(2));
    std::fs::remove_file(&exe).unwrap();
    let (code, stdout, stderr) = finish(run);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(!stdout.contains("tested nothing"), "{stdout}");
    assert!(!stdout.contains("cannot start"), "{stdout}");
    // Each timeout ended a worker, so workers were started after the file went.
    let summary = Summary::read(&dir.join("out")).unwrap();
    let timeouts = summary.stats.findings.get("timeout").copied().unwrap_or(0);
    assert!(timeouts >= 5, "only {timeouts} worker restarts: {stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_run_whose_workers_cannot_start_stops_with_exit_2_and_keeps_its_findings() {
    if !have_device(&common::on_device("vulkan")) {
        return;
    }
    let dir = common::temp_dir("unstartable");
    let exe = own_copy(&dir);
    let out = dir.join("out");
    let run = restarting_run(&exe, &out, 120);
    std::thread::sleep(Duration::from_secs(3));
    // The run's own copy of its executable, which its workers start from, goes.
    let copy = std::env::temp_dir().join(format!("gpufuzz-exe-{}", run.id()));
    assert!(copy.is_dir(), "no {}", copy.display());
    std::fs::remove_dir_all(&copy).unwrap();
    let gone = Instant::now();
    let (code, stdout, stderr) = finish(run);
    assert!(
        gone.elapsed() < Duration::from_secs(60),
        "{:?}",
        gone.elapsed()
    );
    assert_eq!(code, Some(2), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("inputs in a row tested nothing"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("--resume {}", out.display())),
        "{stderr}"
    );
    assert!(stdout.contains("tested nothing, not findings"), "{stdout}");
    assert!(
        !stdout.contains("compile-error"),
        "no finding of the breakage: {stdout}"
    );
    let summary = Summary::read(&out).unwrap();
    assert!(summary.stats.stopped.is_some());
    assert!(
        !summary.stats.findings.contains_key("compile-error"),
        "{:?}",
        summary.stats.findings
    );
    assert!(
        summary.next_index < summary.stats.programs,
        "resumes at the first untested input"
    );
    // What the run found before the breakage (its timeouts) is kept.
    let saved = std::fs::read_dir(out.join("findings")).unwrap().count();
    assert_eq!(saved, summary.stats.saved.len());
    assert!(saved > 0);
    let _ = std::fs::remove_dir_all(&dir);
}
