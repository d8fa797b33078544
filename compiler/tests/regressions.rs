//! Replays every program in `corpus/regressions/`: it parses, verifies, round-trips through
//! the text format, and gives the outputs its `; expect I: w0 w1 …` lines state (computed by
//! hand, not by the interpreter).

use compiler::interp::{self, RunOptions};
use compiler::ir::{text, verify};
use std::path::{Path, PathBuf};

fn regression_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/regressions");
    let files = text::ir_files(&dir).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        files.len() >= 4,
        "corpus/regressions has {} programs",
        files.len()
    );
    files
}

#[test]
fn regressions_round_trip_and_verify() {
    for path in regression_files() {
        let src = std::fs::read_to_string(&path).unwrap();
        let name = path.display().to_string();
        let p = text::parse_program(&src, &name).unwrap_or_else(|e| panic!("{e}"));
        verify::verify(&p).unwrap_or_else(|e| panic!("{name}:\n{e}"));
        let printed = text::print_program(&p);
        let again = text::parse_program(&printed, &name).unwrap();
        assert_eq!(
            printed,
            text::print_program(&again),
            "{name}: print → parse → print"
        );
        let body: String = src
            .lines()
            .filter(|l| !l.starts_with(';'))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(
            body, printed,
            "{name}: not in canonical form (run `gpufuzz fmt -i`)"
        );
    }
}

#[test]
fn regressions_give_the_expected_outputs() {
    for path in regression_files() {
        let src = std::fs::read_to_string(&path).unwrap();
        let name = path.display().to_string();
        let p = text::parse_program(&src, &name).unwrap();
        let results =
            interp::run(&p, &RunOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let expected = text::expect::parse(&src, &name).unwrap_or_else(|e| panic!("{e}"));
        let slots = p.dispatch.outputs as usize;
        text::expect::check(&expected, &results.outputs, slots, &name)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
