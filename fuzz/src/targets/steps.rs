//! What a target declares for the rest of gpufuzz: its backend steps (for bisection to
//! blame), its optional steps (blamed by switching them off), its register budgets (lowered by
//! the reducer) and its reach goals (the fuzz summary's shares). The target's file holds the
//! tables; bisection, the reducer and the summary read them and know no target.

use crate::case::CaseConfig;

/// A backend step bisection can blame, named as the blame and the bug bucket print it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The name (`gen_ra_spill`, `a6xx_legalize`).
    pub name: &'static str,
    /// What the step does, one line.
    pub does: &'static str,
}

/// Our backends' first step (`compiler::passes::lower_bit_ops`), shared by Gen and a6xx: an
/// IR-to-IR expansion, so bisection blames it by interpreting its output.
pub const LOWER_BIT_OPS: Step = Step {
    name: "lower_bit_ops",
    does: "expands bit-field, bit-count and wide-arithmetic ops into basic integer ops",
};

/// A fixed step named by the check that caught its output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckedStep {
    /// The step to blame.
    pub step: Step,
    /// The check, as the evidence names it (`the allocation checker, at a fill,`).
    pub by: &'static str,
}

/// An optional backend step a case knob switches: blamed when switching it off makes the
/// finding go.
#[derive(Clone, Copy, Debug)]
pub struct OptionalStep {
    /// The step.
    pub step: Step,
    /// Whether `config` runs it.
    pub on: fn(&CaseConfig) -> bool,
    /// Switches it off.
    pub switch_off: fn(&mut CaseConfig),
}

/// A register budget knob the reducer lowers while a bug remains, so that a spill bug keeps
/// spilling as the program shrinks.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// The case knob.
    pub knob: &'static str,
    /// Reads it.
    pub get: fn(&CaseConfig) -> u32,
    /// Writes it.
    pub set: fn(&mut CaseConfig, u32),
    /// The smallest value a case may name.
    pub lowest: u32,
    /// The largest (the whole register file).
    pub highest: u32,
    /// The smallest value every program compiles at with `config`'s other choices (a failure
    /// to compile under it may be the budget's fault, not a bug).
    pub sure_floor: fn(&CaseConfig) -> u32,
    /// `Some`: the only values it takes (lowered straight to `lowest`, sideways to each
    /// other one); `None`: any value in `lowest..=highest`.
    pub choices: Option<&'static [u32]>,
}

impl Budget {
    /// Whether `config` sets this budget under its sure floor.
    pub fn under_sure_floor(&self, config: &CaseConfig) -> bool {
        (self.get)(config) < (self.sure_floor)(config)
    }
}

/// What a reach share counts in the cases a target ran (`crate::reach`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReachCount {
    /// At least one spill store and one fill executed.
    SpillAndFill,
    /// A predicate reload executed.
    PredReload,
    /// Reloads of three or more distinct predicates executed inside one loop.
    LoopPredReloads,
}

/// A share of a target's cases that should reach into its allocators' code, with its goal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReachGoal {
    /// What is counted.
    pub count: ReachCount,
    /// The share's name after the target's (`spill+fill executed`).
    pub name: &'static str,
    /// The goal, a fraction of the cases the target ran.
    pub goal: f64,
    /// Its label on the fuzz status line, if it has one (`pred reload ran`).
    pub status: Option<&'static str>,
}
