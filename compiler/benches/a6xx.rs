//! a6xx backend numbers: compile time per program and simulated fiber-instructions per
//! second of the compiled code, over the test corpus programs (`cargo bench --bench a6xx`).

use compiler::a6xx::{compile, Options};
use compiler::ir::parse_program;
use std::time::Instant;

const PROGRAMS: &[&str] = &[include_str!("a6xx_bench.ir")];

fn main() {
    for src in PROGRAMS {
        let p = parse_program(src, "a6xx_bench.ir").expect("parses");
        for (name, opts) in [
            ("generous", Options::default()),
            (
                "starved (8 GPRs, 1 predicate)",
                Options {
                    registers: 8,
                    predicates: 1,
                    ..Options::default()
                },
            ),
        ] {
            let n = 2000;
            let t = Instant::now();
            let mut c = None;
            for _ in 0..n {
                c = Some(compile(&p, &opts).expect("compiles"));
            }
            let per = t.elapsed().as_secs_f64() / n as f64;
            let c = c.expect("compiled");
            let cfg = c.sim_config();
            let runs = 200;
            let t = Instant::now();
            let mut fi = 0u64;
            for _ in 0..runs {
                fi += sim::a6xx::run(&c.program, &p.dispatch, &cfg)
                    .stats
                    .fiber_instructions;
            }
            let rate = fi as f64 / t.elapsed().as_secs_f64();
            println!(
                "{name}: compile {:.1} µs/program ({} instructions, {} spills, {} pred reloads); sim {:.1} M fiber-instructions/s",
                per * 1e6,
                c.stats.instructions,
                c.stats.spills,
                c.stats.pred_reloads,
                rate / 1e6
            );
        }
    }
}
