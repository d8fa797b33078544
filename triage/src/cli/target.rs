//! `gpufuzz run FILE.ir --target T [--emit asm]`: compile a program for one target the way the
//! fuzz oracle does (same middle end, same backend options for the case configuration), print
//! the disassembly, run it on the simulator, and print outputs, hazards and statistics.

use super::run::format_results;
use compiler::ir::Program;
use fuzz::oracle::{Case, Coverage, OracleOptions};
use fuzz::pipelines::{a6xx, gen, middle, vulkan};
use sim::gen::ExecSize;

/// What `run --target` prints for one target, and whether the run was clean (completed, no
/// hazard, no allocation-checker error).
pub struct Shown {
    /// Disassembly, statistics, outputs.
    pub text: String,
    /// Whether nothing went wrong.
    pub clean: bool,
}

/// Compiles and runs `case` for `target` (a registered name, checked by the caller).
pub fn show(case: &Case, opts: &OracleOptions, target: &str, asm: bool) -> Result<Shown, String> {
    let optimised =
        middle::optimise(case, opts, &mut Coverage::default()).map_err(|f| f.to_string())?;
    match target {
        "gen8" => show_gen(case, opts, &optimised, ExecSize::S8, asm),
        "gen16" => show_gen(case, opts, &optimised, ExecSize::S16, asm),
        "a6xx" => show_a6xx(case, opts, &optimised, asm),
        "middle" => Ok(Shown {
            text: compiler::ir::text::print_program(&optimised),
            clean: true,
        }),
        "vulkan" => show_vulkan(case, opts, &optimised, asm),
        other => Err(format!(
            "`run --target {other}` is not supported; `gpufuzz repro FILE --target {other}` \
             judges a program on it"
        )),
    }
}

/// The SPIR-V the driver gets (disassembled with `asm`), the device, where the time went,
/// and the outputs the device produced; a runner error (timeout, crash, refused pipeline)
/// is printed and makes the run unclean.
fn show_vulkan(
    case: &Case,
    opts: &OracleOptions,
    optimised: &Program,
    asm: bool,
) -> Result<Shown, String> {
    let program = vulkan::source(case, optimised);
    let info = vulkan::device(&opts.vulkan).map_err(|e| e.to_string())?;
    let mut out = format!(
        "// device: {}\n// program: {}\n",
        info.describe(),
        if case.config.vulkan_unoptimised {
            "the generator's (vulkan_unoptimised=true)"
        } else {
            "after the middle end"
        }
    );
    if asm {
        let module = spirv_emit::emit(program, &vulkan::emit_options(&info))
            .map_err(|e| format!("emit: {e}"))?;
        let passes = &case.config.vulkan_spirv_opt;
        let words = if passes.is_empty() {
            module.words
        } else {
            out += &format!("// after spirv-opt {passes}\n");
            fuzz::pipelines::spirv_opt::optimise(&module.words, passes)?
        };
        out += &spirv_emit::disassemble(&words)?;
        out.push('\n');
    }
    let done = match vulkan::execute(program, &case.config.vulkan_spirv_opt, &opts.vulkan) {
        Ok(done) => done,
        Err(vulkan::ExecuteError::Emit(e)) => return Err(format!("emit: {e}")),
        Err(vulkan::ExecuteError::SpirvOpt(e)) => return Err(e),
        Err(vulkan::ExecuteError::Run(e)) => {
            out += &format!("// run: {e}\n");
            return Ok(Shown {
                text: out,
                clean: false,
            });
        }
    };
    out += &format!(
        "// emit {:?}, pipeline {:?}, dispatch {:?}\n",
        done.emit, done.driver.pipeline, done.driver.dispatch
    );
    out += &format_results(&program.dispatch, &done.results);
    Ok(Shown {
        text: out,
        clean: true,
    })
}

fn show_gen(
    case: &Case,
    opts: &OracleOptions,
    optimised: &Program,
    width: ExecSize,
    asm: bool,
) -> Result<Shown, String> {
    let options = gen::options(case, opts, width);
    let (p, compiled) = triage::target_code::gen(case, opts, optimised, width)?;
    let mut out = format!("// {options:?}\n");
    if asm {
        out += &compiled.program.to_string();
    }
    out += &format!("// compile: {:?}\n", compiled.stats);
    if let Err(e) = &compiled.check {
        out += &format!("// allocation checker: {e}\n");
    }
    let run = match sim::gen::run(&compiled.program, &p.dispatch, &compiled.sim_config()) {
        Ok(run) => run,
        Err(errors) => {
            for e in errors {
                out += &format!("// simulator rejected the program: {e}\n");
            }
            return Ok(Shown {
                text: out,
                clean: false,
            });
        }
    };
    out += &format!("// run: {:?}, {:?}\n", run.outcome, run.stats);
    for h in &run.hazards {
        out += &format!("// hazard: {h:?}\n");
    }
    out += &format_results(&p.dispatch, &run.results);
    let clean = compiled.check.is_ok()
        && run.outcome == sim::gen::Outcome::Completed
        && run.hazards.is_empty();
    Ok(Shown { text: out, clean })
}

fn show_a6xx(
    case: &Case,
    opts: &OracleOptions,
    optimised: &Program,
    asm: bool,
) -> Result<Shown, String> {
    let options = a6xx::options(case, opts);
    let compiled = triage::target_code::a6xx(case, opts, optimised)?;
    let mut out = format!("// {options:?}\n");
    if asm {
        out += &compiled.program.to_string();
    }
    out += &format!("// compile: {:?}\n", compiled.stats);
    if let Err(e) = &compiled.check {
        out += &format!("// allocation checker: {e}\n");
    }
    let run = sim::a6xx::run(
        &compiled.program,
        &optimised.dispatch,
        &compiled.sim_config(),
    );
    out += &format!("// run: {:?}, {:?}\n", run.outcome, run.stats);
    for h in &run.hazards {
        out += &format!("// hazard: {h}\n");
    }
    out += &format_results(&optimised.dispatch, &run.results);
    let clean = compiled.check.is_ok()
        && run.outcome == sim::a6xx::Outcome::Completed
        && run.hazards.is_empty();
    Ok(Shown { text: out, clean })
}
