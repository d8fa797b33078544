//! Reading programs and raw inputs from files, with errors that name the file.

use compiler::ir::{text, verify, Program};
use std::path::Path;

/// Reads and parses a `.ir` file, then verifies it.
pub fn read_program(path: &Path) -> Result<Program, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let program =
        text::parse_program(&text, &path.display().to_string()).map_err(|e| e.to_string())?;
    verify::verify(&program).map_err(|e| format!("{}: invalid program:\n{e}", path.display()))?;
    Ok(program)
}

/// Reads a raw fuzz input.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Whether a path names a program in the text format (by extension).
pub fn is_ir(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "ir")
}
