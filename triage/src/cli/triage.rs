//! `gpufuzz triage DIR`: reduce, bisect and bucket every finding of a fuzz output folder;
//! one report per bug in `DIR/bugs/`. `--promote BUCKET` copies a bucket's repro into the
//! regression corpus.

use super::error::CliError;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use triage::bucket::Index;
use triage::reduce::Reducer;
use triage::session::{self, TriageOptions};

#[derive(Args, Debug)]
pub struct TriageArgs {
    /// A `gpufuzz fuzz --out` folder.
    dir: PathBuf,
    /// Switch a planted bug on while re-judging (repeatable): the plants the fuzz run had
    /// (each finding's target, configuration and driver come from the folder; the `--vk-*`
    /// flags below choose another driver for `vulkan` findings).
    #[arg(long = "plant", value_name = "NAME")]
    plants: Vec<String>,
    #[command(flatten)]
    driver: super::config::DriverArgs,
    /// Wall-clock limit per reduction, in seconds.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    time: u64,
    /// Copy this bucket's repro into the corpus instead of triaging.
    #[arg(long, value_name = "BUCKET")]
    promote: Option<String>,
    /// Where `--promote` writes.
    #[arg(long, default_value = "corpus/regressions")]
    corpus: PathBuf,
}

pub fn run(a: TriageArgs) -> Result<ExitCode, CliError> {
    let plants = super::config::plants(&a.plants)?;
    // Nothing is written anywhere before the folder is known to be a fuzz run's.
    if !a.dir.join("findings").is_dir() && !a.dir.join("summary.json").is_file() {
        return Err(CliError::Usage(format!(
            "{}: not the output folder of a `gpufuzz fuzz` run (no findings/ or summary.json \
             in it)",
            a.dir.display()
        )));
    }
    if let Some(bucket) = &a.promote {
        let path = session::promote(&a.dir, bucket, &a.corpus)?;
        println!("promoted {bucket} to {}", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    let t = TriageOptions {
        plants,
        reducer: Reducer::default().time_limit(Duration::from_secs(a.time)),
        verbose: true,
        vulkan: a.driver.vulkan(),
        driver_given: a.driver.driver_given(),
    };
    let s = session::triage(&a.dir, &t)?;
    let bugs = a.dir.join("bugs");
    let index = Index::load(&bugs).map_err(CliError::io(&bugs))?;
    let mut sizes: Vec<usize> = s.reductions.iter().map(|r| r.1).collect();
    sizes.sort_unstable();
    let secs: f64 = s.reductions.iter().map(|r| r.2).sum();
    println!(
        "triaged {} finding(s) ({} did not reproduce); {} bucket(s), {} new",
        s.triaged,
        s.unreproduced,
        index.buckets.len(),
        s.new_buckets.len()
    );
    if !sizes.is_empty() {
        println!(
            "median reduced size {} instructions; {:.1}s per reduction",
            sizes[sizes.len() / 2],
            secs / sizes.len() as f64
        );
    }
    for b in index.buckets.values() {
        println!(
            "  {:>4} hit(s)  {:>3} insts  {}  {}",
            b.hits(),
            b.smallest,
            b.signature,
            bugs.join(format!("{}.md", b.id)).display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
