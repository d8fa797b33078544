//! Phase 3: register allocation by graph colouring (Chaitin–Briggs, as Mesa's
//! `util/register_allocate.c` driven by `brw_fs_reg_allocate.cpp`), with spilling.
//!
//! * Nodes are virtual registers; two interfere when their live intervals overlap
//!   ([`super::liveness`]). A register class is a size in GRFs (1..=15), placed at any GRF
//!   base, so a node of size `s` among neighbours of sizes `t` is trivially colourable when
//!   `Σ (s + t - 1) < R - s + 1` (Mesa's p/q test for contiguous classes).
//! * The compressed-instruction rule: a SIMD16 destination (2 GRFs) interferes with every
//!   source register of its instruction, and a `LoadPayload` destination with its sources
//!   (it is expanded into moves). [`Plant::GenSimd16Overlap`] drops the first. A send's
//!   response interferes with its payload: shared functions read parameters and write
//!   responses lane by lane, so a response one GRF past the payload clobbers the second
//!   half's parameters.
//! * Simplify pushes trivially colourable nodes; when none is left it pushes the node with the
//!   least pressure optimistically (Briggs). Select pops and takes the lowest free base (or
//!   the highest, or rotating: [`GenHeuristics::pick`]; simplify sweeps the nodes upwards or
//!   downwards: [`GenHeuristics::order`]); a node that finds none stays
//!   uncoloured and select goes on, counting the failures.
//! * On failure, spill the nodes with the best benefit/cost, where cost is the GRFs it reads
//!   and writes weighted ×10 per loop level and benefit its pressure on neighbours (weights
//!   and the choice itself — cheapest, longest — vary with [`GenHeuristics`]), among the nodes
//!   that found no colour and their neighbours (any node only when none of those can go: a
//!   register far from every failure relieves none of them): as many as nodes failed, and
//!   once many are spilled one per [`SPILLING_RATE`] spilled so far when that is more (Mesa's
//!   `spilling_rate`), so that a starved budget takes a few rounds, not one per spill. Every
//!   node with a spill cost can be a candidate (Mesa's "ra: consider all spillable nodes";
//!   [`Plant::GenSpillOptimisticOnly`] considers only optimistically pushed ones). Spill
//!   temporaries and unshared payloads are never candidates; with none left it is
//!   [`CompileError::NoRegisterToSpill`]. Then start over —
//!   but not from scratch: liveness is solved once (or taken from dead-code elimination's
//!   last round, [`allocate_with_liveness`]), and the live intervals
//!   ([`super::intervals`]) and the interference graph ([`super::interference`]) are carried
//!   through each spill (spill code is block-local and touches only fresh temporaries), as are
//!   the spill costs; each round colours afresh.

use super::interference::Interference;
use super::intervals::Intervals;
use super::liveness::{self, BitSet, Liveness};
use super::spill::{assign_slots, spill_regs, Moved, MAX_SPILL_GRFS};
use super::vinst::{VProgram, VReg};
use super::CompileError;
use crate::heuristics::{ColourOrder, GenHeuristics, Picker, SpillChoice};
use crate::planted::{Plant, Plants};
use crate::profile::{self, Phase};
use cranelift_entity::EntityRef;
use std::cell::RefCell;

/// The result of allocation.
#[derive(Clone, Debug, Default)]
pub struct Allocation {
    /// GRF number of each register (`u8::MAX` if it has no live range).
    pub grf: Vec<u8>,
    /// Registers spilled.
    pub spilled: u32,
    /// Scratch GRFs the spill slots take.
    pub slot_grfs: u32,
    /// Colouring rounds (1 without spilling; each spilling round spills one register or more).
    pub rounds: u32,
}

/// First allocatable GRF (g0 header template, g1–g2 invocation ids are the payload).
pub const FIRST_GRF: u8 = 3;

