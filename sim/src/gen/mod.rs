//! The Intel Gen EU (Gen7–Gen9 class) as Mesa's brw/elk "fs" backend sees it: SIMD8/SIMD16
//! threads over 128 GRFs, flags and predication, structured control flow on channel masks,
//! SEND messages to the sampler, data cache and scratch, cycle-approximate timing with a
//! scoreboard, and hazard detection. See `/work/shared/targets/gen.md` for the machine facts.
//!
//! The contract a compiler backend relies on, in brief (details where each rule lives):
//! * Thread `t` of a `Program` with width `w` runs invocations `t*w .. t*w + w`; channels past
//!   the last invocation start disabled. At start g0 = (thread, width, 0, ...), the header
//!   template; g1 (g1–g2 in SIMD16) = each channel's invocation id (UD). Everything else is 0
//!   and *unwritten* (reading it in an enabled channel is a hazard).
//! * Operands address the GRF file as dwords `reg*8 + subreg`; a per-lane operand gives
//!   channel `group + i` dword `start + i`. The execution type is `src[0]`'s type.
//! * A thread ends at a `send` with EOT or by running past the last instruction.
//! * `run` validates first (bad register numbers, jumps, descriptors are `Err`, never a panic),
//!   then returns outputs, [`Stats`], [`Hazard`]s and an [`Outcome`]; `run_valid` takes a
//!   [`ValidProgram`], validated once when it was made, and checks only its resources
//!   against the dispatch.
//!
//! Reading order:
//! 1. [`isa`]: instructions and programs; [`send`]: message descriptors and payload layouts.
//! 2. [`mod@validate`]: static rules a program must meet (errors, not panics).
//! 3. `decode`: the flat form the executor runs; `layout`: where each send's payload and
//!    response live, worked out there.
//! 4. [`exec`]: threads over a dispatch; `state` (registers, scoreboard, masks, scratch),
//!    `alu`, `control`, and the shared functions `payload`, `sampler`, `dataport`, `scratch`.
//! 5. [`timing`]: the cycle model; [`hazard`]: what the machine reports.
//! 6. `disasm`: `Display` for instructions and programs, Mesa style.

// The instruction set.
pub mod isa;
pub mod send;

// Checking and decoding.
pub mod validate;

mod decode;
mod layout;

// Execution: the thread driver, its state, and each kind of instruction.
pub mod exec;

mod state;

mod alu;

mod control;

mod payload;

mod sampler;

mod dataport;

mod scratch;

// Timing, hazards, text.
pub mod hazard;
pub mod timing;

mod disasm;

#[cfg(test)]
mod tests;

pub use exec::{run, run_valid, Config, Outcome, Run, Stats};
pub use hazard::{Hazard, HazardKind};
pub use isa::{
    CondMod, Dst, ExecSize, Flag, Gen, GrfSrc, Inst, MathFn, Op, Pred, Program, Region, Src, Type,
    GRF_COUNT, GRF_DWORDS,
};
pub use sampler::{response_channels, SamplerHeader};
pub use send::{
    sampler_params, Message, SamplerOp, SamplerParam, SendDesc, SharedFunction, Surface, MAX_MLEN,
    MAX_SAMPLER_MLEN, SCRATCH_DESCRIPTOR_OFFSETS,
};
pub use validate::{validate, Problem, ValidProgram, ValidationError};
