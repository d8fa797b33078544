//! `gpufuzz selftest`: how fast the fuzzer finds each planted bug and how small the repro
//! gets (see `triage::selftest`); exit status 1 if some available bug was missed from some
//! seed, a finding did not point at its plant, or the run with nothing planted found anything.

use super::error::CliError;
use clap::Args;
use compiler::planted::Plant;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use triage::selftest::{self, table, SelftestOptions};

#[derive(Args, Debug)]
pub struct SelftestArgs {
    /// Fuzzing time per bug and seed, in seconds.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    budget_secs: u64,
    /// Seeds 1..=K.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..))]
    seeds: u64,
    /// First seed (seeds FIRST..FIRST+K).
    #[arg(long, default_value_t = 1)]
    first_seed: u64,
    /// Only these planted bugs (repeatable); default the whole catalog.
    #[arg(long = "plant", value_name = "NAME")]
    plants: Vec<String>,
    /// Only planted bugs that show on these targets (repeatable; checked against the target
    /// registry).
    #[arg(long = "target", value_name = "T")]
    targets: Vec<String>,
    /// Skip the run with nothing planted.
    #[arg(long)]
    no_baseline: bool,
    /// Time limit of each reduction, in seconds.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    reduce_secs: u64,
    /// Write the table and every hunt as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
}

pub fn run(a: SelftestArgs) -> Result<ExitCode, CliError> {
    let plants = if a.plants.is_empty() {
        Plant::ALL
            .iter()
            .copied()
            .filter(|p| !p.test_only())
            // A plant in an opt-in target (a real driver) is hunted only when named.
            .filter(|p| {
                p.targets() == "all"
                    || fuzz::targets::select(&[])
                        .is_ok_and(|d| p.targets().split_whitespace().any(|t| d.contains(&t)))
            })
            .collect()
    } else {
        a.plants
            .iter()
            .map(|n| {
                Plant::from_name(n).ok_or_else(|| {
                    format!("unknown plant {n:?}; `gpufuzz plant --list` shows the catalog")
                })
            })
            .collect::<Result<_, _>>()?
    };
    let targets = fuzz::targets::select(&a.targets)?;
    let plants: Vec<Plant> = if a.targets.is_empty() {
        plants
    } else {
        plants
            .into_iter()
            .filter(|p| {
                p.targets() == "all" || p.targets().split_whitespace().any(|t| targets.contains(&t))
            })
            .collect()
    };
    if plants.is_empty() && a.no_baseline {
        return Err(CliError::Usage(
            "no planted bug shows on the targets given: nothing to measure".into(),
        ));
    }
    let so = SelftestOptions {
        budget: Duration::from_secs(a.budget_secs),
        seeds: (a.first_seed..a.first_seed + a.seeds).collect(),
        plants,
        baseline: !a.no_baseline,
        reduce_time: Duration::from_secs(a.reduce_secs),
        progress: true,
        ..SelftestOptions::default()
    };
    eprintln!(
        "gpufuzz selftest: {} planted bug(s){}, seeds {:?}, {}s per seed, one core",
        so.plants.len(),
        if so.baseline { " + none" } else { "" },
        so.seeds,
        a.budget_secs
    );
    if let Some(path) = &a.json {
        super::output::prepare_file(path)?;
    }
    let result = selftest::run(&so);
    let rows = table::rows(&result);
    print!("{}", table::format(&rows, result.budget_secs));
    if let Some(path) = &a.json {
        let json = serde_json::json!({ "table": rows, "selftest": result });
        let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
        fuzz::store::write_atomically(path, text.as_bytes()).map_err(CliError::io(path))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(if table::passed(&rows) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
