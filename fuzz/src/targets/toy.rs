//! A toy target, registered only in this crate's tests, that proves the registry's promise: a
//! new target is this one file plus one line in [`super::all`]. It is the middle end with the
//! optimisation loop in reverse order (`opt_shrink_vectors` first, `opt_remove_phis` last),
//! taken out of SSA and re-interpreted: a pass that relies on another having run before it
//! sees shapes the real order never gives it. Opt-in, so the other tests' default set is
//! unchanged.

use super::shown::Shown;
use super::target::Target;
use crate::case::coverage::Coverage;
use crate::case::interpreter::INTERPRETER;
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::finding::{Finding, FindingKind};
use compiler::interp::RunOptions;
use compiler::ir::{text, verify, Program};
use compiler::passes::pipeline::{self, PassConfig, MAX_ROUNDS, OPT_LOOP, PROLOGUE};
use sim::dispatch::Results;

/// The middle end with its optimisation loop reversed.
pub struct Reversed;

impl Reversed {
    /// The case's program through the reversed middle end and out of SSA, verified after
    /// every pass; the pass that broke it otherwise.
    fn compile(&self, case: &Case, opts: &OracleOptions) -> Result<Program, Box<Finding>> {
        let config = PassConfig {
            plants: opts.plants,
        };
        let mut p = case.program.clone();
        let run = |p: &mut Program, name: &str| -> Result<bool, Box<Finding>> {
            let pass = pipeline::pass(name).expect("a pass of the table");
            let changed = pass(&mut p.func, &config);
            verify::verify(p).map_err(|e| {
                let mut f = Finding::new(FindingKind::Verify, self.name(), e.to_string());
                f.pass = Some(name.to_string());
                Box::new(f)
            })?;
            Ok(changed)
        };
        for name in PROLOGUE {
            run(&mut p, name)?;
        }
        for _ in 0..MAX_ROUNDS {
            let mut changed = false;
            for name in OPT_LOOP.iter().rev() {
                changed |= run(&mut p, name)?;
            }
            if !changed {
                break;
            }
        }
        pipeline::to_registers(&mut p, true, &config).map_err(|e| {
            Box::new(Finding::new(
                FindingKind::CompileError,
                self.name(),
                e.to_string(),
            ))
        })?;
        Ok(p)
    }
}

impl Target for Reversed {
    fn name(&self) -> &'static str {
        "middle-reversed"
    }

    fn description(&self) -> &'static str {
        "the middle end with its optimisation loop reversed, re-interpreted (a test's toy)"
    }

    fn in_default_set(&self) -> bool {
        false
    }

    fn run(
        &self,
        case: &Case,
        _optimised: &Program,
        opts: &OracleOptions,
        _coverage: &mut Coverage,
    ) -> Result<Results, Box<Finding>> {
        let p = self.compile(case, opts)?;
        let run = RunOptions {
            fuel: opts.fuel * 4,
            ..RunOptions::default()
        };
        INTERPRETER
            .with_borrow_mut(|i| i.run(&p, &run))
            .map_err(|e| {
                Box::new(Finding::new(
                    FindingKind::Timeout,
                    self.name(),
                    e.to_string(),
                ))
            })
    }

    fn show(
        &self,
        case: &Case,
        opts: &OracleOptions,
        _optimised: &Program,
        _asm: bool,
    ) -> Result<Shown, String> {
        let p = self.compile(case, opts).map_err(|f| f.to_string())?;
        Ok(Shown {
            text: text::print_program(&p),
            clean: true,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Verdict;
    use crate::{oracle, rng, targets};
    use compiler::planted::{Plant, Plants};

    fn opts(plants: Plants) -> OracleOptions {
        OracleOptions {
            targets: targets::select(&["middle-reversed".to_string()])
                .unwrap()
                .into_iter()
                .map(String::from)
                .collect(),
            plants,
            ..OracleOptions::default()
        }
    }

    fn verdicts(plants: Plants) -> impl Iterator<Item = Verdict> {
        (0..200).map(move |i| {
            let mut buf = Vec::new();
            rng::input_bytes(0x70e, i, 16, 2048, &mut buf);
            oracle::judge_bytes(&buf, &opts(plants)).verdict
        })
    }

    #[test]
    fn the_registry_knows_the_toy_and_keeps_it_out_of_the_default_set() {
        assert!(targets::describe_all().contains("middle-reversed"));
        let default = targets::select(&[]).unwrap();
        assert!(!default.contains(&"middle-reversed"));
    }

    #[test]
    fn the_toy_agrees_with_the_interpreter_and_finds_a_planted_out_of_ssa_bug() {
        let findings: Vec<_> = verdicts(Plants::NONE)
            .filter_map(|v| match v {
                Verdict::Finding(f) => Some(f),
                _ => None,
            })
            .collect();
        assert!(findings.is_empty(), "{:?}", findings.first());
        let planted = verdicts(Plants::NONE.with(Plant::FromSsaSwap)).find_map(|v| match v {
            Verdict::Finding(f) => Some(f),
            _ => None,
        });
        let f = planted.expect("the swap problem shows within 200 inputs");
        assert_eq!(f.target, "middle-reversed", "{f}");
    }

    #[test]
    fn run_shows_the_toys_ir_out_of_ssa() {
        let mut buf = Vec::new();
        rng::input_bytes(0x70e, 0, 16, 2048, &mut buf);
        let case = oracle::decode(&buf).expect("a program");
        let t = targets::by_name("middle-reversed").unwrap();
        let shown = t
            .show(&case, &opts(Plants::NONE), &case.program, true)
            .unwrap();
        assert!(
            shown.clean && shown.text.contains("invocations"),
            "{}",
            shown.text
        );
    }
}
