//! Value types: NIR-style bit size and component count.
//!
//! As in NIR, integers and floats of one width share one type; the opcode says how the bits
//! are read. Booleans are 1-bit. 16- and 64-bit values are integers (the ops that take them
//! are [`AluOp::sizing`](crate::ir::AluOp::sizing)'s); a 64-bit value is a scalar. Deref
//! values (pointers into local variables) have their own type and never flow into arithmetic.

use std::fmt;

/// Bit size of each component of a data value.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum BitSize {
    /// A boolean, stored as 0 or 1.
    B1,
    /// A 16-bit integer.
    B16,
    /// A 32-bit integer or float.
    B32,
    /// A 64-bit integer (scalars only).
    B64,
}

impl BitSize {
    /// The bit sizes integers come in, narrowest first.
    pub const INTS: [BitSize; 3] = [BitSize::B16, BitSize::B32, BitSize::B64];

    /// The width in bits.
    pub fn bits(self) -> u32 {
        match self {
            BitSize::B1 => 1,
            BitSize::B16 => 16,
            BitSize::B32 => 32,
            BitSize::B64 => 64,
        }
    }

    /// The bit size of `bits`-bit data, if there is one.
    pub fn from_bits(bits: u32) -> Option<BitSize> {
        match bits {
            1 => Some(BitSize::B1),
            16 => Some(BitSize::B16),
            32 => Some(BitSize::B32),
            64 => Some(BitSize::B64),
            _ => None,
        }
    }

    /// Whether values of this size are integers of 16 or 64 bits: what only the width-generic
    /// integer ops take, and what a target needs the device's `shaderInt16`/`shaderInt64` for.
    pub fn is_wide(self) -> bool {
        matches!(self, BitSize::B16 | BitSize::B64)
    }

    /// The 32-bit words one component occupies wherever values are stored as words (the
    /// interpreter's slots, a constant's `bits`): 2 for 64 bits (low word first), else 1.
    pub fn words(self) -> u8 {
        if self == BitSize::B64 {
            2
        } else {
            1
        }
    }

    /// The mask of a component's bits in its 64-bit container.
    pub fn mask(self) -> u64 {
        u64::MAX >> (64 - self.bits())
    }
}

impl fmt::Display for BitSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.bits())
    }
}

/// The type of an SSA value.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Type {
    /// `comps` (1–4; 1 for 64 bits) components of `bits` each. Printed `vecN B`, `B` the
    /// bit size.
    Data {
        /// Bit size of every component.
        bits: BitSize,
        /// Number of components, 1 to 4.
        comps: u8,
    },
    /// A deref: a pointer into a local variable. Printed `deref`.
    Deref,
    /// No value (stores, jumps). Never the type of a `Value`.
    None,
}

impl Type {
    /// A scalar boolean.
    pub const B1: Type = Type::Data {
        bits: BitSize::B1,
        comps: 1,
    };
    /// A scalar 32-bit value.
    pub const I32: Type = Type::Data {
        bits: BitSize::B32,
        comps: 1,
    };

    /// An integer vector of `bits` (16, 32 or 64) and `comps` components.
    pub fn int(bits: BitSize, comps: u8) -> Type {
        debug_assert!((1..=4).contains(&comps), "vector of {comps} components");
        Type::Data { bits, comps }
    }

    /// A 32-bit vector of `comps` components.
    pub fn vec32(comps: u8) -> Type {
        debug_assert!((1..=4).contains(&comps), "vector of {comps} components");
        Type::Data {
            bits: BitSize::B32,
            comps,
        }
    }

    /// A boolean vector of `comps` components.
    pub fn vec1(comps: u8) -> Type {
        debug_assert!((1..=4).contains(&comps), "vector of {comps} components");
        Type::Data {
            bits: BitSize::B1,
            comps,
        }
    }

    /// Number of components; 0 for derefs and `None`.
    pub fn comps(self) -> u8 {
        match self {
            Type::Data { comps, .. } => comps,
            _ => 0,
        }
    }

    /// Bit size of a data type.
    pub fn bits(self) -> Option<BitSize> {
        match self {
            Type::Data { bits, .. } => Some(bits),
            _ => None,
        }
    }

    /// Whether this is data of 16 or 64 bits ([`BitSize::is_wide`]).
    pub fn is_wide(self) -> bool {
        self.bits().is_some_and(BitSize::is_wide)
    }

    /// The 32-bit words a value of this type occupies where values are stored as words
    /// (components times [`BitSize::words`]); 0 for derefs and `None`.
    pub fn words(self) -> u8 {
        match self {
            Type::Data { bits, comps } => comps * bits.words(),
            _ => 0,
        }
    }

    /// The same kind of component with a different count.
    pub fn with_comps(self, comps: u8) -> Type {
        match self {
            Type::Data { bits, .. } => Type::Data { bits, comps },
            t => t,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Data { bits, comps } => write!(f, "vec{comps} {bits}"),
            Type::Deref => f.write_str("deref"),
            Type::None => f.write_str("none"),
        }
    }
}

/// The type of a local variable or of the storage a deref points at. Variables hold 32-bit
/// data only; every type has a size in 32-bit words and the storage is flat.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum VarType {
    /// A 32-bit vector of 1–4 components. Printed `vecN`.
    Vector(u8),
    /// `len` (≥ 1) elements. Printed `ELEM[len]`.
    Array(Box<VarType>, u32),
    /// Fields in order. Printed `struct { T, T }`.
    Struct(Vec<VarType>),
}

impl VarType {
    /// Size in 32-bit words.
    pub fn words(&self) -> u32 {
        match self {
            VarType::Vector(n) => u32::from(*n),
            VarType::Array(elem, len) => elem.words().saturating_mul(*len),
            VarType::Struct(fields) => fields.iter().map(VarType::words).sum(),
        }
    }

    /// Word offset of field `index` in a struct.
    pub fn field_offset(&self, index: u32) -> Option<u32> {
        match self {
            VarType::Struct(fields) if (index as usize) < fields.len() => {
                Some(fields[..index as usize].iter().map(VarType::words).sum())
            }
            _ => None,
        }
    }
}

impl fmt::Display for VarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VarType::Vector(n) => write!(f, "vec{n}"),
            VarType::Array(elem, len) => write!(f, "{elem}[{len}]"),
            VarType::Struct(fields) => {
                f.write_str("struct {")?;
                for (i, field) in fields.iter().enumerate() {
                    let sep = if i == 0 { " " } else { ", " };
                    write!(f, "{sep}{field}")?;
                }
                f.write_str(" }")
            }
        }
    }
}
