//! The timing rules (after ir3's `ir3_delay.c`, `ir3_legalize.c` and the soft delays in
//! `ir3.h`), in cycles. Every instruction issues in one cycle; a `(nopN)` adds N cycles and
//! `(rptN)nop` takes N + 1. "Slots between" a producer issued at cycle `t` and a consumer
//! issued at `u` are `u - t - 1`.
//!
//! | producer | consumer | needs |
//! |---|---|---|
//! | cat1/2/3 writing a GPR | cat1/2/3 | 3 slots ([`ALU_TO_ALU`]) |
//! | cat1/2/3 writing a GPR | cat3 third source | 2 slots |
//! | cat1/2/3 writing a GPR | cat0/4/5/6 | 6 slots ([`ALU_TO_OTHER`]) |
//! | anything writing `p0.*` | anything | 6 slots ([`PRED_DELAY`]) |
//! | cat4 (SFU, division) | anything | the result lands after [`SFU_LATENCY`]; `(ss)` |
//! | cat5 | anything | lands after [`TEX_LATENCY`]; `(sy)` |
//! | `ldg`, `ldp` | anything | lands after [`MEM_LATENCY`]; `(sy)` |
//! | `ldc` | anything | lands after [`ldc_latency`]; `(sy)` |
//!
//! Async instructions (cat4, cat5, cat6 including stores) read their sources until they
//! complete (stores: after the latency of the matching load); overwriting such a source before
//! needs `(ss)` (any reader) or `(sy)` (texture and memory readers) on the writer.

/// Slots between a cat1/2/3 producer and a cat1/2/3 consumer.
pub const ALU_TO_ALU: u64 = 3;
/// Slots between a cat1/2/3 producer and a cat0/4/5/6 consumer.
pub const ALU_TO_OTHER: u64 = 6;
/// Slots between a predicate write and any consumer.
pub const PRED_DELAY: u64 = 6;
/// Cycles until an SFU (cat4) result lands.
pub const SFU_LATENCY: u64 = 10;
/// Cycles until a texture (cat5) result lands.
pub const TEX_LATENCY: u64 = 60;
/// Cycles until a global or private memory load lands.
pub const MEM_LATENCY: u64 = 110;

/// Cycles until an `ldc` of `count` words lands: 18 + 4 × count.
pub const fn ldc_latency(count: u8) -> u64 {
    18 + 4 * count as u64
}

/// How a consumer reads a source, which sets how many slots an ALU result needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reader {
    /// cat1/2/3 (first two sources of cat3).
    Alu = 0,
    /// The third source of cat3, read one cycle late.
    AluLate = 1,
    /// cat0/4/5/6.
    Other = 2,
}

/// Slots a cat1/2/3 GPR result needs before each kind of [`Reader`].
pub(super) const ALU_SLOTS: [u64; 3] = [ALU_TO_ALU, ALU_TO_ALU - 1, ALU_TO_OTHER];
