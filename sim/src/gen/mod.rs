//! The Intel Gen EU (Gen7–Gen9 class) as Mesa's brw/elk "fs" backend sees it: SIMD8/SIMD16
//! threads over 128 GRFs, flags and predication, structured control flow on channel masks,
//! SEND messages to the sampler, data cache and scratch, cycle-approximate timing with a
//! scoreboard, and hazard detection. See `/work/shared/targets/gen.md` for the machine facts.
//!
//! Reading order:
//! 1. [`isa`]: instructions and programs; [`send`]: message descriptors and payload layouts.
//! 2. [`validate`]: static rules a program must meet (errors, not panics).
//! 3. `decode`: the flat form the executor runs.
//! 4. [`exec`]: threads over a dispatch; `state` (registers, scoreboard, masks, scratch),
//!    `alu`, `control`, and the shared functions `payload`, `sampler`, `dataport`, `scratch`.
//! 5. [`timing`]: the cycle model; [`hazard`]: what the machine reports.
//! 6. `disasm`: `Display` for instructions and programs, Mesa style.

mod alu;
mod control;
mod dataport;
mod decode;
mod disasm;
pub mod exec;
pub mod hazard;
pub mod isa;
mod payload;
mod sampler;
mod scratch;
pub mod send;
mod state;
pub mod timing;
pub mod validate;

#[cfg(test)]
mod tests;

pub use exec::{run, Config, Outcome, Run, Stats};
pub use hazard::{Hazard, HazardKind};
pub use isa::{
    CondMod, Dst, ExecSize, Flag, Gen, GrfSrc, Inst, MathFn, Op, Pred, Program, Region, Src, Type,
    GRF_COUNT, GRF_DWORDS,
};
pub use send::{Message, SamplerOp, SendDesc, SharedFunction, Surface, MAX_MLEN, MAX_SAMPLER_MLEN};
pub use validate::{validate, Problem, ValidationError};
