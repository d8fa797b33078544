//! Reduction passes. Each proposes candidate programs, numbered `0..`; the driver tries them
//! in order and keeps the first that is still interesting. Passes that act on many things at
//! once (instructions) propose ddmin-style chunks: the whole range first, then halves,
//! quarters, down to single items.

use super::{edit, resources};
use compiler::ir::{
    first_block, last_block, walk_blocks, BitSize, CfNode, Inst, InstKind, LoopNode, Program,
    TexParams, Value,
};

/// A reduction pass: the `index`-th candidate derived from `p`, `None` past the last one.
pub type Pass = fn(&Program, usize) -> Option<Candidate>;

/// A candidate: the changed program, or "skip" when this index yields nothing useful.
pub enum Candidate {
    /// Try this program.
    Try(Box<Program>),
    /// Nothing at this index; go on with the next.
    Skip,
}

/// The passes in the order the driver runs them: big structural cuts first.
pub const PASSES: &[(&str, Pass)] = &[
    ("dead-code", dead_code),
    ("merge-consts", merge_consts),
    ("delete-loop", delete_loop),
    ("collapse-if", collapse_if),
    ("loop-once", loop_once),
    ("unwrap-loop", unwrap_loop),
    ("remove-jump", remove_jump),
    ("cond-true", cond_true),
    ("remove-insts", remove_insts),
    ("bypass-inst", bypass_inst),
    ("inline-phi", inline_phi),
    ("fewer-invocations", fewer_invocations),
    ("simplify-consts", simplify_consts),
    ("simplify-texture", simplify_texture),
    ("trim-dispatch", trim_dispatch),
    ("unused-resources", unused_resources),
];

/// Orders of [`PASSES`] for the reducer's successive descents (fewer invocations first: every
/// later candidate runs faster): the structural cuts first, then the small edits first (an instruction bypassed or a phi inlined before a whole loop
/// goes can leave a smaller program that still spills). Each is a permutation of `PASSES`.
#[rustfmt::skip]
pub const ORDERS: &[&[&str]] = &[
    &[
        "fewer-invocations", "dead-code", "merge-consts", "delete-loop", "collapse-if",
        "loop-once", "unwrap-loop", "remove-jump", "cond-true", "remove-insts", "bypass-inst",
        "inline-phi", "simplify-consts", "simplify-texture", "trim-dispatch", "unused-resources",
    ],
    &[
        "fewer-invocations", "dead-code", "merge-consts", "bypass-inst", "inline-phi",
        "remove-insts", "cond-true", "delete-loop", "collapse-if", "loop-once", "unwrap-loop",
        "remove-jump", "simplify-consts", "simplify-texture", "trim-dispatch", "unused-resources",
    ],
    &[
        "fewer-invocations", "dead-code", "inline-phi", "cond-true", "collapse-if", "loop-once",
        "unwrap-loop", "delete-loop", "merge-consts", "remove-jump", "bypass-inst",
        "remove-insts", "simplify-consts", "simplify-texture", "trim-dispatch", "unused-resources",
    ],
    &[
        "fewer-invocations", "remove-insts", "remove-jump", "delete-loop", "collapse-if",
        "bypass-inst", "inline-phi", "cond-true", "loop-once", "unwrap-loop", "dead-code",
        "merge-consts", "simplify-consts", "simplify-texture", "trim-dispatch", "unused-resources",
    ],
];

/// Passes that remove no instruction (they simplify what stays). The driver runs them only in
/// a round of the program passes where the others changed nothing: on a large program each of
/// their edits costs a run, and most edit instructions a later cut removes anyway. Each comes
/// after every other pass in every order.
pub const LATE: &[&str] = &[
    "simplify-consts",
    "simplify-texture",
    "trim-dispatch",
    "unused-resources",
];

/// The pass named `name` (a name from [`ORDERS`]) and its index in [`PASSES`].
pub fn by_name(name: &str) -> Option<(usize, Pass)> {
    PASSES
        .iter()
        .position(|p| p.0 == name)
        .map(|k| (k, PASSES[k].1))
}

