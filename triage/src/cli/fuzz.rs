//! `gpufuzz fuzz`: the fuzz loop on stable Rust, in this process or, for long runs, through
//! worker processes with a per-input deadline (`--fork`); `--resume OUT` continues a killed
//! or finished run (with a new budget if given); `gpufuzz fuzz-worker` is the worker's side.
//! An output folder holds one run: a fresh run refuses a non-empty one unless `--force`d.
//! Progress (status lines) goes to stderr, results (`NEW` findings, the closing summary) to
//! stdout.

use super::config::{ConfigArgs, PinArgs};
use super::error::CliError;
use super::output;
use clap::{Args, Parser};
use compiler::planted::Plant;
use fuzz::fuzz_loop::{self, FuzzOptions, FuzzStats, Summary};
use fuzz::oracle::{self, OracleOptions};
use fuzz::worker::WorkerSpec;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Runs longer than this use worker processes unless `--no-fork` says otherwise.
const FORK_AFTER: Duration = Duration::from_secs(300);

#[derive(Args, Debug)]
pub struct FuzzArgs {
    /// Seed of the input stream; the same seed and count give the same inputs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Stop after this many programs (with --resume: this many more).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    runs: Option<u64>,
    /// Stop after this many seconds (default 60 when --runs is not given; with --resume: this
    /// many more). A deadline: inputs still running a few seconds past it are abandoned
    /// (counted, not judged).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    time: Option<u64>,
    /// Worker threads (with --fork, worker processes) [default: 1; with --resume, as many as
    /// the resumed run had].
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// Output folder: findings go to OUT/findings/, the run's figures to OUT/summary.json
    /// (rewritten every status period; `--resume OUT` continues from it). Created and
    /// test-written before any work; a folder that is not empty is refused (see --resume and
    /// --force).
    #[arg(long, default_value = "fuzz-out")]
    out: PathBuf,
    /// Start over in a non-empty output folder: its findings, reports and summary are deleted
    /// first.
    #[arg(long, conflicts_with = "resume")]
    force: bool,
    /// Print what the backends' allocators executed: a second status line, and the reach table
    /// against its goals in the closing summary (docs/reach.md). `summary.json` always has it.
    #[arg(long)]
    reach: bool,
    /// Write the final counters as JSON (checked writable before any work).
    #[arg(long)]
    stats_json: Option<PathBuf>,
    #[command(flatten)]
    config: ConfigArgs,
    #[command(flatten)]
    pins: PinArgs,
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
    /// Programs judged together: a target that fuses (`vulkan`) runs them as one shader, and
    /// a program wrong there is re-run alone to say whether the bug is its own or the fused
    /// shader's (docs/fusion.md). Batches are consecutive inputs, so the same seed and --fuse
    /// give the same findings; with worker processes a batch may take as many
    /// --input-timeout as it has programs [default: 1; lavapipe 22.3 measured no faster
    /// fused].
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    fuse: Option<u16>,
    /// With worker processes: wall-clock seconds one input may take [default: 10].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    input_timeout: Option<u64>,
    /// Continue the run whose output folder is OUT: same seed, plants and targets, from the
    /// first input not yet judged, toward the same --runs or the --time left; --runs N or
    /// --time T instead give it N more programs or T more seconds (so a finished run can be
    /// extended).
    #[arg(long, value_name = "OUT", conflicts_with_all = ["seed", "out", "plants", "targets", "pins"])]
    resume: Option<PathBuf>,
}

/// The configuration flags a summary recorded, read back as the command line read them.
#[derive(clap::Parser)]
struct SavedFlags {
    #[command(flatten)]
    config: ConfigArgs,
    #[command(flatten)]
    pins: PinArgs,
}

/// What a run is: fresh from the flags, or resumed from a summary.
struct Plan {
    seed: u64,
    runs: Option<u64>,
    time: Option<Duration>,
    out: PathBuf,
    config: ConfigArgs,
    pins: PinArgs,
    start: u64,
    earlier: FuzzStats,
    jobs: usize,
    /// `--fuse`, given or recorded by the resumed run.
    fuse: Option<usize>,
}

