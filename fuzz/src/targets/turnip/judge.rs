//! The turnip target's verdict on one compiled case: ir3's code run on our executor
//! ([`super::execute`]) against the interpreter, and ir3's own delay and sync rules checked as
//! it runs. Before a difference or a hazard is called ir3's, the case is run again
//! ([`corroborate`]): with ir3's switches changed, on a GPU of the other generation, and
//! through our own a6xx pipeline.
//!
//! Whose is it?
//! * a **difference** survives — is ir3's [`FindingKind::Mismatch`] — when our a6xx pipeline
//!   agrees with the interpreter and another ir3 build of the program for the same GPU (its
//!   switches changed) runs to the end on our executor and agrees: the executor then models
//!   what the program needs on that GPU's dispatch. A
//!   difference every ir3 build shows is more likely our decoder's or executor's than ir3's
//!   and stays [`FindingKind::Unconfirmed`];
//! * a **hazard** is ir3's [`FindingKind::Hazard`] when another ir3 build for the same GPU
//!   runs clean of hazards (our reading of the rules is then not wrong for every program),
//!   else unconfirmed. The other generation's build is reported, not counted.

use super::agree::Code;
use super::execute::{budget, execute, Executed, NotRun};
use super::knobs::TurnipKnobs;
use crate::case::coverage::Coverage;
use crate::case::interpreter::INTERPRETER;
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::cause::Cause;
use crate::finding::{Finding, FindingKind, Mismatch};
use crate::targets::driver::compile_only::{compile, Capture};
use crate::targets::{caused, Target};
use compiler::executed::Executed as Reach;
use compiler::interp::RunOptions;
use compiler::ir::Program;
use compiler::profile::{self, Phase};
use sim::dispatch::Results;
use sim::ir3::exec::{Hazard, Stop};
use std::fmt;

/// What one other run of the case gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It ran to the end, agrees with the interpreter and broke no rule.
    Agrees,
    /// It ran to the end and agrees, but broke ir3's rules (the first hazard).
    Hazard(String),
    /// It differs too (how).
    Differs(String),
    /// It could not be run (why).
    NotRun(String),
}

/// One other run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    /// What ran: `ir3 a750 IR3_SHADER_DEBUG=…` or `our a6xx`.
    pub run: String,
    /// Whether it is one of ir3's builds (else our pipeline).
    pub ir3: bool,
    /// Whether it ran on the finding's own GPU (so on the same dispatch facts).
    pub same_gpu: bool,
    pub verdict: Verdict,
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.verdict {
            Verdict::Agrees => write!(f, "{}: agrees", self.run),
            Verdict::Hazard(h) => write!(f, "{}: agrees, with a hazard ({h})", self.run),
            Verdict::Differs(how) => write!(f, "{}: differs ({how})", self.run),
            Verdict::NotRun(why) => write!(f, "{}: not run ({why})", self.run),
        }
    }
}

/// Whether the comparisons make a difference ir3's (see the module doc).
pub fn difference_survives(comparisons: &[Comparison]) -> bool {
    let ran_clean = |ir3: bool| {
        (comparisons.iter()).any(|c| {
            c.ir3 == ir3
                && (c.same_gpu || !ir3)
                && matches!(c.verdict, Verdict::Agrees | Verdict::Hazard(_))
        })
    };
    ran_clean(true) && ran_clean(false)
}

/// Whether the comparisons make a hazard ir3's.
pub fn hazard_survives(comparisons: &[Comparison]) -> bool {
    (comparisons.iter()).any(|c| c.ir3 && c.same_gpu && c.verdict == Verdict::Agrees)
}

/// The interpreter's results and work, or `None` when it does not finish.
pub fn expected(case: &Case, opts: &OracleOptions) -> Option<(Results, u64)> {
    let run = RunOptions {
        fuel: opts.fuel,
        ..RunOptions::default()
    };
    INTERPRETER
        .with_borrow_mut(|i| i.run_with_stats(&case.program, &run))
        .ok()
        .map(|(r, w)| (r, w.executed_insts))
}

/// A skip reason without the numbers that would split its count.
fn class(why: &NotRun) -> String {
    let text = why.to_string();
    let mut out = String::with_capacity(text.len());
    let mut digits = false;
    for ch in text.chars() {
        if ch.is_ascii_digit() {
            if !digits {
                out.push('N');
            }
            digits = true;
        } else {
            digits = false;
            out.push(ch);
        }
    }
    out
}

/// One ir3 build of `program` run and compared: its verdict, and the run.
fn verdict_of(
    executed: Result<Executed, NotRun>,
    difference: &dyn Fn(&Results) -> Option<String>,
) -> Verdict {
    match executed {
        Err(why) => Verdict::NotRun(why.to_string()),
        Ok(Executed {
            results: Err(stop), ..
        }) => Verdict::Differs(stop.to_string()),
        Ok(Executed {
            results: Ok(r),
            run,
        }) => match difference(&r) {
            Some(d) => Verdict::Differs(d),
            None => match run.and_then(|r| r.hazards.first().cloned()) {
                Some(h) => Verdict::Hazard(h.to_string()),
                None => Verdict::Agrees,
            },
        },
    }
}

