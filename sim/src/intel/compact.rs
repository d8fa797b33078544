//! Gen9 compacted (64-bit) instructions, expanded to the native 128-bit form.
//!
//! A compacted instruction keeps the opcode, a few flags and the register numbers, and replaces
//! the rest by 5-bit indices into four tables (control, data types, subregisters, source
//! regions) — 2-bit indices into two tables for three-source instructions. The tables are
//! hardware facts; the values and the bit positions they expand into are those of Broadwell
//! and later up to Gfx11 as brw lists them (`src/intel/compiler/brw_eu_compact.c`:
//! `gfx8_*_table`, `set_uncompacted_*`, `uncompact_instruction`; field positions
//! `brw_eu_inst.h:1388-1430`, Mesa 25.0.7). Expansion cannot fail: every index names a row.

use super::bits::Native;
use super::types::{RegFile, Type};

const CONTROL: [u32; 32] = [
    0b0000000000000000010,
    0b0000100000000000000,
    0b0000100000000000001,
    0b0000100000000000010,
    0b0000100000000000011,
    0b0000100000000000100,
    0b0000100000000000101,
    0b0000100000000000111,
    0b0000100000000001000,
    0b0000100000000001001,
    0b0000100000000001101,
    0b0000110000000000000,
    0b0000110000000000001,
    0b0000110000000000010,
    0b0000110000000000011,
    0b0000110000000000100,
    0b0000110000000000101,
    0b0000110000000000111,
    0b0000110000000001001,
    0b0000110000000001101,
    0b0000110000000010000,
    0b0000110000100000000,
    0b0001000000000000000,
    0b0001000000000000010,
    0b0001000000000000100,
    0b0001000000100000000,
    0b0010110000000000000,
    0b0010110000000010000,
    0b0011000000000000000,
    0b0011000000100000000,
    0b0101000000000000000,
    0b0101000000100000000,
];

const DATATYPE: [u32; 32] = [
    0b001000000000000000001,
    0b001000000000001000000,
    0b001000000000001000001,
    0b001000000000011000001,
    0b001000000000101011101,
    0b001000000010111011101,
    0b001000000011101000001,
    0b001000000011101000101,
    0b001000000011101011101,
    0b001000001000001000001,
    0b001000011000001000000,
    0b001000011000001000001,
    0b001000101000101000101,
    0b001000111000101000100,
    0b001000111000101000101,
    0b001011100011101011101,
    0b001011101011100011101,
    0b001011101011101011100,
    0b001011101011101011101,
    0b001011111011101011100,
    0b000000000010000001100,
    0b001000000000001011101,
    0b001000000000101000101,
    0b001000001000001000000,
    0b001000101000101000100,
    0b001000111000100000100,
    0b001001001001000001001,
    0b001010111011101011101,
    0b001011111011101011101,
    0b001001111001101001100,
    0b001001001001001001000,
    0b001001011001001001000,
];

const SUBREG: [u32; 32] = [
    0b000000000000000,
    0b000000000000001,
    0b000000000001000,
    0b000000000001111,
    0b000000000010000,
    0b000000010000000,
    0b000000100000000,
    0b000000110000000,
    0b000001000000000,
    0b000001000010000,
    0b000001010000000,
    0b001000000000000,
    0b001000000000001,
    0b001000010000001,
    0b001000010000010,
    0b001000010000011,
    0b001000010000100,
    0b001000010000111,
    0b001000010001000,
    0b001000010001110,
    0b001000010001111,
    0b001000110000000,
    0b001000111101000,
    0b010000000000000,
    0b010000110000000,
    0b011000000000000,
    0b011110010000111,
    0b100000000000000,
    0b101000000000000,
    0b110000000000000,
    0b111000000000000,
    0b111000000011100,
];

const SRC_INDEX: [u32; 32] = [
    0b000000000000,
    0b000000000010,
    0b000000010000,
    0b000000010010,
    0b000000011000,
    0b000000100000,
    0b000000101000,
    0b000001001000,
    0b000001010000,
    0b000001110000,
    0b000001111000,
    0b001100000000,
    0b001100000010,
    0b001100001000,
    0b001100010000,
    0b001100010010,
    0b001100100000,
    0b001100101000,
    0b001100111000,
    0b001101000000,
    0b001101000010,
    0b001101001000,
    0b001101010000,
    0b001101100000,
    0b001101101000,
    0b001101110000,
    0b001101110001,
    0b001101111000,
    0b010001101000,
    0b010001101001,
    0b010001101010,
    0b010110001000,
];

const THREE_SRC_CONTROL: [u32; 4] = [
    0b00100000000110000000000001,
    0b00000000000110000000000001,
    0b00000000001000000000000001,
    0b00000000001000000000100001,
];

