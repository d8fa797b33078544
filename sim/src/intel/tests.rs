//! The decoder against brw's own disassembly: every instruction of the listings anv printed
//! (checked in under `tests/`, captured with `INTEL_DEBUG=hex` from Mesa 25.0.7 on simulated
//! devices, or from 26.2.6 when the name says `mesa26`; the file name's prefix names the
//! platform) decodes and prints as brw printed it; and one test per encoding corner, from
//! captured bytes, for Gen9, Gen12, Gen12.5 and Xe2. brw 26's syntax has its own tests in
//! [`brw26`].

use super::*;

mod brw26;

pub(super) fn listing(name: &str) -> Listing {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/intel/tests")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The encoding of a fixture, from its file name's platform prefix.
pub(super) fn gen_of(name: &str) -> Gen {
    match name.split('_').next() {
        Some("skl") => Gen::Gfx9,
        Some("tgl") => Gen::Gfx12,
        Some("dg2") => Gen::Gfx125,
        Some("mtl") => Gen::Gfx125Mtl,
        Some("lnl") => Gen::Xe2,
        _ => panic!("{name}: no platform prefix"),
    }
}

/// The disassembly syntax of a fixture: brw 26's when its name says `mesa26`.
pub(super) fn syntax_of(name: &str) -> Syntax {
    if name.split('_').any(|w| w == "mesa26") {
        Syntax::Brw26
    } else {
        Syntax::Brw25
    }
}

pub(super) fn assert_agrees(name: &str) -> Agreement {
    let l = listing(name);
    let a = check_in(gen_of(name), syntax_of(name), &l);
    assert!(
        a.disagreements.is_empty(),
        "{name}: {} of {} instructions disagree with brw:\n{}",
        a.disagreements.len(),
        a.instructions,
        a.disagreements
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
    a
}

fn hex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).expect("hex byte"))
        .collect()
}

#[test]
fn every_instruction_of_the_captured_listings_agrees_with_brw() {
    let mut total = Agreement::default();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/intel/tests");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("fixture folder")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".lst"))
        .collect();
    names.sort();
    for gen in Gen::ALL {
        assert!(
            names.iter().any(|n| gen_of(n) == *gen),
            "no fixture for {gen}"
        );
    }
    for n in &names {
        total.add(assert_agrees(n));
    }
    assert!(total.instructions > 0 && total.compacted > 0);
}

#[test]
fn the_header_and_sends_continuation_lines_are_read() {
    let l = listing("skl_double.lst");
    assert_eq!(l.header[0], "Push constant ranges:");
    let send = l
        .insts
        .iter()
        .find(|i| i.text.starts_with("send(8)"))
        .unwrap();
    assert!(
        send.text
            .contains("\ndp data 1 MsgDesc: (untyped surface read"),
        "{}",
        send.text
    );
    assert_eq!(l.insts[0].bytes.len(), 8);
    assert_eq!(l.insts[2].offset, 16);
}

#[test]
fn a_compacted_instruction_expands_to_its_native_twin() {
    // `and(8) g3<1>UD g2<8,8,1>UD 0x00000003UD { align1 1Q compacted }` from the Skylake
    // capture, and the same instruction written natively.
    let compact = decode(&hex("05 6b 01 20 07 03 02 03")).unwrap();
    assert!(compact.compacted);
    assert_eq!(compact.len(), 8);
    let mut native = compact.clone();
    native.compacted = false;
    assert_eq!(
        compact.to_string().replace(" compacted", ""),
        native.to_string()
    );
    assert_eq!(compact.exec_size, 8);
    assert_eq!(
        compact.src[1],
        Some(Src::Imm {
            ty: Type::UD,
            bits: 3
        })
    );
}

#[test]
fn a_split_send_carries_its_extended_descriptor() {
    // `sends(8) nullUD g7UD g9UD 0x02026e01 0x00000040`: untyped surface write, Surface 1,
    // one payload register in each source.
    let i = decode(&hex("33 00 60 0c 10 90 00 00 e1 00 00 00 01 6e 02 02")).unwrap();
    let s = i.send.unwrap();
    assert_eq!(
        (s.sfid, s.desc, s.ex_desc),
        (12, Some(0x0202_6e01), Some(0x40))
    );
    assert_eq!(
        (s.mlen(), s.ex_mlen(), s.rlen()),
        (Some(1), Some(1), Some(0))
    );
    assert_eq!(s.src1, Some((RegFile::Grf, 9)));
    assert!(!s.eot);
}

