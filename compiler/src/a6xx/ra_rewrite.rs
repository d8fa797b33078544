//! Phase 4, second half: rewriting virtual instructions to machine instructions once every
//! virtual register has a [`Loc`], inserting spill code (`ldp` before uses, `stp` after defs)
//! and the texture payload copies, and recording for the checker what each register operand
//! must hold.
//!
//! The fill cache (which scratch register holds which spilled value) is valid within a block
//! only: every block starts with an empty cache, because a block with several predecessors
//! (a loop header in particular) may be entered with anything in the scratch registers.

use super::vir::{Dst, MBlock, MInst, Opnd, Pairs, Rec, RecKind, Term, VFunc, VInst, VReg};
use sim::a6xx::{Addr, Op, Reg, Space, Src};

/// Scratch registers reserved for spill code.
pub const SCRATCH: u32 = 3;

/// Where each virtual register lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loc {
    /// Not allocated (never defined or used).
    None,
    /// A GPR (scalar index).
    Reg(u16),
    /// A private-memory spill slot (word address).
    Slot(u32),
}

/// The most distinct GPR sources of an instruction other than a texture sample.
const MAX_SRCS: usize = 3;

/// Rewrites allocated code.
pub struct Rewriter<'a> {
    locs: &'a [Loc],
    payload_base: u32,
    scratch_base: u32,
    cache: [Option<VReg>; SCRATCH as usize],
    out: Vec<MInst>,
    /// Planted bug: keep the fill cache when entering a loop header from its preheader.
    pub stale_reload: bool,
    /// `stp` count.
    pub spills: u32,
    /// `ldp` count.
    pub fills: u32,
    /// Highest GPR index used + 1.
    pub max_reg: u32,
    /// Predicates (by virtual register) whose def was already rewritten.
    pred_defined: Vec<bool>,
}

fn gpr(i: u32) -> Reg {
    Reg::gpr(i as u16).expect("register inside the budget")
}

impl<'a> Rewriter<'a> {
    /// A rewriter for `locs`, payload at `payload_base..+payload`, scratch after it.
    pub fn new(locs: &'a [Loc], payload_base: u32, _payload: u32, scratch_base: u32) -> Self {
        Rewriter {
            locs,
            payload_base,
            scratch_base,
            cache: [None; SCRATCH as usize],
            out: Vec::new(),
            stale_reload: false,
            spills: 0,
            fills: 0,
            max_reg: 1,
            pred_defined: vec![false; locs.len()],
        }
    }

    fn reg(&mut self, i: u32) -> Reg {
        self.max_reg = self.max_reg.max(i + 1);
        gpr(i)
    }

    fn push(&mut self, op: Op, rec: Rec) {
        match op {
            Op::Store {
                space: Space::Private,
                ..
            } => self.spills += (rec.kind == RecKind::Spill) as u32,
            Op::Load {
                space: Space::Private,
                ..
            } => self.fills += (rec.kind == RecKind::Fill) as u32,
            _ => {}
        }
        self.out.push(MInst { op, rec });
    }

    /// Rewrites every block.
    pub fn rewrite(&mut self, f: &VFunc) -> Vec<MBlock> {
        let preds = f.preds();
        let mut blocks = Vec::with_capacity(f.blocks.len());
        for (b, blk) in f.blocks.iter().enumerate() {
            let header = preds[b].iter().any(|&p| p >= b);
            if !(self.stale_reload && header) {
                self.cache = [None; SCRATCH as usize];
            }
            for i in &blk.insts {
                self.inst(i);
            }
            let term = blk.term.clone().unwrap_or(Term::End);
            blocks.push(MBlock {
                insts: std::mem::take(&mut self.out),
                term,
            });
        }
        blocks
    }

    /// Loads spilled `v` into scratch `s`.
    fn fill(&mut self, v: VReg, s: usize, slot: u32) {
        let dst = self.reg(self.scratch_base + s as u32);
        let addr = Addr {
            base: None,
            offset: slot as i32,
        };
        let rec = Rec {
            uses: Pairs::default(),
            defs: Pairs::one((dst, v)),
            kind: RecKind::Fill,
        };
        self.push(
            Op::Load {
                space: Space::Private,
                dst,
                addr,
                count: 1,
            },
            rec,
        );
        self.cache[s] = Some(v);
    }

    fn spill(&mut self, src: Reg, v: VReg, slot: u32) {
        let addr = Addr {
            base: None,
            offset: slot as i32,
        };
        let rec = Rec {
            uses: Pairs::one((src, v)),
            defs: Pairs::default(),
            kind: RecKind::Spill,
        };
        self.push(
            Op::Store {
                space: Space::Private,
                addr,
                src,
                count: 1,
            },
            rec,
        );
    }

    fn forget(&mut self, v: VReg) {
        for c in self.cache.iter_mut() {
            if *c == Some(v) {
                *c = None;
            }
        }
    }

