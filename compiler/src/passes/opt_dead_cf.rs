//! Dead control flow: an `if` whose condition is a constant is replaced by the side it
//! takes, spliced into the parent list.
//!
//! Splicing `prev, if c {T} else {E}, next` with `c` true gives `prev, T..., next`; then the
//! adjacent blocks merge (`prev` with `T`'s first block, `T`'s last block with `next`): the
//! second block's instructions move to the end of the first, its phis (which now have a
//! single source, the first block) are replaced by their sources, and phis elsewhere naming
//! the second block as predecessor are renamed to the first.
//!
//! Every block of the side not taken disappears; phi sources naming one of them (the merge
//! phis in `next`, loop-header phis fed by a `continue` there, phis after a loop fed by a
//! `break` there) are dropped.
//!
//! Edge cases left alone: an `if` after a block ending in a jump (unreachable), and an `if`
//! whose taken side ends in a jump (then `next` and the rest of the list become unreachable;
//! deleting them would strand values they define). Nested ifs are folded inside-out within
//! one run.

use crate::ir::edit::{resolve, Subst};
use crate::ir::{walk_blocks, Block, CfNode, Function, InstKind};
use cranelift_entity::SecondaryMap;

/// Folds ifs with constant conditions; returns whether any was folded.
pub fn remove_dead_cf(func: &mut Function) -> bool {
    let mut subst = Subst::with_capacity(func.values.len());
    let mut body = std::mem::take(&mut func.body);
    let progress = fold_list(func, &mut subst, &mut body);
    func.body = body;
    if progress {
        func.apply_subst(&subst);
    }
    progress
}

fn fold_list(func: &mut Function, subst: &mut Subst, list: &mut Vec<CfNode>) -> bool {
    let mut progress = false;
    let mut i = 0;
    while i < list.len() {
        let taken = match &list[i] {
            CfNode::If(n) if i > 0 => {
                let cond = resolve(subst, n.cond);
                func.const_bits(cond).map(|bits| bits[0] != 0)
            }
            _ => None,
        };
        let foldable = taken.is_some_and(|t| {
            let CfNode::Block(prev) = list[i - 1] else {
                return false;
            };
            let CfNode::If(n) = &list[i] else {
                return false;
            };
            let side = if t { &n.then_list } else { &n.else_list };
            let last = crate::ir::last_block(side);
            !func.ends_in_jump(prev) && last.is_some_and(|b| !func.ends_in_jump(b))
        });
        if !foldable {
            match &mut list[i] {
                CfNode::If(n) => {
                    progress |= fold_list(func, subst, &mut n.then_list);
                    progress |= fold_list(func, subst, &mut n.else_list);
                }
                CfNode::Loop(n) => progress |= fold_list(func, subst, &mut n.body),
                CfNode::Block(_) => {}
            }
            i += 1;
            continue;
        }
        let CfNode::If(n) = list.remove(i) else {
            unreachable!("checked above");
        };
        let n = *n;
        let (kept, dropped) = if taken == Some(true) {
            (n.then_list, n.else_list)
        } else {
            (n.else_list, n.then_list)
        };
        drop_sources_from(func, &dropped);
        let len = kept.len();
        list.splice(i..i, kept);
        // `prev` is at i - 1, the taken side at i..i + len, `next` at i + len: merge the two
        // seams, the later one first so indices stay valid.
        merge_at(func, subst, list, i + len);
        merge_at(func, subst, list, i);
        progress = true;
        // Revisit from `prev`: the taken side may hold more foldable ifs.
        i -= 1;
    }
    progress
}

/// Merges the block at `list[k]` into the block at `list[k - 1]`, if both are blocks.
fn merge_at(func: &mut Function, subst: &mut Subst, list: &mut Vec<CfNode>, k: usize) {
    let (Some(CfNode::Block(a)), Some(CfNode::Block(b))) = (list.get(k - 1), list.get(k)) else {
        return;
    };
    let (a, b) = (*a, *b);
    let moved = std::mem::take(&mut func.blocks[b].insts);
    let mut rest = Vec::with_capacity(moved.len());
    for inst in moved {
        match &func.insts[inst].kind {
            InstKind::Phi { sources } => {
                debug_assert!(
                    sources.len() == 1,
                    "phi in {b} merged into {a} has {} sources",
                    sources.len()
                );
                if let (Some(phi), Some(s)) = (func.result(inst), sources.first()) {
                    subst[phi] = resolve(subst, s.value).into();
                }
            }
            _ => rest.push(inst),
        }
    }
    func.blocks[a].insts.extend(rest);
    func.rename_phi_pred(b, a);
    list.remove(k);
}

/// Drops every phi source whose predecessor is a block of `removed`.
fn drop_sources_from(func: &mut Function, removed: &[CfNode]) {
    let mut gone: SecondaryMap<Block, bool> = SecondaryMap::new();
    walk_blocks(removed, &mut |b| gone[b] = true);
    func.drop_phi_sources(&gone);
}
