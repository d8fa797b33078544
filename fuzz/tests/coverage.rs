//! What the fuzz inputs exercise, measured over a fixed range of inputs exactly as the fuzz
//! loop makes them (swarm configurations included), with thresholds a little below the
//! measured rates: loops whose back-edge runs twice, branches that diverge inside a SIMD8
//! group, the valid-program rate, and the middle-end pass-firing table.

use fuzz::finding::Verdict;
use fuzz::oracle::{self, OracleOptions};
use fuzz::rng;
use std::collections::BTreeMap;

const N: u64 = 1500;

#[test]
fn fuzz_inputs_cover_the_shapes_the_passes_need() {
    let opts = OracleOptions {
        targets: vec!["middle".into()],
        ..OracleOptions::default()
    };
    let (mut judged, mut twice, mut divergent, mut findings) = (0, 0, 0, Vec::new());
    let mut fired: BTreeMap<&str, u64> = BTreeMap::new();
    let mut buf = Vec::new();
    for i in 0..N {
        rng::input_bytes(0xc0, i, 64, 2048, &mut buf);
        let j = oracle::judge_bytes(&buf, &opts);
        match j.verdict {
            Verdict::Rejected(_) => continue,
            Verdict::Finding(f) => findings.push(f),
            Verdict::Broken(why) => panic!("input {i} not tested: {why}"),
            Verdict::Pass => {}
        }
        judged += 1;
        twice += u64::from(j.coverage.loop_back_edge_twice);
        divergent += u64::from(j.coverage.divergent_simd8);
        for pass in j.coverage.passes_changed {
            *fired.entry(pass).or_default() += 1;
        }
    }
    let pct = |n: u64| 100.0 * n as f64 / judged as f64;
    eprintln!(
        "valid {:.1}% loops>=2 {:.1}% divergent {:.1}% fired {fired:?}",
        100.0 * judged as f64 / N as f64,
        pct(twice),
        pct(divergent)
    );
    assert!(findings.is_empty(), "{findings:?}");
    assert!(
        judged as f64 >= 0.99 * N as f64,
        "valid-program rate {judged}/{N}"
    );
    assert!(
        pct(twice) >= 50.0,
        "a back-edge taken twice in only {:.1}%",
        pct(twice)
    );
    assert!(
        pct(divergent) >= 25.0,
        "SIMD8 divergence in only {:.1}%",
        pct(divergent)
    );
    for pass in [
        "opt_remove_phis",
        "opt_copy_prop",
        "opt_constant_folding",
        "opt_cse",
        "opt_dce",
        "from_ssa",
    ] {
        let rate = pct(fired.get(pass).copied().unwrap_or(0));
        assert!(rate >= 5.0, "{pass} changed only {rate:.1}% of programs");
    }
}

/// The reach goals (`fuzz::reach`) over a fixed range of inputs: spill code and predicate
/// reloads *execute* in the share of cases the case randomiser and generator aim for, and
/// every heuristic setting is drawn. Thresholds are the goals; the measured shares are
/// printed.
#[test]
fn fuzz_inputs_reach_the_allocators() {
    const CASES: u64 = 240;
    let opts = OracleOptions {
        targets: ["gen8", "gen16", "a6xx"].map(String::from).to_vec(),
        ..OracleOptions::default()
    };
    let mut reach = fuzz::reach::Reach::default();
    let mut buf = Vec::new();
    for i in 0..CASES {
        rng::input_bytes(0xc0, i, 64, 2048, &mut buf);
        let j = oracle::judge_bytes(&buf, &opts);
        assert!(
            !matches!(j.verdict, Verdict::Finding(_)),
            "input {i}: {:?}",
            j.verdict
        );
        reach.record(&j.coverage);
    }
    eprint!("{}", reach.report());
    let below: Vec<String> = reach
        .shares()
        .into_iter()
        .filter(|s| !s.met())
        .map(|s| format!("{} {:.1}%", s.name, 100.0 * s.value()))
        .collect();
    assert!(below.is_empty(), "below their goals: {below:?}");
}
