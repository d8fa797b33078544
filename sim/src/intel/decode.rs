//! Machine code → [`Inst`]: compacted instructions are expanded first (`compact`,
//! `compact12`), then every instruction is read from its generation's native field layout:
//! Gen12's in `decode12`, Gen9's here (`brw_eu_inst.h`'s "9+" column, Mesa 25.0.7; the
//! positions are listed next to each read). Anything the encoding cannot mean
//! on Gfx9 (an unknown opcode, a register file or type code with no meaning, an align16
//! indirect operand) is an error naming the bits, never a guess.

use super::bits::Native;
use super::compact::uncompact;
use super::compact12;
use super::decode12;
use super::gen::Gen;
use super::inst::{Dst, Flag, Indirect, Inst, Predicate, RegSrc, Region, Send, Src};
use super::opcode::Opcode;
use super::types::{RegFile, Type};
pub use super::undecodable::Undecodable;

/// Why bytes are not a Gen9 instruction.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at byte {offset:#x}: {reason}")]
pub struct DecodeError {
    /// Byte offset of the instruction in the program.
    pub offset: usize,
    /// What is wrong.
    pub reason: Undecodable,
}

/// Decodes the Gen9 instruction at the start of `bytes`; it is 8 bytes long if compacted
/// (bit 29), else 16.
pub fn decode(bytes: &[u8]) -> Result<Inst, Undecodable> {
    decode_as(Gen::Gfx9, bytes)
}

/// Decodes the instruction at the start of `bytes` in `gen`'s encoding.
pub fn decode_as(gen: Gen, bytes: &[u8]) -> Result<Inst, Undecodable> {
    let head: [u8; 8] = bytes
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .ok_or(Undecodable::Truncated { left: bytes.len() })?;
    let low = u64::from_le_bytes(head);
    let compacted = (low >> 29) & 1 == 1;
    let native = if compacted {
        let hw = (low & 0x7f) as u8;
        let is_3src = Opcode::from_hw(gen, hw).is_some_and(|o| o.sources() == 3);
        if gen.is_gfx12() {
            compact12::uncompact(low, is_3src, gen)?
        } else {
            uncompact(low, is_3src)
        }
    } else {
        let all: [u8; 16] = bytes
            .get(..16)
            .and_then(|b| b.try_into().ok())
            .ok_or(Undecodable::TruncatedNative { left: bytes.len() })?;
        Native::from_bytes(all)
    };
    if gen.is_gfx12() {
        decode12::decode_native(native, compacted, gen)
    } else {
        decode_native(native, compacted)
    }
}

/// Decodes a whole Gen9 program: every instruction with its byte offset.
pub fn decode_program(bytes: &[u8]) -> Result<Vec<(usize, Inst)>, DecodeError> {
    decode_program_as(Gen::Gfx9, bytes)
}

/// Decodes a whole program in `gen`'s encoding.
pub fn decode_program_as(gen: Gen, bytes: &[u8]) -> Result<Vec<(usize, Inst)>, DecodeError> {
    let mut out = Vec::new();
    let mut offset = 0;
    while offset < bytes.len() {
        let inst =
            decode_as(gen, &bytes[offset..]).map_err(|reason| DecodeError { offset, reason })?;
        let len = inst.len();
        out.push((offset, inst));
        offset += len;
    }
    Ok(out)
}

fn file(code: u64, operand: &'static str) -> Result<RegFile, Undecodable> {
    RegFile::from_code(code).ok_or(Undecodable::MessageRegisterFile { operand, code })
}

fn ty(code: u64, file: RegFile, operand: &'static str) -> Result<Type, Undecodable> {
    Type::from_hw(code as u8, file == RegFile::Imm).ok_or(Undecodable::TypeCodeForFile {
        operand,
        code,
        file,
    })
}

/// The 10-bit signed indirect address immediate.
fn addr_imm(low9: u64, bit9: u64) -> i16 {
    let raw = (low9 | (bit9 << 9)) as i16;
    (raw << 6) >> 6
}