fn plan(a: &FuzzArgs) -> Result<Plan, CliError> {
    if let Some(out) = &a.resume {
        let s = Summary::read(out)?;
        let words = std::iter::once("gpufuzz").chain(s.flags.split_whitespace());
        let SavedFlags { config, pins } = SavedFlags::try_parse_from(words)
            .map_err(|e| format!("{}: flags {:?}: {e}", out.display(), s.flags))?;
        // A new budget counts from where the run stopped; without one, the old budget's rest.
        let (runs, time) = if a.runs.is_some() || a.time.is_some() {
            let runs = a.runs.map(|n| s.next_index + n);
            (runs, a.time.map(Duration::from_secs))
        } else {
            (s.runs, s.seconds_left.map(Duration::from_secs_f64))
        };
        if runs.is_some_and(|r| s.next_index >= r) || time.is_some_and(|t| t.is_zero()) {
            return Err(CliError::Usage(format!(
                "{}: the run is complete ({} programs); give --time SECS or --runs N to extend it",
                out.display(),
                s.stats.programs
            )));
        }
        return Ok(Plan {
            seed: s.seed,
            runs,
            time,
            out: out.clone(),
            config,
            pins,
            start: s.next_index,
            jobs: a.jobs.map_or(s.jobs.max(1), usize::from),
            fuse: a.fuse.map(usize::from).or(Some(s.fuse.max(1))),
            // An error that stopped the earlier part is not this part's.
            earlier: FuzzStats {
                save_errors: Vec::new(),
                stopped: None,
                ..s.stats
            },
        });
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
        pins: a.pins.clone(),
        start: 0,
        earlier: FuzzStats::default(),
        jobs: a.jobs.map_or(1, usize::from),
        fuse: a.fuse.map(usize::from),
    })
}

/// A fresh run's output folder must hold no earlier run: refused, naming the choices, unless
/// `--force` says to delete what gpufuzz wrote there.
fn claim_folder(out: &Path, force: bool) -> Result<(), CliError> {
    let Ok(mut entries) = std::fs::read_dir(out) else {
        return Ok(());
    };
    if entries.next().is_none() {
        return Ok(());
    }
    if !force {
        let what = match Summary::read(out) {
            Ok(s) => format!(
                "holds an earlier run ({} programs, {} findings)",
                s.stats.programs,
                s.stats.total_findings()
            ),
            Err(_) => "is not empty".into(),
        };
        return Err(CliError::Usage(format!(
            "{dir}: {what}; continue it with `gpufuzz fuzz --resume {dir}` (--time or --runs \
             to extend it), choose another folder with --out, or start over with --force \
             (deletes its findings)",
            dir = out.display()
        )));
    }
    for name in ["findings", "bugs"] {
        let dir = out.join(name);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(CliError::io(&dir))?;
        }
    }
    let summary = out.join("summary.json");
    if summary.exists() {
        std::fs::remove_file(&summary).map_err(CliError::io(&summary))?;
    }
    Ok(())
}

/// How long past `--time` a run waits for inputs still being judged before it abandons them.
const GRACE: Duration = Duration::from_secs(3);

