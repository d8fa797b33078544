//! Watching a thread run, one executed instruction at a time: for each, its index in the
//! program, the channels whose results it wrote, and — per channel — the places it wrote
//! (GRF bytes, flag bits) with their new bits and the places and immediates it read them from.
//! Triage walks this back from a wrong output word to the instruction that first went wrong
//! (the `anv` target's tracer); the fuzz loop runs [`Unobserved`], which the compiler removes.
//!
//! What a step reads and writes, per channel `c` (lane `c - group` of the instruction):
//! * an ALU or `math` instruction: the element of each source region and of the destination
//!   region that belongs to the lane (the executor's own region arithmetic), the flag bit its
//!   predicate tests, and the flag bit its conditional modifier sets (`sel` sets none: its
//!   modifier chooses);
//! * a SEND: the lane's dword of every payload register after the header, and of every
//!   response register, laid out as the data port lays out a SIMD message — blocks of
//!   `max(1, exec_size / 8)` registers, one per address or data channel, lane `i` at dword
//!   `i % 8` of the block's register `i / 8` (brw's block spills keep the same layout: dword
//!   `k` of a block is lane `k`'s). The header (addresses, scratch offsets) and memory are not
//!   places here: what a message stored is seen in [`Step::memory`] after the step.
//!
//! Not followed (reads as [`Input::Other`]): the accumulator, `a0`, `cr0`, whole flag
//! registers used as operands, and indirect regions.

use super::super::inst::{Inst, Src};
use super::super::opcode::Opcode;
use super::super::types::RegFile;
use super::operand::{immediate, src_offset, Num, Regs, REG_BYTES};
use super::payload::Memory;

/// Sees every instruction a thread executes, after it executed.
pub trait Observer {
    /// `step` has just executed.
    fn executed(&mut self, step: &Step<'_>);
}

/// The observer of a thread nobody watches.
pub struct Unobserved;

impl Observer for Unobserved {
    #[inline(always)]
    fn executed(&mut self, _step: &Step<'_>) {}
}

/// A place an instruction writes or reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Place {
    /// Bytes of the GRF file (`g5.2<…>D` of lane 0 is byte 168, 4 bytes).
    Grf {
        /// The first byte (32 per register).
        byte: u16,
        /// How many.
        bytes: u8,
    },
    /// A bit of the flag file.
    Flag {
        /// f0.0 bits 0–15, f0.1 16–31, f1.0 32–47, f1.1 48–63.
        bit: u8,
    },
}

/// What a step read for one channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// A register element or flag bit.
    Place(Place),
    /// An immediate's element for the lane, as the bits of a 32-bit value of its type.
    Imm(u32),
    /// Something not followed (see the module doc).
    Other,
}

/// One executed instruction.
pub struct Step<'a> {
    /// Its index in [`super::Code::insts`].
    pub index: usize,
    /// The instruction.
    pub inst: &'a Inst,
    /// Channels (bit `c` = thread channel `c`) whose results it wrote.
    pub lanes: u32,
    regs: &'a Regs,
    /// The bound memory after it.
    pub memory: &'a Memory,
}

