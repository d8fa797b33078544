//! Hand-written programs with hand-computed results: control flow here, memory and textures in
//! [`memory`], malformed programs and fuel in [`errors`].

mod atomics;
mod errors;
mod memory;
mod subgroups;
mod workgroups;

use super::*;
use crate::ir::{AluOp, Builder, Function, InstKind, PhiSource, Type};
use sim::dispatch::Dispatch;

/// A program of `f` over `invocations` invocations with `outputs` output slots.
pub(super) fn prog(f: Function, invocations: u32, outputs: u32) -> Program {
    Program {
        dispatch: Dispatch {
            invocations,
            outputs,
            ..Dispatch::default()
        },
        func: f,
    }
}

pub(super) fn src(pred: crate::ir::Block, value: crate::ir::Value) -> PhiSource {
    PhiSource { pred, value }
}

/// Outer loop `i in 0..id+2`, inner loop `j in 0..5` skipping `j == 2` by `continue`,
/// summing `i * j`; outputs (sum, final i).
#[test]
fn nested_loops_with_break_and_continue() {
    let mut b = Builder::new();
    let b0 = b.current_block();
    let zero = b.iconst(0);
    let one = b.iconst(1);
    let two = b.iconst(2);
    let five = b.iconst(5);
    let id = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let bound = b.alu(AluOp::Iadd, &[id, two]);
    let b1 = b.begin_loop();
    let (i, i_phi) = b.phi(Type::I32, vec![src(b0, zero)]);
    let (s, s_phi) = b.phi(Type::I32, vec![src(b0, zero)]);
    let done = b.alu(AluOp::Ige, &[i, bound]);
    b.begin_if(done);
    b.brk();
    b.begin_else();
    let b4 = b.end_if();
    let i1 = b.alu(AluOp::Iadd, &[i, one]);
    b.begin_loop();
    let (j, j_phi) = b.phi(Type::I32, vec![src(b4, zero)]);
    let (t, t_phi) = b.phi(Type::I32, vec![src(b4, s)]);
    let jdone = b.alu(AluOp::Ige, &[j, five]);
    b.begin_if(jdone);
    b.brk();
    b.begin_else();
    b.end_if();
    let j1 = b.alu(AluOp::Iadd, &[j, one]);
    let skip = b.alu(AluOp::Ieq, &[j, two]);
    let b9 = b.begin_if(skip);
    b.cont();
    b.begin_else();
    let b11 = b.end_if();
    let p = b.alu(AluOp::Imul, &[i, j]);
    let t2 = b.alu(AluOp::Iadd, &[t, p]);
    let b12 = b.end_loop();
    b.add_phi_source(j_phi, b9, j1);
    b.add_phi_source(t_phi, b9, t);
    b.add_phi_source(j_phi, b11, j1);
    b.add_phi_source(t_phi, b11, t2);
    b.add_phi_source(i_phi, b12, i1);
    b.add_phi_source(s_phi, b12, t);
    b.end_loop();
    let v = b.vec(&[s, i]);
    b.ins(InstKind::StoreOutput { slot: 0, value: v }, Type::None);
    let _ = b1;
    let p = prog(b.finish(), 2, 2);
    // Per i the inner loop adds i * (0 + 1 + 3 + 4) = 8i.
    // id 0: i in 0..2 → 8; id 1: i in 0..3 → 24.
    let (res, stats) = run_with_stats(&p, &RunOptions::default()).unwrap();
    assert_eq!(res.outputs, vec![8, 2, 24, 3]);
    assert_eq!(stats.loop_nodes, 2);
    assert_eq!(stats.if_nodes, 3);
    assert_eq!(stats.loops_taken_twice, 2);
    // The inner loop: 5 back-edges (4 iterations + 1 continue) then the breaking pass.
    assert_eq!(stats.max_loop_iterations, 6);
    // id 0: 3 outer passes (the last breaks), 6 inner passes under each of the first two;
    // id 1: 4 outer passes, 3 × 6 inner.
    assert_eq!(stats.loop_passes, (3 + 2 * 6) + (4 + 3 * 6));
    assert_eq!(run(&p, &RunOptions::default()).unwrap(), res);
}