pub fn run(a: FuzzArgs) -> Result<ExitCode, CliError> {
    let p = plan(&a)?;
    let oracle_opts = OracleOptions {
        pins: p.pins.checked()?,
        ..p.config.oracle()?
    };
    let test_plants = oracle_opts.plants.iter().any(Plant::test_only);
    let fork = a.fork || (!a.no_fork && (test_plants || p.time.is_some_and(|t| t > FORK_AFTER)));
    if test_plants && !fork {
        return Err(CliError::Usage(
            "test plants hang or crash the process: they need worker processes \
             (drop --no-fork)"
                .into(),
        ));
    }
    if a.input_timeout.is_some() && !fork {
        return Err(CliError::Usage(
            "--input-timeout limits inputs in worker processes, and this run judges \
             in-process: add --fork"
                .into(),
        ));
    }
    let fusing = fuzz::targets::all()
        .iter()
        .any(|t| oracle_opts.runs(*t) && t.fuses());
    let fuse = match p.fuse {
        Some(n) if n > 1 && !fusing => {
            return Err(CliError::Usage(format!(
                "--fuse {n} has no effect: none of the targets this run judges fuses programs \
                 (vulkan does)"
            )))
        }
        Some(n) => n,
        None if !fusing => 1,
        None => oracle::DEFAULT_FUSE,
    };
    let input_timeout = a.input_timeout.unwrap_or(10);
    // Where results go is checked before any work: a run must not find bugs it cannot keep,
    // nor mix its findings with an earlier run's.
    if a.resume.is_none() {
        claim_folder(&p.out, a.force)?;
    }
    output::prepare_dir(&p.out.join("findings"))?;
    if let Some(path) = &a.stats_json {
        output::prepare_file(path)?;
    }
    let flags = p.config.flags() + &p.pins.flags();
    let worker = if fork {
        let exe = fuzz::exe::worker_program();
        let mut command = vec![exe.into_os_string(), "fuzz-worker".into()];
        command.extend(["--seed".into(), p.seed.to_string().into()]);
        command.extend(flags.split_whitespace().map(Into::into));
        Some(WorkerSpec {
            command,
            deadline: Duration::from_secs(input_timeout),
            pins: oracle_opts.pins.clone(),
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
        status_detail: a.reach,
        announce: true,
        keep_per_signature: a.keep,
        repro_flags: flags.clone(),
        environment: oracle_opts.environment(),
        start: p.start,
        earlier: p.earlier.clone(),
        worker,
        fuse,
        ..FuzzOptions::default()
    };
    eprintln!(
        "gpufuzz fuzz: seed {} jobs {}{}{} {}{} -> {}",
        p.seed,
        p.jobs,
        if fuse > 1 {
            format!(" fuse {fuse}")
        } else {
            String::new()
        },
        if fork {
            format!(" (worker processes, {input_timeout}s per input)")
        } else {
            String::new()
        },
        match (p.runs, p.time) {
            (Some(r), _) => format!("{} programs", r - p.start),
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
    if !p.pins.pins.is_empty() {
        eprintln!(
            "gpufuzz fuzz: every case pinned to {}",
            p.pins.pins.join(" ")
        );
    }
    let ending = Arc::new(Ending {
        out: p.out.clone(),
        flags,
        stats_json: a.stats_json.clone(),
        earlier: p.earlier,
        reach: a.reach,
        fail_on_finding: a.fail_on_finding,
        done: Mutex::new(false),
    });
    if let Some(time) = p.time {
        let ending = Arc::clone(&ending);
        std::thread::spawn(move || abandon_after(time + GRACE, &ending));
    }
    let stats = fuzz_loop::fuzz_fused(&opts, &|inputs| oracle::judge_batch(inputs, &oracle_opts));
    // Held to the end: the deadline's watchdog must not print a second summary.
    let mut done = ending.done.lock().unwrap_or_else(|e| e.into_inner());
    *done = true;
    ending.finish(&stats).map(ExitCode::from)
}

/// What the end of a run needs, whichever way it ends: the loop returns, or the deadline's
/// watchdog gives up on inputs still running.
struct Ending {
    out: PathBuf,
    flags: String,
    stats_json: Option<PathBuf>,
    earlier: FuzzStats,
    reach: bool,
    fail_on_finding: bool,
    /// Set once a summary has been printed.
    done: Mutex<bool>,
}

/// The watchdog of `--time`: if the run has not ended `after` its start, the inputs still
/// being judged are abandoned. The loop left the summary that says so at the deadline; it is
/// printed and the process ends (worker processes follow their parent).
fn abandon_after(after: Duration, ending: &Ending) {
    std::thread::sleep(after);
    let mut done = ending.done.lock().unwrap_or_else(|e| e.into_inner());
    if *done {
        return;
    }
    *done = true;
    let code = Summary::read(&ending.out)
        .map_err(CliError::Failed)
        .and_then(|s| ending.finish(&s.stats));
    std::process::exit(match code {
        Ok(code) => i32::from(code),
        Err(e) => {
            eprintln!("error: {e}");
            i32::from(e.status())
        }
    });
}

impl Ending {
    /// Writes `--stats-json`, prints the closing summary and gives the exit status.
    fn finish(&self, stats: &FuzzStats) -> Result<u8, CliError> {
        if let Some(path) = &self.stats_json {
            let json = serde_json::to_string_pretty(stats).map_err(|e| e.to_string())?;
            fuzz::store::write_atomically(path, json.as_bytes()).map_err(CliError::io(path))?;
        }
        print!("{}", self.summary(stats));
        if let Some(why) = &stats.stopped {
            return Err(CliError::Failed(format!(
                "the run stopped: {why}; what it found before is kept, and once the cause is \
                 fixed `gpufuzz fuzz --resume {}` goes on from the first input that tested \
                 nothing",
                self.out.display()
            )));
        }
        if !stats.save_errors.is_empty() {
            return Err(CliError::Failed(format!(
                "{} finding(s) or the summary could not be saved; the run stopped: {}",
                stats.save_errors.len(),
                stats.save_errors[0]
            )));
        }
        Ok(u8::from(stats.total_findings() > 0 && self.fail_on_finding))
    }

    /// The closing summary (stdout): the run's essentials, each signature with its count, and
    /// for a signature new to the folder the command that reproduces its first finding.
    fn summary(&self, stats: &FuzzStats) -> String {
        let signatures = stats.signatures.len();
        let mut s = format!(
            "done: {} programs in {:.0}s ({:.0}/s), {} finding{}",
            stats.programs,
            stats.seconds,
            stats.programs_per_second,
            stats.total_findings(),
            if stats.total_findings() == 1 { "" } else { "s" },
        );
        if signatures > 0 {
            s += &format!(
                " of {signatures} signature{}",
                if signatures == 1 { "" } else { "s" }
            );
        }
        s += &format!("; figures in {}\n", self.out.join("summary.json").display());
        if stats.abandoned > 0 {
            s += &format!(
                "  {} input(s) still running at the deadline were abandoned (not judged)\n",
                stats.abandoned
            );
        }
        let untested: u64 = stats.broken.values().sum();
        if untested > 0 {
            s += &format!(
                "  {untested} input(s) ({:.1}% of the run's, {:.1}s of its judging time) tested \
                 nothing, not findings: a target's infrastructure failed\n",
                100.0 * untested as f64 / stats.programs.max(1) as f64,
                stats.untested_seconds
            );
            for (why, n) in &stats.broken {
                s += &format!("    {n:>6}  {why}\n");
            }
        }
        for (target, d) in &stats.decoded {
            s += &format!(
                "  {target}: our decoder read {} of {} captured instructions ({:.2}%; the rest \
                 are in summary.json's skipped)\n",
                d.decoded,
                d.instructions,
                100.0 * d.decoded as f64 / d.instructions.max(1) as f64
            );
        }
        // The first finding this part saved of each signature the earlier parts never saw:
        // those are new to the folder (a new finding of a known signature is not).
        let mut first_saved = BTreeMap::new();
        for dir in stats
            .saved
            .iter()
            .filter(|d| !self.earlier.saved.contains(d))
        {
            if let Some(sig) = saved_signature(Path::new(dir)) {
                if !self.earlier.signatures.contains_key(&sig) {
                    first_saved.entry(sig).or_insert_with(|| dir.clone());
                }
            }
        }
        for (sig, n) in &stats.signatures {
            match first_saved.get(sig) {
                Some(dir) => {
                    s += &format!(
                        "  {n:>6}  {sig}  (new)\n          reproduce: {}\n",
                        fuzz::store::repro_command(Path::new(dir), &self.flags)
                    );
                }
                None => s += &format!("  {n:>6}  {sig}\n"),
            }
        }
        if self.reach && stats.reach.cases > 0 {
            s += "reach (what the backends' allocators executed, against the goals):\n";
            s += &stats.reach.report();
        }
        if !stats.saved.is_empty() {
            s += &format!("next: gpufuzz triage {}\n", self.out.display());
        }
        s
    }
}

/// The signature a saved finding's `finding.json` records.
fn saved_signature(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("finding.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["signature"].as_str().map(String::from)
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
    #[command(flatten)]
    pins: PinArgs,
}

pub fn worker(a: WorkerArgs) -> Result<ExitCode, CliError> {
    let opts = OracleOptions {
        pins: a.pins.checked()?,
        ..a.config.oracle()?
    };
    let d = FuzzOptions::default();
    fuzz::worker::serve(a.seed, d.min_len, d.max_len, &|inputs| {
        oracle::judge_batch(inputs, &opts)
    })
    .map_err(|e| format!("worker: {e}"))?;
    Ok(ExitCode::SUCCESS)
}
