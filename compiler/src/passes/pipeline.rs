//! The pass manager: one table of named passes, the default pipeline, verification after
//! every pass, a record of which passes fired, and a bisection limit.
//!
//! The default pipeline is `lower_vars_to_ssa` once, then the optimisation loop
//! ([`OPT_LOOP`]) repeated until a whole round changes nothing (or [`MAX_ROUNDS`] rounds).
//! Out-of-SSA is not part of it: backends call [`to_registers`] when they want register form.
//!
//! Bisection follows LLVM's `-opt-bisect-limit`: with `limit: Some(n)` only the first `n`
//! pass *runs* happen (each run of a pass in the loop counts once), so running with
//! `n = 0, 1, 2, …` finds the first run after which a program misbehaves; the report names
//! it. Disabled passes are skipped without counting. With `verify`, the verifier runs after
//! every pass run and a failure is an error naming that pass (the fuzz oracle's `verify`
//! finding).
//!
//! A pass is a deterministic function of the function and the configuration, and one that
//! reports no change leaves the function exactly as it was (the property tests check this).
//! So a pass whose last run changed nothing, with no change by any pass since, would change
//! nothing again: that run is recorded as it would happen (unchanged, counted against the
//! limit, shown to `after_pass`) without calling the pass. The last round of the loop, and
//! passes late in a round that only earlier passes fed, are mostly such runs.

use super::from_ssa::FromSsaError;
use crate::ir::{Function, Program};

pub use super::config::PassConfig;

/// A pass as the table holds it: returns whether it changed the function.
pub type PassFn = fn(&mut Function, &PassConfig) -> bool;

/// Every optional pass, by name, in default order. The fuzzer toggles them by name.
pub const PASSES: &[(&str, PassFn)] = &[
    ("lower_vars_to_ssa", |f, _| super::lower_vars_to_ssa(f)),
    ("opt_remove_phis", super::opt_remove_phis::remove_phis_with),
    ("opt_copy_prop", |f, _| super::copy_prop(f)),
    ("opt_constant_folding", |f, _| super::fold_constants(f)),
    ("opt_algebraic", super::opt_algebraic::algebraic_with),
    ("opt_cse", super::opt_cse::cse_with),
    ("opt_dead_cf", |f, _| super::remove_dead_cf(f)),
    ("opt_dce", super::opt_dce::dce_with),
    ("opt_shrink_vectors", |f, _| super::shrink_vectors(f)),
];

/// Passes run once before the loop.
pub const PROLOGUE: &[&str] = &["lower_vars_to_ssa"];

/// The optimisation loop, in order; repeated until a round makes no progress.
pub const OPT_LOOP: &[&str] = &[
    "opt_remove_phis",
    "opt_copy_prop",
    "opt_constant_folding",
    "opt_algebraic",
    "opt_cse",
    "opt_dead_cf",
    "opt_dce",
    "opt_shrink_vectors",
];

/// Most rounds of the optimisation loop (a safety net: every pass only shrinks the program
/// or narrows values, so the loop settles long before).
pub const MAX_ROUNDS: usize = 32;

/// Looks a pass up by name.
pub fn pass(name: &str) -> Option<PassFn> {
    PASSES.iter().find(|(n, _)| *n == name).map(|&(_, f)| f)
}

/// A `print-after-all` hook: pass name and the program after it.
pub type AfterPass<'a> = dyn FnMut(&str, &Program) + 'a;

/// How to run the pipeline.
#[derive(Default)]
pub struct PipelineOptions<'a> {
    /// Run only the first `n` pass runs (bisection); `None` runs them all.
    pub limit: Option<usize>,
    /// Verify the program after every pass run.
    pub verify: bool,
    /// The caller has just verified the input (the fuzz oracle does, to blame the generator
    /// for an invalid program), so `verify` does not check it again before the first pass.
    pub input_verified: bool,
    /// Names of passes to skip (the fuzzer randomises them).
    pub disabled: Vec<String>,
    /// Handed to every pass.
    pub config: PassConfig,
    /// Called after every pass run with the pass name and the program (`print-after-all`).
    pub after_pass: Option<&'a mut AfterPass<'a>>,
}

/// One pass run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassRun {
    /// The pass.
    pub name: &'static str,
    /// Whether it changed the program.
    pub changed: bool,
    /// Placed instructions after it.
    pub insts_after: usize,
}

/// What a pipeline run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PipelineReport {
    /// Every pass run, in order (skipped passes are absent).
    pub runs: Vec<PassRun>,
    /// Rounds of the optimisation loop started.
    pub rounds: usize,
    /// Whether the limit stopped the pipeline early.
    pub limit_hit: bool,
}

