//! The bodies of the libFuzzer targets, kept in the library so `cargo test` runs the same code
//! as seeded smoke tests.

use crate::case::options::OracleOptions;
use crate::finding::Verdict;
use crate::oracle;
use compiler::ir::text;

/// `diff`: judge the input; panic on a finding so libFuzzer keeps it.
pub fn diff(data: &[u8]) {
    let j = oracle::judge_bytes(data, &OracleOptions::default());
    if let Verdict::Finding(f) = j.verdict {
        panic!("{f}\n{}", j.program_text.unwrap_or_default());
    }
}

/// `text`: a generated program printed, parsed and printed again is unchanged.
pub fn text(data: &[u8]) {
    let Some(case) = oracle::decode(data) else {
        return;
    };
    let printed = text::print_program(&case.program);
    let parsed = match text::parse_program(&printed, "generated.ir") {
        Ok(p) => p,
        Err(e) => panic!("printed program does not parse: {e}\n{printed}"),
    };
    let again = text::print_program(&parsed);
    assert_eq!(printed, again, "print → parse → print changed the program");
}

/// `parse`: any text either parses or gets an error; never a panic.
pub fn parse(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    let _ = text::parse_program(&src, "input.ir");
}
