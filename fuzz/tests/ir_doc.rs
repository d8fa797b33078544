//! Every example of `docs/ir.md` (each fenced block marked `ir`) is a program that parses with
//! its `; case:` header, verifies, prints canonically again, runs on the interpreter and gives
//! the outputs its `; expect` lines state; so the reference cannot drift from the parser.

use compiler::interp::{self, RunOptions};
use compiler::ir::text;
use fuzz::case::text as case_text;

/// The `ir` blocks of the document, with the line each starts on.
fn examples(doc: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (n, line) in doc.lines().enumerate() {
        match (&mut current, line.trim_end()) {
            (None, "```ir") => current = Some((n + 2, String::new())),
            (Some(_), "```") => out.extend(current.take()),
            (Some((_, text)), l) => {
                text.push_str(l);
                text.push('\n');
            }
            (None, _) => {}
        }
    }
    assert!(current.is_none(), "docs/ir.md: an `ir` block is not closed");
    out
}

#[test]
fn every_example_in_the_ir_reference_parses_verifies_and_runs_as_it_says() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/ir.md");
    let doc = std::fs::read_to_string(path).unwrap();
    let examples = examples(&doc);
    assert!(examples.len() >= 6, "only {} examples", examples.len());
    let mut checked = 0;
    for (line, src) in examples {
        let name = format!("docs/ir.md:{line}");
        let case = case_text::parse_case(&src, &name).unwrap_or_else(|e| panic!("{e}"));
        let printed = text::print_program(&case.program);
        let again = text::parse_program(&printed, &name).unwrap();
        assert_eq!(printed, text::print_program(&again), "{name}: round trip");
        let results = interp::run(&case.program, &RunOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let expected = text::expect::parse(&src, &name).unwrap_or_else(|e| panic!("{e}"));
        let slots = case.program.dispatch.outputs as usize;
        text::expect::check(&expected, &results.outputs, slots, &name)
            .unwrap_or_else(|e| panic!("{e}"));
        checked += expected.len();
    }
    assert!(checked >= 10, "only {checked} expect lines checked");
}
