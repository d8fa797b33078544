//! A toy target that fuses, registered only in tests (this crate's, and with the `toys`
//! feature triage's): the interpreter run on the
//! middle end's output, alone or a batch at a time, except that a shared run gets the second
//! case's first output word wrong — a bug of the fused run only, as a driver might have in a
//! shader holding several programs. The oracle's batch judge must tell it from a case's own bug.

use super::shown::Shown;
use super::target::{FusedOutcome, Target};
use crate::case::coverage::Coverage;
use crate::case::interpreter::INTERPRETER;
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::finding::{Finding, FindingKind};
use compiler::interp::RunOptions;
use compiler::ir::Program;
use sim::dispatch::Results;

/// The interpreter, with a bug when fused.
pub struct FusedToy;

impl Target for FusedToy {
    fn name(&self) -> &'static str {
        "fused-toy"
    }

    fn description(&self) -> &'static str {
        "the interpreter, wrong on the second program of a fused run (a test's toy)"
    }

    fn in_default_set(&self) -> bool {
        false
    }

    fn run(
        &self,
        _case: &Case,
        optimised: &Program,
        opts: &OracleOptions,
        _coverage: &mut Coverage,
    ) -> Result<Results, Box<Finding>> {
        let run = RunOptions {
            fuel: opts.fuel,
            ..RunOptions::default()
        };
        INTERPRETER
            .with_borrow_mut(|i| i.run(optimised, &run))
            .map_err(|e| Box::new(Finding::new(FindingKind::Panic, self.name(), e.to_string())))
    }

    fn fuses(&self) -> bool {
        true
    }

    fn run_fused(&self, cases: &[(&Case, &Program)], opts: &OracleOptions) -> Vec<FusedOutcome> {
        let shared = cases.len() > 1;
        cases
            .iter()
            .enumerate()
            .map(|(k, (case, optimised))| {
                let mut outcome = self.run(case, optimised, opts, &mut Coverage::default());
                if let (true, 1, Ok(r)) = (shared, k, &mut outcome) {
                    if let Some(w) = r.outputs.first_mut() {
                        *w ^= 1;
                    }
                }
                FusedOutcome { outcome, shared }
            })
            .collect()
    }

    fn show(
        &self,
        _case: &Case,
        _opts: &OracleOptions,
        _optimised: &Program,
        _asm: bool,
    ) -> Result<Shown, String> {
        Err("a test's toy".into())
    }
}

#[cfg(test)]
mod tests {
    use crate::finding::Verdict;
    use crate::oracle::{judge_batch, judge_bytes, OracleOptions};
    use compiler::planted::{Plant, Plants};

    fn inputs(seed: u64, count: u64) -> Vec<Vec<u8>> {
        (0..count)
            .map(|i| {
                let mut buf = Vec::new();
                crate::rng::input_bytes(seed, i, 64, 2048, &mut buf);
                buf
            })
            .collect()
    }

    fn opts(plants: Plants) -> OracleOptions {
        OracleOptions {
            targets: vec!["fused-toy".into()],
            plants,
            ..OracleOptions::default()
        }
    }

    fn classes(judged: &[crate::oracle::Judgement]) -> Vec<Option<String>> {
        judged
            .iter()
            .map(|j| match &j.verdict {
                Verdict::Finding(f) => Some(f.class.clone().unwrap_or_default()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_bug_only_a_fused_run_has_is_the_fused_runs_once_per_batch() {
        let inputs = inputs(5, 24);
        let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
        let opts = opts(Plants::NONE);
        for batch in refs.chunks(8) {
            let judged = judge_batch(batch, &opts);
            let found: Vec<usize> = (0..batch.len())
                .filter(|&k| matches!(judged[k].verdict, Verdict::Finding(_)))
                .collect();
            // The second case that reached the target, and no other.
            assert_eq!(found.len(), 1, "{:?}", classes(&judged));
            let k = found[0];
            let Verdict::Finding(f) = &judged[k].verdict else {
                unreachable!()
            };
            assert_eq!(f.cause, Some(crate::cause::Cause::Fused { cause: None }));
            assert_eq!(f.class.as_deref(), Some("fused"));
            assert!(f.detail.contains("only in a fused shader"), "{}", f.detail);
            assert!(judged[k].program_text.is_some());
            assert!(matches!(
                judge_bytes(batch[k], &opts).verdict,
                Verdict::Pass
            ));
        }
    }

    #[test]
    fn a_programs_own_bug_in_a_fused_batch_is_that_programs() {
        let inputs = inputs(0, 64);
        let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
        let opts = opts(Plants::NONE.with(Plant::from_name("dce-loop-live-out").unwrap()));
        let alone: Vec<_> = refs.iter().map(|b| judge_bytes(b, &opts)).collect();
        let alone = classes(&alone);
        assert!(alone.iter().flatten().count() >= 2, "{alone:?}");
        for (batch, alone) in refs.chunks(8).zip(alone.chunks(8)) {
            let fused = classes(&judge_batch(batch, &opts));
            for (k, (f, a)) in fused.iter().zip(alone).enumerate() {
                match (f, a) {
                    // Its own finding, as alone.
                    (Some(f), Some(a)) => assert_eq!(f, a, "case {k}"),
                    (Some(f), None) => assert_eq!(f, "fused", "case {k}"),
                    (None, Some(a)) => panic!("case {k}: {a} alone, nothing fused"),
                    (None, None) => {}
                }
            }
        }
    }
}
