//! The register state of one thread and operand access: a byte-addressed GRF file (g0–g127,
//! 32 bytes each), the flag registers f0/f1, cr0 and a0, and element `i` of a region
//! `<vstride;width,hstride>` of any type, read as a [`Num`] and written back in the
//! destination's type with the hardware's conversions (float → integer truncates and
//! saturates, NaN → 0; integer → integer wraps unless saturated).

use super::super::inst::{Dst, Flag, RegSrc, Src};
use super::super::types::{RegFile, Type};
use super::{fault, unsupported, Stop};
use crate::semantics;

/// GRFs in the file.
pub const GRFS: usize = 128;
/// Bytes per GRF.
pub const REG_BYTES: usize = 32;

/// A value in the execution domain: integers widened to 64 bits (sign- or zero-extended as
/// their type says), floats as binary32.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// An integer.
    Int(i64),
    /// A binary32 float.
    Float(f32),
}

/// One thread's registers.
pub struct Regs {
    /// g0–g127.
    pub grf: Vec<u8>,
    /// f0 then f1, 4 bytes each (f0.0 is f0's low 16 bits).
    pub flags: [u8; 8],
    /// cr0.0–cr0.2 (float mode bits in cr0.0).
    pub cr0: [u8; 12],
    /// a0.0–a0.15 (16-bit address words).
    pub a0: [u8; 32],
}

impl Default for Regs {
    fn default() -> Regs {
        Regs {
            grf: vec![0; GRFS * REG_BYTES],
            flags: [0; 8],
            cr0: [0; 12],
            a0: [0; 32],
        }
    }
}

/// ARF kinds (the high nibble of the register number, `brw_eu_defines.h` `BRW_ARF_*`).
const ARF_NULL: u8 = 0x00;
const ARF_ADDRESS: u8 = 0x10;
const ARF_ACC: u8 = 0x20;
const ARF_FLAG: u8 = 0x30;
const ARF_CONTROL: u8 = 0x80;

/// cr0.0 bit 7: single-precision denormals are retained (else flushed to zero).
const CR0_SP_DENORM_RETAIN: u32 = 1 << 7;
/// cr0.0 bits 5:4: rounding mode (0 = round to nearest even).
const CR0_ROUNDING: u32 = 3 << 4;

impl Regs {
    /// Dword `i` of GRF `nr`.
    pub fn dword(&self, nr: usize, i: usize) -> Result<u32, Stop> {
        let at = nr * REG_BYTES + i * 4;
        let b = self
            .grf
            .get(at..at + 4)
            .ok_or_else(|| Stop::Fault(format!("g{nr} is past g127")))?;
        Ok(u32::from_le_bytes(b.try_into().expect("4 bytes")))
    }

    /// Sets dword `i` of GRF `nr`.
    pub fn set_dword(&mut self, nr: usize, i: usize, v: u32) -> Result<(), Stop> {
        let at = nr * REG_BYTES + i * 4;
        let b = self
            .grf
            .get_mut(at..at + 4)
            .ok_or_else(|| Stop::Fault(format!("g{nr} is past g127")))?;
        b.copy_from_slice(&v.to_le_bytes());
        Ok(())
    }

    /// Whether float ops keep single-precision denormals (cr0.0 bit 7).
    pub fn keeps_denormals(&self) -> bool {
        self.cr0_word() & CR0_SP_DENORM_RETAIN != 0
    }

    fn cr0_word(&self) -> u32 {
        u32::from_le_bytes(self.cr0[..4].try_into().expect("4 bytes"))
    }

    /// Refuses a float mode the executor does not model (a rounding mode other than RTNE).
    pub fn check_float_mode(&self) -> Result<(), Stop> {
        if self.cr0_word() & CR0_ROUNDING != 0 {
            return unsupported("cr0 rounding mode other than RTNE");
        }
        Ok(())
    }

    /// The bit of `flag` for channel `channel` (f0.1 starts at f0's bit 16).
    pub fn flag_bit(&self, flag: Flag, channel: usize) -> Result<bool, Stop> {
        let (byte, bit) = flag_position(flag, channel)?;
        Ok(self.flags[byte] >> bit & 1 == 1)
    }

    /// Sets the bit of `flag` for channel `channel`.
    pub fn set_flag_bit(&mut self, flag: Flag, channel: usize, on: bool) -> Result<(), Stop> {
        let (byte, bit) = flag_position(flag, channel)?;
        self.flags[byte] = (self.flags[byte] & !(1 << bit)) | (u8::from(on) << bit);
        Ok(())
    }

