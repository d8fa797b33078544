//! The Gen pipelines (`gen8`, `gen16`): the optimised program taken out of SSA (so the backend
//! consumes `from_ssa`'s register form), compiled by the brw-style backend with the case's
//! generation, GRF budget and `opt_zero_samples` setting, checked by the allocation checker,
//! and run on the Gen EU simulator. Hazards are findings even when the outputs match.
//!
//! For triage the target declares its backend steps (lowering, allocation, spill code, the
//! optional `opt_zero_samples`), which check names which step, its GRF budget for the reducer,
//! and its shader-db counters ([`stats`]).

mod stats;

use super::shown::format_results;
use super::shown::Shown;
use super::steps::{Budget, CheckedStep, OptionalStep, ReachCount, ReachGoal, Step, LOWER_BIT_OPS};
use super::target::{caused, Target};
use super::work;
use crate::case::coverage::Coverage;
use crate::case::options::OracleOptions;
use crate::case::{Case, CaseConfig};
use crate::cause::{BackendError, Cause, CheckError, Hazard};
use crate::finding::{Finding, FindingKind};
use compiler::gen::{self, Options};
use compiler::heuristics::{ColourOrder, Pick};
use compiler::ir::Program;
use compiler::passes::pipeline::{self, PassConfig};
use compiler::profile::{self, Phase};
use sim::dispatch::Results;
use sim::gen::{ExecSize, Gen as Generation, Outcome};

/// Smallest Gen GRF budget (at SIMD8): the register floor, at which every program compiles
/// (`compiler::gen::MIN_GRFS`, docs/budgets.md). SIMD16 doubles a starved budget (two GRFs
/// per value).
pub const MIN_GEN_GRFS: u32 = compiler::gen::MIN_GRFS;
/// The whole Gen register file available to allocation.
pub const MAX_GEN_GRFS: u32 = 125;

/// Instruction selection: IR to Gen instructions on virtual GRFs.
pub const GEN_LOWER: Step = Step {
    name: "gen_lower",
    does: "lowers the IR to Gen instructions on virtual registers",
};
/// Graph-colouring register allocation.
pub const GEN_RA: Step = Step {
    name: "gen_ra",
    does: "allocates GRFs by graph colouring",
};
/// The allocator's spill code (scratch writes and fills).
pub const GEN_RA_SPILL: Step = Step {
    name: "gen_ra_spill",
    does: "spills to scratch and fills back",
};
/// Trimming trailing zero sampler parameters.
pub const OPT_ZERO_SAMPLES: Step = Step {
    name: "opt_zero_samples",
    does: "trims trailing zero sampler parameters from SEND payloads",
};

/// The smallest Gen budget the reducer tries with a register pick other than `lowest`: the
/// generator's (docs/budgets.md). Only `gen_pick=lowest` with the default colouring order
/// (`gen_colour_order=ascending`) is sure to compile down to the allocator's floor
/// ([`MIN_GEN_GRFS`]), and a budget the allocator cannot meet would turn a reduction of a
/// `gen_ra` bug into a repro of no bug.
pub const GEN_GRFS_FLOOR: u32 = 16;

/// The smallest Gen budget every program compiles at with `c`'s allocation choices.
pub fn sure_gen_floor(c: &CaseConfig) -> u32 {
    if c.gen_pick == Pick::Lowest && c.gen_colour_order == ColourOrder::Ascending {
        MIN_GEN_GRFS
    } else {
        GEN_GRFS_FLOOR
    }
}

/// The GRF budget (at SIMD8).
pub const GEN_GRFS: Budget = Budget {
    knob: "gen_grfs",
    get: |c| c.gen_grfs,
    set: |c, v| c.gen_grfs = v,
    lowest: MIN_GEN_GRFS,
    highest: MAX_GEN_GRFS,
    sure_floor: sure_gen_floor,
    choices: None,
};

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

/// `optimised` (the middle end's output for `case`) in register form and compiled for Gen at
/// `width`, as `run --target` and reports show it; the register-form program is what the
/// simulator's dispatch comes from.
pub fn compile(
    case: &Case,
    opts: &OracleOptions,
    optimised: &Program,
    width: ExecSize,
) -> Result<(Program, gen::Compiled), String> {
    let mut p = optimised.clone();
    let config = PassConfig {
        plants: opts.plants,
    };
    pipeline::to_registers(&mut p, true, &config).map_err(|e| e.to_string())?;
    let compiled =
        gen::compile(&p, &options(case, opts, width)).map_err(|e| format!("compile error: {e}"))?;
    Ok((p, compiled))
}

