//! The control-flow graph derived from the structured tree, its loop nest and dominator tree.
//! Where instructions sit is not part of it: the one client that needs positions, the
//! verifier, records them in its own walk of the blocks (it already visits every
//! instruction there), so the CFG's walk touches blocks, not instructions.
//!
//! Edges follow NIR's rules. A block followed by an `if` goes to the first block of the
//! then-list and of the else-list (in that order); one followed by a `loop` goes to the loop's
//! header (the first block of its body). The last block of a then/else list goes to the block
//! after the `if`; the last block of a loop body goes back to the header. A block ending in
//! `break` goes only to the block after the innermost loop, one ending in `continue` only to
//! its header. The last top-level block has no successors; the entry is the first top-level
//! block.
//!
//! Edge cases: blocks after a loop with no `break`, or after a `break` in the same list, have
//! no predecessors; they are unreachable, absent from the reverse post-order and dominated by
//! nothing. Malformed layouts (empty lists, adjacent blocks, blocks or instructions that do not
//! exist, blocks placed twice) never panic: edges to or from blocks that do not exist are
//! dropped, a missing entry simply yields no edge, and the verifier reports the layout itself.
//!
//! Both [`Cfg`] and [`DomTree`] can be recomputed in place, keeping their allocations, for
//! passes and the fuzz loop that run them once per program.

use super::{first_block, Block, CfNode, Function, InstKind};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntityRef, SecondaryMap};

/// An unset idom in the dominator computation.
const UNSET: u32 = u32::MAX;

/// Predecessors, successors, reverse post-order and loop nest of a [`Function`].
#[derive(Clone, Debug, Default)]
pub struct Cfg {
    entry: Option<Block>,
    /// Edges in discovery order (program order of their sources); scratch for the CSR build.
    edges: Vec<(Block, Block)>,
    /// The edges, entry and block count of the previous computation: when a recomputation
    /// finds the same, the adjacency lists and the reverse post-order (functions of these
    /// alone) are kept.
    prev_edges: Vec<(Block, Block)>,
    prev_blocks: usize,
    /// Whether the last recomputation found the edges, entry and block count unchanged.
    edges_unchanged: bool,
    /// Per block: where its adjacency lists sit and its reverse post-order number (one map,
    /// so a recomputation clears and sizes one map rather than three).
    adj: SecondaryMap<Block, BlockAdj>,
    succ_list: Vec<Block>,
    pred_list: Vec<Block>,
    rpo: Vec<Block>,
    /// Scratch for the depth-first search.
    stack: Vec<(Block, u32)>,
    /// Scratch for the adjacency build: edge counts, then insertion cursors.
    succ_count: Vec<u32>,
    pred_count: Vec<u32>,
    /// Per block: its place in the tree and the loop nest (one map, so a recomputation
    /// clears and sizes one map rather than five).
    nest: SecondaryMap<Block, BlockNest>,
}

/// A block's adjacency ranges and reverse post-order number.
#[derive(Clone, Copy, Debug, Default)]
struct BlockAdj {
    /// `succ_list[succ.0 .. succ.1]` are the successors of the block.
    succ: (u32, u32),
    /// `pred_list[pred.0 .. pred.1]` are its predecessors.
    pred: (u32, u32),
    /// One more than the block's index in `rpo`; 0 for blocks the entry does not reach.
    rpo_num: u32,
}

/// A block's place in the tree and the loop nest.
#[derive(Clone, Copy, Debug, Default)]
struct BlockNest {
    /// Header of the innermost loop containing the block (a header maps to itself).
    loop_of: PackedOption<Block>,
    /// For headers: the header of the enclosing loop.
    loop_parent: PackedOption<Block>,
    /// For headers: the block after the loop (where `break` goes).
    loop_exit: PackedOption<Block>,
    /// Number of loops containing the block.
    depth: u32,
    /// Whether the block appears in the tree.
    placed: bool,
}

