//! Word → [`Instr`]. One function per category; opcode tables are `(value, name, …)` rows so
//! that adding an encoding is adding a row. Bit positions are those of Mesa's ir3 isaspec XML.

use super::*;

/// Bits `lo..=hi` of `w`.
pub(super) fn bits(w: u64, lo: u32, hi: u32) -> u64 {
    (w >> lo) & ((1u64 << (hi - lo + 1)) - 1)
}

fn bit(w: u64, pos: u32) -> bool {
    (w >> pos) & 1 != 0
}

/// Sign-extends the low `width` bits.
fn sext(v: u64, width: u32) -> i64 {
    let s = 64 - width;
    ((v << s) as i64) >> s
}

/// Decodes one instruction word.
pub fn decode(gen: Gen, word: u64) -> Result<Instr, Undecodable> {
    let cat = bits(word, 61, 63) as u8;
    let mut flags = Flags {
        sy: bit(word, 60),
        jp: bit(word, 59),
        ..Flags::default()
    };
    let (name, body) = match cat {
        0 => cat0(gen, word, &mut flags)?,
        1 => cat1(word, &mut flags)?,
        2 => cat2(gen, word, &mut flags)?,
        3 => cat3(word, &mut flags)?,
        4 => cat4(word, &mut flags)?,
        5 => cat5(gen, word)?,
        6 => cat6(gen, word)?,
        _ => cat7(gen, word, &mut flags)?,
    };
    Ok(Instr {
        word,
        gen,
        cat,
        name,
        flags,
        body,
    })
}

/// Decodes a program; one result per word, so indices stay aligned with ir3's numbering.
pub fn decode_program(gen: Gen, words: &[u64]) -> Vec<Result<Instr, Undecodable>> {
    words.iter().map(|&w| decode(gen, w)).collect()
}

fn need_gen(gen: Gen, min7: bool, name: &'static str) -> Result<(), Undecodable> {
    if min7 && gen == Gen::A6xx {
        return Err(Undecodable::Gen { name, gen });
    }
    Ok(())
}

fn field_err(cat: u8, name: &'static str, what: &'static str, value: u64) -> Undecodable {
    Undecodable::Field {
        cat,
        name,
        what,
        value,
    }
}

// ---------------------------------------------------------------------------------------------
// cat0: flow control. Opcode = OPC_HI (bit 49) : OPC (bits 55..58); the branch family
// (OPC 1) is further split by BRTYPE (bits 37..39).

const CAT0: &[(u8, u8, &str, FlowForm)] = &[
    (0, 0, "nop", FlowForm::NoSrc),
    (0, 2, "jump", FlowForm::Target),
    (0, 3, "call", FlowForm::Target),
    (0, 4, "ret", FlowForm::NoSrc),
    (0, 5, "kill", FlowForm::Pred),
    (0, 6, "end", FlowForm::NoSrc),
    (0, 7, "emit", FlowForm::NoSrc),
    (0, 8, "cut", FlowForm::NoSrc),
    (0, 9, "chmask", FlowForm::NoSrc),
    (0, 10, "chsh", FlowForm::NoSrc),
    (0, 11, "flow_rev", FlowForm::NoSrc),
    (1, 0, "bkt", FlowForm::Target),
    (1, 4, "getlast", FlowForm::GetLast),
    (1, 5, "getone", FlowForm::Target),
    (1, 7, "shps", FlowForm::Target),
    (1, 8, "shpe", FlowForm::NoSrc),
    (1, 13, "predt", FlowForm::NoSrc),
    (1, 14, "predf", FlowForm::NoSrc),
    (1, 15, "prede", FlowForm::NoSrc),
];

const BRTYPES: &[(u8, &str, FlowForm)] = &[
    (0, "br", FlowForm::Branch1),
    (1, "brao", FlowForm::Branch2),
    (2, "braa", FlowForm::Branch2),
    (3, "brac", FlowForm::Brac),
    (4, "bany", FlowForm::Branch1),
    (5, "ball", FlowForm::Branch1),
    (6, "brax", FlowForm::Target),
];

fn cat0(_gen: Gen, w: u64, flags: &mut Flags) -> Result<(&'static str, Body), Undecodable> {
    flags.ss = bit(w, 44);
    flags.eq = bit(w, 48);
    let hi = bits(w, 49, 49) as u8;
    let opc = bits(w, 55, 58) as u8;
    let (name, form) = if hi == 0 && opc == 1 {
        let brtype = bits(w, 37, 39) as u8;
        let &(_, n, f) = BRTYPES
            .iter()
            .find(|r| r.0 == brtype)
            .ok_or(Undecodable::Opcode {
                cat: 0,
                what: "branch type (bits 37..39)",
                value: brtype as u64,
            })?;
        (n, f)
    } else {
        let &(_, _, n, f) =
            CAT0.iter()
                .find(|r| r.0 == hi && r.1 == opc)
                .ok_or(Undecodable::Opcode {
                    cat: 0,
                    what: "opcode (bit 49, bits 55..58)",
                    value: (hi as u64) << 4 | opc as u64,
                })?;
        (n, f)
    };
    let pred = |inv: u32, comp: u32| Pred {
        inv: bit(w, inv),
        comp: bits(w, comp, comp + 1) as u8,
    };
    let mut flow = Flow {
        form,
        offset: None,
        preds: vec![],
        index: 0,
    };
    match form {
        FlowForm::NoSrc => {
            flags.repeat = bits(w, 40, 42) as u8;
            flags.eolm = bit(w, 32);
            flags.eogm = bit(w, 33);
            // Everything else that ir3 requires to be zero for the no-source encodings.
            let rest = bits(w, 34, 39) | bits(w, 45, 47) | bits(w, 52, 54);
            if rest != 0 {
                return Err(field_err(
                    0,
                    name,
                    "source/branch bits (34..39, 45..47, 52..54)",
                    rest,
                ));
            }
        }
        FlowForm::Pred => flow.preds.push(pred(52, 53)),
        FlowForm::Target => {}
        FlowForm::GetLast => flow.index = 2 << bits(w, 52, 54),
        FlowForm::Brac => flow.index = bits(w, 32, 36) as u32,
        FlowForm::Branch1 => flow.preds.push(pred(52, 53)),
        FlowForm::Branch2 => {
            flow.preds.push(pred(52, 53));
            flow.preds.push(pred(45, 46));
        }
    }
    if !matches!(form, FlowForm::NoSrc | FlowForm::Pred) {
        flow.offset = Some(bits(w, 0, 31) as u32 as i32);
    }
    Ok((name, Body::Flow(flow)))
}

