//! Judging a change by what the programs *cost to run* at every register budget of a sweep,
//! and by the worst budget rather than the average: a spill-heuristic change that helps at
//! 16 GRFs and costs 11% more cycles at 32 must read as a regression, which pooling every
//! program (or averaging the budgets) hides.
//!
//! A stats file made with `gpufuzz stats --sweep KEY=V1,V2,…` names each program
//! `NAME@KEY=V`; programs without `@` form one budget (the file's own settings). For every
//! budget and every executed-cost measurement both files have ([`COST`]: cycles and the bytes
//! spill code moved), the totals over the programs present in both files are compared; the
//! worst budget is the largest relative increase among them.

use super::StatsFile;
use std::collections::{BTreeMap, HashMap};

/// The executed-cost measurements judged per budget.
pub const COST: &[&str] = &["cycles", "spill-bytes"];

/// One budget's total of one cost measurement, before and after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BudgetCost {
    /// `KEY=V` of the sweep, or empty for a file without a sweep.
    pub budget: String,
    /// The measurement.
    pub measurement: String,
    /// Programs compared.
    pub programs: usize,
    /// Total before.
    pub before: u64,
    /// Total after.
    pub after: u64,
}

impl BudgetCost {
    /// `(after - before) / before`; a cost appearing from nothing counts as +100% per unit
    /// of `after` relative to 1 (so it always ranks as a large increase).
    pub fn relative(&self) -> f64 {
        (self.after as f64 - self.before as f64) / self.before.max(1) as f64
    }
}

/// The budget a program name belongs to (the part after `@`, empty without one).
pub fn budget_of(name: &str) -> &str {
    name.split_once('@').map_or("", |(_, b)| b)
}

/// Every budget's cost totals, budgets in sweep order (then name order), measurements in
/// [`COST`] order.
pub fn by_budget(before: &StatsFile, after: &StatsFile) -> Vec<BudgetCost> {
    let after_by_name: HashMap<&str, &super::ProgramStats> = after
        .programs
        .iter()
        .map(|p| (p.name.as_str(), p))
        .collect();
    let mut order: Vec<String> = before.sweep.clone();
    let mut totals: BTreeMap<(String, &str), BudgetCost> = BTreeMap::new();
    for b in &before.programs {
        let Some(a) = after_by_name.get(b.name.as_str()) else {
            continue;
        };
        let budget = budget_of(&b.name).to_string();
        if !order.contains(&budget) {
            order.push(budget.clone());
        }
        for m in COST {
            let (Some(&vb), Some(&va)) = (b.stats.get(*m), a.stats.get(*m)) else {
                continue;
            };
            let t = totals
                .entry((budget.clone(), m))
                .or_insert_with(|| BudgetCost {
                    budget: budget.clone(),
                    measurement: m.to_string(),
                    programs: 0,
                    before: 0,
                    after: 0,
                });
            t.programs += 1;
            t.before += vb;
            t.after += va;
        }
    }
    let mut out = Vec::new();
    for budget in order {
        for m in COST {
            if let Some(t) = totals.remove(&(budget.clone(), m)) {
                out.push(t);
            }
        }
    }
    out
}

/// The budget and measurement whose cost rose the most (none when nothing rose).
pub fn worst(costs: &[BudgetCost]) -> Option<&BudgetCost> {
    costs
        .iter()
        .filter(|c| c.after > c.before)
        .max_by(|a, b| a.relative().total_cmp(&b.relative()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::ProgramStats;

    fn file(programs: &[(&str, u64, u64)], sweep: &[&str]) -> StatsFile {
        StatsFile {
            sweep: sweep.iter().map(|s| s.to_string()).collect(),
            programs: programs
                .iter()
                .map(|&(name, cycles, bytes)| ProgramStats {
                    name: name.to_string(),
                    stats: [
                        ("cycles".to_string(), cycles),
                        ("spill-bytes".to_string(), bytes),
                    ]
                    .into_iter()
                    .collect(),
                })
                .collect(),
            ..StatsFile::default()
        }
    }

    #[test]
    fn the_worst_budget_is_flagged_even_when_the_pooled_total_improved() {
        let sweep = ["gen_grfs=16", "gen_grfs=32"];
        let before = file(
            &[
                ("a@gen_grfs=16", 1000, 640),
                ("b@gen_grfs=16", 1000, 640),
                ("a@gen_grfs=32", 100, 0),
                ("b@gen_grfs=32", 100, 0),
            ],
            &sweep,
        );
        let after = file(
            &[
                ("a@gen_grfs=16", 950, 320),
                ("b@gen_grfs=16", 970, 320),
                ("a@gen_grfs=32", 111, 0),
                ("b@gen_grfs=32", 111, 0),
            ],
            &sweep,
        );
        let costs = by_budget(&before, &after);
        assert_eq!(costs.len(), 4);
        assert_eq!(costs[0].budget, "gen_grfs=16");
        // Pooled cycles went down (2200 -> 2142), but 32 GRFs costs 11% more.
        let w = worst(&costs).expect("a cost rose");
        assert_eq!(
            (w.budget.as_str(), w.measurement.as_str()),
            ("gen_grfs=32", "cycles")
        );
        assert!((w.relative() - 0.11).abs() < 1e-9);
    }
}
