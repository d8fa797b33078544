//! A self-check of generated programs, for tests and debug builds until the IR verifier
//! lands: the CFG derived from the structured tree (predecessors per block), every block
//! reachable, phi sources one per predecessor, SSA dominance of every use (phi sources at the
//! end of their predecessor), jumps only last and only in loops, and ALU operand types.

use compiler::ir::alu::Kind;
use compiler::ir::{BitSize, Block, CfNode, Function, InstKind, Program, Type};
use std::collections::HashMap;

struct Cfg {
    preds: HashMap<Block, Vec<Block>>,
    order: Vec<Block>,
    errors: Vec<String>,
}

#[derive(Default)]
struct LoopExits {
    breaks: Vec<Block>,
    conts: Vec<Block>,
}

impl Cfg {
    /// Walks a list entered from `incoming`; returns the blocks falling off its end.
    fn list(
        &mut self,
        f: &Function,
        list: &[CfNode],
        mut incoming: Vec<Block>,
        mut lp: Option<&mut LoopExits>,
    ) -> Vec<Block> {
        for (k, node) in list.iter().enumerate() {
            match node {
                CfNode::Block(b) => {
                    self.order.push(*b);
                    self.preds.insert(*b, incoming);
                    let last = f.blocks[*b].insts.last().map(|&i| &f.insts[i].kind);
                    for (j, &i) in f.blocks[*b].insts.iter().enumerate() {
                        let jump = f.insts[i].kind.is_jump();
                        if jump && j + 1 != f.blocks[*b].insts.len() {
                            self.errors.push(format!("{b}: jump before the end"));
                        }
                    }
                    incoming = match last {
                        Some(k2 @ (InstKind::Break | InstKind::Continue)) => {
                            if k + 1 != list.len() {
                                self.errors.push(format!("{b}: code after a jump"));
                            }
                            match lp.as_deref_mut() {
                                Some(l) if matches!(k2, InstKind::Break) => l.breaks.push(*b),
                                Some(l) => l.conts.push(*b),
                                None => self.errors.push(format!("{b}: jump outside a loop")),
                            }
                            vec![]
                        }
                        _ => vec![*b],
                    };
                }
                CfNode::If(i) => {
                    let t = self.list(f, &i.then_list, incoming.clone(), lp.as_deref_mut());
                    let e = self.list(f, &i.else_list, incoming, lp.as_deref_mut());
                    incoming = t.into_iter().chain(e).collect();
                }
                CfNode::Loop(l) => {
                    let mut exits = LoopExits::default();
                    let header = match l.body.first() {
                        Some(CfNode::Block(h)) => *h,
                        _ => {
                            self.errors.push("loop without a header block".into());
                            return vec![];
                        }
                    };
                    let entry = incoming;
                    let fall = self.list(f, &l.body, entry.clone(), Some(&mut exits));
                    let mut hp = entry;
                    hp.extend(fall);
                    hp.extend(exits.conts);
                    self.preds.insert(header, hp);
                    incoming = exits.breaks;
                }
            }
        }
        incoming
    }
}

fn data_ok(ty: Type, kind: Kind) -> bool {
    match kind {
        Kind::Int | Kind::Float => ty.bits() == Some(BitSize::B32),
        Kind::Bool => ty.bits() == Some(BitSize::B1),
        Kind::Any => ty.bits().is_some(),
    }
}

/// Checks `p`; returns every problem found.
pub fn check(p: &Program) -> Result<(), Vec<String>> {
    let f = &p.func;
    let mut cfg = Cfg {
        preds: HashMap::new(),
        order: Vec::new(),
        errors: Vec::new(),
    };
    cfg.list(f, &f.body, vec![], None);
    let n = cfg.order.len();
    let pos: HashMap<Block, usize> = cfg.order.iter().enumerate().map(|(i, &b)| (b, i)).collect();
    // Dominators: iterative bitsets over program order (an RPO for structured CF).
    let words = n.div_ceil(64).max(1);
    let full = vec![u64::MAX; words];
    let mut dom: Vec<Vec<u64>> = vec![full; n];
    if n > 0 {
        dom[0] = vec![0; words];
        dom[0][0] = 1;
    }
    let mut changed = true;
    while changed {
        changed = false;
        for (bi, &b) in cfg.order.iter().enumerate().skip(1) {
            let mut d = vec![u64::MAX; words];
            for p in &cfg.preds[&b] {
                for (x, y) in d.iter_mut().zip(&dom[pos[p]]) {
                    *x &= y;
                }
            }
            d[bi / 64] |= 1 << (bi % 64);
            if d != dom[bi] {
                dom[bi] = d;
                changed = true;
            }
        }
    }
    let dominates = |a: usize, b: usize| dom[b][a / 64] & (1 << (a % 64)) != 0;
    let mut errors = cfg.errors;
    // Where each instruction is placed.
    let mut place = HashMap::new();
    for &b in &cfg.order {
        if b != cfg.order[0] && cfg.preds[&b].is_empty() {
            errors.push(format!("{b} is unreachable"));
        }
        for (k, &i) in f.blocks[b].insts.iter().enumerate() {
            place.insert(i, (pos[&b], k));
        }
    }
    for &b in &cfg.order {
        let bi = pos[&b];
        let mut seen_non_phi = false;
        for (k, &i) in f.blocks[b].insts.iter().enumerate() {
            let kind = &f.insts[i].kind;
            let def_place = |v| f.def(v).and_then(|d| place.get(&d).copied());
            if let InstKind::Phi { sources } = kind {
                if seen_non_phi {
                    errors.push(format!("{b}: phi after a non-phi"));
                }
                let mut preds: Vec<Block> = sources.iter().map(|s| s.pred).collect();
                let mut want = cfg.preds[&b].clone();
                preds.sort();
                want.sort();
                if preds != want {
                    errors.push(format!("{b}: phi preds {preds:?}, CFG preds {want:?}"));
                }
                for s in sources {
                    match (def_place(s.value), pos.get(&s.pred)) {
                        (Some((db, _)), Some(&pb)) if dominates(db, pb) => {}
                        _ => errors.push(format!("{b}: phi source {} does not reach", s.value)),
                    }
                }
                continue;
            }
            seen_non_phi = true;
            kind.visit_args(|v| match def_place(v) {
                Some((db, dk)) if (db == bi && dk < k) || (db != bi && dominates(db, bi)) => {}
                _ => errors.push(format!("{b}: use of {v} not dominated by its def")),
            });
            if let InstKind::Alu { op, args } = kind {
                let comps = f.ty(args[0]).comps();
                for (a, &s) in args[..op.arity()].iter().zip(op.srcs()) {
                    if !data_ok(f.ty(*a), s) || f.ty(*a).comps() != comps {
                        errors.push(format!("{b}: {op} operand {a} has type {}", f.ty(*a)));
                    }
                }
                if *op == compiler::ir::AluOp::Bcsel && f.ty(args[1]) != f.ty(args[2]) {
                    errors.push(format!("{b}: bcsel arms differ"));
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}
