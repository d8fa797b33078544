//! Replays every `corpus/regressions/*.ir` through the whole oracle — every registered
//! pipeline, under the file's configuration (default unless a `; case:` line sets knobs) and
//! a starved one (few registers, one predicate, waves of 128) — and expects a pass: a fixed
//! bug stays fixed on every target.

use compiler::ir::text;
use fuzz::finding::Verdict;
use fuzz::oracle::{self, Case, CaseConfig, OracleOptions};
use std::path::Path;

/// The file's own configuration (its `; case: KEY=VALUE ...` lines over the default) and the
/// same starved.
fn configurations(name: &str, src: &str) -> Vec<CaseConfig> {
    let mut d = CaseConfig::default();
    for line in src.lines() {
        if let Some(knobs) = line.strip_prefix("; case:") {
            for kv in knobs.split_whitespace() {
                let (k, v) = kv
                    .split_once('=')
                    .unwrap_or_else(|| panic!("{name}: {kv:?} is not KEY=VALUE"));
                d.set(k, v).unwrap_or_else(|e| panic!("{name}: {e}"));
            }
        }
    }
    let starved = CaseConfig {
        a6xx_wave128: true,
        a6xx_predicates: 1,
        a6xx_registers: 12,
        a6xx_opt_predicates: false,
        ..d.clone()
    };
    vec![d, starved]
}

#[test]
fn regressions_pass_every_pipeline() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/regressions");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ir"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for path in files {
        let name = path.display().to_string();
        let src = std::fs::read_to_string(&path).unwrap();
        let program = text::parse_program(&src, &name).unwrap_or_else(|e| panic!("{e}"));
        for config in configurations(&name, &src) {
            let case = Case {
                config: config.clone(),
                program: program.clone(),
            };
            let j = oracle::judge(&case, &OracleOptions::default());
            assert!(
                matches!(j.verdict, Verdict::Pass),
                "{name} with {config:?}: {:?}",
                j.verdict
            );
        }
    }
}
