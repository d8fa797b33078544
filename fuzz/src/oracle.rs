//! The oracle: one input in, one verdict out.
//!
//! The input decodes to a case ([`crate::case`]); the reference interpreter runs the original
//! program; every registered [`Target`](crate::targets::Target) compiles and runs it its
//! own way; any word that differs, any hazard, checker error, verifier failure, compiler
//! error, panic or timeout is a [`Finding`]. The judge stands on top: the case and the targets
//! below it know nothing of it.

pub use crate::case::coverage::Coverage;
pub use crate::case::interpreter::INTERPRETER;
pub use crate::case::options::OracleOptions;
pub use crate::case::{decode, Case, CaseConfig};

use crate::cause::Cause;
use crate::finding::{Finding, FindingKind, Rejection, Verdict};
use crate::panics;
use crate::targets::{self, middle, FusedOutcome, Target};
use compiler::interp::{InterpError, RunOptions};
use compiler::ir::{self, Program};
use sim::dispatch::Results;

/// The oracle's answer for one input.
#[derive(Clone, Debug)]
pub struct Judgement {
    /// Pass, rejected or finding.
    pub verdict: Verdict,
    /// What the input exercised.
    pub coverage: Coverage,
    /// The case in the text format (configuration header and program), kept only for
    /// findings.
    pub program_text: Option<String>,
}

impl OracleOptions {
    /// What every target these options run is run on (`Target::environment`), for the
    /// records of findings.
    pub fn environment(&self) -> std::collections::BTreeMap<String, String> {
        targets::all()
            .iter()
            .filter(|p| self.runs(**p))
            .flat_map(|p| p.environment(self))
            .collect()
    }

    /// Whether `pipeline` is judged under these options.
    pub fn runs(&self, pipeline: &dyn Target) -> bool {
        if self.targets.is_empty() {
            pipeline.in_default_set()
        } else {
            self.targets.iter().any(|t| t == pipeline.name())
        }
    }
}

/// Judges a case; the finding, if any.
pub fn finding_of(case: &Case, opts: &OracleOptions) -> Option<Finding> {
    match judge(case, opts).verdict {
        Verdict::Finding(f) => Some(*f),
        _ => None,
    }
}

/// The case raw input bytes decode to, with the run's pinned knobs (`pins`, checked when they
/// were given) set on it; `None` when the bytes make no program.
pub fn decode_pinned(bytes: &[u8], pins: &[String]) -> Option<Case> {
    let mut case = decode(bytes)?;
    for kv in pins {
        // Checked on the default configuration; a knob's values do not depend on the others.
        let _ = case.config.set_checked(kv);
    }
    Some(case)
}

/// Judges raw input bytes.
pub fn judge_bytes(bytes: &[u8], opts: &OracleOptions) -> Judgement {
    match panics::catch(|| decode_pinned(bytes, &opts.pins)) {
        Ok(Some(case)) => judge(&case, opts),
        Ok(None) => Judgement {
            verdict: Verdict::Rejected(Rejection::NoProgram),
            coverage: Coverage::default(),
            program_text: None,
        },
        Err(p) => Judgement {
            verdict: panicked("generator", p),
            coverage: Coverage::default(),
            program_text: None,
        },
    }
}

/// Judges a decoded case.
pub fn judge(case: &Case, opts: &OracleOptions) -> Judgement {
    let mut coverage = Coverage::default();
    let verdict = match panics::catch(|| judge_inner(case, opts, &mut coverage)) {
        Ok(v) => v,
        Err(p) => panicked("oracle", p),
    };
    // With its configuration header, so the saved `program.ir` reproduces the finding alone.
    let program_text =
        matches!(verdict, Verdict::Finding(_)).then(|| crate::case::text::print_case(case));
    Judgement {
        verdict,
        coverage,
        program_text,
    }
}

/// How far judging one case got: a verdict, or every target passed but the fusing ones,
/// which wait for the rest of the batch.
enum Stage {
    Judged(Verdict),
    Waiting {
        expected: Results,
        optimised: Box<Program>,
        fusing: Vec<&'static dyn Target>,
    },
}

fn judge_inner(case: &Case, opts: &OracleOptions, coverage: &mut Coverage) -> Verdict {
    match stage(case, opts, coverage, false) {
        Stage::Judged(v) => v,
        Stage::Waiting { .. } => Verdict::Pass,
    }
}

