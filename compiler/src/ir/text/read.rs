//! Reading a program: lex, parse, check what needs every definition, assemble.

use super::check;
use super::lex::lex;
use super::limits::Limits;
use super::parse::{error, Parser};
use super::ParseError;
use crate::ir::Program;

/// Parses a whole program within the default [`Limits`]. `file` only names the input in
/// error messages.
pub fn parse_program(text: &str, file: &str) -> Result<Program, ParseError> {
    parse_program_within(text, file, &Limits::default())
}

/// Parses a whole program, refusing a header beyond `limits`.
pub fn parse_program_within(
    text: &str,
    file: &str,
    limits: &Limits,
) -> Result<Program, ParseError> {
    let toks = lex(text).map_err(|(pos, message)| error(file, pos, message))?;
    let mut p = Parser::new(file, toks, limits);
    let dispatch = p.read()?;
    check::run(&p)?;
    Ok(p.finish(dispatch))
}
