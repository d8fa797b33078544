//! brw 26's syntax (`print26`): its captured listings agree with our decoder on every platform,
//! and the check still bites — a changed byte, or brw's text changed in any one field, is a
//! disagreement at that instruction.

use super::super::*;
use super::{assert_agrees, gen_of, listing, syntax_of};

/// Listings anv 26.2.6 returned (`INTEL_DEBUG=hex`), one per platform, two of Jay's on lnl
/// (flag subregisters, `csel` and `add3` writing subregisters, `mul`+`macl` pairs), and one
/// workgroup program's shared-memory messages on skl (untyped, surface 254), dg2 and lnl
/// (the LSC's SLM port; brw's without `ExBSO`, Jay's with it).
const FIXTURES: [&str; 11] = [
    "skl_mesa26_slm.lst",
    "dg2_mesa26_slm.lst",
    "lnl_mesa26_slm.lst",
    "lnl_mesa26_jay_slm.lst",
    "skl_mesa26_align16_mad.lst",
    "tgl_mesa26_if_math.lst",
    "dg2_mesa26_scratch_a0.lst",
    "mtl_mesa26_no8.lst",
    "lnl_mesa26_nocompact.lst",
    "lnl_mesa26_jay_flags.lst",
    "lnl_mesa26_jay_macl.lst",
];

/// The tgl fixture, which the planted differences edit.
const TGL: &str = "tgl_mesa26_if_math.lst";

#[test]
fn every_brw26_fixture_agrees_on_its_platform() {
    let mut total = Agreement::default();
    for name in FIXTURES {
        assert_eq!(syntax_of(name), Syntax::Brw26, "{name}");
        total.add(assert_agrees(name));
    }
    for gen in Gen::ALL {
        assert!(
            FIXTURES.iter().any(|n| gen_of(n) == *gen),
            "no brw 26 fixture for {gen}"
        );
    }
    assert!(
        total.instructions > 400 && total.compacted > 100,
        "{total:?}"
    );
}

/// Xe2's fields that Jay's code showed us reading wrong: a three-source destination's
/// subregister (pairs of bytes at 55:51), and `macl`, an Xe2 opcode only.
#[test]
fn jays_xe2_encodings_decode_as_brw_26_prints_them() {
    let hex = |s: &str| -> Vec<u8> {
        s.split(' ')
            .map(|b| u8::from_str_radix(b, 16).unwrap())
            .collect()
    };
    let csel = hex("72 19 00 80 20 02 54 02 f4 01 02 22 04 02 44 02");
    let inst = decode_as(Gen::Xe2, &csel).unwrap();
    assert_eq!(inst.dst.unwrap().subreg, 20, "csel r2.5");
    let macl = hex("53 00 00 ac 7a 6c 00 6c");
    assert_eq!(decode_as(Gen::Xe2, &macl).unwrap().opcode.name(), "macl");
    let err = decode_as(Gen::Gfx12, &macl).unwrap_err();
    assert_eq!(err.to_string(), "opcode 83 is not a Gfx12 opcode");
}

#[test]
fn labels_and_one_line_sends_are_read() {
    let l = listing(TGL);
    assert_eq!(l.insts.len(), 58);
    assert!(l.header.is_empty());
    let send = l
        .insts
        .iter()
        .find(|i| i.text.starts_with("send.hdc1"))
        .expect("the store");
    assert!(send.text.ends_with("bti(1)"), "{:?}", send.text);
    assert!(
        l.insts.iter().all(|i| !i.text.contains("L0:")),
        "a label line was taken for a continuation"
    );
}

/// Checks the tgl fixture with one instruction's bytes or text changed by `edit`, and returns
/// the disagreements.
fn check_edited(edit: impl FnOnce(&mut Listing)) -> Vec<Disagreement> {
    let mut l = listing(TGL);
    edit(&mut l);
    check_in(Gen::Gfx12, Syntax::Brw26, &l).disagreements
}

