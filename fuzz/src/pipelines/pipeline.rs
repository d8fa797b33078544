//! The target trait: everything gpufuzz asks of a target (see [`super`] for the registry), and
//! the helpers every target's findings share.

use super::shown::Shown;
use super::steps::{Budget, CheckedStep, OptionalStep, ReachGoal, Step};
use crate::case::coverage::Coverage;
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::finding::{Finding, FindingKind};
use compiler::ir::Program;
use sim::dispatch::Results;

/// One target: a way of compiling and running a program, and everything gpufuzz knows about it.
pub trait Pipeline: Sync {
    /// Short name used in findings, `--target` and reports.
    fn name(&self) -> &'static str;

    /// The compiler this target is one configuration of: a bug blamed on one of its backend
    /// steps is one bug on every target of the family (`gen8` and `gen16` are `gen`).
    /// Default: the target's own name.
    fn family(&self) -> &'static str {
        self.name()
    }

    /// One line for `--target` errors and help: what the pipeline compiles for.
    fn description(&self) -> &'static str;

    /// Whether a run without `--target` includes it (opt-in targets, e.g. ones that need a
    /// device, say no and run only when named or with `--target all`).
    fn in_default_set(&self) -> bool {
        true
    }

    /// Whether this machine can run it; the error says what is missing.
    fn available(&self) -> Result<(), String> {
        Ok(())
    }

    /// Opens what it runs on under `opts` before any work (a device named on the command
    /// line); a line to print about it (which device), or the usage error saying what is
    /// missing. Default: nothing to open.
    fn prepare(&self, opts: &OracleOptions) -> Result<Option<String>, String> {
        let _ = opts;
        Ok(None)
    }

    /// Compiles `optimised` (the case's program after the middle end) and runs it; notes
    /// what it exercised in `coverage`.
    fn run(
        &self,
        case: &Case,
        optimised: &Program,
        opts: &OracleOptions,
        coverage: &mut Coverage,
    ) -> Result<Results, Box<Finding>>;

    /// Whether [`run_fused`](Pipeline::run_fused) runs several cases at once (one shader for
    /// all, so that a fixed cost per compile is paid once per batch). The oracle's batch
    /// judge ([`crate::oracle::judge_batch`]) then runs this target after the others, over
    /// the cases still passing. Default: no.
    fn fuses(&self) -> bool {
        false
    }

    /// Runs `cases` (each with its program after the middle end) together, one outcome per
    /// case in order. The oracle re-runs a case whose outcome from a shared run is wrong alone
    /// ([`run`](Pipeline::run)) to tell its own bug from the fused shader's. Default: each
    /// case alone.
    fn run_fused(&self, cases: &[(&Case, &Program)], opts: &OracleOptions) -> Vec<FusedOutcome> {
        cases
            .iter()
            .map(|(case, optimised)| FusedOutcome {
                outcome: self.run(case, optimised, opts, &mut Coverage::default()),
                shared: false,
            })
            .collect()
    }

    /// What this pipeline runs on under `opts`, as `(key, value)` pairs recorded with every
    /// finding (`finding.json`'s `environment`), so that triage and repro can re-judge it
    /// where it was found and name both places when it does not reproduce. Default: nothing.
    fn environment(&self, _opts: &OracleOptions) -> Vec<(String, String)> {
        Vec::new()
    }

    /// Why this pipeline cannot judge `case` at all (a known limit of the target, not a
    /// bug), if so; the oracle counts the skip in the run's statistics. Default: never.
    fn skip(&self, _case: &Case, _opts: &OracleOptions, _coverage: &Coverage) -> Option<String> {
        None
    }

    /// The first difference between the interpreter's results and the pipeline's that is a
    /// bug. Default: any differing word.
    fn compare(
        &self,
        case: &Case,
        optimised: &Program,
        opts: &OracleOptions,
        expected: &Results,
        actual: &Results,
    ) -> Option<Finding> {
        let _ = (optimised, opts);
        compare(self.name(), case, expected, actual)
    }

    /// What it makes of `optimised` for a person (`gpufuzz run --target`): its options, with
    /// `asm` the code itself (disassembly, SPIR-V), what its checks say, and the outputs.
    fn show(
        &self,
        case: &Case,
        opts: &OracleOptions,
        optimised: &Program,
        asm: bool,
    ) -> Result<Shown, String>;

    /// The code a report shows beside the `.ir`, headed by what the target's checks say of it
    /// (they name the instruction); `first_output` is the output slot of the first
    /// difference, for a target that can point at it. Default: nothing.
    fn listing(
        &self,
        case: &Case,
        opts: &OracleOptions,
        optimised: &Program,
        first_output: Option<u32>,
    ) -> Option<String> {
        let _ = (case, opts, optimised, first_output);
        None
    }

    /// The [`CaseConfig`](crate::case::CaseConfig) knobs it reads (`--config` keys of
    /// `gpufuzz stats`, the knobs the reducer varies for its findings).
    fn knobs(&self) -> &'static [&'static str] {
        &[]
    }

    /// The register budgets the reducer lowers for its findings.
    fn budgets(&self) -> &'static [Budget] {
        &[]
    }

    /// Its backend steps, in order, for bisection to blame (after the middle end's passes).
    fn steps(&self) -> &'static [Step] {
        &[]
    }

    /// The fixed backend step the check that caught `f` names, if any.
    fn checked_step(&self, f: &Finding) -> Option<CheckedStep> {
        let _ = f;
        None
    }

    /// The optional backend steps bisection blames by switching them off.
    fn optional_steps(&self) -> &'static [OptionalStep] {
        &[]
    }

    /// Whether bisection tries switching the optional steps off before asking
    /// [`checked_step`](Pipeline::checked_step) (when the check alone cannot clear them).
    fn switch_first(&self, f: &Finding) -> bool {
        let _ = f;
        false
    }

    /// The shares of its cases that should reach into its allocators' code, with their goals
    /// (the fuzz summary and `gpufuzz stats --reach` print them).
    fn reach_goals(&self) -> &'static [ReachGoal] {
        &[]
    }

    /// The shader-db style counters `gpufuzz stats` records for it, in report order; `None`:
    /// no statistics.
    fn measurements(&self) -> Option<&'static [&'static str]> {
        None
    }

    /// The counters of `case.program` (already through the middle end) compiled with
    /// `case.config`: [`measurements`](Pipeline::measurements) and any extra named ones.
    fn record(&self, case: &Case) -> Result<Vec<(String, u64)>, String> {
        let _ = case;
        Err(format!("target {} has no statistics", self.name()))
    }
}

