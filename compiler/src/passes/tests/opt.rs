//! Per-pass effects on straight-line code.

use super::{def, kinds, verified};
use crate::ir::{AluOp, Builder, InstKind, Type};
use crate::passes::*;

#[test]
fn constant_folding_uses_eval() {
    let mut b = Builder::new();
    let x = b.iconst(7);
    let z = b.iconst(0);
    let d = b.alu(AluOp::Idiv, &[x, z]);
    let one = b.fconst(1.0);
    let zero = b.fconst(0.0);
    let nan = b.alu(AluOp::Fsub, &[zero, zero]);
    let q = b.alu(AluOp::Fmul, &[nan, one]);
    let v = b.vec(&[d, q]);
    let m = b.mov(v, &[1, 0]);
    b.ins(InstKind::StoreOutput { slot: 0, value: m }, Type::None);
    let mut f = b.finish();
    verified(&f);
    assert!(fold_constants(&mut f));
    assert_eq!(
        def(&f, d),
        InstKind::Const {
            bits: [u32::MAX, 0, 0, 0]
        }
    );
    assert_eq!(def(&f, nan), InstKind::Const { bits: [0, 0, 0, 0] });
    // 0.0 * 1.0 = +0.0; the second fold sees the first's result.
    assert_eq!(def(&f, q), InstKind::Const { bits: [0, 0, 0, 0] });
    assert_eq!(
        def(&f, m),
        InstKind::Const {
            bits: [0, u32::MAX, 0, 0]
        }
    );
    assert!(!fold_constants(&mut f));
    verified(&f);
}

#[test]
fn constant_bcsel_picks_a_side() {
    let mut b = Builder::new();
    let t = b.bconst(true);
    let x = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let y = b.iconst(3);
    let s = b.alu(AluOp::Bcsel, &[t, x, y]);
    b.ins(InstKind::StoreOutput { slot: 0, value: s }, Type::None);
    let mut f = b.finish();
    verified(&f);
    assert!(fold_constants(&mut f));
    assert_eq!(
        kinds(&f).last(),
        Some(&InstKind::StoreOutput { slot: 0, value: x })
    );
    verified(&f);
}

#[test]
fn algebraic_identities_and_non_identities() {
    let mut b = Builder::new();
    let x = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let zero = b.iconst(0);
    let fzero = b.fconst(0.0);
    let one = b.iconst(1);
    let thirty_two = b.iconst(32);
    let a = b.alu(AluOp::Iadd, &[zero, x]); // x
    let m = b.alu(AluOp::Imul, &[a, one]); // x
    let s = b.alu(AluOp::Ishl, &[m, thirty_two]); // x (amount mod 32)
    let xx = b.alu(AluOp::Ixor, &[s, s]); // 0
    let n1 = b.alu(AluOp::Inot, &[x]);
    let n2 = b.alu(AluOp::Inot, &[n1]); // x
    let fa = b.alu(AluOp::Fadd, &[x, fzero]); // not exact: stays
    let fm = b.alu(AluOp::Fmul, &[x, one]); // not exact: stays
    let g1 = b.alu(AluOp::Fneg, &[x]);
    let g2 = b.alu(AluOp::Fneg, &[g1]); // x
    let v = b.vec(&[xx, n2, fa, fm]);
    b.ins(InstKind::StoreOutput { slot: 0, value: v }, Type::None);
    b.ins(InstKind::StoreOutput { slot: 4, value: g2 }, Type::None);
    let mut f = b.finish();
    verified(&f);
    while algebraic(&mut f) {}
    assert_eq!(def(&f, xx), InstKind::Const { bits: [0; 4] });
    let InstKind::Vec { args } = def(&f, v) else {
        panic!("vec expected");
    };
    assert_eq!(args[1], x);
    assert_eq!(args[2], fa);
    assert_eq!(args[3], fm);
    assert!(matches!(
        def(&f, fa),
        InstKind::Alu {
            op: AluOp::Fadd,
            ..
        }
    ));
    assert!(matches!(
        def(&f, fm),
        InstKind::Alu {
            op: AluOp::Fmul,
            ..
        }
    ));
    assert_eq!(
        kinds(&f).last(),
        Some(&InstKind::StoreOutput { slot: 4, value: x })
    );
    verified(&f);
}

#[test]
fn copy_prop_sees_through_movs_and_vecs() {
    let mut b = Builder::new();
    let u = b.const_vec(&[1, 2, 3]);
    let idx = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let l = b
        .ins(InstKind::LoadUniform { index: idx }, Type::vec32(3))
        .unwrap();
    let _ = u;
    let same = b.mov(l, &[0, 1, 2]);
    let cx = b.extract(same, 0);
    let cy = b.extract(same, 1);
    let cz = b.extract(same, 2);
    let whole = b.vec(&[cx, cy, cz]);
    let zx = b.mov(whole, &[2, 0]);
    let x_of = b.mov(zx, &[1]);
    b.ins(
        InstKind::StoreOutput {
            slot: 0,
            value: whole,
        },
        Type::None,
    );
    b.ins(
        InstKind::StoreOutput {
            slot: 3,
            value: x_of,
        },
        Type::None,
    );
    let mut f = b.finish();
    verified(&f);
    while copy_prop(&mut f) {}
    dce(&mut f);
    let stores: Vec<_> = kinds(&f)
        .into_iter()
        .filter(|k| matches!(k, InstKind::StoreOutput { .. }))
        .collect();
    assert_eq!(stores[0], InstKind::StoreOutput { slot: 0, value: l });
    let InstKind::StoreOutput { value, .. } = stores[1] else {
        unreachable!()
    };
    assert_eq!(
        def(&f, value),
        InstKind::Mov {
            src: l,
            swizzle: [0; 4]
        }
    );
    verified(&f);
}

