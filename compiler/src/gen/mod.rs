//! The Intel Gen backend (Mesa brw/elk "fs" style): IR after the middle end → a
//! `sim::gen::Program` for SIMD8 or SIMD16, Gen7 or Gen9.
//!
//! Phases, in order (one file each):
//! 1. [`lower`] — IR → virtual Gen instructions ([`vinst`]): per-component virtual registers,
//!    structured control flow, booleans as 0/~0 in GRFs, IR registers (the input is out of
//!    SSA) as copied virtual registers, every ALU op ([`lower_alu`]), data-port,
//!    sampler and scratch messages ([`lower_mem`]); then dead code goes ([`dce`]).
//! 2. [`zero_samples`] — `opt_zero_samples`: trailing constant-zero sampler parameters are
//!    not sent (`Options::opt_zero_samples`).
//! 3. [`ra`] — graph-colouring register allocation over [`liveness`] intervals with
//!    multi-GRF classes, Briggs optimistic colouring, and spilling through scratch
//!    ([`spill`]) until it fits `Options::grfs`.
//! 4. [`checker`] — symbolic allocation checker over the emitted code.
//! 5. [`emit`] — GRF numbers, payload moves, jump targets, scratch initialisation, EOT.
//!
//! Shared analyses: [`flow`] (the CFG of structured instruction lists) and [`liveness`]; the
//! allocator's live [`intervals`] and [`interference`] graph, carried through its spill rounds.
//! The emitted program is also run through `sim::gen::validate`; a program the machine would
//! reject is a [`CompileError::Invalid`], never handed out.

pub mod checker;
pub mod dce;
pub mod emit;
pub mod flow;
pub mod interference;
pub mod intervals;
pub mod liveness;
pub mod lower;
mod lower_alu;
mod lower_mem;
mod lower_subgroup;
mod lower_tex;
pub use lower_tex::register_floor;
pub mod ra;
pub mod spill;
#[cfg(test)]
mod spill_rounds;
pub mod vinst;
pub mod zero_samples;

use crate::executed::{Executed, Role};
use crate::heuristics::GenHeuristics;
use crate::ir;
use crate::planted::Plants;
use crate::profile::{self, Phase};
use sim::gen::{ExecSize, Gen, Message, Op, ValidProgram};

pub use checker::CheckError;

/// Scratch per thread the hardware can give: 2 MiB (Gen9's largest per-thread scratch space),
/// in 32-byte GRFs. A program that needs more cannot run on the machine; anything below it is
/// the compiler's choice, so the simulator is given what each program needs
/// ([`Compiled::sim_config`]) rather than a fixed budget that would turn heavy spilling into a
/// false `ScratchOverflow`.
pub const SCRATCH_GRFS: u32 = 65536;

/// The register floor at SIMD8 (twice this at SIMD16, whose values take two GRFs): the
/// smallest budget at which every program compiles. Spill code moves only the GRFs one
/// instruction touches and nothing that lives across other code is unspillable, so what a
/// budget must hold is one instruction's own footprint with its operands spilled — at most a
/// four-parameter sampler message with its vec4 response (`docs/budgets.md`).
/// `compiler/tests/gen_programs/floor.ir` sits exactly at it.
pub const MIN_GRFS: u32 = 10;

/// How to compile.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Dispatch width, `S8` or `S16`.
    pub width: ExecSize,
    /// Generation (sampler `ld` parameter order).
    pub gen: Gen,
    /// GRFs the allocator may use, from g3 on (g0–g2 are the thread payload); at most 125,
    /// at least 2. Small budgets make small programs spill; below [`MIN_GRFS`] (doubled at
    /// SIMD16) a program may not fit at all.
    pub grfs: u32,
    /// Run `opt_zero_samples`.
    pub opt_zero_samples: bool,
    /// Allocation choices (defaults: the tuned ones).
    pub heuristics: GenHeuristics,
    /// Planted bugs.
    pub plants: Plants,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            width: ExecSize::S8,
            gen: Gen::Gen9,
            grfs: 125,
            opt_zero_samples: true,
            heuristics: GenHeuristics::default(),
            plants: Plants::NONE,
        }
    }
}

/// Static statistics of one compile (shader-db style).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CompileStats {
    /// Instructions emitted.
    pub instructions: u32,
    /// Registers spilled.
    pub spilled_regs: u32,
    /// Spill stores (scratch block writes of spill code).
    pub spills: u32,
    /// Fills (scratch block reads).
    pub fills: u32,
    /// SEND instructions.
    pub sends: u32,
    /// Sum of `mlen` over sends.
    pub total_mlen: u32,
    /// Sampler messages `opt_zero_samples` shortened.
    pub trimmed_sends: u32,
    /// Highest GRF used + 1.
    pub registers_used: u32,
    /// Scratch GRFs per thread (locals and spill slots).
    pub scratch_grfs: u32,
    /// Loops.
    pub loops: u32,
}

/// A compiled program.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The program, validated (`sim::gen::run_valid` runs it without validating it again).
    pub program: ValidProgram,
    /// Statistics.
    pub stats: CompileStats,
    /// The allocation checker's verdict.
    pub check: Result<(), CheckError>,
    /// What each instruction of `program` is for (spill code or program code).
    pub roles: Vec<Role>,
}

impl Compiled {
    /// What spill code executed in `run` (a run of this program).
    pub fn executed(&self, run: &sim::gen::Run) -> Executed {
        crate::executed::gen(&self.program, &self.roles, &run.profile)
    }

