//! Dead-code elimination: instructions whose results nothing needs, loops that have no
//! effect, and `if`s with nothing inside.
//!
//! * **Instructions**: mark and sweep. Roots are stores, outputs, jumps and `if`
//!   conditions; everything they (transitively) read is live, the rest of the placed
//!   instructions go. Phi cycles that only feed each other die together.
//! * **Loops** (the L4D2 case of the seed): a loop whose body stores nothing (no buffer,
//!   output, deref or register store, nested loops included), that has a `break` of its own,
//!   and none of whose values is used after it, can only spend time; it is deleted and the
//!   blocks before and after it are merged. Termination is assumed, as the generator
//!   guarantees (a run that would not terminate is rejected, never compared).
//! * **Empty ifs**: both sides a single empty block and no phi after it: the `if` goes and
//!   the blocks around it merge.
//!
//! Invariants relied on: every list starts and ends with a block, so a loop or `if` at
//! position `i` has blocks at `i - 1` and `i + 1`. Merging `next` into `prev` requires `prev`
//! not to end in a jump (else `next` was unreachable: we leave such code alone) and `next` to
//! have no phis; phis elsewhere naming `next` as predecessor are renamed to `prev`. The block
//! after a loop is reached only by the loop's breaks, so no phi outside the loop names a
//! block inside it once the block after the loop has no phis.
//!
//! Planted bug [`Plant::DceLoopLiveOut`]: a loop whose only values used after it are
//! defined in its header counts as dead too: the header's phis take their values on entry
//! and its other instructions run once after it, as if the loop never went round.

use super::config::PassConfig;
use crate::ir::edit::{resolve, Subst};
use crate::ir::{walk_blocks, Block, CfNode, Function, InstKind, Value};
use crate::planted::Plant;
use cranelift_entity::packed_option::ReservedValue;
use cranelift_entity::{EntityRef, SecondaryMap};

/// Removes dead instructions, dead loops and empty ifs; returns whether anything changed.
pub fn dce(func: &mut Function) -> bool {
    dce_with(func, &PassConfig::default())
}

/// [`dce`] with the pass configuration (planted bugs).
pub fn dce_with(func: &mut Function, config: &PassConfig) -> bool {
    if config.plants.has(Plant::TestHang) && Plant::TestHang.test_trigger(func.values.len()) {
        // The test plant: a pass that never returns.
        loop {
            std::hint::spin_loop();
        }
    }
    let live_out_bug = config.plants.has(Plant::DceLoopLiveOut);
    let mut progress = false;
    loop {
        progress |= sweep(func);
        // Only the loop tests read the uses: without loops, building them is wasted.
        let uses = if has_loop(&func.body) {
            use_blocks(func)
        } else {
            UseBlocks::default()
        };
        let mut body = std::mem::take(&mut func.body);
        let mut pending = live_out_bug.then(|| Subst::with_capacity(func.values.len()));
        let cleaned = clean_list(func, &uses, &mut body, &mut (pending.as_mut(), false));
        func.body = body;
        if let Some(subst) = &pending {
            // The planted rewrite reached instructions at once; `if` conditions now.
            func.apply_subst(subst);
        }
        // Only removed loops and ifs can leave more to sweep: the sweep is a complete mark
        // and sweep, so a second one over what it left (and the lists then found clean)
        // would remove nothing.
        if !cleaned {
            return progress;
        }
        progress = true;
    }
}

/// Whether the list contains a loop (at any depth).
fn has_loop(list: &[CfNode]) -> bool {
    list.iter().any(|node| match node {
        CfNode::Block(_) => false,
        CfNode::If(n) => has_loop(&n.then_list) || has_loop(&n.else_list),
        CfNode::Loop(_) => true,
    })
}

/// Whether an instruction writes memory, an output or a register.
fn is_store(kind: &InstKind) -> bool {
    kind.has_side_effects() && !kind.is_jump()
}

/// Mark and sweep over instructions; returns whether any was removed.
fn sweep(func: &mut Function) -> bool {
    let mut live: SecondaryMap<Value, bool> = SecondaryMap::with_capacity(func.values.len());
    let mut work = Vec::new();
    let mark = |v: Value, work: &mut Vec<Value>, live: &mut SecondaryMap<Value, bool>| {
        if !live[v] {
            live[v] = true;
            work.push(v);
        }
    };
    walk_blocks(&func.body, &mut |b| {
        for &i in &func.blocks[b].insts {
            let kind = &func.insts[i].kind;
            if kind.has_side_effects() {
                kind.visit_args(|v| mark(v, &mut work, &mut live));
            }
        }
    });
    let mut conds = Vec::new();
    collect_conds(&func.body, &mut conds);
    for (_, c) in conds {
        mark(c, &mut work, &mut live);
    }
    while let Some(v) = work.pop() {
        if let Some(i) = func.def(v) {
            func.insts[i]
                .kind
                .visit_args(|a| mark(a, &mut work, &mut live));
        }
    }
    let mut removed = false;
    // Walked in place rather than over a collected block list, which allocated per sweep.
    let (insts, blocks) = (&func.insts, &mut func.blocks);
    walk_blocks(&func.body, &mut |b| {
        blocks[b].insts.retain(|&i| {
            let keep = insts[i].kind.has_side_effects()
                || insts[i].result.expand().is_some_and(|v| live[v]);
            removed |= !keep;
            keep
        });
    });
    removed
}

