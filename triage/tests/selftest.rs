//! `gpufuzz selftest` in small: a cheap planted bug is found from a fixed seed within a tiny
//! budget, its signature points at the planted pass and its repro reduces small; with nothing
//! planted the same fuzzing finds nothing; plants whose pipeline is not registered are
//! reported, not fuzzed.

use compiler::planted::Plant;
use std::time::Duration;
use triage::selftest::{self, table, PlantRun, SelftestOptions};

fn options(plants: Vec<Plant>, baseline: bool) -> SelftestOptions {
    SelftestOptions {
        budget: Duration::from_secs(30),
        max_programs: Some(3000),
        seeds: vec![1],
        plants,
        baseline,
        reduce_time: Duration::from_secs(20),
        progress: false,
    }
}

#[test]
fn a_cheap_planted_bug_is_found_and_reduced() {
    let plant = Plant::FromSsaSwap;
    let result = selftest::run(&options(vec![plant], false));
    let run = &result.plants[0].runs[0];
    assert!(run.found, "{plant} not found: {run:?}");
    assert_eq!(run.points_at_plant, Some(true), "{run:?}");
    assert_eq!(run.first_bad_pass.as_deref(), Some(plant.pass()));
    let sig = run.signature.as_deref().unwrap_or_default();
    assert_eq!(sig, "middle:from_ssa");
    let size = run.reduced_size.expect("reduced");
    assert!(
        size <= 15,
        "{size} instructions:\n{}",
        run.reduced_program.as_deref().unwrap_or_default()
    );
    let rows = table::rows(&result);
    assert_eq!(rows[0].status, "ok");
    assert!(table::passed(&rows));
    let text = table::format(&rows, result.budget_secs);
    assert!(
        text.contains("| from-ssa-swap | from_ssa | middle | 1/1 |"),
        "{text}"
    );
}

#[test]
fn nothing_planted_finds_nothing() {
    let so = SelftestOptions {
        max_programs: Some(300),
        ..options(Vec::new(), true)
    };
    let result = selftest::run(&so);
    let base = result.baseline.as_ref().expect("baseline ran");
    assert_eq!(base.plant, "none");
    let run = &base.runs[0];
    assert!(!run.found, "a finding with nothing planted: {run:?}");
    assert_eq!(run.programs, 300);
    let rows = table::rows(&result);
    assert_eq!(rows[0].status, "clean");
    assert!(table::passed(&rows));
}

#[test]
fn plants_without_a_registered_pipeline_are_reported() {
    let registered = selftest::registered();
    for &p in Plant::ALL {
        let available = selftest::is_middle_end(p)
            || p.targets()
                .split_whitespace()
                .any(|t| registered.contains(&t));
        assert_eq!(selftest::targets_of(p).is_ok(), available, "{p}");
    }
    let missing = PlantRun {
        plant: "some-gen-bug".into(),
        pass: "gen_ra".into(),
        targets: vec!["gen99".into()],
        available: false,
        runs: Vec::new(),
    };
    let rows = vec![table::row(&missing, false)];
    assert_eq!(rows[0].status, "target not available");
    assert!(table::passed(&rows));
    assert!(table::format(&rows, 1.0).contains("target not available"));
}
