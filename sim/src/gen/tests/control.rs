//! Structured control flow under divergent masks: if/else nesting, loops that lanes leave at
//! different iterations through predicated and block-nested break/cont, predicated while,
//! and the cycle budget.

use super::*;

fn widths() -> [ExecSize; 2] {
    [ExecSize::S8, ExecSize::S16]
}

fn cf(op: Op, w: ExecSize) -> Inst {
    Inst::control(op, w)
}

#[test]
fn divergent_nested_if_else() {
    for w in widths() {
        let id = Src::grf(1, Type::D);
        let mut v = vec![
            mov(w, 10, Type::UD, Src::ud(0)),
            cmp(w, CondMod::L, Flag::F0_0, id, Src::d(3)),
            cf(Op::If { jip: 4, uip: 10 }, w).predicated(Flag::F0_0, false),
            mov(w, 10, Type::UD, Src::ud(100)),
            cf(Op::Else { jip: 10 }, w),
            mov(w, 10, Type::UD, Src::ud(200)),
            cmp(w, CondMod::Ge, Flag::F0_1, id, Src::d(10)),
            cf(Op::If { jip: 9, uip: 9 }, w).predicated(Flag::F0_1, false),
            mov(w, 10, Type::UD, Src::ud(300)),
            cf(Op::EndIf, w),
            cf(Op::EndIf, w),
        ];
        v.extend(store(w, 10, 0, 1));
        let d = dispatch(13, 1);
        let r = go(&prog(w, Gen::Gen9, v), &d);
        assert!(r.hazards.is_empty(), "{:?}", r.hazards);
        for i in 0..13 {
            let e = if i < 3 {
                100
            } else if i < 10 {
                200
            } else {
                300
            };
            assert_eq!(out(&r, &d, i, 0), e, "{w:?} inv {i}");
        }
    }
}

#[test]
fn predicated_break_and_cont_with_per_lane_trip_counts() {
    for w in widths() {
        let p = per(w);
        let r = |k: u8| 10 + k * p;
        let ud = |k: u8| Src::grf(r(k), Type::UD);
        let mut v = vec![
            mov(w, r(0), Type::UD, Src::ud(0)),
            mov(w, r(1), Type::UD, Src::ud(0)),
            bin(
                Op::Math(MathFn::IntMod),
                w,
                r(2),
                Type::UD,
                Src::grf(1, Type::UD),
                Src::ud(5),
            ),
            cf(Op::Do, w),
            bin(Op::Add, w, r(0), Type::UD, ud(0), Src::ud(1)),
            cmp(w, CondMod::G, Flag::F0_0, ud(0), ud(2)),
            cf(Op::Break { uip: 11 }, w).predicated(Flag::F0_0, false),
            bin(Op::And, w, r(3), Type::UD, ud(0), Src::ud(1)).with_cmod(CondMod::Nz, Flag::F0_1),
            cf(Op::Cont { uip: 11 }, w).predicated(Flag::F0_1, false),
            bin(Op::Add, w, r(1), Type::UD, ud(1), ud(0)),
            bin(Op::Shl, w, r(4), Type::UD, ud(1), Src::ud(1)),
            cf(Op::While { jip: 4 }, w),
        ];
        v.extend(store(w, r(0), 0, 2));
        let d = dispatch(21, 2);
        let program = prog(w, Gen::Gen9, v);
        let run = go(&program, &d);
        assert!(run.hazards.is_empty(), "{:?}", run.hazards);
        // The profile: every instruction's executions over the threads, adding up to the
        // instructions executed; the first ran once per thread.
        assert_eq!(run.profile.len(), program.insts.len());
        assert_eq!(run.profile.iter().sum::<u64>(), run.stats.instructions);
        assert_eq!(run.profile[0], run.stats.threads);
        for i in 0..21 {
            let limit = i % 5;
            let (mut c, mut sum) = (0, 0);
            loop {
                c += 1;
                if c > limit {
                    break;
                }
                if c & 1 != 0 {
                    continue;
                }
                sum += c;
            }
            assert_eq!(out(&run, &d, i, 0), c, "{w:?} inv {i}");
            assert_eq!(out(&run, &d, i, 1), sum, "{w:?} inv {i}");
        }
    }
}

