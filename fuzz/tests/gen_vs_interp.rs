//! Generated programs through the middle end, out-of-SSA and the Gen backend against the
//! interpreter: SIMD8 and SIMD16, Gen7 and Gen9, generous and starved GRF budgets. Any mismatch, hazard, checker error, invalid
//! program or compile error other than "no register left to spill" fails, and the failing
//! program is written to `target/gen_vs_interp_failure.ir` first.
//!
//! `GEN_VS_INTERP_N` sets the number of inputs (default 300; thousands for a real run),
//! `GEN_VS_INTERP_START` the first input index (default 0).

use arbitrary::Unstructured;
use compiler::gen::{compile, CompileError, Options};
use compiler::heuristics::{GenHeuristics, Pick, SpillChoice};
use compiler::interp::{self, RunOptions};
use compiler::ir::{text, Program};
use compiler::passes::pipeline;
use compiler::planted::Plants;
use fuzz::{generator, rng};
use sim::gen::{ExecSize, Gen};

fn check(p: &Program, o: &Options, expected: &sim::dispatch::Results) -> Result<(), String> {
    let c = match compile(p, o) {
        Ok(c) => c,
        Err(CompileError::NoRegisterToSpill { .. }) => return Ok(()),
        Err(e) => return Err(format!("compile error: {e}")),
    };
    if let Err(e) = &c.check {
        return Err(format!("checker: {e}\n{}", c.program));
    }
    let r = sim::gen::run(&c.program, &p.dispatch, &sim::gen::Config::default())
        .map_err(|e| format!("invalid: {e:?}"))?;
    if !r.hazards.is_empty() {
        return Err(format!("hazards: {:?}\n{}", r.hazards, c.program));
    }
    if let Some(d) = expected.first_difference(&r.results, &p.dispatch) {
        return Err(format!("mismatch: {d:?}\n{}", c.program));
    }
    Ok(())
}

#[test]
fn generated_programs_agree_with_the_interpreter() {
    let n: u64 = std::env::var("GEN_VS_INTERP_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let start: u64 = std::env::var("GEN_VS_INTERP_START")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut buf = Vec::new();
    let (mut tested, mut spilled) = (0, 0);
    for i in start..start + n {
        rng::input_bytes(0x6e6e, i, 64, 4096, &mut buf);
        let mut u = Unstructured::new(&buf);
        let cfg = generator::Config::default();
        let Ok(mut p) = generator::generate(&mut u, &cfg) else {
            continue;
        };
        if compiler::gen::refuses(&p).is_some() {
            continue;
        }
        let mut o = pipeline::PipelineOptions::default();
        if pipeline::run_pipeline(&mut p, &mut o).is_err() {
            continue;
        }
        let Ok(expected) = interp::run(&p, &RunOptions::default()) else {
            continue;
        };
        let mut prog = p.clone();
        if pipeline::to_registers(&mut prog, true, &Default::default()).is_err() {
            continue;
        }
        tested += 1;
        for width in [ExecSize::S8, ExecSize::S16] {
            for gen in [Gen::Gen7, Gen::Gen9] {
                let per = width.regs();
                let budget = [125, 8 * per + (i as u32 % 8) * per];
                for grfs in budget {
                    let o = Options {
                        width,
                        gen,
                        grfs,
                        opt_zero_samples: i % 3 != 0,
                        // Every allocation choice gets its share of the inputs.
                        heuristics: GenHeuristics {
                            pick: Pick::ALL[i as usize % 3],
                            spill: SpillChoice::ALL[i as usize / 3 % 3],
                            loop_weight: [10, 1][i as usize / 9 % 2],
                            ..GenHeuristics::default()
                        },
                        plants: Plants::NONE,
                    };
                    if let Err(why) = check(&prog, &o, &expected) {
                        let path =
                            concat!(env!("CARGO_TARGET_TMPDIR"), "/gen_vs_interp_failure.ir");
                        let _ = std::fs::write(path, text::print_program(&prog));
                        panic!("input {i} {o:?}: {why}\nprogram written to {path}");
                    }
                    if grfs < 125 {
                        spilled += compile(&prog, &o).map_or(0, |c| (c.stats.spills > 0) as u32);
                    }
                }
            }
        }
    }
    eprintln!("{tested} programs tested, {spilled} starved compiles spilled");
    assert!(tested > n / 4, "only {tested} of {n} inputs made programs");
}
