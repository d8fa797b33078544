//! The selftest's table, a triage scorecard: one row per planted bug (and the baseline)
//! summarising its hunts — seeds found, median time and programs to the first finding, the
//! buckets its findings land in (one bug must make one bucket), the pass bisection blames and
//! whether it is the planted one, the reduced size and the reduction time — checked against
//! the goals.
//!
//! Medians count a seed that found nothing as slower than any that did (a censored time), so
//! a bug found from fewer than half the seeds has no median time.

use super::{PlantRun, SeedRun, Selftest};
use serde::Serialize;
use std::collections::BTreeMap;

/// Goal: every seed finds its bug within this many seconds.
pub const GOAL_MAX_SECONDS: f64 = 60.0;
/// Goal: the median seed finds it within this many seconds.
pub const GOAL_MEDIAN_SECONDS: f64 = 10.0;
/// Goal: the median reduced repro has at most this many IR instructions.
pub const GOAL_MEDIAN_REDUCED: f64 = 10.0;
/// Goal: every reduced repro has at most this many IR instructions.
pub const GOAL_MAX_REDUCED: usize = 15;
/// Goal: each reduction (and bisection) takes at most this many seconds.
pub const GOAL_REDUCE_SECONDS: f64 = 30.0;

/// One line of the table.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The plant (`none` for the baseline).
    pub plant: String,
    /// Its pass.
    pub pass: String,
    /// The pipelines fuzzed.
    pub targets: String,
    /// `ok`, `missed` (some seed found nothing), `wrong` (a finding does not point at the
    /// plant), `split` (the findings of one bug landed in several buckets), `target not
    /// available`, or for the baseline `clean` / `findings`.
    pub status: String,
    /// Seeds run.
    pub seeds: usize,
    /// Seeds that found something.
    pub found: usize,
    /// Median seconds to the first finding (`None`: not found from half the seeds).
    pub median_seconds: Option<f64>,
    /// Slowest seed's seconds (`None` if some seed found nothing).
    pub max_seconds: Option<f64>,
    /// Median programs to the first finding.
    pub median_programs: Option<f64>,
    /// The most frequent signature.
    pub signature: Option<String>,
    /// Distinct signatures (buckets) the seeds' findings landed in; 1 for one bug.
    pub buckets: usize,
    /// The pass bisection blamed most often.
    pub blamed: Option<String>,
    /// Whether every finding points at the planted pass.
    pub points_at_plant: Option<bool>,
    /// Median reduced size in IR instructions.
    pub median_reduced: Option<f64>,
    /// Largest reduced size.
    pub max_reduced: Option<usize>,
    /// Slowest reduction, in seconds.
    pub max_reduce_seconds: Option<f64>,
    /// Whether the goals hold (found from every seed within 60 s, median under 10 s; one
    /// bucket blamed on the plant; reduced to a median of at most 10 instructions and at most
    /// 15 each, within 30 s each).
    pub goals_met: bool,
}

/// The median of `xs`, `None` standing for "never" (larger than everything).
pub fn median(xs: &[Option<f64>]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_by(|a, b| match (a, b) {
        (Some(a), Some(b)) => a.total_cmp(b),
        (a, b) => a.is_none().cmp(&b.is_none()),
    });
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        Some((v[n / 2 - 1]? + v[n / 2]?) / 2.0)
    }
}

/// The row for one bug's hunts.
pub fn row(p: &PlantRun, baseline: bool) -> Row {
    let found = p.runs.iter().filter(|r| r.found).count();
    let when = |f: fn(&SeedRun) -> f64| -> Vec<Option<f64>> {
        p.runs.iter().map(|r| r.found.then(|| f(r))).collect()
    };
    let mut sigs: BTreeMap<&str, usize> = BTreeMap::new();
    for s in p.runs.iter().filter_map(|r| r.signature.as_deref()) {
        *sigs.entry(s).or_default() += 1;
    }
    let signature = most_frequent(&sigs);
    let mut passes: BTreeMap<&str, usize> = BTreeMap::new();
    for s in p.runs.iter().filter_map(|r| r.first_bad_pass.as_deref()) {
        *passes.entry(s).or_default() += 1;
    }
    let checks: Vec<bool> = p.runs.iter().filter_map(|r| r.points_at_plant).collect();
    let points_at_plant = (!checks.is_empty()).then(|| checks.iter().all(|&c| c));
    let reduced: Vec<usize> = p.runs.iter().filter_map(|r| r.reduced_size).collect();
    let median_reduced = median(&reduced.iter().map(|&n| Some(n as f64)).collect::<Vec<_>>());
    let all_found = found == p.runs.len() && found > 0;
    let max_seconds = all_found.then(|| p.runs.iter().map(|r| r.seconds).fold(0.0, f64::max));
    let median_seconds = median(&when(|r| r.seconds));
    let status = if baseline {
        if found == 0 {
            "clean"
        } else {
            "findings"
        }
    } else if !p.available {
        "target not available"
    } else if points_at_plant == Some(false) {
        "wrong"
    } else if sigs.len() > 1 {
        "split"
    } else if !all_found {
        "missed"
    } else {
        "ok"
    };
    let max_reduce_seconds = p
        .runs
        .iter()
        .filter_map(|r| r.reduce_seconds)
        .reduce(f64::max);
    let goals_met = status == "ok"
        && max_seconds.is_some_and(|s| s <= GOAL_MAX_SECONDS)
        && median_seconds.is_some_and(|s| s < GOAL_MEDIAN_SECONDS)
        && median_reduced.is_some_and(|n| n <= GOAL_MEDIAN_REDUCED)
        && reduced.iter().all(|&n| n <= GOAL_MAX_REDUCED)
        && max_reduce_seconds.is_none_or(|s| s <= GOAL_REDUCE_SECONDS);
    Row {
        plant: p.plant.clone(),
        pass: p.pass.clone(),
        targets: if p.targets.is_empty() {
            "all".into()
        } else {
            p.targets.join(" ")
        },
        status: status.into(),
        seeds: p.runs.len(),
        found,
        median_seconds,
        max_seconds,
        median_programs: median(&when(|r| r.programs as f64)),
        signature,
        buckets: sigs.len(),
        blamed: most_frequent(&passes),
        points_at_plant,
        median_reduced,
        max_reduced: reduced.iter().copied().max(),
        max_reduce_seconds,
        goals_met,
    }
}