/// Judges a compiled case (`program` is the one turnip compiled, `capture` what it made).
pub fn judge(
    driver: &dyn crate::targets::driver::compile_only::ShimDriver,
    case: &Case,
    program: &Program,
    capture: &Capture,
    opts: &OracleOptions,
    coverage: &mut Coverage,
) -> Result<(), Box<Finding>> {
    let knobs = TurnipKnobs::of(case);
    // Code not found or not listed was counted by the decoder check.
    let Ok(code) = Code::of(capture, knobs.generation()) else {
        return Ok(());
    };
    let Some((expected, work)) = expected(case, opts) else {
        coverage
            .skipped
            .push("turnip: not run: the interpreter does not finish".into());
        return Ok(());
    };
    let plan = spirv_emit::comparison(program, &capture.emit_options);
    let dispatch = &program.dispatch;
    let difference = |r: &Results| {
        (plan.first_difference(&expected, r, dispatch)).map(|(d, _)| Mismatch::from(d).to_string())
    };
    let budget = budget(work);
    let interface = &capture.module.interface;
    let executed = profile::time(Phase::Simulate, || {
        execute(
            &code,
            program,
            interface,
            knobs.facts(),
            (budget, None),
            opts.plants,
        )
    });
    let executed = match executed {
        Err(why) => {
            coverage
                .skipped
                .push(format!("turnip: not run: {}", class(&why)));
            return Ok(());
        }
        Ok(e) => e,
    };
    let at = format!(
        "[turnip a{}, {}; {}]",
        knobs.gpu.word(),
        switches_text(knobs),
        capture.device
    );
    let (detail, mismatch, hazard): (String, Option<Mismatch>, Option<Hazard>) =
        match &executed.results {
            Err(stop) => (stop.to_string(), None, None),
            Ok(actual) => match plan.first_difference(&expected, actual, dispatch) {
                Some((d, _)) => {
                    let m = Mismatch::from(d);
                    (m.to_string(), Some(m), None)
                }
                None => {
                    coverage.executed.push(("turnip", Reach::default()));
                    match executed.run.as_ref().and_then(|r| r.hazards.first()) {
                        None => return Ok(()),
                        Some(h) => (h.to_string(), None, Some(h.clone())),
                    }
                }
            },
        };
    let others = corroborate(driver, case, program, opts, budget, &difference);
    let listed: Vec<String> = others.iter().map(|c| c.to_string()).collect();
    let (kind, whose, cause) = match (&hazard, &executed.results) {
        (Some(h), _) => {
            let ir3s = hazard_survives(&others);
            (
                if ir3s {
                    FindingKind::Hazard
                } else {
                    FindingKind::Unconfirmed
                },
                if ir3s {
                    "ir3's: another build of the program keeps the rule"
                } else {
                    "not shown to be ir3's: every build breaks it, our reading of the rule may be wrong"
                },
                format!("hazard {}", h.rule.class()),
            )
        }
        (None, results) => {
            let ir3s = difference_survives(&others);
            let what = match results {
                Err(Stop::Timeout) => "timeout",
                Err(_) => "fault",
                Ok(_) => "mismatch",
            };
            (
                if ir3s {
                    FindingKind::Mismatch
                } else {
                    FindingKind::Unconfirmed
                },
                if ir3s {
                    "ir3's: another build and our a6xx pipeline agree"
                } else {
                    "not shown to be ir3's: our decoder or executor may be wrong"
                },
                what.to_string(),
            )
        }
    };
    let mut f = caused(
        driver.name(),
        kind,
        format!(
            "ir3's code on our executor: {detail} {at} ({whose}; {})",
            listed.join("; ")
        ),
        Cause::named(cause),
    );
    f.difference = mismatch;
    Err(f)
}

/// The case's switch words, for a finding.
fn switches_text(knobs: &TurnipKnobs) -> String {
    let words = knobs.debug.words();
    if words.is_empty() {
        "no IR3_SHADER_DEBUG switches".into()
    } else {
        format!("IR3_SHADER_DEBUG={}", words.join(","))
    }
}

/// The other ir3 builds of a case: its switches cleared (or, if it had none, ir3's
/// scheduling and preamble taken out: `fullsync+fullnop+nopreamble`), and its switches on a
/// GPU of the other generation (a630 ↔ a750).
fn alternatives(knobs: &TurnipKnobs) -> Vec<TurnipKnobs> {
    let plain = if knobs.debug.words().is_empty() {
        "fullsync+fullnop+nopreamble"
    } else {
        "none"
    };
    let other_gpu = if knobs.generation() == sim::ir3::Gen::A7xx {
        "630"
    } else {
        "750"
    };
    vec![
        TurnipKnobs {
            debug: plain.parse().expect("ir3 switch words"),
            ..knobs.clone()
        },
        TurnipKnobs {
            gpu: other_gpu.parse().expect("an Adreno of the list"),
            ..knobs.clone()
        },
    ]
}

