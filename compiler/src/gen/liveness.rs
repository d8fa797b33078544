//! Liveness of virtual registers, one bit per GRF of each register (Mesa's per-component
//! `fs_live_variables`), over the structured control-flow graph, loops included.
//!
//! A write replaces ("kills") the GRFs it covers unless it is partial (predicated, or a
//! spill temporary merged with old contents). From block live-in/live-out sets every register
//! gets one live *interval* in program order: positions `2i` (reads of instruction `i`) and
//! `2i + 1` (its writes), half-open, so a source dying at `i` and a destination born at `i`
//! do not overlap. Intervals are conservative for channel masks: whatever is live in some
//! channel while others run an instruction spans it in program order, with one exception the
//! analysis repairs — a value live out of a loop is kept by channels that left early while the
//! others still iterate, so it is extended over the whole loop (Mesa: "Extend the live range
//! of VGRFs which leave loops"). That matters because fills write whole registers (NoMask).

use super::flow::{self, Flow, Graph};
use super::vinst::{VInst, VOp, VProgram};
use crate::bits::members;
use cranelift_entity::EntityRef;
use sim::gen::{Op, Pred};

/// A set of GRF units.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct BitSet(pub Vec<u64>);

impl BitSet {
    /// An empty set of `n` units.
    pub fn new(n: usize) -> BitSet {
        BitSet(vec![0; n.div_ceil(64)])
    }
    /// Makes it an empty set of `n` units, keeping its capacity.
    pub fn reset(&mut self, n: usize) {
        self.0.clear();
        self.0.resize(n.div_ceil(64), 0);
    }
    /// Whether `i` is in the set.
    #[inline]
    pub fn has(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 != 0
    }
    /// Adds `i`.
    #[inline]
    pub fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    /// Removes `i`.
    #[inline]
    pub fn clear(&mut self, i: usize) {
        self.0[i / 64] &= !(1 << (i % 64));
    }
    /// Adds every member of `o`; whether anything changed.
    pub fn union(&mut self, o: &BitSet) -> bool {
        let mut changed = false;
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            let n = *a | *b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }
    /// The members, in order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        members(&self.0)
    }
}

/// Live sets per block.
#[derive(Clone, Debug)]
pub struct Liveness {
    /// First unit of each register.
    pub base: Vec<u32>,
    /// Units in all.
    pub units: usize,
    /// The control-flow graph.
    pub graph: Graph,
    /// Words of a set of units.
    words: usize,
    /// Units live on entry to each block, `words` per block (one array, not a set per block:
    /// two allocations per block were a good part of computing liveness).
    livein: Vec<u64>,
    /// Units live on exit from each block, likewise.
    liveout: Vec<u64>,
}

/// Flow kinds of a program's instructions.
pub fn flows(insts: &[VInst]) -> Vec<Flow> {
    insts.iter().map(|i| Flow::of(i.hw(), i.pred)).collect()
}

/// Whether the write of `inst` replaces its destination.
pub fn kills(inst: &VInst) -> bool {
    !inst.partial && (inst.pred == Pred::None || inst.op == VOp::Hw(Op::Sel))
}

impl Liveness {
    /// The words of the units live on entry to block `b`.
    pub fn live_in(&self, b: usize) -> &[u64] {
        &self.livein[b * self.words..(b + 1) * self.words]
    }

    /// The words of the units live on exit from block `b`.
    pub fn live_out(&self, b: usize) -> &[u64] {
        &self.liveout[b * self.words..(b + 1) * self.words]
    }

    /// Unit range of an operand, clipped to its register.
    pub fn units_of(&self, p: &VProgram, r: &super::vinst::VRef, n: u8) -> std::ops::Range<usize> {
        let size = p.regs[r.reg].size as usize;
        let b = self.base[r.reg.index()] as usize;
        let lo = (r.off as usize).min(size);
        let hi = (r.off as usize + n as usize).min(size);
        b + lo..b + hi
    }

    /// Applies instruction `inst` backwards to `live`.
    pub fn step_back(&self, p: &VProgram, inst: &VInst, live: &mut BitSet) {
        if let Some(d) = &inst.dst {
            if kills(inst) {
                let n = inst.dst_regs(|r| p.regs[r].size);
                for u in self.units_of(p, d, n) {
                    live.clear(u);
                }
            }
        }
        inst.for_each_use(|r, n| {
            for u in self.units_of(p, r, n) {
                live.set(u);
            }
        });
    }

    /// Units live just after instruction `idx`.
    pub fn live_after(&self, p: &VProgram, idx: usize) -> BitSet {
        let b = self.graph.block_of[idx] as usize;
        let mut live = BitSet(self.live_out(b).to_vec());
        for i in (idx + 1..self.graph.range(b).end).rev() {
            self.step_back(p, &p.insts[i], &mut live);
        }
        live
    }
}

