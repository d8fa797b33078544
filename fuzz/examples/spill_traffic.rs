//! What the Gen spill code costs at run time: compiles the programs `gpufuzz bench` makes
//! (its input stream, seed and count as given) through the `gen8` and `gen16` pipelines at
//! their cases' budgets, runs each on the simulator, and prints per width the compiles, those
//! that spill, the registers spilled, the static instructions, and what ran: instructions,
//! scratch reads and writes, spill stores, fills and pre-fills. `docs/performance.md`
//! quotes it:
//!
//!     cargo run --release -p fuzz --example spill_traffic -- 1 300 > after.txt
//!
//! Arguments: seed (default 1), programs (default 300). The totals go to stderr; stdout gets
//! one line per compile (`program width executed spilled-registers`), so that two builds can
//! be compared program by program.
use compiler::passes::pipeline::{self, PassConfig};
use fuzz::oracle::{self, Coverage, OracleOptions};
use fuzz::rng;
use fuzz::targets::{gen, middle};
use sim::gen::ExecSize;

/// Totals over one width's compiles.
#[derive(Default)]
struct Traffic {
    compiles: u64,
    spilling: u64,
    spilled_regs: u64,
    static_insts: u64,
    executed: u64,
    scratch_reads: u64,
    scratch_writes: u64,
    spills: u64,
    fills: u64,
    prefills: u64,
}

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<u64>());
    let seed = args.next().transpose().expect("a seed").unwrap_or(1);
    let programs = args.next().transpose().expect("a count").unwrap_or(300);
    let opts = OracleOptions::default();
    let mut buf = Vec::new();
    for width in [ExecSize::S8, ExecSize::S16] {
        let mut t = Traffic::default();
        for i in 0..programs {
            rng::input_bytes(seed, i, 64, 2048, &mut buf);
            let Some(case) = oracle::decode(&buf) else {
                continue;
            };
            let mut cov = Coverage::default();
            let Ok(mut registers) = middle::optimise_verified(&case, &opts, &mut cov) else {
                continue;
            };
            let config = PassConfig {
                plants: opts.plants,
            };
            if pipeline::to_registers(&mut registers, false, &config).is_err() {
                continue;
            }
            let options = gen::options(&case, &opts, width);
            let Ok(c) = compiler::gen::compile(&registers, &options) else {
                continue;
            };
            let Ok(run) = sim::gen::run_valid(&c.program, &registers.dispatch, &c.sim_config())
            else {
                continue;
            };
            let e = c.executed(&run);
            println!(
                "{i} {width:?} {} {}",
                run.stats.instructions, c.stats.spilled_regs
            );
            t.compiles += 1;
            t.spilling += u64::from(c.stats.spilled_regs > 0);
            t.spilled_regs += u64::from(c.stats.spilled_regs);
            t.static_insts += u64::from(c.stats.instructions);
            t.executed += run.stats.instructions;
            t.scratch_reads += run.stats.scratch_reads;
            t.scratch_writes += run.stats.scratch_writes;
            t.spills += e.spills;
            t.fills += e.fills;
            t.prefills += e.prefills;
        }
        eprintln!(
            "{width:?}: {} compiles, {} spill ({} registers); {} static instructions; executed: \
             {} instructions, scratch reads {} writes {}, spill stores {}, fills {}, pre-fills {}",
            t.compiles,
            t.spilling,
            t.spilled_regs,
            t.static_insts,
            t.executed,
            t.scratch_reads,
            t.scratch_writes,
            t.spills,
            t.fills,
            t.prefills
        );
    }
}
