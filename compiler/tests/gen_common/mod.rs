//! Shared helpers of the Gen backend tests: compile a program under an option grid, run it on
//! the simulator and compare with the reference interpreter.
#![allow(dead_code)]

use compiler::gen::{compile, CompileStats, Options};
use compiler::interp::{self, RunOptions};
use compiler::ir::{parse_program, Program};
use compiler::passes::pipeline;
use compiler::planted::Plants;
use sim::gen::{ExecSize, Gen};

/// Parses test text.
pub fn parse(src: &str) -> Program {
    parse_program(src, "test.ir").unwrap_or_else(|e| panic!("{e}"))
}

/// `p` out of SSA, the form the Gen backend takes (the middle end not run).
pub fn out_of_ssa(p: &Program) -> Program {
    let mut q = p.clone();
    pipeline::to_registers(&mut q, true, &Default::default()).expect("from_ssa");
    q
}

/// `p` after the middle end and out of SSA: what the fuzz oracle hands the Gen backend.
pub fn optimised(p: &Program) -> Program {
    let mut q = p.clone();
    let mut o = pipeline::PipelineOptions::default();
    pipeline::run_pipeline(&mut q, &mut o).expect("pipeline");
    out_of_ssa(&q)
}

/// Every width × generation × opt_zero_samples, at `grfs` GRFs for SIMD8 and twice that
/// (capped at 125) for SIMD16, whose values take two.
pub fn grid(grfs: u32) -> Vec<Options> {
    let mut v = Vec::new();
    for width in [ExecSize::S8, ExecSize::S16] {
        for gen in [Gen::Gen7, Gen::Gen9] {
            for ozs in [false, true] {
                let grfs = if width == ExecSize::S16 {
                    (2 * grfs).min(125)
                } else {
                    grfs
                };
                v.push(Options {
                    width,
                    gen,
                    grfs,
                    opt_zero_samples: ozs,
                    plants: Plants::NONE,
                    heuristics: Default::default(),
                });
            }
        }
    }
    v
}

/// What running one compile gave.
#[derive(Debug)]
pub enum Outcome {
    /// Matches the interpreter, no hazard, checker clean.
    Clean(CompileStats),
    /// Something is wrong (description).
    Bad(String),
}

/// Compiles `p` (out of SSA) with `o`, runs it, compares with the interpreter.
pub fn run(p: &Program, o: &Options) -> Outcome {
    let expected = match interp::run(p, &RunOptions::default()) {
        Ok(r) => r,
        Err(e) => return Outcome::Bad(format!("interpreter: {e}")),
    };
    let c = match compile(&out_of_ssa(p), o) {
        Ok(c) => c,
        Err(e) => return Outcome::Bad(format!("compile error: {e}")),
    };
    if let Err(e) = &c.check {
        return Outcome::Bad(format!("checker: {e}\n{}", c.program));
    }
    let r = match sim::gen::run(&c.program, &p.dispatch, &sim::gen::Config::default()) {
        Ok(r) => r,
        Err(e) => return Outcome::Bad(format!("invalid: {e:?}")),
    };
    if !r.hazards.is_empty() {
        return Outcome::Bad(format!("hazards: {:?}\n{}", r.hazards, c.program));
    }
    if let Some(d) = expected.first_difference(&r.results, &p.dispatch) {
        return Outcome::Bad(format!("mismatch: {d:?}\n{}", c.program));
    }
    Outcome::Clean(c.stats)
}

/// Asserts `p` is clean under every option of the grid at `grfs`; returns the stats.
pub fn assert_clean(p: &Program, grfs: u32) -> Vec<CompileStats> {
    grid(grfs)
        .iter()
        .map(|o| match run(p, o) {
            Outcome::Clean(s) => s,
            Outcome::Bad(why) => panic!("{o:?}: {why}"),
        })
        .collect()
}
