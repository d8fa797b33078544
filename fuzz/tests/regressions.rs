//! Replays every `corpus/regressions/*.ir` through the whole oracle — every registered
//! pipeline, under the default configuration, a starved one (few registers, one predicate,
//! waves of 128) and the file's own `; case:` header (the configuration it was found under)
//! — and expects a pass: a fixed bug stays fixed on every target.

use fuzz::finding::Verdict;
use fuzz::oracle::{self, Case, CaseConfig, OracleOptions};
use std::path::Path;

fn configurations() -> Vec<CaseConfig> {
    let d = CaseConfig::default();
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
        let case = fuzz::case_file::parse_case(&src, &name).unwrap_or_else(|e| panic!("{e}"));
        let program = case.program;
        let mut configs = configurations();
        if !configs.contains(&case.config) {
            configs.push(case.config);
        }
        for config in configs {
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
