//! Same-behaviour check for simulator and allocation-checker changes: compiles every program of
//! `corpus/stats` and `corpus/regressions` plus 150 generated ones (bench seed 1) for Gen
//! (gen7/gen9 x SIMD8/16, 125 GRFs and starved, every Gen plant at the starved budget) and a6xx
//! (wave 64/128, 192 registers and starved, every a6xx plant at the starved budget), and runs
//! each compile under four simulator configurations (Gen 1 M cycles, a6xx 100 k; cycle-,
//! instruction- and hazard-limited with little scratch). Prints one line per compile with a
//! hash of the checker verdict and every run's results, outcome, statistics, hazards and
//! profile (a total on stderr). Run it before and after a change that should keep behaviour, and diff:
//!
//!     cargo run --release -p fuzz --example sim_hashes > after.txt
//!
//! An argument `gen` or `a6xx` runs only that target's lines (no total then).
use compiler::ir::Program;
use compiler::passes::pipeline;
use compiler::planted::{Plant, Plants};
use fuzz::oracle::{self, Coverage, OracleOptions};
use fuzz::targets::middle;
use sim::gen::{ExecSize, Gen};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

#[path = "../../compiler/examples/common/mod.rs"]
mod common;

fn plants_for(target: &str) -> Vec<Plants> {
    Plant::ALL
        .iter()
        .filter(|p| !p.test_only() && p.targets().split(' ').any(|t| t.starts_with(target)))
        .map(|p| Plants::NONE.with(*p))
        .collect()
}

fn gen_text(p: &Program, width: ExecSize, gen: Gen, grfs: u32, plants: Plants) -> String {
    let opts = compiler::gen::Options {
        width,
        gen,
        grfs,
        plants,
        ..compiler::gen::Options::default()
    };
    let c = match compiler::gen::compile(p, &opts) {
        Ok(c) => c,
        Err(e) => return format!("error {e}"),
    };
    let mut s = format!("{:?}\n", c.check);
    // The default 50 M cycles let a planted runaway loop run for seconds; the oracle stops
    // such loops far sooner with its instruction budget.
    let base = sim::gen::Config {
        max_cycles: 1_000_000,
        ..c.sim_config()
    };
    let configs = [
        base,
        sim::gen::Config {
            max_cycles: 3000,
            ..base
        },
        sim::gen::Config {
            max_instructions: 150,
            ..base
        },
        sim::gen::Config {
            max_hazards: 1,
            scratch_grfs: 4,
            ..base
        },
    ];
    for config in configs {
        s += &format!("{:?}\n", sim::gen::run(&c.program, &p.dispatch, &config));
    }
    s
}

fn a6xx_text(p: &Program, wave: sim::a6xx::WaveSize, registers: u32, plants: Plants) -> String {
    let opts = compiler::a6xx::Options {
        wave,
        registers,
        plants,
        ..compiler::a6xx::Options::default()
    };
    let c = match compiler::a6xx::compile(p, &opts) {
        Ok(c) => c,
        Err(e) => return format!("error {e}"),
    };
    let mut s = format!("{:?}\n", c.check);
    // As for Gen: a planted runaway loop would otherwise run its whole million cycles.
    let base = sim::a6xx::Config {
        cycle_budget: 100_000,
        ..c.sim_config()
    };
    let configs = [
        base,
        sim::a6xx::Config {
            cycle_budget: 3000,
            ..base
        },
        sim::a6xx::Config {
            instruction_budget: 150,
            ..base
        },
        sim::a6xx::Config {
            max_hazards: 1,
            private_words: 4,
            ..base
        },
    ];
    for config in configs {
        s += &format!("{:?}\n", sim::a6xx::run(&c.program, &p.dispatch, &config));
    }
    s
}

fn main() {
    // (name, optimised SSA program)
    let mut programs: Vec<(String, Program)> = common::optimised_corpus()
        .into_iter()
        .map(|(_, f, p)| (f.display().to_string(), p))
        .collect();
    let opts = OracleOptions::default();
    let mut buf = Vec::new();
    for i in 0..150 {
        fuzz::rng::input_bytes(1, i, 64, 2048, &mut buf);
        let Some(case) = oracle::decode(&buf) else {
            continue;
        };
        let Ok(p) = middle::optimise(&case, &opts, &mut Coverage::default()) else {
            continue;
        };
        programs.push((format!("generated/{i}"), p));
    }
    let only = std::env::args().nth(1).unwrap_or_default();
    let (gen_plants, a6xx_plants) = (plants_for("gen"), plants_for("a6xx"));
    let mut total = DefaultHasher::new();
    let mut compiles = 0u64;
    let mut emit = |name: &str, what: String, text: String| {
        let mut h = DefaultHasher::new();
        text.hash(&mut h);
        text.hash(&mut total);
        compiles += 1;
        println!("{name} {what} {:016x}", h.finish());
    };
    for (name, ssa) in &programs {
        let mut registers = ssa.clone();
        if only != "a6xx"
            && pipeline::to_registers(&mut registers, true, &Default::default()).is_ok()
        {
            for gen in [Gen::Gen7, Gen::Gen9] {
                for width in [ExecSize::S8, ExecSize::S16] {
                    let starved = if width == ExecSize::S16 { 40 } else { 20 };
                    let mut runs = vec![(125, Plants::NONE), (starved, Plants::NONE)];
                    runs.extend(gen_plants.iter().map(|p| (starved, *p)));
                    for (grfs, plants) in runs {
                        let text = gen_text(&registers, width, gen, grfs, plants);
                        emit(name, format!("{gen:?} {width:?} {grfs} {plants:?}"), text);
                    }
                }
            }
        }
        if only == "gen" {
            continue;
        }
        for wave in [sim::a6xx::WaveSize::W64, sim::a6xx::WaveSize::W128] {
            let mut runs = vec![(192, Plants::NONE), (24, Plants::NONE)];
            runs.extend(a6xx_plants.iter().map(|p| (24, *p)));
            for (regs, plants) in runs {
                let text = a6xx_text(ssa, wave, regs, plants);
                emit(name, format!("{wave:?} {regs} {plants:?}"), text);
            }
        }
    }
    eprintln!("{compiles} compiles, 4 runs each");
    eprintln!("total {:016x}", total.finish());
}
