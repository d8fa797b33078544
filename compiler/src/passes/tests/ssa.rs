//! SSA construction and out-of-SSA.

use super::{kinds, loops, phis, verified};
use crate::ir::{AluOp, Builder, InstKind, PhiSource, Type, VarType};
use crate::passes::*;

#[test]
fn vars_to_ssa_promotes_constant_indices_only() {
    let mut b = Builder::new();
    let arr = b.var(VarType::Array(Box::new(VarType::Vector(2)), 4));
    let dynv = b.var(VarType::Array(Box::new(VarType::Vector(1)), 4));
    let x = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let one = b.iconst(5); // wraps to element 1
    let d = b.ins(InstKind::DerefVar { var: arr }, Type::Deref).unwrap();
    let e = b
        .ins(
            InstKind::DerefArray {
                parent: d,
                index: one,
            },
            Type::Deref,
        )
        .unwrap();
    let v = b.vec(&[x, x]);
    b.ins(InstKind::StoreDeref { deref: e, value: v }, Type::None);
    let l = b
        .ins(InstKind::LoadDeref { deref: e }, Type::vec32(2))
        .unwrap();
    let dd = b
        .ins(InstKind::DerefVar { var: dynv }, Type::Deref)
        .unwrap();
    let de = b
        .ins(
            InstKind::DerefArray {
                parent: dd,
                index: x,
            },
            Type::Deref,
        )
        .unwrap();
    let m = b.mov(l, &[1]);
    b.ins(
        InstKind::StoreDeref {
            deref: de,
            value: m,
        },
        Type::None,
    );
    let l2 = b.ins(InstKind::LoadDeref { deref: de }, Type::I32).unwrap();
    b.ins(InstKind::StoreOutput { slot: 0, value: l2 }, Type::None);
    let mut f = b.finish();
    verified(&f);
    assert!(lower_vars_to_ssa(&mut f));
    let ks = kinds(&f);
    assert!(ks
        .iter()
        .all(|k| !matches!(k, InstKind::DerefVar { var } if *var == arr)));
    assert!(ks
        .iter()
        .any(|k| matches!(k, InstKind::DerefVar { var } if *var == dynv)));
    let InstKind::Vec { args } = f.def_kind(l).unwrap().clone() else {
        panic!("the load became a vec");
    };
    // The stored components, through movs of the stored vector.
    for (c, a) in args[..2].iter().enumerate() {
        assert_eq!(
            f.def_kind(*a),
            Some(&InstKind::Mov {
                src: v,
                swizzle: [c as u8, 0, 0, 0]
            })
        );
    }
    verified(&f);
}

#[test]
fn vars_to_ssa_builds_merge_and_header_phis() {
    let mut b = Builder::new();
    let var = b.var(VarType::Vector(1));
    let x = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let c = b.alu(AluOp::I2b, &[x]);
    let d = b.ins(InstKind::DerefVar { var }, Type::Deref).unwrap();
    b.begin_if(c);
    b.ins(InstKind::StoreDeref { deref: d, value: x }, Type::None);
    b.end_if();
    b.begin_loop();
    let cur = b.ins(InstKind::LoadDeref { deref: d }, Type::I32).unwrap();
    let n = b.alu(AluOp::Iadd, &[cur, x]);
    b.ins(InstKind::StoreDeref { deref: d, value: n }, Type::None);
    let done = b.alu(AluOp::Ieq, &[n, x]);
    b.begin_if(done);
    b.brk();
    b.end_if();
    b.end_loop();
    let l = b.ins(InstKind::LoadDeref { deref: d }, Type::I32).unwrap();
    b.ins(InstKind::StoreOutput { slot: 0, value: l }, Type::None);
    let mut f = b.finish();
    verified(&f);
    assert!(lower_vars_to_ssa(&mut f));
    // Merge phi (stored on one side), header phi (stored in the loop); one break: no exit phi.
    assert_eq!(phis(&f), 2);
    assert_eq!(
        f.def_kind(l),
        Some(&InstKind::Mov {
            src: n,
            swizzle: [0; 4]
        })
    );
    assert!(kinds(&f)
        .iter()
        .all(|k| !matches!(k, InstKind::LoadDeref { .. } | InstKind::StoreDeref { .. })));
    verified(&f);
}

#[test]
fn from_ssa_replaces_phis_with_registers() {
    let mut b = Builder::new();
    let entry = b.current_block();
    let x = b.iconst(1);
    let y = b.iconst(2);
    b.begin_loop();
    let (a, ai) = b.phi(
        Type::I32,
        vec![PhiSource {
            pred: entry,
            value: x,
        }],
    );
    let (bb, bi) = b.phi(
        Type::I32,
        vec![PhiSource {
            pred: entry,
            value: y,
        }],
    );
    let c = b.alu(AluOp::Ilt, &[a, bb]);
    b.begin_if(c);
    b.brk();
    b.end_if();
    let latch = b.current_block();
    b.add_phi_source(ai, latch, bb);
    b.add_phi_source(bi, latch, a);
    b.end_loop();
    b.ins(InstKind::StoreOutput { slot: 0, value: a }, Type::None);
    let mut f = b.finish();
    verified(&f);
    assert_eq!(from_ssa(&mut f), Ok(true));
    assert_eq!(phis(&f), 0);
    assert_eq!(f.regs.len(), 2);
    assert_eq!(loops(&f.body), 1);
    // The swap at the latch needs a temporary: load, load, store, store (3 loads = 1 temp +
    // 1 source read + ... at most), and never stores a register before reading it.
    let latch_kinds: Vec<_> = f.blocks[latch]
        .insts
        .iter()
        .map(|&i| f.insts[i].kind.clone())
        .collect();
    let stores = latch_kinds
        .iter()
        .filter(|k| matches!(k, InstKind::StoreReg { .. }))
        .count();
    assert_eq!(stores, 2);
    verified(&f);
}