// ---------------------------------------------------------------------------------------------
// cat1: moves. OPC (bits 57..58): 0 mov family, 2 swz/gat/sct, 3 movmsk.

/// cat1 "half" differs from `#type-half`: it also counts type 7 (s8 in the XML comment).
fn cat1_half(t: u64) -> bool {
    matches!(t, 0 | 2 | 4 | 6 | 7)
}

fn cat1(w: u64, flags: &mut Flags) -> Result<(&'static str, Body), Undecodable> {
    flags.sat = bit(w, 42);
    flags.ss = bit(w, 44);
    flags.ul = bit(w, 45);
    let round = bits(w, 55, 56) as u8;
    let st = bits(w, 50, 52);
    let dt = bits(w, 46, 48);
    let src_type = Type::from_field(st);
    let dst_type = Type::from_field(dt);
    match bits(w, 57, 58) {
        0 => {
            flags.repeat = bits(w, 40, 41) as u8;
            let dst_field = bits(w, 32, 39);
            let dst = if bit(w, 49) {
                Dst::Rel(dst_field as u8)
            } else {
                Dst::Reg(Reg::from_field(dst_field))
            };
            let half = cat1_half(st);
            let r = bit(w, 43);
            let mut movs = None;
            let op = match bits(w, 53, 54) {
                2 => {
                    let (value, fmt) = match st {
                        0 => (bits(w, 0, 15) as i64, ImmFmt::F16),
                        1 => (bits(w, 0, 31) as i64, ImmFmt::F32),
                        3 if bits(w, 0, 31) > 0x1000 => (bits(w, 0, 31) as i64, ImmFmt::Hex),
                        4 => (sext(bits(w, 0, 15), 16), ImmFmt::Dec),
                        5 => (sext(bits(w, 0, 31), 32), ImmFmt::Dec),
                        _ => (bits(w, 0, 31) as i64, ImmFmt::Dec),
                    };
                    Operand::Imm {
                        value,
                        fmt,
                        half: st == 0,
                    }
                }
                1 => {
                    if bits(w, 11, 31) != 0 {
                        return Err(field_err(
                            1,
                            "mov",
                            "const src high bits (11..31)",
                            bits(w, 11, 31),
                        ));
                    }
                    Operand::Const {
                        index: bits(w, 0, 10) as u16,
                        half,
                    }
                }
                0 if bit(w, 11) => {
                    if bits(w, 12, 31) != 0 {
                        return Err(field_err(
                            1,
                            "mov",
                            "relative src high bits (12..31)",
                            bits(w, 12, 31),
                        ));
                    }
                    let offset = sext(bits(w, 0, 9), 10) as i32;
                    if bit(w, 10) {
                        Operand::RelConst { offset, half }
                    } else {
                        Operand::RelGpr { offset, half }
                    }
                }
                0 => {
                    if bits(w, 8, 9) != 0 {
                        return Err(field_err(1, "mov", "gpr src bits 8..9", bits(w, 8, 9)));
                    }
                    if bit(w, 31) {
                        // movs (subgroup broadcast): invocation in bits 23..29, or a0.x (bit 30).
                        if bits(w, 11, 22) != 0 {
                            return Err(field_err(1, "movs", "bits 11..22", bits(w, 11, 22)));
                        }
                        movs = Some(if bit(w, 30) {
                            None
                        } else {
                            Some(bits(w, 23, 29) as u8)
                        });
                    } else if bits(w, 11, 31) != 0 {
                        return Err(field_err(
                            1,
                            "mov",
                            "gpr src high bits (11..31)",
                            bits(w, 11, 31),
                        ));
                    }
                    Operand::Reg {
                        reg: Reg::from_field(bits(w, 0, 7)),
                        half,
                    }
                }
                v => return Err(field_err(1, "mov", "src kind (bits 53..54)", v)),
            };
            let last = bits(w, 53, 54) == 0 && !bit(w, 11) && bit(w, 10);
            let src = Src {
                op,
                neg: false,
                abs: false,
                last,
                r,
            };
            let (form, name) = if let Some(inv) = movs {
                (MovForm::Movs(inv), "movs")
            } else if dst_field == 0xf4 && !bit(w, 49) && st == 4 && dt == 4 {
                (MovForm::Mova, "mova")
            } else if dst_field == 0xf5 && !bit(w, 49) && st == 2 && dt == 2 {
                (MovForm::Mova1, "mova1")
            } else if st != dt {
                (MovForm::Cov, "cov")
            } else {
                (MovForm::Mov, "mov")
            };
            Ok((
                name,
                Body::Mov(Mov {
                    form,
                    src_type,
                    dst_type,
                    dst,
                    src,
                    round,
                }),
            ))
        }
        2 => {
            if bit(w, 43) || bit(w, 49) || bits(w, 53, 54) != 0 {
                return Err(field_err(
                    1,
                    "swz/gat/sct",
                    "src_r/dst_rel/src kind bits",
                    bits(w, 43, 54),
                ));
            }
            let r = |lo| Reg::from_field(bits(w, lo, lo + 7));
            let (name, dsts, srcs) = match bits(w, 40, 41) {
                0 => ("swz", vec![r(32), r(16)], vec![r(0), r(8)]),
                1 => ("gat", vec![r(32)], vec![r(0), r(8), r(16), r(24)]),
                2 => ("sct", vec![r(32), r(8), r(16), r(24)], vec![r(0)]),
                v => {
                    return Err(Undecodable::Opcode {
                        cat: 1,
                        what: "multi-mov sub-opcode (bits 40..41)",
                        value: v,
                    })
                }
            };
            Ok((
                name,
                Body::MovMulti(MovMulti {
                    src_type,
                    dst_type,
                    dsts,
                    srcs,
                    round,
                }),
            ))
        }
        3 => {
            flags.repeat = bits(w, 40, 41) as u8;
            let dst_field = bits(w, 32, 39);
            let dst = if bit(w, 49) {
                Dst::Rel(dst_field as u8)
            } else {
                Dst::Reg(Reg::from_field(dst_field))
            };
            Ok(("movmsk", Body::Movmsk(dst)))
        }
        v => Err(Undecodable::Opcode {
            cat: 1,
            what: "opcode (bits 57..58)",
            value: v,
        }),
    }
}

// ---------------------------------------------------------------------------------------------
// cat2/cat4 sources: the 16-bit `#multisrc`.

