//! Phase 4, `ra`: GPR allocation with spilling to private memory.
//!
//! A deliberately simple, correct scheme: out-of-SSA first (each block's parallel phi copies
//! are sequentialised, breaking cycles with a temporary), then linear scan over one
//! *hull* per virtual register — the span from its first to its last live position in the
//! layout, live-in/live-out blocks included, so a register is never shared while either
//! value could be live. When registers run out, the interval ending furthest away is
//! spilled (Poletto & Sarkar): it lives in its own private-memory slot for its whole life;
//! every def is followed by `stp`, every use preceded by `ldp` into one of three reserved
//! scratch registers. A fill is reused by later uses in the same block while the scratch
//! still holds the value and the value was not redefined. Texture parameters and results go
//! through a reserved run of consecutive registers (the payload) at the top of the budget.
//! `r0.x` arrives holding the invocation id; its interval starts first and takes `r0.x`.

use super::liveness::{liveness, BitSets};
/// Scratch registers reserved for spill code (the rewriter's).
pub use super::ra_rewrite::SCRATCH;
use super::ra_rewrite::{Loc, Rewriter};
use super::vir::{MBlock, Opnd, VFunc, VInst, VReg};
use super::{CompileError, Options};
use crate::heuristics::{A6xxHeuristics, Picker, Victim};
use crate::planted::Plant;

/// The allocation's result: machine blocks and counters.
pub struct Allocated {
    /// The blocks.
    pub blocks: Vec<MBlock>,
    /// `stp` spill instructions.
    pub spills: u32,
    /// `ldp` fill instructions.
    pub fills: u32,
    /// Highest GPR used + 1.
    pub registers_used: u32,
    /// Private words per fiber the locals and spill slots take.
    pub private_words: u32,
}

