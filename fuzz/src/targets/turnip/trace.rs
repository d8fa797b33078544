//! What `gpufuzz run X.ir --target turnip` says of ir3's code on our executor: the verdict
//! against the interpreter, the rules it broke, and with `--trace` each instruction the first
//! differing invocation (or invocation 0) executed — its cycle, its text and the registers it
//! wrote for that invocation.

use super::agree::Code;
use super::execute::{budget, execute};
use super::judge::expected;
use super::knobs::TurnipKnobs;
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::finding::Mismatch;
use crate::targets::driver::compile_only::Capture;
use compiler::ir::Program;
use std::fmt::Write;

/// The verdict lines, and whether the run was clean (ran, agreed, broke no rule).
pub fn explain(
    case: &Case,
    program: &Program,
    capture: &Capture,
    opts: &OracleOptions,
) -> (String, bool) {
    let knobs = TurnipKnobs::of(case);
    let head = "// ir3's code on our executor";
    let code = match Code::of(capture, knobs.generation()) {
        Ok(code) => code,
        Err(why) => return (format!("{head}: not run ({why})\n"), true),
    };
    let Some((expected, work)) = expected(case, opts) else {
        return (
            format!("{head}: not run (the interpreter does not finish)\n"),
            true,
        );
    };
    let interface = &capture.module.interface;
    let run = |watch| {
        let limits = (budget(work), watch);
        execute(
            &code,
            program,
            interface,
            knobs.facts(),
            limits,
            opts.plants,
        )
    };
    let executed = match run(None) {
        Err(why) => return (format!("{head}: not run ({why})\n"), true),
        Ok(e) => e,
    };
    let plan = spirv_emit::comparison(program, &capture.emit_options);
    let mut out = String::new();
    let (mut clean, watch) = match &executed.results {
        Err(stop) => {
            let _ = writeln!(out, "{head}: stopped: {stop}");
            let at = match stop {
                sim::ir3::exec::Stop::Fault {
                    invocation: Some(i),
                    ..
                } => *i,
                _ => 0,
            };
            (false, at)
        }
        Ok(actual) => match plan.first_difference(&expected, actual, &program.dispatch) {
            Some((d, _)) => {
                let m = Mismatch::from(d);
                let _ = writeln!(out, "{head}: differs from the interpreter: {m}");
                (false, m.invocation)
            }
            None => {
                let _ = writeln!(out, "{head}: agrees with the interpreter");
                (true, 0)
            }
        },
    };
    if let Some(r) = &executed.run {
        let _ = writeln!(
            out,
            "// {} instructions issued, {} cycles in the first wave",
            r.issued, r.cycles
        );
        for h in &r.hazards {
            let _ = writeln!(out, "// hazard: {h}");
            clean = false;
        }
    }
    if opts.trace {
        let text = sim::ir3::program_text(&code.decoded);
        let traced = run(Some(watch)).ok().and_then(|e| e.run);
        let _ = writeln!(
            out,
            "// -- trace of invocation {watch}: cycle, instruction, writes"
        );
        for t in traced.map(|r| r.trace).unwrap_or_default() {
            let writes: Vec<String> = (t.writes.iter())
                .map(|(reg, v)| format!("{reg}={v:#x}"))
                .collect();
            let ins = text.get(t.pc).map_or("?", String::as_str);
            let _ = writeln!(
                out,
                "// {:>6} {:>4}  {ins:<56} {}",
                t.cycle,
                t.pc,
                writes.join(" ")
            );
        }
    }
    (out, clean)
}