fn try_prog(p: Program) -> Option<Candidate> {
    Some(Candidate::Try(Box::new(p)))
}

/// Chunk `index` of a ddmin schedule over `n` items: sizes n, n/2, n/4, …, 1, each size
/// covering the items in consecutive chunks. Returns the item range.
fn chunk(n: usize, mut index: usize) -> Option<std::ops::Range<usize>> {
    let mut size = n;
    while size > 0 {
        let count = n.div_ceil(size);
        if index < count {
            let start = index * size;
            return Some(start..(start + size).min(n));
        }
        index -= count;
        size /= 2;
    }
    None
}

/// Removes a chunk of instructions other than phis and jumps (uses become zeros). Zero
/// constants are what uses become, so only unused ones are candidates (`dead_code` removes
/// them all at once, which fails when a dead instruction the finding needs goes with them).
fn remove_insts(p: &Program, index: usize) -> Option<Candidate> {
    let mut used = std::collections::HashSet::new();
    for (_, i) in p.func.insts_in_order() {
        p.func.insts[i].kind.visit_args(|v| {
            used.insert(v);
        });
    }
    let needed = |i: Inst| p.func.result(i).is_some_and(|v| used.contains(&v));
    let insts: Vec<Inst> = p
        .func
        .insts_in_order()
        .into_iter()
        .map(|(_, i)| i)
        .filter(|&i| {
            !matches!(
                p.func.insts[i].kind,
                InstKind::Phi { .. } | InstKind::Break | InstKind::Continue
            )
        })
        .filter(|&i| !(is_zero_const(p, i) && needed(i)))
        .collect();
    let range = chunk(insts.len(), index)?;
    let mut q = p.clone();
    if !edit::remove_insts(&mut q.func, &insts[range]) {
        return Some(Candidate::Skip);
    }
    try_prog(q)
}

fn is_zero_const(p: &Program, i: Inst) -> bool {
    matches!(p.func.insts[i].kind, InstKind::Const { bits: [0, 0, 0, 0] })
}

/// Replaces a phi by one of its sources.
fn inline_phi(p: &Program, index: usize) -> Option<Candidate> {
    let phis: Vec<(Inst, Value)> = p
        .func
        .insts_in_order()
        .into_iter()
        .filter_map(|(_, i)| match &p.func.insts[i].kind {
            InstKind::Phi { sources } => Some(sources.iter().map(move |s| (i, s.value))),
            _ => None,
        })
        .flatten()
        .collect();
    let &(phi, src) = phis.get(index)?;
    if p.func.result(phi) == Some(src) {
        return Some(Candidate::Skip);
    }
    let mut q = p.clone();
    edit::replace_inst(&mut q.func, phi, src);
    try_prog(q)
}

/// Deletes a loop; values it defined become zeros, the block after it loses its phis.
fn delete_loop(p: &Program, index: usize) -> Option<Candidate> {
    let (path, l) = nth_loop(p, index)?;
    let path = &path[..];
    let mut q = p.clone();
    let Some(post) = edit::block_after(&q.func.body, path) else {
        return Some(Candidate::Skip);
    };
    let mut doomed = edit::defs_in(&q.func, &l.body);
    doomed.extend(
        edit::phis(&q.func, post)
            .into_iter()
            .filter_map(|i| q.func.result(i)),
    );
    if !zero_out(&mut q, &doomed) {
        return Some(Candidate::Skip);
    }
    let post_phis = edit::phis(&q.func, post);
    q.func.blocks[post].insts.retain(|i| !post_phis.contains(i));
    if !edit::splice(&mut q.func, path, Vec::new()) {
        return Some(Candidate::Skip);
    }
    try_prog(q)
}

