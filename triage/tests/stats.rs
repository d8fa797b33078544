//! The report arithmetic on tiny stats files computed by hand: totals, affected totals,
//! helped/HURT, their statistics, the t-distribution confidence intervals, the verdicts, the
//! loop-change exclusion, higher-is-better measurements and LOST/GAINED.

use std::collections::BTreeMap;
use triage::stats::compare::{compare, Change, Interval, StatComparison, Verdict};
use triage::stats::text::{format_report, format_stat, verdict_line, TextOptions};
use triage::stats::{ProgramStats, StatsFile};

const MEASUREMENTS: &[&str] = &["instructions", "cycles", "loops", "spills", "waves"];

/// A stats file from rows of (name, [instructions, cycles, loops, spills, waves]).
fn file(rows: &[(&str, [u64; 5])]) -> StatsFile {
    StatsFile {
        target: "test".into(),
        measurements: MEASUREMENTS.iter().map(|m| m.to_string()).collect(),
        programs: rows
            .iter()
            .map(|(name, vals)| ProgramStats {
                name: name.to_string(),
                stats: MEASUREMENTS
                    .iter()
                    .zip(vals)
                    .map(|(m, v)| (m.to_string(), *v))
                    .collect::<BTreeMap<_, _>>(),
            })
            .collect(),
        ..StatsFile::default()
    }
}

fn before() -> StatsFile {
    file(&[
        ("p1", [10, 100, 1, 0, 4]),
        ("p2", [20, 200, 1, 1, 4]),
        ("p3", [30, 300, 1, 2, 4]),
        ("p4", [40, 400, 1, 0, 4]),
        ("p5", [50, 500, 1, 0, 4]),
        // Its loop count changes: left out of everything but `loops`.
        ("p6", [10, 1000, 1, 0, 4]),
        ("p7", [5, 5, 0, 0, 4]),
    ])
}

fn after() -> StatsFile {
    file(&[
        ("p1", [8, 90, 1, 2, 8]),
        ("p2", [20, 180, 1, 0, 4]),
        ("p3", [33, 280, 1, 1, 4]),
        ("p4", [36, 390, 1, 0, 4]),
        ("p5", [45, 450, 1, 0, 4]),
        ("p6", [30, 5000, 2, 9, 1]),
        ("p8", [5, 5, 0, 0, 4]),
    ])
}

fn stat<'a>(c: &'a [StatComparison], m: &str) -> &'a StatComparison {
    c.iter().find(|s| s.measurement == m).expect("measurement")
}

#[test]
fn instructions_block_matches_the_hand_computation() {
    // Affected: p1 -2, p3 +3, p4 -4, p5 -5 (p6 is out: its loops changed).
    // Value deltas -2 -4 -5 +3: mean -2, s² = 38/3, se = sqrt(38/12) = 1.7795;
    // t(0.975, 3) = 3.18245, so -2 ± 5.6632.
    // Relative -0.2 -0.1 -0.1 +0.1: mean -0.075, s² = 0.0475/3, ±0.20022.
    let c = compare(&before(), &after(), &[]);
    let s = stat(&c.stats, "instructions");
    assert_eq!((s.total_before, s.total_after), (150, 142));
    assert_eq!((s.affected_before, s.affected_after), (130, 122));
    assert_eq!((s.helped.len(), s.hurt.len(), s.loops_changed), (3, 1, 1));
    let v = s.value_ci.unwrap();
    assert!((v.lo + 7.663_204_705).abs() < 1e-6 && (v.hi - 3.663_204_705).abs() < 1e-6);
    let p = s.percent_ci.unwrap();
    assert!((p.lo + 0.275_224_523).abs() < 1e-6 && (p.hi - 0.125_224_523).abs() < 1e-6);
    assert_eq!(s.verdict(), Some(Verdict::InconclusiveValue));
    assert_eq!(
        format_stat(s),
        "total instructions in shared programs: 150 -> 142 (-5.33%)\n\
         instructions in affected programs: 130 -> 122 (-6.15%)\n\
         helped: 3\n\
         HURT: 1\n\
         helped stats (abs) min: 2 max: 5 x\u{304}: 3.67 x\u{303}: 4\n\
         helped stats (rel) min: 10.00% max: 20.00% x\u{304}: 13.33% x\u{303}: 10.00%\n\
         HURT stats (abs)   min: 3 max: 3 x\u{304}: 3.00 x\u{303}: 3\n\
         HURT stats (rel)   min: 10.00% max: 10.00% x\u{304}: 10.00% x\u{303}: 10.00%\n\
         95% mean confidence interval for instructions value: -7.66 3.66\n\
         95% mean confidence interval for instructions %-change: -27.52% 12.52%\n\
         Inconclusive result (value mean confidence interval includes 0).\n\n"
    );
}

