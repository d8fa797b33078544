//! Whose is a difference? When brw's code for a case disagrees with the interpreter on our
//! executor, the same program is compiled again with brw's optimisations changed — no
//! switches at all, `spill_fs` the other way, another SIMD width — and, with the same
//! switches, by the second Mesa's anv (Debian bookworm's 22.3.6, [`Install::Second`]), each run on
//! the same executor; and it is compiled by our own Gen backend and run on `sim::gen`. The
//! finding then says which comparisons agree, each brw build named by its Mesa version
//! (`brw Mesa 22.3.6 INTEL_DEBUG=hex, SIMD16: agrees`); without the second Mesa its line says
//! `not run (Mesa 22.3.6 not installed: … run scripts/mesa.sh)`.
//!
//! A difference *survives* — is called brw's — only when our backend agrees with the
//! interpreter (the expectation holds for an independent compiler of the same program) and at
//! least one other brw build of the same program runs to completion on our executor and
//! agrees (so the executor models what that program needs: its messages, its textures, its
//! dispatch). A difference that every brw build shows is more likely ours than brw's and
//! stays `unconfirmed`, as does one where nothing else ran.
//!
//! The second Mesa's build is one more brw build in that rule, no more: if it agrees, the
//! executor can run the program and brw 25.0 regressed since 22.3; if it differs while a 25.0
//! build agrees, the bug is brw's and older than 22.3. A difference both versions show in
//! every build stays unconfirmed: the two share most of brw, and our executor is the one
//! thing every run has in common.

use super::execute::{execute, Outcome};
use super::versions;
use super::{compile, Capture, Install, Switches, Widths};
use crate::case::coverage::Coverage;
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::targets::gen::Gen;
use crate::targets::target::Target;
use compiler::ir::Program;
use sim::dispatch::Results;
use sim::gen::ExecSize;
use std::fmt;

/// What one other run gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It ran to completion and agrees with the interpreter.
    Agrees,
    /// It disagrees too (how).
    Differs(String),
    /// It could not be run (why).
    NotRun(String),
}

/// One other run of the case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    /// What ran: `brw INTEL_DEBUG=…, SIMDn` or `our gen16`.
    pub run: String,
    /// Whether it is one of brw's builds (else our backend).
    pub brw: bool,
    pub verdict: Verdict,
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.verdict {
            Verdict::Agrees => write!(f, "{}: agrees", self.run),
            Verdict::Differs(how) => write!(f, "{}: differs ({how})", self.run),
            Verdict::NotRun(why) => write!(f, "{}: not run ({why})", self.run),
        }
    }
}

/// Whether the comparisons make the difference brw's (see the module doc).
pub fn survives(comparisons: &[Comparison]) -> bool {
    let agrees =
        |brw: bool| (comparisons.iter()).any(|c| c.brw == brw && c.verdict == Verdict::Agrees);
    agrees(false) && agrees(true)
}

