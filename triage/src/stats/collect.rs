//! Collecting the counters: every program of a corpus goes through the middle end (with the
//! settings' passes), then the target, which compiles and runs it and counts
//! ([`fuzz::targets::Target::record`]) into one [`ProgramStats`]. A program that fails to compile, trips the
//! allocation checker, faults or times out in the simulator, or panics, is recorded as a
//! [`Failure`] rather than stopping the run (a compiler's statistics tool must survive the
//! compiler's bugs).

use super::corpus::Entry;
use super::options::Settings;
use super::{Failure, ProgramStats, StatsFile};
use crate::Error;
use compiler::ir::Program;
use compiler::passes::pipeline::{self, PipelineOptions};
use fuzz::oracle::Case;
use std::collections::BTreeMap;

/// Runs the middle end as the settings say (verifying after every pass).
pub fn middle_end(p: &Program, settings: &Settings) -> Result<Program, Error> {
    let mut p = p.clone();
    let mut opts = PipelineOptions {
        verify: true,
        disabled: settings.disabled_passes(),
        ..PipelineOptions::default()
    };
    pipeline::run_pipeline(&mut p, &mut opts)?;
    Ok(p)
}

/// The counters of one program, by name: the target's measurements and any extra ones it
/// records (the Gen targets: one counter per send type and length pair executed).
pub fn collect_one(p: &Program, settings: &Settings) -> Result<BTreeMap<String, u64>, Error> {
    let case = Case {
        config: settings.case.clone(),
        program: middle_end(p, settings)?,
    };
    let counters = settings.target.record(&case).map_err(Error::FuzzText)?;
    Ok(counters.into_iter().collect())
}

/// Collects every program of `entries`; `corpus` and `config` are recorded as given.
pub fn collect(
    entries: &[Entry],
    settings: &Settings,
    corpus: &str,
    config: &[String],
) -> StatsFile {
    let mut file = StatsFile {
        target: settings.target.name().to_string(),
        config: config.to_vec(),
        corpus: corpus.to_string(),
        measurements: (settings.target.measurements())
            .unwrap_or_default()
            .into_iter()
            .map(String::from)
            .collect(),
        programs: Vec::with_capacity(entries.len()),
        failed: Vec::new(),
        sweep: Vec::new(),
    };
    for e in entries {
        // A stats file records a failure as its message.
        let outcome = match fuzz::panics::catch(|| collect_one(&e.program, settings)) {
            Ok(counted) => counted.map_err(|e| e.to_string()),
            Err(p) => Err(format!("panic at {}: {}", p.location, p.message)),
        };
        match outcome {
            Ok(stats) => file.programs.push(ProgramStats {
                name: e.name.clone(),
                stats,
            }),
            Err(error) => file.failed.push(Failure {
                name: e.name.clone(),
                error,
            }),
        }
    }
    file
}