#[test]
fn cycles_are_helped() {
    // Deltas -10 -20 -20 -10 -50: mean -22, s² = 270, se = sqrt(54); t(0.975, 4) = 2.77645.
    let c = compare(&before(), &after(), &[]);
    let s = stat(&c.stats, "cycles");
    assert_eq!(
        format_stat(s),
        "total cycles in shared programs: 1500 -> 1390 (-7.33%)\n\
         cycles in affected programs: 1500 -> 1390 (-7.33%)\n\
         helped: 5\n\
         HURT: 0\n\
         helped stats (abs) min: 10 max: 50 x\u{304}: 22.00 x\u{303}: 20\n\
         helped stats (rel) min: 2.50% max: 10.00% x\u{304}: 7.83% x\u{303}: 10.00%\n\
         95% mean confidence interval for cycles value: -42.40 -1.60\n\
         95% mean confidence interval for cycles %-change: -11.95% -3.72%\n\
         Cycles are helped.\n\n"
    );
}

#[test]
fn loops_spills_and_higher_is_better() {
    let c = compare(&before(), &after(), &[]);
    // Loops are compared for every program, p6 included; too few for statistics.
    assert_eq!(
        format_stat(stat(&c.stats, "loops")),
        "total loops in shared programs: 6 -> 7 (16.67%)\n\
         loops in affected programs: 1 -> 2 (100.00%)\n\
         helped: 0\n\
         HURT: 1\n\n"
    );
    // Spills: counts only, never statistics (report.py: "usually meaningless").
    let s = stat(&c.stats, "spills");
    assert_eq!((s.helped.len(), s.hurt.len()), (2, 1));
    assert!(s.value_ci.is_none());
    assert_eq!(
        format_stat(s),
        "total spills in shared programs: 3 -> 3 (0.00%)\n\
         spills in affected programs: 3 -> 3 (0.00%)\n\
         helped: 2\n\
         HURT: 1\n\n"
    );
    // More waves is better.
    let s = stat(&c.stats, "waves");
    assert_eq!((s.helped.len(), s.hurt.len()), (1, 0));
    assert!(format_stat(s).starts_with("total waves in shared programs: 20 -> 24 (20.00%)\n"));
}

#[test]
fn lost_gained_and_no_changes() {
    let c = compare(&before(), &after(), &[]);
    assert_eq!(
        (c.lost.clone(), c.gained.clone()),
        (vec!["p7".to_string()], vec!["p8".to_string()])
    );
    let text = format_report(&c, TextOptions::default());
    assert!(text.ends_with("LOST:   1\nGAINED: 1\n"), "{text}");
    let same = compare(&before(), &before(), &[]);
    let opts = TextOptions {
        changes_only: true,
        ..TextOptions::default()
    };
    assert_eq!(format_report(&same, opts), "No changes.\n");
    let listed = format_report(
        &c,
        TextOptions {
            list_programs: true,
            ..TextOptions::default()
        },
    );
    assert!(
        listed.starts_with("instructions helped:   p4: "),
        "{listed}"
    );
    assert!(listed.contains("instructions HURT:   p3: "));
}

#[test]
fn every_verdict_line() {
    let ci = |lo: f64, hi: f64| Some(Interval { mean: 0.0, lo, hi });
    let mut s = StatComparison {
        measurement: "non-nops".into(),
        total_before: 0,
        total_after: 0,
        affected_before: 0,
        affected_after: 0,
        helped: vec![Change {
            name: "x".into(),
            before: 2,
            after: 1,
        }],
        hurt: Vec::new(),
        loops_changed: 0,
        value_ci: ci(-2.0, -1.0),
        percent_ci: ci(-0.2, -0.1),
    };
    let line = |s: &StatComparison| verdict_line(&s.measurement, s.verdict().unwrap());
    assert_eq!(line(&s), "Non-nops are helped.");
    s.value_ci = ci(1.0, 2.0);
    s.percent_ci = ci(0.1, 0.2);
    assert_eq!(line(&s), "Non-nops are HURT.");
    s.percent_ci = ci(-0.1, 0.2);
    assert_eq!(
        line(&s),
        "Inconclusive result (%-change mean confidence interval includes 0)."
    );
    s.percent_ci = ci(-0.2, -0.1);
    assert_eq!(
        line(&s),
        "Inconclusive result (value mean confidence interval and %-change mean confidence \
         interval disagree)."
    );
    s.value_ci = ci(-1.0, 2.0);
    assert_eq!(
        line(&s),
        "Inconclusive result (value mean confidence interval includes 0)."
    );
    // For waves, going up is helped.
    s.measurement = "waves".into();
    s.value_ci = ci(1.0, 2.0);
    s.percent_ci = ci(0.1, 0.2);
    assert_eq!(line(&s), "Waves are helped.");
}