/// The most frequent key (the first in order among equals).
fn most_frequent(counts: &BTreeMap<&str, usize>) -> Option<String> {
    counts
        .iter()
        .max_by_key(|(s, n)| (**n, std::cmp::Reverse(*s)))
        .map(|(s, _)| s.to_string())
}

/// Every row: the plants in order, then the baseline.
pub fn rows(s: &Selftest) -> Vec<Row> {
    let mut v: Vec<Row> = s.plants.iter().map(|p| row(p, false)).collect();
    v.extend(s.baseline.iter().map(|b| row(b, true)));
    v
}

/// Whether the selftest passed: every available bug found from every seed, blamed on its
/// plant's pass, in one bucket, and the baseline clean. (The time and size goals are
/// reported, not enforced.)
pub fn passed(rows: &[Row]) -> bool {
    rows.iter()
        .all(|r| matches!(r.status.as_str(), "ok" | "clean" | "target not available"))
}

fn secs(x: Option<f64>) -> String {
    x.map_or("-".into(), |s| format!("{s:.2}"))
}

fn num(x: Option<f64>) -> String {
    x.map_or("-".into(), |n| format!("{n:.0}"))
}

/// The table as text (a markdown table, readable as is).
pub fn format(rows: &[Row], budget_secs: f64) -> String {
    let mut s = String::from(
        "| plant | pass | targets | found | median s | max s | median programs \
         | buckets | signature | blamed | → plant | reduced (median/max) | max reduce s \
         | goals |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let found = if r.status == "target not available" {
            "target not available".to_string()
        } else {
            format!("{}/{}", r.found, r.seeds)
        };
        let mark = match r.points_at_plant {
            Some(true) => "✓",
            Some(false) => "✗",
            None => "",
        };
        let goals = match (r.status.as_str(), r.goals_met) {
            ("target not available", _) => "",
            ("clean", _) => "✓ no findings",
            ("findings", _) => "✗ false positives?",
            ("split", _) => "✗ several buckets",
            (_, true) => "✓",
            (_, false) => "✗",
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {}/{} | {} | {} |\n",
            r.plant,
            r.pass,
            r.targets,
            found,
            secs(r.median_seconds),
            secs(r.max_seconds),
            num(r.median_programs),
            r.buckets,
            r.signature.as_deref().unwrap_or("-"),
            r.blamed.as_deref().unwrap_or("-"),
            mark,
            num(r.median_reduced),
            r.max_reduced.map_or("-".into(), |n| n.to_string()),
            secs(r.max_reduce_seconds),
            goals
        ));
    }
    s.push_str(&format!(
        "\nbudget {budget_secs:.0}s per seed, one core; goals: every seed within \
         {GOAL_MAX_SECONDS:.0}s, median under {GOAL_MEDIAN_SECONDS:.0}s, one bucket blamed on \
         the planted pass, reduced to at most {GOAL_MEDIAN_REDUCED:.0} IR instructions \
         (median) and {GOAL_MAX_REDUCED} (each) in at most {GOAL_REDUCE_SECONDS:.0}s each\n"
    ));
    s
}

/// One hunt in a line, for progress output.
pub fn describe(r: &SeedRun) -> String {
    if !r.found {
        return format!("nothing in {:.1}s ({} programs)", r.seconds, r.programs);
    }
    let mark = match r.points_at_plant {
        Some(true) => " ✓",
        Some(false) => " ✗",
        None => "",
    };
    let mut s = format!(
        "found in {:.2}s ({} programs): {}{mark}",
        r.seconds,
        r.programs,
        r.signature.as_deref().unwrap_or("?")
    );
    if let (Some(a), Some(b)) = (r.original_size, r.reduced_size) {
        s.push_str(&format!(
            ", reduced {a} -> {b} insts in {:.1}s",
            r.reduce_seconds.unwrap_or(0.0)
        ));
    }
    for note in [&r.mismatch, &r.error].into_iter().flatten() {
        s.push_str(&format!(" [{note}]"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_count_misses_as_slowest() {
        assert_eq!(median(&[Some(3.0), Some(1.0), Some(2.0)]), Some(2.0));
        assert_eq!(median(&[Some(3.0), None, Some(1.0)]), Some(3.0));
        assert_eq!(median(&[Some(4.0), Some(2.0)]), Some(3.0));
        assert_eq!(median(&[Some(4.0), None]), None);
        assert_eq!(median(&[None, None, Some(1.0)]), None);
        assert_eq!(median(&[]), None);
    }
}
