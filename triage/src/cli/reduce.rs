//! `gpufuzz reduce FILE`: reduce one `.ir` program or raw input while it shows the same bug
//! (signature with first bad pass), and print or write the result. A folder is a fused
//! finding's batch ([`triage::fused`]): reduced as a batch when the bug needs the fusion, as
//! its one program when a program is wrong alone.

use super::config::{CaseArgs, ConfigArgs};
use super::input;
use clap::Args;
use fuzz::oracle::{Case, OracleOptions};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use triage::fused;
use triage::reduce::Reducer;
use triage::session;

#[derive(Args, Debug)]
pub struct ReduceArgs {
    /// A program in the text format or a raw input (`input.bin`), told apart by content; or a
    /// folder holding a fused finding's batch (`batch/`).
    file: PathBuf,
    /// Read the file as raw fuzz bytes even if it looks like a program.
    #[arg(long)]
    raw: bool,
    #[command(flatten)]
    config: ConfigArgs,
    #[command(flatten)]
    case: CaseArgs,
    /// Write the reduced program here (default: print it); for a batch, a folder to write its
    /// programs into (`00.ir` …).
    #[arg(long, short = 'o')]
    out: Option<PathBuf>,
    /// Wall-clock limit in seconds.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    time: u64,
    /// Print every attempt.
    #[arg(long)]
    log: bool,
}

pub fn run(a: ReduceArgs) -> Result<ExitCode, String> {
    let opts = a.config.oracle_for(&a.file)?;
    let reducer = Reducer {
        log_attempts: a.log,
        ..Reducer::default()
            .time_limit(Duration::from_secs(a.time))
            .progress(true)
    };
    let case = if a.file.is_dir() {
        let batch = input::load_batch(&a.file, a.raw, &a.case)?;
        let cases: Vec<Case> = batch.into_iter().map(|(_, case)| case).collect();
        match fused::first_finding(&cases, &opts) {
            // The bug needs the fusion: the batch is reduced.
            Some((_, f)) if f.fused() => return reduce_batch(&a, cases, &opts, &reducer),
            // A program wrong alone: its own bug, reduced alone.
            Some((k, _)) => {
                eprintln!("program {k} of the batch shows the finding alone: reducing it alone");
                cases[k].clone()
            }
            None => return Err(format!("{}: the batch shows no finding", a.file.display())),
        }
    } else {
        input::load(&a.file, a.raw, &a.case)?.ok_or("the input decodes to no program")?
    };
    let r = session::reduce_case(case, &opts, &reducer)?;
    let cfg = session::repro_config(&r.reduced.case, &opts);
    // With its `; case:` header: the file reproduces with the plant and target flags only.
    let text = fuzz::case::text::print_case(&r.reduced.case);
    let header = format!("; {}\n; signature: {}\n", r.finding, r.signature);
    match &a.out {
        Some(path) => {
            fuzz::store::write_atomically(path, (header + &text).as_bytes())
                .map_err(|e| format!("{}: {e}", path.display()))?;
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

/// Reduces a batch whose bug needs the fusion, and prints or writes it (`-o DIR`).
fn reduce_batch(
    a: &ReduceArgs,
    cases: Vec<Case>,
    opts: &OracleOptions,
    reducer: &Reducer,
) -> Result<ExitCode, String> {
    let r = fused::reduce_batch(cases, opts, reducer)?;
    let texts = r.cases.iter().map(fuzz::case::text::print_case);
    let named: Vec<(String, String)> = (0..).map(|k| format!("{k:02}.ir")).zip(texts).collect();
    let header = format!("; {}\n; signature: {}\n", r.finding, r.finding.signature());
    match &a.out {
        Some(dir) => {
            let io = |e: std::io::Error| format!("{}: {e}", dir.display());
            std::fs::create_dir_all(dir).map_err(io)?;
            for (name, text) in &named {
                fuzz::store::write_atomically(&dir.join(name), (header.clone() + text).as_bytes())
                    .map_err(io)?;
            }
            eprintln!("wrote {} programs to {}", named.len(), dir.display());
            let flags = session::repro_config(&r.cases[0], opts).command_flags();
            eprintln!("reproduce: gpufuzz repro {}{flags}", dir.display());
        }
        None => {
            print!("{header}");
            for (name, text) in &named {
                print!("; --- {name}\n{text}");
            }
        }
    }
    eprintln!(
        "reduced the batch {} -> {} programs, {} -> {} instructions in {:.1}s ({} batches \
         judged{}); bug: {}",
        r.before.0,
        r.after.0,
        r.before.1,
        r.after.1,
        r.elapsed.as_secs_f64(),
        r.runs,
        if r.truncated {
            ", stopped by the time limit"
        } else {
            ""
        },
        r.finding.signature()
    );
    Ok(ExitCode::SUCCESS)
}