/// The loop a list sits in: where `continue` and `break` go.
#[derive(Clone, Copy)]
struct LoopCtx {
    header: Option<Block>,
    exit: Option<Block>,
}

impl Cfg {
    /// Computes the CFG of `func`.
    pub fn compute(func: &Function) -> Cfg {
        let mut cfg = Cfg::default();
        cfg.recompute(func);
        cfg
    }

    /// Recomputes the CFG of `func` in place, reusing allocations.
    pub fn recompute(&mut self, func: &Function) {
        let nb = func.blocks.len();
        self.nest.clear();
        self.nest.resize(nb);
        std::mem::swap(&mut self.edges, &mut self.prev_edges);
        self.edges.clear();

        let prev_entry = self.entry;
        self.entry = first_block(&func.body).filter(|b| b.index() < nb);
        self.walk(func, &func.body, None, None, None, 0);
        self.edges_unchanged =
            self.edges == self.prev_edges && self.entry == prev_entry && nb == self.prev_blocks;
        self.prev_blocks = nb;
        if self.edges_unchanged {
            return;
        }
        self.adj.clear();
        self.adj.resize(nb);
        self.succ_list.clear();
        self.pred_list.clear();
        self.rpo.clear();
        self.build_adjacency(nb);
        self.compute_rpo();
    }

    /// Whether the last [`Cfg::recompute`] found the same edges, entry and block count as the
    /// one before it (so the adjacency, the reverse post-order and anything derived from
    /// them alone, such as a [`DomTree`], are still valid).
    pub fn edges_unchanged(&self) -> bool {
        self.edges_unchanged
    }

    /// Records the blocks of `list` and their outgoing edges. `cont` is where control goes
    /// when it falls off the end of the list; `outer` is the innermost enclosing loop's header.
    fn walk(
        &mut self,
        func: &Function,
        list: &[CfNode],
        cont: Option<Block>,
        lp: Option<LoopCtx>,
        outer: Option<Block>,
        depth: u32,
    ) {
        for (i, node) in list.iter().enumerate() {
            match node {
                CfNode::Block(b) => {
                    let b = *b;
                    if b.index() >= func.blocks.len() {
                        continue;
                    }
                    let nest = &mut self.nest[b];
                    nest.placed = true;
                    nest.loop_of = outer.into();
                    nest.depth = depth;
                    let last = func.blocks[b].insts.last().and_then(|&i| func.insts.get(i));
                    match last.map(|d| &d.kind) {
                        Some(InstKind::Break) => self.edge(func, b, lp.and_then(|l| l.exit)),
                        Some(InstKind::Continue) => self.edge(func, b, lp.and_then(|l| l.header)),
                        _ => match list.get(i + 1) {
                            None => self.edge(func, b, cont),
                            Some(CfNode::Block(next)) => self.edge(func, b, Some(*next)),
                            Some(CfNode::If(n)) => {
                                self.edge(func, b, first_block(&n.then_list));
                                self.edge(func, b, first_block(&n.else_list));
                            }
                            Some(CfNode::Loop(l)) => self.edge(func, b, first_block(&l.body)),
                        },
                    }
                }
                CfNode::If(n) => {
                    let after = target_after(list, i, cont);
                    self.walk(func, &n.then_list, after, lp, outer, depth);
                    self.walk(func, &n.else_list, after, lp, outer, depth);
                }
                CfNode::Loop(l) => {
                    let header = first_block(&l.body).filter(|b| b.index() < func.blocks.len());
                    let exit = target_after(list, i, cont);
                    if let Some(h) = header {
                        let nest = &mut self.nest[h];
                        nest.loop_parent = outer.into();
                        nest.loop_exit = exit.into();
                    }
                    let ctx = LoopCtx { header, exit };
                    let inner = header.or(outer);
                    self.walk(func, &l.body, header, Some(ctx), inner, depth + 1);
                }
            }
        }
    }

