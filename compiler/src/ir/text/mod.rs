//! The text format: a printer and a parser, print → parse → print being the identity.
//!
//! The format's reference, for users, is `docs/ir.md`; [the IR's module doc](super) shows it
//! by example. The pieces, in the order text flows through them:
//! * `print.rs` — [`print_program`] and [`print_inst`];
//! * `lex.rs` — tokens with line and column, comments dropped, line ends kept;
//! * `parse.rs` — header and control-flow structure ([`parse_program`]);
//! * `inst.rs` — one instruction line;
//! * `check.rs` — the checks that need every definition first (undefined values, unknown
//!   phi predecessors, operand and result types), run once the whole body is read;
//! * `expect.rs` — the `; expect I: …` comment lines that state a program's outputs.
//!
//! Rules the example leaves open, as implemented:
//! * the parser is line-oriented: every header line, block label, `if ssa_N {`, `loop {`,
//!   `} else {`, `}` and instruction ends at a line end (a `/* */` comment is whitespace,
//!   even when it spans lines); indentation is free;
//! * header lines come in the order invocations, outputs, uniforms (once), buffer lines,
//!   texture lines, `var_N` lines, `reg_N` lines; vars and regs are numbered densely from 0;
//! * numbers are decimal or `0x` hex everywhere; a `vec1 1` constant component may be a
//!   number (the printer writes one for a bit pattern other than 0 or 1);
//! * `tex`/`txf` parameters go in the order lod, bias, layer, each at most once; a `mov`
//!   always has a swizzle, of exactly the result's width; an `if` always has `} else {`;
//! * a phi may have no sources (`vec1 32 ssa_3 = phi`);
//! * an empty body (no block at all) parses, so `Program::default()` round-trips.
//!
//! It never panics: bad input is a [`ParseError`] at the first problem. Entity numbers are
//! kept (`ssa_7` is value 7, at most [`MAX_ENTITY`]); gaps are filled with placeholder
//! values (`vec1 32`, no definition) and empty blocks outside the layout. Nesting is limited
//! to [`MAX_DEPTH`]. Deep semantic rules (dominance, phi sources matching predecessors,
//! declared buffer and texture numbers) are the verifier's.

mod check;
pub mod expect;
mod inst;
mod lex;
mod limits;
mod parse;
mod print;
mod read;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_errors;
#[cfg(test)]
mod tests_fuzz;

pub use limits::{LimitError, Limits};
pub use parse::{MAX_DEPTH, MAX_ENTITY};
pub use print::{nice_float, print_inst, print_program};
pub use read::{parse_program, parse_program_within};

use std::path::{Path, PathBuf};

/// The `.ir` files of folder `dir`, sorted by name (a corpus, the regressions); an unreadable
/// folder is an error naming it.
pub fn ir_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let rd = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ir"))
        .collect();
    paths.sort();
    Ok(paths)
}

/// Where and why parsing failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{col}: {message}")]
pub struct ParseError {
    /// The file name given to [`parse_program`].
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
    /// What was expected and what was found, or what is wrong.
    pub message: String,
}

/// A position in the text: 1-based line and column (in characters).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Pos {
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub col: u32,
}
