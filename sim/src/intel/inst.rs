//! A decoded instruction (Gen9 or Gen12): every field the hardware reads, in the units an
//! executor wants (exec size as a lane count, strides as element counts, subregisters in bytes,
//! jumps in bytes relative to the instruction), plus what brw's disassembler prints that is not
//! semantics (compaction, debug, dependency-check hints). The fields mean the same whatever the
//! encoding; Gen12 adds the software-scoreboard annotation and `sync`.

use super::gen::Gen;
use super::opcode::Opcode;
use super::swsb::Swsb;
use super::types::{RegFile, Type};

/// One decoded instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inst {
    /// The opcode.
    pub opcode: Opcode,
    /// Whether it was stored in the 64-bit compacted form (8 bytes rather than 16).
    pub compacted: bool,
    /// Align16 access mode (operands address 16-byte groups with swizzles); align1 otherwise.
    pub align16: bool,
    /// Lanes: 1, 2, 4, 8, 16 or 32.
    pub exec_size: u8,
    /// Quarter control (QtrCtrl): the first lane of the execution mask is 8·qtr + 4·nib.
    pub qtr_control: u8,
    /// Nibble control (NibCtrl), for exec sizes below 8.
    pub nib_control: bool,
    /// Predication, if any.
    pub predicate: Option<Predicate>,
    /// The flag register the predicate reads and the conditional modifier writes.
    pub flag: Flag,
    /// The conditional modifier (0 = none; 1 z, 2 nz, 3 g, 4 ge, 5 l, 6 le, 8 o, 9 u).
    /// Always 0 on `math` (whose field is the function) and on sends (the SFID).
    pub cond_modifier: u8,
    /// `math`: the function (1 inv, 2 log, 3 exp, 4 sqrt, 5 rsq, 6 sin, 7 cos, 10 pow,
    /// 11 intdivmod, 12 intdiv, 13 intmod, ...).
    pub math_function: Option<u8>,
    /// Saturate the result to [0, 1] (floats) or the type's range (integers).
    pub saturate: bool,
    /// The debug (breakpoint) bit.
    pub debug: bool,
    /// NoMask (`WE_all`): run every lane of the group regardless of the execution mask.
    pub no_mask: bool,
    /// NoDDClr dependency hint.
    pub no_dd_clear: bool,
    /// NoDDChk dependency hint.
    pub no_dd_check: bool,
    /// Thread control: 0 normal, 1 atomic, 2 switch.
    pub thread_control: u8,
    /// Bit 28: AccWrEnable, or BranchCtrl on flow control.
    pub acc_wr_or_branch: bool,
    /// The destination, if the opcode writes one.
    pub dst: Option<Dst>,
    /// Sources in order (`None` past the opcode's count; a send's descriptor is in `send`).
    pub src: [Option<Src>; 3],
    /// A send's message.
    pub send: Option<Send>,
    /// Jump target in bytes relative to this instruction (flow control).
    pub jip: Option<i32>,
    /// Reconvergence target in bytes relative to this instruction.
    pub uip: Option<i32>,
    /// Gen12+: the software-scoreboard annotation (`None` on Gen9, which has none).
    pub swsb: Option<Swsb>,
    /// `sync`: the function (0 nop, 2 allrd, 3 allwr, 13 fence, 14 bar, 15 host).
    pub sync_function: Option<u8>,
    /// The encoding it was read from (message descriptors and a few printed fields read per
    /// generation).
    pub gen: Gen,
}

impl Inst {
    /// Bytes it takes in the program.
    pub fn len(&self) -> usize {
        if self.compacted {
            8
        } else {
            16
        }
    }

    /// Always false: an instruction has bytes (for clippy's `len_without_is_empty`).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Whether it takes three sources (align16 on Gfx9, align1 on Gfx12).
    pub fn is_3src(&self) -> bool {
        self.opcode.sources() == 3
    }

    /// The first lane of the execution mask it acts on (`8·QtrCtrl + 4·NibCtrl`).
    pub fn group(&self) -> u8 {
        8 * self.qtr_control + 4 * u8::from(self.nib_control)
    }
}

/// Predicate control and inversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Predicate {
    /// 1 = one flag bit per lane; 2..=12 = align1 any/all over groups (anyv, allv, any2h, ...).
    pub control: u8,
    /// `-`: the lane runs where the flag bit is clear.
    pub invert: bool,
}