    fn edge(&mut self, func: &Function, from: Block, to: Option<Block>) {
        if let Some(to) = to.filter(|t| t.index() < func.blocks.len()) {
            self.edges.push((from, to));
        }
    }

    /// Builds the successor and predecessor lists from `edges` by counting sort, keeping
    /// discovery order within each list.
    fn build_adjacency(&mut self, nb: usize) {
        let mut succ_count = std::mem::take(&mut self.succ_count);
        let mut pred_count = std::mem::take(&mut self.pred_count);
        succ_count.clear();
        succ_count.resize(nb + 1, 0);
        pred_count.clear();
        pred_count.resize(nb + 1, 0);
        for &(from, to) in &self.edges {
            succ_count[from.index() + 1] += 1;
            pred_count[to.index() + 1] += 1;
        }
        for k in 0..nb {
            succ_count[k + 1] += succ_count[k];
            pred_count[k + 1] += pred_count[k];
        }
        for k in 0..nb {
            let b = Block::new(k);
            let adj = &mut self.adj[b];
            adj.succ = (succ_count[k], succ_count[k + 1]);
            adj.pred = (pred_count[k], pred_count[k + 1]);
        }
        let dummy = Block::new(0);
        self.succ_list.resize(self.edges.len(), dummy);
        self.pred_list.resize(self.edges.len(), dummy);
        for &(from, to) in &self.edges {
            let s = &mut succ_count[from.index()];
            self.succ_list[*s as usize] = to;
            *s += 1;
            let p = &mut pred_count[to.index()];
            self.pred_list[*p as usize] = from;
            *p += 1;
        }
        self.succ_count = succ_count;
        self.pred_count = pred_count;
    }

    /// Depth-first search from the entry, visiting successors in reverse so that the
    /// reverse post-order lists then-branches before else-branches.
    fn compute_rpo(&mut self) {
        let Some(entry) = self.entry else { return };
        // `rpo_num` marks visited blocks with a placeholder until they are numbered.
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push((entry, 0));
        self.adj[entry].rpo_num = u32::MAX;
        while let Some(top) = stack.last_mut() {
            let (b, k) = *top;
            let (lo, hi) = self.adj[b].succ;
            if lo + k < hi {
                top.1 += 1;
                let s = self.succ_list[(hi - 1 - k) as usize];
                if self.adj[s].rpo_num == 0 {
                    self.adj[s].rpo_num = u32::MAX;
                    stack.push((s, 0));
                }
            } else {
                stack.pop();
                self.rpo.push(b);
            }
        }
        self.stack = stack;
        self.rpo.reverse();
        for (n, &b) in self.rpo.iter().enumerate() {
            self.adj[b].rpo_num = n as u32 + 1;
        }
    }

    /// The entry block, if the body starts with an existing block.
    pub fn entry(&self) -> Option<Block> {
        self.entry
    }

    /// Successors of `b`, then-branch before else-branch.
    pub fn succs(&self, b: Block) -> &[Block] {
        let (lo, hi) = self.adj[b].succ;
        &self.succ_list[lo as usize..hi as usize]
    }

    /// Predecessors of `b`, in program order of the predecessors.
    pub fn preds(&self, b: Block) -> &[Block] {
        let (lo, hi) = self.adj[b].pred;
        &self.pred_list[lo as usize..hi as usize]
    }

    /// Reachable blocks in reverse post-order (the entry first).
    pub fn rpo(&self) -> &[Block] {
        &self.rpo
    }

    /// Position of `b` in [`Cfg::rpo`]; none if the entry does not reach it.
    pub fn rpo_index(&self, b: Block) -> Option<usize> {
        self.adj[b].rpo_num.checked_sub(1).map(|n| n as usize)
    }

    /// Whether the entry reaches `b`.
    pub fn is_reachable(&self, b: Block) -> bool {
        self.adj[b].rpo_num != 0
    }

    /// Whether `b` appears in the control-flow tree.
    pub fn is_placed(&self, b: Block) -> bool {
        self.nest[b].placed
    }

