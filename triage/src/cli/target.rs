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
        "anv" => show_anv(case, &optimised, asm),
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

/// anv's capture: per SIMD variant brw kept, the listing (with `asm`), brw's statistics and
/// our decoder's agreement with brw's disassembly; a failed compile or any finding the
/// capture shows is printed and makes the run unclean.
fn show_anv(case: &Case, optimised: &Program, asm: bool) -> Result<Shown, String> {
    use fuzz::pipelines::anv;
    let c = &case.config;
    let program = vulkan::source(case, optimised);
    let mut out = format!(
        "// anv on {} with INTEL_DEBUG={}\n",
        c.anv_platform,
        c.anv_debug.intel_debug()
    );
    let capture = match anv::compile(program, c.anv_platform, c.anv_debug) {
        Ok(capture) => capture,
        Err(anv::CompileError::Emit(e)) => return Err(format!("emit: {e}")),
        Err(anv::CompileError::Run(e)) => {
            out += &format!("// compile: {e}\n");
            return Ok(Shown {
                text: out,
                clean: false,
            });
        }
    };
    out += &format!(
        "// device: {}\n// pipeline {:?}\n",
        capture.device, capture.pipeline
    );
    for k in &capture.kernels {
        out += &format!("// == {} (SIMD{})\n", k.name, k.simd);
        if asm {
            for line in &k.listing.header {
                out += &format!("// {line}\n");
            }
            for i in &k.listing.insts {
                let hex: Vec<String> = i.bytes.iter().map(|b| format!("{b:02x}")).collect();
                out += &format!(
                    "{:<48}{}\n",
                    hex.join(" "),
                    i.text
                        .replace('\n', "\n                                                ")
                );
            }
        }
        for (name, value) in &k.statistics {
            out += &format!("// {name}: {value}\n");
        }
        if let Some(a) = &k.agreement {
            out += &format!(
                "// decoder: {} of {} instructions ({} compacted) print as brw printed them\n",
                a.agreed(),
                a.instructions,
                a.compacted
            );
        }
    }
    let finding = capture.finding();
    if let Some(f) = &finding {
        out += &format!("// finding: {f}\n");
    }
    Ok(Shown {
        text: out,
        clean: finding.is_none(),
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