/// The allocator's working memory, kept per thread from one compile to the next (regalloc2's
/// `Ctx`): every list and vector keeps its capacity, so a compile's rounds and the compiles
/// after it allocate almost nothing once the largest graph so far has been seen.
#[derive(Default)]
struct Ctx {
    graph: Interference,
    intervals: Intervals,
    moved: Moved,
    sizes: Vec<usize>,
    present: Vec<bool>,
    spilled_regs: Vec<bool>,
    last_spilled: Vec<VReg>,
    simplify: Simplify,
    colour: Vec<Option<usize>>,
    taken: Vec<u128>,
    near_failure: Vec<bool>,
    candidates: Vec<(f64, usize)>,
    spills: Vec<(VReg, u32)>,
}

thread_local! {
    static CTX: RefCell<Ctx> = RefCell::new(Ctx::default());
}

/// Allocates `p` into `grfs` GRFs from g3, spilling as needed (spill code is added to `p`),
/// choosing as `h` says.
pub fn allocate(
    p: &mut VProgram,
    grfs: u32,
    h: &GenHeuristics,
    plants: Plants,
) -> Result<Allocation, CompileError> {
    allocate_with_liveness(p, None, grfs, h, plants)
}

/// [`allocate`], given the liveness of `p` if it is at hand (dead-code elimination's last
/// round computes it).
pub fn allocate_with_liveness(
    p: &mut VProgram,
    live: Option<Liveness>,
    grfs: u32,
    h: &GenHeuristics,
    plants: Plants,
) -> Result<Allocation, CompileError> {
    CTX.with_borrow_mut(|ctx| allocate_in(ctx, p, live, grfs, h, plants))
}

