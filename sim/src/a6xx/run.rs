//! The entry point: validate, then run the dispatch wave by wave.
//!
//! Invocations are split into `ceil(N / wave)` waves run one after another; fibers past `N`
//! are disabled. At the start of a wave `r0.x` holds each fiber's invocation id and every
//! other register and predicate is unwritten (reading it is a hazard and yields 0).

use super::config::{Config, WaveSize};
use super::exec::Stop;
use super::hazard::Hazard;
use super::isa::Program;
use super::machine::Machine;
use super::stats::Stats;
use super::validate::{validate, Fault};
use crate::dispatch::{Dispatch, Results};

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Every fiber reached `end`.
    Completed,
    /// The cycle budget ran out (results are partial).
    Timeout,
    /// The program was rejected before running, or ran off its end (results are partial).
    Fault(Fault),
}

/// Everything a run leaves behind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunResult {
    /// Outputs and buffers, comparable with the interpreter's.
    pub results: Results,
    /// Counters.
    pub stats: Stats,
    /// Distinct hazards, in the order first seen, at most `Config::max_hazards`.
    pub hazards: Vec<Hazard>,
    /// Every hazard occurrence, including those not recorded.
    pub hazard_count: u64,
    /// How many times each instruction issued (index = instruction), summed over waves, a
    /// divergent group's issue counting once: the per-instruction profile that lets a caller
    /// who knows what an instruction is for (spill code, a predicate reload) count its
    /// executions. Empty when the program was rejected.
    pub profile: Vec<u64>,
    /// How the run ended.
    pub outcome: Outcome,
}

/// Runs `program` over `dispatch`.
pub fn run(program: &Program, dispatch: &Dispatch, config: &Config) -> RunResult {
    if let Err(f) = validate(program, dispatch, config) {
        return RunResult {
            results: dispatch.initial_results(),
            stats: Stats::default(),
            hazards: Vec::new(),
            hazard_count: 0,
            profile: Vec::new(),
            outcome: Outcome::Fault(f),
        };
    }
    match config.wave {
        WaveSize::W64 => run_waves::<64>(program, dispatch, config),
        WaveSize::W128 => run_waves::<128>(program, dispatch, config),
    }
}

fn run_waves<const W: usize>(program: &Program, dispatch: &Dispatch, config: &Config) -> RunResult {
    let mut m = Machine::<W>::new(&program.instrs, dispatch, config);
    let waves = dispatch.invocations.div_ceil(W as u32);
    let mut outcome = Outcome::Completed;
    for wave in 0..waves {
        m.start_wave(wave);
        let r = m.run_wave();
        m.stats.cycles += m.now;
        match r {
            Ok(()) => {}
            Err(Stop::Timeout) => {
                outcome = Outcome::Timeout;
                break;
            }
            Err(Stop::Fault(f)) => {
                outcome = Outcome::Fault(f);
                break;
            }
        }
    }
    let (results, stats, hazards, profile) = m.finish();
    RunResult {
        results,
        stats,
        hazards: hazards.list,
        hazard_count: hazards.count,
        profile,
        outcome,
    }
}
