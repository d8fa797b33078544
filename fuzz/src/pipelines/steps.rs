//! What a target declares for triage: its backend steps (for bisection to blame), its optional
//! steps (blamed by switching them off) and its register budgets (lowered by the reducer). The
//! target's file holds the tables; bisection and the reducer read them and know no target.

use crate::oracle::CaseConfig;

/// A backend step bisection can blame, named as the blame and the bug bucket print it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The name (`gen_ra_spill`, `a6xx_legalize`).
    pub name: &'static str,
    /// What the step does, one line.
    pub does: &'static str,
}

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