fn multisrc(v: u64, full: bool, r: bool, name: &'static str, cat: u8) -> Result<Src, Undecodable> {
    let half = !full;
    let neg = bit(v, 14);
    let abs = bit(v, 15);
    let mut last = false;
    let op = match bits(v, 11, 13) {
        0b000 => {
            if bits(v, 8, 9) != 0 {
                return Err(field_err(cat, name, "gpr src bits 8..9", bits(v, 8, 9)));
            }
            last = bit(v, 10);
            Operand::Reg {
                reg: Reg::from_field(bits(v, 0, 7)),
                half,
            }
        }
        0b010 | 0b110 => Operand::Const {
            index: bits(v, 0, 10) as u16,
            half,
        },
        0b100 => Operand::Imm {
            value: sext(bits(v, 0, 10), 11),
            fmt: ImmFmt::Dec,
            half,
        },
        0b101 => {
            let idx = bits(v, 0, 9);
            if idx > 11 {
                return Err(field_err(cat, name, "float lookup-table immediate", idx));
            }
            // Bit 10 selects the half table; it is part of the 10-bit index field too, so
            // the index proper is bits 0..9 with bit 10 clear for the full table.
            let half = bit(v, 10);
            Operand::Imm {
                value: bits(v, 0, 9) as i64,
                fmt: ImmFmt::Flut,
                half,
            }
        }
        0b001 => {
            let offset = sext(bits(v, 0, 9), 10) as i32;
            if bit(v, 10) {
                Operand::RelConst { offset, half }
            } else {
                Operand::RelGpr { offset, half }
            }
        }
        k => return Err(field_err(cat, name, "src kind (src bits 11..13)", k)),
    };
    Ok(Src {
        op,
        neg,
        abs,
        last,
        r,
    })
}

/// `#dest-half`: half iff FULL == DST_CONV, except for p0.x and beyond.
fn dest_half(full: bool, dst_conv: bool, dst: u64) -> bool {
    full == dst_conv && dst <= 0xf7
}

/// cat2 opcodes (bits 53..58): (opc, name, number of sources, has condition).
const CAT2: &[(u8, &str, u8, bool)] = &[
    (0, "add.f", 2, false),
    (1, "min.f", 2, false),
    (2, "max.f", 2, false),
    (3, "mul.f", 2, false),
    (4, "sign.f", 1, false),
    (5, "cmps.f", 2, true),
    (6, "absneg.f", 1, false),
    (7, "cmpv.f", 2, true),
    (9, "floor.f", 1, false),
    (10, "ceil.f", 1, false),
    (11, "rndne.f", 1, false),
    (12, "rndaz.f", 1, false),
    (13, "trunc.f", 1, false),
    (16, "add.u", 2, false),
    (17, "add.s", 2, false),
    (18, "sub.u", 2, false),
    (19, "sub.s", 2, false),
    (20, "cmps.u", 2, true),
    (21, "cmps.s", 2, true),
    (22, "min.u", 2, false),
    (23, "min.s", 2, false),
    (24, "max.u", 2, false),
    (25, "max.s", 2, false),
    (26, "absneg.s", 1, false),
    (28, "and.b", 2, false),
    (29, "or.b", 2, false),
    (30, "not.b", 1, false),
    (31, "xor.b", 2, false),
    (33, "cmpv.u", 2, true),
    (34, "cmpv.s", 2, true),
    (48, "mul.u24", 2, false),
    (49, "mul.s24", 2, false),
    (50, "mull.u", 2, false),
    (51, "bfrev.b", 1, false),
    (52, "clz.s", 1, false),
    (53, "clz.b", 1, false),
    (54, "shl.b", 2, false),
    (55, "shr.b", 2, false),
    (56, "ashr.b", 2, false),
    (58, "mgen.b", 2, false),
    (59, "getbit.b", 2, false),
    (60, "setrm", 1, false),
    (61, "cbits.b", 1, false),
    (62, "shb", 2, false),
    (63, "msad", 2, false),
];

/// `(nopN)` encoding shared by cat2/cat3: the `(r)` bits mean delay slots when not repeating.
fn nop_encoding(flags: &mut Flags, r1: bool, r2: bool) -> bool {
    if (r1 || r2) && flags.repeat == 0 {
        flags.nop = r1 as u8 | (r2 as u8) << 1;
        true
    } else {
        false
    }
}

fn cat2(gen: Gen, w: u64, flags: &mut Flags) -> Result<(&'static str, Body), Undecodable> {
    flags.repeat = bits(w, 40, 41) as u8;
    flags.sat = bit(w, 42);
    flags.ss = bit(w, 44);
    flags.ul = bit(w, 45);
    let opc = bits(w, 53, 58) as u8;
    let full = bit(w, 52);
    let (name, nsrc, has_cond) = if opc == 57 {
        // bary.f / flat.b: condition bits 48..49 unused, bit 50 selects.
        let _ = gen; // flat.b is gen >= 600, i.e. every generation decoded here.
        if bit(w, 50) {
            ("flat.b", 2, false)
        } else {
            ("bary.f", 2, false)
        }
    } else {
        let &(_, n, s, c) = CAT2
            .iter()
            .find(|r| r.0 == opc)
            .ok_or(Undecodable::Opcode {
                cat: 2,
                what: "opcode (bits 53..58)",
                value: opc as u64,
            })?;
        (n, s, c)
    };
    let (r1, r2) = (bit(w, 43), bit(w, 51));
    let nop = nop_encoding(flags, r1, r2);
    let cond = if has_cond {
        let c = bits(w, 48, 50);
        Some(*CmpCond::ALL.get(c as usize).ok_or(field_err(
            2,
            name,
            "condition (bits 48..50)",
            c,
        ))?)
    } else {
        None
    };
    let mut srcs = vec![multisrc(bits(w, 0, 15), full, r1 && !nop, name, 2)?];
    if nsrc == 2 {
        srcs.push(multisrc(bits(w, 16, 31), full, r2 && !nop, name, 2)?);
    }
    let dst = bits(w, 32, 39);
    // On a7xx a cat2 destination of register 61 (a0 elsewhere) is the uniform predicate:
    // 26.2.6 prints `cmps.u.ge up0.x, …`, `and.b up0.x, …`, `or.b hup0.w, …` (measured on
    // a740/a750; not in 25.0.7's XML).
    let dst_reg = match Reg::from_field(dst) {
        Reg::A0 { comp } if gen == Gen::A7xx => Reg::Up0 { comp },
        r => r,
    };
    Ok((
        name,
        Body::Alu(Alu {
            dst: dst_reg,
            dst_half: dest_half(full, bit(w, 46), dst),
            srcs,
            cond,
            ei: bit(w, 47),
            full,
            dp: None,
        }),
    ))
}

