//! The anv target's verdict on one compiled case: brw's code run on our executor
//! ([`super::execute`]) against the interpreter, and a difference corroborated
//! ([`super::corroborate`]) before it is called brw's.

use super::super::target::caused;
use super::corroborate::{corroborate, survives};
use super::execute::{budget, execute, Outcome};
use super::{AnvClass, Capture};
use crate::case::coverage::Coverage;
use crate::case::interpreter::INTERPRETER;
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::finding::{Finding, FindingKind, Mismatch};
use compiler::executed::Executed;
use compiler::interp::RunOptions;
use compiler::ir::Program;
use compiler::profile::{self, Phase};
use sim::dispatch::Results;
use sim::intel::exec::Stop;

/// Judges a compiled case on the executor: `Ok` when brw's code agrees with the interpreter
/// or could not be run (the reason counted in `coverage.skipped`). When it differs, faults or
/// times out, the case is run again with brw's switches changed and on our own Gen backend
/// ([`corroborate`]): a difference that survives is brw's ([`FindingKind::Mismatch`]), any
/// other stays [`FindingKind::Unconfirmed`] — kept for investigation, never filed as brw's
/// bug. Either way the finding lists every comparison. `optimised` is the middle end's
/// program (our backend's input), `program` the one anv compiled. A run that agrees gives
/// its first thread's cycles.
pub fn judge(
    case: &Case,
    optimised: &Program,
    program: &Program,
    capture: &Capture,
    opts: &OracleOptions,
    coverage: &mut Coverage,
) -> Result<Option<u64>, Box<Finding>> {
    let run = RunOptions {
        fuel: opts.fuel,
        ..RunOptions::default()
    };
    let Ok((expected, work)) =
        INTERPRETER.with_borrow_mut(|i| i.run_with_stats(&case.program, &run))
    else {
        coverage
            .skipped
            .push("anv: the interpreter does not finish".into());
        return Ok(None);
    };
    let plan = spirv_emit::comparison(program, &capture.emit_options);
    let dispatch = &program.dispatch;
    let difference = |r: &Results| {
        (plan.first_difference(&expected, r, dispatch)).map(|(d, _)| Mismatch::from(d).to_string())
    };
    let budget = budget(work.executed_insts);
    let simd = capture.kernels.first().map_or(0, |k| k.simd);
    let at = format!(
        "[anv {}, {}, SIMD{simd}; {}]",
        capture.platform,
        capture.variables_text(),
        capture.device
    );
    // Timed as the simulator's phase, so that `gpufuzz bench --target anv` shows its share.
    let executed = profile::time(Phase::Simulate, || execute(capture, program, budget));
    let (class, detail, mismatch) = match executed {
        Err(why) => {
            coverage.skipped.push(format!("anv: {why}"));
            return Ok(None);
        }
        Ok((Outcome::Results(actual), cycles)) => {
            let Some((d, _)) = plan.first_difference(&expected, &actual, dispatch) else {
                // Ran to completion and agrees: `fuzz`'s summary counts it under
                // `reach.ran["anv"]` (brw's spill code is not counted there).
                coverage.executed.push(("anv", Executed::default()));
                return Ok(Some(cycles));
            };
            let m = Mismatch::from(d);
            (AnvClass::Mismatch, m.to_string(), Some(m))
        }
        Ok((Outcome::Stopped(Stop::Fault(why)), _)) => (AnvClass::Fault, why, None),
        Ok((Outcome::Stopped(Stop::Hazard(why)), _)) => (AnvClass::Hazard, why, None),
        Ok((Outcome::Stopped(stop), _)) => (AnvClass::Timeout, stop.to_string(), None),
    };
    let others = corroborate(
        case,
        optimised,
        program,
        capture,
        opts,
        &expected,
        budget,
        &difference,
    );
    let listed: Vec<String> = others.iter().map(|c| c.to_string()).collect();
    let (kind, whose) = if survives(&others) {
        (
            FindingKind::Mismatch,
            "brw's: other builds and our backend agree",
        )
    } else {
        (
            FindingKind::Unconfirmed,
            "not shown to be brw's: our executor may be wrong",
        )
    };
    let mut f = caused(
        "anv",
        kind,
        format!(
            "brw's code on our executor: {detail} {at} ({whose}; {})",
            listed.join("; ")
        ),
        class.cause(),
    );
    f.difference = mismatch;
    Err(f)
}
