//! An Adreno a6xx-like shader core, as Mesa's ir3 compiler sees it: the ISA, its disassembly
//! in ir3 syntax, and a cycle-approximate executor that reports hazards (missing `(ss)`/`(sy)`,
//! too few delay slots, reads of unwritten registers) instead of silently computing garbage.
//!
//! Reading order:
//! * ISA — [`reg`] (registers and operands), [`isa`] (instructions), [`disasm`] (text);
//! * rules — [`config`] (knobs), [`timing`] (delays and latencies), [`mod@validate`] (static
//!   faults), [`hazard`] and [`stats`] (what a run reports);
//! * executor — `machine` (state of a run), `access` (operand reads and writes with the
//!   timing checks), `alu` (lane arithmetic), `flow` (min-PC divergence), `mem` (texture and
//!   memory), `exec` (the issue loop), [`mod@run`] (the entry point).
//!
//! The model, in short:
//! * a dispatch of N invocations runs as `ceil(N / wave)` waves, one after another (cycles add
//!   up); fibers past N are disabled. At the start of a wave `r0.x` = invocation id, nothing
//!   else is written;
//! * the const file `c[k]` is the dispatch's uniform `k` (0 past the end);
//! * results are computed at issue and become *visible* after the [`timing`] rules; a read
//!   before that sees the old contents and is a [`Hazard`]; sync flags stall until every
//!   outstanding result of their class has landed;
//! * divergence is min-PC scheduling with reconvergence at `(jp)` (see `flow`);
//! * simplifications: no half registers, no `a0.x` / relative addressing, `(rptN)` only on
//!   `nop`, integer division as an SFU-class op, no cat7, no branch-stack limit.

pub mod config;
pub mod disasm;
pub mod hazard;
pub mod isa;
pub mod reg;
pub mod run;
pub mod stats;
pub mod timing;
pub mod validate;

mod access;
mod alu;
mod exec;
mod flow;
mod machine;
mod mem;
mod tex;

#[cfg(test)]
mod tests;

pub use config::{Config, WaveSize};
pub use hazard::{Hazard, HazardKind, Missing};
pub use isa::{
    Addr, Binary, CmpCond, CmpType, Conv, DivOp, Flags, Instr, Op, Program, SfuOp, Space, Ternary,
    TexKind, TexLayout, TexOp, Unary,
};
pub use reg::{Cond, Reg, Src, GPRS, PREDS};
pub use run::{run, Outcome, RunResult};
pub use stats::Stats;
pub use validate::{validate, Fault, FaultKind};
