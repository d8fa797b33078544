//! The Gen pipelines (`gen8`, `gen16`): the optimised program taken out of SSA (so the backend
//! consumes `from_ssa`'s register form), compiled by the brw-style backend with the case's
//! generation, GRF budget and `opt_zero_samples` setting, checked by the allocation checker,
//! and run on the Gen EU simulator. Hazards are findings even when the outputs match.

use super::{class_of, classified, work, Pipeline};
use crate::finding::{Finding, FindingKind};
use crate::oracle::{Case, Coverage, OracleOptions};
use compiler::gen::{self, Options};
use compiler::ir::Program;
use compiler::passes::pipeline::{self, PassConfig};
use compiler::profile::{self, Phase};
use sim::dispatch::Results;
use sim::gen::{ExecSize, Gen as Generation, Outcome};

/// The brw-style backend on the Gen EU simulator at one dispatch width.
pub struct Gen {
    /// SIMD8 or SIMD16.
    pub width: ExecSize,
}

/// The backend options a case asks for at `width`. A SIMD16 value takes two GRFs, so a
/// starved budget is doubled there to starve it equally.
pub fn options(case: &Case, opts: &OracleOptions, width: ExecSize) -> Options {
    let c = &case.config;
    let wide = matches!(width, ExecSize::S16);
    let grfs = if c.gen_grfs >= 125 || !wide {
        c.gen_grfs
    } else {
        (c.gen_grfs * 2).min(125)
    };
    Options {
        width,
        gen: if c.gen9 {
            Generation::Gen9
        } else {
            Generation::Gen7
        },
        grfs,
        opt_zero_samples: c.gen_zero_samples,
        heuristics: c.gen_heuristics(),
        plants: opts.plants,
    }
}

impl Pipeline for Gen {
    fn name(&self) -> &'static str {
        match self.width {
            ExecSize::S16 => "gen16",
            _ => "gen8",
        }
    }

    fn description(&self) -> &'static str {
        match self.width {
            ExecSize::S16 => "the brw-style Intel Gen backend at SIMD16 on the Gen EU simulator",
            _ => "the brw-style Intel Gen backend at SIMD8 on the Gen EU simulator",
        }
    }

    /// A budget below the program's own floor (`compiler::gen::register_floor`: wide sampler
    /// payloads need more than `MIN_GRFS`) cannot be met by any allocator: skipped, not
    /// reported.
    fn skip(&self, case: &Case, _opts: &OracleOptions, _coverage: &Coverage) -> Option<String> {
        let floor = compiler::gen::register_floor(&case.program);
        (case.config.gen_grfs < floor).then(|| {
            format!(
                "gen_grfs {} below the program's sampler-payload floor {floor}",
                case.config.gen_grfs
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
        let name = self.name();
        let fail = |kind, detail, class| classified(name, kind, detail, class);
        let mut registers = optimised.clone();
        let config = PassConfig {
            plants: opts.plants,
        };
        profile::time(Phase::FromSsa, || {
            pipeline::to_registers(&mut registers, false, &config)
        })
        .map_err(|e| fail(FindingKind::CompileError, e.to_string(), "from_ssa".into()))?;
        let options = options(case, opts, self.width);
        let compiled = gen::compile(&registers, &options)
            .map_err(|e| fail(FindingKind::CompileError, e.to_string(), class_of(&e)))?;
        if let Err(e) = &compiled.check {
            // A wrong value that came back from a spill slot is spill code's bug, not
            // colouring's: the class says which, and so does the blame (triage's `bisect`).
            let class = match e {
                gen::CheckError::IncorrectValue { filled: true, .. } => {
                    "IncorrectValue filled".to_string()
                }
                e => class_of(e),
            };
            return Err(fail(FindingKind::RaCheck, e.to_string(), class));
        }
        coverage.spills |= compiled.stats.spills > 0;
        coverage.trimmed_sends |= compiled.stats.trimmed_sends > 0;
        let run_with = |config: &sim::gen::Config| {
            sim::gen::run_valid(&compiled.program, &registers.dispatch, config).map_err(|errors| {
                let detail = errors
                    .iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("; ");
                fail(
                    FindingKind::CompileError,
                    format!("the simulator rejected the program: {detail}"),
                    "invalid".into(),
                )
            })
        };
        // Timeouts are judged against the program's own work: see `work`.
        let threads = u64::from(registers.dispatch.invocations.div_ceil(self.width.lanes()));
        let known = work::known_budget(coverage, threads);
        let first = sim::gen::Config {
            max_instructions: known.unwrap_or(u64::MAX),
            ..compiled.sim_config()
        };
        let mut run = profile::time(Phase::Simulate, || run_with(&first))?;
        if matches!(run.outcome, Outcome::Timeout) {
            let budget = match known {
                Some(b) => b,
                None => work::instruction_budget(name, case, opts, coverage, threads)?,
            };
            if run.stats.instructions < budget {
                // Only the cycle budget ran out: slow, perhaps, not stuck.
                run = run_with(&sim::gen::Config {
                    max_cycles: u64::MAX,
                    max_instructions: budget,
                    ..compiled.sim_config()
                })?;
            }
            // A hazard seen on the way explains a runaway loop (a counter read too early):
            // the hazard is the finding, the timeout only its consequence.
            if matches!(run.outcome, Outcome::Timeout) && run.hazards.is_empty() {
                return Err(work::timeout(name, run.stats.instructions, budget));
            }
            coverage.slow = true;
        }
        if let Some(h) = run.hazards.first() {
            let detail = format!(
                "{h:?}{}",
                work::consequence_note(matches!(run.outcome, Outcome::Completed), &run.outcome)
            );
            return Err(fail(FindingKind::Hazard, detail, class_of(&h.kind)));
        }
        coverage.executed.push((name, compiled.executed(&run)));
        Ok(run.results)
    }
}