fn allocate_in(
    ctx: &mut Ctx,
    p: &mut VProgram,
    mut live: Option<Liveness>,
    grfs: u32,
    h: &GenHeuristics,
    plants: Plants,
) -> Result<Allocation, CompileError> {
    let r = grfs.min(128 - FIRST_GRF as u32) as usize;
    let mut slots: Vec<u8> = Vec::new();
    let Ctx {
        graph,
        intervals,
        moved,
        sizes,
        present,
        spilled_regs,
        last_spilled,
        simplify: simp,
        colour,
        taken,
        near_failure,
        candidates,
        spills,
    } = ctx;
    spilled_regs.clear();
    // Registers before the last spill (those after are its temporaries).
    let mut first_new = None;
    let mut cost = None;
    for round in 1.. {
        profile::time(Phase::Liveness, || {
            match first_new {
                None => {
                    let l = match live.take() {
                        Some(l) => l,
                        None => liveness::compute(p).ok_or(CompileError::Unstructured)?,
                    };
                    *intervals = Intervals::new(p, &l);
                }
                Some(first) => intervals.after_spill(p, moved, last_spilled, first),
            }
            Ok(())
        })?;
        let iv = &intervals.iv;
        let n = p.regs.len();
        spilled_regs.resize(n, false);
        profile::time(Phase::Interference, || match first_new {
            None => graph.build(p, iv, plants),
            Some(first) => graph.update(p, iv, plants, spilled_regs, first, moved),
        });
        let adj = &graph.adj;
        sizes.clear();
        sizes.extend(p.regs.values().map(|i| i.size as usize));
        present.clear();
        present.extend(iv.iter().map(|&(s, e)| s < e));
        let pressure = &graph.pressure;
        let failed = profile::time(Phase::Colour, || {
            simplify(simp, adj, pressure, sizes, present, r, h.order);
            select(
                colour,
                taken,
                adj,
                sizes,
                &simp.stack,
                r,
                &mut Picker::new(h.pick),
            )
        });
        let optimistic = &simp.optimistic;
        let _spill = profile::Timer::start(Phase::Spill);
        if failed == 0 {
            let base = p.var_scratch_grfs;
            let slot_grfs = assign_slots(p, &slots, base, plants);
            let grf = colour
                .iter()
                .map(|c| c.map_or(u8::MAX, |c| c as u8 + FIRST_GRF))
                .collect();
            return Ok(Allocation {
                grf,
                spilled: slots.len() as u32,
                slot_grfs,
                rounds: round,
            });
        }
        // Spill code leaves the other registers' reads and writes as they were and its
        // temporaries are never candidates, so the first failing round's costs stay exact.
        let cost = cost.get_or_insert_with(|| spill_costs(p, h));
        mark_near_failure(near_failure, colour, present, adj);
        let spillable = |v: usize| {
            let info = p.regs[VReg::new(v)];
            present[v]
                && info.spillable
                && info.size <= MAX_SPILL_GRFS
                && !spilled_regs[v]
                && (optimistic[v] || !plants.has(Plant::GenSpillOptimisticOnly))
        };
        let score = |v: usize| {
            let score = match h.spill {
                SpillChoice::Ratio => pressure[v] as f64 / cost[v].max(1e-9),
                // Cheapest first, more pressure breaking ties.
                SpillChoice::Cheapest => pressure[v] as f64 * 1e-9 - cost[v],
                SpillChoice::Longest => (iv[v].1 - iv[v].0) as f64,
            };
            (score, v)
        };
        candidates.clear();
        candidates.extend(
            (0..n)
                .filter(|&v| near_failure[v] && spillable(v))
                .map(score),
        );
        if candidates.is_empty() {
            candidates.extend((0..n).filter(|&v| spillable(v)).map(score));
        }
        if candidates.is_empty() {
            return Err(CompileError::NoRegisterToSpill { grfs });
        }
        // Best score first, the lowest index among equals (a total order, so an unstable sort
        // gives the same order without a buffer).
        candidates.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        spills.clear();
        for v in pick_spills(candidates, failed, slots.len()) {
            spills.push((VReg::new(v), slots.len() as u32));
            slots.push(sizes[v] as u8);
            spilled_regs[v] = true;
        }
        first_new = Some(n);
        let scratch_end = p.var_scratch_grfs + slots.iter().map(|&s| u32::from(s)).sum::<u32>();
        *moved = spill_regs(p, spills, scratch_end);
        last_spilled.clear();
        last_spilled.extend(spills.iter().map(|&(v, _)| v));
        if slots.len() > 4096 {
            return Err(CompileError::NoRegisterToSpill { grfs });
        }
    }
    unreachable!("rounds are counted by an endless range")
}

/// Marks in `near` the nodes that found no colour in `colour` and their neighbours: the
/// registers whose spilling can free a base for a failed node. See [`pick_spills`] for what
/// it bought.
#[inline(never)]
fn mark_near_failure(
    near: &mut Vec<bool>,
    colour: &[Option<usize>],
    present: &[bool],
    adj: &[Vec<u32>],
) {
    near.clear();
    near.resize(colour.len(), false);
    for v in (0..colour.len()).filter(|&v| present[v] && colour[v].is_none()) {
        near[v] = true;
        for &m in &adj[v] {
            near[m as usize] = true;
        }
    }
}

/// The registers to spill this round: the best candidates (best first), one per node that
/// found no colour or one per [`SPILLING_RATE`] registers `spilled` in earlier rounds,
/// whichever is more.
///
/// Measured on 300 programs of `gpufuzz bench --seed 1` (598 compiles, both widths, their
/// cases' budgets). Candidates from the whole graph and one spill per three failures (the
/// rule before): 3,676 rounds, 41 in the longest compile, 25,265 registers spilled — rounds
/// stalled with the same failures while the best-scoring registers, far from them, went one
/// after another. Candidates near a failure, one spill per three failures: 2,940 rounds,
/// 18,795 spilled. Near a failure, one spill per failure (this rule): 1,449 rounds (19 in the
/// longest), 7.1 M interference edges coloured over all rounds rather than 19.5 M, 20,404
/// spilled; the simulated Gen code costs 3–6% more to run than with one per three, the
/// whole `bench` 9–12% less (callgrind, seeds 1 and 2).
fn pick_spills(
    candidates: &[(f64, usize)],
    failed: usize,
    spilled: usize,
) -> impl Iterator<Item = usize> + '_ {
    let n = failed.max(spilled / SPILLING_RATE);
    candidates.iter().take(n).map(|&(_, v)| v)
}

