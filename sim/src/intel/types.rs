//! Register files and data types as Gen9 encodes them (`src/intel/compiler/brw_reg_type.c`,
//! `brw_eu_defines.h`, Mesa 25.0.7), with brw's printed spellings.

/// A register file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegFile {
    /// Architecture registers: null, a0, acc, f, sr, cr, ip, ...
    Arf,
    /// General registers g0-g127.
    Grf,
    /// An immediate in the instruction.
    Imm,
}

impl RegFile {
    /// From the 2-bit encoding (2 was MRF before Gfx7 and is invalid here).
    pub fn from_code(code: u64) -> Option<RegFile> {
        match code {
            0 => Some(RegFile::Arf),
            1 => Some(RegFile::Grf),
            3 => Some(RegFile::Imm),
            _ => None,
        }
    }

    /// The 2-bit encoding.
    pub fn code(self) -> u64 {
        match self {
            RegFile::Arf => 0,
            RegFile::Grf => 1,
            RegFile::Imm => 3,
        }
    }
}

/// A data type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// Unsigned 32-bit.
    UD,
    /// Signed 32-bit.
    D,
    /// Unsigned 16-bit.
    UW,
    /// Signed 16-bit.
    W,
    /// Unsigned 8-bit.
    UB,
    /// Signed 8-bit.
    B,
    /// Unsigned 64-bit.
    UQ,
    /// Signed 64-bit.
    Q,
    /// binary16.
    HF,
    /// binary32.
    F,
    /// binary64.
    DF,
    /// Immediate: eight unsigned 4-bit integers.
    UV,
    /// Immediate: eight signed 4-bit integers.
    V,
    /// Immediate: four 8-bit restricted floats.
    VF,
}

impl Type {
    /// From a 2-source instruction's 4-bit type field; immediates have their own table.
    pub fn from_hw(code: u8, immediate: bool) -> Option<Type> {
        use Type::*;
        let t = if immediate {
            [UD, D, UW, W, UV, VF, V, F, UQ, Q, DF, HF].get(usize::from(code))
        } else {
            [UD, D, UW, W, UB, B, DF, F, UQ, Q, HF].get(usize::from(code))
        };
        t.copied()
    }

    /// From an align16 three-source instruction's 3-bit type field.
    pub fn from_3src(code: u8) -> Option<Type> {
        [Type::F, Type::D, Type::UD, Type::DF, Type::HF]
            .get(usize::from(code))
            .copied()
    }

    /// From a Gfx12 4-bit type field: bits 3:2 the base (unsigned, signed, float), bits 1:0
    /// log2 of the bytes; the 8-bit codes are the vector immediates for an immediate
    /// (`brw_type_decode`, `brw_reg_type.c`).
    pub fn from_gen12(code: u8, immediate: bool) -> Option<Type> {
        use Type::*;
        let t = match (code, immediate) {
            (0, true) => UV,
            (4, true) => V,
            (8, true) => VF,
            (8, false) => return None,
            _ => [UB, UW, UD, UQ, B, W, D, Q, VF, HF, F, DF]
                .get(usize::from(code))?
                .to_owned(),
        };
        Some(t)
    }

    /// From a Gfx12 three-source 3-bit type field: the sign bit and the size, made a float by
    /// the instruction's execution type (`brw_type_decode_for_3src`).
    pub fn from_3src_gen12(code: u8, float: bool) -> Option<Type> {
        use Type::*;
        if float {
            return [None, Some(HF), Some(F), Some(DF)]
                .get(usize::from(code))
                .copied()
                .flatten();
        }
        [UB, UW, UD, UQ, B, W, D, Q].get(usize::from(code)).copied()
    }

    /// Whether it is a float type (`brw_type_is_float`); vector float immediates count.
    pub fn is_float(self) -> bool {
        matches!(self, Type::F | Type::HF | Type::DF | Type::VF)
    }

    /// Bytes per element (vector immediates count as their 32-bit whole).
    pub fn size(self) -> u32 {
        use Type::*;
        match self {
            UB | B => 1,
            UW | W | HF => 2,
            UD | D | F | UV | V | VF => 4,
            UQ | Q | DF => 8,
        }
    }

    /// brw's suffix (`brw_reg_type_to_letters`).
    pub fn letters(self) -> &'static str {
        use Type::*;
        match self {
            UD => "UD",
            D => "D",
            UW => "UW",
            W => "W",
            UB => "UB",
            B => "B",
            UQ => "UQ",
            Q => "Q",
            HF => "HF",
            F => "F",
            DF => "DF",
            UV => "UV",
            V => "V",
            VF => "VF",
        }
    }
}