// ---------------------------------------------------------------------------------------------
// cat3: three sources. Bit 13 selects the "alt" encodings (immediates, shifts, dot products).

/// Normal cat3 (bit 13 = 0), bits 55..58: (name, full-precision sources).
const CAT3: [(&str, bool); 16] = [
    ("mad.u16", false),
    ("madsh.u16", true),
    ("mad.s16", false),
    ("madsh.m16", true),
    ("mad.u24", true),
    ("mad.s24", true),
    ("mad.f16", false),
    ("mad.f32", true),
    ("sel.b16", false),
    ("sel.b32", true),
    ("sel.s16", false),
    ("sel.s32", true),
    ("sel.f16", false),
    ("sel.f32", true),
    ("sad.s16", false),
    ("sad.s32", true),
];

/// `#cat3-src` (13 bits). `immed`: the alt encodings show the const form as an immediate.
fn cat3_src(v: u64, half: bool, immed: bool, name: &'static str) -> Result<Src, Undecodable> {
    let mut last = false;
    let op = match (bit(v, 12), bit(v, 11)) {
        (false, false) => {
            if bits(v, 8, 9) != 0 {
                return Err(field_err(3, name, "gpr src bits 8..9", bits(v, 8, 9)));
            }
            last = bit(v, 10);
            Operand::Reg {
                reg: Reg::from_field(bits(v, 0, 7)),
                half,
            }
        }
        (true, false) if immed => Operand::Imm {
            value: bits(v, 0, 11) as i64,
            fmt: ImmFmt::Dec,
            half: false,
        },
        (true, false) => Operand::Const {
            index: bits(v, 0, 10) as u16,
            half,
        },
        (false, true) => {
            let offset = sext(bits(v, 0, 9), 10) as i32;
            if bit(v, 10) {
                Operand::RelConst { offset, half }
            } else {
                Operand::RelGpr { offset, half }
            }
        }
        (true, true) => return Err(field_err(3, name, "src kind (src bits 11..12)", 3)),
    };
    Ok(Src {
        op,
        neg: false,
        abs: false,
        last,
        r: false,
    })
}

fn cat3(w: u64, flags: &mut Flags) -> Result<(&'static str, Body), Undecodable> {
    flags.repeat = bits(w, 40, 41) as u8;
    flags.ss = bit(w, 44);
    flags.ul = bit(w, 45);
    let opc = bits(w, 55, 58) as usize;
    let alt = bit(w, 13);
    let (r1, r2, r3) = (bit(w, 43), bit(w, 15), bit(w, 29));
    let dst = bits(w, 32, 39);
    let dst_conv = bit(w, 46);
    let (name, full, immed, dp) = if !alt {
        let (n, f) = CAT3[opc];
        flags.sat = bit(w, 42);
        (n, f, false, None)
    } else {
        match opc {
            8..=12 => (
                ["shrm", "shlm", "shrg", "shlg", "andg"][opc - 8],
                bit(w, 42),
                true,
                None,
            ),
            13 => {
                flags.sat = bit(w, 42);
                let n = if dst_conv { "dp4acc" } else { "dp2acc" };
                (n, true, false, Some((bit(w, 14), bit(w, 30))))
            }
            14 => (
                if bit(w, 42) { "wmm.accu" } else { "wmm" },
                bit(w, 31),
                true,
                None,
            ),
            _ => {
                return Err(Undecodable::Opcode {
                    cat: 3,
                    what: "alt opcode (bit 13 set, bits 55..58)",
                    value: opc as u64,
                })
            }
        }
    };
    let is_wmm = name.starts_with("wmm");
    let half = !full;
    let nop = nop_encoding(flags, r1, r2) || dp.is_some();
    if dp.is_some() {
        flags.nop = r1 as u8 | (r2 as u8) << 1;
    }
    let mut s1 = cat3_src(bits(w, 0, 12), half, immed && !is_wmm, name)?;
    let mut s2 = Src::plain(Operand::Reg {
        reg: Reg::from_field(bits(w, 47, 54)),
        half,
    });
    let mut s3 = cat3_src(bits(w, 16, 28), half, immed, name)?;
    if dp.is_none() {
        s1.neg = bit(w, 14);
        s2.neg = bit(w, 30);
    }
    s3.neg = bit(w, 31) && !is_wmm;
    if !nop {
        s1.r = r1;
        s2.r = r2;
        s3.r = r3;
    }
    let dst_half = if is_wmm {
        !dst_conv
    } else if dp.is_some() {
        false
    } else {
        dest_half(full, dst_conv, dst)
    };
    Ok((
        name,
        Body::Alu(Alu {
            dst: Reg::from_field(dst),
            dst_half,
            srcs: vec![s1, s2, s3],
            cond: None,
            ei: false,
            full,
            dp,
        }),
    ))
}

// ---------------------------------------------------------------------------------------------
// cat4: SFU, bits 53..58.

const CAT4: &[(u8, &str)] = &[
    (0, "rcp"),
    (1, "rsq"),
    (2, "log2"),
    (3, "exp2"),
    (4, "sin"),
    (5, "cos"),
    (6, "sqrt"),
    (9, "hrsq"),
    (10, "hlog2"),
    (11, "hexp2"),
];

fn cat4(w: u64, flags: &mut Flags) -> Result<(&'static str, Body), Undecodable> {
    flags.repeat = bits(w, 40, 41) as u8;
    flags.sat = bit(w, 42);
    flags.ss = bit(w, 44);
    flags.ul = bit(w, 45);
    let opc = bits(w, 53, 58) as u8;
    let &(_, name) = CAT4
        .iter()
        .find(|r| r.0 == opc)
        .ok_or(Undecodable::Opcode {
            cat: 4,
            what: "opcode (bits 53..58)",
            value: opc as u64,
        })?;
    let full = bit(w, 52);
    let dst = bits(w, 32, 39);
    Ok((
        name,
        Body::Alu(Alu {
            dst: Reg::from_field(dst),
            dst_half: dest_half(full, bit(w, 46), dst),
            srcs: vec![multisrc(bits(w, 0, 15), full, bit(w, 43), name, 4)?],
            cond: None,
            ei: false,
            full,
            dp: None,
        }),
    ))
}

