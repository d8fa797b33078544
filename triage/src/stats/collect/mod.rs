//! Collecting the counters: every program of a corpus goes through the middle end (with the
//! settings' passes), then the target's backend and simulator; each target's adapter lives in
//! its own file and returns one [`ProgramStats`]. A program that fails to compile, trips the
//! allocation checker, faults or times out in the simulator, or panics, is recorded as a
//! [`Failure`] rather than stopping the run (a compiler's statistics tool must survive the
//! compiler's bugs).
//!
//! * [`ir`] — the middle end only: IR instruction, ALU, phi, memory, `if` and loop counts,
//!   and the interpreter's executed-instruction count;
//! * [`gen`] — `gen8`/`gen16`: the Gen backend and simulator;
//! * [`a6xx`] — the a6xx backend and simulator, counted as ir3's shader-db counts;
//! * [`anv`] — Mesa's anv/brw on a simulated Intel GPU, with brw's own statistics.

pub mod a6xx;
pub mod anv;
pub mod gen;
pub mod ir;

use super::corpus::Entry;
use super::options::{Settings, Target};
use super::{Failure, ProgramStats, StatsFile};
use compiler::ir::Program;
use compiler::passes::pipeline::{self, PipelineOptions};
use fuzz::oracle::Case;
use sim::gen::ExecSize;
use std::collections::BTreeMap;

/// Counters of one program, in the order the target records them.
pub type Record = Vec<(&'static str, u64)>;

/// The measurements a target records, in report order.
pub fn measurements(target: Target) -> &'static [&'static str] {
    match target {
        Target::Middle => ir::MEASUREMENTS,
        Target::A6xx => a6xx::MEASUREMENTS,
        Target::Anv => anv::MEASUREMENTS,
        Target::Gen8 | Target::Gen16 => gen::MEASUREMENTS,
    }
}

/// Runs the middle end as the settings say (verifying after every pass).
pub fn middle_end(p: &Program, settings: &Settings) -> Result<Program, String> {
    let mut p = p.clone();
    let mut opts = PipelineOptions {
        verify: true,
        disabled: settings.disabled_passes(),
        ..PipelineOptions::default()
    };
    pipeline::run_pipeline(&mut p, &mut opts).map_err(|e| format!("middle end: {e}"))?;
    Ok(p)
}

/// The counters of one program, by name: the target's [`measurements`] and, for the Gen
/// targets, one counter per send type and length pair executed.
pub fn collect_one(p: &Program, settings: &Settings) -> Result<BTreeMap<String, u64>, String> {
    let optimised = middle_end(p, settings)?;
    let named = |r: Record| r.into_iter().map(|(k, v)| (k.to_string(), v));
    match settings.target {
        Target::Middle => Ok(named(ir::record(&optimised)?).collect()),
        Target::Anv => {
            let case = Case {
                config: settings.case.clone(),
                program: optimised,
            };
            Ok(named(anv::record(&case)?).collect())
        }
        Target::Gen8 | Target::Gen16 | Target::A6xx => {
            let loops = ir::loops(&optimised);
            let case = Case {
                config: settings.case.clone(),
                program: optimised,
            };
            match settings.target {
                Target::Gen8 | Target::Gen16 => {
                    let width = if settings.target == Target::Gen8 {
                        ExecSize::S8
                    } else {
                        ExecSize::S16
                    };
                    let (fixed, shapes) = gen::record(&case, width)?;
                    Ok(named(fixed).chain(shapes).collect())
                }
                _ => Ok(named(a6xx::record(&case, loops)?).collect()),
            }
        }
    }
}

/// Collects every program of `entries`; `corpus` and `config` are recorded as given.
pub fn collect(
    entries: &[Entry],
    settings: &Settings,
    corpus: &str,
    config: &[String],
) -> StatsFile {
    let mut file = StatsFile {
        target: settings.target.to_string(),
        config: config.to_vec(),
        corpus: corpus.to_string(),
        measurements: measurements(settings.target)
            .iter()
            .map(|m| m.to_string())
            .collect(),
        programs: Vec::with_capacity(entries.len()),
        failed: Vec::new(),
        sweep: Vec::new(),
    };
    for e in entries {
        let outcome = fuzz::panics::catch(|| collect_one(&e.program, settings))
            .unwrap_or_else(|p| Err(format!("panic at {}: {}", p.location, p.message)));
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
