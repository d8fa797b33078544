//! `gpufuzz fuzz`: the fuzz loop on stable Rust, in this process or, for long runs, through
//! worker processes with a per-input deadline (`--fork`); `--resume OUT` continues a killed
//! run; `gpufuzz fuzz-worker` is the worker's side.

use super::config::ConfigArgs;
use super::output;
use clap::{Args, Parser};
use compiler::planted::Plant;
use fuzz::driver::{self, FuzzOptions, FuzzStats, Summary};
use fuzz::oracle::{self, OracleOptions};
use fuzz::worker::WorkerSpec;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Runs longer than this use worker processes unless `--no-fork` says otherwise.
const FORK_AFTER: Duration = Duration::from_secs(300);

#[derive(Args, Debug)]
pub struct FuzzArgs {
    /// Seed of the input stream; the same seed and count give the same inputs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Stop after this many programs.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    runs: Option<u64>,
    /// Stop after this many seconds (default 60 when --runs is not given).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    time: Option<u64>,
    /// Worker threads (with --fork, worker processes) [default: 1; with --resume, as many as
    /// the resumed run had].
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// Output folder: findings go to OUT/findings/, the run's figures to OUT/summary.json
    /// (rewritten every status period; `--resume OUT` continues from it). Created and
    /// test-written before any work.
    #[arg(long, default_value = "fuzz-out")]
    out: PathBuf,
    /// Write the final counters as JSON (checked writable before any work).
    #[arg(long)]
    stats_json: Option<PathBuf>,
    #[command(flatten)]
    config: ConfigArgs,
    /// Raw inputs saved per signature (later hits are only counted).
    #[arg(long, default_value_t = 3)]
    keep: usize,
    /// Seconds between status lines (0: none).
    #[arg(long, default_value_t = 3)]
    status: u64,
    /// Exit with status 1 if anything was found (for CI).
    #[arg(long)]
    fail_on_finding: bool,
    /// Judge inputs in worker processes with a deadline per input: a hang or crash becomes a
    /// finding (`timeout` / `crash`) and a fresh worker goes on. The default for runs over
    /// five minutes and with test plants.
    #[arg(long, conflicts_with = "no_fork")]
    fork: bool,
    /// Judge in this process even for a long run (faster; a hang stops the run).
    #[arg(long)]
    no_fork: bool,
    /// With worker processes: wall-clock seconds one input may take.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    input_timeout: u64,
    /// Continue the run whose output folder is OUT (killed or stopped): same seed, plants and
    /// targets, from the first input not yet judged, toward the same --runs or the --time left.
    #[arg(long, value_name = "OUT", conflicts_with_all = ["seed", "runs", "time", "out", "plants", "targets"])]
    resume: Option<PathBuf>,
}

/// The configuration flags a summary recorded, read back as the command line read them.
#[derive(clap::Parser)]
struct SavedFlags {
    #[command(flatten)]
    config: ConfigArgs,
}

/// What a run is: fresh from the flags, or resumed from a summary.
struct Plan {
    seed: u64,
    runs: Option<u64>,
    time: Option<Duration>,
    out: PathBuf,
    config: ConfigArgs,
    start: u64,
    earlier: FuzzStats,
    jobs: usize,
}

fn plan(a: &FuzzArgs) -> Result<Plan, String> {
    if let Some(out) = &a.resume {
        let s = Summary::read(out)?;
        let words = std::iter::once("gpufuzz").chain(s.flags.split_whitespace());
        let config = SavedFlags::try_parse_from(words)
            .map_err(|e| format!("{}: flags {:?}: {e}", out.display(), s.flags))?
            .config;
        let time = s.seconds_left.map(Duration::from_secs_f64);
        if s.runs.is_some_and(|r| s.next_index >= r) || time.is_some_and(|t| t.is_zero()) {
            return Err(format!(
                "{}: the run is complete ({} programs); nothing to resume",
                out.display(),
                s.stats.programs
            ));
        }
        return Ok(Plan {
            seed: s.seed,
            runs: s.runs,
            time,
            out: out.clone(),
            config,
            start: s.next_index,
            jobs: a.jobs.map_or(s.jobs.max(1), usize::from),
            // An error that stopped the earlier part is not this part's.
            earlier: FuzzStats {
                save_errors: Vec::new(),
                ..s.stats
            },
        });
    }
    if !a.config.case.is_empty() || !a.config.disabled.is_empty() {
        return Err(
            "--case and --disable-pass set one case's configuration (repro, reduce, \
                    run); every fuzz input decodes its own"
                .into(),
        );
    }
    Ok(Plan {
        seed: a.seed,
        runs: a.runs,
        time: match (a.time, a.runs) {
            (Some(t), _) => Some(Duration::from_secs(t)),
            (None, Some(_)) => None,
            (None, None) => Some(Duration::from_secs(60)),
        },
        out: a.out.clone(),
        config: a.config.clone(),
        start: 0,
        earlier: FuzzStats::default(),
        jobs: a.jobs.map_or(1, usize::from),
    })
}