/// Computes liveness; `None` if the control flow is not structured.
pub fn compute(p: &VProgram) -> Option<Liveness> {
    let graph = flow::graph(&flows(&p.insts))?;
    let mut base = Vec::with_capacity(p.regs.len());
    let mut units = 0usize;
    for (_, info) in p.regs.iter() {
        base.push(units as u32);
        units += info.size as usize;
    }
    let nb = graph.len();
    let words = units.div_ceil(64);
    let mut l = Liveness {
        base,
        units,
        words,
        livein: vec![0; nb * words],
        liveout: vec![0; nb * words],
        graph,
    };
    // Per block: units read before any write that kills them (`gen`) and units killed
    // (`kill`); then live-in = gen ∪ (live-out ∖ kill), word by word. Both are one flat
    // array of `words` per block, as the live sets are.
    let mut gen = vec![0u64; nb * words];
    let mut kill = vec![0u64; nb * words];
    for b in 0..nb {
        let g = &mut gen[b * words..(b + 1) * words];
        let k = &mut kill[b * words..(b + 1) * words];
        for i in l.graph.range(b).rev() {
            let inst = &p.insts[i];
            if let Some(d) = &inst.dst {
                if kills(inst) {
                    let n = inst.dst_regs(|r| p.regs[r].size);
                    for u in l.units_of(p, d, n) {
                        g[u / 64] &= !(1 << (u % 64));
                        k[u / 64] |= 1 << (u % 64);
                    }
                }
            }
            inst.for_each_use(|r, n| {
                for u in l.units_of(p, r, n) {
                    g[u / 64] |= 1 << (u % 64);
                }
            });
        }
    }
    // With no edge back to a block at or before its source (no loop), one pass in reverse
    // order sees every successor's final live-in: a second pass would only confirm it.
    let forward = (0..nb).all(|b| l.graph.succs[b].iter().all(|&s| s as usize > b));
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..nb).rev() {
            let block = b * words..(b + 1) * words;
            let out = &mut l.liveout[block.clone()];
            out.iter_mut().for_each(|w| *w = 0);
            for &s in &l.graph.succs[b] {
                let s = s as usize;
                for (o, i) in out.iter_mut().zip(&l.livein[s * words..(s + 1) * words]) {
                    *o |= *i;
                }
            }
            let words = gen[block.clone()]
                .iter()
                .zip(&kill[block.clone()])
                .zip(out.iter());
            for (old, ((g, k), o)) in l.livein[block].iter_mut().zip(words) {
                let new = g | (o & !k);
                if new != *old {
                    *old = new;
                    changed = true;
                }
            }
        }
        changed &= !forward;
    }
    Some(l)
}

/// The two parts of each register's live interval, `[start, end)` in positions (`start >=
/// end` if empty); the interval is the hull of both.
pub struct Hulls {
    /// The hull of the block boundaries it is live at: starts of blocks it is live into, ends
    /// of blocks it is live out of, and the whole of a loop it is live out of.
    pub boundary: Vec<(u32, u32)>,
    /// The hull of its reads and writes.
    pub access: Vec<(u32, u32)>,
}

/// Each register's live interval in two parts, `[start, end)` in positions (`start >= end`
/// if empty): the hull of the block boundaries it is live at and the hull of
/// its own reads and writes; the live interval is the hull of both.
///
/// Block boundaries only ever move an interval's ends outwards, and they come in program
/// order (block `b` starts, then ends, then `b + 1` starts), so only the first boundary at
/// which a unit is live can lower its start and only the last can raise its end: one pass
/// forwards and one backwards, each taking just the units not seen yet, word by word.
pub fn hulls(p: &VProgram, l: &Liveness) -> Hulls {
    let mut out = vec![(u32::MAX, 0u32); p.regs.len()];
    let mut access = out.clone();
    let widen = |out: &mut Vec<(u32, u32)>, k: usize, s: u32, e: u32| {
        out[k].0 = out[k].0.min(s);
        out[k].1 = out[k].1.max(e);
    };
    let mut reg_of = vec![0u32; l.units];
    for (k, info) in p.regs.iter() {
        let b = l.base[k.index()] as usize;
        reg_of[b..b + info.size as usize].fill(k.index() as u32);
    }
    let words = l.units.div_ceil(64);
    let nb = l.graph.len();
    // Each boundary of `(block, live set, position)` in program order.
    let boundary = |k: usize| -> (&[u64], u32) {
        let b = k / 2;
        let r = l.graph.range(b);
        if k.is_multiple_of(2) {
            (l.live_in(b), 2 * r.start as u32)
        } else {
            (l.live_out(b), 2 * r.end as u32)
        }
    };
    let mut seen = vec![0u64; words];
    for k in 0..2 * nb {
        let (set, pos) = boundary(k);
        for_each_unseen(&mut seen, set, |u| {
            widen(&mut out, reg_of[u] as usize, pos, pos)
        });
    }
    seen.iter_mut().for_each(|w| *w = 0);
    for k in (0..2 * nb).rev() {
        let (set, pos) = boundary(k);
        for_each_unseen(&mut seen, set, |u| {
            widen(&mut out, reg_of[u] as usize, pos, pos)
        });
    }
    for (i, inst) in p.insts.iter().enumerate() {
        let pos = 2 * i as u32;
        inst.for_each_use(|v, n| {
            if !l.units_of(p, v, n).is_empty() {
                widen(&mut access, v.reg.index(), pos, pos + 1);
            }
        });
        if let Some(d) = &inst.dst {
            let n = inst.dst_regs(|r| p.regs[r].size);
            if !l.units_of(p, d, n).is_empty() {
                widen(&mut access, d.reg.index(), pos + 1, pos + 2);
            }
        }
    }
    for &(d, w) in &l.graph.structure.loops {
        let exit = w as usize + 1;
        if exit >= p.insts.len() {
            continue;
        }
        let b = l.graph.block_of[exit] as usize;
        for u in members(l.live_in(b)) {
            widen(&mut out, reg_of[u] as usize, 2 * d, 2 * w + 2);
        }
    }
    Hulls {
        boundary: out,
        access,
    }
}

/// Calls `at` with each member of `set` not in `seen`, and adds `set` to `seen`.
fn for_each_unseen(seen: &mut [u64], set: &[u64], mut at: impl FnMut(usize)) {
    for (w, (s, &bits)) in seen.iter_mut().zip(set).enumerate() {
        let mut fresh = bits & !*s;
        *s |= bits;
        while fresh != 0 {
            at(w * 64 + fresh.trailing_zeros() as usize);
            fresh &= fresh - 1;
        }
    }
}
