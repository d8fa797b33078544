//! Bisection: which pass first makes a finding appear.
//!
//! Two ways, as DESIGN.md says. **By limit** (LLVM's `-opt-bisect-limit`): the middle end
//! runs only its first `N` optional pass runs ([`OracleOptions::pass_limit`]); the smallest
//! `N` at which the same finding (kind, target, class) shows names run `N - 1` of the full
//! pipeline's run list. If the finding shows even at `N = 0`, no optional pass is to blame:
//! the fixed part is (out-of-SSA for the middle end, or the backend). **Directly**, for the
//! middle end: interpret the IR after every pass run (the `after_pass` hook) and after
//! out-of-SSA, and name the first whose results differ from the original's.
//!
//! Verifier findings already name their pass. Backends may add their own limits later; the
//! answer stays a pass name (`first_bad_pass: Option<String>`).

use crate::signature::finding_of;
use compiler::interp::{self, RunOptions};
use compiler::ir::Program;
use compiler::passes::pipeline::{self, PassConfig, PipelineOptions};
use fuzz::finding::{Finding, FindingKind};
use fuzz::oracle::{Case, OracleOptions};
use fuzz::pipelines::middle::disabled_passes;
use serde::Serialize;

/// The name blamed when a finding shows with no optional pass run and the middle end's own
/// re-interpretation confirms out-of-SSA.
pub const FROM_SSA: &str = "from_ssa";

/// Everything bisection learned about one case.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Bisection {
    /// The blamed pass (see the module doc).
    pub first_bad_pass: Option<String>,
    /// The smallest pass limit at which the finding shows (`Some(0)`: with no optional pass).
    pub limit: Option<usize>,
    /// The optional pass runs of the full pipeline, in order.
    pub runs: Vec<String>,
    /// The middle end checked directly: the first pass after which the IR's results differ
    /// from the original's (`from_ssa` included), with its run index.
    pub direct: Option<(usize, String)>,
    /// Oracle runs spent.
    pub judgements: usize,
}

/// The optional pass runs the case's full middle end makes, by name.
pub fn pass_runs(case: &Case, opts: &OracleOptions) -> Vec<String> {
    let mut p = case.program.clone();
    let mut popts = pipeline_options(case, opts, None);
    match pipeline::run_pipeline(&mut p, &mut popts) {
        Ok(report) => report.runs.iter().map(|r| r.name.to_string()).collect(),
        Err(_) => Vec::new(),
    }
}

fn pipeline_options<'a>(
    case: &Case,
    opts: &OracleOptions,
    limit: Option<usize>,
) -> PipelineOptions<'a> {
    PipelineOptions {
        limit,
        verify: false,
        disabled: disabled_passes(case),
        config: PassConfig {
            plants: opts.plants,
        },
        after_pass: None,
    }
}

/// Bisects by limit; the smallest limit showing `f` again, and the run list.
fn by_limit(case: &Case, opts: &OracleOptions, f: &Finding) -> (Option<usize>, Vec<String>, usize) {
    let runs = pass_runs(case, opts);
    let mut judged = 0;
    let mut shows = |n: usize| {
        judged += 1;
        let o = OracleOptions {
            pass_limit: Some(n),
            ..opts.clone()
        };
        finding_of(case, &o)
            .is_some_and(|g| g.kind == f.kind && g.target == f.target && g.class == f.class)
    };
    if shows(0) {
        return (Some(0), runs, judged);
    }
    let (mut lo, mut hi) = (0, runs.len());
    if !shows(hi) {
        return (None, runs, judged);
    }
    // Invariant: absent at `lo`, present at `hi`.
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if shows(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    (Some(hi), runs, judged)
}

/// The pass to blame for `f` on `case` (cheap: bisection by limit only). Used by the
/// reducer for every candidate.
pub fn first_bad_pass(case: &Case, opts: &OracleOptions, f: &Finding) -> Option<String> {
    if f.kind == FindingKind::Verify {
        return f.pass.clone();
    }
    let (limit, runs, _) = by_limit(case, opts, f);
    blame(limit?, &runs, || direct_from_ssa(case, opts))
}

fn blame(limit: usize, runs: &[String], fixed: impl FnOnce() -> bool) -> Option<String> {
    match limit {
        0 => fixed().then(|| FROM_SSA.to_string()),
        n => runs.get(n - 1).cloned(),
    }
}

/// Whether, with no optional pass, out-of-SSA alone changes the results.
fn direct_from_ssa(case: &Case, opts: &OracleOptions) -> bool {
    let Ok(expected) = interp::run(&case.program, &run_options(opts)) else {
        return false;
    };
    let mut p = case.program.clone();
    let config = PassConfig {
        plants: opts.plants,
    };
    if pipeline::to_registers(&mut p, false, &config).is_err() {
        return true;
    }
    differs(&p, &expected, opts)
}

fn run_options(opts: &OracleOptions) -> RunOptions {
    RunOptions {
        fuel: opts.fuel.saturating_mul(4),
        ..RunOptions::default()
    }
}

fn differs(p: &Program, expected: &sim::dispatch::Results, opts: &OracleOptions) -> bool {
    match interp::run(p, &run_options(opts)) {
        Ok(r) => expected.first_difference(&r, &p.dispatch).is_some(),
        Err(_) => true,
    }
}

/// Full bisection: by limit, and directly for the middle end.
pub fn bisect(case: &Case, opts: &OracleOptions, f: &Finding) -> Bisection {
    let (limit, runs, judgements) = by_limit(case, opts, f);
    let direct = direct(case, opts);
    let first_bad_pass = if f.kind == FindingKind::Verify {
        f.pass.clone()
    } else if f.target != "middle" && direct.is_none() {
        // The middle end's output is right after every pass: the backend is at fault, not
        // whichever middle-end pass happened to make the shape it mishandles.
        None
    } else {
        limit.and_then(|n| {
            blame(n, &runs, || {
                direct.as_ref().is_some_and(|(_, name)| name == FROM_SSA)
                    || direct_from_ssa(case, opts)
            })
        })
    };
    Bisection {
        first_bad_pass,
        limit,
        runs,
        direct,
        judgements,
    }
}

/// Interprets the IR after every middle-end pass run and after out-of-SSA; the first run
/// whose results differ from the original program's.
pub fn direct(case: &Case, opts: &OracleOptions) -> Option<(usize, String)> {
    let expected = interp::run(&case.program, &run_options(opts)).ok()?;
    let mut first: Option<(usize, String)> = None;
    let mut index = 0;
    let mut hook = |name: &str, p: &Program| {
        if first.is_none() && differs(p, &expected, opts) {
            first = Some((index, name.to_string()));
        }
        index += 1;
    };
    let mut p = case.program.clone();
    let mut popts = pipeline_options(case, opts, None);
    popts.after_pass = Some(&mut hook);
    let ok = pipeline::run_pipeline(&mut p, &mut popts).is_ok();
    drop(popts);
    if first.is_some() || !ok {
        return first;
    }
    let config = PassConfig {
        plants: opts.plants,
    };
    let broken = pipeline::to_registers(&mut p, false, &config).is_err();
    (broken || differs(&p, &expected, opts)).then(|| (index, FROM_SSA.to_string()))
}
