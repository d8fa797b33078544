//! `gpufuzz fmt FILE.ir`: parse and print canonically (print → parse → print is the identity);
//! the format is `docs/ir.md`.
//! The file's leading `;` comment lines (a regression's story and expectations) are kept.

use super::error::CliError;
use clap::Args;
use compiler::ir::text;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct FmtArgs {
    /// The program to format.
    file: PathBuf,
    /// Rewrite the file in place instead of printing.
    #[arg(long, short = 'i')]
    in_place: bool,
    /// Exit with status 1 if the file is not already canonical.
    #[arg(long)]
    check: bool,
}

pub fn run(a: FmtArgs) -> Result<ExitCode, CliError> {
    let src = std::fs::read_to_string(&a.file).map_err(CliError::io(&a.file))?;
    let program = text::parse_program(&src, &a.file.display().to_string())
        .map_err(|e| CliError::Input(format!("{e}\n{}", super::input::FORMAT_HINT)))?;
    let header: String = src
        .lines()
        .take_while(|l| l.starts_with(';'))
        .map(|l| format!("{l}\n"))
        .collect();
    let out = header + &text::print_program(&program);
    if a.check {
        if out != src {
            eprintln!("{}: not in canonical form", a.file.display());
            return Ok(ExitCode::from(1));
        }
    } else if a.in_place {
        fuzz::store::write_atomically(&a.file, out.as_bytes()).map_err(CliError::io(&a.file))?;
    } else {
        print!("{out}");
    }
    Ok(ExitCode::SUCCESS)
}
