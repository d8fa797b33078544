//! Which encoding a program is in. Gen9 (Skylake) and Gen12 (Tiger Lake) lay the 128 bits out
//! differently (`brw_eu_inst.h`'s "9+" and "12+" columns), renumber the opcodes and the types,
//! and Gen12 adds software scoreboarding (SWSB). Gen12.5 (Xe-HP: DG2, Meteor Lake) keeps the
//! Gen12 layout with other compaction tables and the LSC data-port messages; Meteor Lake runs
//! 64-bit floats on the math pipe, which changes how an SWSB byte reads
//! (`has_64bit_float_via_math_pipe`, `src/intel/dev/intel_device_info.c:1183`, Mesa 25.0.7).
//! Xe2 (Lunar Lake) keeps the Gen12 layout but widens and moves a few fields.

use std::fmt;

/// An instruction encoding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Gen {
    /// Gfx9 (Skylake).
    #[default]
    Gfx9,
    /// Gfx12 (Tiger Lake).
    Gfx12,
    /// Gfx12.5 (Xe-HPG: DG2), LSC messages.
    Gfx125,
    /// Gfx12.5 with 64-bit floats on the math pipe (Xe-LPG: Meteor Lake).
    Gfx125Mtl,
    /// Gfx20 (Xe2: Lunar Lake): the Gfx12 layout with wider SWSB, exec-size, predicate and
    /// flag fields, 64-byte registers (subregister fields count pairs of bytes), its own
    /// compaction tables (`brw_eu_inst.h`'s "20+" column).
    Xe2,
}

impl Gen {
    /// Every encoding we decode.
    pub const ALL: &'static [Gen] = &[Gen::Gfx9, Gen::Gfx12, Gen::Gfx125, Gen::Gfx125Mtl, Gen::Xe2];

    /// The Gfx12 field layout (every generation after Gfx9 that we decode).
    pub fn is_gfx12(self) -> bool {
        self != Gen::Gfx9
    }

    /// Gfx12.5 (Xe-HP): its own compaction tables, LSC, `add3`.
    pub fn is_xehp(self) -> bool {
        matches!(self, Gen::Gfx125 | Gen::Gfx125Mtl)
    }

    /// Xe2 (Gfx20).
    pub fn is_xe2(self) -> bool {
        self == Gen::Xe2
    }

    /// Whether DF instructions go down the (out-of-order) math pipe, so that their SWSB byte
    /// names a scoreboard token to set rather than one to wait for.
    pub fn df_via_math_pipe(self) -> bool {
        self == Gen::Gfx125Mtl
    }
}

impl fmt::Display for Gen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Gen::Gfx9 => "Gfx9",
            Gen::Gfx12 => "Gfx12",
            Gen::Gfx125 => "Gfx12.5",
            Gen::Gfx125Mtl => "Gfx12.5 (MTL)",
            Gen::Xe2 => "Xe2",
        })
    }
}
