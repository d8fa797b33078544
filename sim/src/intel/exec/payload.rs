//! What a message works on, apart from which message it is: the memory the dispatch binds,
//! the thread's scratch window, the payload registers read as dwords, and the response a
//! message writes back. Shared by the data-port messages (`message.rs`) and the LSC ones
//! (`lsc.rs`), and by the observer.

use super::operand::Regs;
use super::sampler::Image;
use super::{fault, Stop};
use crate::intel::inst::Src;
use crate::intel::types::RegFile;
use std::collections::BTreeMap;

/// The resources a dispatch binds, by binding-table index: buffers as dwords, and images.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    /// Each bound surface's words.
    pub surfaces: BTreeMap<u8, Vec<u32>>,
    /// Each bound sampled image.
    pub images: BTreeMap<u8, Image>,
    /// Flat (stateless) memory the dispatch placed, by its first byte's address: what LSC
    /// `flat` messages read and write (Gfx12.5's push constants, at `g0.0[31:6]`).
    pub flat: BTreeMap<u64, Vec<u32>>,
    /// The running workgroup's shared local memory (SLM), by dword: binding-table index 254
    /// of the data port's untyped messages, the LSC's SLM port. Past its end reads return 0
    /// and writes are dropped, like a bound surface's. The dispatch gives each workgroup a
    /// fresh one.
    pub slm: Vec<u32>,
}

/// A thread's scratch space: the addresses its stateless scratch messages may touch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScratchWindow {
    /// The first byte (what `g0.5[31:10]` says).
    pub base: u32,
    /// Its size in bytes.
    pub bytes: u32,
}

/// `count` registers of a payload operand, as dwords.
pub(super) fn registers(r: &Regs, src: Option<&Src>, count: usize) -> Result<Vec<u32>, Stop> {
    match src {
        Some(Src::Reg(reg)) if reg.file == RegFile::Grf => dwords(r, reg.nr as usize, count),
        _ => fault("send payload is not a GRF"),
    }
}

/// `count` registers from GRF `nr` on, as dwords.
pub(super) fn dwords(r: &Regs, nr: usize, count: usize) -> Result<Vec<u32>, Stop> {
    let mut out = Vec::with_capacity(count * 8);
    for reg in nr..nr + count {
        for i in 0..8 {
            out.push(r.dword(reg, i)?);
        }
    }
    Ok(out)
}

/// A response: the dwords of `rlen` registers, or per-lane dwords (`Lanes`) written only for
/// enabled lanes.
pub(super) enum Response {
    /// Whole registers (block reads), dword `k` written when bit `k` of `dwords` is set.
    Block { words: Vec<u32>, dwords: u64 },
    /// `channels` × `simd` dwords, lane `i` of channel `c` at `c * simd + i`.
    Lanes { words: Vec<u32>, simd: usize },
}
