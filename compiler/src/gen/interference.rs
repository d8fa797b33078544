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
//!
//! Each node's pressure on its neighbours (what simplify starts from and what spilling a node
//! would relieve) is kept with its list: every edge added or taken out adds or subtracts its
//! share, so a round does not walk every list again to sum it.

use super::spill::Moved;
use super::vinst::{VOp, VProgram, VReg};
use crate::planted::{Plant, Plants};
use cranelift_entity::EntityRef;
use rustc_hash::FxHashSet;
use sim::gen::{ExecSize, Op};

/// Adjacency lists, one per register (its lists keep their capacity across rounds).
#[derive(Default)]
pub struct Interference {
    /// The neighbours of each register, without duplicates.
    pub adj: Vec<Vec<u32>>,
    /// Σ over the neighbours `m` of each register `v` of `size(v) + size(m) - 1` (Mesa's p/q
    /// test for contiguous classes: the bases `m` can deny `v`), kept as edges come and go.
    pub pressure: Vec<usize>,
    /// GRFs of each register.
    size: Vec<u8>,
    /// Registers whose list holds a spilled one (a working set of [`Interference::update`]).
    touched: Vec<bool>,
    /// Working memory kept from round to round and compile to compile.
    scratch: Scratch,
}

/// Working vectors of [`Interference::build`] and [`Interference::update`].
#[derive(Default)]
struct Scratch {
    /// Intervals as `(start, register)`, sorted.
    order: Vec<(u32, u32)>,
    /// Registers live at the current start, as `(end, register)`.
    active: Vec<(u32, u32)>,
    /// The registers marked in `touched`.
    touched: Vec<usize>,
    /// Index into `order` of the first interval starting at or after each position.
    first_from: Vec<u32>,
    /// Rule pairs added.
    extra: FxHashSet<(u32, u32)>,
    /// Lists past the current graph's registers, their capacity kept for a larger one.
    spare: Vec<Vec<u32>>,
}

/// Makes `adj` `n` lists long, those past its old length empty; lists beyond `n` go to `spare`
/// (with their capacity) and come back from it.
fn set_len(adj: &mut Vec<Vec<u32>>, spare: &mut Vec<Vec<u32>>, n: usize) {
    while adj.len() > n {
        let mut list = adj.pop().expect("longer than n");
        list.clear();
        spare.push(list);
    }
    while adj.len() < n {
        adj.push(spare.pop().unwrap_or_default());
    }
}

/// Makes `a` and `b` neighbours (they must not be yet).
#[inline(always)]
fn link(adj: &mut [Vec<u32>], pressure: &mut [usize], size: &[u8], a: usize, b: usize) {
    adj[a].push(b as u32);
    adj[b].push(a as u32);
    let share = size[a] as usize + size[b] as usize - 1;
    pressure[a] += share;
    pressure[b] += share;
}

