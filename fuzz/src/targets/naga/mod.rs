//! The `naga` target (opt-in): the program as SPIR-V, translated by naga (the shader
//! translator of wgpu and Firefox; crate 30.x) — its SPIR-V front end, which restructures
//! control flow and turns `OpPhi`s into local variables, its validator, its SPIR-V back end —
//! and naga's module run on the `vulkan` target's device (lavapipe), judged against the
//! interpreter.
//!
//! Three classes of finding, each naga's:
//! - `naga front end`: naga refuses our module, and `spirv-val` accepts it (if `spirv-val`
//!   refuses it too, the module is our emitter's bug: class `spirv-val`, never naga's);
//! - `naga validator` / `naga spv-out`: naga's validator rejects the module its own front end
//!   made, or its back end fails on it;
//! - a mismatch: naga's module computes another value than the interpreter, *and* our own
//!   module run on the same device without naga agrees with the interpreter (else the driver
//!   is wrong — the `vulkan` target's finding — and naga is not blamed).
//!
//! Each carries a typed cause ([`NagaCause`], `causes`: the step and naga's error); a known naga bug
//! (`known`: a rule over the step and message, or a model of the wrong translation that must
//! reproduce every compared word) gets its own bucket, so that it hides no new one.
//!
//! A crash or a hang of the driver on naga's module is a finding as on the `vulkan` target;
//! a module the driver refuses is checked with `spirv-val`: naga's output invalid is naga's.
//!
//! The module naga gets has no float-controls execution modes: naga's front end knows no
//! `SPV_KHR_float_controls` and its IR cannot carry them, so the words a driver may compute
//! otherwise without them (NaN, infinity, denormal operands) are compared as inexact.

pub mod causes;
mod known;

pub use causes::{NagaCause, Step};

use super::shown::{format_results, Shown};
use super::target::{caused, Target};
use super::vulkan::known::explaining_among;
use super::vulkan::{self, VulkanOptions};
use crate::case::coverage::Coverage;
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::cause::Cause;
use crate::finding::{Finding, FindingKind, Mismatch};
use crate::targets::driver;
use crate::targets::driver::causes::{emit_failed, of_run_error, Asks};
use compiler::ir::{AluOp, Program};
use compiler::planted::Plants;
use sim::dispatch::Results;
use spirv_emit::validate::{spirv_val_by, ValidateError};
use spirv_emit::{EmitOptions, EmittedModule};
use std::borrow::Cow;
use vulkan_runner::RunError;

/// The `naga` target.
pub struct Naga;

