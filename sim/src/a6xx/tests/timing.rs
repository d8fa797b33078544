//! Delay slots, (ss)/(sy) stalls and the hazards of missing them.

use super::*;
use crate::semantics::{fetch_coords, texel, TextureDesc};

/// `r1.x = 1` (settled), then `r1.x = 5` and a read after `gap` empty cycles.
fn alu_gap(gap: u8) -> Program {
    let mut v = vec![mov(r(1, 0), imm(1)), nops(6), mov(r(1, 0), imm(5))];
    if gap > 0 {
        v.push(nops(gap));
    }
    v.extend([
        alu2(Binary::AddU, r(2, 0), rs(1, 0), imm(0)),
        nops(6),
        out(0, r(2, 0)),
        end(),
    ]);
    program(v)
}

#[test]
fn alu_result_read_one_slot_early_is_a_stale_hazard() {
    let d = dispatch(3, 1);
    let p = alu_gap(2);
    let res = run_default(&p, &d);
    assert_eq!(res.outcome, Outcome::Completed);
    assert_eq!(slot(&res, &d, 0, 0), 1, "the early read sees the old value");
    assert_eq!(res.hazards.len(), 1);
    let h = res.hazards[0];
    assert_eq!(
        h.kind,
        HazardKind::ReadTooEarly(Missing::Slots { needed: 3, had: 2 })
    );
    assert_eq!((h.reg, h.producer, h.consumer), (Some(r(1, 0)), Some(2), 4));
}

#[test]
fn alu_result_with_three_slots_is_clean() {
    let d = dispatch(3, 1);
    let p = alu_gap(3);
    let res = run_default(&p, &d);
    assert_clean(&p, &res);
    assert_eq!(slot(&res, &d, 2, 0), 5);
    assert_eq!(res.stats.nops, 6 + 3 + 6);
}

#[test]
fn nop_flag_and_independent_instructions_count_as_slots() {
    let d = dispatch(1, 1);
    let p = program(vec![
        alu2(Binary::AddU, r(1, 0), rs(0, 0), imm(7)).nop(2),
        mov(r(3, 0), imm(0)),
        alu2(Binary::AddU, r(2, 0), rs(1, 0), imm(1)).nop(3),
        nops(3),
        out(0, r(2, 0)),
        end(),
    ]);
    let res = run_default(&p, &d);
    assert_clean(&p, &res);
    assert_eq!(slot(&res, &d, 0, 0), 8);
}

#[test]
fn cat3_third_source_needs_one_slot_fewer() {
    let d = dispatch(1, 1);
    let mad = |c: Src| {
        Instr::new(Op::Alu3 {
            op: Ternary::MadF32,
            dst: r(2, 0),
            a: fimm(2.0),
            b: fimm(3.0),
            c,
        })
    };
    let p = program(vec![
        mov(r(1, 0), fimm(1.0)).nop(0),
        nops(2),
        mad(rs(1, 0)),
        nops(6),
        out(0, r(2, 0)),
        end(),
    ]);
    let res = run_default(&p, &d);
    assert_clean(&p, &res);
    assert_eq!(slot(&res, &d, 0, 0), 7.0f32.to_bits());
}

#[test]
fn predicate_needs_six_slots_before_a_branch() {
    let d = dispatch(1, 1);
    let p = |gap: u8| {
        program(vec![
            mov(r(1, 0), imm(9)),
            cmps(CmpType::U, CmpCond::Eq, Reg::p(0), rs(0, 0), imm(0)),
            nops(gap),
            br(Cond::p(0), 2),
            end(),
            out(0, r(1, 0)).jp(),
            end(),
        ])
    };
    let res = run_default(&p(6), &d);
    assert_clean(&p(6), &res);
    assert_eq!(slot(&res, &d, 0, 0), 9);
    let res = run_default(&p(5), &d);
    assert_eq!(
        res.hazards[0].kind,
        HazardKind::ReadTooEarly(Missing::Slots { needed: 6, had: 5 })
    );
    assert_eq!(res.hazards[0].reg, Some(Reg::p(0)));
}

fn texture_program(sync: bool) -> Program {
    let consumer = alu2(Binary::AddU, r(3, 0), rs(2, 1), imm(0));
    program(vec![
        mov(r(2, 1), imm(7)),
        nops(6),
        Instr::new(Op::Tex {
            op: TexOp::plain(TexKind::Isaml),
            dst: r(2, 0),
            wrmask: 0xf,
            src: r(0, 0),
            params: 1,
            tex: 0,
        }),
        if sync { consumer.sy() } else { consumer },
        nops(6),
        out(0, r(3, 0)),
        end(),
    ])
}

