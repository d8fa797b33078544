//! Timeouts judged against the program's own work, not a fixed cycle budget.
//!
//! A simulator run gets the machine's ordinary cycle budget and an *instruction* budget taken
//! from the program itself. Past the instruction budget the compiled code does not terminate:
//! the `timeout` finding, at once (a runaway loop does not first burn the whole cycle budget).
//! Past only the cycle budget the run is not yet a bug: a starved register budget can make a
//! correct compile spend tens of millions of cycles stalled on fills, so the run is repeated
//! with no cycle limit. The instruction budget: [`WORK_FACTOR`] machine instructions per IR instruction the reference interpreter
//! executed (summed over all invocations), plus [`SLACK_PER_THREAD`] per thread or wave.
//! A correct compile stays far inside it — each IR instruction lowers to a handful of machine
//! instructions, spill code adds a fill per operand and a spill per result, and a SIMD thread
//! or wave executes each instruction once for all its lanes while the interpreter counts it
//! per invocation — so only a program that does not terminate (or runs away) exceeds it: that
//! is the `timeout` finding. A run that finishes inside it is a `slow` observation for the
//! statistics, and its results are judged like any other run's.

use super::target::caused;
use crate::case::coverage::Coverage;
use crate::case::interpreter::INTERPRETER;
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::cause::Cause;
use crate::finding::{Finding, FindingKind};
use compiler::interp::RunOptions;

/// Machine instructions a correct compile may execute per IR instruction the interpreter
/// executed. The largest ratio measured at the smallest register budgets the case generator
/// picks is below 4 (see `docs/budgets.md`); 64 leaves a wide margin.
pub const WORK_FACTOR: u64 = 64;

/// Instructions each thread (Gen) or wave (a6xx) may execute besides its share of the work:
/// the prologue, payload set-up and control flow run with no lane enabled.
pub const SLACK_PER_THREAD: u64 = 4096;

/// The instruction budget of `target`'s run of `case` over `threads` threads or waves, from
/// the interpreter's count in `coverage` (the oracle's run), or from a run of its own for
/// callers that judge a case alone; the `timeout` finding when the interpreter cannot run the
/// program (the oracle rejects such cases before any pipeline).
pub fn instruction_budget(
    target: &str,
    case: &Case,
    opts: &OracleOptions,
    coverage: &Coverage,
    threads: u64,
) -> Result<u64, Box<Finding>> {
    let interpreted = if coverage.interpreted_insts > 0 {
        coverage.interpreted_insts
    } else {
        let run = RunOptions {
            fuel: opts.fuel,
            ..RunOptions::default()
        };
        let (_, stats) = INTERPRETER
            .with_borrow_mut(|i| i.run_with_stats(&case.program, &run))
            .map_err(|_| {
                timeout_finding(
                    target,
                    "cycle budget exhausted; the interpreter cannot run the program".into(),
                )
            })?;
        stats.executed_insts
    };
    Ok(budget_of(interpreted, threads))
}

/// The instruction budget when the oracle's interpreter run already counted the program's
/// work, for the first simulation (which then stops a runaway at once); `None` for a caller
/// judging a case alone, which pays for an interpreter run only if a simulation times out.
pub fn known_budget(coverage: &Coverage, threads: u64) -> Option<u64> {
    (coverage.interpreted_insts > 0).then(|| budget_of(coverage.interpreted_insts, threads))
}

fn budget_of(interpreted: u64, threads: u64) -> u64 {
    interpreted
        .saturating_mul(WORK_FACTOR)
        .saturating_add(threads.saturating_mul(SLACK_PER_THREAD))
}

/// `target`'s `timeout` finding for a run that executed `executed` instructions and was
/// allowed `budget`.
pub fn timeout(target: &str, executed: u64, budget: u64) -> Box<Finding> {
    timeout_finding(
        target,
        format!(
            "no termination: {executed} instructions executed, budget {budget} \
             ({WORK_FACTOR} per IR instruction the interpreter executed, \
             {SLACK_PER_THREAD} per thread)"
        ),
    )
}

/// What a hazard finding adds when the run also failed to finish: the hazard (say a loop
/// counter read too early) is the bug, the runaway or fault its consequence.
pub fn consequence_note(completed: bool, outcome: &impl std::fmt::Debug) -> String {
    if completed {
        String::new()
    } else {
        format!("; the run then ended in {outcome:?} (a consequence of the hazard)")
    }
}

fn timeout_finding(target: &str, detail: String) -> Box<Finding> {
    caused(target, FindingKind::Timeout, detail, Cause::Timeout)
}