#[test]
fn break_and_cont_inside_if_blocks_with_an_inner_predicated_while() {
    for w in widths() {
        let p = per(w);
        let r = |k: u8| 10 + k * p;
        let ud = |k: u8| Src::grf(r(k), Type::UD);
        let add = |k: u8, b: Src| bin(Op::Add, w, r(k), Type::UD, ud(k), b);
        let mut v = vec![
            mov(w, r(0), Type::UD, Src::ud(0)),
            mov(w, r(1), Type::UD, Src::ud(0)),
            bin(
                Op::Math(MathFn::IntMod),
                w,
                r(2),
                Type::UD,
                Src::grf(1, Type::UD),
                Src::ud(4),
            ),
            add(2, Src::ud(1)),
            cf(Op::Do, w), // 4
            add(0, Src::ud(1)),
            mov(w, r(3), Type::UD, Src::ud(0)),
            cf(Op::Do, w), // 7
            add(1, ud(3)),
            add(3, Src::ud(1)),
            cmp(w, CondMod::L, Flag::F0_1, ud(3), ud(0)),
            cf(Op::While { jip: 8 }, w).predicated(Flag::F0_1, false), // 11
            cmp(w, CondMod::Z, Flag::F0_0, ud(0), ud(2)),
            cf(Op::If { jip: 16, uip: 18 }, w).predicated(Flag::F0_0, false), // 13
            add(1, Src::ud(1000)),
            cf(Op::Break { uip: 24 }, w),
            cf(Op::Else { jip: 18 }, w), // 16
            add(1, Src::ud(1)),
            cf(Op::EndIf, w), // 18
            Inst::binary(Op::And, w, Dst::Null(Type::UD), ud(0), Src::ud(1))
                .with_cmod(CondMod::Nz, Flag::F0_0),
            cf(Op::If { jip: 22, uip: 22 }, w).predicated(Flag::F0_0, false), // 20
            cf(Op::Cont { uip: 24 }, w),
            cf(Op::EndIf, w), // 22
            add(1, Src::ud(100)),
            cf(Op::While { jip: 5 }, w), // 24
        ];
        v.extend(store(w, r(0), 0, 2));
        let d = dispatch(19, 2);
        let pr = prog(w, Gen::Gen9, v);
        let run = go(&pr, &d);
        assert!(run.hazards.is_empty(), "{:?}", run.hazards);
        for i in 0..19 {
            let limit = i % 4 + 1;
            let (mut c, mut sum) = (0u32, 0u32);
            loop {
                c += 1;
                let mut j = 0;
                loop {
                    sum += j;
                    j += 1;
                    if j >= c {
                        break;
                    }
                }
                if c == limit {
                    sum += 1000;
                    break;
                } else {
                    sum += 1;
                }
                if c & 1 != 0 {
                    continue;
                }
                sum += 100;
            }
            assert_eq!(out(&run, &d, i, 0), c, "{w:?} inv {i}\n{pr}");
            assert_eq!(out(&run, &d, i, 1), sum, "{w:?} inv {i}");
        }
    }
}

#[test]
fn endless_loop_times_out() {
    let w = ExecSize::S8;
    let v = vec![
        cf(Op::Do, w),
        bin(Op::Add, w, 10, Type::UD, Src::grf(1, Type::UD), Src::ud(1)),
        cf(Op::While { jip: 1 }, w),
    ];
    let d = dispatch(20, 1);
    let config = Config {
        max_cycles: 10_000,
        ..Config::default()
    };
    let r = run(&prog(w, Gen::Gen9, v.clone()), &d, &config).unwrap();
    assert_eq!(r.outcome, Outcome::Timeout);
    assert!(
        r.stats.cycles >= 10_000 && r.stats.cycles < 10_100,
        "{}",
        r.stats.cycles
    );
    assert_eq!(r.stats.threads, 1);
    // With no cycle limit, the instruction budget stops it, exactly there.
    let config = Config {
        max_cycles: u64::MAX,
        max_instructions: 3_000,
        ..Config::default()
    };
    let r = run(&prog(w, Gen::Gen9, v), &d, &config).unwrap();
    assert_eq!(r.outcome, Outcome::Timeout);
    assert_eq!(r.stats.instructions, 3_000);
}

#[test]
fn unstructured_or_mistargeted_control_flow_is_rejected() {
    let w = ExecSize::S8;
    let bad_jip = vec![
        cf(Op::If { jip: 3, uip: 2 }, w),
        cf(Op::Nop, w),
        cf(Op::EndIf, w),
    ];
    let e = validate(&prog(w, Gen::Gen9, bad_jip), None).unwrap_err();
    assert_eq!(
        e[0].problem,
        Problem::JumpTarget {
            expected: 2,
            found: 3
        }
    );
    let stray = vec![cf(Op::Break { uip: 0 }, w), cf(Op::Do, w)];
    let e = validate(&prog(w, Gen::Gen9, stray), None).unwrap_err();
    assert!(e
        .iter()
        .any(|e| matches!(e.problem, Problem::Unstructured(_))));
    let wide = vec![mov(ExecSize::S16, 10, Type::UD, Src::ud(0))];
    let e = validate(&prog(w, Gen::Gen9, wide), None).unwrap_err();
    assert_eq!(e[0].problem, Problem::ExecSize);
    let out_of_range = vec![
        mov(w, 127, Type::UD, Src::grf(127, Type::UD)),
        mov(
            ExecSize::S8,
            10,
            Type::UD,
            Src::Grf(GrfSrc {
                reg: 127,
                subreg: 4,
                ty: Type::UD,
                region: Region::Vector,
                neg: false,
                abs: false,
            }),
        ),
    ];
    let e = validate(&prog(w, Gen::Gen9, out_of_range), None).unwrap_err();
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].inst, 1);
    assert_eq!(
        e[0].problem,
        Problem::RegisterOutOfRange { operand: "src0" }
    );
}
