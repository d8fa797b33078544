//! Out-of-SSA: phis become registers written on the incoming edges (the "to register form"
//! step the backends ask for).
//!
//! Each phi `p` in block `B` gets a register `r_p`; the phi itself becomes `p = load_reg r_p`
//! at `B`'s head (the remaining SSA values stay SSA), and at the end of each predecessor `P`
//! (before its `break`/`continue`) a *parallel copy* writes every `r_p` of `B` from its
//! source on that edge. Where a source is itself a phi `q` of `B` (the swap and rotation
//! patterns of loop headers), the copy reads `r_q` directly instead of keeping `q` alive
//! around the loop: `r_q` still holds `q` at the end of `P`, because registers of `B` are
//! written only at the ends of `B`'s predecessors and each of those jumps to `B`.
//!
//! Such copies read registers other copies of the same group write, so they are
//! sequentialised (Boissinot et al., CGO 2009, Algorithm 1): a copy whose destination no
//! pending copy still reads goes first; when only cycles remain, one destination is saved
//! into a temporary (a `load_reg` value) and its readers read that instead. This is where the
//! swap problem (`a = phi(x, b); b = phi(y, a)`) would go wrong with naive sequential copies;
//! the lost-copy problem cannot arise because uses of phi values keep reading the SSA value
//! loaded at the block head.
//!
//! Invariant relied on (and checked): no edge carrying phi sources is critical. A block
//! ending in `break`/`continue` or falling into a merge or a loop has one successor; only a
//! block followed by an `if` has two, and the first blocks of then/else lists (its successors)
//! have one predecessor and so no phis. A phi source from a two-successor block is reported
//! as [`FromSsaError::CriticalEdge`].
//!
//! Planted bug [`Plant::FromSsaSwap`]: the parallel copies are emitted in order, one after
//! another, so a copy may read a register an earlier copy of its group already overwrote.

use super::config::PassConfig;
use crate::ir::{Block, CfNode, Function, Inst, InstKind, Reg, Type, Value};
use crate::planted::Plant;
use cranelift_entity::SecondaryMap;

/// Why out-of-SSA could not proceed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FromSsaError {
    /// A phi has a source on an edge from a block with two successors: a copy there would
    /// also run on the other edge.
    #[error("phi {phi} in {block} has a source from {pred}, which has two successors")]
    CriticalEdge {
        /// The phi.
        phi: Value,
        /// The block holding it.
        block: Block,
        /// The predecessor with two successors.
        pred: Block,
    },
}

/// A source of a copy: an SSA value, or a register read at the copy.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Src {
    Val(Value),
    Reg(Reg),
}

/// Replaces every phi by register copies; returns whether there was any phi.
pub fn from_ssa(func: &mut Function) -> Result<bool, FromSsaError> {
    from_ssa_with(func, &PassConfig::default())
}

