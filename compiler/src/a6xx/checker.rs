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

use super::legalize::operands;
use super::vir::{Rec, RecKind, VReg};
use sim::a6xx::{Op, Program, Reg, Space};
use std::fmt;

const ROWS: usize = sim::a6xx::GPRS + sim::a6xx::PREDS;

/// A use that reads the wrong value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    /// Instruction `inst` reads `reg` expecting virtual register `expected`.
    #[error("#{inst}: {reg} should hold v{expected} but holds {}", Found(*found))]
    IncorrectValue {
        /// Instruction index in the program.
        inst: u32,
        /// The register read.
        reg: Reg,
        /// The virtual register the record says it holds.
        expected: VReg,
        /// What the dataflow says it holds (none: nothing known / conflicting).
        found: Option<VReg>,
    },
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
    let n = program.instrs.len();
    let words = program
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
        .unwrap_or(0);
    let size = ROWS + words;
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
    while let Some(i) = work.pop() {
        queued[i] = false;
        let mut st = states[i].clone().expect("queued instructions have a state");
        let ins = program.instrs[i];
        let rec = recs.get(i).cloned().unwrap_or_default();
        for &(r, v) in &rec.uses {
            if st[r.row()] != v + 1 {
                let h = st[r.row()];
                return Err(CheckError::IncorrectValue {
                    inst: i as u32,
                    reg: r,
                    expected: v,
                    found: h.checked_sub(1),
                });
            }
        }
        apply(&mut st, &ins.op, &rec);
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

fn apply(st: &mut [u32], op: &Op, rec: &Rec) {
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
    let (_, writes) = operands(op);
    for w in writes {
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
    for &(r, v) in &rec.defs {
        for x in st.iter_mut() {
            if *x == v + 1 {
                *x = 0;
            }
        }
        st[r.row()] = v + 1;
    }
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
