//! Rows of (generation, word, text): each word is built field by field from the isaspec XML
//! bit positions with the tiny encoder below; each text is what the XML display templates give
//! (and, for the forms seen in real turnip listings, what ir3 printed).

use super::*;

/// Sets `(lo, hi, value)` fields; panics if a value does not fit, so rows cannot lie.
fn enc(fields: &[(u32, u32, u64)]) -> u64 {
    let mut w = 0u64;
    for &(lo, hi, v) in fields {
        let width = hi - lo + 1;
        assert!(
            width == 64 || v < (1u64 << width),
            "field {lo}..{hi} value {v:#x} too wide"
        );
        assert_eq!(
            w & (((1u128 << width) - 1) as u64) << lo,
            0,
            "field {lo}..{hi} overlaps"
        );
        w |= v << lo;
    }
    w
}

/// Register field value for `r<n>.<c>` (c: 0..3 = x..w).
const fn r(n: u64, c: u64) -> u64 {
    n << 2 | c
}
const P0X: u64 = 62 << 2;

// cat2/cat4 `#multisrc` 16-bit values.
fn gpr(reg: u64) -> u64 {
    reg
}
fn last(reg: u64) -> u64 {
    reg | 1 << 10
}
fn cst(n: u64, c: u64) -> u64 {
    r(n, c) | 0b010 << 11
}
fn imm(v: i64) -> u64 {
    (v as u64 & 0x7ff) | 0b100 << 11
}
fn neg(s: u64) -> u64 {
    s | 1 << 14
}

const CAT0: (u32, u32, u64) = (61, 63, 0);
const CAT1: (u32, u32, u64) = (61, 63, 1);
const CAT2: (u32, u32, u64) = (61, 63, 2);
const CAT3: (u32, u32, u64) = (61, 63, 3);
const CAT6: (u32, u32, u64) = (61, 63, 6);
const SY: (u32, u32, u64) = (60, 60, 1);
const JP: (u32, u32, u64) = (59, 59, 1);
const SS: (u32, u32, u64) = (44, 44, 1);

/// cat0 opcode: OPC_HI (bit 49) and OPC (55..58).
fn c0(hi: u64, opc: u64, extra: &[(u32, u32, u64)]) -> u64 {
    let mut f = vec![CAT0, (49, 49, hi), (55, 58, opc)];
    f.extend_from_slice(extra);
    enc(&f)
}

/// cat2 with full-precision sources; `nop` is (nopN) via the (r) bits.
fn c2(opc: u64, dst: u64, s1: u64, s2: Option<u64>, extra: &[(u32, u32, u64)]) -> u64 {
    let mut f = vec![CAT2, (53, 58, opc), (32, 39, dst), (0, 15, s1)];
    if let Some(s2) = s2 {
        f.push((16, 31, s2));
    }
    f.extend_from_slice(extra);
    enc(&f)
}
const FULL: (u32, u32, u64) = (52, 52, 1);
fn nop(n: u64) -> Vec<(u32, u32, u64)> {
    vec![(43, 43, n & 1), (51, 51, n >> 1)]
}
fn with(a: &[(u32, u32, u64)], b: &[(u32, u32, u64)]) -> Vec<(u32, u32, u64)> {
    a.iter()
        .chain(b)
        .copied()
        .filter(|f| f.2 != 0 || f.0 == 61)
        .collect()
}

/// cat1 mov: src kind (53..54: 0 gpr, 1 const, 2 immed), types.
fn c1(src_kind: u64, src: u64, st: u64, dt: u64, dst: u64, extra: &[(u32, u32, u64)]) -> u64 {
    let mut f = vec![
        CAT1,
        (53, 54, src_kind),
        (0, 31, src),
        (50, 52, st),
        (46, 48, dt),
        (32, 39, dst),
    ];
    f.extend_from_slice(extra);
    enc(&f
        .into_iter()
        .filter(|f| f.2 != 0 || f.0 == 61)
        .collect::<Vec<_>>())
}

/// cat3 src (13-bit): gpr / const.
fn s3g(reg: u64) -> u64 {
    reg
}
fn s3last(reg: u64) -> u64 {
    reg | 1 << 10
}
fn s3c(n: u64, c: u64) -> u64 {
    r(n, c) | 1 << 12
}
fn c3(opc: u64, dst: u64, s1: u64, s2: u64, s3: u64, nopn: u64, extra: &[(u32, u32, u64)]) -> u64 {
    let mut f = vec![
        CAT3,
        (55, 58, opc),
        (32, 39, dst),
        (0, 12, s1),
        (47, 54, s2),
        (16, 28, s3),
    ];
    f.extend(
        [(43, 43, nopn & 1), (15, 15, nopn >> 1)]
            .into_iter()
            .filter(|f| f.2 != 0),
    );
    f.extend_from_slice(extra);
    enc(&f)
}

/// a6xx-encoding IBO load/store (stib.b sub-opcode 29, ldib.b 6), bindless base 0, imm mode.
fn ibo(
    sub: u64,
    src1: u64,
    src2: u64,
    ssbo: u64,
    type_size: u64,
    off: u64,
    extra: &[(u32, u32, u64)],
) -> u64 {
    let mut f = vec![
        CAT6,
        (53, 53, 1),
        (14, 19, sub),
        (20, 22, 0b110),
        (49, 51, 3),
        (12, 13, type_size - 1),
        (8, 8, 1),
        (32, 39, src1),
        (24, 31, src2),
        (41, 48, ssbo),
    ];
    if off > 0 {
        f.push((23, 23, 1));
        f.push((54, 58, off & 31));
        if off >> 5 != 0 {
            f.push((4, 5, off >> 5));
        }
    }
    f.extend_from_slice(extra);
    enc(&f
        .into_iter()
        .filter(|f| f.2 != 0 || f.0 == 61)
        .collect::<Vec<_>>())
}

