//! Phase 5, `legalize`: sync flags, delay slots, layout, branch offsets and `(jp)` (after
//! Mesa's `ir3_legalize.c` and `ir3_delay.c`).
//!
//! A forward dataflow over the blocks: the state at a block's entry is the merge (union of
//! outstanding results, maximum of remaining delays) of its predecessors' exit states, and the
//! blocks are re-legalized until no entry state changes — loop back-edges carry outstanding
//! texture/memory results and recent ALU writes into the header. Per instruction:
//! * `(ss)` when it reads or overwrites a register with an outstanding SFU result, or
//!   overwrites a register an async instruction may still be reading; `(sy)` when it reads or
//!   overwrites an outstanding texture/memory result. A flag waits for its whole class, so
//!   it clears every outstanding result of that class;
//! * delay slots: an ALU (cat1–3) GPR result needs 3 slots before a cat1–3 reader (2 for the
//!   third source of cat3) and 6 before cat0/4/5/6; a predicate result needs 6. Missing slots
//!   go into the `(nopN)` of the previous cat2/cat3 instruction when it fits, else a
//!   `(rptN)nop`.
//!
//! Then the blocks are laid out in order (a jump to the next block is dropped), branch offsets
//! resolved, and `(jp)` set on every branch target and after every conditional branch (the
//! only places where parked fibers resume under min-PC scheduling).

use super::vir::{BrKind, MBlock, Rec, Term};
use crate::planted::{Plant, Plants};
use sim::a6xx::{Cond, Instr, Op, Program, Reg, Src};

const ROWS: usize = sim::a6xx::GPRS + sim::a6xx::PREDS;

const SS_PEND: u8 = 1;
const SY_PEND: u8 = 2;
const SS_WAR: u8 = 4;
const SY_WAR: u8 = 8;

/// What legalize leaves: the program and, per instruction, the checker's record.
pub struct Legalized {
    /// The machine program.
    pub program: Program,
    /// One record per instruction (empty for nops and branches without predicates).
    pub recs: Vec<Rec>,
    /// Delay cycles inserted (`nop` instructions and `(nopN)` slots).
    pub nops: u32,
}

/// The registers the states cover, numbered densely: only those the program names. Every
/// block visit merges, compares and copies whole states, and a program names a few dozen of
/// the 196 registers (spread over the budget: scratch and payload registers sit at its top).
struct Rows {
    /// State index of each register row (only meaningful for named ones).
    index: [u8; ROWS],
    len: usize,
}

impl Rows {
    fn of(items: &[Vec<Item>]) -> Rows {
        let (mut reads, mut writes) = (Vec::new(), Vec::new());
        let mut named = [false; ROWS];
        for it in items.iter().flatten() {
            operands_into(&it.ins.op, &mut reads, &mut writes);
            for r in reads.iter().map(|&(r, _)| r).chain(writes.iter().copied()) {
                named[r.row()] = true;
            }
        }
        let mut rows = Rows {
            index: [0; ROWS],
            len: 0,
        };
        for (row, _) in named.iter().enumerate().filter(|(_, &n)| n) {
            rows.index[row] = rows.len as u8;
            rows.len += 1;
        }
        rows
    }

    /// The state index of `r`.
    #[inline]
    fn index(&self, r: Reg) -> usize {
        usize::from(self.index[r.row()])
    }
}

/// The legalization state between blocks: outstanding-result flags and, per register and
/// reader kind, the delay slots still needed before its latest ALU result may be read.
#[derive(Clone, PartialEq, Eq)]
struct State {
    /// Per register (see [`Rows`]).
    flags: Vec<u8>,
    /// `wait[3 * row + kind]` (flat, so that merging vectorizes).
    wait: Vec<u8>,
}

impl State {
    fn new(rows: &Rows) -> State {
        State {
            flags: vec![0; rows.len],
            wait: vec![0; 3 * rows.len],
        }
    }