/// A case compiled as [`compile`] compiles it and run once on the simulator: what `show` and
/// `listing` present.
struct Ran {
    /// The program in register form (its dispatch).
    registers: Program,
    compiled: gen::Compiled,
    /// The run, or why the simulator refused the program.
    run: Result<sim::gen::Run, Vec<sim::gen::ValidationError>>,
}

impl Ran {
    fn new(
        case: &Case,
        opts: &OracleOptions,
        optimised: &Program,
        width: ExecSize,
    ) -> Result<Ran, String> {
        let (registers, compiled) = compile(case, opts, optimised, width)?;
        let config = compiled.sim_config();
        let run = sim::gen::run(&compiled.program, &registers.dispatch, &config);
        Ok(Ran {
            registers,
            compiled,
            run,
        })
    }

    /// What the allocation checker says of the code, as a comment line (none if it agrees).
    fn checker(&self) -> String {
        (self.compiled.check.as_ref().err())
            .map_or(String::new(), |e| format!("// allocation checker: {e}\n"))
    }

    /// The hazards the simulator saw, a comment line each.
    fn hazards(&self) -> String {
        (self.run.iter().flat_map(|run| &run.hazards))
            .map(|h| format!("// hazard: {h:?}\n"))
            .collect()
    }
}

impl Target for Gen {
    fn name(&self) -> &'static str {
        match self.width {
            ExecSize::S16 => "gen16",
            _ => "gen8",
        }
    }

    fn family(&self) -> &'static str {
        "gen"
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
        if let Some(why) = compiler::gen::refuses(&case.program) {
            return Some(why.into());
        }
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
        let fail = |kind, detail, cause| caused(name, kind, detail, cause);
        let mut registers = optimised.clone();
        let config = PassConfig {
            plants: opts.plants,
        };
        profile::time(Phase::FromSsa, || {
            pipeline::to_registers(&mut registers, false, &config)
        })
        .map_err(|e| fail(FindingKind::CompileError, e.to_string(), Cause::FromSsa))?;
        let options = options(case, opts, self.width);
        let compiled = gen::compile(&registers, &options).map_err(|e| {
            let detail = e.to_string();
            let error = BackendError::Gen(e);
            fail(FindingKind::CompileError, detail, Cause::Backend { error })
        })?;
        if let Err(e) = &compiled.check {
            let error = CheckError::Gen(e.clone());
            let cause = Cause::AllocationCheck { error };
            return Err(fail(FindingKind::RaCheck, e.to_string(), cause));
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
                    Cause::Refused,
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
            let hazard = Hazard::Gen(*h);
            return Err(fail(FindingKind::Hazard, detail, Cause::Hazard { hazard }));
        }
        coverage.executed.push((name, compiled.executed(&run)));
        Ok(run.results)
    }

    fn show(
        &self,
        case: &Case,
        opts: &OracleOptions,
        optimised: &Program,
        asm: bool,
    ) -> Result<Shown, String> {
        let options = options(case, opts, self.width);
        let ran = Ran::new(case, opts, optimised, self.width)?;
        let mut out = format!("// {options:?}\n");
        if asm {
            out += &ran.compiled.program.to_string();
        }
        out += &format!("// compile: {:?}\n", ran.compiled.stats);
        out += &ran.checker();
        let run = match &ran.run {
            Ok(run) => run,
            Err(errors) => {
                for e in errors {
                    out += &format!("// simulator rejected the program: {e}\n");
                }
                return Ok(Shown {
                    text: out,
                    clean: false,
                });
            }
        };
        out += &format!("// run: {:?}, {:?}\n", run.outcome, run.stats);
        out += &ran.hazards();
        out += &format_results(&ran.registers.dispatch, &run.results);
        let clean = ran.compiled.check.is_ok()
            && run.outcome == Outcome::Completed
            && run.hazards.is_empty();
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
        let ran = Ran::new(case, opts, optimised, self.width).ok()?;
        Some(ran.checker() + &ran.hazards() + &ran.compiled.program.to_string())
    }

    fn knobs(&self) -> &'static [&'static str] {
        &[
            "gen9",
            "gen_grfs",
            "gen_zero_samples",
            "gen_spill_loop_weight",
            "gen_spill_use_weight",
            "gen_spill_def_weight",
            "gen_spill_choice",
            "gen_pick",
            "gen_colour_order",
        ]
    }

    fn budgets(&self) -> &'static [Budget] {
        &[GEN_GRFS]
    }

    fn steps(&self) -> &'static [Step] {
        &[
            LOWER_BIT_OPS,
            OPT_ZERO_SAMPLES,
            GEN_LOWER,
            GEN_RA,
            GEN_RA_SPILL,
        ]
    }

    fn checked_step(&self, f: &Finding) -> Option<CheckedStep> {
        let (step, by) = match (f.kind, gen_cause(f)) {
            (
                FindingKind::RaCheck,
                Some(GenCause::Check(
                    gen::CheckError::IncorrectValue { filled: true, .. }
                    | gen::CheckError::BadHeader { .. },
                )),
            ) => (GEN_RA_SPILL, "the allocation checker, at a fill,"),
            (FindingKind::RaCheck, _) => (GEN_RA, "the allocation checker"),
            (
                FindingKind::CompileError,
                Some(GenCause::Compile(gen::CompileError::NoRegisterToSpill { .. })),
            ) => (GEN_RA, "the register allocator's own failure"),
            // The checker accepted the allocation (else the finding would be a RaCheck), so
            // the code it allocated already computes the wrong values: instruction selection.
            (FindingKind::Mismatch, _) => (
                GEN_LOWER,
                "a wrong result the allocation checker accepts (so lowering made the wrong code)",
            ),
            _ => return None,
        };
        Some(CheckedStep { step, by })
    }

    fn optional_steps(&self) -> &'static [OptionalStep] {
        &[OptionalStep {
            step: OPT_ZERO_SAMPLES,
            on: |c| c.gen_zero_samples,
            switch_off: |c| c.gen_zero_samples = false,
        }]
    }

    /// `opt_zero_samples` trims payloads, and a trimmed register a later message still reads
    /// looks to the allocation checker like a wrong value, so the checker's verdict alone does
    /// not clear it: the switch goes first — except for what only the allocator can cause
    /// (registers that overlap where they must not, no register left to spill), since
    /// switching `opt_zero_samples` off moves every register and an allocation bug can vanish
    /// with it without being its bug.
    fn switch_first(&self, f: &Finding) -> bool {
        !matches!(
            gen_cause(f),
            Some(
                GenCause::Check(
                    gen::CheckError::CompressedOverlap { .. }
                        | gen::CheckError::ResponseOverlap { .. }
                ) | GenCause::Compile(gen::CompileError::NoRegisterToSpill { .. })
            )
        )
    }

    /// Issue 17's goal: spill code runs, not just compiles, in a large share of cases.
    fn reach_goals(&self) -> &'static [ReachGoal] {
        &[ReachGoal {
            count: ReachCount::SpillAndFill,
            name: "spill+fill executed",
            goal: 0.40,
            status: None,
        }]
    }

    fn measurements(&self) -> Option<Vec<&'static str>> {
        Some(stats::MEASUREMENTS.to_vec())
    }

    fn record(&self, case: &Case) -> Result<Vec<(String, u64)>, String> {
        let (p, c) = compile(case, &OracleOptions::default(), &case.program, self.width)?;
        stats::record(&p, &c)
    }
}

/// What of the Gen backend's own caught a finding: its compile error or its allocation
/// checker's complaint.
enum GenCause<'a> {
    Compile(&'a gen::CompileError),
    Check(&'a gen::CheckError),
}

fn gen_cause(f: &Finding) -> Option<GenCause<'_>> {
    match f.cause.as_ref()? {
        Cause::Backend {
            error: BackendError::Gen(e),
        } => Some(GenCause::Compile(e)),
        Cause::AllocationCheck {
            error: CheckError::Gen(e),
        } => Some(GenCause::Check(e)),
        _ => None,
    }
}