/// Replaces an `if` by one of its sides (index even: then, odd: else).
fn collapse_if(p: &Program, index: usize) -> Option<Candidate> {
    let paths: Vec<Vec<usize>> = edit::node_paths(&p.func.body)
        .into_iter()
        .filter(|path| matches!(edit::node_at(&p.func.body, path), Some(CfNode::If(_))))
        .collect();
    let path = paths.get(index / 2)?;
    let keep_then = index.is_multiple_of(2);
    let mut q = p.clone();
    let Some(CfNode::If(n)) = edit::node_at(&q.func.body, path).cloned() else {
        return Some(Candidate::Skip);
    };
    let Some(post) = edit::block_after(&q.func.body, path) else {
        return Some(Candidate::Skip);
    };
    let (kept, dropped) = if keep_then {
        (n.then_list, n.else_list)
    } else {
        (n.else_list, n.then_list)
    };
    let Some(kept_end) = compiler::ir::last_block(&kept) else {
        return Some(Candidate::Skip);
    };
    // The merge phis take the kept side's value.
    for phi in edit::phis(&q.func, post) {
        let InstKind::Phi { sources } = &q.func.insts[phi].kind else {
            continue;
        };
        let Some(src) = sources.iter().find(|s| s.pred == kept_end).map(|s| s.value) else {
            return Some(Candidate::Skip);
        };
        let Some(v) = q.func.result(phi) else {
            continue;
        };
        edit::replace_uses(&mut q.func, v, src);
        q.func.blocks[post].insts.retain(|&i| i != phi);
    }
    let dropped_defs = edit::defs_in(&q.func, &dropped);
    if !zero_out(&mut q, &dropped_defs) {
        return Some(Candidate::Skip);
    }
    let mut dropped_blocks = Vec::new();
    walk_blocks(&dropped, &mut |b| dropped_blocks.push(b));
    for b in dropped_blocks {
        edit::drop_pred(&mut q.func, b);
    }
    if !edit::splice(&mut q.func, path, kept) {
        return Some(Candidate::Skip);
    }
    try_prog(q)
}

/// Replaces all uses of `values` by zeros (they are about to disappear).
fn zero_out(q: &mut Program, values: &[Value]) -> bool {
    for &v in values {
        if edit::is_used(&q.func, v) {
            let ty = q.func.ty(v);
            let Some(z) = edit::zero(&mut q.func, ty) else {
                return false;
            };
            edit::replace_uses(&mut q.func, v, z);
        }
    }
    true
}

/// Fewer invocations: 1, then halving.
fn fewer_invocations(p: &Program, index: usize) -> Option<Candidate> {
    let n = p.dispatch.invocations;
    let options = [1, 2, 8, n / 2, n - 1];
    let &target = options.get(index)?;
    if target == 0 || target >= n {
        return Some(Candidate::Skip);
    }
    let mut q = p.clone();
    q.dispatch.invocations = target;
    try_prog(q)
}

/// Constant components toward 0 and 1.
fn simplify_consts(p: &Program, index: usize) -> Option<Candidate> {
    let mut slots = Vec::new();
    for (_, i) in p.func.insts_in_order() {
        if let InstKind::Const { bits } = &p.func.insts[i].kind {
            let comps = p.func.result(i).map_or(0, |v| p.func.ty(v).comps());
            for (c, &b) in bits.iter().enumerate().take(comps as usize) {
                if b > 1 {
                    slots.extend([(i, c, 0), (i, c, 1), (i, c, b / 2)]);
                }
            }
        }
    }
    let &(inst, c, value) = slots.get(index)?;
    let mut q = p.clone();
    if let InstKind::Const { bits } = &mut q.func.insts[inst].kind {
        bits[c] = value;
    }
    try_prog(q)
}

