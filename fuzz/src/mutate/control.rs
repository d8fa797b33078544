//! Control-flow mutations: turning a branch around, and wrapping a stretch of code in a loop
//! that runs it more than once.
//!
//! Phis name their predecessors by block, so both keep them right by construction: swapping
//! an `if`'s lists leaves every merge phi's sources where they were, and a wrapped stretch
//! gets fresh blocks before and after it that take over the old blocks' edges
//! ([`Function::rename_phi_pred`]).

use super::edit;
use crate::rng::SplitMix64;
use compiler::ir::{
    AluOp, BlockData, CfNode, IfNode, InstKind, LoopNode, PhiSource, Program, Type,
};

/// Swaps an `if`'s then- and else-lists; half the time also negates its condition (`bnot`,
/// in the block before the `if`), which keeps the program's meaning and changes only its
/// shape, the other half runs each side when the other used to.
pub fn branch(p: &mut Program, rng: &mut SplitMix64) -> Option<()> {
    let ifs = edit::nodes(&p.func.body, |n| matches!(n, CfNode::If(_)));
    let (path, k) = edit::pick(&ifs, rng)?.clone();
    let invert = rng.next_u64() & 1 == 1;
    let before = edit::block_at(edit::list(&p.func.body, &path)?, k.checked_sub(1)?)?;
    let func = &mut p.func;
    let negated = if invert {
        let CfNode::If(n) = edit::list(&func.body, &path)?.get(k)? else {
            return None;
        };
        let cond = n.cond;
        Some(edit::alu(func, before, AluOp::Bnot, &[cond]))
    } else {
        None
    };
    let CfNode::If(n) = edit::list_mut(&mut func.body, &path)?.get_mut(k)? else {
        return None;
    };
    std::mem::swap(&mut n.then_list, &mut n.else_list);
    if let Some(c) = negated {
        n.cond = c;
    }
    Some(())
}

/// Wraps the nodes `list[i+1..=j]` (an `if` or `loop` first, a block last) in a loop that
/// runs them 2–3 times: a fresh header counts the passes, the old last block ends the pass
/// with `if (count >= N) break`, and a fresh block after the loop carries on where the old
/// last block did (its jump, if it had one, moves there). Stretches holding a `break` or
/// `continue` of the enclosing loop are left alone: they would bind to the new loop; so are
/// stretches holding a `barrier`, which must stay at the top level.
pub fn wrap_in_loop(p: &mut Program, rng: &mut SplitMix64) -> Option<()> {
    let mut spans = Vec::new();
    for path in edit::all_lists(&p.func.body) {
        let list = edit::list(&p.func.body, &path)?;
        for i in (0..list.len()).filter(|&i| edit::block_at(list, i).is_some()) {
            for j in (i + 2..list.len()).step_by(2) {
                let middle = &list[i + 1..j];
                if !edit::has_own_jump(&p.func, middle)
                    && !edit::has_barrier(&p.func, &list[i + 1..=j])
                {
                    spans.push((path.clone(), i, j));
                }
            }
        }
    }
    let (path, i, j) = edit::pick(&spans, rng)?.clone();
    let passes = rng.range(2, 3) as u32;
    let func = &mut p.func;
    let list = edit::list(&func.body, &path)?;
    let (pre, last) = (edit::block_at(list, i)?, edit::block_at(list, j)?);
    let header = func.blocks.push(BlockData::default());
    let exit = func.blocks.push(BlockData::default());
    let (brk, stay, latch) = (
        func.blocks.push(BlockData::default()),
        func.blocks.push(BlockData::default()),
        func.blocks.push(BlockData::default()),
    );
    // The fresh blocks take over the edges into and out of the stretch.
    func.rename_phi_pred(pre, header);
    func.rename_phi_pred(last, exit);
    if func.ends_in_jump(last) {
        let jump = func.blocks[last].insts.pop()?;
        func.blocks[exit].insts.push(jump);
    }
    let zero = edit::constant(func, pre, &[0]);
    let one = edit::constant(func, pre, &[1]);
    let limit = edit::constant(func, pre, &[passes]);
    let count = edit::prepend_phi(
        func,
        header,
        InstKind::Phi {
            sources: vec![PhiSource {
                pred: pre,
                value: zero,
            }],
        },
        Type::I32,
    );
    let next = edit::alu(func, last, AluOp::Iadd, &[count, one]);
    let done = edit::alu(func, last, AluOp::Uge, &[next, limit]);
    let phi = func.def(count)?;
    if let InstKind::Phi { sources } = &mut func.insts[phi].kind {
        sources.push(PhiSource {
            pred: latch,
            value: next,
        });
    }
    let jump = func.make_inst(InstKind::Break, Type::None).0;
    func.blocks[brk].insts.push(jump);
    let list = edit::list_mut(&mut func.body, &path)?;
    let mut body = vec![CfNode::Block(header)];
    body.extend(list.drain(i + 1..=j));
    body.push(CfNode::If(Box::new(IfNode {
        cond: done,
        then_list: vec![CfNode::Block(brk)],
        else_list: vec![CfNode::Block(stay)],
    })));
    body.push(CfNode::Block(latch));
    list.insert(i + 1, CfNode::Loop(Box::new(LoopNode { body })));
    list.insert(i + 2, CfNode::Block(exit));
    Some(())
}