impl PipelineReport {
    /// How many runs of `name` changed the program (the fuzzer's pass-firing table).
    pub fn fired(&self, name: &str) -> usize {
        self.runs
            .iter()
            .filter(|r| r.name == name && r.changed)
            .count()
    }
}

/// Why the pipeline stopped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PipelineError {
    /// The verifier rejected the program after a pass.
    #[error("verifier failed after {pass} (run {run}): {message}")]
    Verify {
        /// The pass that broke the program.
        pass: &'static str,
        /// Its index in the run list (what a bisection limit of `run + 1` reproduces).
        run: usize,
        /// The verifier's report.
        message: String,
    },
    /// The program was invalid before any pass ran.
    #[error("invalid input program: {0}")]
    InvalidInput(String),
    /// A disabled or requested pass name is not in the table.
    #[error("unknown pass {0:?}")]
    UnknownPass(String),
    /// Out-of-SSA failed.
    #[error("from_ssa: {0}")]
    FromSsa(#[from] FromSsaError),
}

/// Verifies a program, rendering the errors as text.
pub fn check(p: &Program) -> Result<(), String> {
    crate::ir::verify(p).map_err(|e| e.to_string())
}

/// Runs the default pipeline on `p`.
pub fn run_pipeline(
    p: &mut Program,
    opts: &mut PipelineOptions<'_>,
) -> Result<PipelineReport, PipelineError> {
    if let Some(bad) = opts.disabled.iter().find(|n| pass(n).is_none()) {
        return Err(PipelineError::UnknownPass(bad.clone()));
    }
    // Passes are only verified when they change something, so an invalid input must be
    // caught here rather than blamed on the first pass that touches it.
    if opts.verify && !opts.input_verified {
        check(p).map_err(PipelineError::InvalidInput)?;
    }
    let mut report = PipelineReport::default();
    let mut settled = Settled::default();
    for name in PROLOGUE {
        if !run_one(p, name, opts, &mut report, &mut settled)? {
            return Ok(report);
        }
    }
    while report.rounds < MAX_ROUNDS {
        report.rounds += 1;
        let before = report.runs.len();
        for name in OPT_LOOP {
            if !run_one(p, name, opts, &mut report, &mut settled)? {
                return Ok(report);
            }
        }
        if !report.runs[before..].iter().any(|r| r.changed) {
            break;
        }
    }
    Ok(report)
}

/// The passes (as bits by index in [`PASSES`]) whose last run changed nothing, with no
/// change by any pass since: running one of them again would change nothing either.
#[derive(Default)]
struct Settled(u32);

const _: () = assert!(PASSES.len() <= 32, "Settled holds one bit per pass");

impl Settled {
    fn has(&self, pass: usize) -> bool {
        self.0 & (1 << pass) != 0
    }

    fn record(&mut self, pass: usize, changed: bool) {
        self.0 = if changed { 0 } else { self.0 | (1 << pass) };
    }
}

/// Runs one pass unless disabled; returns `false` once the limit stops the pipeline.
fn run_one(
    p: &mut Program,
    name: &str,
    opts: &mut PipelineOptions<'_>,
    report: &mut PipelineReport,
    settled: &mut Settled,
) -> Result<bool, PipelineError> {
    if opts.disabled.iter().any(|d| d == name) {
        return Ok(true);
    }
    if opts.limit.is_some_and(|n| report.runs.len() >= n) {
        report.limit_hit = true;
        return Ok(false);
    }
    let index = PASSES
        .iter()
        .position(|(n, _)| *n == name)
        .ok_or_else(|| PipelineError::UnknownPass(name.to_string()))?;
    let (name, f) = PASSES[index];
    let changed = !settled.has(index) && f(&mut p.func, &opts.config);
    settled.record(index, changed);
    report.runs.push(PassRun {
        name,
        changed,
        insts_after: p.func.inst_count(),
    });
    if let Some(cb) = opts.after_pass.as_mut() {
        cb(name, p);
    }
    // A pass that changed nothing cannot have broken the IR; skipping those verifications
    // halves the middle end's cost in the fuzz loop.
    if opts.verify && changed {
        check(p).map_err(|message| PipelineError::Verify {
            pass: name,
            run: report.runs.len() - 1,
            message,
        })?;
    }
    Ok(true)
}

/// Out-of-SSA (the "to register form" step), verified afterwards when asked.
pub fn to_registers(
    p: &mut Program,
    verify: bool,
    config: &PassConfig,
) -> Result<bool, PipelineError> {
    let changed = super::from_ssa::from_ssa_with(&mut p.func, config)?;
    if verify {
        check(p).map_err(|message| PipelineError::Verify {
            pass: "from_ssa",
            run: 0,
            message,
        })?;
    }
    Ok(changed)
}
