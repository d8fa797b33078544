//! The disassembly text follows ir3.

use super::*;

#[test]
fn instructions_print_in_ir3_syntax() {
    let cases: Vec<(Instr, &str)> = vec![
        (
            alu2(Binary::MulF, r(1, 0), rs(1, 0), Src::Const(0)).sy(),
            "(sy)mul.f r1.x, r1.x, c0.x",
        ),
        (
            Instr::new(Op::Brao {
                a: Cond::not(0),
                b: Cond::not(1),
                offset: 7,
            }),
            "brao !p0.x, !p0.y, #7",
        ),
        (
            Instr::new(Op::Store {
                space: Space::Private,
                addr: Addr {
                    base: Some(r(0, 0)),
                    offset: 16,
                },
                src: r(2, 1),
                count: 1,
            }),
            "stp.u32 p[r0.x+16], r2.y, 1",
        ),
        (
            Instr::new(Op::Load {
                space: Space::Global(1),
                dst: r(3, 0),
                addr: Addr {
                    base: Some(r(0, 1)),
                    offset: -4,
                },
                count: 2,
            }),
            "ldg.u32 r3.x, g1[r0.y-4], 2",
        ),
        (
            cmps(CmpType::S, CmpCond::Lt, Reg::p(0), rs(0, 0), rs(1, 1)),
            "cmps.s.lt p0.x, r0.x, r1.y",
        ),
        (
            alu2(Binary::AddF, r(0, 1), rs(0, 0), rs(0, 2)).jp().nop(2),
            "(jp)(nop2)add.f r0.y, r0.x, r0.z",
        ),
        (
            Instr::new(Op::Tex {
                op: TexOp::plain(TexKind::Sam),
                dst: r(2, 0),
                wrmask: 0xf,
                src: r(0, 0),
                params: 2,
                tex: 0,
            }),
            "sam (f32)(xyzw)r2.x, r0.x..r0.y, t#0",
        ),
        (
            alu2(Binary::AddF, r(0, 0), rs(0, 0), fimm(1.5)),
            "add.f r0.x, r0.x, (1.5)",
        ),
        (
            alu2(Binary::AddU, r(0, 0), rs(0, 0), imm(3)),
            "add.u r0.x, r0.x, 3",
        ),
        (
            Instr::new(Op::Alu1 {
                op: Unary::AbsNegF {
                    abs: true,
                    neg: true,
                },
                dst: r(1, 3),
                src: rs(47, 3),
            })
            .ss(),
            "(ss)absneg.f r1.w, -|r47.w|",
        ),
        (nops(3), "(rpt2)nop"),
        (br(Cond::p(3), -2), "br p0.w, #-2"),
        (end(), "end"),
    ];
    for (ins, text) in cases {
        assert_eq!(ins.to_string(), text);
    }
}

#[test]
fn program_listing_has_indices() {
    let p = program(vec![mov(r(1, 0), imm(5)), end().jp()]);
    assert_eq!(p.to_string(), "   0: mov.u32u32 r1.x, 5\n   1: (jp)end\n");
}