/// One texture parameter fewer: offsets cleared, or the compare, gather, gradients, lod, bias
/// or layer dropped (the verifier turns away shapes that need what is dropped).
fn simplify_texture(p: &Program, index: usize) -> Option<Candidate> {
    type Edit = fn(&mut TexParams) -> bool;
    let edits: [Edit; 7] = [
        |t| std::mem::take(&mut t.offset) != [0; 3],
        |t| t.gather.take().is_some(),
        |t| std::mem::replace(&mut t.compare, TexParams::default().compare) != t.compare,
        |t| {
            let had = t.grad().is_some();
            t.ddx = TexParams::default().ddx;
            t.ddy = TexParams::default().ddy;
            had
        },
        |t| std::mem::replace(&mut t.lod, TexParams::default().lod) != t.lod,
        |t| std::mem::replace(&mut t.bias, TexParams::default().bias) != t.bias,
        |t| std::mem::replace(&mut t.layer, TexParams::default().layer) != t.layer,
    ];
    let mut slots = Vec::new();
    for (_, i) in p.func.insts_in_order() {
        if let Some(params) = tex_params(&p.func.insts[i].kind) {
            for (k, edit) in edits.iter().enumerate() {
                let mut t = *params;
                if edit(&mut t) {
                    slots.push((i, k));
                }
            }
        }
    }
    let &(inst, k) = slots.get(index)?;
    let mut q = p.clone();
    match &mut q.func.insts[inst].kind {
        InstKind::Tex { params, .. }
        | InstKind::Txf { params, .. }
        | InstKind::Txs { params, .. } => {
            edits[k](params);
        }
        _ => return Some(Candidate::Skip),
    }
    try_prog(q)
}

fn tex_params(kind: &InstKind) -> Option<&TexParams> {
    match kind {
        InstKind::Tex { params, .. }
        | InstKind::Txf { params, .. }
        | InstKind::Txs { params, .. } => Some(params),
        _ => None,
    }
}

/// Fewer output slots, workgroups of one invocation, uniforms set to zero, fewer uniforms.
fn trim_dispatch(p: &Program, index: usize) -> Option<Candidate> {
    let mut q = p.clone();
    let d = &mut q.dispatch;
    let nu = d.uniforms.len();
    match index {
        0 if d.outputs > 1 => d.outputs = 1,
        1 if d.workgroup > 1 => d.workgroup = 1,
        2 if nu > 0 => d.uniforms.truncate(nu / 2),
        i if i >= 3 && i - 3 < nu => {
            if d.uniforms[i - 3] == 0 {
                return Some(Candidate::Skip);
            }
            d.uniforms[i - 3] = 0;
        }
        i if i >= 3 + nu => return None,
        _ => return Some(Candidate::Skip),
    }
    try_prog(q)
}

/// Removes every instruction without side effects whose result nothing reads (to a
/// fixpoint, in one candidate): what other passes leave behind.
fn dead_code(p: &Program, index: usize) -> Option<Candidate> {
    if index > 0 {
        return None;
    }
    let mut q = p.clone();
    let mut any = false;
    loop {
        let mut used = std::collections::HashSet::new();
        for (_, i) in q.func.insts_in_order() {
            q.func.insts[i].kind.visit_args(|v| {
                used.insert(v);
            });
        }
        let mut conds = Vec::new();
        edit::conds(&q.func.body, &mut conds);
        used.extend(conds);
        let dead: Vec<Inst> = q
            .func
            .insts_in_order()
            .into_iter()
            .map(|(_, i)| i)
            .filter(|&i| {
                !q.func.insts[i].kind.has_side_effects()
                    && q.func.result(i).is_some_and(|v| !used.contains(&v))
            })
            .collect();
        if dead.is_empty() {
            break;
        }
        any = true;
        for b in q.func.blocks_in_order() {
            q.func.blocks[b].insts.retain(|i| !dead.contains(i));
        }
    }
    if !any {
        return Some(Candidate::Skip);
    }
    try_prog(q)
}