// ---------------------------------------------------------------------------------------------
// cat5: texture. Opcode bits 54..58: (name, #srcs, has sampler, has texture, has type).

const CAT5: &[(u8, &str, u8, bool, bool, bool)] = &[
    (0, "isam", 1, true, true, true),
    (1, "isaml", 2, true, true, true),
    (2, "isamm", 1, true, true, true),
    (3, "sam", 1, true, true, true),
    (4, "samb", 2, true, true, true),
    (5, "saml", 2, true, true, true),
    (6, "samgq", 1, true, true, true),
    (7, "getlod", 1, true, true, true),
    (8, "conv", 2, true, true, true),
    (9, "convm", 2, true, true, true),
    (10, "getsize", 1, false, true, true),
    (11, "getbuf", 0, false, true, true),
    (12, "getpos", 1, false, true, true),
    (13, "getinfo", 0, false, true, true),
    (14, "dsx", 1, false, false, true),
    (15, "dsy", 1, false, false, true),
    (16, "gather4r", 1, true, true, true),
    (17, "gather4g", 1, true, true, true),
    (18, "gather4b", 1, true, true, true),
    (19, "gather4a", 1, true, true, true),
    (20, "samgp0", 1, true, true, true),
    (21, "samgp1", 1, true, true, true),
    (22, "samgp2", 1, true, true, true),
    (23, "samgp3", 1, true, true, true),
    (24, "dsxpp.1", 1, false, false, false),
    (25, "dsypp.1", 1, false, false, false),
    (26, "rgetpos", 1, false, false, true),
    (27, "rgetinfo", 0, false, false, true),
];

fn cat5(gen: Gen, w: u64) -> Result<(&'static str, Body), Undecodable> {
    let opc = bits(w, 54, 58) as u8;
    let ty_field = Type::from_field(bits(w, 44, 46));
    let src_half = !bit(w, 0);
    let mut tex = Tex {
        dst: Reg::from_field(bits(w, 32, 39)),
        dst_half: ty_field.is_half(),
        wrmask: bits(w, 40, 43) as u8,
        ty: Some(ty_field),
        src_half,
        src1: None,
        src2: TexSrc2::None,
        samp: None,
        tex: None,
        indirect: None,
        is_3d: bit(w, 48),
        array: bit(w, 49),
        offset: bit(w, 52),
        p: false,
        sv: false,
        one_d: false,
        cluster: 0,
    };
    if opc == 28 {
        return Ok(("tcinv", Body::Tex(tex)));
    }
    if opc == 31 {
        // brcst.active / quad_shuffle.* (bit 53), variant in bits 19..20.
        if bit(w, 18) || bit(w, 50) {
            return Err(field_err(
                5,
                "brcst/quad_shuffle",
                "bits 18/50",
                bits(w, 18, 50),
            ));
        }
        let v = bits(w, 19, 20);
        tex.src1 = Some(Reg::from_field(bits(w, 1, 8)));
        let name = if !bit(w, 53) {
            tex.cluster = 2 << v;
            "brcst.active"
        } else {
            let n = [
                "quad_shuffle.brcst",
                "quad_shuffle.horiz",
                "quad_shuffle.vert",
                "quad_shuffle.diag",
            ][v as usize];
            if v == 0 || tex.offset {
                tex.src2 = TexSrc2::Reg(Reg::from_field(bits(w, 9, 16)));
            }
            n
        };
        return Ok((name, Body::Tex(tex)));
    }
    let &(_, name, nsrc, has_samp, has_tex, has_type) =
        CAT5.iter()
            .find(|r| r.0 == opc)
            .ok_or(Undecodable::Opcode {
                cat: 5,
                what: "opcode (bits 54..58)",
                value: opc as u64,
            })?;
    if !has_type {
        tex.ty = None;
    }
    let isam = opc == 0;
    tex.sv = bit(w, 50);
    let imm_offset = if isam {
        tex.one_d = !bit(w, 18);
        bit(w, 53)
    } else {
        if bit(w, 18) {
            return Err(field_err(5, name, "bit 18", 1));
        }
        tex.p = bit(w, 53);
        false
    };
    if nsrc > 0 {
        tex.src1 = Some(Reg::from_field(bits(w, 1, 8)));
    }
    let s2 = bits(w, 9, 16);
    tex.src2 = if tex.offset || nsrc > 1 {
        TexSrc2::Reg(Reg::from_field(s2))
    } else if imm_offset {
        TexSrc2::ImmOffset(s2 as u8)
    } else {
        TexSrc2::None
    };
    if bit(w, 51) {
        // s2en / bindless.
        let mode = bits(w, 29, 31) as u8;
        let bindless = matches!(mode, 1 | 2 | 3 | 5 | 6 | 7);
        let a1 = matches!(mode, 1 | 3 | 7);
        let src3 = bits(w, 21, 28);
        let mut ind = TexIndirect {
            desc_mode: mode,
            base: ((bits(w, 19, 20) << 1) | bits(w, 47, 47)) as u8,
            bindless,
            src3: None,
            a1,
        };
        if mode < 6 {
            ind.src3 = Some(Reg::from_field(src3));
        } else if a1 && gen == Gen::A6xx {
            // a1.x holds the texture; all 8 bits are the sampler.
            tex.samp = has_samp.then_some(src3 as u8);
        } else if a1 {
            // a7xx: a1.x holds the sampler; all 8 bits are the texture.
            tex.tex = has_tex.then_some(src3 as u8);
        } else {
            tex.samp = has_samp.then_some(bits(w, 21, 24) as u8);
            tex.tex = has_tex.then_some(bits(w, 25, 28) as u8);
        }
        tex.indirect = Some(ind);
    } else {
        if bits(w, 19, 20) != 0 || bit(w, 47) {
            return Err(field_err(
                5,
                name,
                "base bits (19..20, 47) without s2en/bindless",
                bits(w, 19, 20),
            ));
        }
        tex.samp = has_samp.then_some(bits(w, 21, 24) as u8);
        tex.tex = has_tex.then_some(bits(w, 25, 31) as u8);
    }
    Ok((name, Body::Tex(tex)))
}

// ---------------------------------------------------------------------------------------------
// cat6: memory. Two encoding families: the a3xx-style one selected by OPC (bits 54..58), and
// the a6xx one (bit 53 set, bit 40 clear) selected by a sub-opcode in bits 14..19.

fn mem(form: MemForm, ty: Type) -> Mem {
    Mem {
        form,
        ty,
        dst: None,
        srcs: vec![],
        off: 0,
        size: 0,
        shift: 0,
        typed: false,
        dim: 0,
        type_size: 0,
        mode: 0,
        base: None,
        flag: false,
        sub: 0,
    }
}

