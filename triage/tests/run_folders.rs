//! An output folder holds one run and never lies about it: a fresh run into a non-empty folder
//! is refused (naming `--resume`, another folder and `--force`), `--force` starts over, `NEW`
//! means new to the folder, `--time` is a deadline that abandons inputs still running, and a
//! command given a folder that is not a fuzz run's creates nothing.

mod common;

use fuzz::fuzz_loop::Summary;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const EXE: &str = env!("CARGO_BIN_EXE_gpufuzz");

fn gpufuzz(args: &[&str]) -> Output {
    Command::new(EXE).args(args).output().unwrap()
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn a_folder_holds_one_run() {
    let dir = common::temp_dir("one-run");
    let out_dir = dir.join("planted");
    let out = out_dir.to_str().unwrap();
    let run = |extra: &[&str]| {
        let args = [
            &["fuzz", "--plant", "dce-loop-live-out", "--target", "middle"][..],
            &["--runs", "40", "--status", "0", "--out", out],
            extra,
        ]
        .concat();
        gpufuzz(&args)
    };
    let first = run(&[]);
    let (stdout, _) = text(&first);
    assert!(first.status.success(), "{first:?}");
    assert!(
        stdout.contains("(new)") && stdout.contains("next: gpufuzz triage"),
        "{stdout}"
    );
    let before = Summary::read(&out_dir).unwrap();

    let again = run(&[]);
    let (stdout, stderr) = text(&again);
    assert_eq!(again.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("--resume {out}")) && stderr.contains("--force"),
        "{stderr}"
    );
    assert!(stdout.is_empty(), "{stdout}");
    let untouched = Summary::read(&out_dir).unwrap();
    assert_eq!(untouched.stats.programs, before.stats.programs);

    let forced = run(&["--force", "--seed", "1"]);
    let (stdout, _) = text(&forced);
    assert!(forced.status.success(), "{forced:?}");
    let s = Summary::read(&out_dir).unwrap();
    assert_eq!((s.seed, s.stats.programs), (1, 40));
    // Every saved finding is this run's: the old ones went with --force.
    let saved = std::fs::read_dir(out_dir.join("findings")).unwrap().count();
    assert_eq!(saved, s.stats.saved.len(), "{stdout}");
    assert!(stdout.contains("(new)"), "{stdout}");

    // Resumed with more inputs: the signature is not new to the folder any more.
    let more = gpufuzz(&["fuzz", "--resume", out, "--runs", "40", "--status", "0"]);
    let (stdout, stderr) = text(&more);
    assert!(more.status.success(), "{stderr}");
    assert_eq!(Summary::read(&out_dir).unwrap().next_index, 80);
    assert!(
        !stdout.contains("NEW") && !stdout.contains("(new)"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn commands_touch_nothing_on_a_path_that_is_not_a_fuzz_folder() {
    let dir = common::temp_dir("not-a-run");
    let missing = dir.join("no").join("such");
    let out = gpufuzz(&["triage", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(!dir.join("no").exists(), "triage created a folder");
    let out = gpufuzz(&["fuzz", "--resume", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(!dir.join("no").exists(), "fuzz --resume created a folder");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn time_is_a_deadline_for_inputs_still_running() {
    // `test-hang` hangs some inputs of seed 3; each may take a minute (--input-timeout), but
    // the run stops a few seconds after its 2 s and says what it abandoned.
    let dir = common::temp_dir("deadline");
    let start = Instant::now();
    let out = gpufuzz(&[
        "fuzz",
        "--time",
        "2",
        "--seed",
        "3",
        "--plant",
        "test-hang",
        "--target",
        "middle",
        "--input-timeout",
        "60",
        "--status",
        "0",
        "--out",
        dir.join("out").to_str().unwrap(),
    ]);
    let took = start.elapsed();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(took < Duration::from_secs(20), "took {took:?}");
    let s = Summary::read(&dir.join("out")).unwrap();
    assert!(s.complete && s.stats.abandoned >= 1, "{stdout}");
    assert!(stdout.contains("abandoned"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}
