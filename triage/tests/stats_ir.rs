//! A real comparison on the `ir` target over the checked-in corpus: CSE switched off, then
//! on. CSE only removes instructions, so instructions are helped and nothing is HURT. Also
//! checks that `corpus/stats/` is canonical and runs, that an emitted corpus reads back, and
//! runs the `gpufuzz stats` / `gpufuzz report` commands end to end.

use compiler::interp::{self, RunOptions};
use compiler::ir::print_program;
use std::path::{Path, PathBuf};
use std::process::Command;
use triage::stats::collect::collect;
use triage::stats::compare::{compare, Verdict};
use triage::stats::corpus;
use triage::stats::options::{self, Settings};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/stats")
}

fn settings(config: &[&str]) -> (Settings, Vec<String>) {
    let config: Vec<String> = config.iter().map(|s| s.to_string()).collect();
    (
        Settings::parse(options::target("middle").unwrap(), &config).unwrap(),
        config,
    )
}

#[test]
fn cse_helps_instructions_and_hurts_nothing() {
    let entries = corpus::load_dir(&corpus_dir()).unwrap();
    assert!(entries.len() >= 200, "{} programs", entries.len());
    let (off, off_cfg) = settings(&["opt_cse=off"]);
    let (on, on_cfg) = settings(&[]);
    let a = collect(&entries, &off, "corpus/stats", &off_cfg);
    let b = collect(&entries, &on, "corpus/stats", &on_cfg);
    assert!(a.failed.is_empty() && b.failed.is_empty(), "{:?}", a.failed);
    let c = compare(&a, &b, &[]);
    let inst = c
        .stats
        .iter()
        .find(|s| s.measurement == "instructions")
        .unwrap();
    assert!(inst.helped.len() > 100, "helped {}", inst.helped.len());
    assert_eq!(inst.hurt.len(), 0);
    assert!(inst.total_after < inst.total_before);
    assert_eq!(inst.verdict(), Some(Verdict::Helped));
    let exec = c
        .stats
        .iter()
        .find(|s| s.measurement == "executed")
        .unwrap();
    assert_eq!(exec.verdict(), Some(Verdict::Helped));
}

#[test]
fn checked_in_corpus_is_canonical_and_runs() {
    // The corpus stays fixed when the generator changes (that is its point); each file must
    // be in the printer's form after its header comment, verify, and finish in the
    // interpreter.
    let dir = corpus_dir();
    let entries = corpus::load_dir(&dir).unwrap();
    let run = RunOptions {
        fuel: corpus::FUEL,
        ..RunOptions::default()
    };
    for e in &entries {
        let path = dir.join(format!("{}.ir", e.name));
        let text = std::fs::read_to_string(&path).unwrap();
        let body: String = text
            .lines()
            .skip_while(|l| l.starts_with(';'))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(
            body,
            print_program(&e.program),
            "{} is not canonical",
            path.display()
        );
        interp::run(&e.program, &run).unwrap_or_else(|err| panic!("{}: {err}", e.name));
    }
}

#[test]
fn emitted_corpus_reads_back() {
    let fresh = corpus::generate(12, 3);
    assert_eq!(fresh.len(), 12);
    let tmp = std::env::temp_dir().join(format!("gpufuzz-stats-corpus-{}", std::process::id()));
    corpus::emit(&tmp, &fresh, 3).unwrap();
    let back = corpus::load_dir(&tmp).unwrap();
    let names = |v: &[corpus::Entry]| v.iter().map(|e| e.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&back), names(&fresh));
    for (a, b) in back.iter().zip(&fresh) {
        assert_eq!(print_program(&a.program), print_program(&b.program));
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn commands_end_to_end() {
    let exe = env!("CARGO_BIN_EXE_gpufuzz");
    let tmp = std::env::temp_dir().join(format!("gpufuzz-stats-cli-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let (a, b, html) = (tmp.join("a.json"), tmp.join("b.json"), tmp.join("r.html"));
    let run = |args: &[&str]| {
        let out = Command::new(exe).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let gen = ["--generate", "40", "--seed", "7", "--target", "middle"];
    run(&[
        &["stats"],
        &gen[..],
        &[
            "--config",
            "opt_copy_prop=off",
            "--out",
            a.to_str().unwrap(),
        ],
    ]
    .concat());
    run(&[&["stats"], &gen[..], &["--out", b.to_str().unwrap()]].concat());
    let report = run(&[
        "report",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    assert!(
        report.starts_with("total instructions in shared programs: "),
        "{report}"
    );
    assert!(report.contains("Instructions are helped."), "{report}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<svg") && !page.contains("<script"));
    let bad = Command::new(exe)
        .args([
            "stats",
            "--generate",
            "1",
            "--config",
            "gen_grfs=16",
            "--out",
        ])
        .arg(&a)
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("unknown key \"gen_grfs\" for target middle")
    );
    let _ = std::fs::remove_dir_all(&tmp);
}