impl<'a> Step<'a> {
    /// The step of `inst` (index `index`) that ran with execution mask `exec` and predicate
    /// `pred` (lane bits), seeing `regs` and `memory` after it.
    pub(super) fn new(
        index: usize,
        inst: &'a Inst,
        exec: u32,
        pred: u32,
        regs: &'a Regs,
        memory: &'a Memory,
    ) -> Step<'a> {
        let op = inst.opcode;
        let flow = matches!(
            op,
            Opcode::IF
                | Opcode::ELSE
                | Opcode::ENDIF
                | Opcode::WHILE
                | Opcode::BREAK
                | Opcode::CONT
                | Opcode::HALT
                | Opcode::NOP
                | Opcode::SYNC
        );
        let lanes = if flow {
            0
        } else if op == Opcode::SEL {
            exec
        } else {
            exec & pred
        };
        Step {
            index,
            inst,
            lanes: lanes << inst.group(),
            regs,
            memory,
        }
    }

    /// The lane of channel `channel` in this instruction, if it wrote there.
    fn lane(&self, channel: usize) -> Option<usize> {
        let group = self.inst.group() as usize;
        (self.lanes >> channel & 1 == 1 && channel >= group).then(|| channel - group)
    }

    /// The bits now at `place`.
    pub fn bits(&self, place: Place) -> u64 {
        match place {
            Place::Grf { byte, bytes } => {
                let at = byte as usize;
                let mut raw = [0u8; 8];
                raw[..bytes as usize].copy_from_slice(&self.regs.grf[at..at + bytes as usize]);
                u64::from_le_bytes(raw)
            }
            Place::Flag { bit } => u64::from(self.regs.flags[bit as usize / 8] >> (bit % 8) & 1),
        }
    }

    /// The places channel `channel` wrote, with their bits now.
    pub fn writes(&self, channel: usize) -> Vec<(Place, u64)> {
        let Some(lane) = self.lane(channel) else {
            return Vec::new();
        };
        let inst = self.inst;
        let mut places = Vec::new();
        if inst.opcode.is_send() {
            let rlen = inst.send.and_then(|s| s.rlen()).unwrap_or(0) as usize;
            if let Some(d) = inst.dst.filter(|d| d.file == RegFile::Grf) {
                places =
                    message_dwords(d.nr as usize, rlen, inst.exec_size as usize, lane).collect();
            }
        } else if let Some(d) = inst.dst.filter(|d| d.file == RegFile::Grf) {
            let size = d.ty.size() as usize;
            let at = d.subreg as usize + lane * d.hstride.max(1) as usize * size;
            places.push(grf(d.nr as usize * REG_BYTES + at, size));
        }
        if inst.cond_modifier != 0 && inst.opcode != Opcode::SEL && !inst.opcode.is_send() {
            places.push(flag(inst, channel));
        }
        places
            .into_iter()
            .filter(|p| p.fits())
            .map(|p| (p, self.bits(p)))
            .collect()
    }

    /// What channel `channel`'s results were computed from (empty when it wrote nothing).
    pub fn reads(&self, channel: usize) -> Vec<Input> {
        let Some(lane) = self.lane(channel) else {
            return Vec::new();
        };
        let inst = self.inst;
        let mut inputs = Vec::new();
        if inst.predicate.is_some() {
            inputs.push(Input::Place(flag(inst, channel)));
        }
        if let Some(send) = inst.send.filter(|_| inst.opcode.is_send()) {
            let n = inst.exec_size as usize;
            // Bit 19 says a header leads the payload, except on an LSC port (no header).
            let header = usize::from(!send.is_lsc() && send.desc.is_some_and(|d| d >> 19 & 1 == 1));
            let mlen = send.mlen().unwrap_or(0) as usize;
            if let Some(Src::Reg(r)) = &inst.src[0] {
                if r.file == RegFile::Grf && mlen > header {
                    let first = r.nr as usize + header;
                    inputs.extend(message_dwords(first, mlen - header, n, lane).map(Input::Place));
                }
            }
            if let (Some((RegFile::Grf, nr)), Some(ex)) = (send.src1, send.ex_mlen()) {
                inputs.extend(message_dwords(nr as usize, ex as usize, n, lane).map(Input::Place));
            }
            return inputs;
        }
        for src in inst.src.iter().flatten() {
            inputs.push(match src {
                Src::Imm { ty, bits } => match immediate(*ty, *bits, lane) {
                    Ok(Num::Int(i)) => Input::Imm(i as u32),
                    Ok(Num::Float(f)) => Input::Imm(f.to_bits()),
                    Err(_) => Input::Other,
                },
                Src::Reg(r) if r.file == RegFile::Grf => match src_offset(r, lane) {
                    Ok(at) => {
                        let p = grf(r.nr as usize * REG_BYTES + at, r.ty.size() as usize);
                        if p.fits() {
                            Input::Place(p)
                        } else {
                            Input::Other
                        }
                    }
                    Err(_) => Input::Other,
                },
                Src::Reg(_) => Input::Other,
            });
        }
        inputs
    }
}

impl Place {
    /// Whether it lies inside the register file.
    fn fits(self) -> bool {
        match self {
            Place::Grf { byte, bytes } => {
                (byte as usize + bytes as usize) <= super::operand::GRFS * REG_BYTES
            }
            Place::Flag { bit } => bit < 64,
        }
    }

    /// Whether the two overlap.
    pub fn overlaps(self, other: Place) -> bool {
        match (self, other) {
            (Place::Grf { byte: a, bytes: m }, Place::Grf { byte: b, bytes: n }) => {
                a < b + u16::from(n) && b < a + u16::from(m)
            }
            (Place::Flag { bit: a }, Place::Flag { bit: b }) => a == b,
            _ => false,
        }
    }
}

