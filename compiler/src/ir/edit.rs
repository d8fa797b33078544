//! Small editing helpers the passes share: visiting and rewriting every use of a value
//! (instruction operands and `if` conditions), counting uses, and renaming a phi predecessor.
//!
//! "Use" means a use by a *placed* instruction (one in some block of the layout) or by the
//! condition of an `if` in the tree; instructions not in the layout are dead and ignored.

use super::{walk_blocks, Block, CfNode, Function, InstKind, Value};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;

/// A value substitution: `map[v]`, when set, replaces `v`.
pub type Subst = SecondaryMap<Value, PackedOption<Value>>;

/// Follows a substitution to its end (`a → b → c` gives `c`).
pub fn resolve(subst: &Subst, mut v: Value) -> Value {
    let mut steps = 0usize;
    while let Some(next) = subst[v].expand() {
        v = next;
        steps += 1;
        debug_assert!(steps <= subst.capacity() + 1, "cyclic substitution at {v}");
    }
    v
}

fn visit_conds(list: &[CfNode], f: &mut impl FnMut(Value)) {
    for node in list {
        match node {
            CfNode::Block(_) => {}
            CfNode::If(n) => {
                f(n.cond);
                visit_conds(&n.then_list, f);
                visit_conds(&n.else_list, f);
            }
            CfNode::Loop(n) => visit_conds(&n.body, f),
        }
    }
}

fn visit_conds_mut(list: &mut [CfNode], f: &mut impl FnMut(&mut Value)) {
    for node in list {
        match node {
            CfNode::Block(_) => {}
            CfNode::If(n) => {
                f(&mut n.cond);
                visit_conds_mut(&mut n.then_list, f);
                visit_conds_mut(&mut n.else_list, f);
            }
            CfNode::Loop(n) => visit_conds_mut(&mut n.body, f),
        }
    }
}

impl Function {
    /// Calls `f` with every used value: operands of placed instructions, then `if` conditions.
    pub fn for_each_use(&self, mut f: impl FnMut(Value)) {
        walk_blocks(&self.body, &mut |b| {
            for &i in &self.blocks[b].insts {
                self.insts[i].kind.visit_args(&mut f);
            }
        });
        visit_conds(&self.body, &mut f);
    }

    /// Calls `f` with a mutable reference to every use (see [`Function::for_each_use`]).
    pub fn for_each_use_mut(&mut self, mut f: impl FnMut(&mut Value)) {
        let (blocks, insts) = (&self.blocks, &mut self.insts);
        walk_blocks(&self.body, &mut |b| {
            for &i in &blocks[b].insts {
                insts[i].kind.visit_args_mut(&mut f);
            }
        });
        visit_conds_mut(&mut self.body, &mut f);
    }

    /// How many times each value is used (phi sources and `if` conditions included).
    pub fn use_counts(&self) -> SecondaryMap<Value, u32> {
        let mut n = SecondaryMap::with_capacity(self.values.len());
        self.for_each_use(|v| n[v] += 1);
        n
    }

    /// Rewrites every use of a substituted value by its (resolved) replacement. The
    /// replacement's definition must dominate every such use; the caller guarantees it.
    pub fn apply_subst(&mut self, subst: &Subst) {
        self.for_each_use_mut(|v| *v = resolve(subst, *v));
    }

    /// Renames predecessor `old` to `new` in every phi source (after blocks are merged).
    /// Walks all instructions, not the layout, so it works while a pass holds the body.
    pub fn rename_phi_pred(&mut self, old: Block, new: Block) {
        for data in self.insts.values_mut() {
            if let InstKind::Phi { sources } = &mut data.kind {
                for s in sources.iter_mut().filter(|s| s.pred == old) {
                    s.pred = new;
                }
            }
        }
    }

    /// Drops every phi source whose predecessor `gone` marks (blocks deleted by a pass).
    /// Walks all instructions, not the layout.
    pub fn drop_phi_sources(&mut self, gone: &SecondaryMap<Block, bool>) {
        for data in self.insts.values_mut() {
            if let InstKind::Phi { sources } = &mut data.kind {
                sources.retain(|s| !gone[s.pred]);
            }
        }
    }

    /// The component bits of a constant (`None` unless `v` is defined by `load_const`).
    pub fn const_bits(&self, v: Value) -> Option<[u32; 4]> {
        match self.def_kind(v)? {
            InstKind::Const { bits } => Some(*bits),
            _ => None,
        }
    }

    /// Removes from the layout every instruction `dead` marks.
    pub fn remove_insts(&mut self, dead: &SecondaryMap<super::Inst, bool>) {
        let (blocks, body) = (&mut self.blocks, &self.body);
        walk_blocks(body, &mut |b| blocks[b].insts.retain(|&i| !dead[i]));
    }

    /// Whether the block's last instruction is a `break` or `continue`.
    pub fn ends_in_jump(&self, b: Block) -> bool {
        self.blocks[b]
            .insts
            .last()
            .is_some_and(|&i| self.insts[i].kind.is_jump())
    }
}
