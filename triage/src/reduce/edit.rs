//! IR surgery for the reducer: replacing uses, zero constants, and cutting control-flow nodes
//! out of their lists while keeping NIR's layout invariants (blocks separate ifs and loops).
//!
//! Edits here need not be perfect: every candidate is verified before it is run, so an edit
//! that breaks a rule the edit did not mend is rejected, never reported.

use compiler::ir::{walk_blocks, Block, CfNode, Function, Inst, InstKind, PhiSource, Type, Value};

/// Replaces every use of `from` (operands and `if` conditions) by `to`.
pub fn replace_uses(func: &mut Function, from: Value, to: Value) {
    for (_, inst) in func.insts_in_order() {
        func.insts[inst].kind.visit_args_mut(|v| {
            if *v == from {
                *v = to;
            }
        });
    }
    replace_in_conds(&mut func.body, from, to);
}

fn replace_in_conds(list: &mut [CfNode], from: Value, to: Value) {
    for node in list {
        match node {
            CfNode::Block(_) => {}
            CfNode::If(n) => {
                if n.cond == from {
                    n.cond = to;
                }
                replace_in_conds(&mut n.then_list, from, to);
                replace_in_conds(&mut n.else_list, from, to);
            }
            CfNode::Loop(n) => replace_in_conds(&mut n.body, from, to),
        }
    }
}

/// Makes every use of `inst`'s result read `with` instead, and removes `inst`.
pub fn replace_inst(func: &mut Function, inst: Inst, with: Value) {
    if let Some(v) = func.result(inst) {
        replace_uses(func, v, with);
    }
    for b in func.blocks_in_order() {
        func.blocks[b].insts.retain(|&i| i != inst);
    }
}

/// A zero constant of type `ty` at the start of the entry block (so it dominates every use),
/// or `None` for types that have no constant (derefs). An existing one is reused.
pub fn zero(func: &mut Function, ty: Type) -> Option<Value> {
    constant(func, ty, [0; 4])
}

/// A boolean vector constant with every component true (see [`zero`]).
pub fn all_true(func: &mut Function, ty: Type) -> Option<Value> {
    let mut bits = [0; 4];
    bits[..usize::from(ty.comps())].fill(1);
    constant(func, ty, bits)
}

/// A constant `bits` of type `ty` at the start of the entry block (see [`zero`]).
pub fn constant(func: &mut Function, ty: Type, bits: [u32; 4]) -> Option<Value> {
    ty.bits()?;
    let entry = compiler::ir::first_block(&func.body)?;
    let existing = func.blocks[entry].insts.iter().copied().find(|&i| {
        matches!(func.insts[i].kind, InstKind::Const { bits: b } if b == bits)
            && func.result(i).is_some_and(|v| func.ty(v) == ty)
    });
    if let Some(i) = existing {
        // To the top of the entry block (a constant reads nothing), so it dominates a use
        // earlier in that block too: otherwise every removal there is an invalid candidate.
        let insts = &mut func.blocks[entry].insts;
        insts.retain(|&j| j != i);
        insts.insert(0, i);
        return func.result(i);
    }
    let (inst, v) = func.make_inst(InstKind::Const { bits }, ty);
    func.blocks[entry].insts.insert(0, inst);
    v
}

/// Replaces every use of the results of `insts` by zeros and removes the instructions from
/// their blocks. Fails (returns false) if some result has no zero (a deref still in use).
pub fn remove_insts(func: &mut Function, insts: &[Inst]) -> bool {
    for &inst in insts {
        if let Some(v) = func.result(inst) {
            if is_used(func, v) {
                let ty = func.ty(v);
                let Some(z) = zero(func, ty) else {
                    return false;
                };
                replace_uses(func, v, z);
            }
        }
    }
    let doomed: std::collections::HashSet<Inst> = insts.iter().copied().collect();
    for b in func.blocks_in_order() {
        func.blocks[b].insts.retain(|i| !doomed.contains(i));
    }
    true
}

/// The blocks of a loop body `list` that end in a `break` or `continue` of that loop (not of
/// a loop nested in it).
pub fn loop_exits(func: &Function, list: &[CfNode], out: &mut Vec<Block>) {
    for node in list {
        match node {
            CfNode::Block(b) => {
                if func.blocks[*b]
                    .insts
                    .last()
                    .is_some_and(|&i| func.insts[i].kind.is_jump())
                {
                    out.push(*b);
                }
            }
            CfNode::If(n) => {
                loop_exits(func, &n.then_list, out);
                loop_exits(func, &n.else_list, out);
            }
            CfNode::Loop(_) => {}
        }
    }
}

/// Whether any placed instruction or `if` reads `v`.
pub fn is_used(func: &Function, v: Value) -> bool {
    let mut used = false;
    for (_, inst) in func.insts_in_order() {
        func.insts[inst].kind.visit_args(|a| used |= a == v);
    }
    used || cond_uses(&func.body, v)
}

/// Every `if` condition in `list`, at any depth.
pub fn conds(list: &[CfNode], out: &mut Vec<Value>) {
    for node in list {
        match node {
            CfNode::Block(_) => {}
            CfNode::If(n) => {
                out.push(n.cond);
                conds(&n.then_list, out);
                conds(&n.else_list, out);
            }
            CfNode::Loop(n) => conds(&n.body, out),
        }
    }
}

fn cond_uses(list: &[CfNode], v: Value) -> bool {
    list.iter().any(|node| match node {
        CfNode::Block(_) => false,
        CfNode::If(n) => n.cond == v || cond_uses(&n.then_list, v) || cond_uses(&n.else_list, v),
        CfNode::Loop(n) => cond_uses(&n.body, v),
    })
}

