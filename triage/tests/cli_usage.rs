//! Usage errors end the command before any work, with exit status 2 and a message that lists
//! what exists: an unknown target in every command that takes `--target`, an unknown plant,
//! pass or knob, an out-of-range knob, a zero count. And input files are read by content.

mod common;

use std::path::Path;
use std::process::{Command, Output};

const EXE: &str = env!("CARGO_BIN_EXE_gpufuzz");

fn gpufuzz(args: &[&str]) -> Output {
    Command::new(EXE).args(args).output().unwrap()
}

/// Runs `args`, expects a usage error (exit 2), returns stderr.
fn usage_error(args: &[&str]) -> String {
    let out = gpufuzz(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    err
}

const PROGRAM: &str = "invocations 2\noutputs 1\n\nblock_0:\n  vec1 32 ssa_0 = load_invocation_id\n  store_output 0, ssa_0\n";

fn program_file(dir: &Path, name: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, PROGRAM).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn every_command_rejects_an_unknown_target_with_the_list() {
    let dir = common::temp_dir("cli-targets");
    let f = program_file(&dir, "p.ir");
    let d = dir.to_str().unwrap();
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    for target in ["gen9", "ir"] {
        for args in [
            vec!["fuzz", "--runs", "1", "--out", out, "--target", target],
            vec!["repro", &f, "--target", target],
            vec!["run", &f, "--target", target],
            vec!["triage", d, "--target", target],
            vec!["reduce", &f, "--target", target],
            vec!["selftest", "--seeds", "1", "--target", target],
            vec!["stats", "--generate", "1", "--out", out, "--target", target],
        ] {
            let err = usage_error(&args);
            assert!(
                err.contains(&format!("\"{target}\"")) && err.contains("middle"),
                "{args:?}: {err}"
            );
            assert!(err.contains("gen16") && err.contains("a6xx"), "{err}");
        }
    }
    assert!(!dir.join("out").exists(), "a rejected fuzz run did work");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn names_and_values_are_checked_even_where_unused() {
    let dir = common::temp_dir("cli-names");
    let f = program_file(&dir, "p.ir");
    let err = usage_error(&["run", &f, "--case", "nosuch=1"]);
    assert!(err.contains("gen_grfs"), "{err}");
    let err = usage_error(&["run", &f, "--plant", "nosuch"]);
    assert!(err.contains("a6xx-nop-short"), "{err}");
    let err = usage_error(&["repro", &f, "--disable-pass", "nosuch"]);
    assert!(err.contains("opt_cse") && err.contains("opt_dce"), "{err}");
    let err = usage_error(&["repro", &f, "--case", "a6xx_predicates=0"]);
    assert!(err.contains("1 or 4"), "{err}");
    let err = usage_error(&["repro", &f, "--case", "gen_grfs=0"]);
    assert!(err.contains("10..=125"), "{err}");
    usage_error(&["bench", "--programs", "0"]);
    usage_error(&["selftest", "--seeds", "0"]);
    usage_error(&["fuzz", "--jobs", "0"]);
    usage_error(&["fuzz", "--resume", "a", "--out", "b"]);
    let err = usage_error(&["fuzz", "--runs", "1", "--case", "gen9=false"]);
    assert!(err.contains("decodes its own"), "{err}");
    let err = usage_error(&["stats", "--generate", "1", "--config", "gen_grfs=20"]);
    assert!(err.contains("target middle"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn text_or_raw_is_decided_by_content_not_name() {
    let dir = common::temp_dir("cli-content");
    let f = program_file(&dir, "prog.txt");
    let out = gpufuzz(&["repro", &f, "--print"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(stdout.contains("load_invocation_id") && stdout.ends_with("pass\n"));
    // The same file read as raw bytes is a different (generated) program.
    let out = gpufuzz(&["repro", &f, "--raw", "--print"]);
    assert!(!String::from_utf8_lossy(&out.stdout)
        .contains("ssa_0 = load_invocation_id\n  store_output 0, ssa_0"));
    let _ = std::fs::remove_dir_all(&dir);
}
