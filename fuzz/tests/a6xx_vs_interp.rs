//! Generated programs through the a6xx backend, compared with the interpreter: same results,
//! no simulator hazards, a clean allocation checker, under a spread of options (predicates 4
//! and 1, generous and starved GPR budgets, waves of 64 and 128, `opt_predicates` on and off,
//! every allocation choice).
//! A failing program is written to `target/a6xx-failure-<seed>.ir` before the test fails.
//! `A6XX_SEEDS=n` runs more seeds.

use arbitrary::Unstructured;
use compiler::a6xx::{compile, CompileError, Options};
use compiler::heuristics::{A6xxHeuristics, Pick, Victim};
use compiler::interp::{self, RunOptions};
use compiler::ir::{print_program, Program};
use compiler::planted::Plants;
use fuzz::generator::{generate, Config};
use sim::a6xx::{run, Outcome, WaveSize};

fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn options(seed: u64) -> Options {
    let registers = [192, 48, 16, 10, 8][(seed % 5) as usize];
    Options {
        wave: if seed.is_multiple_of(3) {
            WaveSize::W128
        } else {
            WaveSize::W64
        },
        predicates: if (seed / 2).is_multiple_of(2) { 4 } else { 1 },
        registers,
        opt_predicates: !(seed / 7).is_multiple_of(3),
        // Every allocation choice gets its share of the seeds.
        heuristics: A6xxHeuristics {
            pred_pick: Pick::ALL[(seed / 11 % 3) as usize],
            gpr_pick: Pick::ALL[(seed / 13 % 3) as usize],
            victim: Victim::ALL[(seed / 17 % 2) as usize],
        },
        plants: Plants::NONE,
    }
}

/// Compares one program under `opts`; `Err` describes the finding.
fn check(p: &Program, opts: &Options, totals: &mut [u64; 4]) -> Result<bool, String> {
    let want = match interp::run(p, &RunOptions::default()) {
        Ok(w) => w,
        Err(e) => return Err(format!("interpreter: {e}")),
    };
    // What the a6xx backend refuses, the target skips (counted), and so does this.
    if compiler::a6xx::refuses(p).is_some() {
        return Ok(false);
    }
    let c = match compile(p, opts) {
        Ok(c) => c,
        Err(CompileError::NoRegisters { .. }) => return Ok(false),
        Err(e) => return Err(format!("compile error: {e}")),
    };
    let dis = c.program.to_string();
    totals[0] += c.stats.instructions as u64;
    totals[1] += c.stats.spills as u64;
    totals[2] += c.stats.pred_reloads as u64;
    if let Err(e) = &c.check {
        return Err(format!("checker: {e}\n{dis}"));
    }
    let r = run(&c.program, &p.dispatch, &c.sim_config());
    totals[3] += r.stats.fiber_instructions;
    if r.outcome != Outcome::Completed {
        return Err(format!("outcome {:?}\n{dis}", r.outcome));
    }
    if let Some(h) = r.hazards.first() {
        return Err(format!("hazard: {h}\n{dis}"));
    }
    if let Some(d) = want.first_difference(&r.results, &p.dispatch) {
        return Err(format!("mismatch {d:?}\n{dis}"));
    }
    Ok(true)
}

#[test]
fn generated_programs_agree_with_the_interpreter() {
    let n: u64 = std::env::var("A6XX_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let mut failures = Vec::new();
    let mut compared = 0;
    let mut totals = [0u64; 4];
    for seed in 0..n {
        let data = bytes(seed, 256 + (seed as usize * 97) % 4096);
        let p = generate(&mut Unstructured::new(&data), &Config::default()).expect("generates");
        let opts = options(seed);
        let mut r = check(&p, &opts, &mut totals);
        if r.is_ok() {
            // The same program after the middle end (SSA in, SSA out) must agree too.
            let mut q = p.clone();
            let mut po = compiler::passes::pipeline::PipelineOptions::default();
            if compiler::passes::pipeline::run_pipeline(&mut q, &mut po).is_ok() {
                let expect = interp::run(&p, &RunOptions::default()).ok();
                let got = interp::run(&q, &RunOptions::default()).ok();
                if expect == got {
                    r = check(&q, &opts, &mut totals);
                }
            }
        }
        compared += matches!(r, Ok(true)) as u32;
        if let Err(e) = r {
            let path = format!(
                "{}/../target/a6xx-failure-{seed}.ir",
                env!("CARGO_MANIFEST_DIR")
            );
            let _ = std::fs::write(&path, print_program(&p));
            failures.push(format!(
                "seed {seed} {opts:?}: {}",
                e.lines().next().unwrap_or("")
            ));
            if failures.len() == 1 {
                eprintln!("seed {seed} {opts:?}: {e}");
            }
        }
    }
    eprintln!(
        "{compared} of {n} programs compared; instructions {}, spills {}, predicate reloads {}, fiber-instructions {}",
        totals[0], totals[1], totals[2], totals[3]
    );
    assert!(
        failures.is_empty(),
        "{} of {n} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