const VSTRIDES: [Option<u8>; 16] = [
    Some(0),
    Some(1),
    Some(2),
    Some(4),
    Some(8),
    Some(16),
    Some(32),
    None,
    None,
    None,
    None,
    None,
    None,
    None,
    None,
    None,
];

fn region(
    n: Native,
    vstride: (u32, u32),
    width: (u32, u32),
    hstride: (u32, u32),
) -> Result<Region, Undecodable> {
    let v = n.get(vstride.0, vstride.1);
    let vstride = match v {
        0xf => None,
        _ => Some(VSTRIDES[v as usize].ok_or(Undecodable::VerticalStrideCode { code: v })?),
    };
    let w = n.get(width.0, width.1);
    if w > 4 {
        return Err(Undecodable::WidthCode { code: w });
    }
    Ok(Region {
        vstride,
        width: 1 << w,
        hstride: hstride_value(n.get(hstride.0, hstride.1)),
    })
}

fn hstride_value(code: u64) -> u8 {
    match code {
        0 => 0,
        c => 1 << (c - 1),
    }
}

fn decode_native(n: Native, compacted: bool) -> Result<Inst, Undecodable> {
    let opcode = Opcode(n.get(6, 0) as u8);
    if !opcode.exists() {
        return Err(Undecodable::UnknownOpcode {
            gen: Gen::Gfx9,
            opcode: opcode.0,
        });
    }
    let exec_log2 = n.get(23, 21);
    if exec_log2 > 5 {
        return Err(Undecodable::ExecSizeCode { code: exec_log2 });
    }
    let pred_control = n.get(19, 16) as u8;
    let raw_cond = n.get(27, 24) as u8;
    let mut inst = Inst {
        opcode,
        compacted,
        align16: n.flag(8),
        exec_size: 1 << exec_log2,
        qtr_control: n.get(13, 12) as u8,
        nib_control: n.flag(11),
        predicate: (pred_control != 0).then_some(Predicate {
            control: pred_control,
            invert: n.flag(20),
        }),
        flag: Flag {
            reg: n.get(33, 33) as u8,
            subreg: n.get(32, 32) as u8,
        },
        cond_modifier: if opcode == Opcode::MATH || opcode.is_send() {
            0
        } else {
            raw_cond
        },
        math_function: (opcode == Opcode::MATH).then_some(raw_cond),
        saturate: n.flag(31),
        debug: n.flag(30),
        no_mask: n.flag(34),
        no_dd_clear: n.flag(9),
        no_dd_check: n.flag(10),
        thread_control: n.get(15, 14) as u8,
        acc_wr_or_branch: n.flag(28),
        dst: None,
        src: [None; 3],
        send: None,
        jip: None,
        uip: None,
        swsb: None,
        sync_function: None,
        gen: Gen::Gfx9,
    };
    if inst.thread_control == 3 {
        return Err(Undecodable::ReservedThreadControl);
    }
    if opcode.has_jip() {
        // Both are byte offsets on Gfx8+ (`brw_jump_scale` is 16 per native instruction).
        inst.jip = Some(n.get(127, 96) as u32 as i32);
        if opcode.has_uip() {
            inst.uip = Some(n.get(95, 64) as u32 as i32);
        }
        return Ok(inst);
    }
    if opcode.sources() == 3 {
        decode_3src(n, &mut inst)?;
        return Ok(inst);
    }
    if opcode.is_split_send() {
        decode_split_send(n, &mut inst)?;
        return Ok(inst);
    }
    if opcode.destinations() > 0 {
        inst.dst = Some(decode_dst(n, inst.align16)?);
    }
    if opcode.sources() > 0 {
        inst.src[0] = Some(decode_src(n, inst.align16, Operand::Src0)?);
    }
    if opcode.is_send() {
        // src1 is the descriptor: an immediate in 126:96, or a0.0.
        let src1_file = file(n.get(90, 89), "src1")?;
        let (desc, shown) = if src1_file == RegFile::Imm {
            (Some(n.get(126, 96) as u32), None)
        } else {
            (None, Some(decode_src(n, inst.align16, Operand::Src1)?))
        };
        inst.src[1] = shown;
        inst.send = Some(Send {
            sfid: raw_cond,
            desc,
            ex_desc: Some(0),
            ex_desc_a0_subreg: 0,
            eot: n.flag(127),
            src1: None,
            ex_bso: false,
            src1_len: 0,
        });
    } else if opcode.sources() > 1 {
        inst.src[1] = Some(decode_src(n, inst.align16, Operand::Src1)?);
    }
    Ok(inst)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Operand {
    Src0,
    Src1,
}

fn decode_dst(n: Native, align16: bool) -> Result<Dst, Undecodable> {
    let f = file(n.get(36, 35), "dst")?;
    if f == RegFile::Imm {
        return Err(Undecodable::ImmediateDestination);
    }
    let ty = ty(n.get(40, 37), f, "dst")?;
    let indirect = n.flag(63);
    if align16 {
        if indirect {
            return Err(Undecodable::Align16IndirectDestination);
        }
        return Ok(Dst {
            file: f,
            nr: n.get(60, 53) as u8,
            subreg: (n.get(52, 52) * 16) as u8,
            hstride: 1,
            ty,
            indirect: None,
            writemask: n.get(51, 48) as u8,
        });
    }
    Ok(Dst {
        file: f,
        nr: if indirect { 0 } else { n.get(60, 53) as u8 },
        subreg: if indirect { 0 } else { n.get(52, 48) as u8 },
        hstride: hstride_value(n.get(62, 61)),
        ty,
        indirect: indirect.then(|| Indirect {
            a0_subreg: n.get(60, 57) as u8,
            offset: addr_imm(n.get(56, 48), n.get(47, 47)),
        }),
        writemask: 0xf,
    })
}

fn decode_src(n: Native, align16: bool, which: Operand) -> Result<Src, Undecodable> {
    // (file, type, subreg, reg, abs, negate, address mode, hstride, width, vstride, ia imm)
    let (fb, tb, base, name) = match which {
        Operand::Src0 => ((42, 41), (46, 43), 64, "src0"),
        Operand::Src1 => ((90, 89), (94, 91), 96, "src1"),
    };
    let f = file(n.get(fb.0, fb.1), name)?;
    let t = ty(n.get(tb.0, tb.1), f, name)?;
    if f == RegFile::Imm {
        let bits = if t.size() == 8 {
            n.get(127, 64)
        } else {
            n.get(127, 96)
        };
        return Ok(Src::Imm { ty: t, bits });
    }
    let negate = n.flag(base + 14);
    let abs = n.flag(base + 13);
    let indirect = n.flag(base + 15);
    if align16 {
        if indirect {
            return Err(Undecodable::Align16IndirectSource { operand: name });
        }
        let swizzle = (n.get(base + 1, base) | (n.get(base + 3, base + 2) << 2))
            | (n.get(base + 17, base + 16) << 4)
            | (n.get(base + 19, base + 18) << 6);
        return Ok(Src::Reg(RegSrc {
            file: f,
            nr: n.get(base + 12, base + 5) as u8,
            subreg: (n.get(base + 4, base + 4) * 16) as u8,
            ty: t,
            region: region(
                n,
                (base + 24, base + 21),
                (base + 20, base + 18),
                (base + 17, base + 16),
            )
            .map(|r| Region {
                width: 4,
                hstride: 1,
                ..r
            })?,
            negate,
            abs,
            indirect: None,
            swizzle: Some(swizzle as u8),
        }));
    }
    let nine = match which {
        Operand::Src0 => 95,
        Operand::Src1 => 121,
    };
    Ok(Src::Reg(RegSrc {
        file: f,
        nr: if indirect {
            0
        } else {
            n.get(base + 12, base + 5) as u8
        },
        subreg: if indirect {
            0
        } else {
            n.get(base + 4, base) as u8
        },
        ty: t,
        region: region(
            n,
            (base + 24, base + 21),
            (base + 20, base + 18),
            (base + 17, base + 16),
        )?,
        negate,
        abs,
        indirect: indirect.then(|| Indirect {
            a0_subreg: n.get(base + 12, base + 9) as u8,
            offset: addr_imm(n.get(base + 8, base), n.get(nine, nine)),
        }),
        swizzle: None,
    }))
}

fn decode_split_send(n: Native, inst: &mut Inst) -> Result<(), Undecodable> {
    let dst_file = if n.flag(35) {
        RegFile::Grf
    } else {
        RegFile::Arf
    };
    if n.flag(63) {
        return Err(Undecodable::IndirectSplitSendDestination);
    }
    inst.dst = Some(Dst {
        file: dst_file,
        nr: n.get(60, 53) as u8,
        subreg: (n.get(52, 52) * 16) as u8,
        hstride: 1,
        ty: Type::UD,
        indirect: None,
        writemask: 0xf,
    });
    if n.flag(79) {
        return Err(Undecodable::IndirectSplitSendPayload);
    }
    inst.src[0] = Some(Src::Reg(RegSrc {
        file: RegFile::Grf,
        nr: n.get(76, 69) as u8,
        subreg: (n.get(68, 68) * 16) as u8,
        ty: Type::UD,
        region: Region {
            vstride: Some(0),
            width: 1,
            hstride: 0,
        },
        negate: false,
        abs: false,
        indirect: None,
        swizzle: None,
    }));
    let src1_file = if n.flag(36) {
        RegFile::Grf
    } else {
        RegFile::Arf
    };
    let src1_nr = n.get(51, 44) as u8;
    let desc = (!n.flag(77)).then(|| n.get(126, 96) as u32);
    let ex_desc = (!n.flag(61)).then(|| ((n.get(95, 80) << 16) | (n.get(67, 64) << 6)) as u32);
    inst.send = Some(Send {
        sfid: n.get(27, 24) as u8,
        desc,
        ex_desc,
        ex_desc_a0_subreg: n.get(82, 80) as u8,
        eot: n.flag(127),
        src1: Some((src1_file, src1_nr)),
        ex_bso: false,
        src1_len: 0,
    });
    Ok(())
}

fn decode_3src(n: Native, inst: &mut Inst) -> Result<(), Undecodable> {
    if !inst.align16 {
        return Err(Undecodable::Align1ThreeSource);
    }
    let dst_ty = Type::from_3src(n.get(48, 46) as u8).ok_or(Undecodable::ThreeSourceTypeCode {
        operand: "dst",
        code: n.get(48, 46),
    })?;
    let src_ty = Type::from_3src(n.get(45, 43) as u8).ok_or(Undecodable::ThreeSourceTypeCode {
        operand: "src",
        code: n.get(45, 43),
    })?;
    inst.dst = Some(Dst {
        file: RegFile::Grf,
        nr: n.get(63, 56) as u8,
        subreg: (n.get(55, 53) * 4) as u8,
        hstride: 1,
        ty: dst_ty,
        indirect: None,
        writemask: n.get(52, 49) as u8,
    });
    // (reg nr, swizzle, rep_ctrl bit, subreg base, negate bit, abs bit)
    let layout = [
        ((83, 76), (72, 65), 64, 64, 38, 37),
        ((104, 97), (93, 86), 85, 85, 40, 39),
        ((125, 118), (114, 107), 106, 106, 42, 41),
    ];
    for (i, (nr, swz, rep, base, neg, abs)) in layout.into_iter().enumerate() {
        let scalar = n.flag(rep);
        inst.src[i] = Some(Src::Reg(RegSrc {
            file: RegFile::Grf,
            nr: n.get(nr.0, nr.1) as u8,
            subreg: ((n.get(base + 11, base + 9) << 2) | (n.get(base + 20, base + 20) << 1)) as u8,
            ty: src_ty,
            region: if scalar {
                Region {
                    vstride: Some(0),
                    width: 1,
                    hstride: 0,
                }
            } else {
                Region {
                    vstride: Some(4),
                    width: 4,
                    hstride: 1,
                }
            },
            negate: n.flag(neg),
            abs: n.flag(abs),
            indirect: None,
            swizzle: Some(n.get(swz.0, swz.1) as u8),
        }));
    }
    Ok(())
}
