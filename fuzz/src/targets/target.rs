//! The target trait: everything gpufuzz asks of a target (see [`super`] for the registry), and
//! the helpers every target's findings share.

use super::shown::{Shown, Written};
use super::steps::{Budget, CheckedStep, OptionalStep, ReachGoal, Step};
use crate::case::coverage::Coverage;
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::cause::Cause;
use crate::finding::{Finding, FindingKind};
use compiler::ir::Program;
use sim::dispatch::Results;
use std::path::Path;
use std::time::Duration;

/// One target: a way of compiling and running a program, and everything gpufuzz knows about it.
pub trait Target: Sync {
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

    /// Whether [`run_fused`](Target::run_fused) runs several cases at once (one shader for
    /// all, so that a fixed cost per compile is paid once per batch). The oracle's batch
    /// judge ([`crate::oracle::judge_batch`]) then runs this target after the others, over
    /// the cases still passing. Default: no.
    fn fuses(&self) -> bool {
        false
    }

    /// Runs `cases` (each with its program after the middle end) together, one outcome per
    /// case in order. The oracle re-runs a case whose outcome from a shared run is wrong alone
    /// ([`run`](Target::run)) to tell its own bug from the fused shader's. Default: each
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

    /// Whether the `--vk-*` flags (device, ICD, timeout) set it up: a command given one must
    /// run a target that reads them, else the flag is a usage error. Default: no.
    fn reads_driver_flags(&self) -> bool {
        false
    }

    /// Whether it runs a Mesa driver or Mesa's SPIRV-Tools (`--mesa` picks which; it names
    /// the Mesa in [`environment`](Target::environment)). Default: no.
    fn runs_on_mesa(&self) -> bool {
        false
    }

    /// Why a finding recorded with `environment` ([`environment`](Target::environment))
    /// may not show under `opts` ("found on another driver"), for a case that passes here.
    /// Default: never.
    fn elsewhere(&self, environment: &serde_json::Value, opts: &OracleOptions) -> Option<String> {
        let _ = (environment, opts);
        None
    }

    /// `opts` with the driver of ICD `icd` instead, and that driver's name, to judge a
    /// finding again on another driver (`gpufuzz repro --also-icd`); `Err`: it does not open.
    /// Default: `None`, the target runs on no driver.
    fn with_driver(
        &self,
        opts: &OracleOptions,
        icd: &Path,
    ) -> Option<Result<(OracleOptions, String), String>> {
        let _ = (opts, icd);
        None
    }

    /// Whether two of its findings of one case (on two drivers) show the same bug. Default:
    /// the same signature.
    fn same_bug(&self, a: &Finding, b: &Finding) -> bool {
        a.signature() == b.signature()
    }

    /// The forms of its standalone repro (`gpufuzz run --emit FORM`: files a driver's
    /// developers run without gpufuzz). Default: none.
    fn standalone_forms(&self) -> &'static [&'static str] {
        &[]
    }

    /// Its standalone repro of `case` in `form`, one of
    /// [`standalone_forms`](Target::standalone_forms).
    fn standalone(&self, case: &Case, opts: &OracleOptions, form: &str) -> Result<String, String> {
        let _ = (case, opts);
        Err(format!("target {} has no --emit {form}", self.name()))
    }

    /// Writes its standalone repro of `case` as `dir/stem.*` for a report; `None`: it has
    /// none, `Some(Err)`: why this case has none (a program it cannot express standalone).
    fn write_standalone(
        &self,
        case: &Case,
        opts: &OracleOptions,
        dir: &Path,
        stem: &str,
    ) -> Option<Result<Written, String>> {
        let _ = (case, opts, dir, stem);
        None
    }

    /// The parts of its time `gpufuzz bench` shows below its line (emit, pipeline creation,
    /// dispatch …), as [`timed_run`](Target::timed_run) measures them. Default: none (bench
    /// splits its time by [`compiler::profile`] phase instead).
    fn timed_parts(&self) -> &'static [&'static str] {
        &[]
    }

    /// Runs `case` as [`run`](Target::run) does, for `gpufuzz bench`, and the time of each
    /// of its [`timed_parts`](Target::timed_parts); `Err`: it did not run (why). Only asked
    /// of a target with timed parts.
    fn timed_run(
        &self,
        case: &Case,
        optimised: &Program,
        opts: &OracleOptions,
    ) -> Result<Vec<Duration>, String> {
        let _ = (case, optimised, opts);
        Err(format!("target {} has no timed parts", self.name()))
    }

    /// Whether `gpufuzz bench` states its time as a multiple of the interpreter's (issue 16's
    /// goals for our backends); not for a target that interprets itself or runs on a device.
    fn bench_against_interpreter(&self) -> bool {
        true
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
    /// [`checked_step`](Target::checked_step) (when the check alone cannot clear them).
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
    fn measurements(&self) -> Option<Vec<&'static str>> {
        None
    }

    /// The counters of `case.program` (already through the middle end) compiled with
    /// `case.config`: [`measurements`](Target::measurements) and any extra named ones.
    fn record(&self, case: &Case) -> Result<Vec<(String, u64)>, String> {
        let _ = case;
        Err(format!("target {} has no statistics", self.name()))
    }
}

/// One case's outcome of [`Target::run_fused`].
#[derive(Clone, Debug)]
pub struct FusedOutcome {
    /// Its results, or the finding of the run it was in.
    pub outcome: Result<Results, Box<Finding>>,
    /// Whether that run was shared with other cases (else the case ran alone, as
    /// [`Target::run`] runs it).
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

/// A finding of `target` with its cause (and the class derived from it).
pub fn caused(target: &str, kind: FindingKind, detail: String, cause: Cause) -> Box<Finding> {
    Box::new(Finding::caused(kind, target, detail, cause))
}
