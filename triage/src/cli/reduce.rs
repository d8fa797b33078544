//! `gpufuzz reduce FILE`: reduce one `.ir` program or raw input while it shows the same bug
//! (signature with first bad pass), and print or write the result.

use super::config::{CaseArgs, ConfigArgs};
use super::error::CliError;
use super::input;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use triage::reduce::Reducer;
use triage::session;

#[derive(Args, Debug)]
pub struct ReduceArgs {
    /// A program in the text format or a raw input (`input.bin`), told apart by content.
    file: PathBuf,
    /// Read the file as raw fuzz bytes even if it looks like a program.
    #[arg(long)]
    raw: bool,
    #[command(flatten)]
    config: ConfigArgs,
    #[command(flatten)]
    case: CaseArgs,
    /// Write the reduced program here (default: print it).
    #[arg(long, short = 'o')]
    out: Option<PathBuf>,
    /// Wall-clock limit in seconds.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    time: u64,
    /// Print every attempt.
    #[arg(long)]
    log: bool,
}

pub fn run(a: ReduceArgs) -> Result<ExitCode, CliError> {
    let opts = a.config.oracle_for(&a.file)?;
    let case = input::load(&a.file, a.raw, &a.case)?
        .ok_or_else(|| CliError::Input(format!("{}: decodes to no program", a.file.display())))?;
    let reducer = Reducer {
        log_attempts: a.log,
        ..Reducer::default()
            .time_limit(Duration::from_secs(a.time))
            .progress(true)
    };
    let r = session::reduce_case(case, &opts, &reducer)?;
    let cfg = session::repro_config(&r.reduced.case, &opts);
    // With its `; case:` header: the file reproduces with the plant and target flags only.
    let text = fuzz::case::text::print_case(&r.reduced.case);
    let header = format!("; {}\n; signature: {}\n", r.finding, r.signature);
    match &a.out {
        Some(path) => {
            fuzz::store::write_atomically(path, (header + &text).as_bytes())
                .map_err(CliError::io(path))?;
            eprintln!("wrote {}", path.display());
            eprintln!(
                "reproduce: gpufuzz repro {}{}",
                path.display(),
                cfg.command_flags()
            );
        }
        None => print!("{header}{text}"),
    }
    eprintln!(
        "reduced {} -> {} instructions in {:.1}s ({} candidates, {} kept{}); bug: {}",
        r.reduced.before,
        r.reduced.after,
        r.reduced.elapsed.as_secs_f64(),
        r.reduced.runs,
        r.reduced.accepted,
        if r.reduced.truncated {
            ", stopped by a limit"
        } else {
            ""
        },
        r.signature
    );
    Ok(ExitCode::SUCCESS)
}
