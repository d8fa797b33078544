//! Usage errors end the command before any work, with exit status 2 and a message that lists
//! what exists: an unknown target in every command that takes `--target` (`triage` does not:
//! each finding is re-judged on its own target), an unknown plant,
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
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    for target in ["gen9", "ir"] {
        for args in [
            vec!["fuzz", "--runs", "1", "--out", out, "--target", target],
            vec!["repro", &f, "--target", target],
            vec!["run", &f, "--target", target],
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
    // Raw fuzz bytes are not a program: `run` says which commands read them.
    let raw = dir.join("input.bin");
    std::fs::write(&raw, [0xffu8, 0xfe, 0x00, 0x80]).unwrap();
    let err = usage_error(&["run", raw.to_str().unwrap()]);
    assert!(err.contains("gpufuzz repro"), "{err}");
    let err = usage_error(&["run", &f, "--plant", "nosuch"]);
    assert!(err.contains("a6xx-nop-short"), "{err}");
    let err = usage_error(&["repro", &f, "--disable-pass", "nosuch"]);
    assert!(err.contains("opt_cse") && err.contains("opt_dce"), "{err}");
    let err = usage_error(&["repro", &f, "--case", "a6xx_predicates=0"]);
    assert!(err.contains("1|4"), "{err}");
    let err = usage_error(&["repro", &f, "--case", "gen_grfs=0"]);
    assert!(err.contains("10..=125"), "{err}");
    usage_error(&["bench", "--programs", "0"]);
    usage_error(&["selftest", "--seeds", "0"]);
    usage_error(&["fuzz", "--jobs", "0"]);
    usage_error(&["fuzz", "--resume", "a", "--out", "b"]);
    // Flags a command would ignore are not its flags, or are errors naming what is missing.
    // `fuzz --case` pins a knob for the run: its keys and values are checked as repro's are,
    // before any work.
    let err = usage_error(&["fuzz", "--runs", "1", "--case", "nosuch=1"]);
    assert!(err.contains("gen_grfs"), "{err}");
    let err = usage_error(&["fuzz", "--runs", "1", "--case", "gen_grfs=0"]);
    assert!(err.contains("10..=125"), "{err}");
    let err = usage_error(&["fuzz", "--resume", "a", "--case", "gen9=false"]);
    assert!(err.contains("--case") || err.contains("--resume"), "{err}");
    let err = usage_error(&["run", &f, "--emit", "asm"]);
    assert!(err.contains("--target"), "{err}");
    let err = usage_error(&["run", &f, "--vk-device", "1"]);
    assert!(err.contains("--target vulkan"), "{err}");
    let err = usage_error(&["triage", &f, "--target", "gen8"]);
    assert!(err.contains("'--target'"), "{err}");
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    let err = usage_error(&["fuzz", "--runs", "1", "--input-timeout", "5", "--out", out]);
    assert!(err.contains("--fork"), "{err}");
    assert!(!dir.join("out").exists(), "a rejected run made its folder");
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

#[test]
fn help_says_what_the_commands_take() {
    let help = |cmd: &str| {
        let out = gpufuzz(&[cmd, "--help"]);
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let fuzz = help("fuzz");
    assert!(fuzz.contains("--case <KEY=VALUE>"), "{fuzz}");
    for absent in ["--disable-pass", "--limit"] {
        assert!(
            !fuzz.contains(absent),
            "fuzz --help lists {absent}:\n{fuzz}"
        );
    }
    // The bounds in help are the ones the parser enforces.
    let floor = fuzz::case::text::MIN_GEN_GRFS;
    assert!(help("repro").contains(&format!("gen_grfs={floor}..=125")));
    let out = gpufuzz(&["repro", "--case", "help"]);
    let knobs = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(knobs.contains("  gen_spill_choice=ratio") && knobs.contains(&format!("{floor}..=")));
    let dir = common::temp_dir("cli-floor");
    let f = program_file(&dir, "p.ir");
    let at_floor = gpufuzz(&["run", &f, "--case", &format!("gen_grfs={floor}")]);
    assert!(at_floor.status.success(), "{at_floor:?}");
    usage_error(&["run", &f, "--case", &format!("gen_grfs={}", floor - 1)]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn expect_lines_are_checked_by_run_and_repro() {
    let dir = common::temp_dir("cli-expect");
    let good = dir.join("good.ir");
    std::fs::write(&good, format!("; expect 1: 0x00000001\n{PROGRAM}")).unwrap();
    let bad = dir.join("bad.ir");
    std::fs::write(
        &bad,
        format!("; a comment\n; expect 1: 0x00000007\n{PROGRAM}"),
    )
    .unwrap();
    for cmd in ["run", "repro"] {
        let out = gpufuzz(&[cmd, good.to_str().unwrap()]);
        assert!(out.status.success(), "{cmd}: {out:?}");
        let out = gpufuzz(&[cmd, bad.to_str().unwrap()]);
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(1), "{cmd}: {all}");
        assert!(
            all.contains("bad.ir:2: ; expect 1: 0x00000007")
                && all.contains("; expect 1: 0x00000001"),
            "{cmd}: {all}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every kind of error ends with status 2 and says what it is about: a file that cannot be
/// read names the file, a program with wrong text names its file and line, an output folder
/// that cannot be made names the folder.
#[test]
fn errors_name_their_file_and_exit_2() {
    let dir = common::temp_dir("cli-errors");
    let missing = dir.join("no-such.ir");
    let missing = missing.to_str().unwrap();
    for cmd in ["run", "repro", "fmt"] {
        let err = usage_error(&[cmd, missing]);
        assert!(err.contains(missing), "{cmd}: {err}");
    }
    let bad = dir.join("bad.ir");
    std::fs::write(
        &bad,
        "invocations 2\noutputs 1\n\nblock_0:\n  what is this\n",
    )
    .unwrap();
    let bad = bad.to_str().unwrap();
    for cmd in ["run", "fmt"] {
        let err = usage_error(&[cmd, bad]);
        assert!(err.contains(&format!("{bad}:5")), "{cmd}: {err}");
    }
    let blocked = dir.join("file");
    std::fs::write(&blocked, "").unwrap();
    let out = blocked.join("out");
    let err = usage_error(&["fuzz", "--runs", "1", "--out", out.to_str().unwrap()]);
    assert!(err.contains(blocked.to_str().unwrap()), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
