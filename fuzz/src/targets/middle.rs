//! The middle-end pipeline: optimise with the case's pass toggles, go out of SSA, and
//! interpret the result. A miscompile in any middle-end pass shows here before any backend
//! runs; a verifier failure names the pass that broke the IR. Its statistics ([`stats`]) are
//! the middle end's own counts.

pub mod stats;

use super::shown::Shown;
use super::target::Target;
use crate::case::coverage::Coverage;
use crate::case::interpreter::INTERPRETER;
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::cause::Cause;
use crate::finding::{Finding, FindingKind};
use compiler::interp::{InterpError, RunOptions};
use compiler::ir::Program;
use compiler::passes::pipeline::{self, PassConfig, PipelineError, PipelineOptions, PASSES};
use compiler::profile::{self, Phase};
use sim::dispatch::Results;

/// Optimised IR, re-interpreted.
pub struct Middle;

/// The middle end's target name: the finding's target of a middle-end failure, whichever
/// target's run it broke.
pub const NAME: &str = "middle";

impl Target for Middle {
    fn name(&self) -> &'static str {
        NAME
    }

    fn description(&self) -> &'static str {
        "the middle end: optimised IR taken out of SSA, re-interpreted"
    }

    /// It is the interpreter's time (again): no backend's to hold against it.
    fn bench_against_interpreter(&self) -> bool {
        false
    }

    fn run(
        &self,
        _case: &Case,
        optimised: &Program,
        opts: &OracleOptions,
        coverage: &mut Coverage,
    ) -> Result<Results, Box<Finding>> {
        let run = RunOptions {
            fuel: opts.fuel * 4,
            ..RunOptions::default()
        };
        // Out of SSA here: the interpreter runs register-form IR too, so from_ssa is checked
        // on every case (the a6xx backend consumes SSA).
        let mut registers = optimised.clone();
        let config = PassConfig {
            plants: opts.plants,
        };
        if profile::time(Phase::FromSsa, || {
            pipeline::to_registers(&mut registers, true, &config)
        })
        .map_err(pipeline_finding)?
        {
            coverage.passes_changed.push("from_ssa");
        }
        profile::time(Phase::Simulate, || {
            INTERPRETER.with_borrow_mut(|i| i.run(&registers, &run))
        })
        .map_err(|e| {
            let kind = match e {
                InterpError::OutOfFuel { .. } | InterpError::OutOfTotalFuel { .. } => {
                    FindingKind::Timeout
                }
                _ => FindingKind::Mismatch,
            };
            let mut f = Finding::new(
                kind,
                self.name(),
                format!("the optimised program fails to run: {e}"),
            );
            f.set_cause(Cause::Interpreter);
            Box::new(f)
        })
    }

    /// The optimised IR.
    fn show(
        &self,
        _case: &Case,
        _opts: &OracleOptions,
        optimised: &Program,
        _asm: bool,
    ) -> Result<Shown, String> {
        Ok(Shown {
            text: compiler::ir::text::print_program(optimised),
            clean: true,
        })
    }

    /// The optimised IR, its first differing output's store marked.
    fn listing(
        &self,
        _case: &Case,
        _opts: &OracleOptions,
        optimised: &Program,
        first_output: Option<u32>,
    ) -> Option<String> {
        let marker = first_output.map(|slot| format!("store_output {slot},"));
        let mut s = String::new();
        for line in compiler::ir::text::print_program(optimised).lines() {
            s.push_str(line);
            if marker
                .as_ref()
                .is_some_and(|m| line.trim_start().starts_with(m.as_str()))
            {
                s.push_str("   ; <-- first difference is in this slot");
            }
            s.push('\n');
        }
        Some(s)
    }

    fn measurements(&self) -> Option<Vec<&'static str>> {
        Some(stats::MEASUREMENTS.to_vec())
    }

    fn record(&self, case: &Case) -> Result<Vec<(String, u64)>, String> {
        stats::record(&case.program)
    }
}

/// The names of the optional passes a case switches off.
pub fn disabled_passes(case: &Case) -> Vec<String> {
    PASSES
        .iter()
        .enumerate()
        .filter(|(i, _)| case.config.disabled_passes & (1 << i) != 0)
        .map(|(_, (name, _))| name.to_string())
        .collect()
}

/// Runs the case's middle end on a copy of its program (still SSA); notes which passes fired.
/// Every pipeline starts from this; its failures are the `middle` target's findings.
pub fn optimise(
    case: &Case,
    opts: &OracleOptions,
    coverage: &mut Coverage,
) -> Result<Program, Box<Finding>> {
    run_middle_end(case, opts, coverage, false)
}

/// [`optimise`] for a caller that has just verified the case's program (the oracle, to blame
/// the generator): the pipeline does not verify it a second time.
pub fn optimise_verified(
    case: &Case,
    opts: &OracleOptions,
    coverage: &mut Coverage,
) -> Result<Program, Box<Finding>> {
    run_middle_end(case, opts, coverage, true)
}

fn run_middle_end(
    case: &Case,
    opts: &OracleOptions,
    coverage: &mut Coverage,
    input_verified: bool,
) -> Result<Program, Box<Finding>> {
    let mut p = case.program.clone();
    let mut popts = PipelineOptions {
        limit: opts.pass_limit,
        verify: true,
        input_verified,
        disabled: disabled_passes(case),
        config: PassConfig {
            plants: opts.plants,
        },
        after_pass: None,
    };
    let report = pipeline::run_pipeline(&mut p, &mut popts).map_err(pipeline_finding)?;
    for (name, _) in PASSES {
        if report.fired(name) > 0 && !coverage.passes_changed.contains(name) {
            coverage.passes_changed.push(name);
        }
    }
    Ok(p)
}

fn pipeline_finding(e: PipelineError) -> Box<Finding> {
    let error = match &e {
        PipelineError::Verify { pass, .. } => {
            let mut f = Finding::new(FindingKind::Verify, NAME, e.to_string());
            f.pass = Some(pass.to_string());
            return Box::new(f);
        }
        PipelineError::InvalidInput(_) => "InvalidInput",
        PipelineError::UnknownPass(_) => "UnknownPass",
        PipelineError::FromSsa(_) => "FromSsa",
    };
    let cause = Cause::Middle {
        error: error.into(),
    };
    Box::new(Finding::caused(
        FindingKind::CompileError,
        NAME,
        e.to_string(),
        cause,
    ))
}
