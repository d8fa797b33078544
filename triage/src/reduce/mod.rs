//! The reducer: shrinks a program while it stays interesting, by IR-aware passes applied to
//! a fixpoint (in the manner of spirv-reduce and wasm-shrink).
//!
//! It first checks that the input is interesting at all; every candidate is verified before
//! it is run; candidates already seen (by printed text) are not run again; the whole run is
//! bounded by a wall-clock limit and a candidate count. "Interesting" is the caller's
//! predicate — triage uses "shows the same signature", not "fails somehow".

pub mod edit;
pub mod passes;

use compiler::ir::{text, verify, Program};
use passes::{Candidate, PASSES};
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// Reducer settings.
#[derive(Clone, Debug)]
pub struct Reducer {
    /// Give up improving after this long (the best program so far is returned).
    pub time_limit: Duration,
    /// Give up after this many candidate runs.
    pub max_runs: usize,
    /// Print progress to stderr every so often.
    pub progress: bool,
}

impl Default for Reducer {
    fn default() -> Self {
        Reducer {
            time_limit: Duration::from_secs(30),
            max_runs: 20_000,
            progress: false,
        }
    }
}

/// The outcome of a reduction.
#[derive(Clone, Debug)]
pub struct Reduced {
    /// The smallest interesting program found.
    pub program: Program,
    /// Instructions before.
    pub before: usize,
    /// Instructions after.
    pub after: usize,
    /// Candidates run through the predicate.
    pub runs: usize,
    /// Candidates kept.
    pub accepted: usize,
    /// Wall-clock time spent.
    pub elapsed: Duration,
    /// Whether a limit stopped it before a fixpoint.
    pub truncated: bool,
}

/// Why nothing could be reduced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReduceError {
    /// The input itself is not interesting.
    NotInteresting,
}

impl std::fmt::Display for ReduceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReduceError::NotInteresting => {
                f.write_str("the input does not show the behaviour to keep")
            }
        }
    }
}

impl Reducer {
    /// Shrinks `p` while `interesting` holds.
    pub fn reduce(
        &self,
        p: Program,
        interesting: &mut dyn FnMut(&Program) -> bool,
    ) -> Result<Reduced, ReduceError> {
        let start = Instant::now();
        if !interesting(&p) {
            return Err(ReduceError::NotInteresting);
        }
        let before = p.func.inst_count();
        let mut best = p;
        let mut seen: HashSet<String> = HashSet::new();
        seen.insert(text::print_program(&best));
        let (mut runs, mut accepted, mut truncated) = (0, 0, false);
        let mut last_report = Instant::now();
        'fixpoint: loop {
            let mut changed = false;
            for &(name, pass) in PASSES {
                let mut index = 0;
                while let Some(candidate) = pass(&best, index) {
                    if start.elapsed() > self.time_limit || runs >= self.max_runs {
                        truncated = true;
                        break 'fixpoint;
                    }
                    let Candidate::Try(q) = candidate else {
                        index += 1;
                        continue;
                    };
                    if verify::verify(&q).is_err() || !seen.insert(text::print_program(&q)) {
                        index += 1;
                        continue;
                    }
                    runs += 1;
                    if interesting(&q) {
                        best = *q;
                        accepted += 1;
                        changed = true;
                    } else {
                        index += 1;
                    }
                    if self.progress && last_report.elapsed() > Duration::from_secs(2) {
                        eprintln!(
                            "reduce: {} instructions ({name}), {runs} runs, {accepted} kept, {:.1}s",
                            best.func.inst_count(),
                            start.elapsed().as_secs_f64()
                        );
                        last_report = Instant::now();
                    }
                }
            }
            if !changed {
                break;
            }
        }
        Ok(Reduced {
            after: best.func.inst_count(),
            program: best,
            before,
            runs,
            accepted,
            elapsed: start.elapsed(),
            truncated,
        })
    }
}
