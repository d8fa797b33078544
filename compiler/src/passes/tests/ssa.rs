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