const THREE_SRC_SOURCE: [u64; 4] = [
    0b0000001110010011100100111001000001111000000000000,
    0b0000001110010011100100111001000001111000000000010,
    0b0000001110010011100100111001000001111000000001000,
    0b0000001110010011100100111001000001111000000100000,
];

/// The bits of a compacted instruction.
#[derive(Clone, Copy)]
struct Compact(u64);

impl Compact {
    fn get(self, hi: u32, lo: u32) -> u64 {
        (self.0 >> lo) & ((1u64 << (hi - lo + 1)) - 1)
    }
}

/// Expands the compacted instruction `word` (bit 29 set) into its native form (bit 29 clear).
/// `is_3src` says whether its opcode takes three sources (the layouts differ).
pub fn uncompact(word: u64, is_3src: bool) -> Native {
    let c = Compact(word);
    let mut n = Native(0);
    if is_3src {
        n.set(6, 0, c.get(6, 0));
        let control = u64::from(THREE_SRC_CONTROL[c.get(9, 8) as usize]);
        n.set(34, 32, (control >> 21) & 0x7);
        n.set(28, 8, control & 0x1f_ffff);
        n.set(36, 35, (control >> 24) & 0x3);
        let source = THREE_SRC_SOURCE[c.get(11, 10) as usize];
        n.set(83, 83, (source >> 43) & 0x1);
        n.set(114, 107, (source >> 35) & 0xff);
        n.set(93, 86, (source >> 27) & 0xff);
        n.set(72, 65, (source >> 19) & 0xff);
        n.set(55, 37, source & 0x7_ffff);
        n.set(126, 125, (source >> 47) & 0x3);
        n.set(105, 104, (source >> 45) & 0x3);
        n.set(84, 84, (source >> 44) & 0x1);
        n.set(63, 56, c.get(18, 12));
        n.set(64, 64, c.get(28, 28));
        n.set(30, 30, c.get(30, 30));
        n.set(31, 31, c.get(31, 31));
        n.set(85, 85, c.get(32, 32));
        n.set(106, 106, c.get(33, 33));
        n.set(83, 76, c.get(49, 43));
        n.set(104, 97, c.get(56, 50));
        n.set(125, 118, c.get(63, 57));
        // Source subregisters: dword part in base+11..9, bit 1 in base+20.
        for (base, (hi, lo)) in [(64, (36, 34)), (85, (39, 37)), (106, (42, 40))] {
            let v = c.get(hi, lo);
            n.set(base + 11, base + 9, v >> 2);
            n.set(base + 20, base + 20, (v >> 1) & 1);
        }
        return n;
    }
    n.set(6, 0, c.get(6, 0));
    n.set(30, 30, c.get(7, 7));
    let control = u64::from(CONTROL[c.get(12, 8) as usize]);
    n.set(33, 31, control >> 16);
    n.set(23, 12, (control >> 4) & 0xfff);
    n.set(10, 9, (control >> 2) & 0x3);
    n.set(34, 34, (control >> 1) & 0x1);
    n.set(8, 8, control & 0x1);
    let datatype = u64::from(DATATYPE[c.get(17, 13) as usize]);
    n.set(63, 61, datatype >> 18);
    n.set(94, 89, (datatype >> 12) & 0x3f);
    n.set(46, 35, datatype & 0xfff);
    let subreg = u64::from(SUBREG[c.get(22, 18) as usize]);
    n.set(100, 96, subreg >> 10);
    n.set(68, 64, (subreg >> 5) & 0x1f);
    n.set(52, 48, subreg & 0x1f);
    n.set(88, 77, u64::from(SRC_INDEX[c.get(34, 30) as usize]));
    if has_immediate(n) {
        // 13 bits, sign-extended to 32.
        let imm = (c.get(39, 35) << 8) | c.get(63, 56);
        let extended = ((imm as u32) << 19) as i32 >> 19;
        n.set(127, 96, u64::from(extended as u32));
    } else {
        n.set(120, 109, u64::from(SRC_INDEX[c.get(39, 35) as usize]));
        n.set(108, 101, c.get(63, 56));
    }
    n.set(28, 28, c.get(23, 23));
    n.set(27, 24, c.get(27, 24));
    n.set(60, 53, c.get(47, 40));
    n.set(76, 69, c.get(55, 48));
    n
}

/// Whether either source of the (partly expanded) instruction is an immediate of a valid type.
fn has_immediate(n: Native) -> bool {
    let imm = RegFile::Imm.code();
    if n.get(42, 41) == imm {
        Type::from_hw(n.get(46, 43) as u8, true).is_some()
    } else if n.get(90, 89) == imm {
        Type::from_hw(n.get(94, 91) as u8, true).is_some()
    } else {
        false
    }
}
