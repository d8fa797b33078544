//! A native 128-bit Gen instruction as two little-endian 64-bit words, read and written by bit
//! range (bit 0 = the least significant bit of byte 0, the numbering of brw's `brw_eu_inst.h`).

/// The 128 bits of a native instruction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Native(pub u128);

impl Native {
    /// Bits `hi..=lo` (at most 64 of them).
    pub fn get(self, hi: u32, lo: u32) -> u64 {
        debug_assert!(hi >= lo && hi - lo < 64 && hi < 128, "bit range {hi}:{lo}");
        ((self.0 >> lo) & ((1u128 << (hi - lo + 1)) - 1)) as u64
    }

    /// Bit `bit` as a flag.
    pub fn flag(self, bit: u32) -> bool {
        self.get(bit, bit) != 0
    }

    /// Sets bits `hi..=lo` to the low bits of `value`.
    pub fn set(&mut self, hi: u32, lo: u32, value: u64) {
        debug_assert!(hi >= lo && hi - lo < 64 && hi < 128, "bit range {hi}:{lo}");
        let mask = ((1u128 << (hi - lo + 1)) - 1) << lo;
        self.0 = (self.0 & !mask) | ((u128::from(value) << lo) & mask);
    }

    /// The instruction stored in 16 little-endian bytes.
    pub fn from_bytes(bytes: [u8; 16]) -> Native {
        Native(u128::from_le_bytes(bytes))
    }
}
