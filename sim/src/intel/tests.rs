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
