//! Same-output check for a6xx backend changes: compiles every program of `corpus/stats` and
//! `corpus/regressions` (after the middle end, out of SSA) at the default register budget and
//! starved ones, with one and four predicate registers, and prints one line per compile with a
//! hash of its program, `CompileStats` and checker verdict (and a total on stderr). Run it
//! before and after a change that should not alter allocation and diff:
//!
//!     cargo run --release -p compiler --example a6xx_hashes > after.txt
use compiler::a6xx::{compile, Options};
use compiler::passes::pipeline;
use std::hash::{Hash, Hasher};

mod common;

fn main() {
    let mut total = std::collections::hash_map::DefaultHasher::new();
    let mut compiles = 0;
    for (_, f, mut p) in common::optimised_corpus() {
        pipeline::to_registers(&mut p, true, &Default::default()).unwrap();
        for registers in [192, 48, 24, 16, 12] {
            for predicates in [4, 1] {
                let opts = Options {
                    registers,
                    predicates,
                    ..Options::default()
                };
                let text = match compile(&p, &opts) {
                    Ok(c) => format!("{:?}\n{:?}\n{:?}", c.program, c.stats, c.check),
                    Err(e) => format!("error {e}"),
                };
                let mut hh = std::collections::hash_map::DefaultHasher::new();
                text.hash(&mut hh);
                text.hash(&mut total);
                compiles += 1;
                println!(
                    "{} {registers} {predicates} {:016x}",
                    f.display(),
                    hh.finish()
                );
            }
        }
    }
    eprintln!("{compiles} compiles");
    eprintln!("total {:016x}", total.finish());
}
