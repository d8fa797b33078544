//! Same-behaviour check for interpreter changes: runs the reference interpreter (with its
//! statistics) over the corpus programs and 400 generated ones (bench seed 1), each as
//! generated, after the middle end, out of SSA, and with one instruction deleted (so that
//! values go undefined and phis lose sources), under five fuel settings (the default, tight
//! per-invocation fuel, and tight total fuel). Prints one line per run with a hash of the
//! results, statistics or error (a total on stderr). Run it before and after the change, and
//! diff:
//!
//!     cargo run --release -p fuzz --example interp_hashes > after.txt
use compiler::interp::{self, RunOptions};
use compiler::ir::Program;
use compiler::passes::pipeline;
use fuzz::oracle::{self, Coverage, OracleOptions};
use fuzz::targets::middle;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

#[path = "../../compiler/examples/common/mod.rs"]
mod common;

/// `p` without the `k`-th instruction (counted over all blocks, wrapping), if it has any.
fn without_instruction(p: &Program, k: usize) -> Option<Program> {
    let mut q = p.clone();
    let total: usize = q.func.blocks.values().map(|b| b.insts.len()).sum();
    let mut k = k.checked_rem(total)?;
    for b in q.func.blocks.values_mut() {
        if k < b.insts.len() {
            b.insts.remove(k);
            return Some(q);
        }
        k -= b.insts.len();
    }
    None
}

fn main() {
    let mut programs: Vec<(String, Program)> = common::optimised_corpus()
        .into_iter()
        .map(|(_, f, p)| (f.display().to_string(), p))
        .collect();
    let opts = OracleOptions::default();
    let mut buf = Vec::new();
    for i in 0..400 {
        fuzz::rng::input_bytes(1, i, 64, 2048, &mut buf);
        let Some(case) = oracle::decode(&buf) else {
            continue;
        };
        programs.push((format!("generated/{i}"), case.program.clone()));
        if let Some(q) = without_instruction(&case.program, i as usize * 7 + 3) {
            programs.push((format!("generated/{i}/cut"), q));
        }
        let Ok(p) = middle::optimise(&case, &opts, &mut Coverage::default()) else {
            continue;
        };
        let mut registers = p.clone();
        programs.push((format!("generated/{i}/optimised"), p));
        if pipeline::to_registers(&mut registers, true, &Default::default()).is_ok() {
            programs.push((format!("generated/{i}/registers"), registers));
        }
    }
    let fuels = [
        RunOptions::default(),
        RunOptions {
            fuel: 40,
            ..RunOptions::default()
        },
        RunOptions {
            fuel: 700,
            ..RunOptions::default()
        },
        RunOptions {
            total_fuel: 900,
            ..RunOptions::default()
        },
        RunOptions {
            fuel: 300,
            total_fuel: 2500,
        },
    ];
    let mut total = DefaultHasher::new();
    let mut interpreter = interp::Interpreter::new();
    for (name, p) in &programs {
        for (k, run) in fuels.iter().enumerate() {
            let text = format!("{:?}", interpreter.run_with_stats(p, run));
            let mut h = DefaultHasher::new();
            text.hash(&mut h);
            text.hash(&mut total);
            // The outcome's kind (`Ok`, `OutOfFuel`, …) makes a diff readable.
            let kind = text
                .trim_start_matches("Err(")
                .split(['(', ' ', '{'])
                .next()
                .unwrap_or_default();
            println!("{name} fuel{k} {kind} {:016x}", h.finish());
        }
    }
    eprintln!("{} programs, {} runs each", programs.len(), fuels.len());
    eprintln!("total {:016x}", total.finish());
}