/// Makes later copies of an entry-block constant use the first one (one candidate).
fn merge_consts(p: &Program, index: usize) -> Option<Candidate> {
    if index > 0 {
        return None;
    }
    let entry = compiler::ir::first_block(&p.func.body)?;
    let mut q = p.clone();
    let mut firsts: Vec<(InstKind, compiler::ir::Type, Value)> = Vec::new();
    let mut doomed = Vec::new();
    for &i in &p.func.blocks[entry].insts {
        let kind = &p.func.insts[i].kind;
        let (InstKind::Const { .. }, Some(v)) = (kind, p.func.result(i)) else {
            continue;
        };
        let ty = p.func.ty(v);
        match firsts.iter().find(|(k, t, _)| k == kind && *t == ty) {
            Some(&(_, _, first)) => {
                edit::replace_uses(&mut q.func, v, first);
                doomed.push(i);
            }
            None => firsts.push((kind.clone(), ty, v)),
        }
    }
    if doomed.is_empty() {
        return Some(Candidate::Skip);
    }
    q.func.blocks[entry].insts.retain(|i| !doomed.contains(i));
    try_prog(q)
}

/// Replaces an instruction's result by one of its operands of the same type (`x + y` → `x`).
fn bypass_inst(p: &Program, index: usize) -> Option<Candidate> {
    let mut options = Vec::new();
    for (_, i) in p.func.insts_in_order() {
        let kind = &p.func.insts[i].kind;
        if matches!(kind, InstKind::Phi { .. }) {
            continue;
        }
        let Some(v) = p.func.result(i) else { continue };
        let ty = p.func.ty(v);
        let mut args = Vec::new();
        kind.visit_args(|a| {
            if p.func.ty(a) == ty && !args.contains(&a) {
                args.push(a);
            }
        });
        options.extend(args.into_iter().map(|a| (i, a)));
    }
    let &(inst, a) = options.get(index)?;
    let mut q = p.clone();
    edit::replace_inst(&mut q.func, inst, a);
    try_prog(q)
}

/// The `index`-th loop (outermost first) and its path; `None` past the last.
fn nth_loop(p: &Program, index: usize) -> Option<(Vec<usize>, LoopNode)> {
    let path = loop_paths(p).into_iter().nth(index)?;
    match edit::node_at(&p.func.body, &path) {
        Some(CfNode::Loop(l)) => Some((path.clone(), (**l).clone())),
        _ => unreachable!("loop_paths lists loops"),
    }
}

/// Paths of every loop, outermost first.
fn loop_paths(p: &Program) -> Vec<Vec<usize>> {
    edit::node_paths(&p.func.body)
        .into_iter()
        .filter(|path| matches!(edit::node_at(&p.func.body, path), Some(CfNode::Loop(_))))
        .collect()
}

/// Cuts a loop's trip count to one: a `break` at the end of its body (the back-edge from the
/// last block goes; the block after the loop gains it as a predecessor, so it must have no
/// phis).
fn loop_once(p: &Program, index: usize) -> Option<Candidate> {
    let (path, l) = nth_loop(p, index)?;
    let path = &path[..];
    let mut q = p.clone();
    let (Some(last), Some(post)) = (last_block(&l.body), edit::block_after(&q.func.body, path))
    else {
        return Some(Candidate::Skip);
    };
    if q.func.ends_in_jump(last) || !edit::phis(&q.func, post).is_empty() {
        return Some(Candidate::Skip);
    }
    if let Some(header) = first_block(&l.body) {
        drop_pred_in(&mut q, header, last);
    }
    let (brk, _) = q.func.make_inst(InstKind::Break, compiler::ir::Type::None);
    q.func.blocks[last].insts.push(brk);
    try_prog(q)
}