/// Runs the other builds of `case` and our own a6xx pipeline, each within `budget`
/// instructions and compared through `difference`.
fn corroborate(
    driver: &dyn crate::targets::driver::compile_only::ShimDriver,
    case: &Case,
    program: &Program,
    opts: &OracleOptions,
    budget: u64,
    difference: &dyn Fn(&Results) -> Option<String>,
) -> Vec<Comparison> {
    let mut out = Vec::new();
    let own = TurnipKnobs::of(case).gpu.clone();
    for knobs in alternatives(TurnipKnobs::of(case)) {
        let run = format!("ir3 a{} {}", knobs.gpu.word(), switches_text(&knobs));
        let mut other = case.clone();
        *other.config.sections.get_mut::<TurnipKnobs>() = knobs.clone();
        let verdict = match compile(driver, &other, program) {
            Err(e) => Verdict::NotRun(format!("compile: {e:?}")),
            Ok(capture) => match Code::of(&capture, knobs.generation()) {
                Err(why) => Verdict::NotRun(why.to_string()),
                Ok(code) => verdict_of(
                    execute(
                        &code,
                        program,
                        &capture.module.interface,
                        knobs.facts(),
                        (budget, None),
                        opts.plants,
                    ),
                    difference,
                ),
            },
        };
        out.push(Comparison {
            run,
            ir3: true,
            same_gpu: knobs.gpu == own,
            verdict,
        });
    }
    let ours = crate::targets::a6xx::A6xx;
    let verdict = if let Some(why) = ours.skip(case, opts, &Coverage::default()) {
        Verdict::NotRun(why)
    } else {
        match crate::targets::middle::optimise(case, opts, &mut Coverage::default()) {
            Err(f) => Verdict::NotRun(format!("middle end: {f}")),
            Ok(optimised) => match ours.run(case, &optimised, opts, &mut Coverage::default()) {
                Err(f) => Verdict::Differs(f.to_string()),
                Ok(actual) => match difference(&actual) {
                    None => Verdict::Agrees,
                    Some(d) => Verdict::Differs(d),
                },
            },
        }
    };
    out.push(Comparison {
        run: format!("our {}", ours.name()),
        ir3: false,
        same_gpu: false,
        verdict,
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(ir3: bool, verdict: Verdict) -> Comparison {
        Comparison {
            run: String::new(),
            ir3,
            same_gpu: ir3,
            verdict,
        }
    }

    #[test]
    fn a_difference_is_ir3s_only_when_another_build_and_our_pipeline_agree() {
        let differs = || Verdict::Differs("word 3".into());
        assert!(difference_survives(&[
            c(true, differs()),
            c(true, Verdict::Agrees),
            c(false, Verdict::Agrees)
        ]));
        // Every ir3 build differs: perhaps our decoder or executor.
        assert!(!difference_survives(&[
            c(true, differs()),
            c(true, differs()),
            c(false, Verdict::Agrees)
        ]));
        // Our pipeline differs too: perhaps the interpreter or the program.
        assert!(!difference_survives(&[
            c(true, Verdict::Agrees),
            c(false, differs())
        ]));
        assert!(!difference_survives(&[c(false, Verdict::Agrees)]));
        // Only another GPU's build agrees: its dispatch is not the finding's.
        let other_gpu = Comparison {
            same_gpu: false,
            ..c(true, Verdict::Agrees)
        };
        assert!(!difference_survives(&[
            other_gpu,
            c(false, Verdict::Agrees)
        ]));
    }

    #[test]
    fn a_hazard_is_ir3s_only_when_another_build_keeps_the_rule() {
        let hazard = || Verdict::Hazard("#3 reads r0.x".into());
        assert!(hazard_survives(&[
            c(true, hazard()),
            c(true, Verdict::Agrees)
        ]));
        assert!(!hazard_survives(&[
            c(true, hazard()),
            c(false, Verdict::Agrees)
        ]));
    }

    #[test]
    fn the_other_builds_change_the_switches_on_the_gpu_and_the_generation() {
        let none = TurnipKnobs {
            gpu: "740".parse().unwrap(),
            ..TurnipKnobs::default()
        };
        let [same, other] = alternatives(&none).try_into().expect("two builds");
        assert_eq!(same.gpu, none.gpu);
        assert_eq!(same.debug.words(), ["nopreamble", "fullsync", "fullnop"]);
        assert_eq!(other.gpu.word(), "630");
        assert_eq!(other.debug, none.debug);
        let spilling = TurnipKnobs {
            debug: "spillall".parse().unwrap(),
            ..TurnipKnobs::default()
        };
        let [same, other] = alternatives(&spilling).try_into().expect("two builds");
        assert!(same.debug.words().is_empty());
        assert_eq!(other.gpu.word(), "750");
    }

    #[test]
    fn skip_reasons_are_counted_without_their_numbers() {
        let why = NotRun::Unmodelled("an access to element 70 of a buffer of 64".into());
        assert_eq!(class(&why), "an access to element N of a buffer of N");
    }
}
