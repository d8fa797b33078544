//! The Gen allocator's interference graph: adjacency lists, built from scratch in the first
//! round and updated after each spill rather than rebuilt.
//!
//! Two registers interfere when their live intervals overlap ([`super::liveness`]) or an
//! instruction rule says so (see [`super::ra`]). Spill code touches only fresh temporaries,
//! so after a spill the graph changes only around the spilled registers and the new ones:
//! * The pairs of untouched registers stay as they were. Their intervals move with the
//!   inserted instructions but keep their order: an odd position `2i + 1` is instruction `i`'s
//!   writes wherever `i` moved to; an even one `2i` (between `i - 1` and `i`) lands somewhere
//!   in the gap now between them, an interval ending there no later than one starting there
//!   (the end of a block is the start of the next). So two untouched intervals overlap after
//!   a spill exactly when they did before, and the rules still hold of the instructions'
//!   untouched operands.
//! * The spilled registers leave the graph.
//! * Each new register gets its edges: the untouched registers whose intervals overlap it
//!   (new intervals are a few instructions long, so a search among the new ones sorted by
//!   start finds them for each untouched interval), the new ones overlapping it, and the
//!   rules of the instructions that read or write it.
//!
//! Neighbour order within a list is not kept the same as a rebuild's; nothing reads it (the
//! colouring sums pressures and ORs taken GRFs over neighbours).

use super::spill::Moved;
use super::vinst::{VOp, VProgram};
use crate::planted::{Plant, Plants};
use cranelift_entity::EntityRef;
use rustc_hash::FxHashSet;
use sim::gen::{ExecSize, Op};

/// Adjacency lists, one per register (its lists keep their capacity across rounds).
#[derive(Default)]
pub struct Interference {
    /// The neighbours of each register, without duplicates.
    pub adj: Vec<Vec<u32>>,
    /// Registers whose list holds a spilled one (a working set of [`Interference::update`]).
    touched: Vec<bool>,
}

/// Takes the `marked` registers out of `list` (in place; the order of the rest changes).
fn remove_marked(list: &mut Vec<u32>, marked: &[bool]) {
    let mut k = 0;
    while k < list.len() {
        if marked[list[k] as usize] {
            list.swap_remove(k);
        } else {
            k += 1;
        }
    }
}

/// Whether two live intervals overlap.
fn overlap(a: (u32, u32), b: (u32, u32)) -> bool {
    a.0 < b.1 && b.0 < a.1
}

/// Whether a node has a live interval.
fn present(iv: (u32, u32)) -> bool {
    iv.0 < iv.1
}

impl Interference {
    /// The graph of `p` with live intervals `iv`, from scratch.
    pub fn build(&mut self, p: &VProgram, iv: &[(u32, u32)], plants: Plants) {
        let n = iv.len();
        self.adj.resize_with(n, Vec::new);
        self.adj.iter_mut().for_each(Vec::clear);
        // By start, then index: sorted as plain pairs (a key read through `iv` per comparison
        // made the sort a twentieth of the allocator).
        let mut order: Vec<(u32, u32)> = (0..n)
            .filter(|&v| present(iv[v]))
            .map(|v| (iv[v].0, v as u32))
            .collect();
        order.sort_unstable();
        let mut active: Vec<usize> = Vec::new();
        for (start, v) in order {
            let v = v as usize;
            active.retain(|&a| iv[a].1 > start);
            for &a in &active {
                self.adj[a].push(v as u32);
                self.adj[v].push(a as u32);
            }
            active.push(v);
        }
        self.add_rules(p, 0..p.insts.len(), iv, plants, 0);
    }

