//! Cycle counts of short straight-line sequences, worked out from the model in `timing.rs`.

use super::*;

fn stats(w: ExecSize, v: Vec<Inst>) -> Stats {
    let r = go(&prog(w, Gen::Gen9, v), &dispatch(w.lanes(), 1));
    r.stats
}

#[test]
fn dependent_and_independent_alu() {
    let w = ExecSize::S8;
    let add = |dst: u8, src: u8| {
        bin(
            Op::Add,
            w,
            dst,
            Type::UD,
            Src::grf(src, Type::UD),
            Src::ud(1),
        )
    };
    // 0: issue 0..2, g10 ready 8; 1: stalls 6, issue 8..10, g11 ready 16.
    let s = stats(w, vec![add(10, 1), add(11, 10)]);
    assert_eq!(
        (
            s.cycles,
            s.stall_cycles,
            s.instructions,
            s.lane_instructions
        ),
        (16, 6, 2, 16)
    );
    // Independent: 0..2, 2..4, last ready 10.
    let s = stats(w, vec![add(10, 1), add(11, 1)]);
    assert_eq!((s.cycles, s.stall_cycles), (10, 0));
    // SIMD16: 4 issue cycles per instruction: 0..4, 4..8, ready 12.
    let w = ExecSize::S16;
    let add16 = |dst: u8| bin(Op::Add, w, dst, Type::UD, Src::grf(1, Type::UD), Src::ud(1));
    let s = stats(w, vec![add16(10), add16(12)]);
    assert_eq!((s.cycles, s.stall_cycles), (12, 0));
}

#[test]
fn math_and_send_latencies() {
    let w = ExecSize::S8;
    // inv: issue 0..4, ready 16; add waits 12, issue 16..18, ready 24.
    let s = stats(
        w,
        vec![
            Inst::unary(Op::Math(MathFn::Inv), w, Dst::grf(10, Type::F), Src::f(2.0)),
            bin(Op::Add, w, 11, Type::F, Src::grf(10, Type::F), Src::f(1.0)),
        ],
    );
    assert_eq!((s.cycles, s.stall_cycles), (24, 12));

    // mov 0..2 (g20 ready 8), mov 2..4 (g21 ready 10), send waits to 10, issues 10..12,
    // response ready 10 + 8 + 2*2 + 100 = 122; the dependent mov waits 110, 122..124, ready 130.
    let d = Dispatch {
        invocations: 8,
        uniforms: vec![1, 2, 3],
        ..Dispatch::default()
    };
    let v = vec![
        mov(w, 20, Type::UD, Src::grf(1, Type::UD)),
        mov(w, 21, Type::UD, Src::ud(0)),
        Inst::send(
            w,
            Dst::grf(40, Type::UD),
            20,
            SendDesc::new(
                Message::UntypedRead {
                    surface: Surface::Uniform,
                    channels: 1,
                },
                2,
                1,
                true,
            ),
        ),
        mov(w, 50, Type::UD, Src::grf(40, Type::UD)),
    ];
    let r = run(&prog(w, Gen::Gen9, v), &d, &Config::default()).unwrap();
    // The header (g20) is the invocation ids here: written, so no hazard.
    assert!(r.hazards.is_empty());
    assert_eq!((r.stats.cycles, r.stats.stall_cycles), (130, 6 + 110));
    assert_eq!((r.stats.sends, r.stats.send_mlen), (1, 2));
}

#[test]
fn control_flow_costs_front_end_cycles() {
    let w = ExecSize::S8;
    // if 0..8, mov 8..10 (ready 16), endif 10..18.
    let v = vec![
        Inst::control(Op::If { jip: 2, uip: 2 }, w),
        mov(w, 10, Type::UD, Src::ud(1)),
        Inst::control(Op::EndIf, w),
    ];
    let s = stats(w, v);
    assert_eq!((s.cycles, s.instructions), (18, 3));
}
