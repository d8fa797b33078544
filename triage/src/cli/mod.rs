//! The subcommands of `gpufuzz`, one file each; this file holds the argument types.

mod bench;
mod config;
mod error;
mod fmt;
mod fuzz;
mod input;
mod output;
mod plant;
mod reduce;
mod report;
mod repro;
mod run;
mod selftest;
mod shapes;
mod stats;
mod triage;

use clap::{Parser, Subcommand};
pub use error::CliError;
use std::process::ExitCode;

/// gpufuzz: differential fuzzing of GPU shader compilers.
///
/// Random SSA programs are compiled by a Mesa-style compiler for simulated Intel Gen and Adreno a6xx GPUs, run, and compared with a
/// reference interpreter; every difference is saved with the command that reproduces it.
/// Start with `gpufuzz fuzz`; findings go to `fuzz-out/`, `gpufuzz triage fuzz-out` files them.
#[derive(Parser, Debug)]
#[command(name = "gpufuzz", version)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Interpret a program (and compile it for a target) and print every invocation's outputs.
    Run(run::RunArgs),
    /// Parse a program and print it in the canonical text format (docs/ir.md).
    Fmt(fmt::FmtArgs),
    /// Fuzz: generate programs, compare every pipeline with the interpreter, save findings.
    Fuzz(fuzz::FuzzArgs),
    /// Re-judge one saved finding (`program.ir` with its header, or `input.bin`) or any program.
    Repro(repro::ReproArgs),
    /// Reduce one `.ir` program or raw input while it shows the same bug.
    Reduce(reduce::ReduceArgs),
    /// Reduce, bisect and bucket a fuzz output folder's findings; one report per bug.
    Triage(triage::TriageArgs),
    /// Measure end-to-end fuzzing throughput on one core, split by stage.
    Bench(bench::BenchArgs),
    /// The catalog of planted bugs (name, pass, targets, story).
    Plant(plant::PlantArgs),
    /// Measure the fuzzer on planted bugs: time to the first finding, reduced repro size.
    Selftest(selftest::SelftestArgs),
    /// Compile a corpus for a target and record shader-db style statistics as JSON.
    Stats(stats::StatsArgs),
    /// Compare two stats files the way Mesa's shader-db report.py does.
    Report(report::ReportArgs),
    /// The worker process of `fuzz --fork` (internal).
    #[command(hide = true)]
    FuzzWorker(fuzz::WorkerArgs),
    /// The Vulkan worker process (started by the `vulkan` target; talks on stdin/stdout).
    #[command(hide = true)]
    VkWorker,
}

/// Runs a parsed command line.
pub fn dispatch(cli: Cli) -> Result<ExitCode, CliError> {
    match cli.command {
        Command::Run(a) => run::run(a),
        Command::Fmt(a) => fmt::run(a),
        Command::Fuzz(a) => fuzz::run(a),
        Command::Repro(a) => repro::run(a),
        Command::Reduce(a) => reduce::run(a),
        Command::Triage(a) => triage::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Plant(a) => plant::run(a),
        Command::Selftest(a) => selftest::run(a),
        Command::Stats(a) => stats::run(a),
        Command::Report(a) => report::run(a),
        Command::FuzzWorker(a) => fuzz::worker(a),
        Command::VkWorker => Ok(vulkan_runner::serve::serve()),
    }
}