/// A GRF place (clamped to what a `u16`/`u8` holds; out-of-file places do not fit).
fn grf(byte: usize, bytes: usize) -> Place {
    Place::Grf {
        byte: byte.min(u16::MAX as usize) as u16,
        bytes: bytes as u8,
    }
}

/// The flag bit of `inst`'s flag for thread channel `channel`.
fn flag(inst: &Inst, channel: usize) -> Place {
    let bit = inst.flag.reg as usize * 32 + inst.flag.subreg as usize * 16 + channel;
    Place::Flag {
        bit: bit.min(u8::MAX as usize) as u8,
    }
}

/// Lane `lane`'s dword in each block of a SIMD-`n` message's `count` registers from `first`.
fn message_dwords(
    first: usize,
    count: usize,
    n: usize,
    lane: usize,
) -> impl Iterator<Item = Place> {
    let block = (n / 8).max(1);
    (0..count / block)
        .map(move |k| grf((first + k * block + lane / 8) * REG_BYTES + lane % 8 * 4, 4))
}

#[cfg(test)]
mod tests {
    use super::super::{run_observed, Code, Memory, ScratchWindow, Start};
    use super::*;

    /// One step of a channel: (instruction index, what it wrote, what it read).
    type Seen = (usize, Vec<(Place, u64)>, Vec<Input>);

    /// Every step of one channel.
    #[derive(Default)]
    struct Channel {
        channel: usize,
        steps: Vec<Seen>,
        memory_after_last_send: Vec<u32>,
    }

    impl Observer for Channel {
        fn executed(&mut self, step: &Step<'_>) {
            if step.inst.opcode.is_send() {
                self.memory_after_last_send = step.memory.surfaces[&1].clone();
            }
            let writes = step.writes(self.channel);
            if !writes.is_empty() || !step.reads(self.channel).is_empty() {
                let reads = step.reads(self.channel);
                self.steps.push((step.index, writes, reads));
            }
        }
    }

    fn g(nr: u16, dword: u16) -> Place {
        Place::Grf {
            byte: nr * 32 + dword * 4,
            bytes: 4,
        }
    }

    #[test]
    fn a_channel_sees_each_instructions_element_sends_dwords_and_immediates() {
        // skl_double.lst at workgroup 1, channel 2 (invocation 6): surface 1 word 6 is
        // read (106), doubled by `shl g9, g8, 1` and written back.
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/intel/tests/skl_double.lst");
        let listing = super::super::super::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
        let code = Code::new(super::super::super::decode_program(&listing.bytes()).unwrap());
        let mut memory = Memory::default();
        memory.surfaces.insert(0, vec![0; 8]);
        memory.surfaces.insert(1, (0..8).map(|i| 100 + i).collect());
        let payload = [
            (0, [0, 1, 0, 0, 0, 0x10_0000, 0, 0]),
            (1, [0, 0, 0, 2, 1, 1, 0, 0]),
        ];
        let start = Start {
            payload: &payload,
            dispatch_mask: 0xf,
            scratch: ScratchWindow {
                base: 0x10_0000,
                bytes: 1024,
            },
        };
        let mut seen = Channel {
            channel: 2,
            ..Channel::default()
        };
        run_observed(&code, &start, &mut memory, &mut 1000, &mut seen).unwrap();
        let step = |index: usize| {
            let found = seen.steps.iter().find(|s| s.0 == index);
            found.unwrap_or_else(|| panic!("no step {index}")).clone()
        };
        // mov(8) g2<1>UW 0x76543210V: lane 2's word of g2 gets the vector's element 2.
        assert_eq!(
            step(2),
            (
                2,
                vec![(Place::Grf { byte: 68, bytes: 2 }, 2)],
                vec![Input::Imm(2)]
            )
        );
        // The untyped read: lane 2's address dword in, its data dword out.
        assert_eq!(
            step(8),
            (8, vec![(g(8, 2), 106)], vec![Input::Place(g(7, 2))])
        );
        // shl g9, g8, 1.
        assert_eq!(
            step(9),
            (
                9,
                vec![(g(9, 2), 212)],
                vec![Input::Place(g(8, 2)), Input::Imm(1)]
            )
        );
        // The split-send write: address from src0, data from src1; nothing written to GRFs.
        assert_eq!(
            step(10),
            (
                10,
                vec![],
                vec![Input::Place(g(7, 2)), Input::Place(g(9, 2))]
            )
        );
        assert_eq!(seen.memory_after_last_send[6], 212);
    }
}
