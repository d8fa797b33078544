//! Common-subexpression elimination: global value numbering of pure instructions, scoped
//! by dominance.
//!
//! The key is the instruction kind with its (already renamed) operands plus the result
//! type; the two operands of commutative ALU ops are put in a canonical order. Pure kinds:
//! constants, ALU ops (compares included), `vec`, `mov`, the invocation id, uniform loads,
//! texture sampling and fetches (textures and uniforms are read-only), and deref
//! instructions. Buffer, deref and register loads are not (a store may come between), nor
//! are phis, nor subgroup operations: two equal ones in different blocks see different
//! active invocations (NIR keeps them out of CSE for the same reason: they cannot be
//! reordered), and two in one block are rare enough not to need a special case.
//!
//! Dominance comes from the structure, as in NIR's `nir_opt_cse`-on-the-dominance-tree: a
//! block at position `i` of a control-flow list dominates every node after it in that list
//! (entering them must go through it: `continue` goes to a header, which is position 0, and
//! `break` leaves the list), so definitions stay visible for the rest of their list and
//! everything nested in it, and are forgotten when the list ends. This misses some
//! dominance (a loop header dominates the block after the loop) but never claims any that
//! does not hold, so every replacement's definition dominates the replaced uses.
//!
//! Edge cases: code after a `break`/`continue` in the same list is unreachable; a value
//! reused there is still one whose block comes first in the list.

use super::config::PassConfig;
use crate::ir::edit::{resolve, Subst};
use crate::ir::{CfNode, Function, Inst, InstKind, Type, Value};
use crate::planted::Plant;
use cranelift_entity::SecondaryMap;
use rustc_hash::FxHashMap as HashMap;
use std::collections::hash_map::Entry;

/// Replaces pure instructions by earlier equal ones that dominate them; returns progress.
pub fn cse(func: &mut Function) -> bool {
    cse_with(func, &PassConfig::default())
}

/// [`cse`] under a pass configuration (its planted bugs).
pub fn cse_with(func: &mut Function, config: &PassConfig) -> bool {
    let mut cx = Cse {
        convergent_pure: config.plants.has(Plant::CseSubgroupAcrossBlocks),
        // Sized for every instruction up front: growing it rehashed each key several times.
        table: HashMap::with_capacity_and_hasher(func.insts.len(), Default::default()),
        open: Vec::new(),
        subst: Subst::with_capacity(func.values.len()),
        dead: SecondaryMap::with_capacity(func.insts.len()),
        progress: false,
    };
    let body = std::mem::take(&mut func.body);
    cx.list(func, &body);
    func.body = body;
    if cx.progress {
        func.apply_subst(&cx.subst);
        func.remove_insts(&cx.dead);
    }
    cx.progress
}

struct Cse {
    /// Each key's value with the list (scope) that defined it. An entry whose list has ended
    /// counts as absent and is overwritten; forgetting a list's keys by removing them cost
    /// two more hashes per key (and a logged copy of each).
    table: HashMap<(InstKind, Type), (Value, usize)>,
    /// Per list, numbered in walk order: whether it is still being walked. Open lists are
    /// the current one and those enclosing it, whose definitions dominate what follows.
    open: Vec<bool>,
    subst: Subst,
    dead: SecondaryMap<Inst, bool>,
    progress: bool,
    /// Planted: subgroup operations count as pure.
    convergent_pure: bool,
}

impl Cse {
    fn list(&mut self, func: &mut Function, list: &[CfNode]) {
        let scope = self.open.len();
        self.open.push(true);
        for node in list {
            match node {
                CfNode::Block(b) => {
                    for k in 0..func.blocks[*b].insts.len() {
                        let inst = func.blocks[*b].insts[k];
                        self.inst(func, inst, scope);
                    }
                }
                CfNode::If(n) => {
                    self.list(func, &n.then_list);
                    self.list(func, &n.else_list);
                }
                CfNode::Loop(n) => self.list(func, &n.body),
            }
        }
        self.open[scope] = false;
    }

    fn inst(&mut self, func: &mut Function, inst: Inst, scope: usize) {
        let subst = &self.subst;
        if !matches!(func.insts[inst].kind, InstKind::Phi { .. }) {
            func.insts[inst]
                .kind
                .visit_args_mut(|v| *v = resolve(subst, *v));
        }
        let Some(result) = func.result(inst) else {
            return;
        };
        // Tested before cloning: impure kinds (phis among them) may own heap data.
        let kind = &func.insts[inst].kind;
        let planted = self.convergent_pure && kind.is_convergent();
        if !(is_pure(kind) || planted) {
            return;
        }
        let mut kind = func.insts[inst].kind.clone();
        if let InstKind::Alu { op, args } = &mut kind {
            if op.is_commutative() && args[1] < args[0] {
                args.swap(0, 1);
            }
        }
        let key = (kind, func.ty(result));
        match self.table.entry(key) {
            Entry::Occupied(e) if self.open[e.get().1] => {
                self.subst[result] = e.get().0.into();
                self.dead[inst] = true;
                self.progress = true;
            }
            Entry::Occupied(mut e) => _ = e.insert((result, scope)),
            Entry::Vacant(e) => _ = e.insert((result, scope)),
        }
    }
}

fn is_pure(kind: &InstKind) -> bool {
    matches!(
        kind,
        InstKind::Const { .. }
            | InstKind::Alu { .. }
            | InstKind::Vec { .. }
            | InstKind::Mov { .. }
            | InstKind::InvocationId
            | InstKind::LoadUniform { .. }
            | InstKind::Tex { .. }
            | InstKind::Txf { .. }
            | InstKind::Txs { .. }
            | InstKind::DerefVar { .. }
            | InstKind::DerefArray { .. }
            | InstKind::DerefStruct { .. }
            | InstKind::DerefCast { .. }
    )
}
