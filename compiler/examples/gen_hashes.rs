//! Same-output check for Gen backend changes: compiles every program of `corpus/stats` and
//! `corpus/regressions` (after the middle end, out of SSA) at both widths, at the default
//! budget and starved ones, across the `GenHeuristics` choices, and prints one line per
//! compile with a hash of its disassembly, `CompileStats` and checker verdict (and a total on
//! stderr). Run it before and after a change that should not alter allocation and diff:
//!
//!     cargo run --release -p compiler --example gen_hashes > after.txt
use compiler::gen::{compile, Options};
use compiler::heuristics::{ColourOrder, GenHeuristics, Pick, SpillChoice};
use compiler::passes::pipeline;
use sim::gen::{ExecSize, Gen};
use std::hash::{Hash, Hasher};

mod common;

fn main() {
    let mut hs = Vec::new();
    for s in SpillChoice::ALL {
        for pk in Pick::ALL {
            for o in ColourOrder::ALL {
                for (lw, uw, dw) in [(10, 1, 1), (1, 2, 1), (100, 1, 3)] {
                    hs.push(GenHeuristics {
                        loop_weight: lw,
                        use_weight: uw,
                        def_weight: dw,
                        spill: *s,
                        pick: *pk,
                        order: *o,
                    });
                }
            }
        }
    }
    let (mut spilled, mut spilling) = (0u64, 0u64);
    let mut total = std::collections::hash_map::DefaultHasher::new();
    for (i, f, mut p) in common::optimised_corpus() {
        pipeline::to_registers(&mut p, true, &Default::default()).unwrap();
        for width in [ExecSize::S8, ExecSize::S16] {
            let mut runs: Vec<(u32, GenHeuristics)> = Vec::new();
            let k = if width == ExecSize::S16 { 2 } else { 1 };
            for g in [125, 24, 20, 16] {
                runs.push(((g * k).min(125), GenHeuristics::default()));
            }
            runs.push((20 * k, hs[i % hs.len()]));
            runs.push((16 * k, hs[(i * 7 + 3) % hs.len()]));
            runs.push((12 * k, hs[(i * 5 + 1) % hs.len()]));
            for (grfs, h) in runs {
                let opts = Options {
                    width,
                    gen: Gen::Gen9,
                    grfs,
                    heuristics: h,
                    ..Options::default()
                };
                let text = match compile(&p, &opts) {
                    Ok(c) => {
                        spilled += c.stats.spilled_regs as u64;
                        spilling += (c.stats.spilled_regs > 0) as u64;
                        format!("{}\n{:?}\n{:?}", c.program, c.stats, c.check)
                    }
                    Err(e) => format!("error {e}"),
                };
                let mut hh = std::collections::hash_map::DefaultHasher::new();
                text.hash(&mut hh);
                text.hash(&mut total);
                println!(
                    "{} {:?} {} {:?} {:016x}",
                    f.display(),
                    width,
                    grfs,
                    h,
                    hh.finish()
                );
            }
        }
    }
    eprintln!("{spilling} compiles spill, {spilled} registers in all");
    eprintln!("total {:016x}", total.finish());
}
