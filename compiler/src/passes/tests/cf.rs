//! Control-flow passes: the seed's loop, dead ifs, constant conditions.

use super::{kinds, loops, phis, verified};
use crate::ir::{AluOp, Builder, CfNode, Function, InstKind, PhiSource, Type, Value};
use crate::passes::*;

/// The shape of the L4D2 vertex-shader loop of the seed: a counter against a uniform and
/// three phis whose back-edge source is themselves. Returns the function and the three
/// forward values of the trivial phis and the phis themselves.
fn l4d2_loop(observe: bool) -> (Function, [Value; 3], [Value; 3]) {
    let mut b = Builder::new();
    let entry = b.current_block();
    let start = b.iconst(0);
    let step = b.iconst(1);
    let fwd = [b.iconst(11), b.iconst(22), b.iconst(33)];
    let uidx = b.iconst(232);
    b.begin_loop();
    let (i, iphi) = b.phi(
        Type::I32,
        vec![PhiSource {
            pred: entry,
            value: start,
        }],
    );
    let mut trivial = Vec::new();
    for &v in &fwd {
        trivial.push(b.phi(
            Type::I32,
            vec![PhiSource {
                pred: entry,
                value: v,
            }],
        ));
    }
    let u = b
        .ins(InstKind::LoadUniform { index: uidx }, Type::I32)
        .unwrap();
    let cmp = b.alu(AluOp::Ige, &[i, u]);
    b.begin_if(cmp);
    b.brk();
    b.begin_else();
    b.end_if();
    let latch = b.current_block();
    let next = b.alu(AluOp::Iadd, &[i, step]);
    b.add_phi_source(iphi, latch, next);
    for &(v, phi) in &trivial {
        b.add_phi_source(phi, latch, v);
    }
    b.end_loop();
    if observe {
        let t = trivial[1].0;
        b.ins(InstKind::StoreOutput { slot: 0, value: t }, Type::None);
    }
    let zero = b.iconst(0);
    b.ins(
        InstKind::StoreOutput {
            slot: 1,
            value: zero,
        },
        Type::None,
    );
    let phis = [trivial[0].0, trivial[1].0, trivial[2].0];
    (b.finish(), fwd, phis)
}

#[test]
fn seed_loop_loses_trivial_phis_then_dies() {
    let (mut f, _, _) = l4d2_loop(false);
    verified(&f);
    assert_eq!(phis(&f), 4);
    assert!(remove_phis(&mut f));
    assert_eq!(phis(&f), 1, "only the counter is left");
    assert_eq!(loops(&f.body), 1);
    assert!(dce(&mut f));
    assert_eq!(loops(&f.body), 0, "nothing observes the loop");
    assert_eq!(f.body.len(), 1, "the blocks around the loop merged");
    assert_eq!(phis(&f), 0);
    verified(&f);
}

#[test]
fn seed_loop_observed_value_is_forwarded() {
    let (mut f, fwd, _) = l4d2_loop(true);
    verified(&f);
    assert!(remove_phis(&mut f));
    let stores: Vec<_> = kinds(&f)
        .into_iter()
        .filter(|k| matches!(k, InstKind::StoreOutput { .. }))
        .collect();
    assert_eq!(
        stores[0],
        InstKind::StoreOutput {
            slot: 0,
            value: fwd[1]
        }
    );
    assert!(dce(&mut f));
    assert_eq!(
        loops(&f.body),
        0,
        "the observed value no longer comes from the loop"
    );
    verified(&f);
}

#[test]
fn phi_of_only_itself_is_left_alone() {
    // Not a valid program (the entry source is not dominated), but remove_phis must not
    // invent a value for a phi with no forward source: it leaves it.
    let mut b = Builder::new();
    let entry = b.current_block();
    b.begin_loop();
    let (p, pi) = b.phi(Type::I32, vec![]);
    b.add_phi_source(pi, entry, p);
    let latch = b.current_block();
    b.add_phi_source(pi, latch, p);
    b.end_loop();
    let mut f = b.finish();
    assert!(!remove_phis(&mut f));
    assert_eq!(phis(&f), 1);
}

#[test]
fn loop_with_store_or_escaping_value_stays() {
    let mut b = Builder::new();
    let x = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    b.begin_loop();
    let y = b.alu(AluOp::Ineg, &[x]);
    b.brk();
    b.end_loop();
    b.ins(InstKind::StoreOutput { slot: 0, value: y }, Type::None);
    let mut f = b.finish();
    verified(&f);
    assert!(!dce(&mut f));
    assert_eq!(loops(&f.body), 1);
    verified(&f);
}

#[test]
fn dce_removes_empty_ifs() {
    let mut b = Builder::new();
    let x = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let c = b.alu(AluOp::I2b, &[x]);
    b.begin_if(c);
    let _dead = b.alu(AluOp::Ineg, &[x]);
    b.begin_if(c);
    b.end_if();
    b.end_if();
    b.ins(InstKind::StoreOutput { slot: 0, value: x }, Type::None);
    let mut f = b.finish();
    verified(&f);
    assert!(dce(&mut f));
    assert_eq!(f.body.len(), 1);
    assert_eq!(
        kinds(&f),
        vec![
            InstKind::InvocationId,
            InstKind::StoreOutput { slot: 0, value: x }
        ]
    );
    verified(&f);
}

#[test]
fn dead_cf_splices_the_taken_side_and_fixes_phis() {
    let mut b = Builder::new();
    let t = b.bconst(false);
    let x = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    b.begin_if(t);
    let a = b.alu(AluOp::Ineg, &[x]);
    let then_end = b.current_block();
    b.begin_else();
    let e = b.alu(AluOp::Inot, &[x]);
    let c2 = b.alu(AluOp::I2b, &[e]);
    b.begin_if(c2);
    b.ins(InstKind::StoreOutput { slot: 3, value: e }, Type::None);
    b.end_if();
    let else_end = b.current_block();
    b.end_if();
    let (p, _) = b.phi(
        Type::I32,
        vec![
            PhiSource {
                pred: then_end,
                value: a,
            },
            PhiSource {
                pred: else_end,
                value: e,
            },
        ],
    );
    b.ins(InstKind::StoreOutput { slot: 0, value: p }, Type::None);
    let mut f = b.finish();
    verified(&f);
    assert!(remove_dead_cf(&mut f));
    // entry+else-first merged, the nested if, else-end+merge merged.
    assert_eq!(f.body.len(), 3);
    assert!(matches!(f.body[1], CfNode::If(_)));
    assert_eq!(phis(&f), 0);
    assert_eq!(
        kinds(&f).last(),
        Some(&InstKind::StoreOutput { slot: 0, value: e })
    );
    assert!(!remove_dead_cf(&mut f));
    verified(&f);
}

#[test]
fn dead_cf_leaves_a_taken_side_ending_in_break() {
    let mut b = Builder::new();
    let t = b.bconst(true);
    b.begin_loop();
    b.begin_if(t);
    b.brk();
    b.end_if();
    b.end_loop();
    let mut f = b.finish();
    verified(&f);
    assert!(!remove_dead_cf(&mut f));
    verified(&f);
}