pub fn run(a: FuzzArgs) -> Result<ExitCode, String> {
    let p = plan(&a)?;
    let oracle_opts: OracleOptions = p.config.oracle()?;
    // Where results go is checked before any work: a run must not find bugs it cannot keep.
    output::prepare_dir(&p.out.join("findings"))?;
    if let Some(path) = &a.stats_json {
        output::prepare_file(path)?;
    }
    let test_plants = oracle_opts.plants.iter().any(Plant::test_only);
    let fork = a.fork || (!a.no_fork && (test_plants || p.time.is_some_and(|t| t > FORK_AFTER)));
    if test_plants && !fork {
        return Err(
            "test plants hang or crash the process: they need worker processes \
                    (drop --no-fork)"
                .into(),
        );
    }
    let flags = p.config.flags();
    let worker = if fork {
        let exe = std::env::current_exe().map_err(|e| format!("cannot find gpufuzz: {e}"))?;
        let mut command = vec![exe.into_os_string(), "fuzz-worker".into()];
        command.extend(["--seed".into(), p.seed.to_string().into()]);
        command.extend(flags.split_whitespace().map(Into::into));
        Some(WorkerSpec {
            command,
            deadline: Duration::from_secs(a.input_timeout),
        })
    } else {
        None
    };
    let opts = FuzzOptions {
        seed: p.seed,
        runs: p.runs,
        time: p.time,
        jobs: p.jobs,
        out: Some(p.out.clone()),
        status_every: (a.status > 0).then(|| Duration::from_secs(a.status)),
        keep_per_signature: a.keep,
        repro_flags: flags.clone(),
        environment: oracle_opts.environment(),
        start: p.start,
        earlier: p.earlier,
        worker,
        ..FuzzOptions::default()
    };
    eprintln!(
        "gpufuzz fuzz: seed {} jobs {}{} {}{} -> {}",
        p.seed,
        p.jobs,
        if fork {
            format!(" (worker processes, {}s per input)", a.input_timeout)
        } else {
            String::new()
        },
        match (p.runs, p.time) {
            (Some(r), _) => format!("{r} programs"),
            (None, Some(t)) => format!("{}s", t.as_secs()),
            _ => String::new(),
        },
        if p.start > 0 {
            format!(" from input {}", p.start)
        } else {
            String::new()
        },
        p.out.display()
    );
    let stats = driver::fuzz(&opts, &|bytes| oracle::judge_bytes(bytes, &oracle_opts));
    if let Some(path) = &a.stats_json {
        let json = serde_json::to_string_pretty(&stats).map_err(|e| e.to_string())?;
        fuzz::store::write_atomically(path, json.as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    print_summary(&stats, &p.out, &flags);
    if !stats.save_errors.is_empty() {
        return Err(format!(
            "{} finding(s) or the summary could not be saved; the run stopped: {}",
            stats.save_errors.len(),
            stats.save_errors[0]
        ));
    }
    Ok(if stats.total_findings() > 0 && a.fail_on_finding {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn print_summary(stats: &FuzzStats, out: &std::path::Path, flags: &str) {
    eprintln!(
        "done: {} programs in {:.0}s ({:.0}/s), {} finding(s), {} distinct; figures in {}",
        stats.programs,
        stats.seconds,
        stats.programs_per_second,
        stats.total_findings(),
        stats.signatures.len(),
        out.join("summary.json").display()
    );
    for (sig, n) in &stats.signatures {
        eprintln!("  {n:>6}  {sig}");
    }
    if stats.reach.cases > 0 {
        eprintln!("reach (what the backends' allocators executed, against the goals):");
        eprint!("{}", stats.reach.report());
    }
    for dir in &stats.saved {
        eprintln!(
            "  reproduce: {}",
            fuzz::store::repro_command(std::path::Path::new(dir), flags)
        );
    }
    if !stats.saved.is_empty() {
        eprintln!("  triage: gpufuzz triage {}", out.display());
    }
}

/// `gpufuzz fuzz-worker`: the worker process of `fuzz --fork` (reads input indices on stdin,
/// answers one JSON line each); not meant to be run by hand.
#[derive(Args, Debug)]
pub struct WorkerArgs {
    /// Seed of the input stream.
    #[arg(long)]
    seed: u64,
    #[command(flatten)]
    config: ConfigArgs,
}

pub fn worker(a: WorkerArgs) -> Result<ExitCode, String> {
    let opts = a.config.oracle()?;
    let d = FuzzOptions::default();
    fuzz::worker::serve(a.seed, d.min_len, d.max_len, &|bytes| {
        oracle::judge_bytes(bytes, &opts)
    })
    .map_err(|e| format!("worker: {e}"))?;
    Ok(ExitCode::SUCCESS)
}
