//! Executes decoded Gen9 and Gen12 machine code ([`super::Inst`]) as a Skylake or Tiger Lake
//! EU would: one hardware thread at a time over a byte-addressed register file, with real
//! regions and types, source modifiers, saturation, conditional modifiers and flags,
//! predication, the structured control flow of `if`/`else`/`endif`/`while`/`break`/`cont`/`halt`
//! over per-channel instruction pointers and JIP/UIP, and the SEND messages brw emits for
//! compute shaders (data-port untyped surface read/write, scratch OWORD block and DWORD
//! scattered read/write, the sampler's `sample`/`sample_l`/`sample_lz`/`ld`/`ld_lz`/`resinfo`,
//! end of thread), and times each thread with the Gen simulator's cycle model (`timing`). On
//! Gen12 every instruction's software-scoreboard annotation is checked against what it
//! depends on (`scoreboard`): a register touched too early is [`Stop::Hazard`].

//! The machine knows no driver: the caller ([`run_thread`]) hands it a thread's payload
//! registers, its dispatch mask, its surfaces by binding-table index and its scratch window; how
//! anv fills those lives in the anv target.
//!
//! Whatever is not modelled stops the thread with [`Stop::Unsupported`] and a short reason that
//! callers count; it is never guessed. What the code does wrong by the hardware's rules
//! (a register past g127, an access outside a surface or the thread's scratch space, a jump
//! into the middle of an instruction, running off the end without EOT) is [`Stop::Fault`].
//!
//! One definition of each arithmetic result: float and integer rules come from
//! [`crate::semantics`] where the hardware agrees with it (float→int saturates with NaN → 0,
//! `sel.l`/`sel.ge` are minNum/maxNum, integer division by zero); the rest are written in
//! `alu` with the PRM's rule.
//!
//! Reading order: [`code`] (the program, jump targets checked), `operand` (regions, types,
//! registers), `alu`, `message` and [`sampler`], [`thread`] (the loop and control flow), `timing`,
//! `scoreboard`, and [`observe`] (what triage sees of each executed instruction).

mod alu;
pub mod code;
mod lsc;
mod message;
pub mod observe;
mod operand;
mod payload;
pub mod sampler;
mod scoreboard;
pub mod thread;
mod timing;

#[cfg(test)]
mod tests;

pub use code::Code;
pub use observe::{Input, Observer, Place, Step};
pub use payload::{Memory, ScratchWindow};
pub use sampler::Image;
pub use thread::{run_observed, run_thread, Start, ThreadStats};

use std::fmt;

/// Why a thread stopped before its end-of-thread message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The code uses something the executor does not model (the reason is short and stable,
    /// so that callers can count programs per reason).
    Unsupported(String),
    /// The code broke a hardware rule: an out-of-range register, an access outside a surface
    /// or the scratch space, a bad jump, no end of thread.
    Fault(String),
    /// The code broke Gen12's software-scoreboard rules: it touched a register before the
    /// instruction it depends on was known to be done (`scoreboard`).
    Hazard(String),
    /// The instruction budget ran out.
    Timeout,
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Unsupported(why) => write!(f, "not modelled: {why}"),
            Stop::Fault(why) => write!(f, "fault: {why}"),
            Stop::Hazard(why) => write!(f, "hazard: {why}"),
            Stop::Timeout => f.write_str("instruction budget exhausted"),
        }
    }
}

/// Shorthand for an unsupported-feature stop.
pub(crate) fn unsupported<T>(why: impl Into<String>) -> Result<T, Stop> {
    Err(Stop::Unsupported(why.into()))
}

/// Shorthand for a fault.
pub(crate) fn fault<T>(why: impl Into<String>) -> Result<T, Stop> {
    Err(Stop::Fault(why.into()))
}