/// Every `if` condition with the block that evaluates it (the block before the `if`).
fn collect_conds(list: &[CfNode], out: &mut Vec<(Block, Value)>) {
    for (k, node) in list.iter().enumerate() {
        match node {
            CfNode::Block(_) => {}
            CfNode::If(n) => {
                if let Some(CfNode::Block(b)) = k.checked_sub(1).map(|j| &list[j]) {
                    out.push((*b, n.cond));
                }
                collect_conds(&n.then_list, out);
                collect_conds(&n.else_list, out);
            }
            CfNode::Loop(n) => collect_conds(&n.body, out),
        }
    }
}

/// For each value, the blocks that use it (an `if` condition counts as a use in the block
/// before the `if`). Merging blocks of one list keeps it right for every loop test. Flat
/// (per value a range of one array) so building it allocates twice, not once per value.
/// The default (no uses at all) stands in when no loop will ask.
#[derive(Default)]
struct UseBlocks {
    /// Value `v`'s blocks are `blocks[start[v]..start[v + 1]]`.
    start: Vec<u32>,
    blocks: Vec<Block>,
}

impl UseBlocks {
    /// The blocks using `v` (one entry per use).
    fn of(&self, v: Value) -> &[Block] {
        match (self.start.get(v.index()), self.start.get(v.index() + 1)) {
            (Some(&from), Some(&to)) => &self.blocks[from as usize..to as usize],
            _ => &[],
        }
    }
}

fn use_blocks(func: &Function) -> UseBlocks {
    let mut pairs: Vec<(Value, Block)> = Vec::new();
    walk_blocks(&func.body, &mut |b| {
        for &i in &func.blocks[b].insts {
            func.insts[i].kind.visit_args(|v| pairs.push((v, b)));
        }
    });
    let mut conds = Vec::new();
    collect_conds(&func.body, &mut conds);
    pairs.extend(conds.into_iter().map(|(b, c)| (c, b)));
    let values = pairs
        .iter()
        .map(|&(v, _)| v.index() + 1)
        .fold(func.values.len(), usize::max);
    // Counting sort by value: counts, then each value's first slot, then the fill.
    let mut start = vec![0u32; values + 1];
    for &(v, _) in &pairs {
        start[v.index() + 1] += 1;
    }
    for k in 0..values {
        start[k + 1] += start[k];
    }
    let mut next = start.clone();
    let mut blocks = vec![Block::reserved_value(); pairs.len()];
    for &(v, b) in &pairs {
        blocks[next[v.index()] as usize] = b;
        next[v.index()] += 1;
    }
    UseBlocks { start, blocks }
}

/// Removes dead loops and empty ifs in `list` (innermost first); returns whether any went.
fn clean_list(
    func: &mut Function,
    uses: &UseBlocks,
    list: &mut Vec<CfNode>,
    bug: &mut (Option<&mut Subst>, bool),
) -> bool {
    let mut changed = false;
    for node in list.iter_mut() {
        match node {
            CfNode::Block(_) => {}
            CfNode::If(n) => {
                changed |= clean_list(func, uses, &mut n.then_list, bug);
                changed |= clean_list(func, uses, &mut n.else_list, bug);
            }
            CfNode::Loop(n) => changed |= clean_list(func, uses, &mut n.body, bug),
        }
    }
    let mut i = 1;
    while i + 1 < list.len() {
        let (CfNode::Block(prev), CfNode::Block(next)) = (&list[i - 1], &list[i + 1]) else {
            i += 1;
            continue;
        };
        let (prev, next) = (*prev, *next);
        let removable = !func.ends_in_jump(prev)
            && !has_phis(func, next)
            && match &list[i] {
                CfNode::If(n) => {
                    is_empty_list(func, &n.then_list) && is_empty_list(func, &n.else_list)
                }
                CfNode::Loop(n) => {
                    !bug.1
                        && (loop_is_dead(func, uses, &n.body)
                            || bug.0.as_deref_mut().is_some_and(|subst| {
                                // Uses changed: no more loop deletions this sweep.
                                bug.1 = live_out_only_header_phis(func, uses, prev, &n.body, subst);
                                bug.1
                            }))
                }
                CfNode::Block(_) => false,
            };
        if removable {
            let moved = std::mem::take(&mut func.blocks[next].insts);
            func.blocks[prev].insts.extend(moved);
            func.rename_phi_pred(next, prev);
            list.drain(i..=i + 1);
            changed = true;
        } else {
            i += 1;
        }
    }
    changed
}