/// Replaces a loop that never goes round — its body ends in its only `break` and nothing
/// continues it — by its body.
fn unwrap_loop(p: &Program, index: usize) -> Option<Candidate> {
    let (path, l) = nth_loop(p, index)?;
    let path = &path[..];
    let mut q = p.clone();
    let (Some(header), Some(last), Some(post)) = (
        first_block(&l.body),
        last_block(&l.body),
        edit::block_after(&q.func.body, path),
    ) else {
        return Some(Candidate::Skip);
    };
    let mut exits = Vec::new();
    edit::loop_exits(&q.func, &l.body, &mut exits);
    let ends_in_break = q.func.blocks[last]
        .insts
        .last()
        .is_some_and(|&i| matches!(q.func.insts[i].kind, InstKind::Break));
    if exits != [last] || !ends_in_break {
        return Some(Candidate::Skip);
    }
    q.func.blocks[last].insts.pop();
    // With no back-edge and one exit, the header's and the next block's phis have one source.
    for b in [header, post] {
        for phi in edit::phis(&q.func, b) {
            let InstKind::Phi { sources } = &q.func.insts[phi].kind else {
                continue;
            };
            let [only] = sources[..] else {
                return Some(Candidate::Skip);
            };
            edit::replace_inst(&mut q.func, phi, only.value);
        }
    }
    if !edit::splice(&mut q.func, path, l.body) {
        return Some(Candidate::Skip);
    }
    try_prog(q)
}

/// Replaces a computed boolean by `true`: a loop's exit test then leaves on the first trip,
/// and the counter that fed it dies.
fn cond_true(p: &Program, index: usize) -> Option<Candidate> {
    let bools: Vec<(Inst, Value)> = p
        .func
        .insts_in_order()
        .into_iter()
        .filter(|&(_, i)| !matches!(p.func.insts[i].kind, InstKind::Const { .. }))
        .filter_map(|(_, i)| {
            let v = p.func.result(i)?;
            (p.func.ty(v).bits() == Some(BitSize::B1)).then_some((i, v))
        })
        .collect();
    let &(inst, v) = bools.get(index)?;
    let mut q = p.clone();
    let ty = q.func.ty(v);
    let Some(t) = edit::all_true(&mut q.func, ty) else {
        return Some(Candidate::Skip);
    };
    edit::replace_inst(&mut q.func, inst, t);
    try_prog(q)
}

/// Removes phi sources from `pred` in `block` only.
fn drop_pred_in(q: &mut Program, block: compiler::ir::Block, pred: compiler::ir::Block) {
    for phi in edit::phis(&q.func, block) {
        if let InstKind::Phi { sources } = &mut q.func.insts[phi].kind {
            sources.retain(|s| s.pred != pred);
        }
    }
}

/// Removes a `break` or `continue` (the block then falls through; phi sources it fed go).
fn remove_jump(p: &Program, index: usize) -> Option<Candidate> {
    let jumps: Vec<(compiler::ir::Block, Inst)> = p
        .func
        .insts_in_order()
        .into_iter()
        .filter(|&(_, i)| p.func.insts[i].kind.is_jump())
        .collect();
    let &(b, jump) = jumps.get(index)?;
    let mut q = p.clone();
    q.func.blocks[b].insts.retain(|&i| i != jump);
    // The block no longer reaches the jump's target; a fall-through into phis fails the
    // verifier and the candidate is dropped.
    edit::drop_pred(&mut q.func, b);
    try_prog(q)
}

/// Drops what no instruction uses, so a repro declares only what it reads: candidate 0 the
/// unused buffers, 1 the unused textures (the others renumbered in order), 2 the unused local
/// variables, 3 the unused shared arrays.
fn unused_resources(p: &Program, index: usize) -> Option<Candidate> {
    let mut q = p.clone();
    let dropped = match index {
        0 => resources::drop_unused(&mut q, resources::Resource::Buffer),
        1 => resources::drop_unused(&mut q, resources::Resource::Texture),
        2 => resources::drop_unused_vars(&mut q),
        3 => resources::drop_unused(&mut q, resources::Resource::Shared),
        _ => return None,
    };
    Some(match dropped {
        true => Candidate::Try(Box::new(q)),
        false => Candidate::Skip,
    })
}

#[cfg(test)]
mod tests {
    use super::{chunk, cond_true, simplify_texture, unwrap_loop, Candidate};
    use compiler::ir::{parse_program, print_program, verify, Program};