    fn inst(&mut self, i: &VInst) {
        match i {
            VInst::InvocationId { dst } => {
                let r0 = gpr(0);
                match self.locs[*dst as usize] {
                    Loc::Reg(0) | Loc::None => {}
                    Loc::Reg(r) => {
                        let d = self.reg(r as u32);
                        let rec = Rec {
                            uses: Pairs::one((r0, *dst)),
                            defs: Pairs::one((d, *dst)),
                            kind: RecKind::Move,
                        };
                        self.push(
                            Op::Mov {
                                dst: d,
                                src: Src::Reg(r0),
                            },
                            rec,
                        );
                    }
                    Loc::Slot(s) => self.spill(r0, *dst, s),
                }
            }
            VInst::Tex { .. } => self.tex(i),
            _ => self.generic(i),
        }
    }

    fn generic(&mut self, i: &VInst) {
        // At most three distinct sources (cat3; texture payloads go through `tex`), so the
        // working lists live on the stack: this runs once per instruction.
        let mut uses = [0 as VReg; MAX_SRCS];
        let mut n = 0;
        i.gpr_uses(|v| {
            if !uses[..n].contains(&v) {
                uses[n] = v;
                n += 1;
            }
        });
        let mut locked = [false; SCRATCH as usize];
        let mut map = [(0 as VReg, gpr(0)); MAX_SRCS];
        let mut mapped = 0;
        let mut misses = [(0 as VReg, 0u32); MAX_SRCS];
        let mut missed = 0;
        for &v in &uses[..n] {
            let r = match self.locs[v as usize] {
                Loc::Reg(r) => self.reg(r as u32),
                Loc::Slot(slot) => match self.cache.iter().position(|&c| c == Some(v)) {
                    Some(s) if !locked[s] => {
                        locked[s] = true;
                        gpr(self.scratch_base + s as u32)
                    }
                    _ => {
                        misses[missed] = (v, slot);
                        missed += 1;
                        continue;
                    }
                },
                Loc::None => unreachable!("a used register has a location"),
            };
            map[mapped] = (v, r);
            mapped += 1;
        }
        for &(v, slot) in &misses[..missed] {
            let s = (0..SCRATCH as usize)
                .filter(|&s| !locked[s])
                .min_by_key(|&s| self.cache[s].is_some())
                .expect("three scratch registers cover three sources");
            locked[s] = true;
            self.fill(v, s, slot);
            map[mapped] = (v, gpr(self.scratch_base + s as u32));
            mapped += 1;
        }
        let map = &map[..mapped];
        let mut gdef = None;
        i.gpr_defs(|v| gdef = Some(v));
        let (dreg, spill_to) = match gdef.map(|v| (v, self.locs[v as usize])) {
            Some((_, Loc::Reg(r))) => (Some(self.reg(r as u32)), None),
            Some((v, Loc::Slot(slot))) => {
                let s = (0..SCRATCH as usize).find(|&s| !locked[s]).unwrap_or(0);
                (
                    Some(self.reg(self.scratch_base + s as u32)),
                    Some((v, s, slot)),
                )
            }
            _ => (None, None),
        };
        let u = |v: VReg| map.iter().find(|m| m.0 == v).map(|m| m.1).expect("mapped");
        let op = build(i, &u, dreg.unwrap_or(gpr(0)));
        let mut rec = Rec::default();
        i.gpr_uses(|v| {
            let e = (u(v), v);
            if !rec.uses.contains(e) {
                rec.uses.push(e)
            }
        });
        if let (Some(d), Some(v)) = (dreg, gdef) {
            rec.defs.push((d, v));
        }
        if let Some(p) = i.pred_def() {
            rec.defs.push((Reg::p(p.phys), p.v));
            // Predicates are SSA and blocks come in layout order, which puts a def before
            // every use it dominates: a second def of one is a clone `ra_predicates` placed.
            if let Some(seen) = self.pred_defined.get_mut(p.v as usize) {
                if *seen {
                    rec.kind = RecKind::PredReload;
                }
                *seen = true;
            }
        }
        self.push(op, rec);
        if let Some(v) = gdef {
            self.forget(v);
        }
        if let Some((v, s, slot)) = spill_to {
            self.cache[s] = Some(v);
            self.spill(gpr(self.scratch_base + s as u32), v, slot);
        } else if let Some(d) = dreg {
            // The destination may be a scratch register only through spill code.
            let _ = d;
        }
    }

