//! The reference interpreter: what a program means, the answer every compiled program is
//! compared with bit for bit.
//!
//! The rules are written once in `docs/semantics.md`; the per-component arithmetic is
//! [`AluOp::eval`](crate::ir::AluOp::eval) and the memory and texture rules are
//! `sim::semantics`, so the interpreter and both machines share one definition.
//!
//! A run has two phases:
//! * [`lower`] — the program is checked for what would make execution meaningless (bad ids,
//!   phis below other instructions, jumps outside loops, …) and lowered once to flat code: one
//!   op per instruction, jumps for `if`/`loop`/`break`/`continue`, a table per block of its
//!   phis' sources by predecessor with the copies each edge makes, interned variable types
//!   ([`code`]);
//! * [`exec`] — the flat code runs for every invocation, eight at a time in lockstep (which
//!   nothing observable distinguishes from running them one by one in order), over scratch
//!   storage ([`memory`]) allocated once per run and kept across runs by a reused
//!   [`Interpreter`].
//!
//! Nothing panics on a malformed program: what the lowering rejects, and what only shows while
//! running (an undefined value read, a phi without a source for the edge taken, a misused deref,
//! running out of fuel), comes back as an [`InterpError`].

pub mod code;
pub mod exec;
pub mod lower;
pub mod memory;
pub mod record;
#[cfg(test)]
mod tests;
pub mod types;

use crate::ir::{Block, Inst, Program, Value};
use sim::dispatch::Results;

/// Limits of one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// Most fuel one invocation may use: every executed instruction costs 1, and so does every
    /// loop back-edge taken by falling off the end of a loop body (so an empty loop also
    /// stops). Generous by default: generated programs run far fewer instructions.
    pub fuel: u64,
    /// Most fuel the whole run may use, summed over invocations.
    pub total_fuel: u64,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            fuel: 1_000_000,
            total_fuel: u64::MAX,
        }
    }
}

/// Why a run produced no results.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InterpError {
    /// An invocation used up its fuel (probably an unbounded loop); the fuzzer rejects the input.
    #[error("invocation {invocation} ran out of fuel")]
    OutOfFuel {
        /// The invocation.
        invocation: u32,
    },
    /// The run used up its total fuel during `invocation`.
    #[error("the run ran out of total fuel in invocation {invocation}")]
    OutOfTotalFuel {
        /// The invocation running when the fuel ran out.
        invocation: u32,
    },
    /// An instruction read a value not defined yet in this invocation.
    #[error("invocation {invocation}: {} reads {value}, not defined yet", match inst {
        Some(i) => i.to_string(),
        None => "an if condition".to_string(),
    })]
    UndefinedValue {
        /// The invocation.
        invocation: u32,
        /// The reading instruction (a phi for a phi source; none for an `if` condition).
        inst: Option<Inst>,
        /// The value read.
        value: Value,
    },
    /// A block with phis was entered from a block no phi source names.
    #[error("invocation {invocation}: phis of {block} have no source for predecessor {pred:?}")]
    NoPhiSource {
        /// The block holding the phis.
        block: Block,
        /// The block executed just before (none at the start of the program).
        pred: Option<Block>,
        /// The invocation.
        invocation: u32,
    },
    /// A deref instruction met a value that is not a deref of a suitable type.
    #[error("invocation {invocation}: {inst}: {reason}")]
    DerefMisuse {
        /// The invocation.
        invocation: u32,
        /// The instruction.
        inst: Inst,
        /// What was wrong.
        reason: &'static str,
    },
    /// Two invocations of a workgroup accessed one shared word between the same two
    /// barriers, at least one of them writing: a data race, whose result Vulkan leaves
    /// undefined (the generator never makes one; a reduction or a mutation may).
    #[error("invocation {invocation}: {inst} races with invocation {other} on a shared word: no barrier orders the two accesses")]
    SharedRace {
        /// The invocation whose access completed the race.
        invocation: u32,
        /// Its instruction.
        inst: Inst,
        /// An invocation it raced with (the lowest, when several).
        other: u32,
    },
    /// A `subgroup_shuffle` named an invocation of the workgroup that does not execute it
    /// together with the reader (or does not exist): Vulkan leaves the result undefined (the
    /// generator never makes one; a reduction or a mutation may).
    #[error(
        "invocation {invocation}: {inst} reads local invocation {named}, which is not active there"
    )]
    InactiveShuffle {
        /// The invocation that read.
        invocation: u32,
        /// Its instruction.
        inst: Inst,
        /// The local id it named.
        named: u32,
    },
    /// The program cannot be executed at all (found before running anything).
    #[error("malformed program at {at}: {reason}")]
    Malformed {
        /// The offending entity, printed (`inst12`, `block_3`, `var_0`, …).
        at: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// The dispatch describes resources that cannot exist.
    #[error("bad dispatch: {reason}")]
    BadDispatch {
        /// What is wrong.
        reason: &'static str,
    },
}

