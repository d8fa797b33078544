//! Divergence, reconvergence, the branch family, timeouts and faults.

use super::*;

#[test]
fn divergent_if_else_reconverges() {
    let d = dispatch(20, 2);
    let p = program(vec![
        cmps(CmpType::U, CmpCond::Lt, Reg::p(0), rs(0, 0), imm(10)),
        nops(6),
        br(Cond::not(0), 4),         // 2: to else
        mov(r(1, 0), imm(100)),      // 3: then
        nops(6),                     // 4
        jump(3),                     // 5: to endif
        mov(r(1, 0), imm(200)).jp(), // 6: else
        nops(6),                     // 7
        out(0, r(1, 0)).jp(),        // 8: endif
        out(1, r(0, 0)),             // 9: all fibers again
        end(),
    ]);
    let res = run_default(&p, &d);
    assert_clean(&p, &res);
    for inv in 0..20 {
        assert_eq!(slot(&res, &d, inv, 0), if inv < 10 { 100 } else { 200 });
        assert_eq!(slot(&res, &d, inv, 1), inv);
    }
    // The stores at 8 and 9 ran once, for the merged wave.
    assert_eq!(res.stats.categories[6], 2);
    assert_eq!(res.stats.instructions, 3 + 3 + 2 + 3);
    assert_eq!(
        res.stats.fiber_instructions,
        3 * 20 + 3 * 10 + 2 * 10 + 3 * 20
    );
}

/// `acc = sum(0..max(id,1))` by a do-while loop of `max(id, 1)` iterations.
fn loop_program(jp_at_exit: bool) -> Program {
    let exit = out(0, r(2, 0));
    program(vec![
        mov(r(1, 0), imm(0)),                                         // 0: i
        mov(r(2, 0), imm(0)),                                         // 1: acc
        nops(3),                                                      // 2
        alu2(Binary::AddU, r(2, 0), rs(2, 0), rs(1, 0)).jp(),         // 3: loop head
        alu2(Binary::AddU, r(1, 0), rs(1, 0), imm(1)).nop(3),         // 4
        cmps(CmpType::U, CmpCond::Lt, Reg::p(0), rs(1, 0), rs(0, 0)), // 5
        nops(6),                                                      // 6
        br(Cond::p(0), -4),                                           // 7: back edge
        if jp_at_exit { exit.jp() } else { exit },                    // 8
        end(),
    ])
}

#[test]
fn loop_exits_at_different_iterations_and_reconverges() {
    let d = dispatch(70, 1);
    let p = loop_program(true);
    let res = run_default(&p, &d);
    assert_clean(&p, &res);
    for inv in 0..70 {
        let n = inv.max(1);
        assert_eq!(slot(&res, &d, inv, 0), n * (n - 1) / 2, "invocation {inv}");
    }
    // Wave 0 loops 63 times, wave 1 (invocations 64..70) 69 times; the store runs once per wave.
    assert_eq!(res.stats.stp, 0);
    assert_eq!(res.stats.categories[6], 2);
    // The profile counts each instruction's issues: the body's per iteration, the rest per
    // wave, and adds up to the instructions issued.
    assert_eq!(res.profile.len(), p.instrs.len());
    assert_eq!(res.profile.iter().sum::<u64>(), res.stats.instructions);
    assert_eq!(res.profile[0], 2);
    assert_eq!(res.profile[3], 63 + 69);
    let body = 5; // instructions 3..=7
    assert_eq!(
        res.stats.instructions,
        2 * 3 + 63 * body + 69 * body + 2 * 2
    );
}

#[test]
fn rejoining_without_jp_is_a_hazard() {
    let d = dispatch(4, 1);
    let res = run_default(&loop_program(false), &d);
    assert_eq!(res.hazards[0].kind, HazardKind::MissingJp);
    assert_eq!(res.hazards[0].consumer, 8);
    assert_eq!(slot(&res, &d, 3, 0), 3);
}

