//! Gen12 and Gen12.5 machine code → [`Inst`]: the native field layout of `brw_eu_inst.h`'s
//! "12+" column (Mesa 25.0.7; positions are listed next to each read). Compared with Gen9,
//! every field moved; align16 is gone; register files take one bit (ARF/GRF) plus an
//! "is immediate" bit; types are a 4-bit base+size code; every send is a split send whose
//! descriptors are scattered over the instruction; three-source instructions are align1 with
//! real regions; bits 15:8 carry the SWSB byte. Anything the encoding cannot mean is an error.

use super::bits::Native;
use super::gen::Gen;
use super::inst::{Dst, Flag, Indirect, Inst, Predicate, RegSrc, Region, Send, Src};
use super::opcode::Opcode;
use super::swsb::Swsb;
use super::types::{RegFile, Type};
use super::undecodable::Undecodable;

/// Decodes a native (or expanded) Gen12 instruction.
pub fn decode_native(n: Native, compacted: bool, gen: Gen) -> Result<Inst, Undecodable> {
    let hw = n.get(6, 0) as u8;
    let opcode = Opcode::from_hw(gen, hw).ok_or(Undecodable::UnknownOpcode { gen, opcode: hw })?;
    let xe2 = gen.is_xe2();
    let exec_log2 = if xe2 { n.get(20, 18) } else { n.get(18, 16) };
    if exec_log2 > 5 {
        return Err(Undecodable::ExecSizeCode { code: exec_log2 });
    }
    let pred_control = if xe2 {
        n.get(27, 26) as u8
    } else {
        n.get(27, 24) as u8
    };
    if xe2 && pred_control > 1 {
        // Xe2's any/all predicates print from their own table; none seen, none decoded.
        return Err(Undecodable::Xe2PredicateControl {
            control: pred_control,
        });
    }
    let field_95_92 = n.get(95, 92) as u8;
    // A 64-bit immediate in src0 takes bits 95:64, the conditional modifier's among them
    // (brw prints no modifier then, `brw_disasm.c:2037-2040`).
    let src0_imm64 =
        n.flag(46) && Type::from_gen12(n.get(43, 40) as u8, true).is_some_and(|t| t.size() == 8);
    let cond_modifier = if opcode == Opcode::MATH
        || opcode == Opcode::SYNC
        || opcode.is_send()
        || opcode.has_uip()
        || src0_imm64
    {
        0
    } else {
        field_95_92
    };
    let mut inst = Inst {
        opcode,
        compacted,
        align16: false,
        exec_size: 1 << exec_log2,
        qtr_control: if xe2 {
            n.get(25, 24) as u8
        } else {
            n.get(21, 20) as u8
        },
        nib_control: !xe2 && n.flag(19),
        predicate: (pred_control != 0).then_some(Predicate {
            control: pred_control,
            invert: n.flag(28),
        }),
        flag: if xe2 {
            Flag {
                reg: n.get(23, 22) as u8,
                subreg: n.get(21, 21) as u8,
            }
        } else {
            Flag {
                reg: n.get(23, 23) as u8,
                subreg: n.get(22, 22) as u8,
            }
        },
        cond_modifier,
        math_function: (opcode == Opcode::MATH).then_some(field_95_92),
        // Bit 34 is EOT on a send.
        saturate: !opcode.is_send() && n.flag(34),
        debug: n.flag(30),
        no_mask: n.flag(31),
        no_dd_clear: false,
        no_dd_check: false,
        // Gen12 keeps only the atomic bit of Gen9's thread control.
        thread_control: n.get(32, 32) as u8,
        // Xe2 has no AccWrEnable; bit 33 is only flow control's BranchCtrl.
        acc_wr_or_branch: n.flag(33) && (!xe2 || opcode.has_branch_ctrl()),
        dst: None,
        src: [None; 3],
        send: None,
        jip: None,
        uip: None,
        swsb: None,
        sync_function: (opcode == Opcode::SYNC).then_some(field_95_92),
        gen,
    };
    let unordered = opcode.is_send()
        || opcode == Opcode::MATH
        || (gen.df_via_math_pipe() && has_df_type(n, opcode));
    inst.swsb = Some(if xe2 {
        Swsb::decode_xe2(n.get(17, 8) as u16, opcode.is_send())
    } else {
        Swsb::decode(n.get(15, 8) as u8, unordered)
    });
    if opcode.has_jip() {
        inst.jip = Some(n.get(127, 96) as u32 as i32);
        if opcode.has_uip() {
            inst.uip = Some(n.get(95, 64) as u32 as i32);
        }
        return Ok(inst);
    }
    if opcode.is_send() {
        decode_send(n, &mut inst, gen);
        return Ok(inst);
    }
    if opcode.sources() == 3 {
        decode_3src(n, &mut inst, xe2)?;
        return Ok(inst);
    }
    if opcode.destinations() > 0 {
        inst.dst = Some(decode_dst(n, xe2)?);
    }
    if opcode.sources() > 0 {
        inst.src[0] = Some(decode_src(n, Operand::Src0, xe2)?);
    }
    if opcode.sources() > 1 {
        inst.src[1] = Some(decode_src(n, Operand::Src1, xe2)?);
    }
    Ok(inst)
}