    /// The simulator's default configuration with scratch enough for this program's locals and
    /// spill slots (never less than the default, so accesses past them are still caught).
    pub fn sim_config(&self) -> sim::gen::Config {
        let default = sim::gen::Config::default();
        sim::gen::Config {
            scratch_grfs: self.stats.scratch_grfs.max(default.scratch_grfs),
            ..default
        }
    }
}

/// Why compiling failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum CompileError {
    /// Register allocation failed and nothing is left to spill.
    #[error("no register left to spill (budget {grfs} GRFs)")]
    NoRegisterToSpill {
        /// The GRF budget.
        grfs: u32,
    },
    /// The input uses something the backend cannot lower (malformed input).
    #[error("unsupported input: {0}")]
    Unsupported(String),
    /// Control flow of the lowered code is not properly nested (a backend bug).
    #[error("unstructured control flow after lowering")]
    Unstructured,
    /// Locals and spill slots need more scratch than a thread has.
    #[error("scratch overflow: {needed} GRFs needed, {SCRATCH_GRFS} available")]
    ScratchOverflow {
        /// GRFs needed.
        needed: u32,
    },
    /// The GRF budget is below the minimum of 2.
    #[error("GRF budget {0} below the minimum of 2")]
    BudgetTooSmall(u32),
    /// The emitted program breaks a machine rule (a backend bug; first problem shown).
    #[error("emitted program is invalid: {0}")]
    Invalid(String),
}

/// What this backend has no lowering for, when `p` uses it: the target skips such programs
/// (counted by this reason) rather than report a compile error. brw's own 64- and 16-bit code
/// runs on the `anv` target.
pub fn refuses(p: &ir::Program) -> Option<&'static str> {
    (p.sized_ints() != (false, false)).then_some("16- or 64-bit integers: not in the Gen backend")
}

/// Compiles `p` (after the middle end and out-of-SSA: register form, no phis) for the Gen EU.
pub fn compile(p: &ir::Program, opts: &Options) -> Result<Compiled, CompileError> {
    if let Some(why) = refuses(p) {
        return Err(CompileError::Unsupported(why.into()));
    }
    if opts.grfs < 2 {
        return Err(CompileError::BudgetTooSmall(opts.grfs));
    }
    if !matches!(opts.width, ExecSize::S8 | ExecSize::S16) {
        return Err(CompileError::Unsupported(
            "dispatch width must be 8 or 16".into(),
        ));
    }
    // The liveness of `v` as dead-code elimination last saw it, while `v` is unchanged since.
    let (mut v, mut live) = profile::time(Phase::Lower, || {
        let p = crate::passes::lower_bit_ops::lowered(p, opts.plants);
        let mut v = lower::lower(&p.func, &p.dispatch, opts.width, opts.gen, opts.plants)?;
        let (_, live) = dce::eliminate_dead_code_keeping_liveness(&mut v);
        Ok((v, live))
    })?;
    let trimmed = if opts.opt_zero_samples {
        profile::time(Phase::Opt, || {
            let n = zero_samples::opt_zero_samples(&mut v, opts.plants);
            // Nothing trimmed, nothing changed: the code is as dead-code elimination left it.
            if n > 0 {
                live = dce::eliminate_dead_code_keeping_liveness(&mut v).1;
            }
            n
        })
    } else {
        0
    };
    let grfs = opts.grfs.min(128 - ra::FIRST_GRF as u32);
    let a = ra::allocate_with_liveness(&mut v, live, grfs, &opts.heuristics, opts.plants)?;
    let scratch = v.var_scratch_grfs + a.slot_grfs;
    if scratch > SCRATCH_GRFS {
        return Err(CompileError::ScratchOverflow { needed: scratch });
    }
    let e = profile::time(Phase::Emit, || {
        emit::emit(&v, &a, opts.width, opts.gen, grfs, scratch)
    })?;
    let emit::Emitted {
        program,
        annots,
        roles,
    } = e;
    let (program, check) = profile::time(Phase::Check, || {
        let program = ValidProgram::new(program)
            .map_err(|errs| CompileError::Invalid(errs[0].to_string()))?;
        let check = checker::check(&program, &annots, scratch);
        Ok::<_, CompileError>((program, check))
    })?;
    let mut stats = CompileStats {
        instructions: program.insts.len() as u32,
        spilled_regs: a.spilled,
        trimmed_sends: trimmed,
        scratch_grfs: scratch,
        ..CompileStats::default()
    };
    for inst in &program.insts {
        if let Op::Send(d) = inst.op {
            stats.sends += 1;
            stats.total_mlen += d.mlen as u32;
        }
        if inst.op == Op::Do {
            stats.loops += 1;
        }
        let mut top =
            |reg: u8, n: u32| stats.registers_used = stats.registers_used.max(reg as u32 + n);
        if let sim::gen::Dst::Grf { reg, .. } = inst.dst {
            top(reg, inst.exec_size.regs());
        }
        for s in &inst.src {
            if let sim::gen::Src::Grf(g) = s {
                top(g.reg, 1);
            }
        }
    }
    for vi in &v.insts {
        if let (Some(_), Some(Op::Send(d))) = (vi.slot, vi.hw()) {
            match d.msg {
                Message::ScratchBlockWrite { .. } => stats.spills += 1,
                Message::ScratchBlockRead { .. } => stats.fills += 1,
                _ => {}
            }
        }
    }
    Ok(Compiled {
        program,
        stats,
        check,
        roles,
    })
}
