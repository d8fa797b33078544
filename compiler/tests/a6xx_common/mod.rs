//! Shared helpers of the a6xx backend tests: compile a text program under a set of options,
//! run it on the simulator and compare with the interpreter.

#![allow(dead_code)]

use compiler::a6xx::{compile, CompileStats, Options};
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
    let r = run(&c.program, &p.dispatch, &c.sim_config());
    (r, c.stats, dis)
}

/// The option grid every corpus program must pass.
pub fn grid() -> Vec<Options> {
    let mut v = Vec::new();
    for predicates in [4, 1] {
        for registers in [192, 8, 4] {
            for wave in [WaveSize::W64, WaveSize::W128] {
                for opt_predicates in [true, false] {
                    v.push(Options {
                        wave,
                        predicates,
                        registers,
                        opt_predicates,
                        plants: Plants::NONE,
                        heuristics: Default::default(),
                    });
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
    assert!(
        r.hazards.is_empty(),
        "{opts:?}: hazards {:#?}\n{dis}",
        r.hazards.iter().map(|h| h.to_string()).collect::<Vec<_>>()
    );
    if let Some(d) = want.first_difference(&r.results, &p.dispatch) {
        panic!("{opts:?}: mismatch {d:?}\n{dis}");
    }
    Some(stats)
}

/// Runs the whole grid; returns the stats of each run.
pub fn agree_grid(src: &str) -> Vec<(Options, CompileStats)> {
    let p = parse(src);
    grid()
        .into_iter()
        .filter_map(|o| Some((o, agree(&p, &o)?)))
        .collect()
}

/// Whether `p` under `opts` shows something wrong: a checker error, a hazard, a mismatch or
/// an incomplete run.
pub fn shows_bug(p: &Program, opts: &Options) -> bool {
    let want = interp::run(p, &RunOptions::default()).expect("interpreter runs");
    let c = compile(p, opts).expect("compiles");
    if c.check.is_err() {
        return true;
    }
    let r = run(&c.program, &p.dispatch, &c.sim_config());
    r.outcome != Outcome::Completed
        || !r.hazards.is_empty()
        || want.first_difference(&r.results, &p.dispatch).is_some()
}

/// A loop whose header branches on a predicate made before the loop, while the loop's exit
/// test takes the only predicate register: the back-edge must reload it.
pub const PRED_BACKEDGE: &str = "
invocations 64
outputs 2

block_0:
  vec1 32 ssa_0 = load_invocation_id
  vec1 32 ssa_1 = load_const (0x00000000)
  vec1 32 ssa_2 = load_const (0x00000001)
  vec1 32 ssa_3 = iand ssa_0, ssa_2
  vec1 1 ssa_4 = ieq ssa_3, ssa_1
  vec1 32 ssa_5 = load_const (0x00000003)
  vec1 32 ssa_6 = iand ssa_0, ssa_5
  loop {
    block_1:
      vec1 32 ssa_7 = phi block_0: ssa_1, block_5: ssa_12
      vec1 32 ssa_8 = phi block_0: ssa_1, block_5: ssa_13
    if ssa_4 {
      block_2:
        vec1 32 ssa_9 = iadd ssa_8, ssa_5
    } else {
      block_3:
        vec1 32 ssa_10 = iadd ssa_8, ssa_2
    }
    block_4:
      vec1 32 ssa_11 = phi block_2: ssa_9, block_3: ssa_10
      vec1 1 ssa_14 = ige ssa_7, ssa_6
    if ssa_14 {
      block_6:
        break
    } else {
      block_7:
    }
    block_5:
      vec1 32 ssa_12 = iadd ssa_7, ssa_2
      vec1 32 ssa_13 = imov ssa_11
  }
  block_8:
    vec1 32 ssa_15 = phi block_6: ssa_11
    vec2 32 ssa_16 = vec2 ssa_15, ssa_7
    store_output 0, ssa_16
";
