//! The oracle: one input in, one verdict out.
//!
//! The input decodes to a case ([`crate::case`]); the reference interpreter runs the original
//! program; every registered [`Pipeline`](crate::pipelines::Pipeline) compiles and runs it its
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
use crate::pipelines::{self, middle, Pipeline};
use compiler::interp::{InterpError, RunOptions};
use compiler::ir;

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
    /// What every target these options run is run on (`Pipeline::environment`), for the
    /// records of findings.
    pub fn environment(&self) -> std::collections::BTreeMap<String, String> {
        pipelines::all()
            .iter()
            .filter(|p| self.runs(**p))
            .flat_map(|p| p.environment(self))
            .collect()
    }

    /// Whether `pipeline` is judged under these options.
    pub fn runs(&self, pipeline: &dyn Pipeline) -> bool {
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

/// Judges raw input bytes.
pub fn judge_bytes(bytes: &[u8], opts: &OracleOptions) -> Judgement {
    match panics::catch(|| decode(bytes)) {
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

fn judge_inner(case: &Case, opts: &OracleOptions, coverage: &mut Coverage) -> Verdict {
    coverage.heuristic_settings = crate::reach::settings(&case.config);
    if let Err(e) = ir::verify::verify(&case.program) {
        return finding(Finding::new(
            FindingKind::GenInvalid,
            "generator",
            e.to_string(),
        ));
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
        Err(InterpError::OutOfFuel { .. }) => return Verdict::Rejected(Rejection::OutOfFuel),
        Err(e) => {
            return finding(Finding::new(
                FindingKind::GenInvalid,
                "interpreter",
                e.to_string(),
            ))
        }
    };
    // The middle end runs once; every pipeline starts from its output.
    let optimised = match panics::catch(|| middle::optimise_verified(case, opts, coverage)) {
        Ok(Ok(p)) => p,
        Ok(Err(f)) => return Verdict::Finding(f),
        Err(p) => return panicked(middle::NAME, p),
    };
    for pipeline in pipelines::all() {
        if !opts.runs(*pipeline) {
            continue;
        }
        if let Some(why) = pipeline.skip(case, opts, coverage) {
            coverage.skipped.push(format!("{}: {why}", pipeline.name()));
            continue;
        }
        let outcome = match panics::catch(|| pipeline.run(case, &optimised, opts, coverage)) {
            Ok(o) => o,
            Err(p) => return panicked(pipeline.name(), p),
        };
        match outcome {
            Ok(actual) => {
                let differs =
                    panics::catch(|| pipeline.compare(case, &optimised, opts, &expected, &actual));
                match differs {
                    Ok(Some(f)) => return finding(f),
                    Ok(None) => {}
                    Err(p) => return panicked(pipeline.name(), p),
                }
            }
            Err(f) => return Verdict::Finding(f),
        }
    }
    Verdict::Pass
}

fn finding(f: Finding) -> Verdict {
    Verdict::Finding(Box::new(f))
}

/// A panic in `target`, bucketed by where it panicked.
fn panicked(target: &str, p: panics::Caught) -> Verdict {
    let cause = Cause::Panic {
        location: p.location,
    };
    Verdict::Finding(crate::pipelines::caused(
        target,
        FindingKind::Panic,
        p.message,
        cause,
    ))
}
