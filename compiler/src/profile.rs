//! Where a compile's time goes: a per-thread accumulator of time per [`Phase`], off unless
//! [`enable`]d (by `gpufuzz bench`). Off, [`time`] costs one thread-local flag read, so the
//! phases stay instrumented in the fuzz loop without slowing it.

use std::cell::{Cell, RefCell};
use std::time::{Duration, Instant};

/// A phase of a pipeline.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Out of SSA (`from_ssa`, with the verifier where the pipeline asks for it).
    FromSsa,
    /// IR → virtual or backend instructions, and dead-code elimination after it.
    Lower,
    /// `opt_zero_samples` (Gen) or predicate folding (a6xx).
    Opt,
    /// Liveness analysis for register allocation.
    Liveness,
    /// Building the interference graph.
    Interference,
    /// Simplify and select (colouring).
    Colour,
    /// Choosing spill candidates, rewriting with spill code, placing spill slots.
    Spill,
    /// Emitting machine code (a6xx: legalisation, sync flags and nops).
    Emit,
    /// The machine's validator and the symbolic allocation checker.
    Check,
    /// Running the program on the simulator (or the interpreter, for `middle`).
    Simulate,
}

impl Phase {
    /// Every phase, in pipeline order.
    pub const ALL: [Phase; 10] = [
        Phase::FromSsa,
        Phase::Lower,
        Phase::Opt,
        Phase::Liveness,
        Phase::Interference,
        Phase::Colour,
        Phase::Spill,
        Phase::Emit,
        Phase::Check,
        Phase::Simulate,
    ];

    /// Short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Phase::FromSsa => "from-ssa",
            Phase::Lower => "lower",
            Phase::Opt => "opt",
            Phase::Liveness => "liveness",
            Phase::Interference => "interference",
            Phase::Colour => "colour",
            Phase::Spill => "spill",
            Phase::Emit => "emit",
            Phase::Check => "check",
            Phase::Simulate => "simulate",
        }
    }
}

/// Time per phase, indexed like [`Phase::ALL`].
pub type Times = [Duration; Phase::ALL.len()];

thread_local! {
    static ENABLED: Cell<bool> = const { Cell::new(false) };
    static TIMES: RefCell<Times> = const { RefCell::new([Duration::ZERO; Phase::ALL.len()]) };
}

/// Starts accumulating on this thread.
pub fn enable() {
    ENABLED.set(true);
}

/// The time accumulated on this thread since the last call, and resets it.
pub fn take() -> Times {
    TIMES.with_borrow_mut(std::mem::take)
}

/// Runs `f`, adding its time to `phase` when profiling is on.
#[inline]
pub fn time<T>(phase: Phase, f: impl FnOnce() -> T) -> T {
    let _timer = Timer::start(phase);
    f()
}

/// Adds the time until it is dropped to its phase (when profiling is on): for a phase that
/// ends at several returns.
pub struct Timer(Option<(Phase, Instant)>);

impl Timer {
    /// Starts timing `phase`.
    #[inline]
    pub fn start(phase: Phase) -> Timer {
        Timer(ENABLED.get().then(|| (phase, Instant::now())))
    }
}

impl Drop for Timer {
    #[inline]
    fn drop(&mut self) {
        if let Some((phase, start)) = self.0 {
            let spent = start.elapsed();
            TIMES.with_borrow_mut(|t| t[phase as usize] += spent);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_records_nothing_on_records_the_phase() {
        std::thread::spawn(|| {
            time(Phase::Lower, || {
                std::thread::sleep(Duration::from_millis(2))
            });
            assert_eq!(take(), [Duration::ZERO; Phase::ALL.len()]);
            enable();
            time(Phase::Emit, || std::thread::sleep(Duration::from_millis(2)));
            let t = take();
            assert!(t[Phase::Emit as usize] >= Duration::from_millis(2));
            assert_eq!(t[Phase::Lower as usize], Duration::ZERO);
            assert_eq!(take()[Phase::Emit as usize], Duration::ZERO, "take resets");
        })
        .join()
        .unwrap();
    }
}
