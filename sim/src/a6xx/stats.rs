//! Per-run counters, the ones Mesa's shader-db reports for ir3.

/// What a run did, summed over its waves (waves run one after another on one core).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Stats {
    /// Cycles, including nops and stalls.
    pub cycles: u64,
    /// Instructions issued (per wave, counting each divergent group's issue).
    pub instructions: u64,
    /// Instructions × active fibers.
    pub fiber_instructions: u64,
    /// Nop cycles: `nop` instructions (`(rptN)nop` counts N + 1) plus `(nopN)` slots.
    pub nops: u64,
    /// Instructions issued with `(ss)`.
    pub ss: u64,
    /// Instructions issued with `(sy)`.
    pub sy: u64,
    /// Cycles stalled by `(ss)`.
    pub sstall: u64,
    /// Cycles stalled by `(sy)`.
    pub systall: u64,
    /// `stp` instructions issued.
    pub stp: u64,
    /// `ldp` instructions issued.
    pub ldp: u64,
    /// Instructions issued per category cat0–cat7.
    pub categories: [u64; 8],
}
