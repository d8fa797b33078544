//! What a run left alone overnight needs: nothing lost, nothing stopping it. An unwritable
//! output folder fails before any work; a run that found nothing still leaves its summary; a
//! hang and a stack overflow in the compiler become saved findings while the run goes on to
//! its `--runs` count, and `repro` of them reports them within its deadline; a killed run resumes at the right input; a saved `program.ir` alone
//! reproduces a finding made under a non-default configuration; an oversized program is
//! refused at once; a closed pipe ends the command quietly.

mod common;

use compiler::planted::{Plant, Plants};
use fuzz::finding::Verdict;
use fuzz::fuzz_loop::Summary;
use fuzz::oracle::{self, CaseConfig, OracleOptions};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const EXE: &str = env!("CARGO_BIN_EXE_gpufuzz");

fn gpufuzz(args: &[&str]) -> std::process::Output {
    Command::new(EXE).args(args).output().unwrap()
}

fn folders(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir.join("findings"))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().to_string())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn an_unwritable_output_fails_before_any_work() {
    let out = gpufuzz(&[
        "fuzz",
        "--runs",
        "5",
        "--out",
        "/proc/gpufuzz-nope",
        "--plant",
        "a6xx-nop-short",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("/proc/gpufuzz-nope") && !err.contains("NEW"),
        "{err}"
    );
    let dir = common::temp_dir("stats-json");
    let blocked = dir.join("file");
    std::fs::write(&blocked, "").unwrap();
    let json = blocked.join("stats.json");
    let out = gpufuzz(&[
        "fuzz",
        "--runs",
        "5",
        "--out",
        dir.join("out").to_str().unwrap(),
        "--stats-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("done:"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_run_without_findings_leaves_its_summary() {
    let dir = common::temp_dir("summary");
    let out = gpufuzz(&[
        "fuzz",
        "--runs",
        "4",
        "--target",
        "middle",
        "--status",
        "0",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let s = Summary::read(&dir).unwrap();
    assert_eq!((s.seed, s.next_index, s.stats.programs), (0, 4, 4));
    assert!(s.complete && !s.version.is_empty());
    // The summary is a result: stdout, while progress goes to stderr.
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("done: 4 programs"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hangs_and_stack_overflows_become_findings_and_the_run_goes_on() {
    let dir = common::temp_dir("supervised");
    let out = gpufuzz(&[
        "fuzz",
        "--runs",
        "90",
        "--jobs",
        "2",
        "--seed",
        "3",
        "--plant",
        "test-hang",
        "--plant",
        "test-recurse",
        "--target",
        "middle",
        "--input-timeout",
        "2",
        "--keep",
        "1",
        "--status",
        "0",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let s = Summary::read(&dir).unwrap();
    assert_eq!((s.next_index, s.stats.programs), (90, 90), "{err}");
    let sigs: Vec<&String> = s.findings_by_signature.keys().collect();
    assert!(
        sigs.iter().any(|s| *s == "timeout:process:wall-clock"),
        "{sigs:?}"
    );
    assert!(
        sigs.iter().any(|s| s.starts_with("crash:process:signal")),
        "{sigs:?}"
    );
    let found = folders(&dir);
    for kind in ["timeout-process-", "crash-process-"] {
        let f = found.iter().find(|f| f.starts_with(kind)).expect(kind);
        let program = std::fs::read_to_string(dir.join("findings").join(f).join("program.ir"));
        assert!(program.unwrap().starts_with("; case: "), "{f}");
    }
    let crash = std::fs::read_to_string(
        dir.join("findings")
            .join(found.iter().find(|f| f.starts_with("crash")).unwrap())
            .join("finding.json"),
    )
    .unwrap();
    assert!(crash.contains("overflowed its stack"), "{crash}");
    // `repro` of either input reports it, within its deadline, instead of hanging or dying.
    for (kind, says) in [
        ("timeout-process-", "timeout: "),
        ("crash-process-", "crash: "),
    ] {
        let f = found.iter().find(|f| f.starts_with(kind)).unwrap();
        let input = dir.join("findings").join(f).join("input.bin");
        let started = Instant::now();
        let out = gpufuzz(&[
            "repro",
            input.to_str().unwrap(),
            "--plant",
            "test-hang",
            "--plant",
            "test-recurse",
            "--target",
            "middle",
            "--deadline-secs",
            "2",
        ]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{f}: {stdout}");
        assert!(stdout.starts_with(says), "{f}: {stdout}");
        assert!(started.elapsed() < Duration::from_secs(30), "{f}");
    }
    // Triage files them as found, without re-running them (which would hang it).
    let started = Instant::now();
    let out = gpufuzz(&[
        "triage",
        dir.to_str().unwrap(),
        "--plant",
        "test-hang",
        "--plant",
        "test-recurse",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("timeout:process:wall-clock"), "{stdout}");
    assert!(started.elapsed() < Duration::from_secs(60));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_killed_run_resumes_at_its_next_input() {
    let dir = common::temp_dir("resume");
    let mut child = Command::new(EXE)
        .args([
            "fuzz",
            "--time",
            "600",
            "--no-fork",
            "--target",
            "middle",
            "--jobs",
            "2",
        ])
        .args(["--status", "1", "--out", dir.to_str().unwrap()])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while Summary::read(&dir).map_or(true, |s| s.next_index < 5) {
        std::thread::sleep(Duration::from_millis(200));
        if start.elapsed() > Duration::from_secs(60) {
            break;
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let at_kill = Summary::read(&dir).unwrap();
    assert!(at_kill.next_index >= 5, "no progress in a minute");
    assert!(!at_kill.complete);
    let runs = at_kill.next_index + 5;
    // A killed time-limited run resumes with the time it had left; here the test lowers it
    // by editing the summary to a count, which the resumed run must reach exactly.
    let mut s = at_kill.clone();
    s.runs = Some(runs);
    s.seconds_left = None;
    std::fs::write(dir.join("summary.json"), serde_json::to_string(&s).unwrap()).unwrap();
    let out = gpufuzz(&["fuzz", "--resume", dir.to_str().unwrap(), "--status", "0"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(&format!("from input {}", at_kill.next_index)),
        "{err}"
    );
    assert!(
        err.contains(" jobs 2"),
        "the resumed run keeps its --jobs: {err}"
    );
    let after = Summary::read(&dir).unwrap();
    assert!(after.complete);
    assert_eq!(after.next_index, runs);
    assert_eq!(after.stats.programs, at_kill.stats.programs + 5);
    let again = gpufuzz(&["fuzz", "--resume", dir.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(2), "a complete run resumed");
    assert!(String::from_utf8_lossy(&again.stderr).contains("--runs N to extend it"));
    // A new budget extends a finished run from where it stopped.
    let more = ["fuzz", "--resume", dir.to_str().unwrap(), "--runs", "3"];
    let out = gpufuzz(&[&more[..], &["--status", "0"]].concat());
    assert!(out.status.success(), "{out:?}");
    let extended = Summary::read(&dir).unwrap();
    assert_eq!(extended.next_index, runs + 3);
    assert_eq!(extended.stats.programs, after.stats.programs + 3);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn program_ir_alone_reproduces_a_finding_under_a_non_default_configuration() {
    let plant = Plant::GenSpillSlotReuse;
    let opts = OracleOptions {
        plants: Plants::NONE.with(plant),
        targets: vec!["gen8".into()],
        ..OracleOptions::default()
    };
    let mut buf = Vec::new();
    let (text, signature) = (0..2000)
        .find_map(|i| {
            fuzz::rng::input_bytes(5, i, 64, 2048, &mut buf);
            let j = oracle::judge_bytes(&buf, &opts);
            match j.verdict {
                Verdict::Finding(f) => Some((j.program_text.unwrap(), f.signature())),
                _ => None,
            }
        })
        .expect("the spill plant is found");
    let case = fuzz::case::text::parse_case(&text, "program.ir").unwrap();
    assert_ne!(case.config, CaseConfig::default(), "{text}");
    let dir = common::temp_dir("self-contained");
    // Named like a text file or not: the content decides.
    let file = dir.join("program");
    std::fs::write(&file, &text).unwrap();
    let out = gpufuzz(&[
        "repro",
        file.to_str().unwrap(),
        "--plant",
        plant.name(),
        "--target",
        "gen8",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(&format!("signature: {signature}\n")),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_oversized_program_is_refused_at_once_with_the_flag_to_raise_the_limit() {
    let dir = common::temp_dir("limits");
    let file = dir.join("big.ir");
    std::fs::write(&file, "invocations 2\noutputs 100000000\n\nblock_0:\n").unwrap();
    for target in [None, Some("a6xx")] {
        let mut args = vec!["run", file.to_str().unwrap()];
        args.extend(target.iter().flat_map(|t| ["--target", *t]));
        let out = gpufuzz(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("big.ir:2:") && err.contains("--limit outputs=N"),
            "{err}"
        );
    }
    std::fs::write(&file, "invocations 4000000000\noutputs 1\n\nblock_0:\n").unwrap();
    let out = gpufuzz(&["repro", file.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--limit invocations=N") && !err.contains("bug"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let dir = common::temp_dir("pipe");
    let file = dir.join("wide.ir");
    std::fs::write(
        &file,
        "invocations 4096\noutputs 16\n\nblock_0:\n  vec1 32 ssa_0 = load_invocation_id\n  store_output 0, ssa_0\n",
    )
    .unwrap();
    // stdout: more than a pipe holds, read one line, close.
    let mut child = Command::new(EXE)
        .args(["run", file.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("invocation 0:"), "{first}");
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // stderr: the fuzz loop's status lines.
    let mut child = Command::new(EXE)
        .args([
            "fuzz", "--runs", "400", "--target", "middle", "--status", "1",
        ])
        .args(["--out", dir.join("out").to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("gpufuzz fuzz:"), "{first}");
    assert_eq!(child.wait().unwrap().code(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}
