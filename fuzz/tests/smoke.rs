//! Seeded smoke tests: the libFuzzer targets' bodies over fixed inputs, and the fuzz loop's
//! determinism and bookkeeping.

use fuzz::finding::Verdict;
use fuzz::fuzz_loop::{self, FuzzOptions};
use fuzz::oracle::{self, OracleOptions};
use fuzz::{libfuzzer, rng};

fn inputs(n: u64) -> impl Iterator<Item = Vec<u8>> {
    (0..n).map(|i| {
        let mut buf = Vec::new();
        rng::input_bytes(0x5eed, i, 16, 2048, &mut buf);
        buf
    })
}

#[test]
fn diff_target_finds_nothing_on_fixed_seeds() {
    for bytes in inputs(300) {
        libfuzzer::diff(&bytes);
    }
}

#[test]
fn text_target_round_trips_generated_programs() {
    for bytes in inputs(300) {
        libfuzzer::text(&bytes);
    }
    libfuzzer::text(&[]);
}

#[test]
fn parse_target_never_panics_on_generated_text_prefixes() {
    for bytes in inputs(40) {
        let Some(case) = oracle::decode(&bytes) else {
            continue;
        };
        let text = compiler::ir::text::print_program(&case.program);
        for cut in (0..text.len()).step_by(97) {
            libfuzzer::parse(&text.as_bytes()[..cut]);
        }
    }
}

#[test]
fn at_least_99_percent_of_inputs_yield_a_judged_program() {
    let opts = OracleOptions::default();
    let judged = inputs(500)
        .filter(|b| !matches!(oracle::judge_bytes(b, &opts).verdict, Verdict::Rejected(_)))
        .count();
    assert!(judged >= 495, "only {judged}/500 inputs made a program");
}

#[test]
fn the_loop_is_deterministic_whatever_the_thread_count() {
    let run = |jobs| {
        let opts = FuzzOptions {
            seed: 3,
            runs: Some(200),
            time: None,
            jobs,
            status_every: None,
            ..FuzzOptions::default()
        };
        fuzz_loop::fuzz(&opts, &|b| {
            oracle::judge_bytes(b, &OracleOptions::default())
        })
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(one.programs, 200);
    assert_eq!(one.programs, two.programs);
    assert_eq!(one.loops_taken_twice, two.loops_taken_twice);
    assert_eq!(one.divergent_simd8, two.divergent_simd8);
    assert_eq!(one.signatures, two.signatures);
}

/// A missing delay slot can make a loop counter read stale and the loop run away: the hazard
/// is the bug and the finding, the non-termination only its consequence (it would otherwise
/// be a second, `timeout`, bucket for one bug).
#[test]
fn a_hazard_that_makes_the_run_run_away_is_reported_as_the_hazard() {
    let opts = OracleOptions {
        plants: compiler::planted::Plants::NONE.with(compiler::planted::Plant::A6xxNopShort),
        targets: vec!["a6xx".into()],
        ..OracleOptions::default()
    };
    let defaults = FuzzOptions::default();
    let mut buf = Vec::new();
    for i in 0..200 {
        rng::input_bytes(5, i, defaults.min_len, defaults.max_len, &mut buf);
        if let Verdict::Finding(f) = oracle::judge_bytes(&buf, &opts).verdict {
            assert_ne!(
                f.kind,
                fuzz::finding::FindingKind::Timeout,
                "input {i}: {f}"
            );
            if f.detail.contains("a consequence of the hazard") {
                return;
            }
        }
    }
    panic!("no runaway among the first 200 inputs of seed 5");
}