/// Judges `case` on every target `opts` runs, in registry order, stopping at the first
/// finding; with `defer`, targets that fuse are left for the batch (when they would judge it).
fn stage(case: &Case, opts: &OracleOptions, coverage: &mut Coverage, defer: bool) -> Stage {
    let verdict = |v| Stage::Judged(v);
    coverage.heuristic_settings = crate::reach::settings(&case.config);
    coverage.features = Some(crate::reach::features(&case.program));
    if let Err(e) = ir::verify::verify(&case.program) {
        return verdict(finding(Finding::new(
            FindingKind::GenInvalid,
            "generator",
            e.to_string(),
        )));
    }
    let run = RunOptions {
        fuel: opts.fuel,
        ..RunOptions::default()
    };
    let expected = match INTERPRETER.with_borrow_mut(|i| i.run_with_stats(&case.program, &run)) {
        Ok((results, stats)) => {
            coverage.loop_back_edge_twice = stats.loops_taken_twice > 0;
            coverage.divergent_simd8 = stats.divergent_ifs_simd8 > 0;
            coverage.loop_passes = stats.loop_passes;
            coverage.interpreted_insts = stats.executed_insts;
            results
        }
        Err(InterpError::OutOfFuel { .. }) => {
            return verdict(Verdict::Rejected(Rejection::OutOfFuel))
        }
        Err(e) => {
            return verdict(finding(Finding::new(
                FindingKind::GenInvalid,
                "interpreter",
                e.to_string(),
            )))
        }
    };
    // The middle end runs once; every pipeline starts from its output.
    let optimised = match panics::catch(|| middle::optimise_verified(case, opts, coverage)) {
        Ok(Ok(p)) => p,
        Ok(Err(f)) => return verdict(Verdict::Finding(f)),
        Err(p) => return verdict(panicked(middle::NAME, p)),
    };
    let mut fusing = Vec::new();
    for pipeline in targets::all() {
        if !opts.runs(*pipeline) {
            continue;
        }
        if let Some(why) = pipeline.skip(case, opts, coverage) {
            coverage.skipped.push(format!("{}: {why}", pipeline.name()));
            continue;
        }
        if defer && pipeline.fuses() {
            fusing.push(*pipeline);
            continue;
        }
        if let Some(v) = run_alone(*pipeline, case, &optimised, opts, &expected, coverage) {
            return verdict(v);
        }
    }
    if fusing.is_empty() {
        return verdict(Verdict::Pass);
    }
    Stage::Waiting {
        expected,
        optimised: Box::new(optimised),
        fusing,
    }
}

/// Runs and judges one target on one case; its finding, if any.
fn run_alone(
    pipeline: &dyn Target,
    case: &Case,
    optimised: &Program,
    opts: &OracleOptions,
    expected: &Results,
    coverage: &mut Coverage,
) -> Option<Verdict> {
    let outcome = match panics::catch(|| pipeline.run(case, optimised, opts, coverage)) {
        Ok(o) => o,
        Err(p) => return Some(panicked(pipeline.name(), p)),
    };
    judged(pipeline, case, optimised, opts, expected, outcome)
}

/// The verdict on one target's outcome for a case, if it is a finding.
fn judged(
    pipeline: &dyn Target,
    case: &Case,
    optimised: &Program,
    opts: &OracleOptions,
    expected: &Results,
    outcome: Result<Results, Box<Finding>>,
) -> Option<Verdict> {
    match outcome {
        Ok(actual) => {
            let differs =
                panics::catch(|| pipeline.compare(case, optimised, opts, expected, &actual));
            match differs {
                Ok(Some(f)) => Some(finding(f)),
                Ok(None) => None,
                Err(p) => Some(panicked(pipeline.name(), p)),
            }
        }
        Err(f) => Some(Verdict::of(f)),
    }
}

/// Inputs `gpufuzz fuzz` judges together by default (`--fuse`): one, because on lavapipe
/// 22.3 and 25.0 fused shaders measured no faster end to end (0.83-1.13x at `--fuse 4` and 8,
/// docs/fusion.md): its compile time grows with the code, it is not per shader.
pub const DEFAULT_FUSE: usize = 1;

/// Judges a batch of raw inputs, one judgement each, in order. Every target judges each case
/// as [`judge_bytes`] would, except that targets that fuse ([`Target::fuses`]) run last,
/// once for all the cases still passing ([`Target::run_fused`]). A case whose fused run is
/// wrong is re-run alone: if it still fails, the finding is the case's own (and reproduces
/// from its input alone); if it passes alone, the fused shader is the finding — class
/// `fused …`, its detail says so and which batch — given to the first case it showed in
/// (a shader failing as a whole is one finding, not one per case). A batch of one is judged
/// as [`judge_bytes`] judges it.
pub fn judge_batch(inputs: &[&[u8]], opts: &OracleOptions) -> Vec<Judgement> {
    if let [bytes] = inputs {
        return vec![judge_bytes(bytes, opts)];
    }
    let decoded = inputs
        .iter()
        .map(
            |bytes| match panics::catch(|| decode_pinned(bytes, &opts.pins)) {
                Ok(Some(case)) => Ok(case),
                _ => Err(Box::new(judge_bytes(bytes, opts))),
            },
        )
        .collect();
    judge_decoded(decoded, opts)
}

/// Judges decoded cases together, as [`judge_batch`] judges the inputs they decode from: a
/// fused finding's batch read back from its files (`gpufuzz repro DIR/batch`), or the batch a
/// reduction tries.
pub fn judge_cases(cases: &[Case], opts: &OracleOptions) -> Vec<Judgement> {
    if let [case] = cases {
        return vec![judge(case, opts)];
    }
    judge_decoded(cases.iter().cloned().map(Ok).collect(), opts)
}