#[test]
fn a_changed_byte_is_a_disagreement_in_that_field() {
    // The cmp's immediate (native), then the compacted add's destination register.
    for (text, byte, to, field) in [
        ("cmp (16)", 12, 0x45, ("0x00000044", "0x00000045")),
        ("add (16) r7:d", 2, 0x08, ("r7:d", "r8:d")),
    ] {
        let mut offset = 0;
        let d = check_edited(|l| {
            let i = l
                .insts
                .iter_mut()
                .find(|i| {
                    i.text
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ")
                        .starts_with(text)
                })
                .expect("the instruction");
            i.bytes[byte] = to;
            offset = i.offset;
        });
        assert_eq!(d.len(), 1, "{text}: {d:?}");
        assert_eq!(d[0].offset, offset);
        assert_eq!(d[0].field, (field.0.to_string(), field.1.to_string()));
    }
}

#[test]
fn brw_text_changed_in_any_field_is_a_disagreement() {
    // (instruction, brw's token, what it is changed to)
    let edits = [
        ("mul (16) r75:d", "mul", "add"),                       // opcode
        ("mul (16) r75:d", "r75:d", "r74:d"),                   // register
        ("(W) shl (8) r3:d", "r2.1<0>:d", "r2.1<0>"),           // type
        ("add (16) r7:d", "r3<0>:d", "r3:d"),                   // region
        ("mul (16) r75:d", "28:w", "28:uw"),                    // immediate type
        ("cmp (16) (lt)", "0x00000044", "0x00000045"),          // immediate
        ("(~f0.0) sel", "(~f0.0)", "(f0.0)"),                   // predicate
        ("cmp (16) (ne)", "(ne)f0.0", "(eq)f0.0"),              // conditional modifier
        ("(W) mov (8) r127", "(8)", "(16)"),                    // execution size
        ("(W) mov (8) r127", "(W)", ""),                        // NoMask
        ("add (16) r16:d", "{Compacted,@5}", "{Compacted,@4}"), // SWSB
        ("(f0.0) if", "jip:L0", "jip:L1"),                      // jump
        ("send.hdc1", "0x04025C01", "0x04025C02"),              // descriptor
        ("send.hdc1", "wr:2+4,", "wr:2+2,"),                    // message lengths
    ];
    for (at, from, to) in edits {
        let mut offset = 0;
        let d = check_edited(|l| {
            let i = l
                .insts
                .iter_mut()
                .find(|i| {
                    i.text
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ")
                        .starts_with(at)
                })
                .unwrap_or_else(|| panic!("no instruction {at:?}"));
            let words: Vec<&str> = i.text.split_whitespace().collect();
            assert!(words.contains(&from), "{at:?} has no {from:?}");
            i.text = words
                .iter()
                .map(|w| if *w == from { to } else { w })
                .collect::<Vec<_>>()
                .join(" ");
            offset = i.offset;
        });
        assert_eq!(d.len(), 1, "{at:?} {from:?} -> {to:?}: {d:?}");
        assert_eq!(d[0].offset, offset, "{at:?}");
        if !to.is_empty() {
            assert_eq!(d[0].field, (to.to_string(), from.to_string()), "{at:?}");
        }
    }
}

#[test]
fn the_message_named_after_the_lengths_is_not_compared() {
    // What a send's comment says after `rd:N;` is brw's reading of the descriptor, which is
    // compared as a number above.
    let d = check_edited(|l| {
        let send = l
            .insts
            .iter_mut()
            .find(|i| i.text.starts_with("send.hdc1"))
            .expect("the store");
        send.text = send.text.replace("untyped_write:xy", "untyped_write:x");
    });
    assert!(d.is_empty(), "{d:?}");
}

#[test]
fn a_listing_read_in_the_other_syntax_disagrees_everywhere() {
    let brw26 = listing(TGL);
    let a = check_in(Gen::Gfx12, Syntax::Brw25, &brw26);
    assert_eq!(a.disagreements.len(), a.instructions);
    let brw25 = listing("tgl_spill_fs_scratch.lst");
    let a = check_in(Gen::Gfx12, Syntax::Brw26, &brw25);
    assert_eq!(a.disagreements.len(), a.instructions);
}