/// Registers spilled so far per register spilled in the next round (Mesa's
/// `spilling_rate`, whose driconf default is 11): a compile that has spilled fewer than
/// twice this is untouched by it. A starved program that spills a hundred registers a few at a
/// time took up to 114 rounds, each rebuilding liveness and the interference graph; on 600
/// compiles of `gpufuzz bench --seed 1` (both widths, then three failures per spill) it cut
/// the rounds from 6.3 to 4.2 per compile for 3.5% more registers spilled. With one spill per
/// failure near it, it bounds the worst case: the longest of 598 compiles takes 19 rounds
/// rather than 72, for 2% more registers spilled (whose code costs `bench` 0.8–2.7% more
/// instructions than the rounds it saves).
const SPILLING_RATE: usize = 11;

/// Simplify, from each node's pressure on its neighbours before any is pushed
/// ([`Interference::pressure`]): the colouring order (last pushed first popped) and which
/// nodes went optimistically, into `s`.
///
/// The order is that of repeated passes over the nodes in index order, each pushing every
/// trivially colourable node it meets, with an optimistic push of the least-pressure node
/// (lowest index among equals) after a pass that pushed nothing. Passes are not run node by
/// node: a cursor finds the next trivially colourable node at or after it in a bit set (a
/// node only becomes colourable when a neighbour is pushed). The optimistic choice is the
/// least of the keys `(pressure, node)` of the nodes left, kept in one dense array and found
/// by a plain scan. On 100 programs of `gpufuzz bench --seed 1` the 46,733 choices scan 213
/// keys each on average; simplify costs 132 M instructions so, 245 M with a tournament tree
/// of the keys (each lowered pressure walked up the tree, and the neighbour loop had to note
/// which had fallen). A key packs both into one integer ([`Key`]), 32 bits wide whenever the
/// pressures and indices fit: on `gpufuzz bench --programs 100 --seed 1` the scan then costs
/// 22 M instructions rather than 59 M with 64-bit keys, which SSE2 cannot compare.
// Out of line, as are the loops below and select: inlined (into one another, and all into
// `allocate_in`), they ran 11 M more instructions on `gpufuzz bench --programs 100 --seed 1`.
#[inline(never)]
fn simplify(
    s: &mut Simplify,
    adj: &[Vec<u32>],
    pressure: &[usize],
    sizes: &[usize],
    present: &[bool],
    r: usize,
    order: ColourOrder,
) {
    let n = adj.len();
    // A key is the pressure above the node's index: in 31 bits when both fit (the usual
    // case), so that the least-key scan compares four keys per SSE2 instruction (signed, which
    // SSE2 has); in 64 bits otherwise. Pressures only fall, so the largest one at the start
    // bounds them all.
    let shift = usize::BITS - n.leading_zeros();
    let most = (0..n)
        .filter(|&v| present[v])
        .map(|v| pressure[v])
        .max()
        .unwrap_or(0);
    let graph = Graph {
        adj,
        pressure,
        sizes,
        present,
        r,
        order,
    };
    if shift < i32::BITS - 1 && most < 1usize << (i32::BITS - 1 - shift) {
        let mut left = std::mem::take(&mut s.narrow_keys);
        simplify_with(s, &mut left, shift, &graph);
        s.narrow_keys = left;
    } else {
        let mut left = std::mem::take(&mut s.wide_keys);
        simplify_with(s, &mut left, u32::BITS, &graph);
        s.wide_keys = left;
    }
}

