//! A finding only a fused shader shows (`gpufuzz fuzz --fuse N`, [`fuzz::cause::Cause::Fused`]):
//! its program passes alone, so it reproduces only from its batch, the programs fused with it
//! (saved as `batch/` beside the finding). Reducing it shrinks the batch while the fused shader
//! keeps showing the same finding: first the programs it does not need leave the batch, then
//! each program left shrinks with the others fixed.
//!
//! A batch one of whose programs is wrong alone is not reduced here: that program's own bug is
//! reduced as a single program ([`crate::session::reduce_case`]), as `--fuse 1` would have
//! found it.

use crate::reduce::{empty_program, ReduceError, Reducer};
use crate::Error;
use fuzz::finding::{Finding, Verdict};
use fuzz::oracle::{self, Case, OracleOptions};
use std::time::{Duration, Instant};

/// A reduced batch.
#[derive(Clone, Debug)]
pub struct FusedReduction {
    /// The fused finding the reduced batch shows.
    pub finding: Finding,
    /// The reduced batch, in order.
    pub cases: Vec<Case>,
    /// Programs and instructions (over all programs) before.
    pub before: (usize, usize),
    /// Programs and instructions after.
    pub after: (usize, usize),
    /// Batches judged.
    pub runs: usize,
    /// Wall-clock time spent.
    pub elapsed: Duration,
    /// Whether the time limit stopped it before a fixpoint.
    pub truncated: bool,
}

/// The first finding of `cases` judged together, with the place of the program it is given
/// to: a finding only the fused shader shows ([`Finding::fused`]), or a program's own.
pub fn first_finding(cases: &[Case], opts: &OracleOptions) -> Option<(usize, Finding)> {
    let judged = oracle::judge_cases(cases, opts);
    judged
        .into_iter()
        .enumerate()
        .find_map(|(k, j)| match j.verdict {
            Verdict::Finding(f) => Some((k, *f)),
            _ => None,
        })
}

/// Whether `cases` judged together show a fused finding of signature `sig`.
fn shows(cases: &[Case], opts: &OracleOptions, sig: &str) -> bool {
    oracle::judge_cases(cases, opts)
        .into_iter()
        .any(|j| matches!(j.verdict, Verdict::Finding(f) if f.fused() && f.signature() == sig))
}

/// Programs and instructions of a batch.
fn size(cases: &[Case]) -> (usize, usize) {
    let insts = cases.iter().map(|c| c.program.func.inst_count()).sum();
    (cases.len(), insts)
}

/// Reduces the batch `cases` while it shows the fused finding it shows now, within
/// `reducer`'s time limit; `Err` if it shows none.
pub fn reduce_batch(
    cases: Vec<Case>,
    opts: &OracleOptions,
    reducer: &Reducer,
) -> Result<FusedReduction, Error> {
    let start = Instant::now();
    let found = match first_finding(&cases, opts) {
        Some((_, f)) if f.fused() => f,
        Some((program, f)) => {
            return Err(Error::WrongAlone {
                program,
                finding: Box::new(f),
            })
        }
        None => return Err(Error::BatchShowsNoFinding),
    };
    let sig = found.signature();
    // Only the target that showed it: the others judged every program already.
    let opts = &OracleOptions {
        targets: vec![found.target.clone()],
        ..opts.clone()
    };
    let before = size(&cases);
    let mut runs = 0;
    let mut batch = cases;
    // The programs the bug does not need leave the batch, last first.
    for k in (0..batch.len()).rev() {
        if batch.len() <= 2 || start.elapsed() >= reducer.time_limit {
            break;
        }
        let mut fewer = batch.clone();
        fewer.remove(k);
        runs += 1;
        if shows(&fewer, opts, &sig) {
            batch = fewer;
        }
    }
    // Each program left shrinks with the others fixed, in an equal share of the time left.
    let mut truncated = false;
    for k in 0..batch.len() {
        let left = reducer.time_limit.saturating_sub(start.elapsed());
        let share = left / (batch.len() - k) as u32;
        let others = batch.clone();
        let mut pred = |c: &Case| {
            let mut tried = others.clone();
            tried[k] = c.clone();
            runs += 1;
            shows(&tried, opts, &sig)
        };
        match reducer
            .clone()
            .time_limit(share)
            .reduce(batch[k].clone(), &mut pred)
        {
            Ok(r) => {
                truncated |= r.truncated;
                batch[k] = r.case;
            }
            // Any program in its place does: an empty one.
            Err(ReduceError::EmptyIsInteresting) => {
                batch[k].program = empty_program(&batch[k].program);
            }
            Err(ReduceError::NotInteresting) => {
                return Err(Error::BatchProgramNotInteresting { program: k })
            }
        }
    }
    let finding = match first_finding(&batch, opts) {
        Some((_, f)) if f.fused() && f.signature() == sig => f,
        _ => return Err(Error::ReducedBatchLost),
    };
    Ok(FusedReduction {
        finding,
        after: size(&batch),
        cases: batch,
        before,
        runs,
        elapsed: start.elapsed(),
        truncated: truncated || start.elapsed() >= reducer.time_limit,
    })
}
