//! The comparison of two stats files, measurement by measurement, as Mesa's shader-db
//! `report.py` does it:
//!
//! * only programs present (compiled and run) in both files count; the others are LOST or
//!   GAINED;
//! * for every measurement but `loops`, a program whose loop count changed is left out
//!   entirely (a loop was unrolled or removed, so its other numbers are not comparable);
//! * a program is *affected* when the value changed; *helped* when it went down (up for
//!   [`higher_is_better`] measurements), *HURT* otherwise;
//! * helped and HURT each get min/max/mean/median of the absolute change and of the relative
//!   change (`|after - before| / before`, 0 when `before` is 0);
//! * with more than three affected programs (and not for spills and fills), the 95%
//!   confidence interval of the mean signed change, by value and by %-change, using Student's
//!   t with `n - 1` degrees of freedom, decides the verdict: either interval containing 0, or
//!   the two disagreeing in sign, is inconclusive;
//! * then the executed cost per budget ([`super::cost`]): the change is judged by its worst
//!   budget, never by the pooled or average figure.

use super::{counts_only, higher_is_better, tdist, StatsFile};
use std::collections::HashMap;

/// One affected program.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// The program.
    pub name: String,
    /// Its value in the first file.
    pub before: u64,
    /// Its value in the second file.
    pub after: u64,
}

impl Change {
    /// `after - before`.
    pub fn delta(&self) -> f64 {
        self.after as f64 - self.before as f64
    }

    /// `(after - before) / before`, 0 when `before` is 0 (report.py's convention).
    pub fn relative(&self) -> f64 {
        if self.before == 0 {
            0.0
        } else {
            self.delta() / self.before as f64
        }
    }
}

/// min/max/mean/median of the absolute and the relative change of a group of programs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Smallest `|after - before|`.
    pub min_abs: f64,
    /// Largest `|after - before|`.
    pub max_abs: f64,
    /// Mean `|after - before|`.
    pub mean_abs: f64,
    /// Median `|after - before|` (the mean of the two middle values for an even count).
    pub median_abs: f64,
    /// Smallest `|after - before| / before`.
    pub min_rel: f64,
    /// Largest relative change.
    pub max_rel: f64,
    /// Mean relative change.
    pub mean_rel: f64,
    /// Median relative change.
    pub median_rel: f64,
}

impl Summary {
    /// The summary of `changes` (`None` when empty).
    pub fn of(changes: &[Change]) -> Option<Summary> {
        if changes.is_empty() {
            return None;
        }
        let abs: Vec<f64> = changes.iter().map(|c| c.delta().abs()).collect();
        let rel: Vec<f64> = changes.iter().map(|c| c.relative().abs()).collect();
        let (min_abs, max_abs, mean_abs, median_abs) = describe(abs);
        let (min_rel, max_rel, mean_rel, median_rel) = describe(rel);
        Some(Summary {
            min_abs,
            max_abs,
            mean_abs,
            median_abs,
            min_rel,
            max_rel,
            mean_rel,
            median_rel,
        })
    }
}

/// (min, max, mean, median) of a non-empty list.
fn describe(mut xs: Vec<f64>) -> (f64, f64, f64, f64) {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    let median = if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    };
    (xs[0], xs[n - 1], mean(&xs), median)
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// A confidence interval of a mean.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// The sample mean.
    pub mean: f64,
    /// Lower bound.
    pub lo: f64,
    /// Upper bound.
    pub hi: f64,
}

impl Interval {
    /// The 95% confidence interval of the mean of `xs` (at least two values): mean ± the
    /// standard error times the 0.975 quantile of Student's t with `n - 1` degrees of freedom.
    pub fn mean_95(xs: &[f64]) -> Interval {
        debug_assert!(xs.len() >= 2, "a confidence interval needs two values");
        let n = xs.len() as f64;
        let m = mean(xs);
        let var = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
        let h = (var / n).sqrt() * tdist::quantile(0.975, n - 1.0);
        Interval {
            mean: m,
            lo: m - h,
            hi: m + h,
        }
    }

    fn straddles_zero(&self) -> bool {
        self.lo < 0.0 && self.hi > 0.0
    }
}

/// The last line of a measurement's block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Both intervals below zero (above, for higher-is-better measurements).
    Helped,
    /// Both on the bad side of zero.
    Hurt,
    /// The value interval contains 0.
    InconclusiveValue,
    /// The %-change interval contains 0.
    InconclusivePercent,
    /// The two intervals are on different sides of 0.
    InconclusiveDisagree,
}

