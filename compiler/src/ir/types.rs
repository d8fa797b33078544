//! Value types: NIR-style bit size and component count.
//!
//! As in NIR, 32-bit integers and floats share one type; the opcode says how the bits are
//! read. Booleans are 1-bit. Deref values (pointers into local variables) have their own type
//! and never flow into arithmetic.

use std::fmt;

/// Bit size of each component of a data value.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum BitSize {
    /// A boolean, stored as 0 or 1.
    B1,
    /// A 32-bit integer or float.
    B32,
}

/// The type of an SSA value.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Type {
    /// `comps` (1–4) components of `bits` each. Printed `vecN 1` or `vecN 32`.
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
            Type::Data {
                bits: BitSize::B1,
                comps,
            } => write!(f, "vec{comps} 1"),
            Type::Data {
                bits: BitSize::B32,
                comps,
            } => write!(f, "vec{comps} 32"),
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
