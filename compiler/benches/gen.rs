//! The Gen backend: compile time per program (generous and starved GRF budgets, SIMD8 and
//! SIMD16) over the test programs, and simulated lane-instructions per second of the compiled
//! code. Run with `cargo bench -p compiler --bench gen`.

use compiler::gen::{compile, Options};
use compiler::ir::{parse_program, Program};
use compiler::passes::pipeline;
use sim::gen::{ExecSize, Gen};
use std::hint::black_box;
use std::time::Instant;

fn programs() -> Vec<(String, Program)> {
    let mut out = Vec::new();
    for dir in ["tests/gen_programs", "../corpus/regressions"] {
        let dir = format!("{}/{dir}", env!("CARGO_MANIFEST_DIR"));
        let mut entries: Vec<_> = std::fs::read_dir(&dir).expect("dir").flatten().collect();
        entries.sort_by_key(|e| e.path());
        for e in entries {
            let path = e.path();
            if path.extension().is_some_and(|x| x == "ir") {
                let src = std::fs::read_to_string(&path).expect("read");
                let mut p = parse_program(&src, "bench.ir").expect("parse");
                let mut o = pipeline::PipelineOptions::default();
                pipeline::run_pipeline(&mut p, &mut o).expect("pipeline");
                pipeline::to_registers(&mut p, false, &Default::default()).expect("from_ssa");
                let name = path.file_stem().unwrap().to_string_lossy().into_owned();
                out.push((name, p));
            }
        }
    }
    out
}

fn main() {
    let ps = programs();
    for (width, label) in [(ExecSize::S8, "SIMD8"), (ExecSize::S16, "SIMD16")] {
        for (grfs, budget) in [(125, "generous"), (12 * width.regs(), "starved")] {
            let o = Options {
                width,
                gen: Gen::Gen9,
                grfs,
                ..Options::default()
            };
            let reps = 200;
            let t = Instant::now();
            let mut insts = 0u64;
            let mut spills = 0u64;
            for _ in 0..reps {
                for (_, p) in &ps {
                    let c = compile(black_box(p), &o).expect("compiles");
                    insts += c.stats.instructions as u64;
                    spills += c.stats.spills as u64;
                }
            }
            let per = t.elapsed().as_secs_f64() / (reps * ps.len()) as f64;
            println!(
                "{label} {budget:8} ({grfs:3} GRFs): {:7.1} µs per compile, {:.0} instructions, {:.1} spills per program",
                per * 1e6,
                insts as f64 / (reps * ps.len()) as f64,
                spills as f64 / (reps * ps.len()) as f64
            );
        }
        let o = Options {
            width,
            gen: Gen::Gen9,
            ..Options::default()
        };
        let compiled: Vec<_> = ps
            .iter()
            .map(|(_, p)| (p, compile(p, &o).expect("compiles")))
            .collect();
        let t = Instant::now();
        let mut lanes = 0u64;
        let reps = 2000;
        for _ in 0..reps {
            for (p, c) in &compiled {
                let mut d = p.dispatch.clone();
                d.invocations = 256;
                let r = sim::gen::run(&c.program, black_box(&d), &sim::gen::Config::default())
                    .expect("runs");
                lanes += r.stats.lane_instructions;
            }
        }
        let s = t.elapsed().as_secs_f64();
        println!(
            "{label} compiled code: {:.1} M simulated lane-instructions/s",
            lanes as f64 / s / 1e6
        );
    }
}
