//! `gpufuzz report A.json B.json`: compare two `gpufuzz stats` files in the layout of Mesa's
//! shader-db `report.py`, optionally with an HTML page of histograms.

use super::error::CliError;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use triage::stats::compare::compare;
use triage::stats::text::{format_report, TextOptions};
use triage::stats::{html, StatsFile};

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// The stats before the change.
    before: PathBuf,
    /// The stats after it.
    after: PathBuf,
    /// Only these measurements, comma-separated (default: all both files have).
    #[arg(long, short = 'm', value_delimiter = ',')]
    measurements: Vec<String>,
    /// Leave out measurements nothing changed.
    #[arg(long, short = 'c')]
    changes_only: bool,
    /// List every helped and HURT program first.
    #[arg(long)]
    list: bool,
    /// Also write an HTML page with a histogram of relative change per measurement.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

pub fn run(a: ReportArgs) -> Result<ExitCode, CliError> {
    if let Some(path) = &a.html {
        super::output::prepare_file(path)?;
    }
    let before = StatsFile::read(&a.before)?;
    let after = StatsFile::read(&a.after)?;
    if before.target != after.target {
        eprintln!(
            "note: comparing target {} with target {}",
            before.target, after.target
        );
    }
    for m in &a.measurements {
        if !before.measurements.contains(m) || !after.measurements.contains(m) {
            return Err(CliError::Usage(format!(
                "measurement {m:?} is not in both files"
            )));
        }
    }
    let c = compare(&before, &after, &a.measurements);
    let opts = TextOptions {
        changes_only: a.changes_only,
        list_programs: a.list,
    };
    print!("{}", format_report(&c, opts));
    if let Some(path) = &a.html {
        fuzz::store::write_atomically(path, html::page(&before, &after, &c).as_bytes())
            .map_err(CliError::io(path))?;
    }
    Ok(ExitCode::SUCCESS)
}