/// `m = id odd ? id + 100 : id * 3`, through a phi at the merge.
#[test]
fn if_else_merge_phi_per_invocation() {
    let mut b = Builder::new();
    let id = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let one = b.iconst(1);
    let hundred = b.iconst(100);
    let three = b.iconst(3);
    let low = b.alu(AluOp::Iand, &[id, one]);
    let odd = b.alu(AluOp::I2b, &[low]);
    let bt = b.begin_if(odd);
    let x = b.alu(AluOp::Iadd, &[id, hundred]);
    let be = b.begin_else();
    let y = b.alu(AluOp::Imul, &[id, three]);
    b.end_if();
    let (m, _) = b.phi(Type::I32, vec![src(bt, x), src(be, y)]);
    b.ins(InstKind::StoreOutput { slot: 0, value: m }, Type::None);
    let p = prog(b.finish(), 4, 1);
    let (res, stats) = run_with_stats(&p, &RunOptions::default()).unwrap();
    assert_eq!(res.outputs, vec![0, 101, 6, 103]);
    assert_eq!(stats.divergent_ifs_simd8, 1);
    // 6 instructions before the if, 1 on either side, phi and store after.
    assert_eq!(stats.executed_insts, 4 * 9);
}

/// Lanes 0..8 all take the then side, lanes 8..16 differ: one divergent group is enough;
/// a uniform condition never diverges.
#[test]
fn divergence_is_per_aligned_group_of_8() {
    let mut b = Builder::new();
    let id = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let eight = b.iconst(8);
    let uniform = b.bconst(true);
    let c = b.alu(AluOp::Uge, &[id, eight]);
    b.begin_if(uniform);
    b.end_if();
    b.begin_if(c);
    b.end_if();
    let p = prog(b.finish(), 16, 0);
    let (_, stats) = run_with_stats(&p, &RunOptions::default()).unwrap();
    assert_eq!(stats.if_nodes, 2);
    assert_eq!(stats.divergent_ifs_simd8, 0, "ids 0..8 and 8..16 are apart");
    let mut b = Builder::new();
    let id = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let ten = b.iconst(10);
    let c = b.alu(AluOp::Ult, &[id, ten]);
    b.begin_if(c);
    b.end_if();
    let p = prog(b.finish(), 12, 0);
    let (_, stats) = run_with_stats(&p, &RunOptions::default()).unwrap();
    assert_eq!(stats.divergent_ifs_simd8, 1, "ids 8, 9 vs 10, 11");
}

/// `x = phi(entry: 7, back-edge: x)` keeps 7; the counter beside it counts to 3.
#[test]
fn loop_header_phi_whose_back_edge_source_is_itself() {
    let mut b = Builder::new();
    let b0 = b.current_block();
    let seven = b.iconst(7);
    let zero = b.iconst(0);
    let one = b.iconst(1);
    let three = b.iconst(3);
    b.begin_loop();
    let (x, x_phi) = b.phi(Type::I32, vec![src(b0, seven)]);
    let (n, n_phi) = b.phi(Type::I32, vec![src(b0, zero)]);
    let n1 = b.alu(AluOp::Iadd, &[n, one]);
    let c = b.alu(AluOp::Ige, &[n1, three]);
    b.begin_if(c);
    b.brk();
    b.begin_else();
    let latch = b.end_if();
    b.add_phi_source(x_phi, latch, x);
    b.add_phi_source(n_phi, latch, n1);
    b.end_loop();
    let v = b.vec(&[x, n1]);
    b.ins(InstKind::StoreOutput { slot: 0, value: v }, Type::None);
    let p = prog(b.finish(), 1, 2);
    let (res, stats) = run_with_stats(&p, &RunOptions::default()).unwrap();
    assert_eq!(res.outputs, vec![7, 3]);
    assert_eq!(stats.max_loop_iterations, 3);
    assert_eq!(stats.loop_passes, 3);
    assert_eq!(stats.loops_taken_twice, 1);
}

/// `a, b = b, a` each iteration: the phis of a block read all sources before writing.
#[test]
fn swapped_phis_are_parallel() {
    let mut b = Builder::new();
    let b0 = b.current_block();
    let one = b.iconst(1);
    let two = b.iconst(2);
    let zero = b.iconst(0);
    let three = b.iconst(3);
    b.begin_loop();
    let (x, x_phi) = b.phi(Type::I32, vec![src(b0, one)]);
    let (y, y_phi) = b.phi(Type::I32, vec![src(b0, two)]);
    let (k, k_phi) = b.phi(Type::I32, vec![src(b0, zero)]);
    let k1 = b.alu(AluOp::Iadd, &[k, one]);
    let c = b.alu(AluOp::Ige, &[k, three]);
    b.begin_if(c);
    b.brk();
    b.begin_else();
    let latch = b.end_if();
    b.add_phi_source(x_phi, latch, y);
    b.add_phi_source(y_phi, latch, x);
    b.add_phi_source(k_phi, latch, k1);
    b.end_loop();
    let v = b.vec(&[x, y]);
    b.ins(InstKind::StoreOutput { slot: 0, value: v }, Type::None);
    let p = prog(b.finish(), 1, 2);
    // Breaks at k = 3, after three swaps: (2, 1). Sequential phis would give (2, 2).
    assert_eq!(run(&p, &RunOptions::default()).unwrap().outputs, vec![2, 1]);
}

