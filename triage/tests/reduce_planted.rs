//! The reducer on planted bugs: found by fuzzing, reduced, still the same bug (same
//! signature, first bad pass = the plant's pass, backend plants included), much smaller, and
//! valid; a spill bug's register budget goes down with the program, so it keeps spilling.

mod common;

use compiler::ir::{text, verify};
use compiler::planted::Plant;
use std::time::Duration;
use triage::reduce::Reducer;
use triage::session::reduce_case;
use triage::signature;

fn check(plant: Plant) -> fuzz::oracle::Case {
    check_seed(plant, 1)
}

/// [`check`] on the first finding of `seed`.
fn check_seed(plant: Plant, seed: u64) -> fuzz::oracle::Case {
    let case = common::first_finding(plant, seed);
    let opts = common::planted(plant);
    let (sig, _) = signature::signature_of(&case, &opts).expect("it fails");
    assert_eq!(
        sig.first_bad_pass.as_deref(),
        Some(plant.pass()),
        "{plant}: {sig}"
    );
    let reducer = Reducer::default().time_limit(Duration::from_secs(20));
    let r = reduce_case(case, &opts, &reducer).expect("reduces");
    let small = &r.reduced.case;
    let printed = text::print_program(&small.program);
    verify::verify(&small.program).unwrap_or_else(|e| panic!("{plant}: {e}\n{printed}"));
    assert!(
        signature::shows(small, &opts, &sig),
        "{plant}: lost the bug\n{printed}"
    );
    assert_eq!(r.bisection.first_bad_pass.as_deref(), Some(plant.pass()));
    assert!(
        r.reduced.after <= 25 && r.reduced.after * 4 <= r.reduced.before,
        "{plant}: {} -> {} instructions\n{printed}",
        r.reduced.before,
        r.reduced.after
    );
    // Without the plant, the reduced program is compiled correctly.
    let clean = fuzz::oracle::OracleOptions {
        plants: Default::default(),
        ..opts
    };
    assert!(
        fuzz::oracle::finding_of(small, &clean).is_none(),
        "{plant}:\n{printed}"
    );
    r.reduced.case
}

#[test]
fn a_spill_bug_reduces_under_a_lowered_register_budget() {
    // Seed 2: seed 1's first finding (since the generator aims at more pressure) is a
    // three-loop nest the 20-second reducer does not finish in a loaded debug build.
    let seed = 2;
    let before = common::first_finding(Plant::GenSpillSlotReuse, seed)
        .config
        .gen_grfs;
    let small = check_seed(Plant::GenSpillSlotReuse, seed);
    assert!(
        small.config.gen_grfs < before,
        "{before} -> {}",
        small.config.gen_grfs
    );
    assert!(
        small.program.func.inst_count() <= 15,
        "{}",
        text::print_program(&small.program)
    );
    // The a6xx budgets, which gen8 does not read, stay at their defaults.
    let d = fuzz::oracle::CaseConfig::default();
    assert_eq!(small.config.a6xx_registers, d.a6xx_registers);
}

#[test]
fn backend_plants_reduce_and_keep_their_blame() {
    for plant in [
        Plant::ZeroSamplesSharedPayload,
        Plant::A6xxSpillReloadStale,
        Plant::A6xxBraoInvert,
    ] {
        check(plant);
    }
}

#[test]
fn from_ssa_swap_reduces() {
    check(Plant::FromSsaSwap);
}

#[test]
fn dce_loop_live_out_reduces() {
    check(Plant::DceLoopLiveOut);
}

#[test]
fn remove_phis_backedge_reduces() {
    check(Plant::RemovePhisBackedge);
}

#[test]
fn a_loose_predicate_is_refused() {
    let case = common::first_finding(Plant::FromSsaSwap, 1);
    let err = Reducer::default().reduce(case, &mut |_: &fuzz::oracle::Case| true);
    assert_eq!(
        err.unwrap_err(),
        triage::reduce::ReduceError::EmptyIsInteresting
    );
}
