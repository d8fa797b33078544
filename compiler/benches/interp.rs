//! Interpreter throughput: a loop-heavy program (nested loops, integer and float ALU ops,
//! header phis) over 64 invocations, run many times through one reused `Interpreter`;
//! prints executed IR instructions per second. `cargo bench -p compiler --bench interp`.

use compiler::interp::{Interpreter, RunOptions};
use compiler::ir::{AluOp, Builder, InstKind, PhiSource, Program, Type};
use sim::dispatch::Dispatch;
use std::time::Instant;

/// `for i in 0..16 { for j in 0..8 + id % 8 { x = mix(x, j) } acc += x }`, output `acc`.
fn program() -> Program {
    let mut b = Builder::new();
    let b0 = b.current_block();
    let id = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let zero = b.iconst(0);
    let one = b.iconst(1);
    let seven = b.iconst(7);
    let eight = b.iconst(8);
    let sixteen = b.iconst(16);
    let mul = b.iconst(1_664_525);
    let add = b.iconst(1_013_904_223);
    let three = b.iconst(3);
    let half = b.fconst(0.5);
    let low = b.alu(AluOp::Iand, &[id, seven]);
    let bound = b.alu(AluOp::Iadd, &[low, eight]);
    b.begin_loop();
    let (i, i_phi) = b.phi(
        Type::I32,
        vec![PhiSource {
            pred: b0,
            value: zero,
        }],
    );
    let (acc, acc_phi) = b.phi(
        Type::I32,
        vec![PhiSource {
            pred: b0,
            value: id,
        }],
    );
    let done = b.alu(AluOp::Ige, &[i, sixteen]);
    b.begin_if(done);
    b.brk();
    b.begin_else();
    let pre = b.end_if();
    b.begin_loop();
    let (j, j_phi) = b.phi(
        Type::I32,
        vec![PhiSource {
            pred: pre,
            value: zero,
        }],
    );
    let (x, x_phi) = b.phi(
        Type::I32,
        vec![PhiSource {
            pred: pre,
            value: acc,
        }],
    );
    let jdone = b.alu(AluOp::Ige, &[j, bound]);
    b.begin_if(jdone);
    b.brk();
    b.begin_else();
    b.end_if();
    let x1 = b.alu(AluOp::Imul, &[x, mul]);
    let x2 = b.alu(AluOp::Iadd, &[x1, add]);
    let x3 = b.alu(AluOp::Ixor, &[x2, j]);
    let y = b.alu(AluOp::Ushr, &[x3, three]);
    let f = b.alu(AluOp::U2f, &[y]);
    let g = b.alu(AluOp::Fmul, &[f, half]);
    let h = b.alu(AluOp::F2u, &[g]);
    let x4 = b.alu(AluOp::Iadd, &[x3, h]);
    let j1 = b.alu(AluOp::Iadd, &[j, one]);
    let inner_latch = b.current_block();
    b.add_phi_source(j_phi, inner_latch, j1);
    b.add_phi_source(x_phi, inner_latch, x4);
    let after = b.end_loop();
    let acc1 = b.alu(AluOp::Iadd, &[acc, x]);
    let i1 = b.alu(AluOp::Iadd, &[i, one]);
    b.add_phi_source(i_phi, after, i1);
    b.add_phi_source(acc_phi, after, acc1);
    b.end_loop();
    b.ins(
        InstKind::StoreOutput {
            slot: 0,
            value: acc,
        },
        Type::None,
    );
    Program {
        dispatch: Dispatch {
            invocations: 64,
            outputs: 1,
            ..Dispatch::default()
        },
        func: b.finish(),
    }
}

fn main() {
    let p = program();
    let opts = RunOptions::default();
    let mut interp = Interpreter::new();
    let (expected, stats) = interp.run_with_stats(&p, &opts).expect("the program runs");
    let per_run = stats.executed_insts;
    let runs = 2_000u32;
    let start = Instant::now();
    for _ in 0..runs {
        let r = interp
            .run(std::hint::black_box(&p), &opts)
            .expect("the program runs");
        assert_eq!(r, expected);
    }
    let secs = start.elapsed().as_secs_f64();
    let total = per_run as f64 * f64::from(runs);
    println!(
        "interp: {runs} runs x 64 invocations, {per_run} IR instructions per run, {secs:.3} s: \
         {:.1} M instructions/s ({:.1} us/run)",
        total / secs / 1e6,
        secs / f64::from(runs) * 1e6,
    );
    let start = Instant::now();
    for _ in 0..runs / 4 {
        interp
            .run_with_stats(std::hint::black_box(&p), &opts)
            .expect("the program runs");
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "interp with stats: {:.1} M instructions/s",
        per_run as f64 * f64::from(runs / 4) / secs / 1e6
    );
}