    /// The ARF bytes an operand names (null reads as zeros).
    fn arf(&self, nr: u8) -> Result<&[u8], Stop> {
        match nr & 0xf0 {
            ARF_FLAG if nr & 0xf < 2 => Ok(&self.flags[(nr & 1) as usize * 4..][..4]),
            ARF_CONTROL if nr & 0xf == 0 => Ok(&self.cr0),
            ARF_ADDRESS if nr & 0xf == 0 => Ok(&self.a0),
            ARF_ACC => unsupported("accumulator source"),
            _ => unsupported(format!("ARF {nr:#x} source")),
        }
    }

    fn arf_mut(&mut self, nr: u8) -> Result<Option<&mut [u8]>, Stop> {
        match nr & 0xf0 {
            // The accumulator's value is never read back: `mach` forms the product itself.
            ARF_NULL | ARF_ACC => Ok(None),
            ARF_FLAG if nr & 0xf < 2 => Ok(Some(&mut self.flags[(nr & 1) as usize * 4..][..4])),
            ARF_CONTROL if nr & 0xf == 0 => Ok(Some(&mut self.cr0)),
            ARF_ADDRESS if nr & 0xf == 0 => Ok(Some(&mut self.a0)),
            _ => unsupported(format!("ARF {nr:#x} destination")),
        }
    }

    /// Element `lane` of a source, without its modifiers.
    pub fn read(&self, src: &Src, lane: usize) -> Result<Num, Stop> {
        match *src {
            Src::Imm { ty, bits } => immediate(ty, bits, lane),
            // null reads as zero at any offset (the unused second source of one-source math).
            Src::Reg(ref r) if r.file == RegFile::Arf && r.nr & 0xf0 == ARF_NULL => num(r.ty, 0),
            Src::Reg(ref r) => {
                let at = src_offset(r, lane)?;
                let size = r.ty.size() as usize;
                let bytes = match r.file {
                    RegFile::Grf => self.grf.get(r.nr as usize * REG_BYTES + at..),
                    RegFile::Arf => self.arf(r.nr)?.get(at..),
                    RegFile::Imm => None,
                };
                let Some(b) = bytes.filter(|b| b.len() >= size) else {
                    return fault(format!(
                        "source g{}+{at} is outside the register file",
                        r.nr
                    ));
                };
                let mut raw = [0u8; 8];
                raw[..size].copy_from_slice(&b[..size]);
                num(r.ty, u64::from_le_bytes(raw))
            }
        }
    }

    /// Writes raw bits to element `lane` of `dst` (the low `dst.ty.size()` bytes).
    pub fn write_bits(&mut self, dst: &Dst, lane: usize, bits: u64) -> Result<(), Stop> {
        if dst.indirect.is_some() {
            return unsupported("indirect destination");
        }
        if dst.writemask != 0xf {
            return unsupported("align16 partial write mask");
        }
        let size = dst.ty.size() as usize;
        let at = dst.subreg as usize + lane * dst.hstride.max(1) as usize * size;
        let bytes = match dst.file {
            RegFile::Grf => self.grf.get_mut(dst.nr as usize * REG_BYTES + at..),
            RegFile::Arf => match self.arf_mut(dst.nr)? {
                Some(b) => b.get_mut(at..),
                None => return Ok(()),
            },
            RegFile::Imm => None,
        };
        let Some(b) = bytes.filter(|b| b.len() >= size) else {
            return fault(format!(
                "destination g{}+{at} is outside the register file",
                dst.nr
            ));
        };
        b[..size].copy_from_slice(&bits.to_le_bytes()[..size]);
        Ok(())
    }
}

/// The byte and bit of a flag for a channel.
fn flag_position(flag: Flag, channel: usize) -> Result<(usize, usize), Stop> {
    let bit = flag.subreg as usize * 16 + channel;
    if bit >= 32 {
        return unsupported("flag bit past the flag register");
    }
    Ok((flag.reg as usize * 4 + bit / 8, bit % 8))
}

