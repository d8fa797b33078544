//! The programs a stats run compiles: every `.ir` file of a folder (sorted by name), or `N`
//! programs generated from a seed (input `i` of the seed, as the fuzzer makes its inputs, fed
//! to the generator with [`CONFIG`]: the default knobs with fewer instructions, so the files
//! stay small). Generated programs the reference interpreter cannot finish are
//! skipped, so every program in a corpus terminates. `emit` writes a generated corpus
//! canonically (the printer's form, one header comment naming seed and input), which is how
//! the checked-in `corpus/stats/` was made (it stays fixed when the generator changes).

use crate::Error;
use arbitrary::Unstructured;
use compiler::interp::{self, RunOptions};
use compiler::ir::{text, verify, Program};
use fuzz::generator;
use std::path::Path;

/// Input lengths of generated programs.
pub const INPUT_LEN: (usize, usize) = (256, 1024);

/// The generator's knobs for stats corpora: the fuzzer's defaults (loops that run, phis,
/// textures, up to 96 invocations) with at most 32 generated statements.
pub const CONFIG: generator::Config = generator::Config {
    max_insts: 32,
    ..generator::Config::DEFAULT
};

/// Interpreter fuel a generated program must finish within, per invocation.
pub const FUEL: u64 = 200_000;

/// A named program.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Its name in stats files (the file stem, or `s<seed>_<index>`).
    pub name: String,
    /// The program.
    pub program: Program,
}

/// Reads every `.ir` file of `dir`, sorted by name; a file that does not parse or verify is
/// an error naming it.
pub fn load_dir(dir: &Path) -> Result<Vec<Entry>, Error> {
    let paths = text::ir_files(dir).map_err(Error::Compiler)?;
    if paths.is_empty() {
        return Err(Error::NoIrFiles {
            dir: dir.to_path_buf(),
        });
    }
    paths
        .iter()
        .map(|p| {
            let src = std::fs::read_to_string(p).map_err(Error::io(p))?;
            let program = text::parse_program(&src, &p.display().to_string())?;
            verify::verify(&program).map_err(|errors| Error::InvalidProgram {
                path: p.clone(),
                errors,
            })?;
            let name = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            Ok(Entry { name, program })
        })
        .collect()
}

/// The name of generated input `index` of `seed`.
pub fn generated_name(seed: u64, index: u64) -> String {
    format!("s{seed}_{index:04}")
}

/// `n` generated programs from `seed` that verify and run to completion in the interpreter
/// (inputs that give none are skipped; at most `8 n` inputs are tried).
pub fn generate(n: usize, seed: u64) -> Vec<Entry> {
    let mut out = Vec::with_capacity(n);
    let mut buf = Vec::new();
    let run = RunOptions {
        fuel: FUEL,
        ..RunOptions::default()
    };
    for index in 0..(8 * n as u64).max(8) {
        if out.len() == n {
            break;
        }
        fuzz::rng::input_bytes(seed, index, INPUT_LEN.0, INPUT_LEN.1, &mut buf);
        let Ok(program) = generator::generate(&mut Unstructured::new(&buf), &CONFIG) else {
            continue;
        };
        if verify::verify(&program).is_err() || interp::run(&program, &run).is_err() {
            continue;
        }
        out.push(Entry {
            name: generated_name(seed, index),
            program,
        });
    }
    out
}

/// Writes `entries` into `dir` as `<name>.ir`, canonically, each with a header comment.
pub fn emit(dir: &Path, entries: &[Entry], seed: u64) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
    for e in entries {
        let path = dir.join(format!("{}.ir", e.name));
        let body = format!(
            "; stats corpus: `gpufuzz stats --emit-corpus DIR --generate N --seed {seed}` ({})\n{}",
            e.name,
            text::print_program(&e.program)
        );
        fuzz::store::write_atomically(&path, body.as_bytes()).map_err(Error::io(&path))?;
    }
    Ok(())
}