    /// Whether `b` is the header of a loop.
    pub fn is_loop_header(&self, b: Block) -> bool {
        self.nest[b].loop_of.expand() == Some(b)
    }

    /// Header of the innermost loop containing `b` (a header is in its own loop); none at
    /// the top level.
    pub fn loop_header_of(&self, b: Block) -> Option<Block> {
        self.nest[b].loop_of.expand()
    }

    /// Header of the loop enclosing the loop headed by `header`.
    pub fn parent_loop(&self, header: Block) -> Option<Block> {
        self.nest[header].loop_parent.expand()
    }

    /// The block after the loop headed by `header`, where its `break`s go.
    pub fn loop_exit(&self, header: Block) -> Option<Block> {
        self.nest[header].loop_exit.expand()
    }

    /// Number of loops containing `b` (0 at the top level).
    pub fn loop_depth(&self, b: Block) -> u32 {
        self.nest[b].depth
    }

    /// Whether `b` lies inside the loop headed by `header` (at any depth).
    pub fn is_in_loop(&self, b: Block, header: Block) -> bool {
        let mut cur = self.nest[b].loop_of.expand();
        while let Some(h) = cur {
            if h == header {
                return true;
            }
            cur = self.nest[h].loop_parent.expand();
        }
        false
    }

    /// Whether `from → to` is an edge going back to the header of a loop containing `from`
    /// (a `continue` or the fall-through at the end of a loop body).
    pub fn is_back_edge(&self, from: Block, to: Block) -> bool {
        self.is_loop_header(to) && self.is_in_loop(from, to) && self.succs(from).contains(&to)
    }
}

/// Where control goes after the node at `list[i]`: the next node's entry block, or `cont` at
/// the end of the list. An `if` right after another node (malformed) has no single entry.
fn target_after(list: &[CfNode], i: usize, cont: Option<Block>) -> Option<Block> {
    match list.get(i + 1) {
        None => cont,
        Some(CfNode::Block(b)) => Some(*b),
        Some(CfNode::Loop(l)) => first_block(&l.body),
        Some(CfNode::If(_)) => None,
    }
}

/// The dominator tree of the reachable blocks, by Cooper, Harvey and Kennedy's iterative
/// algorithm over the reverse post-order, numbered for constant-time dominance queries.
#[derive(Clone, Debug, Default)]
pub struct DomTree {
    idom: SecondaryMap<Block, PackedOption<Block>>,
    /// `child_list[child_range[b].0 .. child_range[b].1]` are the children of `b`.
    child_range: SecondaryMap<Block, (u32, u32)>,
    child_list: Vec<Block>,
    /// Pre- and post-order numbers in the tree, starting at 1; 0 for unreachable blocks.
    pre: SecondaryMap<Block, u32>,
    post: SecondaryMap<Block, u32>,
    /// Scratch: idoms as reverse post-order numbers, child counts, the numbering stack.
    doms: Vec<u32>,
    count: Vec<u32>,
    stack: Vec<(Block, u32)>,
}

impl DomTree {
    /// Computes the dominator tree of `cfg`.
    pub fn compute(cfg: &Cfg) -> DomTree {
        let mut dt = DomTree::default();
        dt.recompute(cfg);
        dt
    }