/// What simplify reads: the graph, each node's pressure, size and presence, the budget and
/// the sweep's direction.
struct Graph<'a> {
    adj: &'a [Vec<u32>],
    pressure: &'a [usize],
    sizes: &'a [usize],
    present: &'a [bool],
    r: usize,
    order: ColourOrder,
}

/// A node's key among the nodes left, `pressure << shift | node`: least pressure first, the
/// lowest index among equals.
trait Key: Copy + Ord {
    fn new(v: usize, q: u32, shift: u32) -> Self;
    fn node(self, shift: u32) -> usize;
}

impl Key for i32 {
    #[inline(always)]
    fn new(v: usize, q: u32, shift: u32) -> i32 {
        (q.wrapping_shl(shift) | v as u32) as i32
    }
    #[inline(always)]
    fn node(self, shift: u32) -> usize {
        (self & (1i32.wrapping_shl(shift) - 1)) as usize
    }
}

impl Key for u64 {
    #[inline(always)]
    fn new(v: usize, q: u32, shift: u32) -> u64 {
        (q as u64).wrapping_shl(shift) | v as u64
    }
    #[inline(always)]
    fn node(self, shift: u32) -> usize {
        (self & (1u64.wrapping_shl(shift) - 1)) as usize
    }
}

/// [`simplify`] with keys of type `K`, `shift` bits holding the node (`left`: the keys of
/// the nodes left, in no order).
#[inline(never)]
fn simplify_with<K: Key>(s: &mut Simplify, left: &mut Vec<K>, shift: u32, g: &Graph) {
    let Graph {
        adj,
        pressure,
        sizes,
        present,
        r,
        order,
    } = *g;
    let n = adj.len();
    let Simplify {
        nodes,
        optimistic,
        stack,
        colourable,
        ..
    } = s;
    // Each node's state in one place: the neighbour loop below is most of the colouring.
    left.clear();
    nodes.clear();
    nodes.extend((0..n).map(|v| {
        let at = left.len() as u32;
        let q = u32::try_from(pressure[v]).expect("pressures fit in 32 bits");
        if present[v] {
            left.push(K::new(v, q, shift));
        }
        Node {
            q,
            size: sizes[v] as u32,
            bases: (r + 1).saturating_sub(sizes[v]) as u32,
            settled: !present[v],
            at,
        }
    }));
    // Slices, not the vectors, so that their bounds stay in registers through the loops.
    let nodes = nodes.as_mut_slice();
    optimistic.clear();
    optimistic.resize(n, false);
    stack.clear();
    colourable.reset(n);
    for (v, node) in nodes.iter_mut().enumerate() {
        if !node.settled && node.q < node.bases {
            colourable.set(v);
            node.settled = true;
        }
    }
    // The sweep restarts from `start` after every optimistic push or full pass; ascending,
    // `cursor` is the next node to look at, descending one past it.
    let descending = order == ColourOrder::Descending;
    let start = if descending { n } else { 0 };
    let mut cursor = start;
    let mut progress = false;
    while !left.is_empty() {
        let found = if descending {
            prev_member(colourable, cursor)
        } else {
            next_member(colourable, cursor)
        };
        let v = match found {
            Some(v) => {
                cursor = if descending { v } else { v + 1 };
                progress = true;
                v
            }
            None if progress => {
                cursor = start;
                progress = false;
                continue;
            }
            None => {
                let least = left.iter().copied().min().expect("a node is left");
                let v = least.node(shift);
                optimistic[v] = true;
                cursor = start;
                v
            }
        };
        colourable.clear(v);
        nodes[v].settled = true;
        stack.push(v);
        let at = nodes[v].at as usize;
        left.swap_remove(at);
        if let Some(&moved) = left.get(at) {
            nodes[moved.node(shift)].at = at as u32;
        }
        // A settled neighbour's pressure is never read again: a pushed one is gone, and a
        // trivially colourable one stays so and is never weighed for an optimistic push,
        // which comes only when no node left is colourable.
        let share = nodes[v].size - 1;
        let left = left.as_mut_slice();
        for &m in &adj[v] {
            let node = &mut nodes[m as usize];
            if node.settled {
                continue;
            }
            node.q = node.q.saturating_sub(share + node.size);
            left[node.at as usize] = K::new(m as usize, node.q, shift);
            if node.q < node.bases {
                colourable.set(m as usize);
                node.settled = true;
            }
        }
    }
}