/// brw's other builds to try besides `switches` (whose code ran at `simd`): none, `spill_fs`
/// the other way, and the widths without the one that ran.
pub fn alternatives(switches: Switches, simd: u32) -> Vec<Switches> {
    let mut others = switches.widths.without(simd);
    if others.is_empty() {
        others = Widths::ALL.without(simd);
    }
    let candidates = [
        Switches::default(),
        Switches {
            spill_fs: !switches.spill_fs,
            ..switches
        },
        Switches {
            widths: others,
            ..switches
        },
    ];
    let mut out: Vec<Switches> = Vec::new();
    for s in candidates {
        if s != switches && !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// Runs the other builds of `case` and compares each with `expected` through `difference`
/// (the first differing word, described, or `None`).
#[allow(clippy::too_many_arguments)]
pub fn corroborate(
    case: &Case,
    optimised: &Program,
    program: &Program,
    capture: &Capture,
    opts: &OracleOptions,
    expected: &Results,
    budget: u64,
    difference: &dyn Fn(&Results) -> Option<String>,
) -> Vec<Comparison> {
    let simd = capture.kernels.first().map_or(0, |k| k.simd);
    let builds = (alternatives(capture.switches, simd).into_iter())
        .map(|switches| (Install::Target, switches))
        .chain([(Install::Second, capture.switches)]);
    let mut out = Vec::new();
    for (mesa, switches) in builds {
        let version = match mesa {
            Install::Target => capture.mesa.as_str(),
            Install::Second => super::SECOND,
        };
        let words = |mesa: &str| {
            versions::of(mesa).map_or_else(
                |_| format!("anv_debug={switches}"),
                |v| v.variables_text(switches),
            )
        };
        let run = format!("brw Mesa {version} {}", words(version));
        let (run, verdict) = match mesa.environment() {
            Err(why) => (
                run,
                Verdict::NotRun(format!("Mesa {version} not installed: {why}")),
            ),
            // A switch this Mesa does not know would be ignored by it: not run, and said so.
            Ok(env) => match versions::of(&env.mesa).and_then(|v| v.variables(switches)) {
                Err(why) => (run, Verdict::NotRun(why)),
                Ok(_) => {
                    match compile(program, mesa, capture.platform, switches, capture.backend) {
                        Err(e) => (run, Verdict::NotRun(format!("{e:?}"))),
                        Ok(other) if mesa == Install::Second && other.mesa == capture.mesa => (
                            run,
                            Verdict::NotRun(format!(
                                "the second Mesa is {}, the finding's own",
                                other.mesa
                            )),
                        ),
                        Ok(other) => {
                            let width = other.kernels.first().map_or(0, |k| k.simd);
                            let run = format!(
                                "brw Mesa {} {}, SIMD{width}",
                                other.mesa,
                                words(&other.mesa)
                            );
                            let verdict = match execute(&other, program, budget) {
                                Err(why) => Verdict::NotRun(why),
                                Ok((Outcome::Stopped(stop), _)) => {
                                    Verdict::Differs(stop.to_string())
                                }
                                Ok((Outcome::Results(r), _)) => match difference(&r) {
                                    None => Verdict::Agrees,
                                    Some(d) => Verdict::Differs(d),
                                },
                            };
                            (run, verdict)
                        }
                    }
                }
            },
        };
        out.push(Comparison {
            run,
            brw: true,
            verdict,
        });
    }
    let width = if simd == 8 {
        ExecSize::S8
    } else {
        ExecSize::S16
    };
    let ours = Gen { width };
    let verdict = if let Some(why) = ours.skip(case, opts, &Coverage::default()) {
        Verdict::NotRun(why)
    } else {
        match ours.run(case, optimised, opts, &mut Coverage::default()) {
            Err(f) => Verdict::Differs(f.to_string()),
            Ok(actual) => match ours.compare(case, optimised, opts, expected, &actual) {
                None => Verdict::Agrees,
                Some(f) => Verdict::Differs(f.to_string()),
            },
        }
    };
    out.push(Comparison {
        run: format!("our {}", ours.name()),
        brw: false,
        verdict,
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_alternatives_change_one_thing_each_and_never_repeat_the_finding() {
        let found = Switches {
            spill_fs: true,
            ..Switches::default()
        };
        let alt = alternatives(found, 16);
        let without16 = Switches {
            widths: Widths::ALL.without(16),
            ..found
        };
        assert_eq!(alt, vec![Switches::default(), without16]);
        let none = alternatives(Switches::default(), 8);
        let spill = Switches {
            spill_fs: true,
            ..Switches::default()
        };
        let without8 = Switches {
            widths: Widths::ALL.without(8),
            ..Switches::default()
        };
        assert_eq!(none, vec![spill, without8]);
        // A case at one width only tries the others.
        let only16 = Switches {
            widths: Widths::only(16),
            ..Switches::default()
        };
        let last = alternatives(only16, 16).pop().expect("three");
        assert_eq!(last.widths, Widths::ALL.without(16));
    }

    fn c(brw: bool, verdict: Verdict) -> Comparison {
        Comparison {
            run: String::new(),
            brw,
            verdict,
        }
    }

    #[test]
    fn only_a_difference_another_brw_build_and_our_backend_do_not_show_survives() {
        let differs = || Verdict::Differs("same word".into());
        let not_run = || Verdict::NotRun("sampler message type 5".into());
        assert!(survives(&[
            c(true, differs()),
            c(true, Verdict::Agrees),
            c(false, Verdict::Agrees)
        ]));
        // Every brw build differs: perhaps our executor.
        assert!(!survives(&[
            c(true, differs()),
            c(true, differs()),
            c(false, Verdict::Agrees)
        ]));
        // Nothing else ran.
        assert!(!survives(&[c(true, not_run()), c(false, Verdict::Agrees)]));
        // Our backend disagrees as well: perhaps the interpreter or the program.
        assert!(!survives(&[c(true, Verdict::Agrees), c(false, differs())]));
    }
}