fn has_phis(func: &Function, b: Block) -> bool {
    func.blocks[b]
        .insts
        .first()
        .is_some_and(|&i| matches!(func.insts[i].kind, InstKind::Phi { .. }))
}

fn is_empty_list(func: &Function, list: &[CfNode]) -> bool {
    matches!(list, [CfNode::Block(b)] if func.blocks[*b].insts.is_empty())
}

/// Whether a loop body stores nothing, has a break of its own and defines no value used
/// outside it.
fn loop_is_dead(func: &Function, uses: &UseBlocks, body: &[CfNode]) -> bool {
    let mut inside: SecondaryMap<Block, bool> = SecondaryMap::new();
    let mut defined: SecondaryMap<Value, bool> = SecondaryMap::with_capacity(func.values.len());
    let mut stores = false;
    walk_blocks(body, &mut |b| {
        inside[b] = true;
        for &i in &func.blocks[b].insts {
            stores |= is_store(&func.insts[i].kind);
            if let Some(v) = func.result(i) {
                defined[v] = true;
            }
        }
    });
    if stores || !has_own_break(func, body) {
        return false;
    }
    let escapes = func
        .values
        .keys()
        .any(|v| defined[v] && uses.of(v).iter().any(|&b| !inside[b]));
    !escapes
}

/// Whether the list contains a `break` leaving the loop the list belongs to (not one of a
/// nested loop).
fn has_own_break(func: &Function, list: &[CfNode]) -> bool {
    list.iter().any(|node| match node {
        CfNode::Block(b) => func.blocks[*b]
            .insts
            .last()
            .is_some_and(|&i| matches!(func.insts[i].kind, InstKind::Break)),
        CfNode::If(n) => has_own_break(func, &n.then_list) || has_own_break(func, &n.else_list),
        CfNode::Loop(_) => false,
    })
}

/// The planted bug's test and rewrite: the loop stores nothing, has a break of its own, and
/// every value it defines that is used after it is defined in its header; header phis become
/// their sources from `pre`, the header's other instructions move to the end of `pre` (and
/// the caller deletes the loop).
fn live_out_only_header_phis(
    func: &mut Function,
    uses: &UseBlocks,
    pre: Block,
    body: &[CfNode],
    subst: &mut Subst,
) -> bool {
    let mut inside: SecondaryMap<Block, bool> = SecondaryMap::new();
    let mut stores = false;
    walk_blocks(body, &mut |b| {
        inside[b] = true;
        stores |= func.blocks[b]
            .insts
            .iter()
            .any(|&i| is_store(&func.insts[i].kind));
    });
    let Some(CfNode::Block(header)) = body.first() else {
        return false;
    };
    if stores || !has_own_break(func, body) {
        return false;
    }
    let header = *header;
    let mut rewrite = Vec::new();
    let mut escapes = false;
    let mut ok = true;
    walk_blocks(body, &mut |b| {
        for &i in &func.blocks[b].insts {
            let Some(v) = func.result(i) else { continue };
            if let (InstKind::Phi { sources }, true) = (&func.insts[i].kind, b == header) {
                match sources.iter().find(|s| s.pred == pre) {
                    Some(s) => rewrite.push((v, s.value)),
                    None => ok = false,
                }
            }
            if uses.of(v).iter().any(|&u| !inside[u]) {
                escapes = true;
                ok &= b == header;
            }
        }
    });
    if !ok || !escapes {
        return false;
    }
    // The header's other instructions run once, before the block after the loop.
    let (kept, moved): (Vec<_>, Vec<_>) = func.blocks[header].insts.iter().partition(|&&i| {
        matches!(func.insts[i].kind, InstKind::Phi { .. }) || func.insts[i].kind.is_jump()
    });
    func.blocks[header].insts = kept;
    func.blocks[pre].insts.extend(moved);
    for (v, to) in rewrite {
        subst[v] = to.into();
    }
    // The body is detached while lists are cleaned: rewrite every instruction directly.
    for data in func.insts.values_mut() {
        data.kind.visit_args_mut(|a| *a = resolve(subst, *a));
    }
    true
}