/// A flag subregister `f<reg>.<subreg>` (16 bits each).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flag {
    /// f0 or f1.
    pub reg: u8,
    /// .0 or .1.
    pub subreg: u8,
}

/// Register-indirect addressing: the register comes from `a0.<subreg>` plus an immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Indirect {
    /// Which word of a0 holds the byte address.
    pub a0_subreg: u8,
    /// Added to it, in bytes (10-bit signed).
    pub offset: i16,
}

/// A destination operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dst {
    /// Register file (GRF or ARF).
    pub file: RegFile,
    /// Register number (ARFs: kind in the high nibble, index in the low).
    pub nr: u8,
    /// Byte offset inside the register.
    pub subreg: u8,
    /// Element stride (1, 2 or 4; align16 is 1).
    pub hstride: u8,
    /// Element type.
    pub ty: Type,
    /// Register-indirect address, if any (align1).
    pub indirect: Option<Indirect>,
    /// Align16 channel write mask (0xf = all).
    pub writemask: u8,
}

/// A source region `<vstride;width,hstride>` in elements; `vstride: None` is VxH (indirect
/// rows of `width`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// Elements between rows (None: VxH).
    pub vstride: Option<u8>,
    /// Elements per row.
    pub width: u8,
    /// Elements between neighbours in a row.
    pub hstride: u8,
}

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    /// A register region.
    Reg(RegSrc),
    /// An immediate: its type and bits (32-bit types in the low half).
    Imm {
        /// The type.
        ty: Type,
        /// The bits.
        bits: u64,
    },
}

/// A register source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegSrc {
    /// Register file.
    pub file: RegFile,
    /// Register number.
    pub nr: u8,
    /// Byte offset inside the register.
    pub subreg: u8,
    /// Element type.
    pub ty: Type,
    /// The region.
    pub region: Region,
    /// Negate (bitwise not on logic ops).
    pub negate: bool,
    /// Absolute value.
    pub abs: bool,
    /// Register-indirect address, if any.
    pub indirect: Option<Indirect>,
    /// Align16 swizzle (2 bits per channel, x in the low bits), if align16.
    pub swizzle: Option<u8>,
}

/// A message to a shared function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Send {
    /// Shared function: 2 sampler, 3 gateway, 6 URB, 7 thread spawner, 9 constant cache,
    /// 10 data cache 0, 12 data cache 1; Gen12.5's LSC: 13 typed (TGM), 14 shared local
    /// (SLM), 15 untyped global memory (UGM).
    pub sfid: u8,
    /// The descriptor (mlen 28:25, rlen 24:20, header 19, function-specific 18:0), or `None`
    /// when it comes from a0.0.
    pub desc: Option<u32>,
    /// Split sends: the extended descriptor (ex_mlen 9:6), or `None` when it comes from
    /// `a0.<ex_desc_a0_subreg>`. Plain sends: `Some(0)`.
    pub ex_desc: Option<u32>,
    /// Which a0 word holds an indirect extended descriptor.
    pub ex_desc_a0_subreg: u8,
    /// End of thread.
    pub eot: bool,
    /// Split sends (every Gen12 send): the second payload's first register (file, number).
    pub src1: Option<(RegFile, u8)>,
    /// Gen12.5 with an `a0` extended descriptor: the surface offset comes from a0 ("ex_bso")
    /// and the second payload's length from the instruction, `src1_len`.
    pub ex_bso: bool,
    /// Gen12.5: the second payload's length in registers when `ex_bso` (bits 103:99).
    pub src1_len: u8,
}

impl Send {
    /// Payload registers read from src0 (descriptor bits 28:25), if the descriptor is known.
    pub fn mlen(&self) -> Option<u32> {
        self.desc.map(|d| (d >> 25) & 0xf)
    }

    /// Response registers written (descriptor bits 24:20).
    pub fn rlen(&self) -> Option<u32> {
        self.desc.map(|d| (d >> 20) & 0x1f)
    }

    /// Payload registers read from src1 (extended descriptor bits 9:6).
    pub fn ex_mlen(&self) -> Option<u32> {
        self.ex_desc.map(|d| (d >> 6) & 0xf)
    }

    /// Whether it goes to an LSC data port (Gen12.5: typed, shared-local or untyped global
    /// memory), whose descriptor reads differently.
    pub fn is_lsc(&self) -> bool {
        matches!(self.sfid, 13..=15)
    }
}
