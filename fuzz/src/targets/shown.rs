//! What `gpufuzz run --target` prints for one target ([`Shown`]), the standalone repro files
//! a target writes for a report ([`Written`]), and the one way every target prints a
//! dispatch's results.

use sim::dispatch::{Dispatch, Results};
use std::fmt::Write;
use std::path::PathBuf;

/// A target's standalone repro of a case, written beside a report: files the developers of
/// what it runs (a driver) run without gpufuzz.
pub struct Written {
    /// The files, in the order the report lists them.
    pub files: Vec<PathBuf>,
    /// The script the report shows.
    pub shown: String,
    /// A command to run by hand before the script (an optimiser's step), if any.
    pub by_hand: Option<String>,
    /// What the shown script is and how to run it, when not the default (a vkrunner script
    /// whose probes hold the interpreter's values, or the module the driver compiled).
    pub how: Option<String>,
}

/// What a target shows of its compile and run of a case, and whether the run was clean
/// (completed, no hazard, no checker error).
pub struct Shown {
    /// Options, code, statistics, outputs.
    pub text: String,
    /// Whether nothing went wrong.
    pub clean: bool,
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
