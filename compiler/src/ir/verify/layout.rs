//! Layout rules: the shape of the control-flow tree and of each block's instruction list.

use super::{exists, DefSite, Location, Rule, Verifier};
use crate::ir::{Block, CfNode, InstKind};
use cranelift_entity::EntityRef;

/// Which list of the tree is being walked, for messages.
#[derive(Copy, Clone)]
enum ListKind {
    Top,
    Then,
    Else,
    LoopBody,
}

impl ListKind {
    fn name(self) -> &'static str {
        match self {
            ListKind::Top => "the top-level list",
            ListKind::Then => "a then-list",
            ListKind::Else => "an else-list",
            ListKind::LoopBody => "a loop body",
        }
    }
}

impl Verifier<'_> {
    /// Walks the tree: list shapes, block and instruction placement, jumps and phis.
    /// Records the placed blocks and `if` conditions for the later checks.
    pub(super) fn check_layout(&mut self) {
        let mut prev = None;
        let body = &self.func.body;
        self.walk_list(body, ListKind::Top, 0, &mut prev);
    }

    fn walk_list(&mut self, list: &[CfNode], kind: ListKind, loops: u32, prev: &mut Option<Block>) {
        let loc = prev.map_or(Location::Program, Location::Block);
        // Only formatted when an error is reported: the verifier runs after every pass.
        let prev_block = *prev;
        let after = || prev_block.map_or(String::new(), |b| format!(" (after {b})"));
        match (list.first(), list.last()) {
            (None, _) => self.shape_err(loc, format!("{} is empty{}", kind.name(), after())),
            (Some(first), Some(last)) => {
                if !matches!(first, CfNode::Block(_)) {
                    let m = format!("{} does not start with a block{}", kind.name(), after());
                    self.shape_err(loc, m);
                }
                if !matches!(last, CfNode::Block(_)) {
                    let m = format!("{} does not end with a block{}", kind.name(), after());
                    self.shape_err(loc, m);
                }
            }
            (Some(_), None) => {}
        }
        for (i, node) in list.iter().enumerate() {
            let next_is_block = matches!(list.get(i + 1), Some(CfNode::Block(_)));
            match node {
                CfNode::Block(b) => {
                    if next_is_block {
                        let m = format!("{b} is followed by another block in {}", kind.name());
                        self.shape_err(Location::Block(*b), m);
                    }
                    self.walk_block(*b, loops, matches!(kind, ListKind::Top));
                    *prev = Some(*b);
                }
                CfNode::If(n) => {
                    self.check_adjacent_cf(list, i, *prev, kind);
                    self.if_conds.push((*prev, n.cond));
                    self.walk_list(&n.then_list, ListKind::Then, loops, prev);
                    self.walk_list(&n.else_list, ListKind::Else, loops, prev);
                }
                CfNode::Loop(l) => {
                    self.check_adjacent_cf(list, i, *prev, kind);
                    self.walk_list(&l.body, ListKind::LoopBody, loops + 1, prev);
                }
            }
        }
    }

    /// An `if` or `loop` must be followed by a block (or end the list, reported separately).
    fn check_adjacent_cf(&mut self, list: &[CfNode], i: usize, prev: Option<Block>, k: ListKind) {
        if matches!(list.get(i + 1), Some(CfNode::If(_) | CfNode::Loop(_))) {
            let loc = prev.map_or(Location::Program, Location::Block);
            let m = format!("two ifs/loops are adjacent in {}", k.name());
            self.shape_err(loc, m);
        }
    }

    fn shape_err(&mut self, loc: Location, message: String) {
        self.tree_ok = false;
        self.report(loc, Rule::ListShape, message);
    }

    fn walk_block(&mut self, b: Block, loops: u32, top: bool) {
        let func = self.func;
        if !exists(func.blocks.len(), b) {
            self.tree_ok = false;
            let m = format!("{b} is placed but does not exist");
            self.report(Location::Block(b), Rule::UnknownEntity, m);
            return;
        }
        if std::mem::replace(&mut self.seen_block[b.index()], true) {
            self.tree_ok = false;
            let m = format!("{b} is placed more than once");
            self.report(Location::Block(b), Rule::DuplicatePlacement, m);
            return;
        }
        self.placed_blocks.push(b);
        let insts = &func.blocks[b].insts;
        let mut phis_done = false;
        for (k, &inst) in insts.iter().enumerate() {
            let Some(data) = func.insts.get(inst) else {
                self.insts_clean = false;
                let m = format!("{inst} is placed in {b} but does not exist");
                self.report(Location::Block(b), Rule::UnknownEntity, m);
                continue;
            };
            let site = DefSite {
                block: b.into(),
                index: k as u32,
            };
            // One lookup both asks and marks.
            if std::mem::replace(&mut self.seen_inst[inst.index()], true) {
                self.insts_clean = false;
                let m = format!("{inst} is placed more than once (again in {b})");
                self.inst_err(inst, Rule::DuplicatePlacement, m);
                if let Some(v) = data.result.expand() {
                    if func
                        .values
                        .get(v)
                        .is_some_and(|vd| vd.def.expand() == Some(inst))
                    {
                        self.def_at[v.index()] = site;
                    }
                }
                continue;
            }
            if let Some(v) = data.result.expand() {
                match func.values.get(v) {
                    None => {
                        let m = format!("result {v} does not exist");
                        self.inst_err(inst, Rule::UnknownEntity, m);
                    }
                    Some(vd) if vd.def.expand() != Some(inst) => {
                        let def = vd.def.expand().map_or("nothing".into(), |d| d.to_string());
                        let m = format!("result {v} says it is defined by {def}");
                        self.inst_err(inst, Rule::ResultDef, m);
                    }
                    Some(_) => self.def_at[v.index()] = site,
                }
            }
            // The kind decoded once for the phi and the jump rules.
            match &data.kind {
                InstKind::Phi { .. } => {
                    if phis_done {
                        let m = format!("phi after a non-phi instruction in {b}");
                        self.inst_err(inst, Rule::PhiPlacement, m);
                    }
                }
                InstKind::Break | InstKind::Continue => {
                    phis_done = true;
                    if k + 1 != insts.len() {
                        let m = format!("{} is not the last instruction of {b}", data.kind.name());
                        self.inst_err(inst, Rule::JumpPlacement, m);
                    }
                    if loops == 0 {
                        let m = format!("{} outside any loop", data.kind.name());
                        self.inst_err(inst, Rule::JumpOutsideLoop, m);
                    }
                }
                InstKind::Barrier => {
                    phis_done = true;
                    if !top {
                        let m = format!("barrier in {b}, inside an if or a loop");
                        self.inst_err(inst, Rule::BarrierPlacement, m);
                    }
                }
                _ => phis_done = true,
            }
        }
    }
}
