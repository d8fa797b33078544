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
//! Verifier findings already name their pass.
//!
//! **Backend findings** (any target but `middle`) first ask the middle end directly: a
//! middle-end pass is blamed only when the IR after it interprets wrong. When the IR stays
//! right everywhere, the bug is the backend's, and [`backend_pass`] names the backend step
//! from the target's own step table ([`fuzz::targets::Target::steps`]): a fixed step by
//! the checker that caught its output (the allocation checkers run on the allocated program,
//! the simulators' hazard checks on the legalized one: output wrong after that step, while the
//! IR before the backend is right), an optional step by switching it off and seeing the
//! finding vanish (output right without it, wrong with it); a Gen mismatch that neither
//! explains is `gen_lower`'s (the allocation checker accepted the allocation of what lowering
//! made, so lowering made wrong code). The answer stays a pass name (`first_bad_pass:
//! Option<String>`), with its evidence.

use compiler::interp::{self, RunOptions};
use compiler::ir::Program;
use compiler::passes::pipeline::{self, PassConfig, PipelineOptions};
use fuzz::finding::{Finding, FindingKind};
use fuzz::oracle::{finding_of, Case, OracleOptions};
use fuzz::targets::middle::{self, disabled_passes};
use fuzz::targets::{self, CheckedStep, Target, LOWER_BIT_OPS};
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
    /// Why the blamed pass is blamed: what was right before it and wrong after it.
    pub evidence: Option<String>,
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
        input_verified: false,
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

/// The pass to blame for `f` on `case` (cheap: no full report). Used by the reducer for
/// every candidate.
pub fn first_bad_pass(case: &Case, opts: &OracleOptions, f: &Finding) -> Option<String> {
    blamed(case, opts, f).map(|(pass, _)| pass)
}

/// The blamed pass and its evidence (see the module doc).
fn blamed(case: &Case, opts: &OracleOptions, f: &Finding) -> Option<(String, String)> {
    if f.kind == FindingKind::Verify {
        let pass = f.pass.clone()?;
        return Some((pass, "the IR verifier rejects the IR after it".into()));
    }
    if f.target == fuzz::worker::PROCESS {
        return None;
    }
    if f.target != middle::NAME {
        if let Some((i, name)) = direct(case, opts) {
            let why = format!(
                "the IR interprets right before run {i} ({name}) and wrong after it, so the \
                 middle end is at fault whichever target showed it"
            );
            return Some((name, why));
        }
        if lowering_breaks(case, opts, f) {
            let why = "the IR interprets right after every middle-end pass and out-of-SSA, and \
                       wrong after lower_bit_ops, the backend's first step"
                .to_string();
            return Some((LOWER_BIT_OPS.name.to_string(), why));
        }
        return backend_pass(case, opts, f);
    }
    let (limit, runs, _) = by_limit(case, opts, f);
    let n = limit?;
    let pass = blame(n, &runs, || direct_from_ssa(case, opts))?;
    let why = if n == 0 {
        "with no optional pass run, out-of-SSA alone changes the results".to_string()
    } else {
        format!(
            "the finding shows with the first {n} optional pass runs, not with {}",
            n - 1
        )
    };
    Some((pass, why))
}

/// The backend step to blame for `f`, a finding of a backend target on a case whose IR
/// interprets right after every middle-end pass and out-of-SSA; with the evidence. The target
/// says which of its steps the check that caught `f` names ([`Target::checked_step`]), which
/// steps can be switched off ([`Target::optional_steps`]), and which of the two to ask first
/// ([`Target::switch_first`]).
pub fn backend_pass(case: &Case, opts: &OracleOptions, f: &Finding) -> Option<(String, String)> {
    let target = targets::by_name(&f.target)?;
    if target.switch_first(f) {
        switched_off(target, case, opts, f).or_else(|| checked(target, f))
    } else {
        checked(target, f).or_else(|| switched_off(target, case, opts, f))
    }
}

/// A fixed backend step named by the check that caught its output.
fn checked(target: &dyn Target, f: &Finding) -> Option<(String, String)> {
    let CheckedStep { step, by } = target.checked_step(f)?;
    let class = f.class.as_deref().unwrap_or("");
    let why = format!(
        "the IR is right after every middle-end pass; {by} flags the backend's output ({}: \
         {class})",
        f.kind
    );
    Some((step.name.to_string(), why))
}

/// The first optional backend step the case has on whose switching off makes the finding go.
fn switched_off(
    target: &dyn Target,
    case: &Case,
    opts: &OracleOptions,
    f: &Finding,
) -> Option<(String, String)> {
    let optional = target
        .optional_steps()
        .iter()
        .find(|o| (o.on)(&case.config))?;
    let mut without = case.clone();
    (optional.switch_off)(&mut without.config);
    if shows_again(&without, opts, f) {
        return None;
    }
    let pass = optional.step.name;
    let why = format!(
        "the IR is right after every middle-end pass; with {pass} switched off the backend's \
         output is right on {}, with it on: {}",
        f.target, f.kind
    );
    Some((pass.to_string(), why))
}

/// Whether `case` still shows a finding of `f`'s target.
fn shows_again(case: &Case, opts: &OracleOptions, f: &Finding) -> bool {
    let only = OracleOptions {
        targets: vec![f.target.clone()],
        ..opts.clone()
    };
    finding_of(case, &only).is_some_and(|g| g.target == f.target)
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

/// Whether `f`'s target starts with [`LOWER_BIT_OPS`] and the IR it hands on (the case's
/// middle end, out of SSA, then expanded) interprets wrong.
fn lowering_breaks(case: &Case, opts: &OracleOptions, f: &Finding) -> bool {
    let lowers = targets::by_name(&f.target).is_some_and(|t| t.steps().contains(&LOWER_BIT_OPS));
    if !lowers {
        return false;
    }
    let Ok(expected) = interp::run(&case.program, &run_options(opts)) else {
        return false;
    };
    let mut p = case.program.clone();
    let config = PassConfig {
        plants: opts.plants,
    };
    let prepared = pipeline::run_pipeline(&mut p, &mut pipeline_options(case, opts, None)).is_ok()
        && pipeline::to_registers(&mut p, false, &config).is_ok();
    prepared && {
        compiler::passes::lower_bit_ops::lower_bit_ops(&mut p.func, opts.plants);
        differs(&p, &expected, opts)
    }
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

/// Full bisection: by limit, directly for the middle end, and the blame with its evidence.
pub fn bisect(case: &Case, opts: &OracleOptions, f: &Finding) -> Bisection {
    let (limit, runs, judgements) = by_limit(case, opts, f);
    let direct = direct(case, opts);
    let blame = blamed(case, opts, f);
    Bisection {
        first_bad_pass: blame.as_ref().map(|(pass, _)| pass.clone()),
        evidence: blame.map(|(_, why)| why),
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
