//! `gpufuzz stats`: compile a corpus for a target, run it on the simulator, and write the
//! per-program counters as JSON for `gpufuzz report` (shader-db's `run`).

use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use triage::stats::collect::collect;
use triage::stats::corpus;
use triage::stats::options::{Settings, Target};

#[derive(Args, Debug)]
pub struct StatsArgs {
    /// A folder of `.ir` programs (e.g. `corpus/stats`); or use `--generate`.
    corpus: Option<PathBuf>,
    /// `ir` (middle end only), `gen8`, `gen16` or `a6xx`.
    #[arg(long, default_value = "ir")]
    target: String,
    /// Compile options, `KEY=VALUE` (repeatable): a middle-end pass `=off`, `gen=7`,
    /// `grfs=N`, `opt_zero_samples=off`, `registers=N`, `predicates=1`, `wave=128`,
    /// `opt_predicates=off`.
    #[arg(long = "config", value_name = "KEY=VALUE")]
    config: Vec<String>,
    /// Generate this many programs instead of reading a folder.
    #[arg(long, value_name = "N")]
    generate: Option<usize>,
    /// Seed of the generated programs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Write the generated programs into this folder (canonically) and stop.
    #[arg(long, value_name = "DIR")]
    emit_corpus: Option<PathBuf>,
    /// Where the JSON goes.
    #[arg(long, value_name = "FILE.json")]
    out: Option<PathBuf>,
}

pub fn run(a: StatsArgs) -> Result<ExitCode, String> {
    let settings = Settings::parse(Target::parse(&a.target)?, &a.config)?;
    let (entries, source) = match (&a.corpus, a.generate) {
        (Some(dir), None) => (corpus::load_dir(dir)?, dir.display().to_string()),
        (None, Some(n)) => (
            corpus::generate(n, a.seed),
            format!("generate {n} seed {}", a.seed),
        ),
        _ => return Err("give either a corpus folder or --generate N".into()),
    };
    if let Some(dir) = &a.emit_corpus {
        if a.generate.is_none() {
            return Err("--emit-corpus needs --generate N".into());
        }
        corpus::emit(dir, &entries, a.seed)?;
        eprintln!("wrote {} programs to {}", entries.len(), dir.display());
        return Ok(ExitCode::SUCCESS);
    }
    let out = a.out.ok_or("--out FILE.json is required")?;
    let file = collect(&entries, &settings, &source, &a.config);
    file.write(&out)?;
    eprintln!(
        "{}: {} programs, {} failed -> {}",
        settings.target,
        file.programs.len(),
        file.failed.len(),
        out.display()
    );
    for f in file.failed.iter().take(5) {
        eprintln!("  failed {}: {}", f.name, f.error);
    }
    Ok(ExitCode::SUCCESS)
}