fn texture_dispatch() -> Dispatch {
    Dispatch {
        textures: vec![TextureDesc {
            width: 4,
            height: 4,
            levels: 1,
            layers: 1,
        }],
        ..dispatch(5, 1)
    }
}

#[test]
fn texture_read_without_sy_is_a_hazard_and_stale() {
    let d = texture_dispatch();
    let p = texture_program(false);
    let res = run_default(&p, &d);
    assert_eq!(res.outcome, Outcome::Completed);
    for inv in 0..5 {
        assert_eq!(slot(&res, &d, inv, 0), 7, "stale value");
    }
    let h = res.hazards[0];
    assert_eq!(h.kind, HazardKind::ReadTooEarly(Missing::Sy));
    assert_eq!((h.reg, h.producer, h.consumer), (Some(r(2, 1)), Some(2), 3));
    assert_eq!(res.stats.systall, 0);
}

#[test]
fn texture_read_with_sy_stalls_and_is_right() {
    let d = texture_dispatch();
    let p = texture_program(true);
    let res = run_default(&p, &d);
    assert_clean(&p, &res);
    let desc = d.textures[0];
    for inv in 0..5 {
        let want = texel(0, fetch_coords(&desc, inv, 0, 0, 0))[1];
        assert_eq!(slot(&res, &d, inv, 0), want);
    }
    assert_eq!(res.stats.sy, 1);
    assert_eq!(res.stats.systall, crate::a6xx::timing::TEX_LATENCY - 1);
    assert_eq!(res.stats.categories[5], 1);
}

#[test]
fn sfu_needs_ss() {
    let d = dispatch(2, 1);
    let p = |ss: bool| {
        let use_ = alu2(Binary::AddF, r(2, 0), rs(1, 0), fimm(0.0));
        program(vec![
            mov(r(1, 0), fimm(4.0)),
            nops(6),
            Instr::new(Op::Sfu {
                op: SfuOp::Rsq,
                dst: r(1, 0),
                src: rs(1, 0),
            }),
            if ss { use_.ss() } else { use_ },
            nops(6),
            out(0, r(2, 0)),
            end(),
        ])
    };
    let res = run_default(&p(true), &d);
    assert_clean(&p(true), &res);
    assert_eq!(slot(&res, &d, 1, 0), 0.5f32.to_bits());
    assert_eq!(res.stats.sstall, crate::a6xx::timing::SFU_LATENCY - 1);
    let res = run_default(&p(false), &d);
    assert_eq!(slot(&res, &d, 1, 0), 4.0f32.to_bits());
    assert_eq!(res.hazards[0].kind, HazardKind::ReadTooEarly(Missing::Ss));
}

#[test]
fn overwriting_an_async_source_needs_ss() {
    let d = dispatch(1, 1);
    let p = |ss: bool| {
        let clobber = mov(r(1, 0), imm(0));
        program(vec![
            mov(r(1, 0), fimm(2.0)),
            nops(6),
            Instr::new(Op::Sfu {
                op: SfuOp::Sqrt,
                dst: r(2, 0),
                src: rs(1, 0),
            }),
            if ss { clobber.ss() } else { clobber },
            out(0, r(2, 0)).ss(),
            end(),
        ])
    };
    let res = run_default(&p(true), &d);
    assert_clean(&p(true), &res);
    assert_eq!(slot(&res, &d, 0, 0), 2.0f32.sqrt().to_bits());
    let res = run_default(&p(false), &d);
    let h = res.hazards[0];
    assert_eq!(h.kind, HazardKind::WriteAfterRead(Missing::Ss));
    assert_eq!((h.reg, h.producer, h.consumer), (Some(r(1, 0)), Some(2), 3));
}

#[test]
fn reading_an_unwritten_register_is_a_hazard() {
    let d = dispatch(1, 1);
    let p = program(vec![
        alu2(Binary::AddU, r(2, 0), rs(5, 0), imm(1)),
        nops(6),
        out(0, r(2, 0)),
        end(),
    ]);
    let res = run_default(&p, &d);
    assert_eq!(res.hazards[0].kind, HazardKind::Uninitialized);
    assert_eq!(res.hazards[0].reg, Some(r(5, 0)));
    assert_eq!(slot(&res, &d, 0, 0), 1);
}
