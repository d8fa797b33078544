//! `gpufuzz stats`: compile a corpus for a target, run it on the simulator, and write the
//! per-program counters as JSON for `gpufuzz report` (shader-db's `run`), optionally at every
//! budget of a `--sweep`; or, with `--reach N`, judge N fuzz cases as the fuzzer does and
//! print the reach shares against their goals (`fuzz::reach`).

use super::error::{CliError, UsageContext};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use triage::stats::collect::collect;
use triage::stats::corpus;
use triage::stats::options::{self, Settings};

#[derive(Args, Debug)]
pub struct StatsArgs {
    /// A folder of `.ir` programs (e.g. `corpus/stats`); or use `--generate`.
    corpus: Option<PathBuf>,
    /// A target with statistics, by the fuzzer's names: `middle` (the middle end only),
    /// `gen8`, `gen16`, `a6xx`; on a driver's Mesa (`--mesa` of `fuzz`, `GPUFUZZ_MESA`) `anv`,
    /// `radv`, `turnip`, `nvk`, `asahi`, with what the driver reports for its executable.
    #[arg(long, default_value = fuzz::targets::middle::NAME)]
    target: String,
    /// Compile options, `KEY=VALUE` (repeatable): a middle-end pass `=off`, or a knob of the
    /// target's, by the names and bounds `--case` takes (`gpufuzz repro FILE --case help`
    /// lists them).
    #[arg(long = "config", value_name = "KEY=VALUE")]
    config: Vec<String>,
    /// Generate this many programs instead of reading a folder.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..100_000))]
    generate: Option<u64>,
    /// Seed of the generated programs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Write the generated programs into this folder (canonically) and stop.
    #[arg(long, value_name = "DIR")]
    emit_corpus: Option<PathBuf>,
    /// Collect at every value of one knob, `KEY=V1,V2,…` (e.g. `gen_grfs=16,24,32,125`):
    /// each program is recorded once per value as `NAME@KEY=V`, and `gpufuzz report` judges
    /// the executed cost budget by budget.
    #[arg(long, value_name = "KEY=V1,V2,...")]
    sweep: Option<String>,
    /// Instead of a corpus: judge this many fuzz cases of `--seed` exactly as `gpufuzz fuzz`
    /// does (each with its own drawn case configuration) on gen8, gen16 and a6xx, and print
    /// the shares of cases whose spill code and predicate reloads executed, and of every
    /// heuristic setting, against their goals (`--out` then gets the counters as JSON).
    #[arg(long, value_name = "N", conflicts_with_all = ["corpus", "generate", "sweep"])]
    reach: Option<u64>,
    /// Where the JSON goes.
    #[arg(long, value_name = "FILE.json")]
    out: Option<PathBuf>,
}

pub fn run(a: StatsArgs) -> Result<ExitCode, CliError> {
    if let Some(n) = a.reach {
        return reach(n, a.seed, a.out.as_deref());
    }
    let settings = Settings::parse(options::target(&a.target).usage()?, &a.config).usage()?;
    let (entries, source) = match (&a.corpus, a.generate) {
        (Some(dir), None) => (corpus::load_dir(dir)?, dir.display().to_string()),
        (None, Some(n)) => (
            corpus::generate(n as usize, a.seed),
            format!("generate {n} seed {}", a.seed),
        ),
        _ => {
            return Err(CliError::Usage(
                "give either a corpus folder or --generate N".into(),
            ))
        }
    };
    if let Some(dir) = &a.emit_corpus {
        if a.generate.is_none() {
            return Err(CliError::Usage("--emit-corpus needs --generate N".into()));
        }
        corpus::emit(dir, &entries, a.seed)?;
        eprintln!("wrote {} programs to {}", entries.len(), dir.display());
        return Ok(ExitCode::SUCCESS);
    }
    let out = a
        .out
        .clone()
        .ok_or_else(|| CliError::Usage("--out FILE.json is required".into()))?;
    super::output::prepare_file(&out)?;
    let file = match &a.sweep {
        None => collect(&entries, &settings, &source, &a.config),
        Some(sweep) => collect_sweep(&entries, &a, sweep, &source)?,
    };
    file.write(&out)?;
    eprint!("{}", triage::stats::executed::summary(&file));
    eprintln!(
        "{}: {} programs, {} failed -> {}",
        settings.target.name(),
        file.programs.len(),
        file.failed.len(),
        out.display()
    );
    for f in file.failed.iter().take(5) {
        eprintln!("  failed {}: {}", f.name, f.error);
    }
    Ok(ExitCode::SUCCESS)
}

/// Collects at every value of `sweep` (`KEY=V1,V2,…`), programs named `NAME@KEY=V`.
fn collect_sweep(
    entries: &[corpus::Entry],
    a: &StatsArgs,
    sweep: &str,
    source: &str,
) -> Result<triage::stats::StatsFile, CliError> {
    let (key, values) = sweep
        .split_once('=')
        .ok_or_else(|| format!("--sweep {sweep:?}: expected KEY=V1,V2,..."))?;
    let target = options::target(&a.target)?;
    let mut all: Option<triage::stats::StatsFile> = None;
    for value in values.split(',').map(str::trim).filter(|v| !v.is_empty()) {
        let budget = format!("{}={value}", key.trim());
        let mut config = a.config.clone();
        config.push(budget.clone());
        let settings = Settings::parse(target, &config)?;
        let mut file = collect(entries, &settings, source, &a.config);
        for p in &mut file.programs {
            p.name = format!("{}@{budget}", p.name);
        }
        for f in &mut file.failed {
            f.name = format!("{}@{budget}", f.name);
        }
        match &mut all {
            None => {
                file.sweep = vec![budget];
                all = Some(file);
            }
            Some(all) => {
                all.sweep.push(budget);
                all.programs.extend(file.programs);
                all.failed.extend(file.failed);
            }
        }
    }
    all.ok_or_else(|| CliError::Usage(format!("--sweep {sweep:?}: no values")))
}

/// `--reach N`: the fuzzer's own judgement of inputs `0..n` of `seed` on the backends, and
/// the reach shares against their goals.
fn reach(n: u64, seed: u64, out: Option<&std::path::Path>) -> Result<ExitCode, CliError> {
    use fuzz::fuzz_loop::{self, FuzzOptions};
    use fuzz::oracle::{self, OracleOptions};
    if let Some(path) = out {
        super::output::prepare_file(path)?;
    }
    let oracle_opts = OracleOptions {
        // The backends of the default set: what the reach shares are about.
        targets: fuzz::targets::all()
            .iter()
            .filter(|t| t.in_default_set() && t.name() != fuzz::targets::middle::NAME)
            .map(|t| t.name().to_string())
            .collect(),
        ..OracleOptions::default()
    };
    let opts = FuzzOptions {
        seed,
        runs: Some(n),
        time: None,
        status_every: None,
        ..FuzzOptions::default()
    };
    let stats = fuzz_loop::fuzz(&opts, &|bytes| oracle::judge_bytes(bytes, &oracle_opts));
    println!(
        "reach: {} cases of seed {seed} ({} reached a backend), {} finding(s)",
        stats.programs,
        stats.reach.cases,
        stats.total_findings()
    );
    print!("{}", stats.reach.report());
    if let Some(path) = out {
        let json = serde_json::to_string_pretty(&stats.reach).map_err(|e| e.to_string())?;
        fuzz::store::write_atomically(path, json.as_bytes()).map_err(CliError::io(path))?;
    }
    Ok(ExitCode::SUCCESS)
}
