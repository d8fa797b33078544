//! Reach: how often the judged cases drove the backends into the code where allocation bugs
//! live, counted from what *executed* (the compile's spill/reload marks folded with the
//! simulator's per-instruction profile, `compiler::executed`), not what was compiled — and
//! how often each allocation-choice knob was drawn. Each share has a goal (issue 17); the
//! fuzz summary and `gpufuzz stats --reach` print them against it. The targets declare their
//! goals ([`crate::targets::ReachGoal`]):
//!
//! * `gen8`/`gen16` spill+fill: at least one spill store *and* one fill ran (goal 40% of the
//!   cases that target judged);
//! * `a6xx` reload: a predicate reload ran (goal 20%);
//! * `a6xx` 3 in a loop: reloads of three or more distinct predicates ran inside one loop
//!   (goal 5%);
//!
//! and every allocation-choice setting should be drawn in 5% of the cases at least.
//!
//! It also counts the programs that use each feature past plain 32-bit arithmetic
//! ([`features`]: bit fields, bit counts, bit searches, wide multiplies, carries), each
//! against a goal of [`GOAL_FEATURE`] of the programs.

use crate::case::coverage::Coverage;
use crate::case::CaseConfig;
use crate::targets::ReachCount;
use compiler::executed::Executed;
use compiler::ir::{walk_blocks, AluOp, BitSize, CfNode, InstKind, Program};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The knobs that pick among correct allocation choices (the heuristics), whose every
/// setting should be drawn often: those the case randomiser varies
/// ([`CaseConfig::drawn_values`]).
pub fn heuristic_knobs() -> impl Iterator<Item = &'static str> {
    CaseConfig::keys()
        .iter()
        .copied()
        .filter(|k| !CaseConfig::drawn_values(k).is_empty())
}

/// Goal: share of cases drawing each heuristic setting.
pub const GOAL_KNOB: f64 = 0.05;

/// Goal: share of programs using each feature of [`FEATURES`].
pub const GOAL_FEATURE: f64 = 0.05;

/// The features [`features`] names, in report order.
pub const FEATURES: &[&str] = &[
    "bit_field",
    "bit_count",
    "find_bit",
    "mul_high",
    "carry",
    "workgroup_id",
    "shared",
    "barrier",
    "atomic_buffer",
    "atomic_shared",
    "subgroup",
    "subgroup_divergent",
    "int16",
    "int64",
];

/// The feature an instruction belongs to, if it is one of [`FEATURES`].
fn feature_of(kind: &InstKind) -> Option<&'static str> {
    use AluOp::*;
    let op = match *kind {
        InstKind::Alu { op, .. } => op,
        InstKind::LocalId | InstKind::WorkgroupId => return Some("workgroup_id"),
        InstKind::LoadShared { .. } | InstKind::StoreShared { .. } => return Some("shared"),
        InstKind::Barrier => return Some("barrier"),
        InstKind::AtomicBuffer { .. } => return Some("atomic_buffer"),
        InstKind::AtomicShared { .. } => return Some("atomic_shared"),
        _ => return None,
    };
    Some(match op {
        UbitfieldExtract | IbitfieldExtract | BitfieldInsert => "bit_field",
        BitCount | BitfieldReverse => "bit_count",
        FindLsb | UfindMsb | IfindMsb => "find_bit",
        UmulHigh | ImulHigh => "mul_high",
        UaddCarry | UsubBorrow => "carry",
        _ => return None,
    })
}

/// The features of [`FEATURES`] that `p` uses (placed instructions only), in that order. A
/// subgroup operation is `subgroup` in the top-level list, `subgroup_divergent` inside an
/// `if` or a loop (where the invocations taking part may be some of the workgroup).
pub fn features(p: &Program) -> Vec<&'static str> {
    let f = &p.func;
    let mut used = [false; FEATURES.len()];
    let top: Vec<_> = f
        .body
        .iter()
        .filter_map(|n| match n {
            CfNode::Block(b) => Some(*b),
            _ => None,
        })
        .collect();
    walk_blocks(&f.body, &mut |b| {
        for &i in &f.blocks[b].insts {
            let kind = &f.insts[i].kind;
            let subgroup = match top.contains(&b) {
                true => "subgroup",
                false => "subgroup_divergent",
            };
            let name = match kind {
                InstKind::Subgroup { .. } => Some(subgroup),
                _ => feature_of(kind),
            };
            let width = match f.insts[i].result.expand().and_then(|v| f.ty(v).bits()) {
                Some(BitSize::B16) => Some("int16"),
                Some(BitSize::B64) => Some("int64"),
                _ => None,
            };
            for name in [name, width].into_iter().flatten() {
                let k = FEATURES.iter().position(|&n| n == name).unwrap_or(0);
                used[k] = true;
            }
        }
    });
    FEATURES
        .iter()
        .zip(used)
        .filter_map(|(&n, u)| u.then_some(n))
        .collect()
}