    fn clear(&mut self) {
        self.flags.fill(0);
        self.wait.fill(0);
    }

    fn merge(&mut self, o: &State) {
        for (a, b) in self.flags.iter_mut().zip(&o.flags) {
            *a |= b;
        }
        for (a, b) in self.wait.iter_mut().zip(&o.wait) {
            *a = (*a).max(*b);
        }
    }
}

/// The state inside one block: delays as absolute cycles from the block's start, so that
/// advancing time is one addition (the slots still needed are `ready - now`, saturating).
struct Work {
    rows: Rows,
    flags: Vec<u8>,
    /// `ready[3 * row + kind]`, flat like [`State::wait`] so that loading and storing
    /// vectorize.
    ready: Vec<u32>,
    now: u32,
}

impl Work {
    fn load(&mut self, st: &State) {
        self.flags.copy_from_slice(&st.flags);
        for (r, &w) in self.ready.iter_mut().zip(&st.wait) {
            *r = u32::from(w);
        }
        self.now = 0;
    }

    fn store(&self, st: &mut State) {
        st.flags.copy_from_slice(&self.flags);
        // At most 6 slots are ever outstanding.
        for (w, &r) in st.wait.iter_mut().zip(&self.ready) {
            *w = r.saturating_sub(self.now) as u8;
        }
    }

    fn clear(&mut self, bits: u8) {
        for f in self.flags.iter_mut() {
            *f &= !bits;
        }
    }
}

/// An instruction with its block-level branch target.
struct Item {
    ins: Instr,
    rec: Rec,
    target: Option<usize>,
}

/// An emitted instruction: the item it comes from (none for inserted nops).
#[derive(Clone, Copy)]
struct Emit {
    ins: Instr,
    item: Option<u32>,
    target: Option<usize>,
}

/// Reusable buffers of one legalization.
struct Scratch {
    work: Work,
    reads: Vec<(Reg, usize)>,
    writes: Vec<Reg>,
}

/// Legalizes and lays out allocated blocks (their records move on to the checker).
pub fn legalize(blocks: Vec<MBlock>, plants: Plants) -> Legalized {
    let nb = blocks.len();
    let items: Vec<Vec<Item>> = blocks
        .into_iter()
        .enumerate()
        .map(|(b, blk)| block_items(blk, b))
        .collect();
    let preds = physical_preds(&items);
    let rows = Rows::of(&items);
    let mut st = State::new(&rows);
    let mut end = State::new(&rows);
    let mut out: Vec<Option<State>> = vec![None; nb];
    let mut entry: Vec<Option<State>> = vec![None; nb];
    let mut emitted: Vec<Vec<Emit>> = (0..nb)
        .map(|b| Vec::with_capacity(items[b].len() + 4))
        .collect();
    let mut sc = Scratch {
        work: Work {
            flags: vec![0; rows.len],
            ready: vec![0; 3 * rows.len],
            rows,
            now: 0,
        },
        reads: Vec::new(),
        writes: Vec::new(),
    };
    // When each exit state last grew and each block was last legalized (in block visits): a
    // block none of whose predecessors grew since its visit would see the same entry state,
    // so the sweep that only confirms the fixpoint merges nothing.
    let mut visits = 0u32;
    let mut grown = vec![0u32; nb];
    let mut visited: Vec<Option<u32>> = vec![None; nb];
    loop {
        let mut changed = false;
        for b in 0..nb {
            if visited[b].is_some_and(|v| preds[b].iter().all(|&p| grown[p] < v)) {
                continue;
            }
            visits += 1;
            visited[b] = Some(visits);
            st.clear();
            for &p in &preds[b] {
                if let Some(o) = &out[p] {
                    st.merge(o);
                }
            }
            if entry[b].as_ref() == Some(&st) && out[b].is_some() {
                continue;
            }
            match &mut entry[b] {
                Some(e) => e.clone_from(&st),
                e => *e = Some(st.clone()),
            }
            changed = true;
            transfer(&items[b], &st, plants, &mut emitted[b], &mut sc);
            sc.work.store(&mut end);
            // Exit states only grow (a flag added for a bigger entry state can clear more,
            // so the transfer alone is not monotone): the iteration terminates.
            match &mut out[b] {
                Some(o) => o.merge(&end),
                o => *o = Some(end.clone()),
            }
            grown[b] = visits;
        }
        if !changed || plants.has(Plant::A6xxMissingSyBackedge) {
            break;
        }
    }
    layout(&emitted, items)
}

