//! `gpufuzz fuzz`: the in-process fuzz loop on stable Rust.

use clap::Args;
use fuzz::driver::{self, FuzzOptions};
use fuzz::oracle::{self, OracleOptions};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct FuzzArgs {
    /// Seed of the input stream; the same seed and count give the same inputs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Stop after this many programs.
    #[arg(long)]
    runs: Option<u64>,
    /// Stop after this many seconds (default 60 when --runs is not given).
    #[arg(long)]
    time: Option<u64>,
    /// Worker threads.
    #[arg(long, short = 'j', default_value_t = 1)]
    jobs: usize,
    /// Output folder: findings go to OUT/findings/.
    #[arg(long, default_value = "fuzz-out")]
    out: PathBuf,
    /// Write the final counters as JSON.
    #[arg(long)]
    stats_json: Option<PathBuf>,
    #[command(flatten)]
    config: super::config::ConfigArgs,
    /// Raw inputs saved per signature (later hits are only counted).
    #[arg(long, default_value_t = 3)]
    keep: usize,
    /// Seconds between status lines (0: none).
    #[arg(long, default_value_t = 3)]
    status: u64,
    /// Exit with status 1 if anything was found (for CI).
    #[arg(long)]
    fail_on_finding: bool,
}

pub fn run(a: FuzzArgs) -> Result<ExitCode, String> {
    let time = match (a.time, a.runs) {
        (Some(t), _) => Some(Duration::from_secs(t)),
        (None, Some(_)) => None,
        (None, None) => Some(Duration::from_secs(60)),
    };
    let opts = FuzzOptions {
        seed: a.seed,
        runs: a.runs,
        time,
        jobs: a.jobs,
        out: Some(a.out.clone()),
        status_every: (a.status > 0).then(|| Duration::from_secs(a.status)),
        keep_per_signature: a.keep,
        repro_flags: a.config.flags(),
        ..FuzzOptions::default()
    };
    let oracle_opts: OracleOptions = a.config.oracle()?;
    eprintln!(
        "gpufuzz fuzz: seed {} jobs {} {} -> {}",
        a.seed,
        a.jobs,
        match (a.runs, time) {
            (Some(r), _) => format!("{r} programs"),
            (None, Some(t)) => format!("{}s", t.as_secs()),
            _ => String::new(),
        },
        a.out.display()
    );
    let stats = driver::fuzz(&opts, &|bytes| oracle::judge_bytes(bytes, &oracle_opts));
    if let Some(path) = &a.stats_json {
        let json = serde_json::to_string_pretty(&stats).map_err(|e| e.to_string())?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        fuzz::store::write_atomically(path, json.as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let found = stats.total_findings();
    if found > 0 {
        eprintln!("{found} finding(s); distinct signatures:");
        for (sig, n) in &stats.signatures {
            eprintln!("  {n:>6}  {sig}");
        }
        for dir in &stats.saved {
            eprintln!(
                "  reproduce: gpufuzz repro {dir}/input.bin {}",
                a.config.flags()
            );
        }
    }
    Ok(if found > 0 && a.fail_on_finding {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
