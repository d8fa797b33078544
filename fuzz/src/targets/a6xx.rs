//! The a6xx pipeline: the optimised SSA program compiled by the ir3-style backend with the
//! case's wave size, predicate count, register budget and predicate folding, checked by the
//! allocation checker, and run on the a6xx simulator. Hazards the simulator saw are findings
//! even when the outputs happen to match.
//!
//! For triage the target declares its backend steps (GPR and predicate allocation,
//! legalization's sync flags and nops, the optional predicate folding), which check names
//! which step, its GPR and predicate budgets for the reducer, and its shader-db counters
//! ([`stats`], counted as ir3 counts).

mod stats;

use super::shown::format_results;
use super::shown::Shown;
use super::steps::{Budget, CheckedStep, OptionalStep, ReachCount, ReachGoal, Step, LOWER_BIT_OPS};
use super::target::{caused, Target};
use super::work;
use crate::case::coverage::Coverage;
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::cause::{BackendError, Cause, CheckError, Hazard};
use crate::finding::{Finding, FindingKind};
use compiler::a6xx::{self, Options};
use compiler::ir::Program;
use compiler::profile::{self, Phase};
use sim::a6xx::{Outcome, WaveSize};
use sim::dispatch::Results;

/// Smallest a6xx scalar GPR budget: spill code's scratch registers and one to allocate. A
/// texture instruction's payload area raises a program's own floor
/// (`compiler::a6xx::register_floor`), under which the `a6xx` pipeline skips the case. The
/// generator draws from 8 up; the reducer goes lower, so that a smaller program still spills
/// (docs/budgets.md).
pub const MIN_A6XX_REGISTERS: u32 = compiler::a6xx::ra::SCRATCH + 1;
/// The whole a6xx scalar register file.
pub const MAX_A6XX_REGISTERS: u32 = 192;

/// ir3-style backend on the a6xx simulator.
pub struct A6xx;

/// Folding predicates into `braa`/`brao` branches.
pub const A6XX_OPT_PREDICATES: Step = Step {
    name: "a6xx_opt_predicates",
    does: "folds predicates into braa/brao branches",
};
/// Predicate register allocation (with reloads).
pub const A6XX_RA_PREDICATES: Step = Step {
    name: "a6xx_ra_predicates",
    does: "allocates predicate registers, reloading them when they run out",
};
/// GPR allocation (with private-memory spills).
pub const A6XX_RA: Step = Step {
    name: "a6xx_ra",
    does: "allocates GPRs, spilling to private memory",
};
/// Sync flags and nop delay slots.
pub const A6XX_LEGALIZE: Step = Step {
    name: "a6xx_legalize",
    does: "inserts (ss)/(sy) sync flags and nop delay slots",
};

/// The scalar GPR budget.
pub const A6XX_REGISTERS: Budget = Budget {
    knob: "a6xx_registers",
    get: |c| c.a6xx_registers,
    set: |c, v| c.a6xx_registers = v,
    lowest: MIN_A6XX_REGISTERS,
    highest: MAX_A6XX_REGISTERS,
    sure_floor: |_| MIN_A6XX_REGISTERS,
    choices: None,
};

/// The predicate registers: four, or one as before a6xx.
pub const A6XX_PREDICATES: Budget = Budget {
    knob: "a6xx_predicates",
    get: |c| c.a6xx_predicates.into(),
    set: |c, v| c.a6xx_predicates = v as u8,
    lowest: 1,
    highest: 4,
    sure_floor: |_| 1,
    choices: Some(&[1, 4]),
};

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

/// A program compiled as [`A6xx::run`] compiles it and run once on the simulator: what
/// `show` and `listing` present.
struct Ran {
    compiled: a6xx::Compiled,
    run: sim::a6xx::RunResult,
}

impl Ran {
    fn new(optimised: &Program, options: &Options) -> Result<Ran, String> {
        let compiled =
            a6xx::compile(optimised, options).map_err(|e| format!("compile error: {e}"))?;
        let config = compiled.sim_config();
        let run = sim::a6xx::run(&compiled.program, &optimised.dispatch, &config);
        Ok(Ran { compiled, run })
    }

    /// What the allocation checker says of the code, as a comment line (none if it agrees).
    fn checker(&self) -> String {
        (self.compiled.check.as_ref().err())
            .map_or(String::new(), |e| format!("// allocation checker: {e}\n"))
    }

    /// The hazards the simulator saw, a comment line each.
    fn hazards(&self) -> String {
        (self.run.hazards.iter())
            .map(|h| format!("// hazard: {h}\n"))
            .collect()
    }
}