/// Physical predecessors: the blocks whose end may be followed *in time* by the block's
/// start in the same wave. Besides the CFG edges, min-PC scheduling resumes the lowest parked
/// group when the running one jumps forward past it or ends, so a block's physical
/// predecessors include every earlier block that jumps over it or ends. (A result still in
/// flight for the fibers that ran the then-side is still in flight when the else-side runs.)
fn physical_preds(items: &[Vec<Item>]) -> Vec<Vec<usize>> {
    let nb = items.len();
    let mut preds = vec![Vec::new(); nb];
    let add = |preds: &mut Vec<Vec<usize>>, t: usize, b: usize| {
        if t < nb && !preds[t].contains(&b) {
            preds[t].push(b);
        }
    };
    for (b, it) in items.iter().enumerate() {
        let mut falls = true;
        for i in it {
            if let Some(t) = i.target {
                add(&mut preds, t, b);
                for x in b + 1..t.min(nb) {
                    add(&mut preds, x, b);
                }
            }
            if matches!(i.ins.op, Op::End) {
                for x in b + 1..nb {
                    add(&mut preds, x, b);
                }
            }
            falls = !matches!(i.ins.op, Op::Jump { .. } | Op::End);
        }
        if falls {
            add(&mut preds, b + 1, b);
        }
    }
    preds
}

/// Block `b`'s instructions and terminator as items (jumps to the next block dropped).
fn block_items(blk: MBlock, b: usize) -> Vec<Item> {
    let mut v: Vec<Item> = Vec::with_capacity(blk.insts.len() + 2);
    v.extend(blk.insts.into_iter().map(|m| Item {
        ins: Instr::new(m.op),
        rec: m.rec,
        target: None,
    }));
    let jump = |t: usize| Item {
        ins: Instr::new(Op::Jump { offset: 0 }),
        rec: Rec::default(),
        target: Some(t),
    };
    match &blk.term {
        Term::Jump(t) => {
            if *t != b + 1 {
                v.push(jump(*t));
            }
        }
        Term::Branch {
            kind,
            a,
            b: b2,
            taken,
            fall,
        } => {
            let c = |x: &super::vir::PCond| Cond {
                pred: x.p.phys,
                inv: x.inv,
            };
            let op = match (kind, b2) {
                (BrKind::Braa, Some(y)) => Op::Braa {
                    a: c(a),
                    b: c(y),
                    offset: 0,
                },
                (BrKind::Brao, Some(y)) => Op::Brao {
                    a: c(a),
                    b: c(y),
                    offset: 0,
                },
                _ => Op::Br {
                    cond: c(a),
                    offset: 0,
                },
            };
            let mut rec = Rec::default();
            for x in std::iter::once(a).chain(b2.as_ref()) {
                rec.uses.push((Reg::p(x.p.phys), x.p.v));
            }
            v.push(Item {
                ins: Instr::new(op),
                rec,
                target: Some(*taken),
            });
            if *fall != b + 1 {
                v.push(jump(*fall));
            }
        }
        Term::End => v.push(Item {
            ins: Instr::new(Op::End),
            rec: Rec::default(),
            target: None,
        }),
    }
    v
}