/// Coverage facts of one run, for the fuzzer's "what did this input exercise" report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// IR instructions executed, over all invocations (phis, break and continue included).
    pub executed_insts: u64,
    /// Most passes through a loop body in one execution of one loop (1 when no back-edge was
    /// taken; 0 when no loop ran).
    pub max_loop_iterations: u32,
    /// Passes through loop bodies (entries plus back-edges taken) summed over every loop and
    /// every invocation: an upper bound on the iterations any SIMD group of invocations runs,
    /// which a driver with a loop-iteration limit (lavapipe's 65535) must stay under.
    pub loop_passes: u64,
    /// Loop nodes whose back-edge (falling off the body or `continue`) was taken at least twice
    /// in one execution of the loop, in some invocation.
    pub loops_taken_twice: u32,
    /// `if` nodes where two invocations of one aligned group of 8 (ids `8k..8k+8`) took
    /// different sides: the branches a SIMD8 machine runs divergently.
    pub divergent_ifs_simd8: u32,
    /// `if` nodes in the program.
    pub if_nodes: u32,
    /// Loop nodes in the program.
    pub loop_nodes: u32,
}

/// A reusable interpreter: keeps its lowered code and scratch storage between runs so the fuzz
/// loop allocates (almost) nothing per program.
#[derive(Default)]
pub struct Interpreter {
    code: code::Code,
    state: memory::State,
}

impl Interpreter {
    /// An interpreter with no capacity yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets the last program, keeping the allocated capacity.
    pub fn clear(&mut self) {
        self.code.clear();
        self.state.clear();
    }

    /// Runs every invocation of `p`; the outputs and final buffers.
    pub fn run(&mut self, p: &Program, opts: &RunOptions) -> Result<Results, InterpError> {
        self.code.lower(p)?;
        exec::run::<false, false>(&self.code, &mut self.state, p, opts, None, None)
    }

    /// Like [`Interpreter::run`], also collecting [`RunStats`] (somewhat slower).
    pub fn run_with_stats(
        &mut self,
        p: &Program,
        opts: &RunOptions,
    ) -> Result<(Results, RunStats), InterpError> {
        self.code.lower(p)?;
        let mut stats = RunStats::default();
        let results =
            exec::run::<true, false>(&self.code, &mut self.state, p, opts, Some(&mut stats), None)?;
        Ok((results, stats))
    }
}

/// Runs `p` with a fresh [`Interpreter`], recording every value each invocation computed
/// ([`record`]; for triage, never the fuzz loop).
pub fn run_recording(
    p: &Program,
    opts: &RunOptions,
) -> Result<(Results, record::Recorded), InterpError> {
    let mut i = Interpreter::new();
    i.code.lower(p)?;
    let mut recorded = record::Recorded {
        invocations: vec![Vec::new(); p.dispatch.invocations as usize],
    };
    let results =
        exec::run::<false, true>(&i.code, &mut i.state, p, opts, None, Some(&mut recorded))?;
    Ok((results, recorded))
}

/// Runs `p` with a fresh [`Interpreter`] (for one-off runs; the fuzz loop reuses one).
pub fn run(p: &Program, opts: &RunOptions) -> Result<Results, InterpError> {
    Interpreter::new().run(p, opts)
}

/// Runs `p` with a fresh [`Interpreter`], collecting [`RunStats`].
pub fn run_with_stats(p: &Program, opts: &RunOptions) -> Result<(Results, RunStats), InterpError> {
    Interpreter::new().run_with_stats(p, opts)
}
