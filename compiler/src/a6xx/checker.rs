//! Phase 6, `checker`: a symbolic allocation checker in the manner of regalloc2's.
//!
//! It reads only the final machine program and the per-instruction records the allocator
//! left (which virtual register each register operand must hold or now holds, and whether
//! the instruction is spill code or a copy), never the allocator's own state. A forward
//! dataflow over instructions tracks, for every GPR, predicate and private word, which
//! virtual register it holds; at joins the facts meet (kept only where all predecessors
//! agree) and loops iterate to a fixpoint. A use finding anything else is an error.
//! Effects: spill code and copies move contents; a def of `v` first forgets `v` everywhere
//! else (the old copies hold an older value), and a register written but not recorded as a
//! def is forgotten. Stores through a base register (local arrays) are taken to stay in the
//! locals area, below every spill slot.
//!
//! Whether a program passes does not depend on the order the dataflow visits instructions
//! (the transfer is monotone, and a use that fails on an intermediate state fails on the
//! fixpoint too), so a fast pass over basic blocks with one working state decides it; only
//! a failing program is re-run instruction by instruction, so that the error reported is the
//! one that per-instruction worklist meets first.

use super::legalize::operands_into;
use super::vir::{Rec, RecKind, VReg};
use sim::a6xx::{Op, Program, Reg, Space};
use std::fmt;

const ROWS: usize = sim::a6xx::GPRS + sim::a6xx::PREDS;

/// A use that reads the wrong value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum CheckError {
    /// Instruction `inst` reads `reg` expecting virtual register `expected`. Virtual
    /// registers are named by the instruction that first defines them, so the name resolves
    /// in the listing.
    #[error(
        "#{inst}: {reg} should hold v{expected}{} but holds {}{}",
        Defined(*expected_at), Found(*found), Defined(*found_at)
    )]
    IncorrectValue {
        /// Instruction index in the program.
        inst: u32,
        /// The register read.
        reg: Reg,
        /// The virtual register the record says it holds.
        expected: VReg,
        /// What the dataflow says it holds (none: nothing known / conflicting).
        found: Option<VReg>,
        /// The first instruction that defines `expected`, if any.
        expected_at: Option<u32>,
        /// The first instruction that defines `found`, if any.
        found_at: Option<u32>,
    },
}

/// ` (defined by #N)` after a virtual register's name, when it is known.
struct Defined(Option<u32>);

impl fmt::Display for Defined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(i) => write!(f, " (defined by #{i})"),
            None => Ok(()),
        }
    }
}

/// The first instruction whose record defines `v`.
fn first_def(recs: &[Rec], v: VReg) -> Option<u32> {
    let i = recs
        .iter()
        .position(|r| r.defs.iter().any(|(_, d)| d == v))?;
    Some(i as u32)
}

struct Found(Option<VReg>);

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(v) => write!(f, "v{v}"),
            None => write!(f, "nothing known"),
        }
    }
}

/// Location index of a private word.
fn slot_loc(addr: i32) -> usize {
    ROWS + addr as usize
}

/// Checks `program` against `recs` (one per instruction); `entry` lists what registers hold
/// when the program starts (`r0.x` = the invocation id's virtual register).
pub fn check(program: &Program, recs: &[Rec], entry: &[(Reg, VReg)]) -> Result<(), CheckError> {
    if passes(program, recs, entry) {
        Ok(())
    } else {
        first_error(program, recs, entry)
    }
}