/// Sets p0.x = bit 0 and p0.y = bit 1 of the invocation id (bit ops writing predicates), then
/// writes 1 if `branch` is taken, else 0.
fn two_predicate_branch(branch: Op) -> Program {
    program(vec![
        alu2(Binary::AndB, Reg::p(0), rs(0, 0), imm(1)),
        alu2(Binary::ShrB, r(1, 0), rs(0, 0), imm(1)).nop(3),
        alu2(Binary::AndB, Reg::p(1), rs(1, 0), imm(1)),
        mov(r(2, 0), imm(0)),
        mov(r(3, 0), imm(1)),
        nops(6),
        Instr::new(branch), // 6
        out(0, r(2, 0)),
        end(),
        out(0, r(3, 0)).jp(), // 9
        end(),
    ])
}

#[test]
fn braa_and_brao_with_invert_bits() {
    let d = dispatch(4, 1);
    for inv_a in [false, true] {
        for inv_b in [false, true] {
            let a = Cond {
                pred: 0,
                inv: inv_a,
            };
            let b = Cond {
                pred: 1,
                inv: inv_b,
            };
            for and in [true, false] {
                let op = if and {
                    Op::Braa { a, b, offset: 3 }
                } else {
                    Op::Brao { a, b, offset: 3 }
                };
                let p = two_predicate_branch(op);
                let res = run_default(&p, &d);
                assert_clean(&p, &res);
                for inv in 0..4u32 {
                    let pa = (inv & 1 == 1) != inv_a;
                    let pb = (inv >> 1 & 1 == 1) != inv_b;
                    let want = if and { pa && pb } else { pa || pb };
                    assert_eq!(slot(&res, &d, inv, 0), want as u32, "{op} inv {inv}");
                }
            }
        }
    }
}

#[test]
fn predicate_bit_ops_and_cmps_to_gpr() {
    let d = dispatch(8, 2);
    // p0.z = (id < 5) and (id odd), via cmps into p0.x and and.b of predicates.
    let p = program(vec![
        cmps(CmpType::S, CmpCond::Lt, Reg::p(0), rs(0, 0), imm(5)),
        alu2(Binary::AndB, Reg::p(1), rs(0, 0), imm(1)),
        nops(6),
        alu2(
            Binary::AndB,
            Reg::p(2),
            Src::Reg(Reg::p(0)),
            Src::Reg(Reg::p(1)),
        ),
        cmps(CmpType::F, CmpCond::Ne, r(4, 0), fimm(f32::NAN), fimm(1.0)),
        nops(6),
        mov(r(1, 0), imm(0)),
        mov(r(1, 1), imm(1)),
        nops(6),
        br(Cond::p(2), 3),
        out(0, r(1, 0)),
        jump(2),
        out(0, r(1, 1)).jp(),
        out(1, r(4, 0)).jp(),
        end(),
    ]);
    let res = run_default(&p, &d);
    assert_clean(&p, &res);
    for inv in 0..8 {
        assert_eq!(slot(&res, &d, inv, 0), (inv < 5 && inv % 2 == 1) as u32);
        assert_eq!(slot(&res, &d, inv, 1), 1, "NaN != 1.0");
    }
}

#[test]
fn bany_ball_getone() {
    let d = dispatch(4, 1);
    let uniform = |op: Op| {
        program(vec![
            cmps(CmpType::U, CmpCond::Eq, Reg::p(0), rs(0, 0), imm(2)),
            mov(r(2, 0), imm(0)),
            mov(r(3, 0), imm(1)),
            nops(6),
            Instr::new(op), // 4
            out(0, r(2, 0)),
            end(),
            out(0, r(3, 0)).jp(), // 7
            end(),
        ])
    };
    let outs = |op| {
        let p = uniform(op);
        let res = run_default(&p, &d);
        assert_clean(&p, &res);
        (0..4).map(|i| slot(&res, &d, i, 0)).collect::<Vec<_>>()
    };
    let cond = Cond::p(0);
    assert_eq!(outs(Op::Bany { cond, offset: 3 }), [1, 1, 1, 1]);
    assert_eq!(outs(Op::Ball { cond, offset: 3 }), [0, 0, 0, 0]);
    assert_eq!(
        outs(Op::Ball {
            cond: Cond::not(0),
            offset: 3
        }),
        [0, 0, 0, 0]
    );
    assert_eq!(outs(Op::Getone { offset: 3 }), [0, 1, 1, 1]);
}