/// Whether brw's `inst_has_type(DF)` holds (`brw_disasm.c:1843-1871`): the destination type
/// or a source type (as many as the opcode has) is DF. It decides, on Meteor Lake, whether
/// the SWSB byte sets a token.
fn has_df_type(n: Native, opcode: Opcode) -> bool {
    let df = |t: Option<Type>| t == Some(Type::DF);
    let src0 = || df(Type::from_gen12(n.get(43, 40) as u8, n.flag(46)));
    if df(Type::from_gen12(n.get(39, 36) as u8, false)) {
        return true;
    }
    match opcode.sources() {
        3 => {
            let float = n.flag(39);
            [(42, 40), (90, 88), (82, 80)]
                .into_iter()
                .any(|(hi, lo)| df(Type::from_3src_gen12(n.get(hi, lo) as u8, float)))
        }
        2 => src0() || df(Type::from_gen12(n.get(91, 88) as u8, n.flag(47))),
        _ => src0(),
    }
}

/// The one-bit register file of Gen12 (0 ARF, 1 GRF).
fn file_bit(bit: bool) -> RegFile {
    if bit {
        RegFile::Grf
    } else {
        RegFile::Arf
    }
}

/// The indirect address immediate, sign-extended: 10 bits, or on Xe2 11 (the field holds
/// bits 10:1, bit 0 sits elsewhere or is 0).
fn addr_imm(field: u64, low: u64, xe2: bool) -> i16 {
    if xe2 {
        ((((field << 1) | low) as i16) << 5) >> 5
    } else {
        ((field as i16) << 6) >> 6
    }
}

/// A subregister field in bytes: Xe2's counts pairs of bytes, bit 0 elsewhere or 0.
fn subreg_bytes(field: u64, low: u64, xe2: bool) -> u8 {
    if xe2 {
        ((field << 1) | low) as u8
    } else {
        field as u8
    }
}

/// Xe2's vertical stride has 3 bits, 7 meaning VxH (`FV20`).
fn vstride(code: u64, xe2: bool) -> Result<Option<u8>, Undecodable> {
    match code {
        0..=6 => Ok(Some([0, 1, 2, 4, 8, 16, 32][code as usize])),
        7 if xe2 => Ok(None),
        0xf => Ok(None),
        _ => Err(Undecodable::VerticalStrideCode { code }),
    }
}

fn hstride(code: u64) -> u8 {
    match code {
        0 => 0,
        c => 1 << (c - 1),
    }
}

