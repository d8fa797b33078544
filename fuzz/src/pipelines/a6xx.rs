//! The a6xx pipeline: the optimised SSA program compiled by the ir3-style backend with the
//! case's wave size, predicate count, register budget and predicate folding, checked by the
//! allocation checker, and run on the a6xx simulator. Hazards the simulator saw are findings
//! even when the outputs happen to match.

use super::{class_of, classified, work, Pipeline};
use crate::finding::{Finding, FindingKind};
use crate::oracle::{Case, Coverage, OracleOptions};
use compiler::a6xx::{self, Options};
use compiler::ir::Program;
use compiler::profile::{self, Phase};
use sim::a6xx::{Outcome, WaveSize};
use sim::dispatch::Results;

/// ir3-style backend on the a6xx simulator.
pub struct A6xx;

/// The backend options a case asks for.
pub fn options(case: &Case, opts: &OracleOptions) -> Options {
    let c = &case.config;
    Options {
        wave: if c.a6xx_wave128 {
            WaveSize::W128
        } else {
            WaveSize::W64
        },
        predicates: c.a6xx_predicates,
        registers: c.a6xx_registers,
        opt_predicates: c.a6xx_opt_predicates,
        heuristics: c.a6xx_heuristics(),
        plants: opts.plants,
    }
}

impl Pipeline for A6xx {
    fn name(&self) -> &'static str {
        "a6xx"
    }

    fn description(&self) -> &'static str {
        "the ir3-style Adreno a6xx backend on the a6xx simulator"
    }

    /// A register budget below the program's own texture footprint (the largest cat5 payload
    /// area plus spill scratch, `compiler::a6xx::register_floor`) cannot be met by any
    /// allocator: such cases are skipped, not reported.
    fn skip(&self, case: &Case, _opts: &OracleOptions, _coverage: &Coverage) -> Option<String> {
        let floor = a6xx::register_floor(&case.program);
        (case.config.a6xx_registers < floor).then(|| {
            format!(
                "a6xx budget {} below the program's texture footprint {floor}",
                case.config.a6xx_registers
            )
        })
    }

    fn run(
        &self,
        case: &Case,
        optimised: &Program,
        opts: &OracleOptions,
        coverage: &mut Coverage,
    ) -> Result<Results, Box<Finding>> {
        let options = options(case, opts);
        let fail = |kind, detail, class| classified("a6xx", kind, detail, class);
        let compiled = a6xx::compile(optimised, &options)
            .map_err(|e| fail(FindingKind::CompileError, e.to_string(), class_of(&e)))?;
        if let Err(e) = &compiled.check {
            // A predicate holding the wrong value is the predicate allocator's bug, a GPR the
            // GPR allocator's: the class says which, and so does the blame (triage's `bisect`).
            let class = match e {
                a6xx::CheckError::IncorrectValue { reg, .. } if reg.is_pred() => {
                    "IncorrectValue predicate".to_string()
                }
                e => class_of(e),
            };
            return Err(fail(FindingKind::RaCheck, e.to_string(), class));
        }
        coverage.spills |= compiled.stats.spills > 0 || compiled.stats.pred_reloads > 0;
        let config = compiled.sim_config();
        // Timeouts are judged against the program's own work: see `work`.
        let waves = u64::from(
            optimised
                .dispatch
                .invocations
                .div_ceil(config.wave.fibers()),
        );
        let known = work::known_budget(coverage, waves);
        let first = sim::a6xx::Config {
            instruction_budget: known.unwrap_or(u64::MAX),
            ..config
        };
        let mut run = profile::time(Phase::Simulate, || {
            sim::a6xx::run(&compiled.program, &optimised.dispatch, &first)
        });
        if matches!(run.outcome, Outcome::Timeout) {
            let budget = match known {
                Some(b) => b,
                None => work::instruction_budget(self.name(), case, opts, coverage, waves)?,
            };
            if run.stats.instructions < budget {
                // Only the cycle budget ran out: slow, perhaps, not stuck.
                let unlimited = sim::a6xx::Config {
                    cycle_budget: u64::MAX,
                    instruction_budget: budget,
                    ..config
                };
                run = sim::a6xx::run(&compiled.program, &optimised.dispatch, &unlimited);
            }
            // A hazard seen on the way explains a runaway loop (a counter read too early):
            // the hazard is the finding, the timeout only its consequence.
            if matches!(run.outcome, Outcome::Timeout) && run.hazards.is_empty() {
                return Err(work::timeout(self.name(), run.stats.instructions, budget));
            }
            coverage.slow = true;
        }
        match run.outcome {
            Outcome::Completed | Outcome::Timeout => {}
            Outcome::Fault(_) if !run.hazards.is_empty() => {}
            Outcome::Fault(f) => {
                return Err(fail(
                    FindingKind::CompileError,
                    format!("the simulator rejected the program: {f:?}"),
                    "fault".into(),
                ))
            }
        }
        if let Some(h) = run.hazards.first() {
            let detail = format!(
                "{h}{}",
                work::consequence_note(matches!(run.outcome, Outcome::Completed), &run.outcome)
            );
            return Err(fail(FindingKind::Hazard, detail, class_of(&h.kind)));
        }
        coverage
            .executed
            .push((self.name(), compiled.executed(&run)));
        Ok(run.results)
    }
}
