//! The machine code a backend makes of a case, compiled exactly as the fuzz oracle compiles
//! it (same middle end, same backend options from the case configuration): what `gpufuzz run
//! --emit asm` prints and what a report shows beside the `.ir`.

use compiler::ir::Program;
use compiler::passes::pipeline::{self, PassConfig};
use fuzz::oracle::{Case, OracleOptions};
use fuzz::pipelines::{a6xx, gen};
use sim::gen::ExecSize;

/// `optimised` (the middle end's output for `case`) in register form and compiled for Gen at
/// `width`; the register-form program is what the simulator's dispatch comes from.
pub fn gen(
    case: &Case,
    opts: &OracleOptions,
    optimised: &Program,
    width: ExecSize,
) -> Result<(Program, compiler::gen::Compiled), String> {
    let mut p = optimised.clone();
    let config = PassConfig {
        plants: opts.plants,
    };
    pipeline::to_registers(&mut p, true, &config).map_err(|e| e.to_string())?;
    let compiled = compiler::gen::compile(&p, &gen::options(case, opts, width))
        .map_err(|e| format!("compile error: {e}"))?;
    Ok((p, compiled))
}

/// `optimised` compiled for a6xx.
pub fn a6xx(
    case: &Case,
    opts: &OracleOptions,
    optimised: &Program,
) -> Result<compiler::a6xx::Compiled, String> {
    compiler::a6xx::compile(optimised, &a6xx::options(case, opts))
        .map_err(|e| format!("compile error: {e}"))
}

/// The disassembly of `target`'s code for `case` (`gen8`, `gen16`, `a6xx`), headed by what the
/// allocation checker and the simulator's hazard check say (they name the instruction).
pub fn listing(
    case: &Case,
    opts: &OracleOptions,
    optimised: &Program,
    target: &str,
) -> Option<String> {
    let mut s = String::new();
    let code = match target {
        "gen8" | "gen16" => {
            let width = if target == "gen8" {
                ExecSize::S8
            } else {
                ExecSize::S16
            };
            let (p, compiled) = gen(case, opts, optimised, width).ok()?;
            if let Err(e) = &compiled.check {
                s += &format!("// allocation checker: {e}\n");
            }
            if let Ok(run) = sim::gen::run(&compiled.program, &p.dispatch, &compiled.sim_config()) {
                for h in &run.hazards {
                    s += &format!("// hazard: {h:?}\n");
                }
            }
            compiled.program.to_string()
        }
        "a6xx" => {
            let compiled = a6xx(case, opts, optimised).ok()?;
            if let Err(e) = &compiled.check {
                s += &format!("// allocation checker: {e}\n");
            }
            let config = compiled.sim_config();
            let run = sim::a6xx::run(&compiled.program, &optimised.dispatch, &config);
            for h in &run.hazards {
                s += &format!("// hazard: {h}\n");
            }
            compiled.program.to_string()
        }
        _ => return None,
    };
    s += &code;
    Some(s)
}