/// Allocates GPRs; `f` must have its predicates allocated.
pub fn ra(f: &mut VFunc, opts: &Options) -> Result<Allocated, CompileError> {
    sequentialise_copies(f);
    let payload = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| match i {
            VInst::Tex { srcs, dsts, .. } => {
                let d = dsts.iter().rposition(Option::is_some).map_or(1, |k| k + 1);
                Some(srcs.len().max(d) as u32)
            }
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let budget = opts.registers.min(sim::a6xx::GPRS as u32);
    let hulls = hulls(f);
    let mut order: Vec<usize> = (0..hulls.len())
        .filter(|&v| hulls[v].0 <= hulls[v].1)
        .collect();
    order.sort_by_key(|&v| (hulls[v].0, hulls[v].1));
    let mut avail = budget
        .checked_sub(payload)
        .ok_or(CompileError::NoRegisters {
            budget,
            needed: payload,
        })?;
    let h = &opts.heuristics;
    let mut locs = scan(&hulls, &order, avail, h);
    let spilled = locs.iter().any(|l| matches!(l, Loc::Slot(_)));
    if spilled {
        avail = avail
            .checked_sub(SCRATCH)
            .ok_or(CompileError::NoRegisters {
                budget,
                needed: payload + SCRATCH,
            })?;
        locs = scan(&hulls, &order, avail, h);
    }
    let mut slot = f.local_words;
    for l in locs.iter_mut() {
        if let Loc::Slot(s) = l {
            *s = slot;
            slot += 1;
        }
    }
    if slot > super::lower::MAX_PRIVATE_WORDS {
        return Err(CompileError::PrivateMemory {
            what: "local variables and spill slots".into(),
            words: slot,
            available: super::lower::MAX_PRIVATE_WORDS,
        });
    }
    let mut rw = Rewriter::new(&locs, avail, payload, avail + payload);
    rw.stale_reload = opts.plants.has(Plant::A6xxSpillReloadStale);
    let blocks = rw.rewrite(f);
    let registers_used = rw.max_reg;
    Ok(Allocated {
        blocks,
        spills: rw.spills,
        fills: rw.fills,
        registers_used,
        private_words: slot,
    })
}

/// Turns each block's parallel copies into `mov`s that respect the parallel semantics: emit
/// a copy once no other pending copy still reads its destination; on a cycle, save one
/// destination in a temporary and redirect its readers.
fn sequentialise_copies(f: &mut VFunc) {
    for b in 0..f.blocks.len() {
        let mut pending: Vec<(VReg, Opnd)> = std::mem::take(&mut f.blocks[b].copies)
            .into_iter()
            .filter(|&(d, s)| s != Opnd::V(d))
            .collect();
        let mut seq = Vec::new();
        while !pending.is_empty() {
            let ready = (0..pending.len())
                .find(|&k| !pending.iter().any(|&(_, s)| s == Opnd::V(pending[k].0)));
            match ready {
                Some(k) => {
                    let (dst, src) = pending.remove(k);
                    seq.push(VInst::Mov { dst, src });
                }
                None => {
                    let d = pending[0].0;
                    let t = f.new_reg(super::vir::Class::Gpr);
                    seq.push(VInst::Mov {
                        dst: t,
                        src: Opnd::V(d),
                    });
                    for c in pending.iter_mut() {
                        if c.1 == Opnd::V(d) {
                            c.1 = Opnd::V(t);
                        }
                    }
                }
            }
        }
        let blk = &mut f.blocks[b];
        let tail = std::mem::take(&mut blk.tail);
        blk.insts.extend(seq);
        blk.insts.extend(tail);
    }
}

/// Position of use reads of instruction `i` of a block starting at `base`: `base + 2i + 1`;
/// defs are written at `base + 2i + 2`. Block `b` spans `[start, start + 2len + 3]`.
fn hulls(f: &VFunc) -> Vec<(u32, u32)> {
    let n = f.class.len();
    let nb = f.blocks.len();
    let mut gen = BitSets::new(nb, n);
    let mut kill = BitSets::new(nb, n);
    let succs: Vec<Vec<usize>> = f
        .blocks
        .iter()
        .map(|b| b.term.as_ref().map(|t| t.succs()).unwrap_or_default())
        .collect();
    for (b, blk) in f.blocks.iter().enumerate() {
        for i in &blk.insts {
            i.gpr_uses(|v| {
                if !kill.contains(b, v as usize) {
                    gen.insert(b, v as usize)
                }
            });
            i.gpr_defs(|v| kill.insert(b, v as usize));
        }
    }
    let live = liveness(&succs, &gen, &kill);
    let mut h = vec![(u32::MAX, 0u32); n];
    let mut ext = |v: VReg, p: u32| {
        let e = &mut h[v as usize];
        e.0 = e.0.min(p);
        e.1 = e.1.max(p);
    };
    let mut pos = 0u32;
    for (b, blk) in f.blocks.iter().enumerate() {
        let start = pos;
        for v in live.live_in.iter(b) {
            ext(v as VReg, start);
        }
        for (k, i) in blk.insts.iter().enumerate() {
            let p = start + 2 * k as u32;
            i.gpr_uses(|v| ext(v, p + 1));
            i.gpr_defs(|v| ext(v, p + 2));
        }
        let end = start + 2 * blk.insts.len() as u32 + 3;
        for v in live.live_out.iter(b) {
            ext(v as VReg, end);
        }
        pos = end + 1;
    }
    h
}

/// Linear scan over hulls with `avail` registers, taking free registers in `h.gpr_pick` order
/// and spilling `h.victim`; spills go to `Loc::Slot(0)` (numbered later).
fn scan(hulls: &[(u32, u32)], order: &[usize], avail: u32, h: &A6xxHeuristics) -> Vec<Loc> {
    let mut picker = Picker::new(h.gpr_pick);
    let mut locs = vec![Loc::None; hulls.len()];
    let mut free: Vec<bool> = vec![true; avail as usize];
    // The intervals holding registers, by decreasing `(end, vreg)`: the expired ones are a
    // suffix and the spill victim (the one ending furthest away) is the first, so neither
    // needs a walk over all of them.
    let mut active: Vec<(u32, usize)> = Vec::new();
    for &v in order {
        let (s, e) = hulls[v];
        while let Some(&(end, a)) = active.last() {
            if end >= s {
                break;
            }
            active.pop();
            if let Loc::Reg(r) = locs[a] {
                free[r as usize] = true;
            }
        }
        if let Some(r) = picker.find(free.len(), 1, |r| free[r]) {
            free[r] = false;
            locs[v] = Loc::Reg(r as u16);
            insert(&mut active, (e, v));
            continue;
        }
        match active.first() {
            Some(&(end, a)) if end > e && h.victim == Victim::Furthest => {
                locs[v] = locs[a];
                locs[a] = Loc::Slot(0);
                active.remove(0);
                insert(&mut active, (e, v));
            }
            _ => locs[v] = Loc::Slot(0),
        }
    }
    locs
}

/// Inserts `x` into `active`, kept in decreasing order.
fn insert(active: &mut Vec<(u32, usize)>, x: (u32, usize)) {
    let at = active.partition_point(|&y| y > x);
    active.insert(at, x);
}