/// stp/ldp (a3xx-style cat6): `(opc, type)` + fields.
fn c6(opc: u64, ty: u64, extra: &[(u32, u32, u64)]) -> u64 {
    let mut f = vec![CAT6, (54, 58, opc), (49, 51, ty)];
    f.extend_from_slice(extra);
    enc(&f
        .into_iter()
        .filter(|f| f.2 != 0 || f.0 == 61)
        .collect::<Vec<_>>())
}

const U32: u64 = 3;
const U16: u64 = 2;

/// (index in program, word, expected text). Index matters only for branch operands.
fn rows() -> Vec<(Gen, usize, u64, &'static str)> {
    use Gen::*;
    vec![
        // ---- cat0, as in the samples ----
        (A6xx, 0, c0(0, 0, &[]), "nop"),
        (A6xx, 0, c0(0, 0, &[(40, 42, 2)]), "(rpt2)nop"),
        (A6xx, 0, c0(0, 0, &[SS]), "(ss)nop"),
        (A6xx, 0, c0(0, 6, &[]), "end"),
        (A6xx, 0, c0(0, 6, &[JP]), "(jp)end"),
        (A6xx, 0, c0(1, 13, &[]), "predt"),
        (A6xx, 0, c0(1, 14, &[]), "predf"),
        (A6xx, 0, c0(1, 15, &[]), "prede"),
        (A6xx, 0, c0(1, 7, &[(0, 31, 6)]), "shps #l6"),
        (A6xx, 1, c0(1, 5, &[(0, 31, 5)]), "getone #l6"),
        (A6xx, 5, c0(1, 8, &[SY, SS]), "(sy)(ss)shpe"),
        (A7xx, 30, c0(0, 0, &[JP, (33, 33, 1)]), "(jp)(eogm)nop"),
        (
            A7xx,
            30,
            c0(0, 0, &[(33, 33, 1), (40, 42, 6)]),
            "(eogm)(rpt6)nop",
        ),
        (A7xx, 30, c0(0, 0, &[(32, 32, 1)]), "(eolm)nop"),
        (
            A6xx,
            10,
            c0(0, 1, &[(52, 52, 1), (0, 31, 20)]),
            "br !p0.x, #l30",
        ),
        (A6xx, 21, c0(0, 1, &[(0, 31, 6)]), "br p0.x, #l27"),
        (
            A6xx,
            26,
            c0(0, 2, &[(0, 31, (-11i32) as u32 as u64)]),
            "jump #l15",
        ),
        // ---- cat0, other XML forms ----
        (A6xx, 3, c0(0, 5, &[(53, 54, 1), (52, 52, 1)]), "kill !p0.y"),
        (
            A6xx,
            3,
            c0(
                0,
                1,
                &[
                    (37, 39, 1),
                    (53, 54, 2),
                    (45, 45, 1),
                    (46, 47, 1),
                    (0, 31, 2),
                ],
            ),
            "brao p0.z, !p0.y, #l5",
        ),
        (
            A6xx,
            3,
            c0(0, 1, &[(37, 39, 2), (0, 31, 2), (48, 48, 1)]),
            "(eq)braa p0.x, p0.x, #l5",
        ),
        (
            A6xx,
            3,
            c0(0, 1, &[(37, 39, 3), (32, 36, 4), (0, 31, 1)]),
            "brac.4 #l4",
        ),
        (
            A6xx,
            3,
            c0(0, 1, &[(37, 39, 4), (0, 31, 1)]),
            "bany p0.x, #l4",
        ),
        (
            A6xx,
            3,
            c0(0, 1, &[(37, 39, 5), (0, 31, 1)]),
            "ball p0.x, #l4",
        ),
        (
            A6xx,
            3,
            c0(1, 4, &[(52, 54, 2), (0, 31, 3)]),
            "getlast.w8 #l6",
        ),
        (A6xx, 3, c0(1, 0, &[(0, 31, 3)]), "bkt #l6"),
        (A6xx, 3, c0(0, 3, &[(0, 31, 3)]), "call #l6"),
        (A6xx, 3, c0(0, 4, &[]), "ret"),
        (A6xx, 3, c0(0, 9, &[]), "chmask"),
        (A6xx, 3, c0(0, 10, &[]), "chsh"),
        // ---- cat1 ----
        (
            A6xx,
            0,
            c1(1, r(1, 0), 1, 1, r(0, 3), &[]),
            "mov.f32f32 r0.w, c1.x",
        ),
        (
            A6xx,
            0,
            c1(2, 3, U32, U32, r(48, 3), &[]),
            "mov.u32u32 r48.w, 3",
        ),
        (
            A6xx,
            0,
            c1(2, 0, U32, U32, r(1, 1), &[]),
            "mov.u32u32 r1.y, 0",
        ),
        (
            A6xx,
            0,
            c1(0, r(1, 0), U32, U32, r(49, 0), &[]),
            "mov.u32u32 r49.x, r1.x",
        ),
        (
            A6xx,
            0,
            c1(0, r(49, 0), U32, U32, r(1, 0), &[SS]),
            "(ss)mov.u32u32 r1.x, r49.x",
        ),
        (
            A6xx,
            0,
            c1(0, r(4, 0), U16, U32, r(2, 3), &[]),
            "cov.u16u32 r2.w, hr4.x",
        ),
        // The samples show `mova1.u a1.x, 0`; the 25.0.7 XML (and every later XML seen) prints
        // plain `mova1` for the u16/u16 encoding. See the report: unresolved without a binary.
        (A6xx, 0, c1(2, 0, U16, U16, 0xf5, &[]), "mova1 a1.x, 0"),
        (
            A6xx,
            0,
            c1(0, r(0, 0), 4, 4, 0xf4, &[(40, 41, 1), (43, 43, 1)]),
            "(rpt1)mova a0.x, (r)(r)hr0.x",
        ),
        (
            A6xx,
            0,
            c1(2, 0x3f80_0000, 1, 1, r(2, 0), &[]),
            "mov.f32f32 r2.x, (1.000000)",
        ),
        (
            A6xx,
            0,
            c1(2, 0x3c00, 0, 0, r(2, 0), &[]),
            "mov.f16f16 hr2.x, h(1.000000)",
        ),
        (
            A6xx,
            0,
            c1(2, 0xdead_beef, U32, U32, r(2, 0), &[]),
            "mov.u32u32 r2.x, 0xdeadbeef",
        ),
        (
            A6xx,
            0,
            c1(2, 0xfffb, 4, 4, r(2, 0), &[]),
            "mov.s16s16 hr2.x, -5",
        ),
        (
            A6xx,
            0,
            c1(0, (1 << 11) | 3, U32, U32, r(0, 0), &[]),
            "mov.u32u32 r0.x, r<a0.x + 3>",
        ),
        (
            A6xx,
            0,
            c1(0, (1 << 11) | (1 << 10), U32, U32, r(0, 0), &[]),
            "mov.u32u32 r0.x, c<a0.x>",
        ),
        (
            A6xx,
            0,
            c1(0, r(1, 0), U32, U32, 2, &[(49, 49, 1)]),
            "mov.u32u32 r<a0.x + 2>, r1.x",
        ),
        (
            A6xx,
            0,
            c1(0, last(r(1, 0)), 1, 5, r(0, 0), &[(55, 56, 1)]),
            "cov.f32s32 (even)r0.x, (last)r1.x",
        ),
        (
            A6xx,
            0,
            c1(0, r(1, 0), 1, 1, r(0, 0), &[(42, 42, 1), (45, 45, 1)]),
            "(ul)mov.f32f32 (sat)r0.x, r1.x",
        ),
        (
            A6xx,
            0,
            enc(&[
                CAT1,
                (57, 58, 3),
                (46, 48, 3),
                (50, 52, 3),
                (32, 39, r(3, 0)),
                (40, 41, 1),
            ]),
            "movmsk.w64 r3.x",
        ),
        (
            A6xx,
            0,
            enc(&[
                CAT1,
                (57, 58, 2),
                (46, 48, 3),
                (50, 52, 3),
                (32, 39, r(1, 0)),
                (16, 23, r(1, 1)),
                (0, 7, r(1, 1)),
                (8, 15, r(1, 0)),
            ]),
            "swz.u32u32 r1.x, r1.y, r1.y, r1.x",
        ),
        (
            A6xx,
            0,
            enc(&[
                CAT1,
                (57, 58, 2),
                (40, 41, 1),
                (46, 48, 2),
                (50, 52, 2),
                (32, 39, r(1, 0)),
                (0, 7, r(2, 0)),
                (8, 15, r(2, 1)),
                (16, 23, r(2, 2)),
                (24, 31, r(2, 3)),
            ]),
            "gat.u16u16 hr1.x, hr2.x, hr2.y, hr2.z, hr2.w",
        ),
        (
            A6xx,
            0,
            c1(0, r(1, 0) | 1 << 31 | 5 << 23, U32, U32, r(2, 0), &[]),
            "movs.u32u32 r2.x, r1.x, 5",
        ),
        // ---- cat2 ----
        (
            A6xx,
            0,
            c2(
                16,
                r(0, 3),
                gpr(r(48, 0)),
                Some(gpr(r(0, 3))),
                &with(&[FULL], &nop(3)),
            ),
            "(nop3) add.u r0.w, r48.x, r0.w",
        ),
        (
            A6xx,
            0,
            c2(
                54,
                r(0, 3),
                gpr(r(0, 3)),
                Some(imm(6)),
                &with(&[FULL], &nop(3)),
            ),
            "(nop3) shl.b r0.w, r0.w, 6",
        ),
        (
            A6xx,
            0,
            c2(54, r(48, 0), gpr(r(48, 0)), Some(imm(6)), &[FULL]),
            "shl.b r48.x, r48.x, 6",
        ),
        (
            A6xx,
            0,
            c2(20, P0X, gpr(r(0, 3)), Some(imm(5)), &with(&[FULL], &nop(3))),
            "(nop3) cmps.u.lt p0.x, r0.w, 5",
        ),
        (
            A6xx,
            0,
            c2(
                20,
                P0X,
                gpr(r(1, 1)),
                Some(gpr(r(0, 3))),
                &[FULL, (48, 50, 3)],
            ),
            "cmps.u.ge p0.x, r1.y, r0.w",
        ),
        (
            A6xx,
            0,
            c2(50, r(1, 0), gpr(r(0, 3)), Some(imm(3)), &[FULL]),
            "mull.u r1.x, r0.w, 3",
        ),
        (
            A6xx,
            0,
            c2(28, r(1, 2), gpr(r(0, 3)), Some(imm(1)), &[FULL]),
            "and.b r1.z, r0.w, 1",
        ),
        (
            A6xx,
            0,
            c2(16, r(1, 3), imm(100), Some(gpr(r(0, 3))), &[FULL]),
            "add.u r1.w, 100, r0.w",
        ),
        (
            A6xx,
            0,
            c2(16, r(48, 0), gpr(r(48, 0)), Some(cst(0, 0)), &[FULL, JP]),
            "(jp)add.u r48.x, r48.x, c0.x",
        ),
        (
            A6xx,
            0,
            c2(
                16,
                r(0, 0),
                gpr(r(48, 0)),
                Some(last(r(0, 0))),
                &with(&[FULL, SS], &nop(2)),
            ),
            "(ss)(nop2) add.u r0.x, r48.x, (last)r0.x",
        ),
        (
            A6xx,
            0,
            c2(16, r(1, 1), last(r(1, 1)), Some(imm(1)), &[FULL]),
            "add.u r1.y, (last)r1.y, 1",
        ),
        (
            A6xx,
            0,
            c2(
                54,
                r(0, 0),
                last(r(0, 0)),
                Some(imm(1)),
                &with(&[FULL, JP], &nop(3)),
            ),
            "(jp)(nop3) shl.b r0.x, (last)r0.x, 1",
        ),
        (
            A6xx,
            0,
            c2(
                54,
                r(0, 0),
                last(r(0, 0)),
                Some(imm(1)),
                &with(&[FULL], &nop(1)),
            ),
            "(nop1) shl.b r0.x, (last)r0.x, 1",
        ),
        (
            A6xx,
            0,
            c2(
                21,
                r(6, 0),
                gpr(r(1, 3)),
                Some(imm(0)),
                &[FULL, (48, 50, 5), (46, 46, 1)],
            ),
            "cmps.s.ne hr6.x, r1.w, 0",
        ),
        (
            A6xx,
            0,
            c2(
                21,
                r(4, 0),
                gpr(r(1, 1)),
                Some(imm(0)),
                &[FULL, (46, 46, 1)],
            ),
            "cmps.s.lt hr4.x, r1.y, 0",
        ),
        (
            A6xx,
            0,
            c2(
                28,
                r(4, 3),
                gpr(r(4, 0)),
                Some(gpr(r(9, 0))),
                &[(46, 46, 1)],
            ),
            "and.b r4.w, hr4.x, hr9.x",
        ),
        (
            A6xx,
            0,
            c2(
                28,
                r(3, 3),
                last(r(3, 2)),
                Some(last(r(7, 0))),
                &[(46, 46, 1)],
            ),
            "and.b r3.w, (last)hr3.z, (last)hr7.x",
        ),
        (
            A6xx,
            0,
            c2(
                28,
                r(5, 0),
                gpr(r(9, 3)),
                Some(gpr(r(9, 2))),
                &with(&[(46, 46, 1), SY], &nop(3)),
            ),
            "(sy)(nop3) and.b r5.x, hr9.w, hr9.z",
        ),
        (
            A6xx,
            0,
            c2(26, r(1, 3), neg(gpr(r(1, 0))), None, &[FULL]),
            "absneg.s r1.w, (neg)r1.x",
        ),
        (
            A6xx,
            0,
            c2(18, r(5, 1), imm(4), Some(gpr(r(2, 2))), &[FULL]),
            "sub.u r5.y, 4, r2.z",
        ),
        (
            A6xx,
            0,
            c2(
                18,
                r(3, 3),
                imm(8),
                Some(gpr(r(2, 0))),
                &with(&[FULL], &nop(2)),
            ),
            "(nop2) sub.u r3.w, 8, r2.x",
        ),
        (
            A6xx,
            0,
            c2(
                0,
                r(0, 0),
                gpr(r(1, 0)) | 3 << 14,
                Some(imm(-2)),
                &[FULL, (42, 42, 1), (40, 41, 1), (43, 43, 1)],
            ),
            "(rpt1)add.f (sat)r0.x, (absneg)(r)r1.x, -2",
        ),
        (
            A6xx,
            0,
            c2(3, r(0, 0), gpr(r(1, 0)), Some(0b101 << 11 | 5), &[FULL]),
            "mul.f r0.x, r1.x, (pi)",
        ),
        (
            A6xx,
            0,
            c2(
                3,
                r(0, 0),
                gpr(r(1, 0)),
                Some(0b101 << 11 | 1 << 10 | 1),
                &[],
            ),
            "mul.f hr0.x, hr1.x, h(0.5)",
        ),
        (
            A6xx,
            0,
            c2(16, r(0, 0), imm(3), Some(0b001 << 11 | 0x3fe), &[]),
            "add.u hr0.x, h(3), hr<a0.x + -2>",
        ),
        (
            A6xx,
            0,
            c2(
                5,
                P0X,
                gpr(r(0, 0)),
                Some(gpr(r(0, 1))),
                &[FULL, (48, 50, 4), (45, 45, 1)],
            ),
            "(ul)cmps.f.eq p0.x, r0.x, r0.y",
        ),
        (
            A6xx,
            0,
            c2(
                57,
                r(0, 0),
                imm(0),
                Some(gpr(r(0, 0))),
                &[FULL, (47, 47, 1)],
            ),
            "bary.f (ei)r0.x, 0, r0.x",
        ),
        // ---- cat3 ----
        (
            A6xx,
            0,
            c3(3, r(1, 0), s3c(4, 0), r(0, 3), s3g(r(1, 0)), 0, &[]),
            "madsh.m16 r1.x, c4.x, r0.w, r1.x",
        ),
        (
            A6xx,
            0,
            c3(3, r(0, 3), s3c(1, 0), r(0, 0), s3last(r(0, 3)), 0, &[]),
            "madsh.m16 r0.w, c1.x, r0.x, (last)r0.w",
        ),
        (
            A6xx,
            0,
            c3(9, r(1, 1), s3g(r(1, 0)), r(1, 2), s3g(r(1, 3)), 3, &[]),
            "(nop3) sel.b32 r1.y, r1.x, r1.z, r1.w",
        ),
        (
            A6xx,
            0,
            c3(
                9,
                r(1, 0),
                s3last(r(0, 3)),
                r(1, 1),
                s3last(r(1, 2)),
                3,
                &[],
            ),
            "(nop3) sel.b32 r1.x, (last)r0.w, r1.y, (last)r1.z",
        ),
        (
            A6xx,
            0,
            c3(9, r(4, 0), s3g(r(5, 0)), r(4, 3), s3g(r(2, 1)), 0, &[]),
            "sel.b32 r4.x, r5.x, r4.w, r2.y",
        ),
        (
            A6xx,
            0,
            c3(9, r(2, 2), s3g(r(2, 2)), r(3, 0), s3g(r(1, 2)), 1, &[]),
            "(nop1) sel.b32 r2.z, r2.z, r3.x, r1.z",
        ),
        (
            A6xx,
            0,
            c3(
                7,
                r(0, 0),
                s3g(r(1, 0)),
                r(2, 0),
                s3g(r(3, 0)),
                0,
                &[(14, 14, 1), (31, 31, 1), (40, 41, 2), (29, 29, 1)],
            ),
            "(rpt2)mad.f32 r0.x, (neg)r1.x, r2.x, (neg)(r)r3.x",
        ),
        (
            A6xx,
            0,
            c3(6, r(0, 0), s3g(r(1, 0)), r(2, 0), 1 << 11 | 2, 0, &[]),
            "mad.f16 hr0.x, hr1.x, hr2.x, hr<a0.x + 2>",
        ),
        (
            A6xx,
            0,
            c3(
                9,
                r(0, 0),
                1 << 12 | 7,
                r(2, 0),
                s3g(r(3, 0)),
                0,
                &[(13, 13, 1), (42, 42, 1)],
            ),
            "shlm r0.x, 7, r2.x, r3.x",
        ),
        // ---- cat4 ----
        (
            A6xx,
            0,
            enc(&[
                (61, 63, 4),
                (53, 58, 0),
                FULL,
                (32, 39, r(0, 0)),
                (0, 15, r(1, 0)),
            ]),
            "rcp r0.x, r1.x",
        ),
        (
            A6xx,
            0,
            enc(&[
                (61, 63, 4),
                (53, 58, 6),
                (32, 39, r(0, 0)),
                (0, 15, r(1, 0)),
                SS,
            ]),
            "(ss)sqrt hr0.x, hr1.x",
        ),
        // ---- cat5 ----
        (
            A7xx,
            0,
            enc(&[
                (61, 63, 5),
                (54, 58, 0),
                (0, 0, 1),
                (1, 8, r(4, 0)),
                (51, 51, 1),
                (29, 31, 6),
                (25, 28, 1),
                (32, 39, r(5, 2)),
                (40, 43, 15),
                (44, 46, U32),
                (49, 49, 1),
            ]),
            "isam.a.base0.1d (u32)(xyzw)r5.z, r4.x, s#0, t#1",
        ),
        (
            A7xx,
            0,
            enc(&[
                (61, 63, 5),
                (54, 58, 0),
                (0, 0, 1),
                (1, 8, r(3, 2)),
                (51, 51, 1),
                (29, 31, 6),
                (25, 28, 2),
                (32, 39, r(4, 2)),
                (40, 43, 15),
                (44, 46, U32),
                (49, 49, 1),
            ]),
            "isam.a.base0.1d (u32)(xyzw)r4.z, r3.z, s#0, t#2",
        ),
        (
            A6xx,
            0,
            enc(&[
                (61, 63, 5),
                (54, 58, 3),
                (0, 0, 1),
                (1, 8, r(0, 0)),
                (21, 24, 1),
                (25, 31, 2),
                (32, 39, r(2, 0)),
                (40, 43, 15),
                (44, 46, 1),
                SY,
            ]),
            "(sy)sam (f32)(xyzw)r2.x, r0.x, s#1, t#2",
        ),
        (
            A6xx,
            0,
            enc(&[
                (61, 63, 5),
                (54, 58, 10),
                (0, 0, 1),
                (1, 8, r(0, 0)),
                (25, 31, 3),
                (32, 39, r(2, 0)),
                (40, 43, 3),
                (44, 46, U32),
            ]),
            "getsize (u32)(xy)r2.x, r0.x, t#3",
        ),
        (
            A6xx,
            0,
            enc(&[
                (61, 63, 5),
                (54, 58, 3),
                (0, 0, 1),
                (1, 8, r(0, 0)),
                (51, 51, 1),
                (29, 31, 0),
                (21, 28, r(1, 0)),
                (32, 39, r(2, 0)),
                (40, 43, 1),
                (44, 46, 1),
            ]),
            "sam.s2en.uniform (f32)(x)r2.x, r0.x, hr1.x",
        ),
        // ---- cat6 ----
        (
            A6xx,
            0,
            ibo(29, r(1, 1), r(0, 3), 0, 2, 0, &[]),
            "stib.b.untyped.1d.u32.2.imm.base0 r1.y, r0.w, 0",
        ),
        (
            A7xx,
            0,
            ibo(29, r(4, 2), r(0, 0), 0, 4, 4, &[]),
            "stib.b.untyped.1d.u32.4.imm.base0 r4.z, r0.x+4, 0",
        ),
        (
            A7xx,
            0,
            ibo(29, r(5, 2), r(6, 2), 0, 4, 0, &[SY]),
            "(sy)stib.b.untyped.1d.u32.4.imm.base0 r5.z, r6.z, 0",
        ),
        (
            A6xx,
            0,
            ibo(6, r(0, 0), r(1, 0), 1, 1, 0, &[]),
            "ldib.b.untyped.1d.u32.1.imm.base0 r0.x, r1.x, 1",
        ),
        (
            A6xx,
            0,
            enc(&[
                CAT6,
                (53, 53, 1),
                (14, 19, 15),
                (20, 23, 0b0110),
                (49, 51, U32),
                (8, 8, 1),
                (32, 39, r(63, 0)),
                (41, 48, 2),
            ]),
            "resinfo.b.untyped.1d.u32.1.imm.base0 r63.x, 2",
        ),
        (
            A6xx,
            0,
            enc(&[
                CAT6,
                (52, 53, 3),
                (14, 19, 30),
                (22, 22, 1),
                (49, 51, U32),
                (23, 23, 1),
                (24, 31, 1),
                (41, 48, 1),
            ]),
            "ldc.1.k.imm c[a1.x], 1, 1",
        ),
        (
            A6xx,
            0,
            enc(&[
                CAT6,
                (53, 53, 1),
                (14, 19, 30),
                (22, 22, 1),
                (49, 51, U32),
                (12, 13, 3),
                (6, 7, 1),
                (24, 31, r(0, 0)),
                (41, 48, r(1, 0)),
                (32, 39, r(2, 0)),
                (9, 10, 1),
            ]),
            "ldc.offset1.4.uniform r2.x, r0.x, r1.x",
        ),
        (
            A6xx,
            0,
            c6(
                28,
                U32,
                &[(1, 8, r(48, 3)), (23, 23, 1), (24, 26, 1), (32, 39, 4)],
            ),
            "stc.u32 c[4], r48.w, 1",
        ),
        (
            A6xx,
            0,
            c6(
                5,
                U32,
                &[
                    (1, 8, r(4, 0)),
                    (23, 23, 1),
                    (24, 31, 3),
                    (32, 39, 8),
                    (40, 40, 1),
                    (41, 48, r(1, 0)),
                ],
            ),
            "stp.u32 p[r1.x+8], r4.x, 3",
        ),
        (
            A6xx,
            0,
            c6(
                5,
                U16,
                &[
                    (1, 8, r(4, 2)),
                    (23, 23, 1),
                    (24, 31, 1),
                    (32, 39, 4),
                    (40, 40, 1),
                    (41, 48, r(1, 0)),
                ],
            ),
            "stp.u16 p[r1.x+4], r4.z, 1",
        ),
        (
            A6xx,
            0,
            c6(
                5,
                U16,
                &[
                    (1, 8, r(4, 0)),
                    (23, 23, 1),
                    (24, 31, 1),
                    (40, 40, 1),
                    (41, 48, r(0, 3)),
                ],
            ),
            "stp.u16 p[r0.w], r4.x, 1",
        ),
        (
            A6xx,
            0,
            c6(
                2,
                U16,
                &[
                    (0, 0, 1),
                    (1, 13, 4),
                    (14, 21, r(1, 0)),
                    (23, 23, 1),
                    (24, 31, 1),
                    (32, 39, r(9, 3)),
                ],
            ),
            "ldp.u16 hr9.w, p[r1.x+4], 1",
        ),
        (
            A6xx,
            0,
            c6(
                2,
                U32,
                &[
                    (0, 0, 1),
                    (14, 21, r(1, 0)),
                    (23, 23, 1),
                    (24, 31, 1),
                    (32, 39, r(6, 2)),
                ],
            ),
            "ldp.u32 r6.z, p[r1.x], 1",
        ),
        (
            A6xx,
            0,
            c6(
                1,
                U32,
                &[
                    (0, 0, 1),
                    (1, 13, 0x1ffc),
                    (14, 21, r(1, 0)),
                    (23, 23, 1),
                    (24, 31, 2),
                    (32, 39, r(6, 2)),
                ],
            ),
            "ldl.u32 r6.z, l[r1.x-4], 2",
        ),
        (
            A6xx,
            0,
            c6(
                4,
                U32,
                &[
                    (1, 8, r(4, 0)),
                    (23, 23, 1),
                    (24, 31, 4),
                    (32, 39, 16),
                    (40, 40, 1),
                    (41, 48, r(1, 0)),
                ],
            ),
            "stl.u32 l[r1.x+16], r4.x, 4",
        ),
        (
            A6xx,
            0,
            c6(
                0,
                U32,
                &[
                    (0, 0, 1),
                    (1, 13, 8),
                    (14, 21, r(2, 0)),
                    (23, 23, 1),
                    (24, 26, 4),
                    (32, 39, r(0, 0)),
                ],
            ),
            "ldg.u32 r0.x, g[r2.x+8], 4",
        ),
        (
            A6xx,
            0,
            c6(
                0,
                U32,
                &[
                    (0, 0, 1),
                    (1, 8, r(3, 0)),
                    (14, 21, r(2, 0)),
                    (22, 23, 3),
                    (24, 26, 1),
                    (32, 39, r(0, 0)),
                ],
            ),
            "ldg.a.u32 r0.x, g[r2.x+(r3.x)<<2], 1",
        ),
        (
            A7xx,
            0,
            c6(
                0,
                U32,
                &[
                    (0, 0, 1),
                    (1, 8, r(3, 0)),
                    (14, 21, r(2, 0)),
                    (22, 23, 3),
                    (24, 26, 1),
                    (32, 39, r(0, 0)),
                    (41, 48, 5),
                ],
            ),
            "ldg.a.u32 r0.x, g[r2.x+r3.x+5], 1",
        ),
        (
            A6xx,
            0,
            c6(
                3,
                U32,
                &[
                    (1, 8, r(0, 0)),
                    (23, 23, 1),
                    (24, 26, 1),
                    (32, 39, 4),
                    (41, 48, r(2, 0)),
                ],
            ),
            "stg.u32 g[r2.x+4], r0.x, 1",
        ),
        (
            A6xx,
            0,
            c6(
                16,
                U32,
                &[
                    (0, 0, 1),
                    (14, 21, r(2, 0)),
                    (24, 31, r(3, 0)),
                    (32, 39, r(0, 0)),
                    (52, 52, 1),
                ],
            ),
            "atomic.g.add.untyped.1d.u32.1.g r0.x, r2.x, r3.x",
        ),
        (
            A6xx,
            0,
            c6(
                18,
                U32,
                &[
                    (0, 0, 1),
                    (14, 21, r(2, 0)),
                    (24, 31, r(3, 0)),
                    (32, 39, r(0, 0)),
                ],
            ),
            "atomic.xchg.untyped.1d.u32.1.l r0.x, l[r2.x], r3.x",
        ),
        (
            A6xx,
            0,
            enc(&[
                CAT6,
                (52, 53, 3),
                (14, 19, 16),
                (20, 22, 0b110),
                (49, 51, U32),
                (32, 39, r(0, 0)),
                (24, 31, r(1, 0)),
                (41, 48, 2),
            ]),
            "atomic.b.add.untyped.1d.u32.1.imm r0.x, r1.x, 2",
        ),
        (
            A6xx,
            0,
            c6(
                27,
                U32,
                &[
                    (1, 8, r(1, 0)),
                    (23, 23, 1),
                    (24, 31, 1),
                    (32, 39, r(0, 0)),
                    (45, 47, 1),
                    (53, 53, 1),
                ],
            ),
            "shfl.xor.u32 r0.x, r1.x, 1",
        ),
        // ---- cat7 ----
        (
            A7xx,
            0,
            enc(&[
                (61, 63, 7),
                (55, 58, 8),
                (54, 54, 1),
                (48, 48, 1),
                (50, 50, 1),
                (40, 43, 1),
                (32, 39, r(3, 2)),
                (0, 7, r(4, 0)),
            ]),
            "alias.tex.b32.1 r3.z, r4.x",
        ),
        (
            A7xx,
            0,
            enc(&[
                (61, 63, 7),
                (55, 58, 8),
                (54, 54, 1),
                (48, 48, 1),
                (50, 50, 1),
                (51, 52, 2),
                (32, 39, r(4, 0)),
            ]),
            "alias.tex.b32.0 r4.x, (0x0)",
        ),
        (
            A6xx,
            0,
            enc(&[
                (61, 63, 7),
                (55, 58, 1),
                (49, 49, 1),
                (54, 54, 1),
                (51, 52, 3),
            ]),
            "fence.g.r.w",
        ),
        (
            A6xx,
            0,
            enc(&[(61, 63, 7), (55, 58, 0), (49, 49, 1), (53, 53, 1), SY]),
            "(sy)bar.l",
        ),
        (
            A6xx,
            0,
            enc(&[(61, 63, 7), (55, 58, 4), (51, 51, 1)]),
            "dccln.all",
        ),
        (A6xx, 0, enc(&[(61, 63, 7), (55, 58, 2)]), "sleep.s"),
        (
            A7xx,
            0,
            enc(&[(61, 63, 7), (55, 58, 5), (49, 49, 1), (51, 54, 0b1010)]),
            "ccinv",
        ),
        (
            A7xx,
            0,
            enc(&[(61, 63, 7), (55, 58, 7), (45, 54, 0b1000010000), SY, JP]),
            "(sy)(jp)lock",
        ),
    ]
}

