//! ir3's real machine code run as turnip dispatches a compute shader (`docs/ir3-dispatch.md`),
//! with ir3's own delay and sync-flag rules checked on every operand (`docs/ir3-execute.md`).
//!
//! The executor works on decoded instructions ([`super::Instr`]), not on our own a6xx ISA
//! ([`crate::a6xx`]): the code it runs has half registers merged into full ones, shared
//! (per-wave) registers, `a0.x`/`a1.x`, a const file filled by the driver and by the preamble,
//! bindless descriptors and `(rptN)` — none of which our own ISA has. What it shares with our
//! a6xx model is the machine: min-PC divergence with reconvergence at `(jp)`, waves of 64 or
//! 128 fibers run one after another, and the scoreboard idea — a read whose producer has not
//! landed is a [`Hazard`]. Values are the architectural ones (every write landed): a hazard is
//! reported beside the results, it does not change them, so a wrong value and a missing sync
//! are two separate findings.
//!
//! Reading order: [`rules`] (ir3's delay and sync facts), `wave` (the state of a wave and the
//! operand reads and writes that check them), `alu` (lane arithmetic), `step` (one
//! instruction), then [`run`] here.
//!
//! Anything the executor does not model stops the run with [`Stop::Unsupported`] naming it: a
//! skip, never a guess.

mod alu;
pub mod rules;
mod step;
mod wave;

use std::collections::BTreeMap;
use std::fmt;

use super::{Gen, Instr, Undecodable};
pub use rules::{Chip, Hazard, Rule};

/// What a bindless descriptor slot holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Descriptor {
    /// Storage buffer `n` of [`Dispatch::buffers`], addressed in 32-bit elements.
    Buffer(usize),
    /// Image `n` of [`Dispatch::images`].
    Texture(usize),
    /// A sampler: nearest, repeat, normalized (the one [`crate::image`] models).
    Sampler,
}

/// A compute dispatch as turnip sets it up for one ir3 program.
#[derive(Clone, Debug)]
pub struct Dispatch {
    /// The chip's facts that change what the code means or how it is timed.
    pub chip: Chip,
    /// Fibers per wave: 64, or 128 when ir3 doubled the threadsize.
    pub wave: u32,
    /// Invocations per workgroup (X; Y and Z are 1).
    pub local_size: u32,
    /// Workgroups (X).
    pub workgroups: u32,
    /// Where `gl_LocalInvocationID` arrives (a GPR vec3), if the code reads it.
    pub local_id: Option<super::Reg>,
    /// Where the hardware workgroup id arrives (a shared-register vec3), if read.
    pub workgroup_id: Option<super::Reg>,
    /// The const file as the driver loads it before the shader runs, by component (`c0.x` =
    /// 0); `None` where the driver writes nothing (a read there stops the run).
    pub consts: Vec<Option<u32>>,
    /// Non-bindless UBO slots, by block, as words (`ldc.k`'s source).
    pub ubos: BTreeMap<u32, Vec<u32>>,
    /// Descriptor set 0's slots by 64-byte index.
    pub descriptors: BTreeMap<u32, Descriptor>,
    /// Storage buffers' words; the run changes them.
    pub buffers: Vec<Vec<u32>>,
    /// Sampled images.
    pub images: Vec<crate::image::Image>,
    /// Bytes of private memory per fiber (`ldp`/`stp`).
    pub private_bytes: u32,
}

/// Why a run stopped early.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The code uses something the executor does not model (a skip).
    Unsupported(String),
    /// The code did something no correct program does (ran off its end, an access outside a
    /// buffer, a read of a const nobody wrote).
    Fault {
        /// Instruction index.
        pc: usize,
        /// The invocation it happened in, when one fiber's access did it.
        invocation: Option<u32>,
        /// What happened.
        why: String,
    },
    /// The instruction budget ran out.
    Timeout,
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Unsupported(why) => write!(f, "not modelled: {why}"),
            Stop::Fault {
                pc,
                invocation: Some(i),
                why,
            } => write!(f, "fault at #{pc} in invocation {i}: {why}"),
            Stop::Fault { pc, why, .. } => write!(f, "fault at #{pc}: {why}"),
            Stop::Timeout => write!(f, "instruction budget exhausted"),
        }
    }
}

/// A register write seen by the tracer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Traced {
    /// Instruction index.
    pub pc: usize,
    /// The wave's cycle when it issued.
    pub cycle: u64,
    /// Registers written for the watched fiber, as ir3 names them, with their new values.
    pub writes: Vec<(String, u32)>,
}

/// What a run leaves behind.
#[derive(Clone, Debug)]
pub struct Run {
    /// The storage buffers after the dispatch.
    pub buffers: Vec<Vec<u32>>,
    /// Distinct hazards, first seen first (at most [`MAX_HAZARDS`]).
    pub hazards: Vec<Hazard>,
    /// Instructions issued over all waves (a `(rptN)` counts once).
    pub issued: u64,
    /// Cycles of the first wave.
    pub cycles: u64,
    /// The watched invocation's executed instructions, when one was watched.
    pub trace: Vec<Traced>,
    /// Why the run stopped before every wave ended (a fault or the budget), if it did.
    pub stopped: Option<Stop>,
}

/// Distinct hazards a run records.
pub const MAX_HAZARDS: usize = 16;

/// The decoded program, or the first word we could not decode (the run is a skip).
pub fn program(decoded: &[Result<Instr, Undecodable>]) -> Result<Vec<Instr>, (usize, Undecodable)> {
    (decoded.iter().enumerate())
        .map(|(i, d)| d.clone().map_err(|e| (i, e)))
        .collect()
}

/// Runs `code` over `dispatch` within `budget` issued instructions. `watch`: the invocation
/// whose instructions are traced. `Err` only for what the executor does not model; a fault
/// or the budget ends the run with [`Run::stopped`] set.
pub fn run(
    code: &[Instr],
    dispatch: &Dispatch,
    budget: u64,
    watch: Option<u32>,
) -> Result<Run, Stop> {
    if !matches!(dispatch.wave, 64 | 128) {
        return Err(Stop::Unsupported(format!(
            "a wave of {} fibers",
            dispatch.wave
        )));
    }
    if code.iter().any(|i| i.gen != dispatch.chip.gen) {
        return Err(Stop::Unsupported(
            "code decoded for another generation".into(),
        ));
    }
    let mut machine = wave::Machine::new(code, dispatch, budget);
    let per_group = dispatch.local_size.div_ceil(dispatch.wave);
    for group in 0..dispatch.workgroups {
        for w in 0..per_group {
            let first = w * dispatch.wave;
            let fibers = (dispatch.local_size - first).min(dispatch.wave);
            let invocation = group * dispatch.local_size + first;
            let watched = watch
                .filter(|v| (invocation..invocation + fibers).contains(v))
                .map(|v| (v - invocation) as usize);
            match machine.run_wave(group, first, fibers, watched) {
                Ok(()) => {}
                Err(Stop::Unsupported(why)) => return Err(Stop::Unsupported(why)),
                Err(stop) => return Ok(machine.finish(Some(stop))),
            }
        }
    }
    Ok(machine.finish(None))
}

/// The generation's name as the chip tables say it.
impl fmt::Display for Gen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Gen::A6xx => "a6xx",
            Gen::A7xx => "a7xx",
        })
    }
}

#[cfg(test)]
mod tests;