/// Appends block `b`'s instructions to block `a` and makes every phi that named `b` as a
/// predecessor name `a` instead (`a` now ends where `b` ended). `b`'s phis must be gone.
pub fn merge_blocks(func: &mut Function, a: Block, b: Block) {
    let moved = std::mem::take(&mut func.blocks[b].insts);
    func.blocks[a].insts.extend(moved);
    rename_pred(func, b, a);
}

/// Makes every phi source from `old` come from `new`. Walks all instructions, not the
/// layout, so it works while [`splice`] holds the body.
pub fn rename_pred(func: &mut Function, old: Block, new: Block) {
    func.rename_phi_pred(old, new);
}

/// Removes every phi source coming from `pred` (all instructions, not only placed ones).
pub fn drop_pred(func: &mut Function, pred: Block) {
    for data in func.insts.values_mut() {
        if let InstKind::Phi { sources } = &mut data.kind {
            sources.retain(|s: &PhiSource| s.pred != pred);
        }
    }
}

/// The phis at the head of `b`.
pub fn phis(func: &Function, b: Block) -> Vec<Inst> {
    func.blocks[b]
        .insts
        .iter()
        .copied()
        .take_while(|&i| matches!(func.insts[i].kind, InstKind::Phi { .. }))
        .collect()
}

/// Replaces the node at `path` (indices through nested lists, see [`node_paths`]) by the
/// list `with`, merging blocks at the seams: `[.., pre, NODE, post, ..]` becomes
/// `[.., pre+with[0], with[1..n-1], with[n-1]+post, ..]` (or `pre+post` for an empty `with`).
/// `post`'s phis must have been resolved by the caller. Returns false if `path` is stale.
pub fn splice(func: &mut Function, path: &[usize], with: Vec<CfNode>) -> bool {
    let mut body = std::mem::take(&mut func.body);
    let ok = splice_in(func, &mut body, path, with);
    func.body = body;
    ok
}

fn splice_in(
    func: &mut Function,
    list: &mut Vec<CfNode>,
    path: &[usize],
    with: Vec<CfNode>,
) -> bool {
    let Some((&i, rest)) = path.split_first() else {
        return false;
    };
    if !rest.is_empty() {
        return match list.get_mut(i) {
            Some(CfNode::If(n)) => match rest.split_first() {
                Some((0, r)) => splice_in(func, &mut n.then_list, r, with),
                Some((1, r)) => splice_in(func, &mut n.else_list, r, with),
                _ => false,
            },
            Some(CfNode::Loop(n)) => splice_in(func, &mut n.body, &rest[1..], with),
            _ => false,
        };
    }
    let (Some(CfNode::Block(pre)), Some(CfNode::Block(post))) = (
        i.checked_sub(1).and_then(|p| list.get(p)).cloned(),
        list.get(i + 1).cloned(),
    ) else {
        return false;
    };
    let mut mid = with;
    if mid.is_empty() {
        merge_blocks(func, pre, post);
        list.drain(i..=i + 1);
        return true;
    }
    let (Some(CfNode::Block(first)), Some(CfNode::Block(last))) =
        (mid.first().cloned(), mid.last().cloned())
    else {
        return false;
    };
    merge_blocks(func, last, post);
    merge_blocks(func, pre, first);
    mid.remove(0);
    let tail: Vec<CfNode> = list.drain(i + 1..).skip(1).collect();
    list.truncate(i);
    // With a one-block `with`, `post` went into `first` and `first` into `pre`; otherwise
    // `last` (holding `post`) ends what is spliced in.
    list.extend(mid);
    list.extend(tail);
    true
}

/// Paths to every `if` and `loop` node, outermost first. A path indexes the top-level list,
/// then for an `if` 0 (then) or 1 (else) and an index, for a loop 0 and an index.
pub fn node_paths(list: &[CfNode]) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    collect_paths(list, &mut Vec::new(), &mut out);
    out
}

fn collect_paths(list: &[CfNode], prefix: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    for (i, node) in list.iter().enumerate() {
        prefix.push(i);
        match node {
            CfNode::Block(_) => {}
            CfNode::If(n) => {
                out.push(prefix.clone());
                for (side, l) in [&n.then_list, &n.else_list].into_iter().enumerate() {
                    prefix.push(side);
                    collect_paths(l, prefix, out);
                    prefix.pop();
                }
            }
            CfNode::Loop(n) => {
                out.push(prefix.clone());
                prefix.push(0);
                collect_paths(&n.body, prefix, out);
                prefix.pop();
            }
        }
        prefix.pop();
    }
}

/// The node at `path`.
pub fn node_at<'a>(list: &'a [CfNode], path: &[usize]) -> Option<&'a CfNode> {
    let (&i, rest) = path.split_first()?;
    let node = list.get(i)?;
    if rest.is_empty() {
        return Some(node);
    }
    match node {
        CfNode::If(n) => match rest.split_first()? {
            (0, r) => node_at(&n.then_list, r),
            (1, r) => node_at(&n.else_list, r),
            _ => None,
        },
        CfNode::Loop(n) => node_at(&n.body, rest.get(1..)?),
        CfNode::Block(_) => None,
    }
}

/// The block right after the node at `path` in its list.
pub fn block_after(list: &[CfNode], path: &[usize]) -> Option<Block> {
    let mut p = path.to_vec();
    *p.last_mut()? += 1;
    match node_at(list, &p)? {
        CfNode::Block(b) => Some(*b),
        _ => None,
    }
}

/// Every value defined by an instruction placed in `list` (at any depth).
pub fn defs_in(func: &Function, list: &[CfNode]) -> Vec<Value> {
    let mut out = Vec::new();
    walk_blocks(list, &mut |b| {
        out.extend(func.blocks[b].insts.iter().filter_map(|&i| func.result(i)));
    });
    out
}