/// Registers read (with reader kind 0 ALU, 1 ALU-late, 2 other) and written by `op`, into
/// reusable buffers (cleared first).
pub(super) fn operands_into(op: &Op, r: &mut Vec<(Reg, usize)>, w: &mut Vec<Reg>) {
    r.clear();
    w.clear();
    let src = |s: Src, k: usize, r: &mut Vec<(Reg, usize)>| {
        if let Src::Reg(x) = s {
            r.push((x, k));
        }
    };
    let range = |base: Reg, n: u8| (0..n).filter_map(move |i| base.add(i));
    match *op {
        Op::Br { cond, .. } | Op::Bany { cond, .. } | Op::Ball { cond, .. } => {
            r.extend(cond.reg().map(|x| (x, 2)))
        }
        Op::Braa { a, b, .. } | Op::Brao { a, b, .. } => {
            r.extend(a.reg().map(|x| (x, 2)));
            r.extend(b.reg().map(|x| (x, 2)));
        }
        Op::Mov { dst, src: s } | Op::Cov { dst, src: s, .. } | Op::Alu1 { dst, src: s, .. } => {
            src(s, 0, r);
            w.push(dst);
        }
        Op::Alu2 { dst, a, b, .. } | Op::Cmps { dst, a, b, .. } => {
            src(a, 0, r);
            src(b, 0, r);
            w.push(dst);
        }
        Op::Alu3 { dst, a, b, c, .. } => {
            src(a, 0, r);
            src(b, 0, r);
            src(c, 1, r);
            w.push(dst);
        }
        Op::Sfu { dst, src: s, .. } => {
            src(s, 2, r);
            w.push(dst);
        }
        Op::Div { dst, a, b, .. } => {
            src(a, 2, r);
            src(b, 2, r);
            w.push(dst);
        }
        Op::Tex {
            dst,
            wrmask,
            src: s,
            params,
            ..
        } => {
            r.extend(range(s, params).map(|x| (x, 2)));
            w.extend(
                (0..4u8)
                    .filter(|c| wrmask & (1 << c) != 0)
                    .filter_map(|c| dst.add(c)),
            );
        }
        Op::Load {
            dst, addr, count, ..
        } => {
            r.extend(addr.base.map(|x| (x, 2)));
            w.extend(range(dst, count));
        }
        Op::Store {
            addr,
            src: s,
            count,
            ..
        } => {
            r.extend(addr.base.map(|x| (x, 2)));
            r.extend(range(s, count).map(|x| (x, 2)));
        }
        Op::Nop { .. } | Op::Jump { .. } | Op::Getone { .. } | Op::End => {}
    }
}

