//! Throughput of the Gen EU simulator on ALU-heavy loops: simulated lane-instructions per
//! second on one core. Run with `cargo bench -p sim --bench gen`.

use sim::dispatch::Dispatch;
use sim::gen::{
    run, CondMod, Config, Dst, ExecSize, Flag, Gen, Inst, Message, Op, Program, SendDesc, Src,
    Surface, Type,
};
use std::hint::black_box;
use std::time::Instant;

mod cpu_time;
use cpu_time::cpu_seconds;

/// A loop of `trips` iterations of eight integer and float ALU ops, then a store of two values.
fn program(w: ExecSize, trips: u32) -> Program {
    let p = w.regs() as u8;
    let r = |k: u8| 10 + k * p;
    let ud = |k: u8| Src::grf(r(k), Type::UD);
    let fl = |k: u8| Src::grf(r(k), Type::F);
    let bin =
        |op: Op, k: u8, ty: Type, a: Src, b: Src| Inst::binary(op, w, Dst::grf(r(k), ty), a, b);
    let mov = |k: u8, ty: Type, a: Src| Inst::unary(Op::Mov, w, Dst::grf(r(k), ty), a);
    let insts = vec![
        mov(0, Type::UD, Src::grf(1, Type::UD)),
        mov(1, Type::UD, Src::ud(0)),
        mov(2, Type::F, Src::f(1.0)),
        mov(3, Type::UD, Src::ud(0)),
        Inst::control(Op::Do, w),
        bin(Op::Add, 1, Type::UD, ud(1), Src::ud(1)),
        bin(Op::Mul, 3, Type::UD, ud(3), Src::ud(3)),
        bin(Op::Xor, 3, Type::UD, ud(3), ud(0)),
        bin(Op::Shr, 4, Type::UD, ud(3), Src::ud(3)),
        bin(Op::Add, 3, Type::UD, ud(3), ud(4)),
        Inst::new(
            Op::Mad,
            w,
            Dst::grf(r(2), Type::F),
            [Src::f(0.5), fl(2), Src::f(0.999)],
        ),
        bin(Op::Sel, 5, Type::F, fl(2), Src::f(0.25)).with_cmod(CondMod::Ge, Flag::F0_0),
        bin(Op::Add, 2, Type::F, fl(5), Src::f(-0.001)),
        Inst::binary(Op::Cmp, w, Dst::Null(Type::UD), ud(1), Src::ud(trips))
            .with_cmod(CondMod::L, Flag::F0_0),
        Inst::control(Op::While { jip: 5 }, w).predicated(Flag::F0_0, false),
        mov(6, Type::UD, Src::ud(0)),
        mov(7, Type::UD, ud(3)),
        mov(8, Type::UD, ud(2)),
        Inst::send(
            w,
            Dst::Null(Type::UD),
            r(6),
            SendDesc::new(
                Message::UntypedWrite {
                    surface: Surface::Output,
                    channels: 2,
                },
                3 * p,
                0,
                false,
            ),
        ),
    ];
    Program {
        width: w,
        gen: Gen::Gen9,
        insts,
    }
}

fn main() {
    let d = Dispatch {
        invocations: 256,
        outputs: 2,
        ..Dispatch::default()
    };
    let config = Config {
        max_cycles: u64::MAX,
        ..Config::default()
    };
    for w in [ExecSize::S8, ExecSize::S16] {
        let p = program(w, 2000);
        let first = run(&p, &d, &config).expect("valid");
        assert!(first.hazards.is_empty(), "{:?}", first.hazards);
        let start = Instant::now();
        let cpu0 = cpu_seconds();
        let mut lanes = 0u64;
        let mut insts = 0u64;
        let mut reps = 0;
        while start.elapsed().as_secs_f64() < 2.0 {
            let r = run(black_box(&p), black_box(&d), &config).expect("valid");
            lanes += r.stats.lane_instructions;
            insts += r.stats.instructions;
            reps += 1;
            black_box(r.results);
        }
        let wall = start.elapsed().as_secs_f64();
        let secs = match (cpu0, cpu_seconds()) {
            (Some(a), Some(b)) if b > a => b - a,
            _ => wall,
        };
        println!(
            "gen SIMD{:<2}: {reps} runs, {:.1} M lane-instructions/s, {:.2} M instructions/s \
             per CPU second ({:.0}% of wall time on CPU), {} cycles per run",
            w.lanes(),
            lanes as f64 / secs / 1e6,
            insts as f64 / secs / 1e6,
            100.0 * secs / wall,
            first.stats.cycles,
        );
    }
}
