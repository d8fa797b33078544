//! The bodies of the libFuzzer targets, kept in the library so `cargo test` runs the same code
//! as seeded smoke tests.
//!
//! `diff` reads raw bytes for the generator or a case file (what the structure-aware mutator
//! writes), as [`crate::case::text::read_input`] does. Two environment variables select
//! what the in-process loop's flags select, so `cargo fuzz run` can hunt planted bugs
//! (`GPUFUZZ_PLANT=from-ssa-swap`) or run other targets (`GPUFUZZ_TARGET=gen8,a6xx`); an
//! unknown name stops the fuzzer with exit status 2 before the first input.

use crate::case::options::OracleOptions;
use crate::finding::Verdict;
use crate::oracle::{self, Judgement};
use compiler::ir::text;
use compiler::planted::Plant;
use std::sync::OnceLock;

/// Names the planted bugs to switch on, comma-separated.
pub const PLANT_VAR: &str = "GPUFUZZ_PLANT";
/// Names the pipelines to judge, comma-separated (default: the default set).
pub const TARGET_VAR: &str = "GPUFUZZ_TARGET";

/// The oracle options the environment asks for.
pub fn options_from_env() -> Result<OracleOptions, String> {
    let list = |var: &str| -> Vec<String> {
        std::env::var(var)
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect()
    };
    let mut opts = OracleOptions::default();
    for name in list(PLANT_VAR) {
        let p = Plant::from_name(&name).ok_or_else(|| {
            format!("{PLANT_VAR}: unknown plant {name:?}; `gpufuzz plant --list` shows the catalog")
        })?;
        opts.plants = opts.plants.with(p);
    }
    let targets = list(TARGET_VAR);
    if !targets.is_empty() {
        let chosen = crate::targets::select(&targets).map_err(|e| format!("{TARGET_VAR}: {e}"))?;
        opts.targets = chosen.into_iter().map(String::from).collect();
    }
    Ok(opts)
}

fn options() -> &'static OracleOptions {
    static OPTIONS: OnceLock<OracleOptions> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        options_from_env().unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(2)
        })
    })
}

/// Judges an input as `diff` does: a case file parsed, raw bytes through the generator
/// (whose panic is a finding). `None`: a case file that does not parse or verify (a byte
/// mutation of one), which is no program rather than a finding.
pub fn judge_input(data: &[u8], opts: &OracleOptions) -> Option<Judgement> {
    if crate::case::text::looks_like_text(data) {
        let case = crate::case::text::read_input(data, "input").ok()?;
        Some(oracle::judge(&case, opts))
    } else {
        Some(oracle::judge_bytes(data, opts))
    }
}

/// `diff`: judge the input; panic on a finding so libFuzzer keeps it.
pub fn diff(data: &[u8]) {
    let Some(j) = judge_input(data, options()) else {
        return;
    };
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
