//! Data-flow mutations around a loop: a web of header phis that rotate into each other on
//! every back-edge (the parallel-copy swap out-of-SSA has to get right), and a crowd of
//! values live across a loop (register pressure where spilling is hardest).
//!
//! Both start from the invocation id, so nothing folds to a constant, and end in output
//! slots of their own ([`edit::observe`]), so a wrong value is seen.

use super::edit;
use crate::rng::SplitMix64;
use compiler::ir::{AluOp, CfNode, Cfg, InstKind, PhiSource, Program, Type, Value};

/// Every loop with a block before and after it: `(path, index)`.
fn loops(p: &Program) -> Vec<(edit::Path, usize)> {
    edit::nodes(&p.func.body, |n| matches!(n, CfNode::Loop(_)))
}

/// Values `id * odd + k`, one per `k`, appended to block `b`.
fn distinct_values(p: &mut Program, b: compiler::ir::Block, n: u32) -> Vec<Value> {
    let func = &mut p.func;
    let id = edit::invocation_id(func, b);
    (0..n)
        .map(|k| {
            let c = edit::constant(func, b, &[k.wrapping_mul(0x9e37_79b9) | 1]);
            let op = [AluOp::Iadd, AluOp::Imul, AluOp::Ixor, AluOp::Isub][k as usize % 4];
            edit::alu(func, b, op, &[id, c])
        })
        .collect()
}

/// Folds 32-bit scalars into one (`ixor` / `iadd` alternately) at the end of `b`.
fn fold(p: &mut Program, b: compiler::ir::Block, values: &[Value]) -> Option<Value> {
    let (first, rest) = values.split_first()?;
    let mut acc = *first;
    for (k, v) in rest.iter().enumerate() {
        let op = if k % 2 == 0 { AluOp::Ixor } else { AluOp::Iadd };
        acc = edit::alu(&mut p.func, b, op, &[acc, *v]);
    }
    Some(acc)
}

/// Adds 2–4 phis at a loop header that rotate on every back-edge (`a ← b, b ← c, c ← a`;
/// two of them are the swap problem), the first also accumulating, and observes them after
/// the loop.
pub fn phi_web(p: &mut Program, rng: &mut SplitMix64) -> Option<()> {
    let (path, k) = edit::pick(&loops(p), rng)?.clone();
    let list = edit::list(&p.func.body, &path)?;
    let pre = edit::block_at(list, k.checked_sub(1)?)?;
    let exit = edit::block_at(list, k + 1)?;
    let CfNode::Loop(l) = list.get(k)? else {
        return None;
    };
    let header = edit::block_at(&l.body, 0)?;
    let cfg = Cfg::compute(&p.func);
    let latches: Vec<_> = cfg
        .preds(header)
        .iter()
        .copied()
        .filter(|&b| b != pre)
        .collect();
    let n = rng.range(2, 4) as u32;
    let inits = distinct_values(p, pre, n);
    let func = &mut p.func;
    let phis: Vec<Value> = (0..n as usize)
        .map(|i| {
            let sources = vec![PhiSource {
                pred: pre,
                value: inits[i],
            }];
            edit::prepend_phi(func, header, InstKind::Phi { sources }, Type::I32)
        })
        .collect();
    let sum = edit::alu(func, header, AluOp::Iadd, &[phis[0], phis[n as usize - 1]]);
    for (i, &phi) in phis.iter().enumerate() {
        let value = if i + 1 == n as usize {
            sum
        } else {
            phis[i + 1]
        };
        let inst = func.def(phi)?;
        if let InstKind::Phi { sources } = &mut func.insts[inst].kind {
            sources.extend(latches.iter().map(|&pred| PhiSource { pred, value }));
        }
    }
    let folded = fold(p, exit, &phis)?;
    edit::observe(p, exit, folded)
}

/// Defines 8–40 values before a loop and uses them all after it, so they are live across
/// the whole loop.
pub fn pressure(p: &mut Program, rng: &mut SplitMix64) -> Option<()> {
    let (path, k) = edit::pick(&loops(p), rng)?.clone();
    let list = edit::list(&p.func.body, &path)?;
    let pre = edit::block_at(list, k.checked_sub(1)?)?;
    let exit = edit::block_at(list, k + 1)?;
    let n = rng.range(8, 40) as u32;
    let values = distinct_values(p, pre, n);
    let folded = fold(p, exit, &values)?;
    edit::observe(p, exit, folded)
}
