//! What the same-output examples share: the repository's corpus programs after the middle end.

use compiler::ir::{parse_program, Program};
use compiler::passes::pipeline;
use std::path::PathBuf;

/// The `.ir` programs of `corpus/stats` and `corpus/regressions` (paths from the repository
/// root) in path order, each after the default middle-end pipeline (still SSA) with its index
/// among all the files, so that choices an example makes per index stay put when a file drops
/// out; files that do not parse or optimise are left out.
pub fn optimised_corpus() -> Vec<(usize, PathBuf, Program)> {
    let mut files: Vec<_> = ["corpus/stats", "corpus/regressions"]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap().map(|e| e.unwrap().path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ir"))
        .collect();
    files.sort();
    files
        .into_iter()
        .enumerate()
        .filter_map(|(i, f)| {
            let src = std::fs::read_to_string(&f).unwrap();
            let mut p = parse_program(&src, "x.ir").ok()?;
            let mut o = pipeline::PipelineOptions::default();
            pipeline::run_pipeline(&mut p, &mut o).ok()?;
            Some((i, f, p))
        })
        .collect()
}