#[test]
fn endless_loop_times_out() {
    let d = dispatch(1, 1);
    let p = program(vec![nops(2), jump(-1)]);
    let cfg = Config {
        cycle_budget: 1000,
        ..Config::default()
    };
    let res = run(&p, &d, &cfg);
    assert_eq!(res.outcome, Outcome::Timeout);
    assert!(res.stats.cycles <= 1002);
    // With no cycle limit, the instruction budget stops it, exactly there.
    let cfg = Config {
        cycle_budget: u64::MAX,
        instruction_budget: 500,
        ..Config::default()
    };
    let res = run(&p, &d, &cfg);
    assert_eq!(res.outcome, Outcome::Timeout);
    assert_eq!(res.stats.instructions, 500);
}

#[test]
fn bad_programs_fault_without_panicking() {
    let d = dispatch(1, 1);
    let faults = |p: Program, cfg: Config| match run(&p, &d, &cfg).outcome {
        Outcome::Fault(f) => f.kind,
        o => panic!("expected a fault, got {o:?}"),
    };
    let c = Config::default();
    assert_eq!(
        faults(program(vec![jump(5), end()]), c),
        FaultKind::BranchOutOfRange { target: 5 }
    );
    assert_eq!(
        faults(program(vec![mov(r(1, 0), imm(0))]), c),
        FaultKind::FellOffEnd
    );
    let small = Config {
        registers: 8,
        predicates: 1,
        ..c
    };
    assert_eq!(
        faults(program(vec![mov(r(2, 0), imm(0)), end()]), small),
        FaultKind::RegisterOutOfBudget
    );
    assert_eq!(
        faults(program(vec![br(Cond::p(1), 1), end()]), small),
        FaultKind::PredicateUnavailable
    );
    assert_eq!(
        faults(program(vec![mov(r(1, 0), imm(0)).nop(1), end()]), c),
        FaultKind::BadNop
    );
    assert_eq!(
        faults(program(vec![mov(Reg::p(0), imm(0)), end()]), c),
        FaultKind::WrongRegisterFile
    );
    assert_eq!(faults(program(vec![]), c), FaultKind::Empty);
}

#[test]
fn wave_128_runs_the_same() {
    let d = dispatch(200, 1);
    let p = loop_program(true);
    let cfg = Config {
        wave: WaveSize::W128,
        ..Config::default()
    };
    let res = run(&p, &d, &cfg);
    assert_clean(&p, &res);
    assert_eq!(res.results, run_default(&p, &d).results);
    assert_eq!(slot(&res, &d, 199, 0), 199 * 198 / 2);
}

#[test]
fn writes_in_one_branch_do_not_delay_the_other_branch() {
    // The then-side writes r1.x (ALU) and r2.x (texture-free async: rcp) just before leaving;
    // the else-side reads its own fibers' r1.x and r2.x at once. Different fibers: clean.
    let d = dispatch(8, 1);
    let p = program(vec![
        mov(r(1, 0), imm(3)),
        mov(r(2, 0), imm(4)),
        cmps(CmpType::U, CmpCond::Lt, Reg::p(0), rs(0, 0), imm(4)),
        nops(6),
        br(Cond::not(0), 4), // 4: to else
        Instr::new(Op::Sfu {
            op: SfuOp::Rcp,
            dst: r(2, 0),
            src: fimm(2.0),
        }),
        mov(r(1, 0), imm(10)),
        jump(2),                                              // 7: to endif
        alu2(Binary::AddU, r(1, 0), rs(1, 0), rs(2, 0)).jp(), // 8: else: 3 + 4
        nops(6).jp(),                                         // 9: endif
        out(0, r(1, 0)).ss(),
        end(),
    ]);
    let res = run_default(&p, &d);
    assert_clean(&p, &res);
    for inv in 0..8 {
        assert_eq!(slot(&res, &d, inv, 0), if inv < 4 { 10 } else { 7 });
    }
}
