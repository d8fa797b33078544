//! Same-output check for a6xx backend changes: compiles every program of `corpus/stats` and
//! `corpus/regressions` (after the middle end, out of SSA) at the default register budget and
//! starved ones, with one and four predicate registers, and prints one line per compile with a
//! hash of its program, `CompileStats` and checker verdict (and a total on stderr). Run it
//! before and after a change that should not alter allocation and diff:
//!
//!     cargo run --release -p compiler --example a6xx_hashes > after.txt
use compiler::a6xx::{compile, Options};
use compiler::ir::parse_program;
use compiler::passes::pipeline;
use std::hash::{Hash, Hasher};

fn main() {
    let mut files: Vec<_> = ["corpus/stats", "corpus/regressions"]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap().map(|e| e.unwrap().path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ir"))
        .collect();
    files.sort();
    let mut total = std::collections::hash_map::DefaultHasher::new();
    let mut compiles = 0;
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        let Ok(mut p) = parse_program(&src, "x.ir") else {
            continue;
        };
        let mut o = pipeline::PipelineOptions::default();
        if pipeline::run_pipeline(&mut p, &mut o).is_err() {
            continue;
        }
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
