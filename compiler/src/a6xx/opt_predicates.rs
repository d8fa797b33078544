//! Phase 2, `opt_predicates` (after Mesa's `ir3_opt_predicates.c` and the MR's branch
//! folding). Lowering turns every branch condition `c` into `cmps.s.ne p, c, 0; br !p`. For
//! each conditional branch, with `c` used only there:
//! * negations fold into the invert bit: `c = xor.b x, 1` (a boolean not) → test `x`, flip;
//! * `c` made by a `cmps` or by a bit op on booleans writes the predicate directly (on a6xx
//!   `and.b`/`or.b`/`xor.b` can write `p0.*`: bit 0 of the result, which is `c` for 0/1);
//! * with two or more predicates, `c = and.b x, y` / `or.b x, y` folds into `braa`/`brao`
//!   on predicates for `x` and `y` (each retargeted the same way, else a `cmps.s.ne`);
//!   inverting a `braa`/`brao` swaps it for the other and flips both invert bits (De Morgan);
//! * identical predicate-writing `cmps` in a block are CSE'd.
//!
//! Moving a predicate def away from the branch is sound because its operands are SSA
//! values: where the branch runs, they still hold what they held at the last execution of
//! the def (see `ra_predicates` for the same argument about clones).

use super::vir::{BrKind, Class, Dst, Opnd, PCond, POp, Term, VFunc, VInst, VReg, NO_PHYS};
use crate::planted::{Plant, Plants};
use sim::a6xx::{Binary, CmpCond, CmpType};

struct Opt<'a> {
    insts: Vec<Vec<Option<VInst>>>,
    def: Vec<Option<(usize, usize)>>,
    uses: Vec<u32>,
    defs: Vec<u32>,
    f: &'a mut VFunc,
}

/// Optimises predicate producers and branches of `f` in place.
pub fn opt_predicates(f: &mut VFunc, predicates: u8, plants: Plants) {
    let n = f.class.len();
    let mut o = Opt {
        insts: Vec::new(),
        def: vec![None; n],
        uses: vec![0; n],
        defs: vec![0; n],
        f,
    };
    for (b, blk) in o.f.blocks.iter_mut().enumerate() {
        let list: Vec<Option<VInst>> = std::mem::take(&mut blk.insts)
            .into_iter()
            .map(Some)
            .collect();
        for (k, i) in list.iter().enumerate() {
            let i = i.as_ref().expect("all present");
            i.gpr_uses(|v| o.uses[v as usize] += 1);
            i.gpr_defs(|v| {
                o.defs[v as usize] += 1;
                o.def[v as usize] = Some((b, k));
            });
        }
        for (d, s) in &blk.copies {
            o.defs[*d as usize] += 1;
            if let Opnd::V(v) = s {
                o.uses[*v as usize] += 1;
            }
        }
        o.insts.push(list);
    }
    for b in 0..o.insts.len() {
        o.branch(b, predicates, plants);
        cse(&mut o.insts[b], o.f.blocks[b].term.as_mut());
    }
    for (b, list) in o.insts.into_iter().enumerate() {
        o.f.blocks[b].insts = list.into_iter().flatten().collect();
    }
}

