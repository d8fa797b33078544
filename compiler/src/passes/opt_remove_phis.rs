//! Removes phis that do not choose: `bar = phi(foo, foo)` and `bar = phi(foo, bar)` both
//! become `foo` (Mesa's `nir_opt_remove_phis`, including the trivial-back-edge case of the
//! L4D2 loops).
//!
//! Invariant relied on: a source that is the phi itself comes from a back-edge, so it carries
//! whatever the phi held; if every *other* source is the same value `foo`, the phi always holds
//! `foo`, and `foo` dominates the phi (it reaches the header along the entry edge), hence every
//! use of the phi.
//!
//! Edge cases: a phi whose only sources are itself (possible only in unreachable code) or that
//! has no source at all is left alone — there is no value to replace it with. A phi replaced by
//! another phi that is removed later in the same sweep is resolved through the substitution,
//! and sweeps repeat until nothing changes, so chains of trivial phis all go.
//!
//! Planted bug [`Plant::RemovePhisBackedge`]: every source arriving over a back-edge of the
//! phi's loop is ignored, not only the phi itself — so `i = phi(0, i + 1)` "is" `0`.

use super::config::PassConfig;
use crate::ir::edit::{resolve, Subst};
use crate::ir::{Block, CfNode, Function, InstKind};
use crate::planted::Plant;
use cranelift_entity::SecondaryMap;

/// Removes trivial phis; returns whether any was removed.
pub fn remove_phis(func: &mut Function) -> bool {
    remove_phis_with(func, &PassConfig::default())
}

/// [`remove_phis`] with the pass configuration (planted bugs).
pub fn remove_phis_with(func: &mut Function, config: &PassConfig) -> bool {
    if config.plants.has(Plant::TestRecurse) && Plant::TestRecurse.test_trigger(func.values.len()) {
        // The test plant: recursion without bound, until the stack overflows.
        std::hint::black_box(descend(std::hint::black_box(0)));
    }
    let mut backedge: SecondaryMap<Block, Option<Block>> = SecondaryMap::new();
    if config.plants.has(Plant::RemovePhisBackedge) {
        mark_headers(&func.body, &mut backedge);
    }
    let mut subst = Subst::with_capacity(func.values.len());
    let mut progress = false;
    loop {
        let mut changed = false;
        for b in func.blocks_in_order() {
            let insts = std::mem::take(&mut func.blocks[b].insts);
            let mut kept = Vec::with_capacity(insts.len());
            for inst in insts {
                match trivial_source(func, &subst, inst, backedge[b]) {
                    Some((phi, value)) => {
                        subst[phi] = value.into();
                        changed = true;
                    }
                    None => kept.push(inst),
                }
            }
            func.blocks[b].insts = kept;
        }
        if !changed {
            break;
        }
        progress = true;
    }
    if progress {
        func.apply_subst(&subst);
    }
    progress
}

/// For a phi all of whose sources other than itself are one value: (the phi, that value).
fn trivial_source(
    func: &Function,
    subst: &Subst,
    inst: crate::ir::Inst,
    entry_pred: Option<Block>,
) -> Option<(crate::ir::Value, crate::ir::Value)> {
    let InstKind::Phi { sources } = &func.insts[inst].kind else {
        return None;
    };
    let phi = func.result(inst)?;
    let mut same = None;
    for s in sources {
        let v = resolve(subst, s.value);
        if v == phi || entry_pred.is_some_and(|e| s.pred != e) {
            continue;
        }
        match same {
            None => same = Some(v),
            Some(u) if u == v => {}
            Some(_) => return None,
        }
    }
    same.map(|v| (phi, v))
}

/// For each loop header, the block entering the loop (the planted bug's notion of "the one
/// source that is not a back-edge").
fn mark_headers(list: &[CfNode], out: &mut SecondaryMap<Block, Option<Block>>) {
    for (k, node) in list.iter().enumerate() {
        match node {
            CfNode::Block(_) => {}
            CfNode::If(n) => {
                mark_headers(&n.then_list, out);
                mark_headers(&n.else_list, out);
            }
            CfNode::Loop(n) => {
                if let (Some(CfNode::Block(pre)), Some(CfNode::Block(h))) =
                    (k.checked_sub(1).map(|j| &list[j]), n.body.first())
                {
                    out[*h] = Some(*pre);
                }
                mark_headers(&n.body, out);
            }
        }
    }
}

/// Recurses forever (the `test-recurse` plant); each frame holds a buffer so the stack runs out
/// quickly.
fn descend(depth: u64) -> u64 {
    if depth == u64::MAX {
        return 0;
    }
    let frame = std::hint::black_box([depth; 64]);
    descend(depth + 1) + frame[(depth % 64) as usize]
}