/// Simplify's working memory and results.
#[derive(Default)]
struct Simplify {
    /// The state of each node.
    nodes: Vec<Node>,
    /// Which nodes were pushed optimistically.
    optimistic: Vec<bool>,
    /// The colouring order (last pushed first popped).
    stack: Vec<usize>,
    /// Nodes left that are trivially colourable.
    colourable: BitSet,
    /// The keys of the nodes left when they fit in 31 bits ([`Key`]).
    narrow_keys: Vec<i32>,
    /// The keys of the nodes left otherwise.
    wide_keys: Vec<u64>,
}

/// A node of simplify (in 32-bit fields: 20 bytes, not 32, per node the neighbour loop
/// touches).
struct Node {
    /// Pressure on the neighbours left.
    q: u32,
    /// GRFs.
    size: u32,
    /// Bases it can take: trivially colourable while `q` is below.
    bases: u32,
    /// Pushed, never there, or trivially colourable: its pressure and key are stale from
    /// then on (see the neighbour loop of [`simplify_with`]).
    settled: bool,
    /// Where its key is in `left` while it is left.
    at: u32,
}

/// The first member of `s` at or after `from`.
fn next_member(s: &BitSet, from: usize) -> Option<usize> {
    let mut w = from / 64;
    let mut bits = *s.0.get(w)? & (!0u64 << (from % 64));
    loop {
        if bits != 0 {
            return Some(w * 64 + bits.trailing_zeros() as usize);
        }
        w += 1;
        bits = *s.0.get(w)?;
    }
}

/// The largest member of `s` below `end`.
fn prev_member(s: &BitSet, end: usize) -> Option<usize> {
    if end == 0 {
        return None;
    }
    let last = end - 1;
    let mut w = last / 64;
    let keep = if last % 64 == 63 {
        !0u64
    } else {
        (1u64 << (last % 64 + 1)) - 1
    };
    let mut bits = s.0.get(w).copied().unwrap_or(0) & keep;
    loop {
        if bits != 0 {
            return Some(w * 64 + 63 - bits.leading_zeros() as usize);
        }
        if w == 0 {
            return None;
        }
        w -= 1;
        bits = s.0[w];
    }
}

/// Select: pops nodes and gives each (in `colour`) the first base, in `picker`'s order, free
/// of its coloured neighbours; a node that gets none stays uncoloured (and blocks nothing).
/// Returns how many got none. GRF sets are bit masks (at most 125 GRFs).
#[inline(never)]
fn select(
    colour: &mut Vec<Option<usize>>,
    taken: &mut Vec<u128>,
    adj: &[Vec<u32>],
    sizes: &[usize],
    stack: &[usize],
    r: usize,
    picker: &mut Picker,
) -> usize {
    let run = |s: usize| u128::MAX >> (128 - s);
    colour.clear();
    colour.resize(adj.len(), None);
    // The GRFs each node took (none yet: 0), so that a neighbour costs one load.
    taken.clear();
    taken.resize(adj.len(), 0);
    let mut failed = 0;
    for &v in stack.iter().rev() {
        let mut busy = 0u128;
        for &m in &adj[v] {
            busy |= taken[m as usize];
        }
        // Bases `b` with `b..b + s` free: `b` free and each of the next `s - 1` too.
        let s = sizes[v];
        let mut fits = !busy;
        for k in 1..s {
            fits &= !busy >> k;
        }
        let bases = (r + 1).saturating_sub(s);
        fits &= if bases == 0 { 0 } else { run(bases) };
        colour[v] = picker.find_in_mask(fits, bases, s);
        match colour[v] {
            Some(c) => taken[v] = run(s) << c,
            None => failed += 1,
        }
    }
    failed
}