fn gpr(w: u64, lo: u32) -> Operand {
    Operand::Reg {
        reg: Reg::from_field(bits(w, lo, lo + 7)),
        half: false,
    }
}

/// `#cat6-src`: an 8-bit immediate or a GPR.
fn cat6_src(w: u64, lo: u32, imm: bool) -> Operand {
    if imm {
        Operand::Imm {
            value: bits(w, lo, lo + 7) as i64,
            fmt: ImmFmt::Dec,
            half: false,
        }
    } else {
        gpr(w, lo)
    }
}

/// `#cat6-src-const-or-gpr`.
fn cat6_src_cg(w: u64, lo: u32, konst: bool) -> Operand {
    if konst {
        Operand::Const {
            index: bits(w, lo, lo + 7) as u16,
            half: false,
        }
    } else {
        gpr(w, lo)
    }
}

/// a6xx sub-opcodes (bits 14..19): name and form.
const CAT6_A6XX: &[(u8, &str, MemForm)] = &[
    (30, "ldc", MemForm::Ldc),
    (36, "getspid", MemForm::GetId),
    (37, "getwid", MemForm::GetId),
    (38, "getfiberid", MemForm::GetId),
    (15, "resinfo.b", MemForm::Res1Src),
    (12, "resbase", MemForm::Res1Src),
    (29, "stib.b", MemForm::IboLdSt),
    (6, "ldib.b", MemForm::IboLdSt),
    (16, "atomic.b.add", MemForm::IboAtomic),
    (17, "atomic.b.sub", MemForm::IboAtomic),
    (18, "atomic.b.xchg", MemForm::IboAtomic),
    (21, "atomic.b.cmpxchg", MemForm::IboAtomic),
    (22, "atomic.b.min", MemForm::IboAtomic),
    (23, "atomic.b.max", MemForm::IboAtomic),
    (24, "atomic.b.and", MemForm::IboAtomic),
    (25, "atomic.b.or", MemForm::IboAtomic),
    (26, "atomic.b.xor", MemForm::IboAtomic),
];

/// Does the word fit one of the a6xx encodings (bit patterns checked here, fields later)?
fn a6xx_form(w: u64) -> Option<(&'static str, MemForm)> {
    if !bit(w, 53) || bit(w, 40) {
        return None;
    }
    let sub = bits(w, 14, 19) as u8;
    let &(_, name, form) = CAT6_A6XX.iter().find(|r| r.0 == sub)?;
    let b52 = bit(w, 52);
    let lo_zero = bits(w, 54, 58) == 0 && bits(w, 4, 5) == 0;
    let ok = match form {
        MemForm::Ldc => bit(w, 22) && lo_zero && bits(w, 49, 50) == 3,
        MemForm::GetId => bit(w, 22) && !bit(w, 0) && lo_zero && (sub != 38 || bit(w, 23)),
        MemForm::Res1Src => bits(w, 20, 23) == 0b0110 && !bit(w, 0) && lo_zero,
        MemForm::IboLdSt => bits(w, 20, 22) == 0b110 && !b52 && (sub != 29 || !bit(w, 0)),
        MemForm::IboAtomic => bits(w, 20, 22) == 0b110 && b52 && !bit(w, 23) && lo_zero,
        _ => false,
    };
    ok.then_some((name, form))
}

fn ibo_common(m: &mut Mem, w: u64) {
    m.dim = bits(w, 9, 10) as u8 + 1;
    m.typed = bit(w, 11);
    m.type_size = bits(w, 12, 13) as u8 + 1;
    m.mode = bits(w, 6, 7) as u8;
    m.base = bit(w, 8).then_some(bits(w, 1, 3) as u8);
}

