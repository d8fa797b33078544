//! The decoder against brw's own disassembly: every instruction of the listings anv printed
//! (checked in under `tests/`, captured with `INTEL_DEBUG=hex` from Mesa 25.0.7 on simulated
//! devices) decodes and prints as brw printed it; and one test per encoding corner, from
//! captured bytes.

use super::*;

fn listing(name: &str) -> Listing {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/intel/tests")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn assert_agrees(name: &str) -> Agreement {
    let l = listing(name);
    let a = check(&l);
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
    assert!(!names.is_empty());
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
fn bytes_that_are_no_gen9_instruction_are_refused_with_a_reason() {
    // Opcode 127 does not exist; a truncated native instruction is too short.
    let err = decode(&hex("7f 00 60 00 00 00 00 00 00 00 00 00 00 00 00 00")).unwrap_err();
    assert!(err.contains("opcode 127"), "{err}");
    let err = decode(&hex("01 00 60 00 4c 36 40 20")).unwrap_err();
    assert!(err.contains("16"), "{err}");
    let err = decode_program(&hex("01 4d 14 20 00 0a 00 00 01 00")).unwrap_err();
    assert_eq!(err.offset, 8);
}
