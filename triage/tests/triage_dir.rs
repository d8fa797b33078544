//! `triage DIR` end to end: two planted bugs land in two buckets, many inputs of one bug in
//! one; reports hold every field; the repro command really reproduces; a second triage
//! counts instead of duplicating; promotion writes a canonical regression with expectations.

mod common;

use compiler::planted::{Plant, Plants};
use std::process::Command;
use std::time::Duration;
use triage::bucket::Index;
use triage::reduce::Reducer;
use triage::report;
use triage::session::{self, TriageOptions};

#[test]
fn two_bugs_two_buckets_with_working_reports() {
    let dir = common::temp_dir("dir");
    assert!(common::fuzz_into(&dir, Plant::FromSsaSwap, 11, 400, 3) >= 3);
    assert!(common::fuzz_into(&dir, Plant::DceLoopLiveOut, 12, 3000, 1) >= 1);
    // A plant that cannot matter on the middle end: reports and regressions must leave it out.
    let t = TriageOptions {
        reducer: Reducer::default().time_limit(Duration::from_secs(10)),
        plants: Plants::NONE.with(Plant::A6xxNopShort),
        ..TriageOptions::default()
    };
    let s = session::triage(&dir, &t).unwrap();
    assert_eq!(s.unreproduced, 0);
    assert!(s.triaged >= 4, "{s:?}");
    let bugs = dir.join("bugs");
    let index = Index::load(&bugs).unwrap();
    let keys: Vec<&String> = index.buckets.keys().collect();
    assert_eq!(keys, ["middle:from_ssa", "middle:opt_dce"], "{index:#?}");
    assert_eq!(index.buckets["middle:from_ssa"].hits(), 3);

    for b in index.buckets.values() {
        let rep = report::read(&bugs, &b.id).unwrap();
        let md = std::fs::read_to_string(bugs.join(format!("{}.md", b.id))).unwrap();
        for field in [
            "# [middle] mismatch after ",
            "**Signature:**",
            "**Hits:**",
            "**First bad pass:**",
            "**Size:**",
            "## Reproduce",
            "gpufuzz repro ",
            "## Configuration",
            "planted bugs: ",
            "## What differs",
            "| place | invocation |",
            "## Minimized program",
            "## Target code",
        ] {
            assert!(md.contains(field), "{}: no {field:?} in\n{md}", b.id);
        }
        assert!(rep.size_after < rep.size_before);
        assert!(!rep.differences.is_empty());
        // The command really reproduces the same bug.
        let args: Vec<&str> = rep.command.split_whitespace().skip(1).collect();
        let out = Command::new(env!("CARGO_BIN_EXE_gpufuzz"))
            .args(&args)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{}: {stdout}", rep.command);
        assert!(
            stdout.contains(&format!("bug: {}", rep.key)),
            "{}:\n{stdout}",
            rep.command
        );
    }

    // Again: nothing new is triaged or reported; more hits of a known bug are counted.
    let again = session::triage(&dir, &t).unwrap();
    assert_eq!(again.triaged, 0);
    assert!(common::fuzz_into(&dir, Plant::FromSsaSwap, 13, 400, 1) >= 1);
    let third = session::triage(&dir, &t).unwrap();
    assert_eq!(third.triaged, 1);
    assert!(third.new_buckets.is_empty());
    let index = Index::load(&bugs).unwrap();
    assert_eq!(index.buckets.len(), 2);
    let id = &index.buckets["middle:from_ssa"].id;
    assert_eq!(report::read(&bugs, id).unwrap().hits, 4);

    // Promotion: canonical body, header, and the interpreter's outputs as expectations.
    let corpus = dir.join("corpus");
    let path = session::promote(&dir, id, &corpus).unwrap();
    let src = std::fs::read_to_string(&path).unwrap();
    assert!(src.contains("; Signature: middle:from_ssa"));
    assert!(src.contains("; expect 0: "));
    let command = format!(
        "; Command: gpufuzz repro {} --target middle --plant from-ssa-swap\n",
        path.display()
    );
    assert!(src.contains(&command), "{command}\n{src}");
    assert!(src.contains("\n; case: "), "{src}");
    let body: String = src
        .lines()
        .filter(|l| !l.starts_with(';'))
        .map(|l| format!("{l}\n"))
        .collect();
    let p = compiler::ir::text::parse_program(&body, "promoted").unwrap();
    assert_eq!(body, compiler::ir::text::print_program(&p));
    let _ = std::fs::remove_dir_all(&dir);
}

/// libFuzzer's artifacts (raw bytes, or a case file under the structure-aware mutator) are
/// triaged like the fuzz loop's findings; one that does not reproduce is counted, not lost;
/// a second triage does not import them again.
#[test]
fn libfuzzer_crash_files_are_triaged() {
    let found = common::temp_dir("libfuzzer-found");
    assert!(common::fuzz_into(&found, Plant::FromSsaSwap, 11, 400, 1) >= 1);
    let finding = std::fs::read_dir(found.join("findings"))
        .unwrap()
        .flatten()
        .find(|e| e.path().join("input.bin").is_file())
        .unwrap()
        .path();
    let dir = common::temp_dir("libfuzzer-artifacts");
    let raw = std::fs::read(finding.join("input.bin")).unwrap();
    std::fs::write(dir.join("crash-0123"), &raw).unwrap();
    let text = std::fs::read(finding.join("program.ir")).unwrap();
    std::fs::write(dir.join("crash-4567"), &text).unwrap();
    std::fs::write(
        dir.join("timeout-89ab"),
        b"invocations 1\noutputs 1\n\nblock_0:\n",
    )
    .unwrap();
    std::fs::write(dir.join("notes.txt"), b"not an artifact").unwrap();
    let t = TriageOptions {
        reducer: Reducer::default().time_limit(Duration::from_secs(5)),
        plants: Plants::NONE.with(Plant::FromSsaSwap),
        ..TriageOptions::default()
    };
    let s = session::triage(&dir, &t).unwrap();
    assert_eq!((s.triaged, s.unreproduced), (2, 1), "{s:?}");
    let index = Index::load(&dir.join("bugs")).unwrap();
    assert_eq!(
        index.buckets.keys().collect::<Vec<_>>(),
        ["middle:from_ssa"]
    );
    let again = session::triage(&dir, &t).unwrap();
    assert_eq!((again.triaged, again.unreproduced), (0, 0), "{again:?}");
}