fn cat6(gen: Gen, w: u64) -> Result<(&'static str, Body), Undecodable> {
    let ty = Type::from_field(bits(w, 49, 51));
    if let Some((name, form)) = a6xx_form(w) {
        let mut m = mem(form, ty);
        ibo_common(&mut m, w);
        if m.mode == 3 {
            return Err(field_err(6, name, "descriptor mode (bits 6..7)", 3));
        }
        let direct = m.mode == 0;
        let name = match form {
            MemForm::Ldc => {
                let s1 = cat6_src(w, 24, bit(w, 23));
                let s2 = cat6_src(w, 41, direct);
                m.srcs = vec![s1, s2];
                if bit(w, 52) {
                    m.form = MemForm::LdcK;
                    m.size = bits(w, 32, 39) as u32 + 1;
                    "ldc.k"
                } else {
                    m.flag = bit(w, 11);
                    m.off = bits(w, 9, 10) as i32;
                    m.dst = Some(gpr(w, 32));
                    "ldc"
                }
            }
            MemForm::GetId => {
                m.dst = Some(gpr(w, 32));
                name
            }
            MemForm::Res1Src => {
                m.dst = Some(gpr(w, 32));
                m.srcs = vec![cat6_src(w, 41, direct)];
                name
            }
            MemForm::IboLdSt => {
                let off = (bits(w, 4, 5) << 5 | bits(w, 54, 58)) as i32;
                if !bit(w, 23) && off != 0 {
                    return Err(field_err(
                        6,
                        name,
                        "offset bits without HAS_OFFSET",
                        off as u64,
                    ));
                }
                m.off = off;
                m.srcs = vec![
                    Operand::Reg {
                        reg: Reg::from_field(bits(w, 32, 39)),
                        half: ty.is_half(),
                    },
                    gpr(w, 24),
                    cat6_src(w, 41, direct),
                ];
                name
            }
            _ => {
                m.ty = Type::from_atomic_field(bits(w, 49, 51));
                m.srcs = vec![gpr(w, 32), gpr(w, 24), cat6_src(w, 41, direct)];
                name
            }
        };
        return Ok((name, Body::Mem(m)));
    }
    let opc = bits(w, 54, 58) as u8;
    let a7 = gen == Gen::A7xx;
    let (name, m) = match opc {
        0 if bit(w, 52) => {
            if bit(w, 53) || bit(w, 22) || !bit(w, 0) {
                return Err(field_err(6, "ldg.k", "bits 0/22/53", bits(w, 52, 53)));
            }
            let mut m = mem(MemForm::LdgK, ty);
            m.off = sext(bits(w, 1, 13), 13) as i32;
            m.srcs = vec![gpr(w, 14)];
            m.size = bits(w, 23, 26) as u32;
            m.flag = bit(w, 40);
            m.dst = Some(Operand::Imm {
                value: bits(w, 32, 39) as i64,
                fmt: ImmFmt::Dec,
                half: false,
            });
            ("ldg.k", m)
        }
        0 => {
            if bit(w, 53) || !bit(w, 0) || !bit(w, 23) {
                return Err(field_err(6, "ldg", "bits 0/23/53", w >> 53 & 1));
            }
            let mut m = mem(MemForm::Ldg, ty);
            m.dst = Some(Operand::Reg {
                reg: Reg::from_field(bits(w, 32, 39)),
                half: ty.is_half(),
            });
            m.size = bits(w, 24, 26) as u32;
            if !bit(w, 22) {
                m.off = sext(bits(w, 1, 13), 13) as i32;
                m.srcs = vec![gpr(w, 14)];
                ("ldg", m)
            } else {
                m.form = MemForm::LdgA;
                if a7 {
                    m.srcs = vec![cat6_src_cg(w, 14, bit(w, 13)), gpr(w, 1)];
                    m.off = bits(w, 41, 48) as i32;
                } else {
                    m.srcs = vec![gpr(w, 14), gpr(w, 1)];
                    m.off = bits(w, 9, 10) as i32;
                    m.shift = bits(w, 12, 13) as u8;
                }
                ("ldg.a", m)
            }
        }
        3 => {
            if bit(w, 53) || !bit(w, 23) {
                return Err(field_err(6, "stg", "bits 23/53", bits(w, 53, 53)));
            }
            let mut m = mem(MemForm::Stg, ty);
            m.size = bits(w, 24, 26) as u32;
            let value = Operand::Reg {
                reg: Reg::from_field(bits(w, 1, 8)),
                half: ty.is_half(),
            };
            if !bit(w, 52) {
                m.off = sext(bits(w, 9, 13) << 8 | bits(w, 32, 39), 13) as i32;
                m.srcs = vec![gpr(w, 41), value];
                ("stg", m)
            } else {
                m.form = MemForm::StgA;
                if a7 {
                    m.srcs = vec![cat6_src_cg(w, 41, bit(w, 13)), gpr(w, 32), value];
                    m.off = bits(w, 14, 21) as i32;
                } else {
                    m.srcs = vec![gpr(w, 41), gpr(w, 32), value];
                    m.off = bits(w, 9, 10) as i32;
                    m.shift = bits(w, 12, 13) as u8;
                }
                ("stg.a", m)
            }
        }
        1 | 2 | 10 => {
            if !bit(w, 0) || !bit(w, 23) {
                return Err(field_err(6, "ldl/ldp", "bits 0/23", bits(w, 23, 23)));
            }
            let (name, form) = match opc {
                1 => ("ldl", MemForm::Ldl),
                2 => ("ldp", MemForm::Ldp),
                _ => ("ldlw", MemForm::Ldl),
            };
            let mut m = mem(form, ty);
            m.off = sext(bits(w, 1, 13), 13) as i32;
            m.srcs = vec![gpr(w, 14)];
            m.size = bits(w, 24, 31) as u32;
            let half = form == MemForm::Ldp && ty.is_half();
            m.dst = Some(Operand::Reg {
                reg: Reg::from_field(bits(w, 32, 39)),
                half,
            });
            (name, m)
        }
        31 => {
            let mut m = mem(MemForm::Ldlv, ty);
            m.off = bits(w, 1, 13) as i32;
            m.size = bits(w, 24, 31) as u32;
            m.dst = Some(gpr(w, 32));
            ("ldlv", m)
        }
        4 | 5 | 11 => {
            if !bit(w, 23) || !bit(w, 40) || (opc == 5 && bit(w, 0)) {
                return Err(field_err(6, "stl/stp", "bits 0/23/40", bits(w, 40, 40)));
            }
            let (name, form) = match opc {
                4 => ("stl", MemForm::Stl),
                5 => ("stp", MemForm::Stp),
                _ => ("stlw", MemForm::Stl),
            };
            let mut m = mem(form, ty);
            m.off = sext(bits(w, 9, 13) << 8 | bits(w, 32, 39), 13) as i32;
            m.dst = Some(gpr(w, 41));
            m.srcs = vec![gpr(w, 1)];
            m.size = bits(w, 24, 31) as u32;
            (name, m)
        }
        28 => {
            if bits(w, 14, 22) != 0 || !bit(w, 23) {
                return Err(field_err(6, "stc", "bits 14..23", bits(w, 14, 23)));
            }
            let mut m = mem(MemForm::Stc, ty);
            m.srcs = vec![gpr(w, 1)];
            m.size = bits(w, 24, 26) as u32;
            m.flag = bit(w, 40);
            m.dst = Some(Operand::Imm {
                value: bits(w, 32, 39) as i64,
                fmt: ImmFmt::Dec,
                half: false,
            });
            ("stc", m)
        }
        29 => {
            need_gen(gen, true, "stsc")?;
            let mut m = mem(MemForm::Stsc, ty);
            m.srcs = vec![cat6_src(w, 1, true)];
            m.size = bits(w, 24, 31) as u32;
            m.dst = Some(Operand::Imm {
                value: (bits(w, 9, 13) << 8 | bits(w, 32, 39)) as i64,
                fmt: ImmFmt::Dec,
                half: false,
            });
            ("stsc", m)
        }
        15 => {
            if bits(w, 14, 23) != 0 || bit(w, 40) {
                return Err(field_err(6, "resinfo", "bits 14..23/40", bits(w, 14, 23)));
            }
            let mut m = mem(MemForm::Resinfo, ty);
            m.dim = bits(w, 9, 10) as u8 + 1;
            m.dst = Some(gpr(w, 32));
            m.srcs = vec![cat6_src(w, 41, bit(w, 53))];
            ("resinfo", m)
        }
        27 => {
            if bit(w, 0) || bits(w, 9, 22) != 0 || bits(w, 52, 53) != 2 {
                return Err(field_err(6, "shfl", "bits 0/9..22/52..53", bits(w, 9, 22)));
            }
            let mode = bits(w, 45, 47) as u8;
            if !matches!(mode, 1 | 2 | 3 | 6 | 7) {
                return Err(field_err(6, "shfl", "mode (bits 45..47)", mode as u64));
            }
            let mut m = mem(MemForm::Shfl, ty);
            m.sub = mode;
            let h = ty.is_half();
            m.dst = Some(Operand::Reg {
                reg: Reg::from_field(bits(w, 32, 39)),
                half: h,
            });
            m.srcs = vec![
                Operand::Reg {
                    reg: Reg::from_field(bits(w, 1, 8)),
                    half: h,
                },
                cat6_src(w, 24, bit(w, 23)),
            ];
            ("shfl", m)
        }
        14 => {
            need_gen(gen, true, "ray_intersection")?;
            let mut m = mem(MemForm::RayIntersection, ty);
            m.dst = Some(gpr(w, 32));
            m.srcs = vec![
                cat6_src_cg(w, 14, bit(w, 13)),
                gpr(w, 1),
                gpr(w, 24),
                gpr(w, 41),
            ];
            ("ray_intersection", m)
        }
        16..=26 => {
            const LOCAL: [&str; 11] = [
                "atomic.add",
                "atomic.sub",
                "atomic.xchg",
                "atomic.inc",
                "atomic.dec",
                "atomic.cmpxchg",
                "atomic.min",
                "atomic.max",
                "atomic.and",
                "atomic.or",
                "atomic.xor",
            ];
            const GLOBAL: [&str; 11] = [
                "atomic.g.add",
                "atomic.g.sub",
                "atomic.g.xchg",
                "atomic.g.inc",
                "atomic.g.dec",
                "atomic.g.cmpxchg",
                "atomic.g.min",
                "atomic.g.max",
                "atomic.g.and",
                "atomic.g.or",
                "atomic.g.xor",
            ];
            let i = (opc - 16) as usize;
            if !bit(w, 0) || bits(w, 1, 8) != 0 || bits(w, 41, 48) != 0 || bit(w, 53) {
                return Err(field_err(
                    6,
                    LOCAL[i],
                    "bits 0/1..8/41..48/53",
                    bits(w, 41, 48),
                ));
            }
            let global = bit(w, 52);
            let ty = if global {
                Type::from_atomic_field(bits(w, 49, 51))
            } else {
                ty
            };
            let mut m = mem(
                if global {
                    MemForm::AtomicGlobal
                } else {
                    MemForm::AtomicLocal
                },
                ty,
            );
            m.dim = bits(w, 9, 10) as u8 + 1;
            m.typed = bit(w, 11);
            m.type_size = bits(w, 12, 13) as u8 + 1;
            m.dst = Some(gpr(w, 32));
            m.srcs = vec![cat6_src(w, 14, bit(w, 22)), cat6_src(w, 24, bit(w, 23))];
            (if global { GLOBAL[i] } else { LOCAL[i] }, m)
        }
        _ => {
            return Err(Undecodable::Opcode {
                cat: 6,
                what: "opcode (bits 54..58; a6xx sub-opcode bits 14..19 did not match)",
                value: opc as u64,
            })
        }
    };
    Ok((name, Body::Mem(m)))
}

