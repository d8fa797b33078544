//! Throughput of the a6xx simulator on an ALU-heavy loop: prints simulated
//! fiber-instructions per second (goal: ≥ 100 million on one core).
//!
//! The loop body is 12 instructions with four interleaved dependency chains, so it needs no
//! nops and runs hazard-free; every invocation runs the same trip count.

use std::time::Instant;

use sim::a6xx::{
    run, Binary, CmpCond, CmpType, Cond, Config, Instr, Op, Outcome, Program, Reg, Space, Src,
    Ternary, WaveSize,
};
use sim::dispatch::Dispatch;

fn r(n: u8, c: u8) -> Reg {
    Reg::r(n, c)
}

fn s(n: u8, c: u8) -> Src {
    Src::Reg(r(n, c))
}

fn alu2(op: Binary, dst: Reg, a: Src, b: Src) -> Instr {
    Instr::new(Op::Alu2 { op, dst, a, b })
}

fn program(trips: u32) -> Program {
    let mov = |d: Reg, v: f32| {
        Instr::new(Op::Mov {
            dst: d,
            src: Src::Imm(v.to_bits()),
        })
    };
    let mad = Instr::new(Op::Alu3 {
        op: Ternary::MadF32,
        dst: r(1, 2),
        a: s(1, 2),
        b: s(2, 2),
        c: s(2, 3),
    });
    let mut v = vec![
        mov(r(1, 0), 0.0),
        mov(r(1, 1), 1.0),
        mov(r(1, 2), 0.5),
        mov(r(1, 3), 0.0),
        mov(r(2, 0), 0.25),
        mov(r(2, 1), 1.0001),
        mov(r(2, 2), 0.999),
        mov(r(2, 3), 0.125),
        mov(r(3, 0), 0.0),
        mov(r(4, 0), 0.0),
        Instr::new(Op::Nop { repeat: 5 }),
    ];
    let body = [
        alu2(Binary::AddU, r(3, 0), s(3, 0), Src::Imm(1)).jp(),
        alu2(Binary::AddF, r(1, 0), s(1, 0), s(2, 0)),
        alu2(Binary::MulF, r(1, 1), s(1, 1), s(2, 1)),
        mad,
        Instr::new(Op::Cmps {
            ty: CmpType::U,
            cond: CmpCond::Lt,
            dst: Reg::p(0),
            a: s(3, 0),
            b: Src::Imm(trips),
        }),
        alu2(Binary::AddU, r(1, 3), s(1, 3), Src::Imm(3)),
        alu2(Binary::AddF, r(1, 0), s(1, 0), s(2, 0)),
        alu2(Binary::MulF, r(1, 1), s(1, 1), s(2, 1)),
        mad,
        alu2(Binary::AddU, r(1, 3), s(1, 3), Src::Imm(3)),
        alu2(Binary::XorB, r(4, 0), s(4, 0), s(0, 0)),
        Instr::new(Op::Br {
            cond: Cond::p(0),
            offset: -11,
        }),
    ];
    v.extend(body);
    v.push(Instr::new(Op::Nop { repeat: 5 }).jp());
    v.push(Instr::new(Op::Store {
        space: Space::Output,
        addr: sim::a6xx::Addr {
            base: None,
            offset: 0,
        },
        src: r(1, 0),
        count: 4,
    }));
    v.push(Instr::new(Op::End));
    Program { instrs: v }
}

fn main() {
    let dispatch = Dispatch {
        invocations: 256,
        outputs: 4,
        ..Dispatch::default()
    };
    let p = program(5000);
    for wave in [WaveSize::W64, WaveSize::W128] {
        let config = Config {
            wave,
            cycle_budget: u64::MAX,
            ..Config::default()
        };
        let mut best = f64::MAX;
        let mut fi = 0;
        for _ in 0..5 {
            let t = Instant::now();
            let res = run(&p, &dispatch, &config);
            let dt = t.elapsed().as_secs_f64();
            assert_eq!(res.outcome, Outcome::Completed);
            assert!(res.hazards.is_empty(), "{:?}", res.hazards);
            fi = res.stats.fiber_instructions;
            best = best.min(dt);
        }
        println!(
            "a6xx {wave:?}: {fi} fiber-instructions in {:.1} ms: {:.0} M fiber-instructions/s",
            best * 1e3,
            fi as f64 / best / 1e6
        );
    }
}