#[test]
fn rows_decode_to_ir3_text() {
    let mut bad = vec![];
    for (gen, index, word, want) in rows() {
        match decode(gen, word) {
            Ok(i) => {
                let got = i.text(index);
                if got != want {
                    bad.push(format!("{word:016x} {gen:?}: got {got:?}, want {want:?}"));
                }
            }
            Err(e) => bad.push(format!("{word:016x} {gen:?}: {e} (want {want:?})")),
        }
    }
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn decoded_form_carries_meaning() {
    let w = c2(
        16,
        r(0, 0),
        gpr(r(48, 0)),
        Some(last(r(0, 0))),
        &with(&[FULL, SS], &nop(2)),
    );
    let i = decode(Gen::A6xx, w).unwrap();
    assert_eq!((i.cat, i.name), (2, "add.u"));
    assert!(i.flags.ss && i.flags.nop == 2 && i.flags.repeat == 0);
    let Body::Alu(a) = &i.body else { panic!() };
    assert_eq!(a.dst, Reg::Gpr { num: 0, comp: 0 });
    assert!(a.srcs[1].last && !a.srcs[1].r);

    let br = decode(Gen::A6xx, c0(0, 1, &[(52, 52, 1), (0, 31, 20)])).unwrap();
    assert_eq!(br.branch_target(10), Some(30));
    let Body::Flow(f) = &br.body else { panic!() };
    assert_eq!(f.preds, vec![Pred { inv: true, comp: 0 }]);
}

#[test]
fn unknown_encodings_are_undecodable_not_panics() {
    // cat2 opcode 8 is unassigned.
    let e = decode(Gen::A6xx, c2(8, 0, 0, Some(0), &[])).unwrap_err();
    assert_eq!(
        e,
        Undecodable::Opcode {
            cat: 2,
            what: "opcode (bits 53..58)",
            value: 8
        }
    );
    assert!(e.to_string().contains("cat2"), "{e}");
    // cat0 OPC_HI=1, OPC=1 is unassigned.
    assert!(matches!(
        decode(Gen::A6xx, c0(1, 1, &[])),
        Err(Undecodable::Opcode { cat: 0, .. })
    ));
    // Condition 6 does not exist.
    assert!(matches!(
        decode(Gen::A6xx, c2(20, P0X, 0, Some(0), &[(48, 50, 6)])),
        Err(Undecodable::Field {
            cat: 2,
            what: "condition (bits 48..50)",
            ..
        })
    ));
    // a7xx-only instructions on a6xx.
    let alias = enc(&[(61, 63, 7), (55, 58, 8), (54, 54, 1)]);
    assert_eq!(
        decode(Gen::A6xx, alias).unwrap_err(),
        Undecodable::Gen {
            name: "alias",
            gen: Gen::A6xx
        }
    );
    // Every word decodes or errors, never panics: sweep the opcode/category bits.
    for cat in 0..8u64 {
        for hi in 0..64u64 {
            for lo in [0u64, 0xffff_ffff, 0x1234_5678, 0xdead_beef] {
                let w = cat << 61 | hi << 53 | lo | (hi & 7) << 40 | (hi >> 3) << 49;
                for gen in [Gen::A6xx, Gen::A7xx] {
                    if let Ok(i) = decode(gen, w) {
                        let _ = i.text(0);
                    }
                }
            }
        }
    }
}

#[test]
fn listing_parser_keeps_only_instruction_lines() {
    let text = include_str!("tests/nested_loop_break_continue_a750_spillall.txt");
    let l = parse_listing(text);
    // 36 lines, although the statistics say `38 instr`: that count is not the listing length.
    assert_eq!(l.instrs.len(), 36);
    assert_eq!(l.instrs[0], "shps #l6");
    assert_eq!(l.instrs[6], "(jp)add.u r48.x, r48.x, c0.x");
    assert_eq!(l.instrs[31], "end");
    assert_eq!(l.instrs[35], "nop");
    assert_eq!(l.labels, vec![6, 15, 27, 30]);
}

/// Captured programs (`tests/captured/*.words`: each word from turnip's pipeline cache beside
/// the line Mesa 26.2.6's ir3 printed for it, labels as it placed them) decode and print
/// exactly as ir3 printed them, with branch targets at its labels: our decoder checked
/// against ir3's own disassembler on a6xx (a630) and a7xx (a750) code.
#[test]
fn captured_programs_print_as_ir3_printed_them() {
    const CAPTURED: [(&str, &str); 8] = [
        (
            "if_else_merge_phis_a630",
            include_str!("../../../corpus/ir3/if_else_merge_phis_a630.words"),
        ),
        (
            "if_else_merge_phis_a750",
            include_str!("../../../corpus/ir3/if_else_merge_phis_a750.words"),
        ),
        (
            "nested_loop_break_continue_a630",
            include_str!("../../../corpus/ir3/nested_loop_break_continue_a630.words"),
        ),
        (
            "nested_loop_break_continue_a750",
            include_str!("../../../corpus/ir3/nested_loop_break_continue_a750.words"),
        ),
        (
            "trivial_backedge_phi_a630",
            include_str!("../../../corpus/ir3/trivial_backedge_phi_a630.words"),
        ),
        (
            "trivial_backedge_phi_a750",
            include_str!("../../../corpus/ir3/trivial_backedge_phi_a750.words"),
        ),
        (
            "txf_constant_zero_lod_a630",
            include_str!("../../../corpus/ir3/txf_constant_zero_lod_a630.words"),
        ),
        (
            "txf_constant_zero_lod_a750",
            include_str!("../../../corpus/ir3/txf_constant_zero_lod_a750.words"),
        ),
    ];
    let mut total = 0;
    for (name, text) in CAPTURED {
        let gen = if name.ends_with("a750") {
            Gen::A7xx
        } else {
            Gen::A6xx
        };
        let (mut words, mut want, mut labels) = (Vec::new(), Vec::new(), Vec::new());
        for line in text.lines().filter(|l| !l.starts_with(';')) {
            if line.starts_with('l') && line.ends_with(':') {
                labels.push(words.len());
                continue;
            }
            let (word, ir3) = line.split_once(' ').expect("word and text");
            words.push(u64::from_str_radix(word, 16).expect("a hex word"));
            want.push(ir3.to_string());
        }
        let prog = decode_program(gen, &words);
        assert_eq!(program_text(&prog), want, "{name}");
        assert_eq!(branch_targets(&prog), labels, "{name}");
        total += words.len();
    }
    assert!(total > 300, "{total} instructions");
}

/// The dispatch facts of two real listings: the ids' registers, the driver params' and UBO
/// range's places, ir3's immediates, the footprint; a malformed line is named.
#[test]
fn listing_headers_give_the_dispatch_facts() {
    let a750 = parse_header(include_str!(
        "tests/nested_loop_break_continue_a750_spillall.txt"
    ))
    .unwrap();
    let ids: Vec<(Reg, &str)> = (a750.inputs.iter())
        .map(|i| (i.reg, i.sysval.as_str()))
        .collect();
    assert_eq!(
        ids,
        [
            (Reg::Gpr { num: 48, comp: 0 }, "SYSTEM_VALUE_WORKGROUP_ID"),
            (
                Reg::Gpr { num: 0, comp: 0 },
                "SYSTEM_VALUE_LOCAL_INVOCATION_ID"
            ),
        ]
    );
    assert_eq!(a750.offsets, [("ubo_ranges".to_string(), 0, 1)]);
    assert_eq!(
        a750.ubo_ranges,
        [UboRange {
            block: 1,
            offset: 0,
            vec4s: 1
        }]
    );
    assert_eq!((a750.full_regs, a750.half_regs, a750.constlen), (2, 0, 4));
    let a630 = parse_header(include_str!("tests/if_else_merge_phis_a630.txt")).unwrap();
    assert_eq!(a630.offsets, [("driver_params".to_string(), 0, 4)]);
    assert_eq!(
        a630.immediates,
        [(16, vec![3, 0xd0d0_d0d0, 0xd0d0_d0d0, 0xd0d0_d0d0])]
    );
    assert!(a630.ubo_ranges.is_empty());
    let e = parse_header("x\n@const(c4.x)\t0x3, zz\n").unwrap_err();
    assert_eq!((e.line, e.why), (2, "not hex words"));
    assert!(e.to_string().contains("line 2"), "{e}");
}
