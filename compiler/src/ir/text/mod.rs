//! The text format: a printer and a parser, print → parse → print being the identity.
//!
//! The format is specified by example in [the IR's module doc](super). The pieces:
//! * [`print`] — [`print_program`] and [`print_inst`];
//! * [`lex`] — tokens with line and column, comments dropped, line ends kept;
//! * [`parse`] — header and control-flow structure;
//! * [`inst`] — one instruction line;
//! * [`check`] — the checks that need every definition first (undefined values, unknown
//!   phi predecessors, operand and result types), run once the whole body is read.
//!
//! The parser is line-oriented: every header line, block label, `if ssa_N {`, `loop {`,
//! `} else {`, `}` and instruction ends at a line end (a `/* */` comment is whitespace, even
//! when it spans lines). It never panics: bad input is a [`ParseError`] at the first problem.
//! Entity numbers are kept (`ssa_7` is value 7); gaps are filled with placeholder values and
//! blocks that no instruction and no layout refers to. Deep semantic rules (dominance, phi
//! sources matching predecessors) are the verifier's.

mod check;
mod inst;
mod lex;
mod parse;
mod print;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_errors;

pub use parse::parse_program;
pub use print::{nice_float, print_inst, print_program};

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