/// [`from_ssa`] with the pass configuration (planted bugs).
pub fn from_ssa_with(func: &mut Function, config: &PassConfig) -> Result<bool, FromSsaError> {
    let naive = config.plants.has(Plant::FromSsaSwap);
    let mut two_succ: SecondaryMap<Block, bool> = SecondaryMap::new();
    mark_branching(func, &func.body, &mut two_succ);
    // Phase 1: registers for the phis, and the parallel copies per predecessor.
    let mut reg_of: SecondaryMap<Value, Option<Reg>> = SecondaryMap::new();
    let mut copies: Vec<(Block, Vec<(Reg, Src)>)> = Vec::new();
    let mut any = false;
    for b in func.blocks_in_order() {
        let phis: Vec<Inst> = func.blocks[b]
            .insts
            .iter()
            .copied()
            .take_while(|&i| matches!(func.insts[i].kind, InstKind::Phi { .. }))
            .collect();
        for &phi in &phis {
            let v = func.result(phi).expect("phis have results");
            reg_of[v] = Some(func.regs.push(func.ty(v)));
        }
        let mut groups: Vec<(Block, Vec<(Reg, Src)>)> = Vec::new();
        for &phi in &phis {
            any = true;
            let v = func.result(phi).expect("phis have results");
            let dst = reg_of[v].expect("assigned above");
            let InstKind::Phi { sources } = &func.insts[phi].kind else {
                unreachable!("collected as phis");
            };
            for s in sources {
                if two_succ[s.pred] {
                    return Err(FromSsaError::CriticalEdge {
                        phi: v,
                        block: b,
                        pred: s.pred,
                    });
                }
                let is_local_phi = func.def(s.value).is_some_and(|d| phis.contains(&d));
                let src = match reg_of[s.value] {
                    Some(r) if is_local_phi => Src::Reg(r),
                    _ => Src::Val(s.value),
                };
                match groups.iter_mut().find(|(p, _)| *p == s.pred) {
                    Some((_, g)) => g.push((dst, src)),
                    None => groups.push((s.pred, vec![(dst, src)])),
                }
            }
        }
        copies.extend(groups);
        // The phis become register loads in place.
        for &phi in &phis {
            let v = func.result(phi).expect("phis have results");
            func.insts[phi].kind = InstKind::LoadReg {
                reg: reg_of[v].expect("assigned above"),
            };
        }
    }
    // Phase 2: sequentialise each parallel copy at the end of its predecessor.
    for (pred, group) in copies {
        let seq = if naive {
            sequentialize_naively(func, group)
        } else {
            sequentialize(func, group)
        };
        let insts = &mut func.blocks[pred].insts;
        let at = match insts.last() {
            Some(&last) if func.insts[last].kind.is_jump() => insts.len() - 1,
            _ => insts.len(),
        };
        insts.splice(at..at, seq);
    }
    Ok(any)
}

/// Marks blocks with two successors: those followed by an `if` that do not end in a jump.
fn mark_branching(func: &Function, list: &[CfNode], out: &mut SecondaryMap<Block, bool>) {
    for (k, node) in list.iter().enumerate() {
        match node {
            CfNode::Block(b) => {
                if matches!(list.get(k + 1), Some(CfNode::If(_))) && !func.ends_in_jump(*b) {
                    out[*b] = true;
                }
            }
            CfNode::If(n) => {
                mark_branching(func, &n.then_list, out);
                mark_branching(func, &n.else_list, out);
            }
            CfNode::Loop(n) => mark_branching(func, &n.body, out),
        }
    }
}

/// Orders a parallel copy (distinct destinations) into instructions with the same effect.
fn sequentialize(func: &mut Function, mut pending: Vec<(Reg, Src)>) -> Vec<Inst> {
    let mut out = Vec::new();
    pending.retain(|&(dst, src)| src != Src::Reg(dst));
    while !pending.is_empty() {
        let ready = (0..pending.len()).find(|&i| {
            let dst = pending[i].0;
            pending
                .iter()
                .enumerate()
                .all(|(j, &(_, src))| j == i || src != Src::Reg(dst))
        });
        match ready {
            Some(i) => {
                let (dst, src) = pending.remove(i);
                let value = read(func, src, &mut out);
                let (store, _) = func.make_inst(InstKind::StoreReg { reg: dst, value }, Type::None);
                out.push(store);
            }
            None => {
                // Only cycles are left: save one destination, then its readers read the copy.
                let dst = pending[0].0;
                let saved = read(func, Src::Reg(dst), &mut out);
                for (_, src) in &mut pending {
                    if *src == Src::Reg(dst) {
                        *src = Src::Val(saved);
                    }
                }
            }
        }
    }
    out
}

/// The planted bug: each copy in turn, as if the group were not parallel.
fn sequentialize_naively(func: &mut Function, pending: Vec<(Reg, Src)>) -> Vec<Inst> {
    let mut out = Vec::new();
    for (dst, src) in pending {
        if src == Src::Reg(dst) {
            continue;
        }
        let value = read(func, src, &mut out);
        let (store, _) = func.make_inst(InstKind::StoreReg { reg: dst, value }, Type::None);
        out.push(store);
    }
    out
}

/// The SSA value of a copy source, emitting a `load_reg` for a register.
fn read(func: &mut Function, src: Src, out: &mut Vec<Inst>) -> Value {
    match src {
        Src::Val(v) => v,
        Src::Reg(r) => {
            let ty = func.regs[r];
            let (load, v) = func.make_inst(InstKind::LoadReg { reg: r }, ty);
            out.push(load);
            v.expect("a register load has a result")
        }
    }
}