/// Takes the `marked` registers out of `list` (in place; the order of the rest changes, and
/// `Vec::retain`, which keeps it, cost twice as much here).
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
        set_len(&mut self.adj, &mut self.scratch.spare, n);
        self.adj.iter_mut().for_each(Vec::clear);
        self.pressure.clear();
        self.pressure.resize(n, 0);
        self.size.clear();
        self.size.extend(p.regs.values().map(|i| i.size));
        // By start, then index: sorted as plain pairs (a key read through `iv` per comparison
        // made the sort a twentieth of the allocator).
        let Scratch { order, active, .. } = &mut self.scratch;
        order.clear();
        order.extend(
            (0..n)
                .filter(|&v| present(iv[v]))
                .map(|v| (iv[v].0, v as u32)),
        );
        order.sort_unstable();
        active.clear();
        let adj = &mut self.adj[..];
        for &(start, v) in order.iter() {
            active.retain(|&(end, _)| end > start);
            for &(_, a) in active.iter() {
                adj[a as usize].push(v);
            }
            adj[v as usize].extend(active.iter().map(|&(_, a)| a));
            active.push((iv[v as usize].1, v));
        }
        self.add_rules(p, 0..p.insts.len(), iv, plants, 0);
        // Summed once over the whole lists: cheaper than an update per edge.
        let size = &self.size[..];
        for ((list, pressure), &own) in self.adj.iter().zip(&mut self.pressure).zip(size) {
            let around: usize = list.iter().map(|&m| size[m as usize] as usize).sum();
            *pressure = list.len() * (own as usize - 1) + around;
        }
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
        let Scratch {
            order: new,
            touched,
            first_from,
            spare,
            ..
        } = &mut self.scratch;
        touched.clear();
        // Slices, so that their bounds stay in registers through the loops.
        let (adj, pressure, size) = (&mut self.adj[..], &mut self.pressure[..], &self.size[..]);
        let marked = &mut self.touched[..];
        for s in (0..first_new).filter(|&s| spilled[s]) {
            for &m in &adj[s] {
                let m = m as usize;
                if spilled[m] {
                    continue;
                }
                pressure[m] -= size[s] as usize + size[m] as usize - 1;
                if !marked[m] {
                    marked[m] = true;
                    touched.push(m);
                }
            }
            // Emptied in place: the list (and its capacity) stays with its register, so
            // `adj` and `spare` together never hold more lists than the largest graph had.
            adj[s].clear();
            pressure[s] = 0;
        }
        for &m in touched.iter() {
            remove_marked(&mut adj[m], spilled);
        }
        set_len(&mut self.adj, spare, n);
        self.adj[first_new..].iter_mut().for_each(Vec::clear);
        self.pressure.truncate(first_new);
        self.pressure.resize(n, 0);
        self.size.truncate(first_new);
        self.size
            .extend((first_new..n).map(|v| p.regs[VReg::new(v)].size));
        // The new intervals by start; none is longer than `longest`, so those overlapping
        // `[s, e)` start in `s - longest + 1 .. e`.
        new.clear();
        new.extend(
            (first_new..n)
                .filter(|&v| present(iv[v]))
                .map(|v| (iv[v].0, v as u32)),
        );
        new.sort_unstable();
        let longest = new
            .iter()
            .map(|&(s, v)| iv[v as usize].1 - s)
            .max()
            .unwrap_or(0);
        // `first_from[q]`: the first of `new` starting at or after position `q`.
        let end = new.last().map_or(0, |&(s, _)| s as usize + 1);
        first_from.clear();
        first_from.resize(end + 1, new.len() as u32);
        for (k, &(s, _)) in new.iter().enumerate().rev() {
            first_from[s as usize] = k as u32;
        }
        for q in (0..end).rev() {
            first_from[q] = first_from[q].min(first_from[q + 1]);
        }
        let (adj, pressure, size) = (&mut self.adj[..], &mut self.pressure[..], &self.size[..]);
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
                    link(adj, pressure, size, u, v as usize);
                }
            }
        }
        for (k, &(s, v)) in new.iter().enumerate() {
            let end = iv[v as usize].1;
            for &(t, w) in &new[k + 1..] {
                if t >= end {
                    break;
                }
                link(adj, pressure, size, v as usize, w as usize);
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
        let extra = &mut self.scratch.extra;
        extra.clear();
        let (adj, pressure, size) = (&mut self.adj, &mut self.pressure, &self.size);
        let mut add = |a: usize, b: usize| {
            if a != b
                && a.max(b) >= first_new
                && !overlap(iv[a], iv[b])
                && extra.insert((a.min(b) as u32, a.max(b) as u32))
            {
                link(adj, pressure, size, a, b);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::intervals::Intervals;
    use crate::gen::spill_rounds;

    /// Spills a few registers per round on the test programs at both widths; the updated
    /// graph and pressures must be what a build from scratch gives.
    #[test]
    fn updated_graph_is_a_rebuilt_one() {
        let checked = spill_rounds::for_each(
            6,
            3,
            5,
            |p, iv| {
                let mut graph = Interference::default();
                graph.build(p, &iv.iv, Plants::NONE);
                (iv.clone(), graph, vec![false; p.regs.len()])
            },
            |(iv, graph, spilled): &mut (Intervals, Interference, Vec<bool>), r| {
                for v in r.gone {
                    spilled[v.index()] = true;
                }
                spilled.resize(r.p.regs.len(), false);
                iv.after_spill(r.p, r.moved, r.gone, r.first_new);
                graph.update(r.p, &iv.iv, Plants::NONE, spilled, r.first_new, r.moved);
                let mut fresh = Interference::default();
                fresh.build(r.p, &iv.iv, Plants::NONE);
                let sorted = |g: &Interference| -> Vec<Vec<u32>> {
                    g.adj
                        .iter()
                        .map(|l| {
                            let mut l = l.clone();
                            l.sort_unstable();
                            l
                        })
                        .collect()
                };
                assert_eq!(sorted(graph), sorted(&fresh), "{}", r.at);
                assert_eq!(graph.pressure, fresh.pressure, "{}", r.at);
            },
        );
        assert!(checked >= 30, "only {checked} spill rounds checked");
    }

    /// One graph serves every compile of a thread (the allocator's context): the lists it
    /// keeps, in use or spare, must never outnumber the registers of the largest graph it
    /// has held, however many registers were spilled.
    #[test]
    fn lists_stay_bounded_across_compiles() {
        let graph = std::cell::RefCell::new(Interference::default());
        let largest = std::cell::Cell::new(0);
        let bounded = |g: &Interference| {
            largest.set(largest.get().max(g.adj.len()));
            let kept = g.adj.len() + g.scratch.spare.len();
            assert!(
                kept <= largest.get(),
                "{kept} lists for {} registers",
                largest.get()
            );
        };
        let rounds = spill_rounds::for_each(
            6,
            3,
            5,
            |p, iv| {
                let mut g = graph.borrow_mut();
                g.build(p, &iv.iv, Plants::NONE);
                bounded(&g);
                (iv.clone(), vec![false; p.regs.len()])
            },
            |(iv, spilled): &mut (Intervals, Vec<bool>), r| {
                for v in r.gone {
                    spilled[v.index()] = true;
                }
                spilled.resize(r.p.regs.len(), false);
                iv.after_spill(r.p, r.moved, r.gone, r.first_new);
                let mut g = graph.borrow_mut();
                g.update(r.p, &iv.iv, Plants::NONE, spilled, r.first_new, r.moved);
                bounded(&g);
            },
        );
        assert!(rounds >= 30, "only {rounds} spill rounds made");
    }
}