    /// Recomputes the tree in place, reusing allocations.
    pub fn recompute(&mut self, cfg: &Cfg) {
        self.idom.clear();
        self.child_range.clear();
        self.child_list.clear();
        self.pre.clear();
        self.post.clear();
        let rpo = cfg.rpo();
        if rpo.is_empty() {
            return;
        }
        // idom as reverse post-order numbers; the entry is its own.
        let mut doms = std::mem::take(&mut self.doms);
        doms.clear();
        doms.resize(rpo.len(), UNSET);
        doms[0] = 0;
        let mut changed = true;
        while changed {
            changed = false;
            for (n, &b) in rpo.iter().enumerate().skip(1) {
                let mut new = UNSET;
                for &p in cfg.preds(b) {
                    let Some(pn) = cfg.rpo_index(p).map(|n| n as u32) else {
                        continue;
                    };
                    if doms[pn as usize] == UNSET {
                        continue;
                    }
                    new = if new == UNSET {
                        pn
                    } else {
                        intersect(&doms, pn, new)
                    };
                }
                if doms[n] != new {
                    doms[n] = new;
                    changed = true;
                }
            }
        }
        let mut count = std::mem::take(&mut self.count);
        count.clear();
        count.resize(rpo.len() + 1, 0);
        for (n, &b) in rpo.iter().enumerate().skip(1) {
            let d = doms[n] as usize;
            self.idom[b] = rpo[d].into();
            count[d + 1] += 1;
        }
        for k in 0..rpo.len() {
            count[k + 1] += count[k];
            self.child_range[rpo[k]] = (count[k], count[k + 1]);
        }
        self.child_list.resize(rpo.len() - 1, rpo[0]);
        for (n, &b) in rpo.iter().enumerate().skip(1) {
            let slot = &mut count[doms[n] as usize];
            self.child_list[*slot as usize] = b;
            *slot += 1;
        }
        self.doms = doms;
        self.count = count;
        self.number(rpo[0]);
    }

    /// Numbers the tree depth first from `root`.
    fn number(&mut self, root: Block) {
        let mut clock = 1;
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push((root, 0u32));
        self.pre[root] = clock;
        while let Some(top) = stack.last_mut() {
            let (b, k) = *top;
            let (lo, hi) = self.child_range[b];
            if lo + k < hi {
                top.1 += 1;
                let c = self.child_list[(lo + k) as usize];
                clock += 1;
                self.pre[c] = clock;
                stack.push((c, 0));
            } else {
                clock += 1;
                self.post[b] = clock;
                stack.pop();
            }
        }
        self.stack = stack;
    }

    /// The immediate dominator of `b`; none for the entry and unreachable blocks.
    pub fn idom(&self, b: Block) -> Option<Block> {
        self.idom[b].expand()
    }

    /// The blocks `b` immediately dominates, in reverse post-order.
    pub fn children(&self, b: Block) -> &[Block] {
        let (lo, hi) = self.child_range[b];
        &self.child_list[lo as usize..hi as usize]
    }

    /// Whether `b` is reachable (in the tree).
    pub fn is_reachable(&self, b: Block) -> bool {
        self.pre[b] != 0
    }

    /// Whether every path from the entry to `b` goes through `a` (`a` dominates itself).
    /// False when either block is unreachable.
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        self.is_reachable(a)
            && self.is_reachable(b)
            && self.pre[a] <= self.pre[b]
            && self.post[b] <= self.post[a]
    }

    /// Whether `a` dominates `b` and differs from it.
    pub fn strictly_dominates(&self, a: Block, b: Block) -> bool {
        a != b && self.dominates(a, b)
    }

    /// Whether a value defined by the instruction at `def` = (block, index) is available at
    /// the instruction at `user` = (block, index): earlier in the same block, or in a block
    /// strictly dominating the user's. False when the user's block is unreachable.
    #[inline]
    pub fn def_dominates_use(&self, def: (Block, usize), user: (Block, usize)) -> bool {
        if def.0 == user.0 {
            self.is_reachable(user.0) && def.1 < user.1
        } else {
            self.strictly_dominates(def.0, user.0)
        }
    }
}

/// Cooper–Harvey–Kennedy's two-finger walk up the partial tree, on reverse post-order numbers.
fn intersect(doms: &[u32], mut a: u32, mut b: u32) -> u32 {
    while a != b {
        while a > b {
            a = doms[a as usize];
        }
        while b > a {
            b = doms[b as usize];
        }
    }
    a
}

#[cfg(test)]
#[path = "cfg_tests.rs"]
mod tests;