/// [`judge_batch`] after decoding: each input's case, or its judgement already (an input
/// that decodes to no program takes no part in the fused run).
fn judge_decoded(
    decoded: Vec<Result<Case, Box<Judgement>>>,
    opts: &OracleOptions,
) -> Vec<Judgement> {
    let mut judgements = Vec::with_capacity(decoded.len());
    let mut waiting = Vec::new();
    let mut cases = Vec::with_capacity(decoded.len());
    for d in decoded {
        let case = match d {
            Ok(case) => case,
            Err(judged) => {
                judgements.push(*judged);
                cases.push(None);
                continue;
            }
        };
        let mut coverage = Coverage::default();
        let verdict = match panics::catch(|| stage(&case, opts, &mut coverage, true)) {
            Ok(Stage::Judged(v)) => v,
            Ok(Stage::Waiting {
                expected,
                optimised,
                fusing,
            }) => {
                waiting.push(Waiting {
                    index: judgements.len(),
                    case: case.clone(),
                    expected,
                    optimised: *optimised,
                    fusing,
                });
                Verdict::Pass
            }
            Err(p) => panicked("oracle", p),
        };
        judgements.push(Judgement {
            verdict,
            coverage,
            program_text: None,
        });
        cases.push(Some(case));
    }
    for pipeline in targets::all().iter().filter(|p| p.fuses()) {
        let members: Vec<_> = waiting
            .iter()
            .filter(|w| {
                w.fusing.iter().any(|p| p.name() == pipeline.name())
                    && matches!(judgements[w.index].verdict, Verdict::Pass)
            })
            .collect();
        if members.is_empty() {
            continue;
        }
        let cases: Vec<(&Case, &Program)> =
            members.iter().map(|w| (&w.case, &w.optimised)).collect();
        let failed = |f| FusedOutcome {
            outcome: Err(f),
            shared: true,
        };
        let outcomes = match panics::catch(|| pipeline.run_fused(&cases, opts)) {
            Ok(o) if o.len() == cases.len() => o,
            Ok(o) => vec![failed(wrong_count(*pipeline, o.len(), cases.len())); cases.len()],
            Err(p) => {
                let Verdict::Finding(f) = panicked(pipeline.name(), p) else {
                    unreachable!("a panic is a finding")
                };
                vec![failed(f); cases.len()]
            }
        };
        let mut shown = std::collections::BTreeSet::new();
        for (position, (w, fused)) in members.iter().zip(outcomes).enumerate() {
            let Waiting {
                index,
                case,
                expected,
                optimised,
                ..
            } = *w;
            let verdict = judged(*pipeline, case, optimised, opts, expected, fused.outcome);
            let fused_finding = match verdict {
                Some(Verdict::Finding(f)) => f,
                Some(broken @ Verdict::Broken(_)) => {
                    judgements[*index].verdict = broken;
                    continue;
                }
                _ => continue,
            };
            if !fused.shared {
                judgements[*index].verdict = Verdict::Finding(fused_finding);
                continue;
            }
            let fused = fused_finding;
            let coverage = &mut judgements[*index].coverage;
            let verdict = match run_alone(*pipeline, case, optimised, opts, expected, coverage) {
                Some(alone) => alone,
                None if shown.insert(fused.signature()) => {
                    only_fused(*fused, position, members.len())
                }
                None => continue,
            };
            judgements[*index].verdict = verdict;
        }
    }
    for (j, case) in judgements.iter_mut().zip(&cases) {
        if matches!(j.verdict, Verdict::Finding(_)) && j.program_text.is_none() {
            j.program_text = case.as_ref().map(crate::case::text::print_case);
        }
    }
    judgements
}

/// A case that passed every target but the fusing ones, waiting for the rest of its batch.
struct Waiting {
    /// Its place in the batch.
    index: usize,
    case: Case,
    expected: Results,
    optimised: Program,
    /// The fusing targets that judge it.
    fusing: Vec<&'static dyn Target>,
}

/// The finding of a fused shader that the case at `position` of `of` shows only fused.
fn only_fused(mut f: Finding, position: usize, of: usize) -> Verdict {
    f.detail = format!(
        "{} — only in a fused shader: program {} of the {of} fused (the inputs before and \
         after it in the batch), it passes alone",
        f.detail,
        position + 1
    );
    let cause = f.cause.take().map(Box::new);
    f.set_cause(Cause::Fused { cause });
    finding(f)
}

/// A target's fused run that did not answer once per case: our bug, on every case.
fn wrong_count(pipeline: &dyn Target, got: usize, want: usize) -> Box<Finding> {
    crate::targets::caused(
        pipeline.name(),
        FindingKind::Panic,
        format!("run_fused answered {got} times for {want} cases"),
        Cause::named("run_fused"),
    )
}

fn finding(f: Finding) -> Verdict {
    Verdict::Finding(Box::new(f))
}

/// A panic in `target`, bucketed by where it panicked.
fn panicked(target: &str, p: panics::Caught) -> Verdict {
    let cause = Cause::Panic {
        location: p.location,
    };
    Verdict::Finding(crate::targets::caused(
        target,
        FindingKind::Panic,
        p.message,
        cause,
    ))
}