/// Bools are 0/1, vectors work component-wise, movs swizzle, and division by zero follows
/// `sim::semantics` (RISC-V).
#[test]
fn alu_vectors_and_division_by_zero() {
    let mut b = Builder::new();
    let num = b.const_vec(&[7, i32::MIN as u32, (-7i32) as u32, 9]);
    let den = b.const_vec(&[0, (-1i32) as u32, 0, 2]);
    let q = b.alu(AluOp::Idiv, &[num, den]);
    let r = b.alu(AluOp::Irem, &[num, den]);
    let uq = b.alu(AluOp::Udiv, &[num, den]);
    let um = b.alu(AluOp::Umod, &[num, den]);
    let lt = b.alu(AluOp::Ilt, &[num, den]);
    let lti = b.alu(AluOp::B2i, &[lt]);
    let sw = b.mov(q, &[3, 3, 0, 1]);
    for (slot, v) in [q, r, uq, um, lti, sw].into_iter().enumerate() {
        let slot = 4 * slot as u32;
        b.ins(InstKind::StoreOutput { slot, value: v }, Type::None);
    }
    let p = prog(b.finish(), 1, 24);
    let out = run(&p, &RunOptions::default()).unwrap().outputs;
    let min = i32::MIN as u32;
    let m1 = u32::MAX;
    assert_eq!(out[0..4], [m1, min, m1, 4], "idiv: x/0 = -1, MIN/-1 = MIN");
    assert_eq!(
        out[4..8],
        [7, 0, (-7i32) as u32, 1],
        "irem: x%0 = x, MIN%-1 = 0"
    );
    assert_eq!(out[8..12], [m1, 0, m1, 4], "udiv: x/0 = MAX");
    assert_eq!(out[12..16], [7, min, (-7i32) as u32, 1], "umod: x%0 = x");
    assert_eq!(out[16..20], [0, 1, 1, 0], "ilt: signed, bools 0/1");
    assert_eq!(out[20..24], [4, 4, m1, min]);
}

/// One interpreter runs different programs back to back with the same answers as fresh ones.
#[test]
fn a_reused_interpreter_forgets_the_last_program() {
    let mut it = Interpreter::new();
    let mut b = Builder::new();
    let id = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    b.ins(InstKind::StoreOutput { slot: 0, value: id }, Type::None);
    let p1 = prog(b.finish(), 3, 1);
    let mut b = Builder::new();
    let k = b.iconst(5);
    b.ins(InstKind::StoreOutput { slot: 1, value: k }, Type::None);
    let p2 = prog(b.finish(), 2, 2);
    let opts = RunOptions::default();
    for _ in 0..2 {
        assert_eq!(it.run(&p1, &opts).unwrap().outputs, vec![0, 1, 2]);
        assert_eq!(it.run(&p2, &opts).unwrap().outputs, vec![0, 5, 0, 5]);
        it.clear();
    }
}

/// Ten phis rotating by one each iteration (more than fit the executor's stack buffer).
#[test]
fn many_rotating_phis_are_parallel() {
    let mut b = Builder::new();
    let b0 = b.current_block();
    let consts: Vec<_> = (0..10).map(|k| b.iconst(k)).collect();
    let one = b.iconst(1);
    let three = b.iconst(3);
    b.begin_loop();
    let phis: Vec<_> = consts
        .iter()
        .map(|&c| b.phi(Type::I32, vec![src(b0, c)]))
        .collect();
    let (k, k_phi) = b.phi(Type::I32, vec![src(b0, consts[0])]);
    let k1 = b.alu(AluOp::Iadd, &[k, one]);
    let c = b.alu(AluOp::Ige, &[k, three]);
    b.begin_if(c);
    b.brk();
    b.begin_else();
    let latch = b.end_if();
    for (i, &(_, inst)) in phis.iter().enumerate() {
        b.add_phi_source(inst, latch, phis[(i + 1) % 10].0);
    }
    b.add_phi_source(k_phi, latch, k1);
    b.end_loop();
    let v = b.vec(&[phis[0].0, phis[1].0, phis[8].0, phis[9].0]);
    b.ins(InstKind::StoreOutput { slot: 0, value: v }, Type::None);
    let p = prog(b.finish(), 1, 4);
    assert_eq!(
        run(&p, &RunOptions::default()).unwrap().outputs,
        vec![3, 4, 1, 2]
    );
}