    fn tex(&mut self, i: &VInst) {
        let VInst::Tex {
            op,
            dsts,
            srcs,
            tex,
        } = i
        else {
            return;
        };
        let mut rec = Rec::default();
        for (k, s) in srcs.iter().enumerate() {
            let pr = self.reg(self.payload_base + k as u32);
            match *s {
                Opnd::V(v) => {
                    rec.uses.push((pr, v));
                    match self.locs[v as usize] {
                        Loc::Reg(r) => {
                            let r = self.reg(r as u32);
                            let m = Rec {
                                uses: Pairs::one((r, v)),
                                defs: Pairs::one((pr, v)),
                                kind: RecKind::Move,
                            };
                            self.push(
                                Op::Mov {
                                    dst: pr,
                                    src: Src::Reg(r),
                                },
                                m,
                            );
                        }
                        Loc::Slot(slot) => match self.cache.iter().position(|&c| c == Some(v)) {
                            Some(s) => {
                                let r = gpr(self.scratch_base + s as u32);
                                let m = Rec {
                                    uses: Pairs::one((r, v)),
                                    defs: Pairs::one((pr, v)),
                                    kind: RecKind::Move,
                                };
                                self.push(
                                    Op::Mov {
                                        dst: pr,
                                        src: Src::Reg(r),
                                    },
                                    m,
                                );
                            }
                            None => {
                                let addr = Addr {
                                    base: None,
                                    offset: slot as i32,
                                };
                                let m = Rec {
                                    uses: Pairs::default(),
                                    defs: Pairs::one((pr, v)),
                                    kind: RecKind::Fill,
                                };
                                self.push(
                                    Op::Load {
                                        space: Space::Private,
                                        dst: pr,
                                        addr,
                                        count: 1,
                                    },
                                    m,
                                );
                            }
                        },
                        Loc::None => unreachable!("a used register has a location"),
                    }
                }
                Opnd::Const(k) => self.push(
                    Op::Mov {
                        dst: pr,
                        src: Src::Const(k),
                    },
                    Rec::default(),
                ),
                Opnd::Imm(x) => self.push(
                    Op::Mov {
                        dst: pr,
                        src: Src::Imm(x),
                    },
                    Rec::default(),
                ),
            }
        }
        let mut wrmask = 0u8;
        for (c, d) in dsts.iter().enumerate() {
            if let Some(v) = d {
                wrmask |= 1 << c;
                let pr = self.reg(self.payload_base + c as u32);
                rec.defs.push((pr, *v));
            }
        }
        let base = gpr(self.payload_base);
        let params = srcs.len().max(1) as u8;
        let t = Op::Tex {
            op: *op,
            dst: base,
            wrmask: wrmask.max(1),
            src: base,
            params,
            tex: *tex,
        };
        self.push(t, rec);
        for (c, d) in dsts.iter().enumerate() {
            let Some(v) = *d else { continue };
            self.forget(v);
            let pr = gpr(self.payload_base + c as u32);
            match self.locs[v as usize] {
                Loc::Reg(r) => {
                    let r = self.reg(r as u32);
                    let m = Rec {
                        uses: Pairs::one((pr, v)),
                        defs: Pairs::one((r, v)),
                        kind: RecKind::Move,
                    };
                    self.push(
                        Op::Mov {
                            dst: r,
                            src: Src::Reg(pr),
                        },
                        m,
                    );
                }
                Loc::Slot(slot) => self.spill(pr, v, slot),
                Loc::None => {}
            }
        }
    }
}

/// The machine op of a non-texture instruction, with GPR uses mapped by `u` and the GPR
/// destination `d` (predicate destinations come from the instruction).
fn build(i: &VInst, u: &dyn Fn(VReg) -> Reg, d: Reg) -> Op {
    let s = |o: &Opnd| match *o {
        Opnd::V(v) => Src::Reg(u(v)),
        Opnd::Const(k) => Src::Const(k),
        Opnd::Imm(x) => Src::Imm(x),
    };
    let dst = |x: &Dst| match *x {
        Dst::G(_) => d,
        Dst::P(p) => Reg::p(p.phys),
    };
    match i {
        VInst::Mov { src, .. } => Op::Mov {
            dst: d,
            src: s(src),
        },
        VInst::Cov { conv, src, .. } => Op::Cov {
            conv: *conv,
            dst: d,
            src: s(src),
        },
        VInst::Alu1 { op, dst: x, src } => Op::Alu1 {
            op: *op,
            dst: dst(x),
            src: s(src),
        },
        VInst::Alu2 { op, dst: x, a, b } => Op::Alu2 {
            op: *op,
            dst: dst(x),
            a: s(a),
            b: s(b),
        },
        VInst::Cmps {
            ty,
            cond,
            dst: x,
            a,
            b,
        } => Op::Cmps {
            ty: *ty,
            cond: *cond,
            dst: dst(x),
            a: s(a),
            b: s(b),
        },
        VInst::Alu3 { op, a, b, c, .. } => Op::Alu3 {
            op: *op,
            dst: d,
            a: s(a),
            b: s(b),
            c: s(c),
        },
        VInst::Sfu { op, src, .. } => Op::Sfu {
            op: *op,
            dst: d,
            src: s(src),
        },
        VInst::Div { op, a, b, .. } => Op::Div {
            op: *op,
            dst: d,
            a: s(a),
            b: s(b),
        },
        VInst::Load {
            space,
            base,
            offset,
            ..
        } => Op::Load {
            space: *space,
            dst: d,
            addr: Addr {
                base: base.map(u),
                offset: *offset,
            },
            count: 1,
        },
        VInst::Store {
            space,
            base,
            offset,
            src,
        } => Op::Store {
            space: *space,
            addr: Addr {
                base: base.map(u),
                offset: *offset,
            },
            src: u(*src),
            count: 1,
        },
        VInst::InvocationId { .. } | VInst::Tex { .. } => unreachable!("rewritten elsewhere"),
    }
}
