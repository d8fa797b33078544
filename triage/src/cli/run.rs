//! `gpufuzz run FILE.ir`: interpret a program and print every invocation's outputs; with
//! `--target T`, compile it for that target and run it on the simulator instead. The file's
//! `; expect` lines are checked against the interpreter either way (a difference: exit 1).

use super::config::ConfigArgs;
use super::error::CliError;
use super::input;
use clap::Args;
use compiler::interp::{self, InterpError, RunOptions};
use compiler::ir::{text, Program};
use compiler::passes::pipeline::{self, PassConfig, PipelineOptions};
use fuzz::oracle::{Case, Coverage, OracleOptions};
use fuzz::targets::{self, middle, shown::format_results, Target};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The program (`.ir`, text format; a `; case:` header sets the configuration).
    file: PathBuf,
    /// Interpreter fuel per invocation.
    #[arg(long, default_value_t = 10_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    fuel: u64,
    /// Interpreter fuel for the whole dispatch (all invocations together): a bound on how long
    /// `run` may take (10^9 IR instructions, some seconds).
    #[arg(long, default_value_t = 1_000_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    total_fuel: u64,
    /// Run the middle end and print the IR after every pass run (and after out-of-SSA).
    #[arg(long)]
    print_after_all: bool,
    /// With `--target`: what to print besides outputs and statistics (`asm`: the disassembly;
    /// `spirv`, the same: the `vulkan` target's disassembly is SPIR-V). With `--target vulkan`
    /// also `vk_shader_test`, `amber` or `spvasm`: print only that standalone repro (vkrunner
    /// script, Amber script, SPIR-V assembly), probes holding the interpreter's values.
    #[arg(long, value_name = "WHAT")]
    emit: Option<String>,
    /// With `--target turnip`: print each ir3 instruction the first differing invocation (or
    /// invocation 0) executed on our executor, with its cycle and the registers it wrote.
    #[arg(long)]
    trace: bool,
    /// Planted bugs for `--print-after-all`, the targets to compile for.
    #[command(flatten)]
    config: super::config::ConfigArgs,
    #[command(flatten)]
    case: super::config::CaseArgs,
}

pub fn run(a: RunArgs) -> Result<ExitCode, CliError> {
    // Every flag is checked even when this run does not use it: a typo must not pass silently.
    a.config.check()?;
    a.case.check()?;
    let case = input::read_case(&a.file, &a.case)?;
    let config = a.case.apply(case.config)?;
    let program = case.program;
    if a.emit.is_some() && a.config.targets.is_empty() {
        return Err(CliError::Usage(
            "--emit shows a target's code: give --target T too".into(),
        ));
    }
    if a.trace && !a.config.targets.iter().any(|t| t == "turnip") {
        return Err(CliError::Usage(
            "--trace follows ir3's code on our executor: give --target turnip".into(),
        ));
    }
    if a.print_after_all {
        let pass_config = PassConfig {
            plants: a.config.plants()?,
        };
        let disabled: Vec<String> = config
            .disabled_pass_names()
            .into_iter()
            .map(String::from)
            .collect();
        print_after_all(&program, pass_config, &disabled)?;
    }
    if !a.config.targets.is_empty() {
        let form = (a.emit.as_deref()).and_then(|f| standalone_form(f, &a.config.targets));
        if let Some((format, target)) = form {
            let case = Case { config, program };
            return print_standalone(&case, &a.config, target, format);
        }
        let asm = match a.emit.as_deref() {
            None => false,
            Some("asm" | "spirv") => true,
            Some(other) => {
                let standalone: Vec<String> = (targets::all().iter())
                    .filter(|p| !p.standalone_forms().is_empty())
                    .map(|p| {
                        let forms = p.standalone_forms().join(", ");
                        format!("(with --target {}) {forms}", p.name())
                    })
                    .collect();
                return Err(CliError::Usage(format!(
                    "--emit {other}: expected asm, spirv or {}",
                    standalone.join(" or ")
                )));
            }
        };
        let case = Case { config, program };
        let opts = OracleOptions {
            trace: a.trace,
            ..a.config.oracle()?
        };
        let mut clean = true;
        for target in &opts.targets {
            println!("// target {target}");
            // Compiled the way the fuzz oracle compiles it: the same middle end, then the
            // target's own compile for the case configuration.
            let optimised = middle::optimise(&case, &opts, &mut Coverage::default())
                .map_err(|f| f.to_string())?;
            let pipeline = targets::by_name(target)
                .ok_or_else(|| CliError::Failed(format!("no target {target:?}")))?;
            let shown = pipeline.show(&case, &opts, &optimised, asm)?;
            print!("{}", shown.text);
            clean &= shown.clean;
        }
        if let Some(unmet) = input::unmet_expectation(&a.file, &case.program, None)? {
            eprintln!("expectation not met: {unmet}");
            clean = false;
        }
        // A fault, timeout, hazard or checker error is not a clean run: say so in the status.
        return Ok(if clean {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    let opts = RunOptions {
        fuel: a.fuel,
        total_fuel: a.total_fuel,
    };
    let results = interp::run(&program, &opts).map_err(|e| {
        let hint = match e {
            InterpError::OutOfFuel { .. } => " (raise it with --fuel N)",
            InterpError::OutOfTotalFuel { .. } => " (raise it with --total-fuel N)",
            _ => "",
        };
        CliError::Input(format!("{}: {e}{hint}", a.file.display()))
    })?;
    print!("{}", format_results(&program.dispatch, &results));
    if let Some(unmet) = input::unmet_expectation(&a.file, &program, Some(&results.outputs))? {
        eprintln!("expectation not met: {unmet}");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// The target whose standalone repro (`Target::standalone_forms`) has the `--emit` form
/// `format`: one of `targets` if one has it, else the first that does, if any.
fn standalone_form<'f>(
    format: &'f str,
    targets: &[String],
) -> Option<(&'f str, &'static dyn Target)> {
    let has = |p: &&'static dyn Target| p.standalone_forms().contains(&format);
    let all = targets::all().iter().copied();
    let target = (all.clone().filter(has))
        .find(|p| targets.iter().any(|t| t == p.name()))
        .or_else(|| all.clone().find(has))?;
    Some((format, target))
}

/// Prints `case`'s standalone repro in `format`, a form of `target`'s.
fn print_standalone(
    case: &Case,
    config: &ConfigArgs,
    target: &dyn Target,
    format: &str,
) -> Result<ExitCode, CliError> {
    if config.targets != [target.name()] {
        return Err(CliError::Usage(format!(
            "--emit {format} needs --target {} (and no other target)",
            target.name()
        )));
    }
    let opts = config.oracle()?;
    print!("{}", target.standalone(case, &opts, format)?);
    Ok(ExitCode::SUCCESS)
}

/// Runs the default middle end on a copy, printing the program after each pass run.
fn print_after_all(
    program: &Program,
    config: PassConfig,
    disabled: &[String],
) -> Result<(), CliError> {
    let mut p = program.clone();
    let mut run = 0;
    let mut show = |name: &str, p: &Program| {
        println!("// IR after {name} (run {run})\n{}", text::print_program(p));
        run += 1;
    };
    let mut opts = PipelineOptions {
        verify: true,
        after_pass: Some(&mut show),
        config,
        disabled: disabled.to_vec(),
        ..PipelineOptions::default()
    };
    pipeline::run_pipeline(&mut p, &mut opts).map_err(|e| e.to_string())?;
    pipeline::to_registers(&mut p, true, &config).map_err(|e| e.to_string())?;
    println!("// IR after from_ssa\n{}", text::print_program(&p));
    Ok(())
}
