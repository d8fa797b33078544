//! Buffers, outputs, uniforms and private memory.

use super::*;
use crate::semantics::buffer_word;

fn ld(space: Space, dst: Reg, base: Option<Reg>, offset: i32, count: u8) -> Instr {
    Instr::new(Op::Load {
        space,
        dst,
        addr: Addr { base, offset },
        count,
    })
}

fn st(space: Space, base: Option<Reg>, offset: i32, src: Reg, count: u8) -> Instr {
    Instr::new(Op::Store {
        space,
        addr: Addr { base, offset },
        src,
        count,
    })
}

#[test]
fn ldg_and_stg_wrap_each_word() {
    let d = Dispatch {
        buffers: vec![3],
        ..dispatch(4, 3)
    };
    let p = program(vec![
        ld(Space::Global(0), r(1, 0), None, 2, 3), // words 2, 0, 1
        st(Space::Output, None, 0, r(1, 0), 3).sy(),
        mov(r(2, 0), imm(77)),
        mov(r(2, 1), imm(88)),
        nops(6),
        st(Space::Global(0), Some(r(0, 0)), 4, r(2, 0), 2), // words (id+4)%3, (id+5)%3
        end(),
    ]);
    let res = run_default(&p, &d);
    assert_clean(&p, &res);
    for inv in 0..4 {
        let want: Vec<u32> = [2, 0, 1].iter().map(|&k| buffer_word(0, inv, k)).collect();
        let got: Vec<u32> = (0..3).map(|s| slot(&res, &d, inv, s)).collect();
        assert_eq!(got, want);
        let buf = &res.results.buffers[0][(inv * 3) as usize..][..3];
        let mut expect: Vec<u32> = (0..3).map(|k| buffer_word(0, inv, k)).collect();
        expect[((inv + 4) % 3) as usize] = 77;
        expect[((inv + 5) % 3) as usize] = 88;
        assert_eq!(buf, expect);
    }
}

#[test]
fn ldp_stp_round_trip_and_unwritten_private_memory() {
    let d = dispatch(3, 2);
    let p = program(vec![
        alu2(Binary::MulLU, r(1, 0), rs(0, 0), imm(10)),
        alu2(Binary::AddU, r(1, 1), rs(0, 0), imm(1)).nop(3),
        nops(3),
        st(Space::Private, Some(r(0, 0)), 16, r(1, 0), 2),
        mov(r(1, 0), imm(0)).ss(), // clobber the spilled registers: (ss) ends the late read
        mov(r(1, 1), imm(0)),
        ld(Space::Private, r(3, 0), Some(r(0, 0)), 16, 2),
        st(Space::Output, None, 0, r(3, 0), 2).sy(),
        end(),
    ]);
    let res = run_default(&p, &d);
    assert_clean(&p, &res);
    assert_eq!((res.stats.stp, res.stats.ldp), (1, 1));
    for inv in 0..3 {
        assert_eq!(slot(&res, &d, inv, 0), inv * 10);
        assert_eq!(slot(&res, &d, inv, 1), inv + 1);
    }
    let bad = program(vec![
        ld(Space::Private, r(3, 0), None, 5, 1),
        st(Space::Output, None, 0, r(3, 0), 1).sy(),
        end(),
    ]);
    let res = run_default(&bad, &d);
    assert_eq!(
        res.hazards[0].kind,
        HazardKind::PrivateUninitialized { address: 5 }
    );
    assert_eq!(slot(&res, &d, 1, 0), 0);
}

#[test]
fn store_source_overwritten_too_early_is_a_hazard() {
    let d = dispatch(1, 1);
    let p = program(vec![
        mov(r(1, 0), imm(3)),
        nops(6),
        st(Space::Private, None, 0, r(1, 0), 1),
        mov(r(1, 0), imm(4)),
        end(),
    ]);
    let res = run_default(&p, &d);
    assert_eq!(res.hazards[0].kind, HazardKind::WriteAfterRead(Missing::Ss));
    assert_eq!(res.hazards[0].producer, Some(2));
}

#[test]
fn uniforms_through_consts_and_ldc() {
    let d = Dispatch {
        uniforms: vec![10, 20, 30],
        ..dispatch(4, 3)
    };
    let p = program(vec![
        alu2(Binary::AddU, r(1, 0), Src::Const(1), Src::Const(9)), // 20 + 0 (past the end)
        ld(Space::Uniform, r(2, 0), Some(r(0, 0)), 1, 1),          // uniforms[(id+1)%3]
        nops(5),
        st(Space::Output, None, 0, r(1, 0), 1),
        st(Space::Output, None, 1, r(2, 0), 1).sy(),
        end(),
    ]);
    let res = run_default(&p, &d);
    assert_clean(&p, &res);
    for inv in 0..4 {
        assert_eq!(slot(&res, &d, inv, 0), 20);
        assert_eq!(
            slot(&res, &d, inv, 1),
            [10, 20, 30][((inv + 1) % 3) as usize]
        );
    }
}

#[test]
fn alu_write_over_an_outstanding_load_is_a_hazard() {
    let d = Dispatch {
        buffers: vec![2],
        ..dispatch(1, 1)
    };
    let p = |sync: bool| {
        let over = mov(r(1, 0), imm(5));
        program(vec![
            ld(Space::Global(0), r(1, 0), None, 0, 1),
            ld(Space::Global(0), r(1, 0), None, 1, 1), // same class, lands later: fine
            if sync { over.sy() } else { over },
            nops(6),
            st(Space::Output, None, 0, r(1, 0), 1),
            end(),
        ])
    };
    let res = run_default(&p(true), &d);
    assert_clean(&p(true), &res);
    assert_eq!(slot(&res, &d, 0, 0), 5);
    let res = run_default(&p(false), &d);
    assert_eq!(res.hazards.len(), 1);
    assert_eq!(
        res.hazards[0].kind,
        HazardKind::WriteAfterWrite(Missing::Sy)
    );
    assert_eq!(
        (res.hazards[0].producer, res.hazards[0].consumer),
        (Some(1), 2)
    );
}