#[test]
fn cse_merges_commutative_and_derefs() {
    let mut b = Builder::new();
    let x = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let y = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let s1 = b.alu(AluOp::Iadd, &[x, y]);
    let s2 = b.alu(AluOp::Iadd, &[y, x]);
    let d1 = b.alu(AluOp::Isub, &[x, y]);
    let d2 = b.alu(AluOp::Isub, &[y, x]);
    let v = b.vec(&[s1, s2, d1, d2]);
    b.ins(InstKind::StoreOutput { slot: 0, value: v }, Type::None);
    let mut f = b.finish();
    verified(&f);
    assert!(cse(&mut f));
    let InstKind::Vec { args } = def(&f, v) else {
        panic!()
    };
    // y became x, so both sums are x + x and both differences x - x.
    assert_eq!(args[0], args[1]);
    assert_eq!(args[2], args[3]);
    assert_eq!(args[0], s1);
    assert_eq!(args[2], d1);
    assert!(!cse(&mut f));
    verified(&f);
}

#[test]
fn cse_respects_if_scopes() {
    let mut b = Builder::new();
    let c = b.bconst(true);
    let x = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    b.begin_if(c);
    let inner = b.alu(AluOp::Ineg, &[x]);
    b.ins(
        InstKind::StoreOutput {
            slot: 0,
            value: inner,
        },
        Type::None,
    );
    b.begin_else();
    let other = b.alu(AluOp::Ineg, &[x]);
    b.ins(
        InstKind::StoreOutput {
            slot: 0,
            value: other,
        },
        Type::None,
    );
    b.end_if();
    let after = b.alu(AluOp::Ineg, &[x]);
    b.ins(
        InstKind::StoreOutput {
            slot: 1,
            value: after,
        },
        Type::None,
    );
    let mut f = b.finish();
    verified(&f);
    assert!(!cse(&mut f), "no definition dominates another");
    verified(&f);
}

#[test]
fn dce_removes_unused_and_keeps_stores() {
    let mut b = Builder::new();
    let x = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let dead = b.alu(AluOp::Ineg, &[x]);
    let _dead2 = b.alu(AluOp::Iadd, &[dead, dead]);
    b.ins(InstKind::StoreOutput { slot: 0, value: x }, Type::None);
    let mut f = b.finish();
    verified(&f);
    assert!(dce(&mut f));
    assert_eq!(
        kinds(&f),
        vec![
            InstKind::InvocationId,
            InstKind::StoreOutput { slot: 0, value: x }
        ]
    );
    assert!(!dce(&mut f));
    verified(&f);
}

#[test]
fn shrink_vectors_narrows_consts_loads_and_alu() {
    let mut b = Builder::new();
    let c = b.const_vec(&[10, 20, 30, 40]);
    let i = b.iconst(0);
    let l = b
        .ins(
            InstKind::LoadBuffer {
                buffer: 0,
                index: i,
            },
            Type::vec32(4),
        )
        .unwrap();
    let s = b.alu(AluOp::Iadd, &[c, l]);
    let yw = b.mov(s, &[3, 1]);
    let lx = b.mov(l, &[1]);
    b.ins(InstKind::StoreOutput { slot: 0, value: yw }, Type::None);
    b.ins(InstKind::StoreOutput { slot: 2, value: lx }, Type::None);
    let mut f = b.finish();
    verified(&f);
    assert!(shrink_vectors(&mut f));
    assert_eq!(f.ty(s), Type::vec32(2));
    assert_eq!(
        def(&f, yw),
        InstKind::Mov {
            src: s,
            swizzle: [1, 0, 0, 0]
        }
    );
    // Round two: the operand movs read y and w of `c`, and the load keeps its full width
    // because the iadd reads it whole through a mov (trailing trim only).
    while shrink_vectors(&mut f) {}
    assert_eq!(f.ty(c), Type::vec32(2));
    assert_eq!(
        def(&f, c),
        InstKind::Const {
            bits: [20, 40, 0, 0]
        }
    );
    assert_eq!(f.ty(l), Type::vec32(4));
    verified(&f);
}

#[test]
fn generated_programs_verify_before_and_after_the_pipeline() {
    use crate::ir::{print_program, verify};
    use crate::passes::pipeline::*;
    for seed in 0..300 {
        let p = super::gen::program(seed);
        verify(&p).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", print_program(&p)));
        let mut q = p.clone();
        let opts = &mut PipelineOptions {
            verify: true,
            ..Default::default()
        };
        if let Err(e) = run_pipeline(&mut q, opts) {
            panic!("seed {seed}: {e}\n{}", print_program(&p));
        }
        to_registers(&mut q, true, &Default::default())
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    }
}
