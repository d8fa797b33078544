//! Reading programs and raw inputs from files, with errors that name the file. Whether a file
//! is a program in the text format or raw fuzz bytes is decided by its content (or `--raw`),
//! never by its name.

use super::config::CaseArgs;
use super::error::CliError;
use compiler::interp::{self, RunOptions};
use compiler::ir::{text, Program};
use fuzz::case::text as case_text;
use fuzz::oracle::{self, Case};
use std::path::Path;

/// Said after any error in a program's text: where its format is described.
pub const FORMAT_HINT: &str = "(the .ir text format: docs/ir.md)";

/// Reads a `.ir` file with its `; case:` header within the flags' limits, then verifies it. The
/// header's knobs the flags' `--case` replaces are not read (their values there may be ones
/// this machine's driver refuses).
pub fn read_case(path: &Path, config: &CaseArgs) -> Result<Case, CliError> {
    let bytes = std::fs::read(path).map_err(CliError::io(path))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        CliError::Input(format!(
            "{}: not a program in the text format (a raw fuzz input, `input.bin`? `gpufuzz \
             repro` and `gpufuzz reduce` read those)",
            path.display()
        ))
    })?;
    let replaced: Vec<&str> = (config.case.iter())
        .filter_map(|kv| kv.split_once('=').map(|(k, _)| k.trim()))
        .collect();
    let limits = config.limits()?;
    case_text::parse_case_except(&text, &path.display().to_string(), &limits, &replaced)
        .map_err(|e| CliError::Input(format!("{e}\n{FORMAT_HINT}")))
}

/// Reads an input file as a case: a program in the text format (with its header) unless
/// `raw` or the content is not text, else raw fuzz bytes decoded as the fuzzer does. The
/// command line's `--disable-pass` and `--case` override what the file says. `None`: raw bytes
/// from which the generator makes no program.
pub fn load(path: &Path, raw: bool, config: &CaseArgs) -> Result<Option<Case>, CliError> {
    let bytes = std::fs::read(path).map_err(CliError::io(path))?;
    let case = if !raw && case_text::looks_like_text(&bytes) {
        read_case(path, config)?
    } else {
        match fuzz::panics::catch(|| oracle::decode(&bytes)) {
            Ok(Some(case)) => case,
            Ok(None) => return Ok(None),
            Err(p) => {
                return Err(CliError::Input(format!(
                    "{}: the generator panicked decoding it at {}: {}",
                    path.display(),
                    p.location,
                    p.message
                )))
            }
        }
    };
    Ok(Some(Case {
        config: config.apply(case.config)?,
        program: case.program,
    }))
}

/// A fused finding's batch (`batch/` of its folder, or a reduced one): every file directly in
/// `dir` but hidden ones, in name order, read as [`load`] reads one. An input that decodes to
/// no program took no part in the fused shader and is left out; `Err` names a file that does
/// not read, or a folder with fewer than two programs (a batch of one is no fusion).
pub fn load_batch(
    dir: &Path,
    raw: bool,
    config: &CaseArgs,
) -> Result<Vec<(String, Case)>, CliError> {
    let read = std::fs::read_dir(dir).map_err(CliError::io(dir))?;
    let mut files: Vec<_> = read
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .filter(|p| {
            !p.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .starts_with('.')
        })
        .collect();
    files.sort();
    let mut cases = Vec::with_capacity(files.len());
    for file in &files {
        if let Some(case) = load(file, raw, config)? {
            let name = file.file_name().unwrap_or_default().to_string_lossy();
            cases.push((name.to_string(), case));
        }
    }
    if cases.len() < 2 {
        return Err(CliError::Input(format!(
            "{}: a batch is a folder of at least two programs or inputs judged together \
             (a fused finding's `batch/`); it holds {}",
            dir.display(),
            cases.len()
        )));
    }
    Ok(cases)
}

/// Whether `load` reads this file as a program in the text format.
pub fn is_text(path: &Path, raw: bool) -> bool {
    !raw && std::fs::read(path).is_ok_and(|b| case_text::looks_like_text(&b))
}

/// The `; expect` lines of the program file `path` (docs/ir.md) against `outputs`, the
/// interpreter's outputs for `program` (run here when not given). `Some(message)` names the
/// first line that differs; a file without such lines has nothing to check.
pub fn unmet_expectation(
    path: &Path,
    program: &Program,
    outputs: Option<&[u32]>,
) -> Result<Option<String>, CliError> {
    let src = std::fs::read_to_string(path).map_err(CliError::io(path))?;
    let name = path.display().to_string();
    let expected = text::expect::parse(&src, &name).map_err(CliError::Input)?;
    if expected.is_empty() {
        return Ok(None);
    }
    let ran;
    let outputs = match outputs {
        Some(o) => o,
        None => {
            ran =
                interp::run(program, &RunOptions::default()).map_err(|e| format!("{name}: {e}"))?;
            &ran.outputs
        }
    };
    let slots = program.dispatch.outputs as usize;
    Ok(text::expect::check(&expected, outputs, slots, &name).err())
}
