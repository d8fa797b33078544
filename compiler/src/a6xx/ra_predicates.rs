//! Phase 3, `ra_predicates`: predicate register allocation before GPR RA (after Mesa's
//! `ir3_ra_predicates.c`).
//!
//! One pass over the blocks in layout order. A block's live-in predicates are those that
//! every already-processed (forward) predecessor holds in the same register and that
//! liveness says are live-in; back-edge predecessors are ignored for a loop header, and at
//! the end of each back-edge block the values the header expects are reloaded into the
//! expected registers (in the block's `tail`, before its jump). A predicate def takes a free
//! register or evicts one ("spilling" = dropping it: no code). A use finding its predicate in
//! no register reloads it by cloning the defining instruction (a `cmps` or bit op) right
//! before the terminator; the reload stays in the register for later uses. Clones read the
//! def's GPR operands again, so those must still hold the same values there: they are SSA
//! values (a predicate is never a phi, and a def inside a loop is never live into its header),
//! and GPR liveness, computed later, sees the clones' uses.

use super::liveness::{liveness, BitSets};
use super::vir::{Class, Term, VFunc, VInst, VReg};
use crate::heuristics::{Pick, Picker};
use crate::planted::{Plant, Plants};

/// Allocates predicates `p0.x`… (`count` of them), taking registers in `pick` order;
/// returns the number of reloads.
pub fn ra_predicates(f: &mut VFunc, count: u8, pick: Pick, plants: Plants) -> u32 {
    let mut picker = Picker::new(pick);
    let n = f.class.len();
    let nb = f.blocks.len();
    let count = count.clamp(1, 4) as usize;
    let mut defs: Vec<Option<VInst>> = vec![None; n];
    let succs: Vec<Vec<usize>> = f
        .blocks
        .iter()
        .map(|b| b.term.as_ref().map(Term::succs).unwrap_or_default())
        .collect();
    let mut gen = BitSets::new(nb, n);
    let mut kill = BitSets::new(nb, n);
    for (b, blk) in f.blocks.iter_mut().enumerate() {
        for i in blk.insts.iter().chain(&blk.tail) {
            if let Some(p) = i.pred_def() {
                kill.insert(b, p.v as usize);
                defs[p.v as usize] = Some(i.clone());
            }
        }
        if let Some(t) = blk.term.as_mut() {
            for c in t.conds_mut() {
                if !kill.contains(b, c.p.v as usize) {
                    gen.insert(b, c.p.v as usize);
                }
            }
        }
    }
    let live = liveness(&succs, &gen, &kill);
    let preds = f.preds();
    let mut end: Vec<Option<Vec<Option<VReg>>>> = vec![None; nb];
    let mut entry: Vec<Vec<Option<VReg>>> = vec![vec![None; count]; nb];
    let mut reloads = 0u32;
    for b in 0..nb {
        let fwd: Vec<usize> = preds[b].iter().copied().filter(|&p| p < b).collect();
        let mut state: Vec<Option<VReg>> = vec![None; count];
        if let Some(first) = fwd.first().and_then(|&p| end[p].clone()) {
            for k in 0..count {
                let v = first[k];
                let agree = fwd
                    .iter()
                    .all(|&p| end[p].as_ref().is_some_and(|e| e[k] == v));
                if agree && v.is_some_and(|v| live.live_in.contains(b, v as usize)) {
                    state[k] = v;
                }
            }
        }
        entry[b] = state.clone();
        let term_uses: Vec<VReg> = f.blocks[b]
            .term
            .as_mut()
            .map(|t| t.conds_mut().into_iter().map(|c| c.p.v).collect())
            .unwrap_or_default();
        let dead = |v: VReg| !live.live_out.contains(b, v as usize) && !term_uses.contains(&v);
        let blk = &mut f.blocks[b];
        for inst in blk.insts.iter_mut() {
            let Some(p) = inst.pred_def_mut() else {
                continue;
            };
            let k = choose(&mut picker, &state, &term_uses, dead);
            p.phys = k as u8;
            state[k] = Some(p.v);
        }
        let mut tail = Vec::new();
        if let Some(t) = blk.term.as_mut() {
            let mut conds = t.conds_mut();
            for c in conds.iter_mut() {
                let v = c.p.v;
                let k = match state.iter().position(|&s| s == Some(v)) {
                    Some(k) => k,
                    None => {
                        let k = choose(&mut picker, &state, &term_uses, dead);
                        tail.push(clone_def(&defs, v, k));
                        reloads += 1;
                        state[k] = Some(v);
                        k
                    }
                };
                c.p.phys = k as u8;
            }
        }
        // Back-edge fix-up: give the header what it expects.
        for &s in &succs[b] {
            if s > b || plants.has(Plant::A6xxPredBackedgeReload) {
                continue;
            }
            for k in 0..count {
                if let Some(v) = entry[s][k] {
                    if state[k] != Some(v) {
                        tail.push(clone_def(&defs, v, k));
                        reloads += 1;
                        state[k] = Some(v);
                    }
                }
            }
        }
        blk.tail.extend(tail);
        end[b] = Some(state);
    }
    debug_assert!(f
        .class
        .iter()
        .all(|c| matches!(c, Class::Gpr | Class::Pred)));
    reloads
}

/// A register for a new value: a free or dead one, else one the terminator does not read
/// (evicted), each searched in the picker's order.
fn choose(
    picker: &mut Picker,
    state: &[Option<VReg>],
    term_uses: &[VReg],
    dead: impl Fn(VReg) -> bool,
) -> usize {
    let n = state.len();
    picker
        .find(n, 1, |k| state[k].is_none_or(&dead))
        .or_else(|| picker.find(n, 1, |k| state[k].is_some_and(|v| !term_uses.contains(&v))))
        .unwrap_or(0)
}

fn clone_def(defs: &[Option<VInst>], v: VReg, k: usize) -> VInst {
    let mut i = defs[v as usize]
        .clone()
        .expect("a used predicate has a defining instruction");
    if let Some(p) = i.pred_def_mut() {
        p.phys = k as u8;
    }
    i
}