/// Legalizes one block from entry state `st` into `out`; the exit state is left in
/// `sc.work`.
fn transfer(items: &[Item], st: &State, plants: Plants, out: &mut Vec<Emit>, sc: &mut Scratch) {
    out.clear();
    let w = &mut sc.work;
    w.load(st);
    for (k, it) in items.iter().enumerate() {
        let mut ins = it.ins;
        let op = ins.op;
        operands_into(&op, &mut sc.reads, &mut sc.writes);
        let (reads, writes) = (&sc.reads, &sc.writes);
        let mut ss = false;
        let mut sy = false;
        let mut war_sy = false;
        for &(r, _) in reads {
            let f = w.flags[w.rows.index(r)];
            ss |= f & SS_PEND != 0;
            sy |= f & SY_PEND != 0;
        }
        for &d in writes {
            let f = w.flags[w.rows.index(d)];
            ss |= f & (SS_PEND | SS_WAR) != 0;
            sy |= f & SY_PEND != 0;
            war_sy |= f & SY_WAR != 0;
        }
        if war_sy && !sy {
            ss = true;
        }
        if ss {
            w.clear(SS_PEND | SS_WAR | SY_WAR);
        }
        if sy {
            w.clear(SY_PEND | SY_WAR);
        }
        ins.flags.ss = ss;
        ins.flags.sy = sy;
        let now = w.now;
        // At most 6 slots are ever outstanding.
        let mut need = reads
            .iter()
            .map(|&(r, k)| w.ready[3 * w.rows.index(r) + k].saturating_sub(now) as u8)
            .max()
            .unwrap_or(0);
        if need > 0 && plants.has(Plant::A6xxNopShort) {
            need -= 1;
        }
        if need > 0 {
            match out.last_mut() {
                Some(p) if matches!(p.ins.op.category(), 2 | 3) && p.ins.flags.nop + need <= 3 => {
                    p.ins.flags.nop += need;
                }
                _ => out.push(Emit {
                    ins: Instr::new(Op::Nop { repeat: need - 1 }),
                    item: None,
                    target: None,
                }),
            }
            w.now += u32::from(need);
        }
        w.now += 1;
        let now = w.now;
        let cat = op.category();
        for &d in writes {
            let row = w.rows.index(d);
            w.flags[row] &= !(SS_PEND | SY_PEND);
            let ready = match cat {
                1..=3 if d.is_pred() => [now + 6; 3],
                1..=3 => [now + 3, now + 2, now + 6],
                _ => [0; 3],
            };
            w.ready[3 * row..3 * row + 3].copy_from_slice(&ready);
        }
        let src_regs = reads.iter().map(|&(r, _)| r);
        match op {
            Op::Sfu { .. } | Op::Div { .. } => {
                for &d in writes {
                    w.flags[w.rows.index(d)] |= SS_PEND;
                }
                for r in src_regs {
                    w.flags[w.rows.index(r)] |= SS_WAR;
                }
            }
            Op::Tex { .. } | Op::Load { .. } => {
                for &d in writes {
                    w.flags[w.rows.index(d)] |= SY_PEND;
                }
                for r in src_regs {
                    w.flags[w.rows.index(r)] |= SY_WAR;
                }
            }
            Op::Store { .. } => {
                for r in src_regs {
                    w.flags[w.rows.index(r)] |= SY_WAR;
                }
            }
            _ => {}
        }
        out.push(Emit {
            ins,
            item: Some(k as u32),
            target: it.target,
        });
    }
}

/// Concatenates the blocks, resolves offsets and marks `(jp)`; moves the records out of
/// `items` (each block's items are emitted once each, in order, so they are taken in turn
/// rather than looked up).
fn layout(emitted: &[Vec<Emit>], items: Vec<Vec<Item>>) -> Legalized {
    let mut start = Vec::with_capacity(emitted.len());
    let mut n = 0usize;
    for e in emitted {
        start.push(n);
        n += e.len();
    }
    let mut instrs = Vec::with_capacity(n);
    let mut recs = Vec::with_capacity(n);
    let mut targets = Vec::new();
    for (e, its) in emitted.iter().zip(items) {
        let mut its = its.into_iter();
        for it in e {
            let mut ins = it.ins;
            if let Some(t) = it.target {
                let off = start[t] as i32 - instrs.len() as i32;
                targets.push(start[t]);
                if let Some(offset) = ins.op.branch_offset_mut() {
                    *offset = off;
                }
            }
            instrs.push(ins);
            recs.push(match it.item {
                Some(_) => its.next().expect("every item is emitted once").rec,
                None => Rec::default(),
            });
        }
    }
    for (k, ins) in instrs.iter().enumerate() {
        if matches!(ins.op, Op::Br { .. } | Op::Braa { .. } | Op::Brao { .. }) {
            targets.push(k + 1);
        }
    }
    for t in targets {
        if let Some(i) = instrs.get_mut(t) {
            i.flags.jp = true;
        }
    }
    let nops = instrs
        .iter()
        .map(|i| match i.op {
            Op::Nop { repeat } => repeat as u32 + 1,
            _ => i.flags.nop as u32,
        })
        .sum();
    Legalized {
        program: Program { instrs },
        recs,
        nops,
    }
}
