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

/// Judges `program` under each of `configs` with every default pipeline; the coverage of each
/// judgement, after asserting a pass.
fn passes_every_pipeline(
    name: &str,
    program: &compiler::ir::Program,
    configs: Vec<CaseConfig>,
) -> Vec<fuzz::case::coverage::Coverage> {
    configs
        .into_iter()
        .map(|config| {
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
            j.coverage
        })
        .collect()
}

#[test]
fn regressions_pass_every_pipeline() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/regressions");
    let files = compiler::ir::text::ir_files(&dir).unwrap();
    assert!(!files.is_empty());
    for path in files {
        let name = path.display().to_string();
        let src = std::fs::read_to_string(&path).unwrap();
        let case = fuzz::case::text::parse_case(&src, &name).unwrap_or_else(|e| panic!("{e}"));
        // A file's `; expect` lines are the interpreter's answer, checked by hand.
        let expected = compiler::ir::text::expect::parse(&src, &name).unwrap();
        if !expected.is_empty() {
            let results = compiler::interp::run(&case.program, &Default::default()).unwrap();
            let slots = case.program.dispatch.outputs as usize;
            compiler::ir::text::expect::check(&expected, &results.outputs, slots, &name)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        let mut configs = configurations();
        if !configs.contains(&case.config) {
            configs.push(case.config);
        }
        passes_every_pipeline(&name, &case.program, configs);
    }
}

/// A saved generated program (`tests/programs/NAME.ir`, case header included): generator
/// changes would otherwise turn these pinned inputs into other programs.
fn saved(name: &str) -> Case {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/programs/{name}.ir"));
    let src = std::fs::read_to_string(&path).expect("saved program");
    fuzz::case::text::parse_case(&src, name).unwrap_or_else(|e| panic!("{e}"))
}

/// `gpufuzz fuzz --seed 1` input 10,502 (as generated when budgets started at 16 GRFs, saved
/// in `tests/programs/seed1_input10502.ir`) at 18 GRFs: correct, but past the simulator's
/// 50 M-cycle budget (43 M of its cycles stalls on fills). Judged against its own work
/// (docs/budgets.md) it is a `slow` pass, not a `timeout` finding.
#[test]
fn a_slow_but_terminating_compile_is_slow_not_a_timeout() {
    let mut case = saved("seed1_input10502");
    case.config.gen_grfs = 18;
    let opts = OracleOptions {
        targets: vec!["gen8".into()],
        ..OracleOptions::default()
    };
    let j = oracle::judge(&case, &opts);
    assert!(matches!(j.verdict, Verdict::Pass), "{:?}", j.verdict);
    assert!(j.coverage.slow);
}

/// `gpufuzz fuzz --seed 3` input 14,993 (saved in `tests/programs/seed3_input14993.ir`): at 22
/// GRFs (SIMD16) a 1,385-line program spills 700 registers into 1,278 GRFs of scratch — 40 KiB,
/// well inside the 2 MiB a Gen thread can have, but past the simulator's default 1,024. Scratch
/// follows the program's need, as real drivers size it, so this is a pass, not a
/// `ScratchOverflow` compile error.
#[test]
fn heavy_spilling_gets_the_scratch_it_needs() {
    let case = saved("seed3_input14993");
    assert_eq!(case.config.gen_grfs, 22);
    let opts = OracleOptions {
        targets: vec!["gen16".into()],
        ..OracleOptions::default()
    };
    let j = oracle::judge(&case, &opts);
    assert!(matches!(j.verdict, Verdict::Pass), "{:?}", j.verdict);
    assert!(j.coverage.spills);
}

/// `corpus/subgroups/*.ir`: subgroup operations in uniform and divergent control flow, with
/// hand-checked `; expect` lines. The interpreter gives exactly those, and every default
/// pipeline agrees with it (the a6xx target skips them: its backend has none). They live apart
/// from the regressions, which every driver target replays, because most drivers cannot run
/// them with their meaning (`docs/spirv.md`: a subgroup of the workgroup's size, maximal
/// reconvergence).
#[test]
fn subgroup_programs_give_their_expected_values_on_every_default_pipeline() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/subgroups");
    let files = compiler::ir::text::ir_files(&dir).unwrap();
    assert!(!files.is_empty());
    for path in files {
        let name = path.display().to_string();
        let src = std::fs::read_to_string(&path).unwrap();
        let program =
            compiler::ir::text::parse_program(&src, &name).unwrap_or_else(|e| panic!("{e}"));
        let expected = compiler::ir::text::expect::parse(&src, &name).unwrap();
        assert!(!expected.is_empty(), "{name}: no expect lines");
        let results = compiler::interp::run(&program, &Default::default()).unwrap();
        let slots = program.dispatch.outputs as usize;
        compiler::ir::text::expect::check(&expected, &results.outputs, slots, &name)
            .unwrap_or_else(|e| panic!("{e}"));
        for coverage in passes_every_pipeline(&name, &program, configurations()) {
            assert!(
                coverage.skipped.iter().all(|s| s.starts_with("a6xx:")),
                "{name}: {:?}",
                coverage.skipped
            );
        }
    }
}
