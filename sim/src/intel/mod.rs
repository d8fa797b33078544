//! Real Intel machine code as the hardware encodes it — Gen9 (Skylake), Gen12 (Tiger Lake),
//! Gen12.5 (DG2, Meteor Lake) and Xe2 (Lunar Lake), native 128-bit and compacted 64-bit
//! instructions — decoded into [`Inst`] and printed in brw's disassembly syntax. Its oracle is brw's own disassembler: [`listing`] reads the listing anv returns with
//! `INTEL_DEBUG=hex` (bytes and brw's text per instruction) and checks that every
//! instruction decodes and prints as brw printed it.
//!
//! The machine knows no compiler: the field positions and compaction tables are hardware facts,
//! cited from Mesa 25.0.7's `src/intel/compiler` where they are written down (`brw_eu_inst.h`,
//! `brw_eu_compact.c`, `brw_disasm.c`, `brw_reg_type.c`).
//!
//! Reading order: [`gen`] (which encoding), [`bits`] (the 128 bits), [`compact`] and
//! [`compact12`] (64 → 128), [`opcode`], [`types`], [`inst`] (what an executor reads),
//! [`swsb`], [`decode`] and [`decode12`], [`print`] with [`lsc`], [`listing`], and [`exec`],
//! which runs decoded Gen9 code.

pub mod bits;
pub mod compact;
pub mod compact12;
pub mod decode;
pub mod decode12;
pub mod exec;
pub mod gen;
pub mod inst;
pub mod listing;
pub mod lsc;
pub mod opcode;
pub mod print;
pub mod print26;
pub mod swsb;
pub mod types;
pub mod undecodable;

#[cfg(test)]
mod tests;

pub use decode::{decode, decode_as, decode_program, decode_program_as, DecodeError, Undecodable};
pub use gen::Gen;
pub use inst::{Dst, Flag, Indirect, Inst, Predicate, RegSrc, Region, Send, Src};
pub use listing::{
    check, check_as, check_in, parse, Agreement, Disagreement, Listed, Listing, Syntax,
};
pub use opcode::Opcode;
pub use print::{print, print_program, Labels};
pub use print26::{print26, Labels26};
pub use swsb::{Pipe, Swsb, Token};
pub use types::{RegFile, Type};