// ---------------------------------------------------------------------------------------------
// cat7: barriers, cache maintenance, alias. Opcode bits 55..58.

fn cat7(gen: Gen, w: u64, flags: &mut Flags) -> Result<(&'static str, Body), Undecodable> {
    flags.ss = bit(w, 44);
    let opc = bits(w, 55, 58);
    let sync = match opc {
        0 | 1 => {
            if !bit(w, 49) {
                return Err(field_err(7, "bar/fence", "bit 49", 0));
            }
            let s = Sync::Barrier {
                g: bit(w, 54),
                l: bit(w, 53),
                r: bit(w, 52),
                w: bit(w, 51),
            };
            return Ok((if opc == 0 { "bar" } else { "fence" }, Body::Sync(s)));
        }
        2 => return Ok(("sleep", Body::Sync(Sync::Sleep { long: bit(w, 51) }))),
        3 => return Ok(("icinv", Body::Sync(Sync::Plain))),
        5 if bit(w, 49) && bits(w, 51, 54) == 0b1010 => {
            need_gen(gen, true, "ccinv")?;
            return Ok(("ccinv", Body::Sync(Sync::Plain)));
        }
        4..=6 => {
            if bit(w, 52) {
                return Err(field_err(7, "dccln/dcinv/dcflu", "bit 52", 1));
            }
            Sync::Cache { all: bit(w, 51) }
        }
        7 => {
            let name = match bits(w, 45, 54) {
                0b1000010000 => "lock",
                0b1001010000 => "unlock",
                v => return Err(field_err(7, "lock/unlock", "bits 45..54", v)),
            };
            need_gen(gen, true, name)?;
            return Ok((name, Body::Sync(Sync::Plain)));
        }
        8 => {
            need_gen(gen, true, "alias")?;
            // 25.0.7's XML has bit 54 set; 26.2.6's `alias.tex.b32.0 r40.x, (0x0)` is
            // 0xe41500a0_00000000, with it clear: either is read as alias.
            let scope = (bits(w, 49, 49) << 1 | bits(w, 47, 47)) as u8;
            let b32 = bit(w, 50);
            let int = bit(w, 48);
            let half = !b32;
            let src = match bits(w, 51, 52) {
                0 => Operand::Reg {
                    reg: Reg::from_field(bits(w, 0, 7)),
                    half,
                },
                1 => Operand::Const {
                    index: bits(w, 0, 10) as u16,
                    half,
                },
                2 => {
                    let (value, fmt) = match (int, b32) {
                        (false, false) => (bits(w, 0, 15) as i64, ImmFmt::F16),
                        (false, true) => (bits(w, 0, 31) as i64, ImmFmt::F32),
                        (true, false) => (bits(w, 0, 15) as i64, ImmFmt::Hex),
                        (true, true) => (bits(w, 0, 31) as i64, ImmFmt::Hex),
                    };
                    Operand::Imm { value, fmt, half }
                }
                v => return Err(field_err(7, "alias", "source kind (bits 51..52)", v)),
            };
            let dst = if scope == 1 {
                Err((bits(w, 34, 36) as u8, bits(w, 32, 33) as u8))
            } else {
                Ok(Reg::from_field(bits(w, 32, 39)))
            };
            let s = Sync::Alias {
                scope,
                int,
                b32,
                table_size_minus_one: bits(w, 40, 43) as u8,
                dst,
                src,
            };
            return Ok(("alias", Body::Sync(s)));
        }
        v => {
            return Err(Undecodable::Opcode {
                cat: 7,
                what: "opcode (bits 55..58)",
                value: v,
            })
        }
    };
    Ok((
        ["dccln", "dcinv", "dcflu"][opc as usize - 4],
        Body::Sync(sync),
    ))
}