fn decode_dst(n: Native, xe2: bool) -> Result<Dst, Undecodable> {
    let code = n.get(39, 36);
    let ty = Type::from_gen12(code as u8, false).ok_or(Undecodable::TypeCode {
        operand: "dst",
        code,
    })?;
    let indirect = n.flag(35);
    Ok(Dst {
        file: file_bit(n.flag(50)),
        nr: if indirect { 0 } else { n.get(63, 56) as u8 },
        subreg: if indirect {
            0
        } else {
            subreg_bytes(n.get(55, 51), n.get(33, 33), xe2)
        },
        hstride: hstride(n.get(49, 48)),
        ty,
        indirect: indirect.then(|| Indirect {
            a0_subreg: n.get(63, 60) as u8,
            offset: addr_imm(n.get(59, 50), n.get(33, 33), xe2),
        }),
        writemask: 0xf,
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Operand {
    Src0,
    Src1,
}

/// A two-source instruction's source: (is-imm bit, file bit, type, vstride, width, hstride,
/// address mode, negate, abs, register, subregister, indirect subregister, indirect
/// immediate) per `brw_eu_inst.h:285-317`.
fn decode_src(n: Native, which: Operand, xe2: bool) -> Result<Src, Undecodable> {
    struct Layout {
        is_imm: u32,
        file: u32,
        ty: (u32, u32),
        vstride: (u32, u32),
        width: (u32, u32),
        hstride: (u32, u32),
        indirect: u32,
        negate: u32,
        abs: u32,
        nr: (u32, u32),
        subreg: (u32, u32),
        ia_subreg: (u32, u32),
        ia_imm: (u32, u32),
        /// Xe2: bit 0 of the subregister and address immediate (none: 0).
        low: Option<u32>,
    }
    let l = match which {
        Operand::Src0 => Layout {
            is_imm: 46,
            file: 66,
            ty: (43, 40),
            vstride: (87, 84),
            width: (83, 81),
            hstride: (65, 64),
            indirect: 80,
            negate: 45,
            abs: 44,
            nr: (79, 72),
            subreg: (71, 67),
            ia_subreg: (79, 76),
            ia_imm: (75, 66),
            low: Some(87),
        },
        Operand::Src1 => Layout {
            is_imm: 47,
            file: 98,
            ty: (91, 88),
            vstride: (119, 116),
            width: (115, 113),
            hstride: (97, 96),
            indirect: 112,
            negate: 121,
            abs: 120,
            nr: (111, 104),
            subreg: (103, 99),
            ia_subreg: (111, 108),
            ia_imm: (107, 98),
            low: None,
        },
    };
    let name = if which == Operand::Src0 {
        "src0"
    } else {
        "src1"
    };
    let immediate = n.flag(l.is_imm);
    let code = n.get(l.ty.0, l.ty.1);
    let ty = Type::from_gen12(code as u8, immediate).ok_or(Undecodable::TypeCode {
        operand: name,
        code,
    })?;
    if immediate {
        // A 64-bit immediate keeps its high half in 95:64 (`brw_eu_inst_imm_uq`).
        let bits = if ty.size() == 8 {
            (n.get(95, 64) << 32) | n.get(127, 96)
        } else {
            n.get(127, 96)
        };
        return Ok(Src::Imm { ty, bits });
    }
    let w = n.get(l.width.0, l.width.1);
    if w > 4 {
        return Err(Undecodable::SourceWidthCode {
            operand: name,
            code: w,
        });
    }
    let indirect = n.flag(l.indirect);
    let low = l.low.map_or(0, |b| n.get(b, b));
    // Xe2's vertical stride loses its top bit (`FV20`).
    let vstride_code = if xe2 {
        n.get(l.vstride.0 - 1, l.vstride.1)
    } else {
        n.get(l.vstride.0, l.vstride.1)
    };
    Ok(Src::Reg(RegSrc {
        file: file_bit(n.flag(l.file)),
        nr: if indirect {
            0
        } else {
            n.get(l.nr.0, l.nr.1) as u8
        },
        subreg: if indirect {
            0
        } else {
            subreg_bytes(n.get(l.subreg.0, l.subreg.1), low, xe2)
        },
        ty,
        region: Region {
            vstride: vstride(vstride_code, xe2)?,
            width: 1 << w,
            hstride: hstride(n.get(l.hstride.0, l.hstride.1)),
        },
        negate: n.flag(l.negate),
        abs: n.flag(l.abs),
        indirect: indirect.then(|| Indirect {
            a0_subreg: n.get(l.ia_subreg.0, l.ia_subreg.1) as u8,
            offset: addr_imm(n.get(l.ia_imm.0, l.ia_imm.1), low, xe2),
        }),
        swizzle: None,
    }))
}

/// Every Gen12 send is a split send: the descriptor and extended descriptor are scattered
/// over the instruction (`brw_eu_inst_send_desc`/`_send_ex_desc`, `brw_eu_inst.h:768-880`).
fn decode_send(n: Native, inst: &mut Inst, gen: Gen) {
    let payload = |file: RegFile, nr: u64| {
        Src::Reg(RegSrc {
            file,
            nr: nr as u8,
            subreg: 0,
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
        })
    };
    inst.dst = Some(Dst {
        file: file_bit(n.flag(50)),
        nr: n.get(63, 56) as u8,
        subreg: 0,
        hstride: 1,
        ty: Type::UD,
        indirect: None,
        writemask: 0xf,
    });
    inst.src[0] = Some(payload(file_bit(n.flag(66)), n.get(79, 72)));
    let desc = (!n.flag(48)).then(|| {
        ((n.get(123, 122) << 30)
            | (n.get(71, 67) << 25)
            | (n.get(55, 51) << 20)
            | (n.get(121, 113) << 11)
            | n.get(91, 81)) as u32
    });
    let ex_desc = (!n.flag(49)).then(|| {
        ((n.get(127, 124) << 28)
            | (n.get(97, 96) << 26)
            | (n.get(65, 64) << 24)
            | (n.get(47, 35) << 11)
            | (n.get(103, 99) << 6)) as u32
    });
    inst.send = Some(Send {
        sfid: n.get(95, 92) as u8,
        desc,
        ex_desc,
        ex_desc_a0_subreg: n.get(42, 40) as u8,
        eot: n.flag(34),
        src1: Some((file_bit(n.flag(98)), n.get(111, 104) as u8)),
        ex_bso: (gen.is_xehp() || gen.is_xe2()) && ex_desc.is_none() && n.flag(39),
        src1_len: n.get(103, 99) as u8,
    });
}

/// Align1 three-source instructions (`brw_eu_inst.h:492-540`, "12+" column): each source
/// has its own type (made a float by the execution-type bit 39), register file and region;
/// src0 and src2 may be 16-bit immediates.
fn decode_3src(n: Native, inst: &mut Inst, xe2: bool) -> Result<(), Undecodable> {
    let float = n.flag(39);
    let ty = |hi: u32, lo: u32, operand: &'static str| {
        let code = n.get(hi, lo) as u8;
        Type::from_3src_gen12(code, float).ok_or(Undecodable::ThreeSourceTypeCodeGen12 {
            operand,
            code,
            float,
        })
    };
    inst.dst = Some(Dst {
        file: file_bit(n.flag(50)),
        nr: n.get(63, 56) as u8,
        // In units of 8 bytes before Xe2 (`3src_a1_dst_subreg_nr`, 55:54); Xe2's reads
        // pairs of bytes from 55:51, like its two-source fields (Jay's `csel r2.5` is 10 at
        // 55:51, where bits 55:54 alone say `r2.2`; brw 26's listings agree).
        subreg: if xe2 {
            subreg_bytes(n.get(55, 51), 0, true)
        } else {
            (n.get(55, 54) * 8) as u8
        },
        hstride: if n.flag(48) { 2 } else { 1 },
        ty: ty(38, 36, "dst")?,
        indirect: None,
        writemask: 0xf,
    });
    // (is-imm bit or none, file bit, type, reg, subreg, vstride bits (hi, lo) or none,
    // hstride, negate, abs, immediate bits)
    type Layout = (
        Option<u32>,
        u32,
        (u32, u32),
        (u32, u32),
        (u32, u32),
        Option<(u32, u32)>,
        (u32, u32),
        u32,
        u32,
        (u32, u32),
    );
    let layouts: [Layout; 3] = [
        (
            Some(46),
            66,
            (42, 40),
            (79, 72),
            (71, 67),
            Some((43, 35)),
            (65, 64),
            45,
            44,
            (79, 64),
        ),
        (
            None,
            98,
            (90, 88),
            (111, 104),
            (103, 99),
            Some((91, 83)),
            (97, 96),
            87,
            86,
            (0, 0),
        ),
        (
            Some(47),
            114,
            (82, 80),
            (127, 120),
            (119, 115),
            None,
            (113, 112),
            85,
            84,
            (127, 112),
        ),
    ];
    for (i, (is_imm, file, t, nr, subreg, vs, hs, neg, abs, imm)) in layouts.into_iter().enumerate()
    {
        let what = ["src0", "src1", "src2"][i];
        let ty = ty(t.0, t.1, what)?;
        if is_imm.is_some_and(|b| n.flag(b)) {
            inst.src[i] = Some(Src::Imm {
                ty,
                bits: n.get(imm.0, imm.1),
            });
            continue;
        }
        let h = n.get(hs.0, hs.1);
        // Vertical stride codes 0, 1, 2, 3 mean 0, 1, 4, 8 on Gen12 (`vstride_from_align1_3src_vstride`);
        // src2 has none and takes its horizontal stride's value.
        let (v, v_log) = match vs {
            Some((hi, lo)) => match (n.get(hi, hi) << 1) | n.get(lo, lo) {
                0 => (0, 0),
                1 => (1, 1),
                2 => (4, 3),
                _ => (8, 4),
            },
            None => (hstride(h), h),
        };
        let width = implied_width(v, v_log, h).ok_or(Undecodable::NoImpliedWidth {
            operand: what,
            vstride: v,
            hstride_code: h,
        })?;
        inst.src[i] = Some(Src::Reg(RegSrc {
            file: file_bit(n.flag(file)),
            nr: n.get(nr.0, nr.1) as u8,
            subreg: subreg_bytes(n.get(subreg.0, subreg.1), 0, xe2),
            ty,
            region: Region {
                vstride: Some(v),
                width,
                hstride: hstride(h),
            },
            negate: n.flag(neg),
            abs: n.flag(abs),
            indirect: None,
            swizzle: None,
        }));
    }
    Ok(())
}

/// The width a three-source region implies ("GFX10 Regioning Rules for Align1 Ternary
/// Operations", `implied_width` in `brw_disasm.c`): 1 for a scalar, the vertical stride when
/// the horizontal one is 0, else their ratio (a difference of the log encodings). `v_log` is
/// the vertical stride's encoding (0, 1, 2, 4, 8 → 0, 1, 2, 3, 4), `h_code` the horizontal
/// stride's (0, 1, 2, 4 → 0, 1, 2, 3).
fn implied_width(v: u8, v_log: u64, h_code: u64) -> Option<u8> {
    if h_code == 0 {
        return Some(if v == 0 { 1 } else { v });
    }
    let w = v_log.checked_sub(h_code)?;
    (w <= 4).then(|| 1 << w)
}
