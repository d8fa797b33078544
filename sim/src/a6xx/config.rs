//! The machine knobs: wave size, predicate count, register budget, private memory, cycle
//! and instruction budgets and the hazard cap.

/// Fibers per wave.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum WaveSize {
    /// 64 fibers, the a6xx default.
    #[default]
    W64,
    /// 128 fibers (a6xx "double" waves).
    W128,
}

impl WaveSize {
    /// Number of fibers.
    pub const fn fibers(self) -> u32 {
        match self {
            WaveSize::W64 => 64,
            WaveSize::W128 => 128,
        }
    }
}

/// Knobs of one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    /// Fibers per wave (default 64).
    pub wave: WaveSize,
    /// Predicate registers available: 4 (`p0.x`–`p0.w`, a6xx) or 1 (`p0.x` only, earlier
    /// generations). Default 4.
    pub predicates: u8,
    /// Scalar GPRs available: registers `0..registers` (`r0.x` = 0, `r1.x` = 4), at most 192.
    /// Using one outside the budget is a fault. Default 192.
    pub registers: u16,
    /// Words of private memory per fiber (`ldp`/`stp`); addresses wrap at it and going past it
    /// is a hazard. Default 256.
    pub private_words: u32,
    /// Total cycles over all waves before the run stops as a timeout. Default 1,000,000: a
    /// few hundred invocations of a fuzz program use a few thousand.
    pub cycle_budget: u64,
    /// Instructions issued over all waves before the run stops as a timeout. Default
    /// unlimited: a caller that knows how much work the program should do (the fuzzer's
    /// oracle) sets it from that, since cycles also count stalls.
    pub instruction_budget: u64,
    /// Distinct hazards recorded per run (the count keeps going). Default 64.
    pub max_hazards: usize,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            wave: WaveSize::W64,
            predicates: 4,
            registers: 192,
            private_words: 256,
            cycle_budget: 1_000_000,
            instruction_budget: u64::MAX,
            max_hazards: 64,
        }
    }
}
