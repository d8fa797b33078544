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
    /// `middle` (middle end only), `gen8`, `gen16` or `a6xx` (the fuzzer's target names).
    #[arg(long, default_value = "middle")]
    target: String,
    /// Compile options, `KEY=VALUE` (repeatable), the same knobs as `--case`: a middle-end
    /// pass `=off`; `gen9=off` (generation 7), `gen_grfs=16..125` (at SIMD8; SIMD16 gets twice
    /// a starved budget), `gen_zero_samples=off`; `a6xx_registers=8..192`,
    /// `a6xx_predicates=1`, `a6xx_wave128=on`, `a6xx_opt_predicates=off`.
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
    /// Where the JSON goes.
    #[arg(long, value_name = "FILE.json")]
    out: Option<PathBuf>,
}

pub fn run(a: StatsArgs) -> Result<ExitCode, String> {
    let settings = Settings::parse(Target::parse(&a.target)?, &a.config)?;
    let (entries, source) = match (&a.corpus, a.generate) {
        (Some(dir), None) => (corpus::load_dir(dir)?, dir.display().to_string()),
        (None, Some(n)) => (
            corpus::generate(n as usize, a.seed),
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
    super::output::prepare_file(&out)?;
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