/// Spill cost per register: GRFs read and written (each weighted as `h` says), times
/// `h.loop_weight` per loop level.
#[inline(never)]
fn spill_costs(p: &VProgram, h: &GenHeuristics) -> Vec<f64> {
    let mut cost = vec![0.0f64; p.regs.len()];
    let (uses, defs) = (h.use_weight as f64, h.def_weight as f64);
    for inst in &p.insts {
        let w = (h.loop_weight as f64).powi(inst.loop_depth as i32);
        inst.for_each_use(|r, n| cost[r.reg.index()] += n as f64 * uses * w);
        if let Some(d) = &inst.dst {
            cost[d.reg.index()] += inst.dst_regs(|r| p.regs[r].size) as f64 * defs * w;
        }
    }
    cost
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path 0 – 1 – 2 – 3 where 2 found no colour: 1, 2 and 3 can free a base for it, 0
    /// cannot; 4 has no live range and counts for nothing.
    #[test]
    fn only_failed_nodes_and_their_neighbours_are_near_a_failure() {
        let adj = vec![vec![1], vec![0, 2], vec![1, 3], vec![2], vec![]];
        let colour = [Some(0), Some(1), None, Some(0), None];
        let present = [true, true, true, true, false];
        let mut near = vec![true; 9];
        mark_near_failure(&mut near, &colour, &present, &adj);
        assert_eq!(near, [false, true, true, true, false]);
    }

    /// Narrow and wide keys order the nodes alike: simplify pushes the same nodes in the same
    /// order, optimistically or not, on a graph dense enough to need optimistic pushes.
    #[test]
    fn key_widths_simplify_alike() {
        let n = 300;
        let mut seed = 7u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let mut adj = vec![Vec::new(); n];
        for a in 0..n {
            for b in a + 1..n {
                if next() % 5 == 0 {
                    adj[a].push(b as u32);
                    adj[b].push(a as u32);
                }
            }
        }
        let sizes: Vec<usize> = (0..n).map(|_| 1 + next() % 3).collect();
        let present: Vec<bool> = (0..n).map(|_| next() % 10 != 0).collect();
        let pressure: Vec<usize> = (0..n)
            .map(|v| {
                adj[v]
                    .iter()
                    .map(|&m| sizes[v] + sizes[m as usize] - 1)
                    .sum()
            })
            .collect();
        for order in [ColourOrder::Ascending, ColourOrder::Descending] {
            let g = Graph {
                adj: &adj,
                pressure: &pressure,
                sizes: &sizes,
                present: &present,
                r: 40,
                order,
            };
            let (mut narrow, mut wide) = (Simplify::default(), Simplify::default());
            simplify_with(&mut narrow, &mut Vec::<i32>::new(), 9, &g);
            simplify_with(&mut wide, &mut Vec::<u64>::new(), 32, &g);
            assert!(narrow.optimistic.iter().any(|&o| o));
            assert_eq!(narrow.stack, wide.stack);
            assert_eq!(narrow.optimistic, wide.optimistic);
        }
    }

    #[test]
    fn members_are_found_both_ways() {
        let mut s = BitSet::new(200);
        for i in [0, 63, 64, 130] {
            s.set(i);
        }
        assert_eq!(next_member(&s, 1), Some(63));
        assert_eq!(next_member(&s, 131), None);
        assert_eq!(prev_member(&s, 200), Some(130));
        assert_eq!(prev_member(&s, 130), Some(64));
        assert_eq!(prev_member(&s, 64), Some(63));
        assert_eq!(prev_member(&s, 63), Some(0));
        assert_eq!(prev_member(&s, 0), None);
    }
}