/// Everything the report says about one measurement.
#[derive(Clone, Debug, PartialEq)]
pub struct StatComparison {
    /// The measurement.
    pub measurement: String,
    /// Sum over the programs compared, first file.
    pub total_before: u64,
    /// Sum over the programs compared, second file.
    pub total_after: u64,
    /// Sum over the affected programs, first file.
    pub affected_before: u64,
    /// Sum over the affected programs, second file.
    pub affected_after: u64,
    /// Programs improved, in corpus order.
    pub helped: Vec<Change>,
    /// Programs made worse, in corpus order.
    pub hurt: Vec<Change>,
    /// Programs left out because their loop count changed.
    pub loops_changed: usize,
    /// 95% confidence interval of the mean change by value (more than 3 affected programs).
    pub value_ci: Option<Interval>,
    /// The same for the relative change.
    pub percent_ci: Option<Interval>,
}

impl StatComparison {
    /// report.py's verdict, when there is a confidence interval.
    pub fn verdict(&self) -> Option<Verdict> {
        let (v, p) = (self.value_ci?, self.percent_ci?);
        Some(if v.straddles_zero() {
            Verdict::InconclusiveValue
        } else if p.straddles_zero() {
            Verdict::InconclusivePercent
        } else if (v.lo < 0.0) != (p.lo < 0.0) {
            Verdict::InconclusiveDisagree
        } else if (v.lo < 0.0) != higher_is_better(&self.measurement) {
            Verdict::Helped
        } else {
            Verdict::Hurt
        })
    }

    /// Summary of the helped programs.
    pub fn helped_summary(&self) -> Option<Summary> {
        Summary::of(&self.helped)
    }

    /// Summary of the HURT programs.
    pub fn hurt_summary(&self) -> Option<Summary> {
        Summary::of(&self.hurt)
    }

    /// Helped and HURT programs together, in corpus order of neither (helped first).
    pub fn affected(&self) -> impl Iterator<Item = &Change> {
        self.helped.iter().chain(&self.hurt)
    }
}

/// The comparison of two stats files.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// One entry per measurement compared, in the first file's order.
    pub stats: Vec<StatComparison>,
    /// Programs only the first file has (failed or absent in the second).
    pub lost: Vec<String>,
    /// Programs only the second file has.
    pub gained: Vec<String>,
    /// Executed cost per budget of the sweep ([`super::cost`]).
    pub costs: Vec<super::cost::BudgetCost>,
}

/// Compares `before` with `after` over `measurements` (all the measurements both files have
/// when empty).
pub fn compare(before: &StatsFile, after: &StatsFile, measurements: &[String]) -> Comparison {
    let chosen: Vec<String> = if measurements.is_empty() {
        before
            .measurements
            .iter()
            .filter(|m| after.measurements.contains(m))
            .cloned()
            .collect()
    } else {
        measurements.to_vec()
    };
    let after_by_name: HashMap<&str, &super::ProgramStats> = after
        .programs
        .iter()
        .map(|p| (p.name.as_str(), p))
        .collect();
    let before_names: HashMap<&str, ()> = before
        .programs
        .iter()
        .map(|p| (p.name.as_str(), ()))
        .collect();
    let pairs: Vec<_> = before
        .programs
        .iter()
        .filter_map(|b| after_by_name.get(b.name.as_str()).map(|a| (b, *a)))
        .collect();
    let stats = chosen
        .iter()
        .map(|m| {
            let mut s = StatComparison {
                measurement: m.clone(),
                total_before: 0,
                total_after: 0,
                affected_before: 0,
                affected_after: 0,
                helped: Vec::new(),
                hurt: Vec::new(),
                loops_changed: 0,
                value_ci: None,
                percent_ci: None,
            };
            for (b, a) in &pairs {
                let (Some(&vb), Some(&va)) = (b.stats.get(m), a.stats.get(m)) else {
                    continue;
                };
                if m != "loops" && b.stats.get("loops") != a.stats.get("loops") {
                    s.loops_changed += 1;
                    continue;
                }
                s.total_before += vb;
                s.total_after += va;
                if vb == va {
                    continue;
                }
                s.affected_before += vb;
                s.affected_after += va;
                let c = Change {
                    name: b.name.clone(),
                    before: vb,
                    after: va,
                };
                if (va > vb) != higher_is_better(m) {
                    s.hurt.push(c);
                } else {
                    s.helped.push(c);
                }
            }
            if !counts_only(m) && s.helped.len() + s.hurt.len() > 3 {
                let d: Vec<f64> = s.affected().map(Change::delta).collect();
                let r: Vec<f64> = s.affected().map(Change::relative).collect();
                s.value_ci = Some(Interval::mean_95(&d));
                s.percent_ci = Some(Interval::mean_95(&r));
            }
            s
        })
        .collect();
    let lost = before
        .programs
        .iter()
        .filter(|p| !after_by_name.contains_key(p.name.as_str()))
        .map(|p| p.name.clone())
        .collect();
    let gained = after
        .programs
        .iter()
        .filter(|p| !before_names.contains_key(p.name.as_str()))
        .map(|p| p.name.clone())
        .collect();
    Comparison {
        stats,
        lost,
        gained,
        costs: super::cost::by_budget(before, after),
    }
}