    fn apply(pass: super::Pass, src: &str) -> Program {
        let p = parse_program(src, "test.ir").expect("test program parses");
        let Some(Candidate::Try(q)) = pass(&p, 0) else {
            panic!("no candidate");
        };
        verify(&q).expect("candidate verifies");
        *q
    }

    #[test]
    fn a_loop_that_never_goes_round_becomes_its_body() {
        let q = apply(
            unwrap_loop,
            "invocations 1\noutputs 1\n\nblock_0:\n  vec1 32 ssa_0 = load_const (0x00000007)\n\
             loop {\n  block_1:\n    vec1 32 ssa_1 = phi block_0: ssa_0\n    \
             store_output 0, ssa_1\n    break\n}\nblock_2:\n",
        );
        let text = print_program(&q);
        assert!(!text.contains("loop") && !text.contains("phi"), "{text}");
        assert_eq!(q.func.inst_count(), 2, "{text}");
    }

    #[test]
    fn a_loop_exit_test_becomes_true() {
        let q = apply(
            cond_true,
            "invocations 1\noutputs 1\n\nblock_0:\n  vec1 32 ssa_0 = load_const (0x00000000)\n\
             loop {\n  block_1:\n    vec1 32 ssa_1 = phi block_0: ssa_0, block_4: ssa_2\n    \
             vec1 32 ssa_2 = iadd ssa_1, ssa_0\n    vec1 1 ssa_3 = uge ssa_1, ssa_0\n  \
             if ssa_3 {\n    block_2:\n      break\n  } else {\n    block_3:\n  }\n  \
             block_4:\n}\nblock_5:\n",
        );
        let text = print_program(&q);
        assert!(
            text.contains("load_const (true)") && !text.contains("uge"),
            "{text}"
        );
    }

    #[test]
    fn every_order_is_a_permutation_of_the_passes_with_the_late_ones_last() {
        let mut all: Vec<&str> = super::PASSES.iter().map(|p| p.0).collect();
        all.sort_unstable();
        for order in super::ORDERS {
            let mut names = order.to_vec();
            names.sort_unstable();
            assert_eq!(names, all);
            let late = order.len() - super::LATE.len();
            assert!(order[late..].iter().all(|p| super::LATE.contains(p)));
        }
    }

    #[test]
    fn texture_parameters_go_one_at_a_time() {
        let src = "invocations 1\noutputs 4\ntexture 4x4 levels 2 layers 2\n\nblock_0:\n  \
            vec1 32 ssa_0 = load_const (0x00000000)\n  vec2 32 ssa_1 = vec2 ssa_0, ssa_0\n  \
            vec4 32 ssa_2 = tex 0, ssa_1, lod ssa_0, layer ssa_0, compare ssa_0, offset (1, 2)\n  \
            store_output 0, ssa_2\n";
        let p = parse_program(src, "t.ir").unwrap();
        let texts: Vec<String> = (0..)
            .map_while(|i| simplify_texture(&p, i))
            .map(|c| match c {
                Candidate::Try(q) => print_program(&q),
                Candidate::Skip => String::new(),
            })
            .collect();
        // offsets, compare, lod, layer: one candidate each.
        assert_eq!(texts.len(), 4);
        assert!(texts[0].contains("tex 0, ssa_1, lod ssa_0, layer ssa_0, compare ssa_0\n"));
        assert!(texts[1].contains("layer ssa_0, offset (1, 2)"));
        assert!(!texts[1].contains("compare"));
        assert!(texts[3].contains("tex 0, ssa_1, lod ssa_0, compare ssa_0, offset (1, 2)"));
    }

    #[test]
    fn chunks_halve_down_to_single_items() {
        let all: Vec<_> = (0..).map_while(|i| chunk(5, i)).collect();
        assert_eq!(all[0], 0..5);
        assert_eq!(&all[1..3], &[0..2, 2..4, 4..5][..2]);
        assert!(all.ends_with(&[0..1, 1..2, 2..3, 3..4, 4..5]));
    }
}