/// Private words the program touches (spill slots and locals without a base register).
fn private_words(program: &Program) -> usize {
    program
        .instrs
        .iter()
        .filter_map(|i| match i.op {
            Op::Load {
                space: Space::Private,
                addr,
                ..
            }
            | Op::Store {
                space: Space::Private,
                addr,
                ..
            } => Some(addr.offset.max(0) as usize + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// Whether every use holds its value: the dataflow over basic blocks, states kept only at
/// block entries.
fn passes(program: &Program, recs: &[Rec], entry: &[(Reg, VReg)]) -> bool {
    let instrs = &program.instrs;
    let n = instrs.len();
    if n == 0 {
        return true;
    }
    let size = ROWS + private_words(program);
    // Block leaders: the entry, branch targets and whatever follows a control instruction.
    let mut leader = vec![false; n + 1];
    leader[0] = true;
    leader[n] = true;
    let mut succ = [0usize; 2];
    for (i, ins) in instrs.iter().enumerate() {
        let k = succs_into(&ins.op, i, n, &mut succ);
        if !matches!(k, 1 if succ[0] == i + 1) || matches!(ins.op, Op::End) {
            leader[i + 1] = true;
            for &s in &succ[..k] {
                leader[s] = true;
            }
        }
    }
    // Block number of each leader; block `b` spans `starts[b]..starts[b + 1]`.
    let mut block_of = vec![u32::MAX; n];
    let mut starts = Vec::new();
    for (i, &l) in leader[..n].iter().enumerate() {
        if l {
            block_of[i] = starts.len() as u32;
            starts.push(i);
        }
    }
    let nb = starts.len();
    starts.push(n);
    let mut states = vec![0u32; nb * size];
    let mut has = vec![false; nb];
    let mut queued = vec![false; nb];
    for &(r, v) in entry {
        states[r.row()] = v + 1;
    }
    has[0] = true;
    queued[0] = true;
    let mut work = vec![0usize];
    let mut st = vec![0u32; size];
    let mut sc = Scratch::new(entry);
    let default = Rec::default();
    while let Some(b) = work.pop() {
        queued[b] = false;
        st.copy_from_slice(&states[b * size..(b + 1) * size]);
        let last = starts[b + 1] - 1;
        for (i, ins) in instrs.iter().enumerate().take(last + 1).skip(starts[b]) {
            let rec = recs.get(i).unwrap_or(&default);
            if rec.uses.iter().any(|(r, v)| st[r.row()] != v + 1) {
                return false;
            }
            apply_with(&mut st, &ins.op, rec, &mut sc);
        }
        let k = succs_into(&instrs[last].op, last, n, &mut succ);
        for &s in &succ[..k] {
            let t = block_of[s] as usize;
            let dst = &mut states[t * size..(t + 1) * size];
            let changed = if !has[t] {
                has[t] = true;
                dst.copy_from_slice(&st);
                true
            } else {
                let mut c = false;
                for (o, &x) in dst.iter_mut().zip(&st) {
                    if *o != x && *o != 0 {
                        *o = 0;
                        c = true;
                    }
                }
                c
            };
            if changed && !queued[t] {
                queued[t] = true;
                work.push(t);
            }
        }
    }
    true
}

/// The first failing use met by the per-instruction worklist (the reference order).
fn first_error(program: &Program, recs: &[Rec], entry: &[(Reg, VReg)]) -> Result<(), CheckError> {
    let n = program.instrs.len();
    let size = ROWS + private_words(program);
    let mut states: Vec<Option<Vec<u32>>> = vec![None; n];
    let mut init = vec![0u32; size];
    for &(r, v) in entry {
        init[r.row()] = v + 1;
    }
    if n == 0 {
        return Ok(());
    }
    states[0] = Some(init);
    let mut work = vec![0usize];
    let mut queued = vec![false; n];
    queued[0] = true;
    let mut sc = Scratch::new(entry);
    while let Some(i) = work.pop() {
        queued[i] = false;
        let mut st = states[i].clone().expect("queued instructions have a state");
        let ins = program.instrs[i];
        let rec = recs.get(i).cloned().unwrap_or_default();
        for (r, v) in rec.uses.iter() {
            if st[r.row()] != v + 1 {
                let h = st[r.row()];
                let found = h.checked_sub(1);
                return Err(CheckError::IncorrectValue {
                    inst: i as u32,
                    reg: r,
                    expected: v,
                    found,
                    expected_at: first_def(recs, v),
                    found_at: found.and_then(|f| first_def(recs, f)),
                });
            }
        }
        apply_with(&mut st, &ins.op, &rec, &mut sc);
        for s in succs(&ins.op, i, n) {
            let changed = match &mut states[s] {
                None => {
                    states[s] = Some(st.clone());
                    true
                }
                Some(old) => {
                    let mut c = false;
                    for (o, &x) in old.iter_mut().zip(&st) {
                        if *o != x && *o != 0 {
                            *o = 0;
                            c = true;
                        }
                    }
                    c
                }
            };
            if changed && !queued[s] {
                queued[s] = true;
                work.push(s);
            }
        }
    }
    Ok(())
}

/// What the transfer keeps from one instruction to the next: operand buffers, and which
/// virtual registers some location may hold.
struct Scratch {
    reads: Vec<(Reg, usize)>,
    writes: Vec<Reg>,
    /// Whether a def of each virtual register (or the entry) has been applied yet. Only
    /// those can be held anywhere, so the first def of each (most values are defined once)
    /// need not look for older copies.
    defined: Vec<bool>,
}

impl Scratch {
    fn new(entry: &[(Reg, VReg)]) -> Scratch {
        let mut sc = Scratch {
            reads: Vec::new(),
            writes: Vec::new(),
            defined: Vec::new(),
        };
        for &(_, v) in entry {
            sc.define(v);
        }
        sc
    }

    /// Notes a def of `v`; whether one was applied before.
    fn define(&mut self, v: VReg) -> bool {
        let k = v as usize;
        if k >= self.defined.len() {
            self.defined.resize(k + 1, false);
        }
        std::mem::replace(&mut self.defined[k], true)
    }
}

/// The effect of one instruction on the state.
fn apply_with(st: &mut [u32], op: &Op, rec: &Rec, sc: &mut Scratch) {
    match (rec.kind, *op) {
        (
            RecKind::Spill,
            Op::Store {
                space: Space::Private,
                addr,
                src,
                ..
            },
        ) if addr.base.is_none() => {
            st[slot_loc(addr.offset)] = st[src.row()];
            return;
        }
        (
            RecKind::Fill,
            Op::Load {
                space: Space::Private,
                addr,
                dst,
                ..
            },
        ) if addr.base.is_none() => {
            st[dst.row()] = st[slot_loc(addr.offset)];
            return;
        }
        (
            RecKind::Move,
            Op::Mov {
                dst,
                src: sim::a6xx::Src::Reg(s),
            },
        ) => {
            st[dst.row()] = st[s.row()];
            return;
        }
        _ => {}
    }
    operands_into(op, &mut sc.reads, &mut sc.writes);
    for w in sc.writes.iter() {
        st[w.row()] = 0;
    }
    if let Op::Store {
        space: Space::Private,
        addr,
        count,
        ..
    } = *op
    {
        if addr.base.is_none() {
            for c in 0..count as i32 {
                if let Some(x) = st.get_mut(slot_loc(addr.offset + c)) {
                    *x = 0;
                }
            }
        }
    }
    for (r, v) in rec.defs.iter() {
        let t = v + 1;
        if sc.define(v) {
            // An unconditional store per location, so the scan vectorizes.
            for x in st.iter_mut() {
                *x = if *x == t { 0 } else { *x };
            }
        }
        st[r.row()] = t;
    }
}

/// [`succs`] without allocating: fills `out`, returns how many.
fn succs_into(op: &Op, i: usize, n: usize, out: &mut [usize; 2]) -> usize {
    let t = |off: i32| (i as i64 + off as i64) as usize;
    let (all, k) = match *op {
        Op::End => ([0, 0], 0),
        Op::Jump { offset } => ([t(offset), 0], 1),
        Op::Br { offset, .. }
        | Op::Braa { offset, .. }
        | Op::Brao { offset, .. }
        | Op::Bany { offset, .. }
        | Op::Ball { offset, .. }
        | Op::Getone { offset } => ([i + 1, t(offset)], 2),
        _ => ([i + 1, 0], 1),
    };
    let mut m = 0;
    for &s in &all[..k] {
        if s < n {
            out[m] = s;
            m += 1;
        }
    }
    m
}

fn succs(op: &Op, i: usize, n: usize) -> Vec<usize> {
    let t = |off: i32| (i as i64 + off as i64) as usize;
    let v = match *op {
        Op::End => vec![],
        Op::Jump { offset } => vec![t(offset)],
        Op::Br { offset, .. }
        | Op::Braa { offset, .. }
        | Op::Brao { offset, .. }
        | Op::Bany { offset, .. }
        | Op::Ball { offset, .. }
        | Op::Getone { offset } => vec![i + 1, t(offset)],
        _ => vec![i + 1],
    };
    v.into_iter().filter(|&s| s < n).collect()
}
