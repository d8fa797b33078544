//! Shared helpers of the a6xx backend tests: compile a text program under a set of options,
//! run it on the simulator and compare with the interpreter.

#![allow(dead_code)]

use compiler::a6xx::{compile, sim_config, CompileStats, Options};
use compiler::interp::{self, RunOptions};
use compiler::ir::{parse_program, verify, Program};
use compiler::planted::Plants;
use sim::a6xx::{run, Outcome, RunResult, WaveSize};

/// Parses and verifies a test program.
pub fn parse(src: &str) -> Program {
    let p = parse_program(src, "test.ir").unwrap_or_else(|e| panic!("{e}"));
    verify(&p).unwrap_or_else(|e| panic!("{e:?}"));
    p
}

/// Compiles and runs `p` under `opts`; returns the sim result and the stats.
pub fn run_with(p: &Program, opts: &Options) -> (RunResult, CompileStats, String) {
    let c = compile(p, opts).unwrap_or_else(|e| panic!("{opts:?}: {e}"));
    let dis = c.program.to_string();
    if let Err(e) = &c.check {
        panic!("{opts:?}: checker: {e}\n{dis}");
    }
    let r = run(&c.program, &p.dispatch, &sim_config(opts));
    (r, c.stats, dis)
}

/// The option grid every corpus program must pass.
pub fn grid() -> Vec<Options> {
    let mut v = Vec::new();
    for predicates in [4, 1] {
        for registers in [192, 8, 4] {
            for wave in [WaveSize::W64, WaveSize::W128] {
                for opt_predicates in [true, false] {
                    v.push(Options { wave, predicates, registers, opt_predicates, plants: Plants::NONE });
                }
            }
        }
    }
    v
}

/// Checks `p` against the interpreter under `opts`: same results, no hazards, completed.
pub fn agree(p: &Program, opts: &Options) -> Option<CompileStats> {
    if let Err(compiler::a6xx::CompileError::NoRegisters { .. }) = compile(p, opts) {
        return None;
    }
    let want = interp::run(p, &RunOptions::default()).expect("interpreter runs");
    let (r, stats, dis) = run_with(p, opts);
    assert_eq!(r.outcome, Outcome::Completed, "{opts:?}\n{dis}");
    assert!(r.hazards.is_empty(), "{opts:?}: hazards {:#?}\n{dis}", r.hazards.iter().map(|h| h.to_string()).collect::<Vec<_>>());
    if let Some(d) = want.first_difference(&r.results, &p.dispatch) {
        panic!("{opts:?}: mismatch {d:?}\n{dis}");
    }
    Some(stats)
}

/// Runs the whole grid; returns the stats of each run.
pub fn agree_grid(src: &str) -> Vec<(Options, CompileStats)> {
    let p = parse(src);
    grid().into_iter().filter_map(|o| Some((o, agree(&p, &o)?))).collect()
}