/// Reach counters of a run (summed over its cases).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Reach {
    /// Cases each pipeline compiled and ran to the end (the shares' denominators).
    pub ran: BTreeMap<String, u64>,
    /// Cases in which at least one spill store and one fill executed, per pipeline.
    pub spill_and_fill: BTreeMap<String, u64>,
    /// Spill stores executed, per pipeline.
    pub spills: BTreeMap<String, u64>,
    /// Fills (Gen: and pre-fills) executed, per pipeline.
    pub fills: BTreeMap<String, u64>,
    /// Bytes spill code moved, per pipeline.
    pub spill_bytes: BTreeMap<String, u64>,
    /// a6xx cases in which a predicate reload executed.
    pub pred_reload: u64,
    /// a6xx predicate reloads executed.
    pub pred_reloads: u64,
    /// a6xx cases with reloads of 3 or more distinct predicates executed inside one loop.
    pub loop_pred_reloads: u64,
    /// Cases that reached a backend.
    pub cases: u64,
    /// `knob=value` → cases that drew it (heuristic knobs only).
    pub knob_settings: BTreeMap<String, u64>,
    /// Programs looked at (the feature shares' denominator).
    pub programs: u64,
    /// Feature of [`FEATURES`] → programs using it.
    pub features: BTreeMap<String, u64>,
}

/// One share against its goal.
#[derive(Clone, Debug, PartialEq)]
pub struct Share {
    /// What is measured.
    pub name: String,
    /// Cases counted.
    pub count: u64,
    /// Out of.
    pub of: u64,
    /// The goal (a fraction).
    pub goal: f64,
}

impl Share {
    /// The share as a fraction (0 when nothing was judged).
    pub fn value(&self) -> f64 {
        self.count as f64 / self.of.max(1) as f64
    }

    /// Whether it meets its goal.
    pub fn met(&self) -> bool {
        self.of > 0 && self.value() >= self.goal
    }
}

impl Reach {
    /// Counts one case: the heuristic settings it drew and what its pipelines executed
    /// (nothing when no backend ran it).
    pub fn record(&mut self, c: &Coverage) {
        if let Some(features) = &c.features {
            self.programs += 1;
            for f in features {
                *self.features.entry(f.to_string()).or_default() += 1;
            }
        }
        if c.executed.is_empty() {
            return;
        }
        self.cases += 1;
        for setting in &c.heuristic_settings {
            *self.knob_settings.entry(setting.clone()).or_default() += 1;
        }
        for (target, e) in &c.executed {
            self.record_run(target, e);
        }
    }

    fn record_run(&mut self, target: &str, e: &Executed) {
        let t = target.to_string();
        *self.ran.entry(t.clone()).or_default() += 1;
        *self.spill_and_fill.entry(t.clone()).or_default() += u64::from(e.spilled_and_filled());
        *self.spills.entry(t.clone()).or_default() += e.spills;
        *self.fills.entry(t.clone()).or_default() += e.fills + e.prefills;
        *self.spill_bytes.entry(t).or_default() += e.spill_bytes;
        self.pred_reload += u64::from(e.pred_reloads > 0);
        self.pred_reloads += e.pred_reloads;
        self.loop_pred_reloads += u64::from(e.loop_pred_reloads >= 3);
    }

    /// Adds another run's counters.
    pub fn merge(&mut self, from: &Reach) {
        self.pred_reload += from.pred_reload;
        self.pred_reloads += from.pred_reloads;
        self.loop_pred_reloads += from.loop_pred_reloads;
        self.cases += from.cases;
        self.programs += from.programs;
        for (into, from) in [
            (&mut self.features, &from.features),
            (&mut self.ran, &from.ran),
            (&mut self.spill_and_fill, &from.spill_and_fill),
            (&mut self.spills, &from.spills),
            (&mut self.fills, &from.fills),
            (&mut self.spill_bytes, &from.spill_bytes),
            (&mut self.knob_settings, &from.knob_settings),
        ] {
            for (k, v) in from {
                *into.entry(k.clone()).or_default() += v;
            }
        }
    }

