//! Tests of the middle end: hand-built programs per pass with their exact effect, the
//! seed's L4D2 loop, out-of-SSA copy problems, and property tests over generated programs.

mod bit_ops;
mod cf;
mod gen;
mod opt;
mod pipeline;
mod props;
mod ssa;

use crate::ir::{CfNode, Function, InstKind, Program, Value};

/// Asserts that the verifier accepts `func` (with a dispatch wide enough for the tests).
#[track_caller]
fn verified(func: &Function) {
    let p = Program {
        dispatch: sim::dispatch::Dispatch {
            invocations: 4,
            outputs: 8,
            uniforms: vec![0; 4],
            buffers: vec![16],
            textures: vec![],
            ..Default::default()
        },
        func: func.clone(),
    };
    if let Err(e) = crate::ir::verify(&p) {
        panic!("{e}\n{}", crate::ir::print_program(&p));
    }
}

/// The kinds of the placed instructions, in order.
fn kinds(func: &Function) -> Vec<InstKind> {
    func.insts_in_order()
        .into_iter()
        .map(|(_, i)| func.insts[i].kind.clone())
        .collect()
}

/// The instruction kind defining `v`.
fn def(func: &Function, v: Value) -> InstKind {
    func.def_kind(v).expect("defined").clone()
}

/// Number of loops in the tree.
fn loops(list: &[CfNode]) -> usize {
    list.iter()
        .map(|n| match n {
            CfNode::Block(_) => 0,
            CfNode::If(n) => loops(&n.then_list) + loops(&n.else_list),
            CfNode::Loop(n) => 1 + loops(&n.body),
        })
        .sum()
}

/// Number of phis placed.
fn phis(func: &Function) -> usize {
    kinds(func)
        .iter()
        .filter(|k| matches!(k, InstKind::Phi { .. }))
        .count()
}
