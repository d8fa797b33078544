//! The cycle model: issue cost and result latency per instruction class, after Mesa's Gfx9
//! performance model (`brw_analysis_performance.cpp`), simplified to one figure per class.
//!
//! Per thread, in order: an instruction starts at `max(now, ready of every GRF it reads or
//! writes, ready of the flag it reads or writes)` — the gap is counted as stall cycles —,
//! occupies the issue port for `issue` cycles (`now = start + issue`), and its destination
//! registers (and flag) become ready at `start + latency`. A thread's cycle count is the time
//! its last instruction issued or its last result became ready, whichever is later.
//!
//! Example: `add(8) g10 g1 1` then `add(8) g11 g10 1`: the first starts at 0, issues until 2,
//! g10 is ready at 8; the second waits 6 stall cycles, starts at 8, issues until 10, g11 is
//! ready at 16; the thread takes 16 cycles.

use super::send::SharedFunction;

/// Issue cycles of an ALU instruction per GRF written (SIMD1/SIMD8: 1 GRF, SIMD16: 2).
pub const ALU_ISSUE_PER_GRF: u32 = 2;
/// Result latency of an ALU instruction (mov, sel, logic, shifts, add, mul, mad, cmp, rounding).
pub const ALU_LATENCY: u32 = 8;
/// Issue cycles of a `math` instruction per GRF written.
pub const MATH_ISSUE_PER_GRF: u32 = 4;
/// Result latency of `math` inv, sqrt, rsq, exp, log, sin, cos.
pub const MATH_LATENCY: u32 = 16;
/// Result latency of `math pow`.
pub const POW_LATENCY: u32 = 24;
/// Result latency of `math intdiv` / `intmod`.
pub const INT_DIV_LATENCY: u32 = 28;
/// Front-end cycles of if, else, endif, while, break, cont (`do` is free: a marker).
pub const CONTROL_ISSUE: u32 = 8;
/// Issue cycles of a `send` (and of a `nop`).
pub const SEND_ISSUE: u32 = 2;
/// Sampler response latency, after the payload is read.
pub const SAMPLER_LATENCY: u32 = 200;
/// Data cache (buffers, uniforms, outputs) response latency, after the payload is read.
pub const DATAPORT_LATENCY: u32 = 100;
/// Scratch response latency, after the payload is read.
pub const SCRATCH_LATENCY: u32 = 100;

/// Cycles from a send's start until its response registers are ready:
/// `8 + 2 * mlen` to read the payload, then the shared function's latency.
pub fn send_latency(sf: SharedFunction, mlen: u8) -> u32 {
    let l = match sf {
        SharedFunction::Sampler => SAMPLER_LATENCY,
        SharedFunction::DataPort => DATAPORT_LATENCY,
        SharedFunction::Scratch => SCRATCH_LATENCY,
    };
    8 + 2 * mlen as u32 + l
}