/// Parses, converts out of SSA, verifies and runs; returns the outputs of invocation 0.
fn outputs_after_from_ssa(text: &str) -> (Vec<u32>, Vec<u32>, crate::ir::Program) {
    let p = crate::ir::parse_program(text, "test.ir").unwrap_or_else(|e| panic!("{e}"));
    let opts = crate::interp::RunOptions::default();
    let before = crate::interp::run(&p, &opts).unwrap().outputs;
    let mut q = p.clone();
    assert_eq!(to_registers(&mut q, true, &Default::default()), Ok(true));
    let after = crate::interp::run(&q, &opts).unwrap().outputs;
    (before, after, q)
}

#[test]
fn from_ssa_swap_problem() {
    // a and b swap every iteration: 3 swaps of (10, 20) give (20, 10).
    let text = "
invocations 1
outputs 2

block_0:
  vec1 32 ssa_0 = load_const (0x00000000)
  vec1 32 ssa_1 = load_const (0x00000001)
  vec1 32 ssa_2 = load_const (0x0000000a)
  vec1 32 ssa_3 = load_const (0x00000014)
  vec1 32 ssa_4 = load_const (0x00000003)
loop {
  block_1:
    vec1 32 ssa_5 = phi block_0: ssa_0, block_4: ssa_9
    vec1 32 ssa_6 = phi block_0: ssa_2, block_4: ssa_7
    vec1 32 ssa_7 = phi block_0: ssa_3, block_4: ssa_6
    vec1 1 ssa_8 = ige ssa_5, ssa_4
  if ssa_8 {
    block_2:
      break
  } else {
    block_3:
  }
  block_4:
    vec1 32 ssa_9 = iadd ssa_5, ssa_1
}
block_5:
  store_output 0, ssa_6
  store_output 1, ssa_7
";
    let (before, after, q) = outputs_after_from_ssa(text);
    assert_eq!(before, vec![20, 10]);
    assert_eq!(after, vec![20, 10]);
    // The latch: the counter's copy, then the swap through one temporary.
    let latch = q.func.blocks_in_order()[4];
    let ks: Vec<&str> = q.func.blocks[latch]
        .insts
        .iter()
        .map(|&i| q.func.insts[i].kind.name())
        .collect();
    assert_eq!(
        ks,
        [
            "iadd",
            "store_reg",
            "load_reg",
            "load_reg",
            "store_reg",
            "store_reg"
        ]
    );
}

#[test]
fn from_ssa_lost_copy_problem() {
    // x2 is live after the loop while x3 overwrites its register on the back-edge.
    let text = "
invocations 1
outputs 2

block_0:
  vec1 32 ssa_0 = load_const (0x00000001)
  vec1 32 ssa_1 = load_const (0x00000003)
loop {
  block_1:
    vec1 32 ssa_2 = phi block_0: ssa_0, block_4: ssa_4
    vec1 1 ssa_3 = ige ssa_2, ssa_1
  if ssa_3 {
    block_2:
      break
  } else {
    block_3:
  }
  block_4:
    vec1 32 ssa_4 = iadd ssa_2, ssa_0
}
block_5:
  store_output 0, ssa_2
";
    let (before, after, _) = outputs_after_from_ssa(text);
    assert_eq!(before, vec![3, 0]);
    assert_eq!(after, vec![3, 0]);
}

#[test]
fn from_ssa_rotation_of_three() {
    // (a, b, c) ← (b, c, a) twice: (1, 2, 3) → (2, 3, 1) → (3, 1, 2).
    let text = "
invocations 1
outputs 3

block_0:
  vec1 32 ssa_0 = load_const (0x00000000)
  vec1 32 ssa_1 = load_const (0x00000001)
  vec1 32 ssa_2 = load_const (0x00000002)
  vec1 32 ssa_3 = load_const (0x00000003)
loop {
  block_1:
    vec1 32 ssa_4 = phi block_0: ssa_0, block_4: ssa_9
    vec1 32 ssa_5 = phi block_0: ssa_1, block_4: ssa_6
    vec1 32 ssa_6 = phi block_0: ssa_2, block_4: ssa_7
    vec1 32 ssa_7 = phi block_0: ssa_3, block_4: ssa_5
    vec1 1 ssa_8 = ige ssa_4, ssa_2
  if ssa_8 {
    block_2:
      break
  } else {
    block_3:
  }
  block_4:
    vec1 32 ssa_9 = iadd ssa_4, ssa_1
}
block_5:
  store_output 0, ssa_5
  store_output 1, ssa_6
  store_output 2, ssa_7
";
    let (before, after, _) = outputs_after_from_ssa(text);
    assert_eq!(before, vec![3, 1, 2]);
    assert_eq!(after, vec![3, 1, 2]);
}