impl Opt<'_> {
    /// The single defining instruction of a single-use, single-def GPR.
    fn sole_def(&self, v: VReg) -> Option<(usize, usize)> {
        (self.uses[v as usize] == 1 && self.defs[v as usize] == 1).then_some(self.def[v as usize]?)
    }

    fn get(&self, at: (usize, usize)) -> Option<&VInst> {
        self.insts[at.0][at.1].as_ref()
    }

    /// Makes the def of boolean `c` (used only by the caller) write predicate `p`, if it can.
    fn retarget(&mut self, c: VReg, p: POp) -> bool {
        if !self.f.is_bool[c as usize] {
            return false;
        }
        let Some(at) = self.sole_def(c) else {
            return false;
        };
        let ok = match self.get(at) {
            Some(VInst::Cmps { dst: Dst::G(_), .. }) => true,
            Some(VInst::Alu2 {
                op: Binary::AndB | Binary::OrB | Binary::XorB,
                dst: Dst::G(_),
                a,
                b,
                ..
            }) => [a, b].iter().all(|x| match x {
                Opnd::V(v) => self.f.is_bool[*v as usize],
                Opnd::Imm(k) => *k <= 1,
                Opnd::Const(_) => false,
            }),
            _ => false,
        };
        if ok {
            match self.insts[at.0][at.1].as_mut() {
                Some(VInst::Cmps { dst, .. }) | Some(VInst::Alu2 { dst, .. }) => *dst = Dst::P(p),
                _ => return false,
            }
            self.uses[c as usize] = 0;
        }
        ok
    }

    /// A predicate holding boolean `x` for a new branch operand, emitted at the end of `b`.
    fn pred_for(&mut self, b: usize, x: VReg) -> POp {
        let p = POp {
            v: self.f.new_reg(Class::Pred),
            phys: NO_PHYS,
        };
        if !self.retarget(x, p) {
            let ne = VInst::Cmps {
                ty: CmpType::S,
                cond: CmpCond::Ne,
                dst: Dst::P(p),
                a: Opnd::V(x),
                b: Opnd::Imm(0),
            };
            // The `cmps` takes over the use the folded `and`/`or` had.
            self.insts[b].push(Some(ne));
        }
        p
    }

    fn branch(&mut self, b: usize, predicates: u8, plants: Plants) {
        let Some(Term::Branch {
            kind: BrKind::Br,
            a,
            b: None,
            taken,
            fall,
        }) = self.f.blocks[b].term.clone()
        else {
            return;
        };
        let p = a.p;
        let Some(k) = self.insts[b].iter().rposition(|i| {
            matches!(i, Some(VInst::Cmps { cond: CmpCond::Ne, dst: Dst::P(q), b: Opnd::Imm(0), .. }) if q.v == p.v)
        }) else {
            return;
        };
        let Some(VInst::Cmps {
            a: Opnd::V(mut c), ..
        }) = self.insts[b][k].clone()
        else {
            return;
        };
        let mut inv = a.inv;
        // Negations into the invert bit.
        while self.f.is_bool[c as usize] {
            let Some(at) = self.sole_def(c) else { break };
            let Some(VInst::Alu2 {
                op: Binary::XorB,
                a: Opnd::V(x),
                b: Opnd::Imm(1),
                ..
            }) = self.get(at).cloned()
            else {
                break;
            };
            if !self.f.is_bool[x as usize] {
                break;
            }
            self.insts[at.0][at.1] = None;
            self.uses[c as usize] = 0;
            c = x;
            inv = !inv;
        }
        // and/or feeding only this branch → braa/brao.
        if predicates >= 2 && self.f.is_bool[c as usize] {
            if let Some(at) = self.sole_def(c) {
                if let Some(VInst::Alu2 {
                    op: op @ (Binary::AndB | Binary::OrB),
                    a: Opnd::V(x),
                    b: Opnd::V(y),
                    ..
                }) = self.get(at).cloned()
                {
                    if x != y && self.f.is_bool[x as usize] && self.f.is_bool[y as usize] {
                        self.insts[at.0][at.1] = None;
                        self.insts[b][k] = None;
                        let px = self.pred_for(b, x);
                        let py = self.pred_for(b, y);
                        let mut kind = if op == Binary::AndB {
                            BrKind::Braa
                        } else {
                            BrKind::Brao
                        };
                        let (mut ia, mut ib) = (false, false);
                        if inv {
                            // De Morgan: !(x & y) = !x | !y.
                            if !plants.has(Plant::A6xxBraoInvert) {
                                kind = if kind == BrKind::Braa {
                                    BrKind::Brao
                                } else {
                                    BrKind::Braa
                                };
                            }
                            ia = true;
                            ib = true;
                        }
                        self.f.blocks[b].term = Some(Term::Branch {
                            kind,
                            a: PCond { p: px, inv: ia },
                            b: Some(PCond { p: py, inv: ib }),
                            taken,
                            fall,
                        });
                        return;
                    }
                }
            }
        }
        // The producer writes the predicate itself.
        if self.retarget(c, p) {
            self.insts[b][k] = None;
        } else if let Some(VInst::Cmps { a: src, .. }) = self.insts[b][k].as_mut() {
            *src = Opnd::V(c);
        }
        self.f.blocks[b].term = Some(Term::Branch {
            kind: BrKind::Br,
            a: PCond { p, inv },
            b: None,
            taken,
            fall,
        });
    }
}

/// Local CSE of predicate-writing `cmps`: a later identical one is dropped and the terminator
/// reads the earlier predicate.
fn cse(list: &mut [Option<VInst>], term: Option<&mut Term>) {
    let mut rename: Vec<(VReg, VReg)> = Vec::new();
    for j in 0..list.len() {
        let Some(VInst::Cmps {
            ty,
            cond,
            dst: Dst::P(pj),
            a,
            b,
        }) = list[j].clone()
        else {
            continue;
        };
        let earlier = list[..j].iter().find_map(|i| match i {
            Some(VInst::Cmps {
                ty: t,
                cond: c,
                dst: Dst::P(pi),
                a: x,
                b: y,
            }) if (*t, *c, *x, *y) == (ty, cond, a, b) => Some(pi.v),
            _ => None,
        });
        if let Some(v) = earlier {
            rename.push((pj.v, v));
            list[j] = None;
        }
    }
    if let Some(t) = term {
        for c in t.conds_mut() {
            if let Some(&(_, to)) = rename.iter().find(|r| r.0 == c.p.v) {
                c.p.v = to;
            }
        }
    }
}
