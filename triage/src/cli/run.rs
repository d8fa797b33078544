//! `gpufuzz run FILE.ir`: interpret a program and print every invocation's outputs.

use super::input;
use clap::Args;
use compiler::interp::{self, RunOptions};
use sim::dispatch::{Dispatch, Results};
use std::fmt::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The program (`.ir`).
    file: PathBuf,
    /// Interpreter fuel per invocation.
    #[arg(long, default_value_t = 10_000_000)]
    fuel: u64,
}

pub fn run(a: RunArgs) -> Result<ExitCode, String> {
    let program = input::read_program(&a.file)?;
    let opts = RunOptions {
        fuel: a.fuel,
        ..RunOptions::default()
    };
    let results = interp::run(&program, &opts).map_err(|e| format!("{}: {e}", a.file.display()))?;
    print!("{}", format_results(&program.dispatch, &results));
    Ok(ExitCode::SUCCESS)
}

/// Every invocation's output slots, then every buffer's words, one invocation per line.
pub fn format_results(d: &Dispatch, r: &Results) -> String {
    let mut s = String::new();
    let words = |s: &mut String, ws: &[u32]| {
        for w in ws {
            let _ = write!(s, " {w:#010x}");
        }
        s.push('\n');
    };
    if d.outputs > 0 {
        for (i, chunk) in r.outputs.chunks(d.outputs as usize).enumerate() {
            let _ = write!(s, "invocation {i}:");
            words(&mut s, chunk);
        }
    }
    for (b, buf) in r.buffers.iter().enumerate() {
        let len = d.buffers[b] as usize;
        if len == 0 {
            continue;
        }
        let _ = writeln!(s, "buffer {b}:");
        for (i, chunk) in buf.chunks(len).enumerate() {
            let _ = write!(s, "  invocation {i}:");
            words(&mut s, chunk);
        }
    }
    s
}