/// The byte offset of element `lane` of a register region, from the register's start.
pub(super) fn src_offset(r: &RegSrc, lane: usize) -> Result<usize, Stop> {
    if r.indirect.is_some() {
        return unsupported("indirect addressing");
    }
    let Some(vstride) = r.region.vstride else {
        return unsupported("VxH region");
    };
    if let Some(swizzle) = r.swizzle {
        // Align16: the identity swizzle (xyzw) or a replicated scalar only.
        if vstride != 0 && swizzle != 0xe4 {
            return unsupported("align16 swizzle");
        }
    }
    let width = r.region.width.max(1) as usize;
    let element = (lane / width) * vstride as usize + (lane % width) * r.region.hstride as usize;
    Ok(r.subreg as usize + element * r.ty.size() as usize)
}

/// The value of `bits` read as type `ty`.
pub fn num(ty: Type, bits: u64) -> Result<Num, Stop> {
    Ok(match ty {
        Type::UD => Num::Int(bits as u32 as i64),
        Type::D => Num::Int(bits as u32 as i32 as i64),
        Type::UW => Num::Int(bits as u16 as i64),
        Type::W => Num::Int(bits as u16 as i16 as i64),
        Type::UB => Num::Int(bits as u8 as i64),
        Type::B => Num::Int(bits as u8 as i8 as i64),
        Type::UQ | Type::Q => Num::Int(bits as i64),
        Type::F => Num::Float(f32::from_bits(bits as u32)),
        Type::HF | Type::DF | Type::V | Type::UV | Type::VF => {
            return unsupported(format!("{} operand", ty.letters()))
        }
    })
}

/// Element `lane` of an immediate: vector immediates give each lane its own element.
pub(super) fn immediate(ty: Type, bits: u64, lane: usize) -> Result<Num, Stop> {
    match ty {
        Type::V => {
            let nibble = (bits >> (4 * (lane % 8))) & 0xf;
            Ok(Num::Int(((nibble as i64) << 60) >> 60))
        }
        Type::UV => Ok(Num::Int(((bits >> (4 * (lane % 8))) & 0xf) as i64)),
        Type::VF => Ok(Num::Float(restricted_float(
            (bits >> (8 * (lane % 4))) as u8,
        ))),
        _ => num(ty, bits),
    }
}

/// The 8-bit restricted float of `VF` immediates: sign, 3-bit exponent biased by 3, 4-bit
/// mantissa (`brw_vf_to_float`).
fn restricted_float(b: u8) -> f32 {
    if b & 0x7f == 0 {
        return if b & 0x80 != 0 { -0.0 } else { 0.0 };
    }
    let exponent = ((b >> 4) & 7) as i32 - 3;
    let mantissa = 1.0 + f32::from(b & 0xf) / 16.0;
    let v = mantissa * 2f32.powi(exponent);
    if b & 0x80 != 0 {
        -v
    } else {
        v
    }
}

/// The bits `value` has in type `ty`: float → integer truncates toward zero and saturates to
/// the type (NaN → 0) always; integer → integer wraps unless `saturate`; `saturate` on a
/// float result clamps to [0, 1] (NaN → 0).
pub fn bits_of(ty: Type, value: Num, saturate: bool) -> Result<u64, Stop> {
    if ty == Type::F {
        let f = match value {
            Num::Float(f) => f,
            Num::Int(i) => i as f32,
        };
        let f = if saturate {
            if f.is_nan() {
                0.0
            } else {
                f.clamp(0.0, 1.0)
            }
        } else {
            f
        };
        return Ok(f.to_bits() as u64);
    }
    let (lo, hi): (i64, i64) = match ty {
        Type::UD => (0, u32::MAX as i64),
        Type::D => (i32::MIN as i64, i32::MAX as i64),
        Type::UW => (0, u16::MAX as i64),
        Type::W => (i16::MIN as i64, i16::MAX as i64),
        Type::UB => (0, u8::MAX as i64),
        Type::B => (i8::MIN as i64, i8::MAX as i64),
        Type::UQ | Type::Q if !saturate => (i64::MIN, i64::MAX),
        _ => return unsupported(format!("{} destination", ty.letters())),
    };
    let i = match value {
        Num::Int(i) if saturate => i.clamp(lo, hi),
        Num::Int(i) => i,
        // Float → dword: the shared rule (saturating, NaN → 0); narrower types clamp the same way.
        Num::Float(f) if ty == Type::D => semantics::f2i(f.to_bits()) as i32 as i64,
        Num::Float(f) if ty == Type::UD => semantics::f2u(f.to_bits()) as i64,
        Num::Float(f) if f.is_nan() => 0,
        Num::Float(f) => (f.trunc() as i64).clamp(lo, hi),
    };
    Ok(i as u64)
}