impl Target for A6xx {
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
        if let Some(why) = a6xx::refuses(&case.program) {
            return Some(why.into());
        }
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
        let fail = |kind, detail, cause| caused(self.name(), kind, detail, cause);
        let compiled = a6xx::compile(optimised, &options).map_err(|e| {
            let detail = e.to_string();
            let error = BackendError::A6xx(e);
            fail(FindingKind::CompileError, detail, Cause::Backend { error })
        })?;
        if let Err(e) = &compiled.check {
            let error = CheckError::A6xx(e.clone());
            let cause = Cause::AllocationCheck { error };
            return Err(fail(FindingKind::RaCheck, e.to_string(), cause));
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
                    Cause::Fault,
                ))
            }
        }
        if let Some(h) = run.hazards.first() {
            let detail = format!(
                "{h}{}",
                work::consequence_note(matches!(run.outcome, Outcome::Completed), &run.outcome)
            );
            let hazard = Hazard::A6xx(*h);
            return Err(fail(FindingKind::Hazard, detail, Cause::Hazard { hazard }));
        }
        coverage
            .executed
            .push((self.name(), compiled.executed(&run)));
        Ok(run.results)
    }

    fn show(
        &self,
        case: &Case,
        opts: &OracleOptions,
        optimised: &Program,
        asm: bool,
    ) -> Result<Shown, String> {
        let options = options(case, opts);
        let ran = Ran::new(optimised, &options)?;
        let mut out = format!("// {options:?}\n");
        if asm {
            out += &ran.compiled.program.to_string();
        }
        out += &format!("// compile: {:?}\n", ran.compiled.stats);
        out += &ran.checker();
        out += &format!("// run: {:?}, {:?}\n", ran.run.outcome, ran.run.stats);
        out += &ran.hazards();
        out += &format_results(&optimised.dispatch, &ran.run.results);
        let clean = ran.compiled.check.is_ok()
            && ran.run.outcome == Outcome::Completed
            && ran.run.hazards.is_empty();
        Ok(Shown { text: out, clean })
    }

    /// The disassembly, headed by what the allocation checker and the simulator's hazard
    /// check say.
    fn listing(
        &self,
        case: &Case,
        opts: &OracleOptions,
        optimised: &Program,
        _first_output: Option<u32>,
    ) -> Option<String> {
        let ran = Ran::new(optimised, &options(case, opts)).ok()?;
        Some(ran.checker() + &ran.hazards() + &ran.compiled.program.to_string())
    }

    fn knobs(&self) -> &'static [&'static str] {
        &[
            "a6xx_wave128",
            "a6xx_predicates",
            "a6xx_registers",
            "a6xx_opt_predicates",
            "a6xx_pred_pick",
            "a6xx_gpr_pick",
            "a6xx_spill_victim",
        ]
    }

    fn budgets(&self) -> &'static [Budget] {
        &[A6XX_REGISTERS, A6XX_PREDICATES]
    }

    fn steps(&self) -> &'static [Step] {
        &[
            LOWER_BIT_OPS,
            A6XX_OPT_PREDICATES,
            A6XX_RA_PREDICATES,
            A6XX_RA,
            A6XX_LEGALIZE,
        ]
    }

    /// The checks are specific (a hazard is a missing sync, legalize's one job; the checker
    /// tracks predicates apart from GPRs), so they go before the switch.
    fn checked_step(&self, f: &Finding) -> Option<CheckedStep> {
        // A predicate holding the wrong value is the predicate allocator's bug, a GPR the
        // GPR allocator's.
        let on_predicate = matches!(
            &f.cause,
            Some(Cause::AllocationCheck {
                error: CheckError::A6xx(a6xx::CheckError::IncorrectValue { reg, .. })
            }) if reg.is_pred()
        );
        let (step, by) = match f.kind {
            FindingKind::Hazard => (A6XX_LEGALIZE, "the simulator's hazard check"),
            FindingKind::RaCheck if on_predicate => (
                A6XX_RA_PREDICATES,
                "the allocation checker, on a predicate,",
            ),
            FindingKind::RaCheck => (A6XX_RA, "the allocation checker"),
            _ => return None,
        };
        Some(CheckedStep { step, by })
    }

    fn optional_steps(&self) -> &'static [OptionalStep] {
        &[OptionalStep {
            step: A6XX_OPT_PREDICATES,
            on: |c| c.a6xx_opt_predicates,
            switch_off: |c| c.a6xx_opt_predicates = false,
        }]
    }

    /// Issue 17's goals: predicate reloads run in a fifth of the cases, and reloads of
    /// several predicates inside one loop (where a wrong reload shows) in some.
    fn reach_goals(&self) -> &'static [ReachGoal] {
        &[
            ReachGoal {
                count: ReachCount::PredReload,
                name: "predicate reload executed",
                goal: 0.20,
                status: Some("pred reload ran"),
            },
            ReachGoal {
                count: ReachCount::LoopPredReloads,
                name: ">=3 predicates reloaded in one loop",
                goal: 0.05,
                status: Some("3-in-loop"),
            },
        ]
    }

    fn measurements(&self) -> Option<Vec<&'static str>> {
        Some(stats::MEASUREMENTS.to_vec())
    }

    fn record(&self, case: &Case) -> Result<Vec<(String, u64)>, String> {
        let p = &case.program;
        let options = options(case, &OracleOptions::default());
        let c = a6xx::compile(p, &options).map_err(|e| format!("compile: {e}"))?;
        let loops = super::middle::stats::loops(p);
        stats::record(p, &c, options.wave, loops)
    }
}