#[test]
fn the_end_of_thread_send_prints_eot_in_its_descriptor_word() {
    let i = decode(&hex("31 00 60 07 44 02 00 20 c0 0f 00 06 10 00 00 82")).unwrap();
    let s = i.send.unwrap();
    assert!(s.eot && i.no_mask);
    assert_eq!((s.sfid, s.desc), (7, Some(0x0200_0010)));
    assert!(i.to_string().contains("0x82000010"), "{i}");
}

#[test]
fn a_three_source_instruction_reads_scalar_and_vector_regions() {
    // `mad(8) g59<1>F g79.0<0,1,0>F g49<4,4,1>F g81.1<0,1,0>F { align16 1Q }` (native).
    let i = decode(&hex("5b 01 60 00 00 00 1e 3b 01 f0 04 39 62 04 48 14")).unwrap();
    assert!(i.is_3src() && i.align16 && !i.compacted);
    let srcs: Vec<RegSrc> = i
        .src
        .iter()
        .map(|s| match s {
            Some(Src::Reg(r)) => *r,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        srcs.iter().map(|r| (r.nr, r.subreg)).collect::<Vec<_>>(),
        [(79, 0), (49, 0), (81, 4)]
    );
    assert_eq!(srcs[0].region.vstride, Some(0));
    assert_eq!(srcs[1].region.width, 4);
    assert_eq!(i.dst.unwrap().nr, 59);
    assert!(srcs.iter().all(|r| r.ty == Type::F));
    // The compacted form of another mad: `mad(16) g89<1>F g37 g37 g35 { align16 1H compacted }`.
    let c = decode(&hex("5b 92 05 20 00 28 95 46")).unwrap();
    assert!(c.compacted && c.is_3src());
    assert_eq!(c.exec_size, 16);
    let nrs: Vec<u8> = c
        .src
        .iter()
        .map(|s| match s {
            Some(Src::Reg(r)) => r.nr,
            _ => 0,
        })
        .collect();
    assert_eq!((c.dst.unwrap().nr, nrs), (89, vec![37, 37, 35]));
}

#[test]
fn jip_and_uip_are_byte_offsets_from_the_instruction() {
    // `else(16) JIP: LABEL4 UIP: LABEL2 { align1 1H BranchCtrl }`.
    let e = decode(&hex("24 00 80 10 20 0e 00 20 28 00 00 00 18 00 00 00")).unwrap();
    assert_eq!((e.jip, e.uip), (Some(24), Some(40)));
    assert!(e.acc_wr_or_branch);
    // `while(16) JIP: LABEL5`: a backward jump, no UIP.
    let w = decode(&hex("27 00 80 00 20 0e 00 20 00 00 00 08 30 ff ff ff")).unwrap();
    assert_eq!((w.jip, w.uip), (Some(-208), None));
    // Labels are numbered UIP first, then JIP, in program order, as brw numbers them.
    let program = vec![(0, e.clone()), (16, w.clone())];
    let labels = Labels::of(&program);
    assert_eq!(labels.at(40), Some(0));
    assert_eq!(labels.at(24), Some(1));
    assert_eq!(labels.at(0), None);
}

#[test]
fn bytes_that_are_no_instruction_are_refused_with_a_reason() {
    // Opcode 127 does not exist; a truncated native instruction is too short.
    let err = decode(&hex("7f 00 60 00 00 00 00 00 00 00 00 00 00 00 00 00")).unwrap_err();
    assert_eq!(
        err,
        Undecodable::UnknownOpcode {
            gen: Gen::Gfx9,
            opcode: 127
        }
    );
    // The text is what the decoder said when its errors were strings: listings and findings
    // quote it.
    assert_eq!(err.to_string(), "opcode 127 is not a Gfx9 opcode");
    let err = decode(&hex("01 00 60 00 4c 36 40 20")).unwrap_err();
    assert_eq!(err, Undecodable::TruncatedNative { left: 8 });
    assert_eq!(
        err.to_string(),
        "8 bytes left, a native instruction needs 16"
    );
    let err = decode_program(&hex("01 4d 14 20 00 0a 00 00 01 00")).unwrap_err();
    assert_eq!(err.offset, 8);
    assert_eq!(
        err.to_string(),
        "at byte 0x8: 2 bytes left, an instruction needs 8 or 16"
    );
    // Gen9's `mov` (1) is Gen12's `sync`; Gen9's `sends` (51) does not exist on Gen12, nor does
    // a type code with the signed and float bits both set.
    let err = decode_as(
        Gen::Gfx12,
        &hex("33 00 60 0c 10 90 00 00 e1 00 00 00 01 6e 02 02"),
    )
    .unwrap_err();
    assert_eq!(
        err,
        Undecodable::UnknownOpcode {
            gen: Gen::Gfx12,
            opcode: 51
        }
    );
    let err = decode_as(
        Gen::Gfx125,
        &hex("61 00 04 00 f0 01 05 0c 05 01 46 00 00 00 00 00"),
    )
    .unwrap_err();
    assert_eq!(
        err,
        Undecodable::TypeCode {
            operand: "dst",
            code: 15
        }
    );
    assert_eq!(err.to_string(), "dst type code 15 has no meaning");
}

fn dg2(bytes: &str) -> Inst {
    decode_as(Gen::Gfx125, &hex(bytes)).unwrap()
}

#[test]
fn a_gen12_compacted_instruction_expands_to_its_native_twin() {
    // DG2: `add(8) g3<1>D g11<0,1,0>D g2<0,1,0>D { align1 WE_all 1Q @2 $0.dst compacted }`
    // and the same instruction from the `nocompact` capture.
    let compact = dg2("40 a0 03 a4 02 0b 11 02");
    let native = dg2("40 a0 03 80 60 06 05 03 04 0b 00 06 04 02 00 00");
    assert!(compact.compacted && !native.compacted);
    assert_eq!(
        Inst {
            compacted: false,
            ..compact.clone()
        },
        native
    );
    assert_eq!(compact.opcode, Opcode(64));
    assert!(compact.no_mask);
    let Some(Src::Reg(s)) = compact.src[0] else {
        panic!("{compact:?}")
    };
    assert_eq!((s.nr, s.ty, s.region.vstride), (11, Type::D, Some(0)));
    // The same bits mean something else to Gen9: the encodings are not interchangeable.
    assert_ne!(decode(&hex("40 a0 03 a4 02 0b 11 02")).ok(), Some(compact));
}

#[test]
fn gen12_opcodes_are_renumbered_to_the_canonical_values() {
    // `mov(16) g12<1>UD g1<8,8,1>UW`: Gen12's mov is 97, ours is Gen9's 1.
    let mov = dg2("61 00 04 00 20 01 05 0c 05 01 46 00 00 00 00 00");
    assert_eq!(mov.opcode, Opcode::MOV);
    assert_eq!(mov.to_string().split_whitespace().next(), Some("mov(16)"));
    // `sync nop(1) null<0,1,0>UB { align1 WE_all 1N I@1 }`: Gen12's opcode 1.
    let sync = dg2("01 19 00 80 00 00 00 00 00 00 00 00 00 00 00 00");
    assert_eq!((sync.opcode, sync.sync_function), (Opcode::SYNC, Some(0)));
    assert!(sync.dst.is_none());
}

#[test]
fn a_gen12_three_source_instruction_has_align1_regions_and_immediates() {
    // `add3(16) g13<1>D g13<8,8,1>D g15<8,8,1>D g9<1,1,1>D { align1 1H I@1 }`.
    let i = dg2("52 19 04 00 68 0e 04 0d 05 0d 0e 0e 05 0f 05 09");
    assert!(i.is_3src() && !i.align16);
    let regs: Vec<RegSrc> = i
        .src
        .iter()
        .map(|s| match s {
            Some(Src::Reg(r)) => *r,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        regs.iter()
            .map(|r| (r.nr, r.region.vstride, r.region.width, r.region.hstride))
            .collect::<Vec<_>>(),
        [(13, Some(8), 8, 1), (15, Some(8), 8, 1), (9, Some(1), 1, 1)]
    );
    assert!(regs.iter().all(|r| r.ty == Type::D && r.swizzle.is_none()));
    assert_eq!(i.dst.unwrap().nr, 13);
    // `add3(16) g122<1>D 1W g117<8,8,1>D g9<1,1,1>D`: a 16-bit immediate in src0.
    let imm = dg2("52 19 04 00 60 45 04 7a 01 00 0e 0e 05 75 05 09");
    assert_eq!(
        imm.src[0],
        Some(Src::Imm {
            ty: Type::W,
            bits: 1
        })
    );
    assert!(imm.to_string().contains(" 1W "), "{imm}");
}

#[test]
fn an_lsc_send_carries_its_descriptors_and_prints_them_as_brw() {
    // `send(16) nullUD g10UD g13UD 0x64001504 0x01000100`: an untyped global memory store
    // of two dwords per lane through binding-table entry 1.
    let i = dg2("31 40 04 00 00 00 00 00 95 0a 08 fa 24 0d 04 04");
    let s = i.send.unwrap();
    assert_eq!(
        (s.sfid, s.desc, s.ex_desc),
        (15, Some(0x6400_1504), Some(0x0100_0100))
    );
    assert!(s.is_lsc() && !s.eot && !s.ex_bso);
    assert_eq!(
        (s.mlen(), s.ex_mlen(), s.rlen()),
        (Some(2), Some(4), Some(0))
    );
    assert_eq!(s.src1, Some((RegFile::Grf, 13)));
    assert_eq!(i.opcode, Opcode::SEND);
    let text = i.to_string();
    for part in [
        "( store, a32, d32, V2, L1STATE_L3MOCS",
        "src1_len = 4 bti )",
        "BTI 1",
    ] {
        assert!(text.contains(part), "{part:?} in {text}");
    }
    // The spill fill from the scratch surface, its extended descriptor in a0.2:
    // `send(16) g24UD g23UD nullUD 0x0220c500 a0.2<0>UD`.
    let l = listing("dg2_spill_fs_scratch.lst");
    let fill = l
        .insts
        .iter()
        .find(|x| x.text.contains("a0.2<0>UD") && x.text.contains(" load,"))
        .expect("a scratch fill");
    let f = decode_as(Gen::Gfx125, &fill.bytes).unwrap();
    let fs = f.send.unwrap();
    assert_eq!((fs.ex_desc, fs.ex_desc_a0_subreg), (None, 2));
    assert!(f.to_string().contains(" ss )"), "{f}");
}

#[test]
fn the_swsb_byte_reads_as_brw_reads_it() {
    // In-order dependencies in one pipe, or all.
    assert_eq!(Swsb::decode(0x19, false).text(), " I@1");
    assert_eq!(Swsb::decode(0x09, false).text(), " A@1");
    assert_eq!(Swsb::decode(0x12, false).text(), " F@2");
    // Tokens: an unordered instruction sets it, others wait on its dst or src.
    assert_eq!(Swsb::decode(0x40, true).text(), " $0");
    assert_eq!(Swsb::decode(0x30, false).text(), " $0.src");
    assert_eq!(Swsb::decode(0x23, false).text(), " $3.dst");
    // RegDist and token together: which the token means depends on the instruction.
    let both = Swsb::decode(0xa0, false);
    assert_eq!(
        (both.regdist, both.pipe, both.token),
        (2, Pipe::None, Some(Token::Dst))
    );
    assert_eq!(both.text(), " @2 $0.dst");
    assert_eq!(Swsb::decode(0xa0, true).token, Some(Token::Set));
    assert_eq!(Swsb::decode(0, false).text(), "");
    // Decoded with the instruction: the add above waits, the send sets.
    let add = dg2("40 a0 03 a4 02 0b 11 02");
    assert_eq!(add.swsb.unwrap().token, Some(Token::Dst));
    let send = dg2("31 40 04 00 00 00 00 00 95 0a 08 fa 24 0d 04 04");
    assert_eq!(send.swsb.unwrap().text(), " $0");
}

#[test]
fn gen12_jip_and_uip_are_byte_offsets_from_the_instruction() {
    // `(+f0.0) if(16) JIP: LABEL0 UIP: LABEL0`, `break(16) JIP: LABEL1 UIP: LABEL2` and the
    // loop's `while(16) JIP: LABEL3` (backward).
    let i = dg2("22 00 04 01 60 c0 01 00 f8 00 00 00 f8 00 00 00");
    assert_eq!((i.jip, i.uip), (Some(248), Some(248)));
    assert_eq!(i.predicate.map(|p| p.invert), Some(false));
    assert_eq!(i.cond_modifier, 0);
    let b = dg2("28 00 04 00 60 c6 01 00 50 00 00 00 10 00 00 00");
    assert_eq!((b.jip, b.uip), (Some(16), Some(80)));
    let w = dg2("27 00 04 00 60 40 01 00 00 00 00 00 90 ff ff ff");
    assert_eq!((w.jip, w.uip), (Some(-112), None));
}

#[test]
fn tiger_lake_reads_its_own_compaction_tables_and_pipeless_swsb() {
    // Every compacted instruction of the Tiger Lake capture expands to what brw printed
    // (`<8;8,1>` regions are in Gen12's source tables, not Gen12.5's).
    let l = listing("tgl_spill_fs_scratch.lst");
    let a = check_as(Gen::Gfx12, &l);
    assert!(a.compacted > 0 && a.disagreements.is_empty());
    // Gen12.5 tables give other regions for the same bits.
    assert!(!check_as(Gen::Gfx125, &l).disagreements.is_empty());
    let with_distance = l
        .insts
        .iter()
        .filter_map(|x| decode_as(Gen::Gfx12, &x.bytes).ok()?.swsb)
        .find(|s| s.regdist != 0)
        .expect("a RegDist dependency");
    assert_eq!(with_distance.pipe, Pipe::None);
}

#[test]
fn a_gen12_compacted_three_source_instruction_expands_to_its_native_twin() {
    // Tiger Lake: `mad(16) g26<1>F g1<8,8,1>F g1<8,8,1>F g1<1,1,1>F { align1 1H compacted }`
    // and the same instruction from the `nocompact` capture.
    let tgl = |s: &str| decode_as(Gen::Gfx12, &hex(s)).unwrap();
    let compact = tgl("5b 00 1a a0 00 01 01 01");
    let native = tgl("5b 00 04 00 a8 0a 04 1a 05 01 0a 0a 05 01 05 01");
    assert!(compact.compacted && compact.is_3src());
    assert_eq!(
        Inst {
            compacted: false,
            ..compact.clone()
        },
        native
    );
    assert_eq!(compact.dst.map(|d| (d.nr, d.ty)), Some((26, Type::F)));
    assert!(compact
        .src
        .iter()
        .all(|s| matches!(s, Some(Src::Reg(r)) if r.nr == 1 && r.ty == Type::F)));
}

fn lnl(bytes: &str) -> Inst {
    decode_as(Gen::Xe2, &hex(bytes)).unwrap()
}

#[test]
fn xe2_compacted_and_native_twins_and_its_wider_fields() {
    // Lunar Lake: `add(16) g3<1>D g11<0,1,0>D g2<0,1,0>D { align1 WE_all 1H @2 $0.dst }`,
    // compacted and from the `nocompact` capture.
    let compact = lnl("40 40 91 ac 03 0b 10 02");
    let native = lnl("40 40 11 80 60 06 05 03 04 0b 00 06 04 02 00 00");
    assert_eq!(
        Inst {
            compacted: false,
            ..compact.clone()
        },
        native
    );
    assert_eq!((native.exec_size, native.qtr_control), (16, 0));
    assert_eq!(native.swsb.unwrap().text(), " @2 $0.dst");
    // `mov(16) g11<1>UD g0.1<0,1,0>UD`: Xe2's subregister field counts byte pairs (2 → 4 bytes,
    // dword 1); read as Gen12 it would be 2 bytes.
    let bytes = "61 00 10 80 20 02 05 0b 14 00 00 00 00 00 00 00";
    let Some(Src::Reg(s)) = lnl(bytes).src[0] else {
        panic!()
    };
    assert_eq!(s.subreg, 4);
    let Ok(gen12) = decode_as(Gen::Gfx125, &hex(bytes)) else {
        return;
    };
    assert_ne!(gen12.src[0], lnl(bytes).src[0]);
}

#[test]
fn the_xe2_swsb_field_has_ten_bits_and_32_tokens() {
    // A send's RegDist+token pair names its pipe: `send ... { I@1 $0 }`.
    let send = lnl("31 20 03 80 00 00 0c 02 0c 0e 00 fa 00 00 34 00");
    assert_eq!(send.swsb.unwrap().text(), " I@1 $0");
    assert_eq!(Swsb::decode_xe2(0x320, true).pipe, Pipe::Int);
    // Tokens up to 31; a non-send's pair waits on the token's destination or source.
    assert_eq!(Swsb::decode_xe2(0x08b, false).text(), " $11.dst");
    assert_eq!(Swsb::decode_xe2(0x0bf, false).text(), " $31.src");
    assert_eq!(Swsb::decode_xe2(0x3a3, false).text(), " A@5 $3.dst");
    assert_eq!(Swsb::decode_xe2(0x2a3, false).text(), " @5 $3.src");
    assert_eq!(Swsb::decode_xe2(0x02a, false).text(), " M@2");
}