/// One case's outcome of [`Pipeline::run_fused`].
#[derive(Clone, Debug)]
pub struct FusedOutcome {
    /// Its results, or the finding of the run it was in.
    pub outcome: Result<Results, Box<Finding>>,
    /// Whether that run was shared with other cases (else the case ran alone, as
    /// [`Pipeline::run`] runs it).
    pub shared: bool,
}

/// A mismatch finding if `actual` differs from `expected` anywhere.
pub fn compare(target: &str, case: &Case, expected: &Results, actual: &Results) -> Option<Finding> {
    let d = expected.first_difference(actual, &case.program.dispatch)?;
    let mut f = Finding::new(FindingKind::Mismatch, target, String::new());
    let m = crate::finding::Mismatch::from(d);
    f.detail = m.to_string();
    f.difference = Some(m);
    Some(f)
}

/// A bucketing class from a value's `Debug` form: its variant names, without the numbers
/// and fields that differ from one occurrence to the next (`ReadTooEarly(Slots { needed: 3,
/// had: 1 })` → `ReadTooEarly Slots`).
pub fn class_of(value: &impl std::fmt::Debug) -> String {
    let debug = format!("{value:?}");
    let head = debug.split('{').next().unwrap_or_default();
    head.split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty() && !w.chars().all(|c| c.is_ascii_digit()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A finding of `target` with its bucketing class.
pub fn classified(target: &str, kind: FindingKind, detail: String, class: String) -> Box<Finding> {
    let mut f = Finding::new(kind, target, detail);
    f.class = Some(class);
    Box::new(f)
}