/// An error's variant path from its `Debug` text (`Function InvalidCall`), numbers dropped:
/// the bucket.
fn variant_of(value: &impl std::fmt::Debug) -> String {
    let debug = format!("{value:?}");
    let head = debug.split('{').next().unwrap_or_default();
    head.split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty() && !w.chars().all(|c| c.is_ascii_digit()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `spirv-val` of the chosen Mesa's SPIRV-Tools (its root's, as spirv-opt's), on `words`.
fn spirv_val(words: &[u32]) -> Result<(), ValidateError> {
    spirv_val_by(
        crate::targets::driver::spirv_opt::tool("spirv-val", &[]),
        words,
    )
}

/// Whether naga 30's front end refuses `op`'s SPIR-V instruction as `UnsupportedInstruction`
/// (measured: every program using one came back so): `OpUMulExtended`, `OpSMulExtended`,
/// `OpIAddCarry`, `OpISubBorrow`.
fn front_end_lacks(op: AluOp) -> bool {
    matches!(
        op,
        AluOp::UmulHigh | AluOp::ImulHigh | AluOp::UaddCarry | AluOp::UsubBorrow
    )
}

/// The program naga is given: the vulkan target's ([`driver::module::source`]) with the ops
/// its front end lacks ([`front_end_lacks`]) expanded into basic integer ops (as our own
/// backends get them, `lower_bit_ops`), so that naga is tested on the rest of the program.
fn source<'a>(case: &'a Case, optimised: &'a Program) -> Cow<'a, Program> {
    let program = driver::module::source(case, optimised);
    compiler::passes::lower_bit_ops::lowered_only(program, front_end_lacks, Plants::NONE)
}

/// The emitter's options for naga: no float-controls modes (see the module's text).
pub fn emit_options() -> EmitOptions {
    EmitOptions {
        preserve_nan_inf: false,
        preserve_denormals: false,
        round_to_nearest_even: false,
        ..EmitOptions::default()
    }
}

/// Why naga gave no module.
#[derive(Clone, Debug)]
pub struct NagaError {
    /// The step that failed.
    pub step: Step,
    /// naga's message (with its causes).
    pub message: String,
    /// The error's variant path (`InvalidId`, `Function InvalidCall`): the bucket.
    pub class: String,
}

fn naga_error(step: Step, e: &(dyn std::error::Error + 'static), class: String) -> NagaError {
    let mut message = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        message += &format!(": {c}");
        cause = c.source();
    }
    NagaError {
        step,
        message,
        class,
    }
}

/// `words` through naga: SPIR-V in, validated, SPIR-V out (1.3, compute, no debug info).
pub fn round_trip(words: &[u32]) -> Result<Vec<u32>, NagaError> {
    let front = naga::front::spv::Options {
        adjust_coordinate_space: false,
        strict_capabilities: false,
        block_ctx_dump_prefix: None,
    };
    let module = naga::front::spv::Frontend::new(words.iter().copied(), &front)
        .parse()
        .map_err(|e| naga_error(Step::FrontEnd, &e, variant_of(&e)))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| {
        let class = variant_of(e.as_inner());
        naga_error(Step::Validator, &e.into_inner(), class)
    })?;
    let back = naga::back::spv::Options {
        lang_version: (1, 3),
        flags: naga::back::spv::WriterFlags::empty(),
        ..naga::back::spv::Options::default()
    };
    naga::back::spv::write_vec(&module, &info, &back, None)
        .map_err(|e| naga_error(Step::SpvOut, &e, variant_of(&e)))
}

/// Runs `words` (our module or naga's) with `module`'s interface on the device of `opts`.
pub fn run_words(
    words: Vec<u32>,
    module: &EmittedModule,
    program: &Program,
    opts: &VulkanOptions,
) -> Result<Results, RunError> {
    let mut job = driver::module::job(module);
    job.spirv = words;
    let out = vulkan::with_worker(opts, |w| {
        w.run(&job).or_else(|e| match e {
            // As on the `vulkan` target: a loaded machine may miss the limit once.
            RunError::Timeout(_) => {
                w.run_within(&job, opts.dispatch_timeout * vulkan::RETRY_FACTOR)
            }
            e => Err(e),
        })
    })??;
    module
        .interface
        .results(&program.dispatch, &out.buffers)
        .map_err(|e| RunError::Failed(format!("read-back: {e}")))
}

fn emit(program: &Program) -> Result<EmittedModule, Box<Finding>> {
    driver::module::emit(program, &emit_options()).map_err(|e| emit_failed("naga", &e))
}

/// naga's failure as a finding, unless our module is invalid (then ours); a known naga bug
/// is bucketed as that bug.
fn naga_finding(e: NagaError, words: &[u32]) -> Box<Finding> {
    if e.step == Step::FrontEnd {
        if let Err(ValidateError::Rejected(why)) = spirv_val(words) {
            return caused(
                "naga",
                FindingKind::CompileError,
                format!("our module is invalid SPIR-V (naga: {}): {why}", e.message),
                Cause::named("spirv-val"),
            );
        }
    }
    let known = known::error(e.step, &e.message, words);
    let mut detail = format!("naga's {}: {} [naga 30]", e.step.name(), e.message);
    if let Some(k) = known {
        detail += &format!("; known: {}", k.summary);
    }
    caused(
        "naga",
        FindingKind::CompileError,
        detail,
        NagaCause::cause(e.step, e.class, known.map(|k| k.class)),
    )
}

/// The finding for a failed run of naga's module.
fn run_finding(e: RunError, naga_words: &[u32], opts: &VulkanOptions) -> Box<Finding> {
    let device = vulkan::device(opts).map_or_else(|_| "?".into(), |i| i.describe());
    // A module the driver refuses is checked with `spirv-val`: naga's output invalid is naga's.
    if let RunError::PipelineCreation(_) = &e {
        if let Err(ValidateError::Rejected(why)) = spirv_val(naga_words) {
            let first = why.lines().next().unwrap_or("").to_string();
            return caused(
                "naga",
                FindingKind::CompileError,
                format!("naga's SPIR-V output is invalid: {why} [naga 30; {device}]"),
                NagaCause::cause(Step::OutputInvalid, class_words(&first), None),
            );
        }
    }
    let (kind, class) = of_run_error(&e, Asks::Run);
    caused(
        "naga",
        kind,
        format!("{e} [naga 30; {device}]"),
        Cause::named(class),
    )
}

/// The words of a message without numbers and ids (`%12`), for a bucket.
fn class_words(message: &str) -> String {
    message
        .split_whitespace()
        .filter(|w| !w.chars().any(|c| c.is_ascii_digit()))
        .take(8)
        .collect::<Vec<_>>()
        .join(" ")
}

impl Target for Naga {
    fn name(&self) -> &'static str {
        "naga"
    }

    fn description(&self) -> &'static str {
        "SPIR-V through naga 30 (front end, validator, SPIR-V out), run on the vulkan target's device"
    }

    fn in_default_set(&self) -> bool {
        false
    }

    fn available(&self) -> Result<(), String> {
        vulkan::Vulkan.available()
    }

    fn prepare(&self, opts: &OracleOptions) -> Result<Option<String>, String> {
        let info = vulkan::device(&opts.vulkan).map_err(|e| format!("--target naga: {e}"))?;
        Ok(Some(format!("naga: naga 30 then {}", info.describe())))
    }

    fn runs_on_mesa(&self) -> bool {
        true
    }

    fn environment(&self, opts: &OracleOptions) -> Vec<(String, String)> {
        vulkan::Vulkan.environment(opts)
    }

    /// The `vulkan` target's skips (the driver's loop limit, what the emitter does not map),
    /// and subgroup operations: naga's IR cannot carry `MaximallyReconvergesKHR`, so its
    /// module would leave divergent ones undefined.
    fn skip(&self, case: &Case, opts: &OracleOptions, coverage: &Coverage) -> Option<String> {
        driver::module::no_subgroups(case, "naga")
            .or_else(|| driver::module::no_sized_ints(case, "naga"))
            .or_else(|| vulkan::Vulkan.skip(case, opts, coverage))
    }

    fn run(
        &self,
        case: &Case,
        optimised: &Program,
        opts: &OracleOptions,
        _coverage: &mut Coverage,
    ) -> Result<Results, Box<Finding>> {
        let program = &*source(case, optimised);
        let module = emit(program)?;
        let words = round_trip(&module.words).map_err(|e| naga_finding(e, &module.words))?;
        run_words(words.clone(), &module, program, &opts.vulkan)
            .map_err(|e| run_finding(e, &words, &opts.vulkan))
    }

    /// A difference is naga's only when our own module, on the same device, agrees with the
    /// interpreter (else it is the driver's, and the `vulkan` target reports it).
    fn compare(
        &self,
        case: &Case,
        optimised: &Program,
        opts: &OracleOptions,
        expected: &Results,
        actual: &Results,
    ) -> Option<Finding> {
        let program = &*source(case, optimised);
        let plan = spirv_emit::comparison(program, &emit_options());
        let (d, bound) = plan.first_difference(expected, actual, &program.dispatch)?;
        let module = driver::module::emit(program, &emit_options()).ok()?;
        let alone = run_words(module.words.clone(), &module, program, &opts.vulkan).ok()?;
        if plan
            .first_difference(expected, &alone, &program.dispatch)
            .is_some()
        {
            return None;
        }
        let device = vulkan::device(&opts.vulkan).ok()?.describe();
        let m = Mismatch::from(d);
        let mut f = Finding::new(
            FindingKind::Mismatch,
            "naga",
            format!("{m} after naga; without naga the device agrees with the interpreter [naga 30; {device}]"),
        );
        f.difference = Some(m);
        let mut error = String::new();
        if let Some(why) = bound {
            f.detail += &format!(" (outside the Vulkan precision bound: {why})");
            let op = why.split(' ').next().unwrap_or_default();
            error = format!("outside-bound-{op}");
        }
        // A known naga bug gets its own bucket, so that it does not hide new ones.
        let known = explaining_among(
            known::KNOWN_MISMATCHES,
            program,
            expected,
            actual,
            &plan.inexact,
        );
        if let Some(k) = known {
            f.detail += &format!("; known: {}", k.summary);
        }
        f.set_cause(NagaCause::cause(
            Step::Mismatch,
            error,
            known.map(|k| k.class),
        ));
        Some(f)
    }

    /// With `asm`, naga's SPIR-V (or where naga stopped); then what the device computed.
    fn show(
        &self,
        case: &Case,
        opts: &OracleOptions,
        optimised: &Program,
        asm: bool,
    ) -> Result<Shown, String> {
        let program = &*source(case, optimised);
        let module =
            driver::module::emit(program, &emit_options()).map_err(|e| format!("emit: {e}"))?;
        let info = vulkan::device(&opts.vulkan).map_err(|e| e.to_string())?;
        let mut out = format!("// naga 30, then {}\n", info.describe());
        let words = match round_trip(&module.words) {
            Ok(w) => w,
            Err(e) => {
                out += &format!("// {}\n", naga_finding(e, &module.words));
                return Ok(Shown {
                    text: out,
                    clean: false,
                });
            }
        };
        if asm {
            out += &spirv_emit::disassemble(&words)?;
            out.push('\n');
        }
        match run_words(words.clone(), &module, program, &opts.vulkan) {
            Ok(results) => {
                out += &format_results(&program.dispatch, &results);
                Ok(Shown {
                    text: out,
                    clean: true,
                })
            }
            Err(e) => {
                out += &format!("// run: {}\n", run_finding(e, &words, &opts.vulkan));
                Ok(Shown {
                    text: out,
                    clean: false,
                })
            }
        }
    }

    /// Our module (what naga was given) and naga's, both disassembled.
    fn listing(
        &self,
        case: &Case,
        _opts: &OracleOptions,
        optimised: &Program,
        _first_output: Option<u32>,
    ) -> Option<String> {
        let module = driver::module::emit(&source(case, optimised), &emit_options()).ok()?;
        let mut s = "; naga's input\n".to_string();
        s += &spirv_emit::disassemble(&module.words).ok()?;
        match round_trip(&module.words) {
            Ok(words) => {
                s += "\n; naga's output\n";
                s += &spirv_emit::disassemble(&words).ok()?;
            }
            Err(e) => s += &format!("\n; naga's {}: {}\n", e.step.name(), e.message),
        }
        Some(s)
    }

    fn knobs(&self) -> &'static [&'static str] {
        &["vulkan_unoptimised"]
    }
}

#[cfg(test)]
mod tests;