    /// Updates the graph after `spill_regs` took the registers marked in `spilled` out,
    /// added registers `first_new..` and moved the instructions as `moved` says (`iv`: the
    /// new program's intervals).
    pub fn update(
        &mut self,
        p: &VProgram,
        iv: &[(u32, u32)],
        plants: Plants,
        spilled: &[bool],
        first_new: usize,
        moved: &Moved,
    ) {
        let n = iv.len();
        // The spilled registers leave their neighbours' lists (each touched list is filtered
        // once, however many spilled registers it held).
        self.touched.clear();
        self.touched.resize(first_new, false);
        let mut touched = Vec::new();
        for s in (0..first_new).filter(|&s| spilled[s]) {
            for m in std::mem::take(&mut self.adj[s]) {
                let m = m as usize;
                if !spilled[m] && !self.touched[m] {
                    self.touched[m] = true;
                    touched.push(m);
                }
            }
        }
        for m in touched {
            remove_marked(&mut self.adj[m], spilled);
        }
        self.adj.resize_with(n, Vec::new);
        self.adj[first_new..].iter_mut().for_each(Vec::clear);
        // The new intervals by start; none is longer than `longest`, so those overlapping
        // `[s, e)` start in `s - longest + 1 .. e`.
        let mut new: Vec<(u32, u32)> = (first_new..n)
            .filter(|&v| present(iv[v]))
            .map(|v| (iv[v].0, v as u32))
            .collect();
        new.sort_unstable();
        let longest = new
            .iter()
            .map(|&(s, v)| iv[v as usize].1 - s)
            .max()
            .unwrap_or(0);
        // `first_from[q]`: the first of `new` starting at or after position `q`.
        let end = new.last().map_or(0, |&(s, _)| s as usize + 1);
        let mut first_from = vec![new.len() as u32; end + 1];
        for (k, &(s, _)) in new.iter().enumerate().rev() {
            first_from[s as usize] = k as u32;
        }
        for q in (0..end).rev() {
            first_from[q] = first_from[q].min(first_from[q + 1]);
        }
        for (u, &(ustart, uend)) in iv.iter().enumerate().take(first_new) {
            if spilled[u] || !present((ustart, uend)) {
                continue;
            }
            let q = ((ustart + 1).saturating_sub(longest) as usize).min(end);
            for &(s, v) in &new[first_from[q] as usize..] {
                if s >= uend {
                    break;
                }
                if iv[v as usize].1 > ustart {
                    self.adj[u].push(v);
                    self.adj[v as usize].push(u as u32);
                }
            }
        }
        for (k, &(s, v)) in new.iter().enumerate() {
            let end = iv[v as usize].1;
            for &(t, w) in &new[k + 1..] {
                if t >= end {
                    break;
                }
                self.adj[v as usize].push(w);
                self.adj[w as usize].push(v);
            }
            debug_assert!(s < end);
        }
        // Only the spill code and the instructions it serves read or write new registers.
        let served = moved
            .touched
            .iter()
            .flat_map(|&i| moved.first[i as usize]..moved.first[i as usize + 1])
            .map(|k| k as usize);
        self.add_rules(p, served, iv, plants, first_new);
    }

    /// The rules' pairs of instructions `insts` that are not already neighbours by overlap,
    /// among those with a register `first_new..` in them.
    fn add_rules(
        &mut self,
        p: &VProgram,
        insts: impl Iterator<Item = usize>,
        iv: &[(u32, u32)],
        plants: Plants,
        first_new: usize,
    ) {
        let mut extra: FxHashSet<(u32, u32)> = FxHashSet::default();
        let adj = &mut self.adj;
        let mut add = |a: usize, b: usize| {
            if a != b
                && a.max(b) >= first_new
                && !overlap(iv[a], iv[b])
                && extra.insert((a.min(b) as u32, a.max(b) as u32))
            {
                adj[a].push(b as u32);
                adj[b].push(a as u32);
            }
        };
        for inst in insts.map(|k| &p.insts[k]) {
            let Some(d) = inst.dst else { continue };
            let rule = match inst.op {
                VOp::LoadPayload(_) => true,
                VOp::Hw(Op::Send(_)) => true,
                VOp::Hw(_) => inst.exec == ExecSize::S16 && !plants.has(Plant::GenSimd16Overlap),
            };
            if rule {
                inst.for_each_use(|s, _| add(d.reg.index(), s.reg.index()));
            }
        }
    }
}