    /// Every share with its goal: each target's reach goals
    /// ([`Target::reach_goals`](crate::targets::Target::reach_goals): Gen's executed
    /// spills, a6xx's predicate reloads) over the cases it ran, in registry order, then every
    /// heuristic setting (all values of every knob, drawn or not).
    pub fn shares(&self) -> Vec<Share> {
        let mut out = Vec::new();
        for t in crate::targets::all() {
            let Some(&of) = self.ran.get(t.name()) else {
                continue;
            };
            for g in t.reach_goals() {
                out.push(Share {
                    name: format!("{} {}", t.name(), g.name),
                    count: self.count(g.count, t.name()),
                    of,
                    goal: g.goal,
                });
            }
        }
        if self.programs > 0 {
            for &f in FEATURES {
                out.push(Share {
                    name: format!("feature {f}"),
                    count: self.features.get(f).copied().unwrap_or(0),
                    of: self.programs,
                    goal: GOAL_FEATURE,
                });
            }
        }
        if self.cases > 0 {
            for setting in every_setting() {
                out.push(Share {
                    count: self.knob_settings.get(&setting).copied().unwrap_or(0),
                    name: setting,
                    of: self.cases,
                    goal: GOAL_KNOB,
                });
            }
        }
        out
    }

    /// The cases of `target` that `what` counts.
    pub fn count(&self, what: ReachCount, target: &str) -> u64 {
        match what {
            ReachCount::SpillAndFill => self.spill_and_fill.get(target).copied().unwrap_or(0),
            // Only a6xx reloads predicates: these counters are the run's.
            ReachCount::PredReload => self.pred_reload,
            ReachCount::LoopPredReloads => self.loop_pred_reloads,
        }
    }

    /// The reach goals with a status-line label, per target that ran, as ` | TARGET LABEL
    /// P% LABEL P%` (the fuzz status line).
    pub fn status(&self) -> String {
        let mut s = String::new();
        for t in crate::targets::all() {
            let ran = self.ran.get(t.name()).copied().unwrap_or(0);
            let labelled: Vec<_> = t
                .reach_goals()
                .iter()
                .filter(|g| g.status.is_some())
                .collect();
            if ran == 0 || labelled.is_empty() {
                continue;
            }
            s += &format!(" | {}", t.name());
            for g in labelled {
                let share = 100.0 * self.count(g.count, t.name()) as f64 / ran as f64;
                s += &format!(" {} {share:.0}%", g.status.unwrap_or_default());
            }
        }
        s
    }

    /// The shares as text, one per line: `name  count/of  pct  (goal pct) ok|BELOW`; a share
    /// of fewer than [`JUDGED_FROM`] cases is shown unjudged (`-`): a short run's shares say
    /// little about the generator.
    pub fn report(&self) -> String {
        let mut s = String::new();
        for sh in self.shares() {
            let verdict = if sh.of < JUDGED_FROM {
                "-"
            } else if sh.met() {
                "ok"
            } else {
                "BELOW"
            };
            s.push_str(&format!(
                "  {:<44} {:>6}/{:<6} {:>5.1}%  (goal {:.0}%) {verdict}\n",
                sh.name,
                sh.count,
                sh.of,
                100.0 * sh.value(),
                100.0 * sh.goal,
            ));
        }
        for (target, bytes) in &self.spill_bytes {
            let of = self.ran.get(target).copied().unwrap_or(0).max(1);
            s.push_str(&format!(
                "  {target}: spill stores {} fills {} executed, {} spill bytes moved ({} per case)\n",
                self.spills.get(target).copied().unwrap_or(0),
                self.fills.get(target).copied().unwrap_or(0),
                bytes,
                bytes / of
            ));
        }
        let reloads = |t: &&&dyn crate::targets::Target| {
            t.reach_goals()
                .iter()
                .any(|g| g.count == ReachCount::PredReload)
        };
        for t in crate::targets::all().iter().filter(reloads) {
            if self.ran.contains_key(t.name()) {
                s.push_str(&format!(
                    "  {}: predicate reloads executed {}\n",
                    t.name(),
                    self.pred_reloads
                ));
            }
        }
        s
    }
}

/// Fewest cases behind a share for the report to judge it against its goal.
pub const JUDGED_FROM: u64 = 1000;

/// The `knob=value` settings of `config`'s heuristic knobs.
pub fn settings(config: &CaseConfig) -> Vec<String> {
    let knobs: Vec<&str> = heuristic_knobs().collect();
    config
        .knobs()
        .into_iter()
        .filter(|(k, _)| knobs.contains(k))
        .map(|(k, v)| format!("{k}={v}"))
        .collect()
}

/// Every `knob=value` of the heuristic knobs the case randomiser can draw.
pub fn every_setting() -> Vec<String> {
    let mut out = Vec::new();
    for knob in heuristic_knobs() {
        for value in CaseConfig::drawn_values(knob) {
            out.push(format!("{knob}={value}"));
        }
    }
    out
}
