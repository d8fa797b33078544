//! Phase 4: the allocation checker (regalloc2-style symbolic checking). It trusts nothing it
//! checks: it reads only the emitted code and, per operand, the virtual register the operand
//! stood for ([`Annot`], recorded by the emitter). It never looks at the allocator's state.
//!
//! Abstract state: for every GRF and every scratch slot (32-byte unit), what it holds — GRF
//! `k` of virtual register `v`, a thread-payload register, the g0 header template, a scratch
//! header with a known offset, something else, nothing yet, or a conflict of several. Writes
//! set the destination to what the annotation says it stands for; `mov(8) g, g0` makes a header
//! template and `mov(1) g.2, imm` on one a header with that offset; scratch block writes copy
//! GRF states into slots and block reads copy them back. Paths meet at joins (equal, or
//! conflict) and loops iterate to a fixpoint over [`super::flow`]'s graph: lowest block first
//! to learn whether the program passes, and only for one that fails again in the order that
//! defines which error is reported ([`Order`]).
//!
//! Rules: every annotated source GRF holds the GRF of the register it stands for; reads of
//! g0–g2 find the payload; a scratch block message's header holds a known offset (or, for a
//! read with its offset in the descriptor, is g0 or a copy of it); a SIMD16
//! destination does not start one GRF past a source (the compressed-instruction overlap); a
//! send's response does not overlap its payload at another base.
//!
//! Limitation: states are per register, not per channel, so clobbering the inactive channels
//! of a register by a NoMask write is outside what it proves.

use super::flow::{self, Flow};
use sim::gen::{Dst, ExecSize, Inst, Message, Op, Program, Region, Src};
use std::fmt;

/// What each operand of an emitted instruction stood for: (virtual register, GRF offset).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Annot {
    /// The destination's register and offset.
    pub dst: Option<(u32, u8)>,
    /// Each source's register and offset.
    pub src: [Option<(u32, u8)>; 3],
}

/// What a GRF or scratch slot holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Holding {
    /// Nothing written yet.
    Unwritten,
    /// GRF `grf` of virtual register `vreg`.
    Value {
        /// The virtual register (`vgrfN`).
        vreg: u32,
        /// GRF offset in it.
        grf: u8,
    },
    /// Thread-payload register gN.
    Payload(u8),
    /// A copy of g0.
    HeaderTemplate,
    /// A scratch header with this offset.
    Header(u32),
    /// Something no operand stands for.
    Other,
    /// Different things on different paths.
    Conflict,
}

impl fmt::Display for Holding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Holding::Value { vreg, grf } => write!(f, "vgrf{vreg}+{grf}"),
            Holding::Payload(g) => write!(f, "payload g{g}"),
            Holding::Header(o) => write!(f, "header for offset {o}"),
            h => write!(f, "{h:?}"),
        }
    }
}

/// A use that reads the wrong thing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum CheckError {
    /// A source GRF does not hold the value its operand stands for. Virtual registers are
    /// named by the instruction that first writes them, so the name resolves in the listing.
    #[error(
        "instruction {inst}: g{grf} should hold {expected}{} but holds {found}{}{}",
        Written(*expected_at), Written(*found_at),
        if *filled { " (filled from scratch)" } else { "" }
    )]
    IncorrectValue {
        /// Emitted instruction index.
        inst: u32,
        /// The GRF read.
        grf: u8,
        /// What the operand stands for.
        expected: Holding,
        /// What the GRF holds on some path.
        found: Holding,
        /// The GRF's last write before the read, in the same straight-line stretch, is a
        /// scratch fill: the wrong value came back from a spill slot (spill code's fault,
        /// not colouring's).
        filled: bool,
        /// The first instruction that writes `expected`'s register, if it is one.
        expected_at: Option<u32>,
        /// The first instruction that writes `found`'s register, if it is one.
        found_at: Option<u32>,
    },
    /// A SIMD16 destination starts one GRF past a source.
    #[error("instruction {inst}: SIMD16 destination g{dst} overlaps source g{src} (compressed)")]
    CompressedOverlap {
        /// Emitted instruction index.
        inst: u32,
        /// Destination GRF.
        dst: u8,
        /// Source GRF.
        src: u8,
    },
    /// A send's response overlaps its payload at a different base (lanes clobber each
    /// other's parameters).
    #[error("instruction {inst}: response g{dst} overlaps payload g{payload}")]
    ResponseOverlap {
        /// Emitted instruction index.
        inst: u32,
        /// Response GRF.
        dst: u8,
        /// Payload GRF.
        payload: u8,
    },
    /// A scratch block message whose header has no known offset, or a message whose header
    /// GRF holds no header.
    #[error("instruction {inst}: message header g{grf} holds {found}")]
    BadHeader {
        /// Emitted instruction index.
        inst: u32,
        /// Header GRF.
        grf: u8,
        /// What it holds.
        found: Holding,
    },
    /// The program's control flow is not structured.
    #[error("unstructured control flow")]
    Unstructured,
}

/// Scratch slots (GRF-sized) the checker can track: all a program may be given (scratch is
/// sized by the program's need, up to [`super::SCRATCH_GRFS`]). A smaller bound made slots
/// past it read as stale values: a false `IncorrectValue` on heavily spilling programs.
const SLOTS: usize = super::SCRATCH_GRFS as usize;

/// A [`Holding`] packed into one word (tag in bits 40.., fields below), so that copying a
/// state is a plain copy and meeting two states compares words, not enums field by field
/// (the meet at every join was most of the checker's time).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Cell(u64);

impl Cell {
    const CONFLICT: Cell = Cell::pack(Holding::Conflict);

    const fn pack(h: Holding) -> Cell {
        Cell(match h {
            Holding::Unwritten => 0,
            Holding::Value { vreg, grf } => 1 << 40 | (vreg as u64) << 8 | grf as u64,
            Holding::Payload(g) => 2 << 40 | g as u64,
            Holding::HeaderTemplate => 3 << 40,
            Holding::Header(o) => 4 << 40 | o as u64,
            Holding::Other => 5 << 40,
            Holding::Conflict => 6 << 40,
        })
    }

    fn get(self) -> Holding {
        let v = self.0 & ((1 << 40) - 1);
        match self.0 >> 40 {
            0 => Holding::Unwritten,
            1 => Holding::Value {
                vreg: (v >> 8) as u32,
                grf: v as u8,
            },
            2 => Holding::Payload(v as u8),
            3 => Holding::HeaderTemplate,
            4 => Holding::Header(v as u32),
            5 => Holding::Other,
            _ => Holding::Conflict,
        }
    }
}

#[derive(PartialEq, Eq)]
struct State {
    grf: Vec<Cell>,
    slot: Vec<Cell>,
}

impl Clone for State {
    fn clone(&self) -> State {
        State {
            grf: self.grf.clone(),
            slot: self.slot.clone(),
        }
    }

    /// Copies into the buffers already there.
    fn clone_from(&mut self, o: &State) {
        self.grf.clone_from(&o.grf);
        self.slot.clone_from(&o.slot);
    }
}

impl State {
    fn meet(&mut self, o: &State) -> bool {
        // Paths mostly agree: a run of cells is first compared whole (an OR of XORs, which
        // vectorises), and only a run that differs somewhere is met cell by cell.
        fn meet_cells(a: &mut [Cell], b: &[Cell]) -> bool {
            let mut changed = false;
            for (a, b) in a.chunks_mut(32).zip(b.chunks(32)) {
                let diff = a.iter().zip(b).fold(0, |d, (x, y)| d | (x.0 ^ y.0));
                if diff == 0 {
                    continue;
                }
                for (a, b) in a.iter_mut().zip(b) {
                    if *a != *b && *a != Cell::CONFLICT {
                        *a = Cell::CONFLICT;
                        changed = true;
                    }
                }
            }
            changed
        }
        let grf = meet_cells(&mut self.grf, &o.grf);
        meet_cells(&mut self.slot, &o.slot) | grf
    }

    fn grf(&self, r: usize) -> Holding {
        self.grf[r].get()
    }

    fn set_grf(&mut self, r: usize, h: Holding) {
        self.grf[r] = Cell::pack(h);
    }
}

/// Checks `p` against its annotations.
pub fn check(p: &Program, annots: &[Annot], scratch_grfs: u32) -> Result<(), CheckError> {
    let flows: Vec<Flow> = p
        .insts
        .iter()
        .map(|i| Flow::of(Some(i.op), i.pred))
        .collect();
    let g = flow::graph(&flows).ok_or(CheckError::Unstructured)?;
    if g.is_empty() {
        return Ok(());
    }
    // Every slot the program's scratch holds (sampler headers carry other bits in the same
    // dword as a scratch header's offset, so offsets in the code do not tell the size).
    let slots = (scratch_grfs as usize).min(SLOTS);
    let mut entry = State {
        grf: vec![Cell::pack(Holding::Unwritten); 128],
        slot: vec![Cell::pack(Holding::Unwritten); slots],
    };
    for r in 0..=p.width.regs() as u8 {
        entry.set_grf(r as usize, Holding::Payload(r));
    }
    // Most programs pass: find that out in the cheaper order, and only for a program that
    // fails run again in the order whose first error is the one reported.
    if solve(p, annots, &g, &entry, Order::LowestFirst).is_none() {
        return Ok(());
    }
    let errors = solve(p, annots, &g, &entry, Order::Stack);
    match errors {
        None => Ok(()),
        Some(CheckError::IncorrectValue {
            inst,
            grf,
            expected,
            found,
            ..
        }) => Err(CheckError::IncorrectValue {
            inst,
            grf,
            expected,
            found,
            filled: last_write_is_fill(&p.insts[..inst as usize], grf),
            expected_at: first_write(annots, expected),
            found_at: first_write(annots, found),
        }),
        Some(e) => Err(e),
    }
}

/// The first emitted instruction whose destination stands for `h`'s virtual register, so an
/// error can point at a line of the listing instead of an allocator-internal name.
fn first_write(annots: &[Annot], h: Holding) -> Option<u32> {
    let Holding::Value { vreg, grf } = h else {
        return None;
    };
    let i = annots.iter().position(|a| a.dst == Some((vreg, grf)))?;
    Some(i as u32)
}

/// ` (written by instruction N)` after a virtual register's name, when it is known.
struct Written(Option<u32>);

impl fmt::Display for Written {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(i) => write!(f, " (written by instruction {i})"),
            None => Ok(()),
        }
    }
}

/// The order in which [`solve`] visits the blocks waiting.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Order {
    /// The last queued first: the order the reported error is defined by. The error kept is
    /// the one at the lowest instruction seen on any visit, settled state or not, with what
    /// its GRF held on the first visit that saw it; that depends on the order.
    Stack,
    /// The lowest-numbered block first (its predecessors' states, loops apart, are settled by
    /// then): on 100 programs of `gpufuzz bench --seed 1` 12,068 visits rather than the
    /// stack's 17,054 for 7,488 blocks. It stops at the first error, so it tells only
    /// whether there is one; that it does not depend on the order is why it may stand in for
    /// [`Order::Stack`] when there is none:
    /// * A block's entry state only loses information as the visits go on (cells become
    ///   conflicts at a meet), its last visit is at its settled entry state, and the settled
    ///   states are the same in any order (a fixpoint of monotone steps).
    /// * Every rule that fails on a state fails on one with conflicts in place of some cells,
    ///   so an error on some visit is an error at the settled states. `Other` and `Conflict`
    ///   fail the same rules and feed the same steps (no offset, no header, a conflict read
    ///   back), so the header a `mov(1)` makes of a conflict (`Other`, not `Conflict`) keeps
    ///   this.
    LowestFirst,
}

/// Runs the checking of `p` to a fixpoint over its blocks `g` from `entry`, visiting them in
/// `order`; returns the error reported (for [`Order::LowestFirst`], the first one met).
fn solve(
    p: &Program,
    annots: &[Annot],
    g: &flow::Graph,
    entry: &State,
    order: Order,
) -> Option<CheckError> {
    let mut ins: Vec<Option<State>> = vec![None; g.len()];
    // One working state, refilled from each block's entry state (no allocation per visit).
    let mut s = entry.clone();
    ins[0] = Some(entry.clone());
    let mut work = vec![0u32];
    let mut queued = vec![false; g.len()];
    queued[0] = true;
    // The lowest block that may be queued (for `Order::LowestFirst`).
    let mut lowest = 0;
    let mut errors: Option<CheckError> = None;
    loop {
        let b = match order {
            Order::Stack => match work.pop() {
                Some(b) => b as usize,
                None => break,
            },
            Order::LowestFirst => {
                match queued[lowest..].iter().position(|&q| q) {
                    Some(k) => lowest += k,
                    None => break,
                }
                lowest
            }
        };
        queued[b] = false;
        s.clone_from(ins[b].as_ref().expect("queued blocks have a state"));
        for i in g.range(b) {
            if let Err(e) = step(&p.insts[i], &annots[i], i as u32, &mut s) {
                if order == Order::LowestFirst {
                    return Some(e);
                }
                if errors
                    .as_ref()
                    .is_none_or(|old| error_inst(old) > error_inst(&e))
                {
                    errors = Some(e);
                }
            }
        }
        for &t in &g.succs[b] {
            let t = t as usize;
            let changed = match &mut ins[t] {
                None => {
                    ins[t] = Some(s.clone());
                    true
                }
                Some(old) => old.meet(&s),
            };
            if changed && !queued[t] {
                queued[t] = true;
                match order {
                    Order::Stack => work.push(t as u32),
                    Order::LowestFirst => lowest = lowest.min(t),
                }
            }
        }
    }
    errors
}

/// Whether the last instruction of `before` that writes GRF `grf`, looking back no further
/// than the nearest control flow, is a scratch block read.
fn last_write_is_fill(before: &[Inst], grf: u8) -> bool {
    for inst in before.iter().rev() {
        let (regs, fill) = match inst.op {
            Op::Send(d) => (
                d.rlen as u32,
                matches!(d.msg, Message::ScratchBlockRead { .. }),
            ),
            Op::If { .. } | Op::Else { .. } | Op::EndIf | Op::Do | Op::While { .. } => {
                return false
            }
            Op::Break { .. } | Op::Cont { .. } => return false,
            _ => (inst.exec_size.regs(), false),
        };
        if let Dst::Grf { reg, .. } = inst.dst {
            if (reg as u32..reg as u32 + regs).contains(&(grf as u32)) {
                return fill;
            }
        }
    }
    false
}

fn error_inst(e: &CheckError) -> u32 {
    match e {
        CheckError::IncorrectValue { inst, .. }
        | CheckError::CompressedOverlap { inst, .. }
        | CheckError::ResponseOverlap { inst, .. }
        | CheckError::BadHeader { inst, .. } => *inst,
        CheckError::Unstructured => 0,
    }
}

fn step(inst: &Inst, a: &Annot, at: u32, s: &mut State) -> Result<(), CheckError> {
    let mut result = Ok(());
    let mut fail = |e: CheckError| {
        if result.is_ok() {
            result = Err(e);
        }
    };
    let send = match inst.op {
        Op::Send(d) => Some(d),
        _ => None,
    };
    for (k, src) in inst.src.iter().enumerate() {
        let Src::Grf(gs) = src else { continue };
        let n = match (send, k) {
            (Some(d), 0) => d.mlen as usize,
            _ if gs.region == Region::Scalar => 1,
            _ => inst.exec_size.regs() as usize,
        };
        let block = matches!(
            send.map(|d| d.msg),
            Some(Message::ScratchBlockRead { .. } | Message::ScratchBlockWrite { .. })
        );
        if block && k == 0 {
            let h = s.grf(gs.reg as usize);
            // A read whose offset is in its descriptor needs only the thread's scratch base
            // from its header: g0 or any copy of it.
            let base_only = matches!(
                send.map(|d| d.msg),
                Some(Message::ScratchBlockRead {
                    offset: Some(_),
                    ..
                })
            );
            let fits = match h {
                Holding::Header(_) => true,
                Holding::Payload(0) | Holding::HeaderTemplate => base_only,
                _ => false,
            };
            if !fits {
                fail(CheckError::BadHeader {
                    inst: at,
                    grf: gs.reg,
                    found: h,
                });
            }
            continue;
        }
        for j in 0..n {
            let r = gs.reg as usize + j;
            if r >= 128 {
                break;
            }
            if j == 0 && k == 0 && send.is_some_and(|d| d.header) {
                // A sampler header: a g0 copy with its dword 2 set (the simulator checks the
                // bits' effect; here only that it is a header).
                if !matches!(s.grf(r), Holding::Header(_)) {
                    fail(CheckError::BadHeader {
                        inst: at,
                        grf: gs.reg,
                        found: s.grf(r),
                    });
                }
                continue;
            }
            let expected = match a.src[k] {
                Some((v, off)) => Holding::Value {
                    vreg: v,
                    grf: off + j as u8,
                },
                None if r < 3 => Holding::Payload(r as u8),
                None => continue,
            };
            if s.grf[r] != Cell::pack(expected) {
                fail(CheckError::IncorrectValue {
                    inst: at,
                    grf: r as u8,
                    expected,
                    found: s.grf(r),
                    filled: false,
                    expected_at: None,
                    found_at: None,
                });
            }
        }
        if let (Some(d), 0, Dst::Grf { reg, .. }) = (send, k, inst.dst) {
            let (p0, p1) = (gs.reg as u32, gs.reg as u32 + d.mlen as u32);
            let (d0, d1) = (reg as u32, reg as u32 + d.rlen as u32);
            if d0 != p0 && d0 < p1 && p0 < d1 {
                fail(CheckError::ResponseOverlap {
                    inst: at,
                    dst: reg,
                    payload: gs.reg,
                });
            }
        }
        if send.is_none() && inst.exec_size == ExecSize::S16 && gs.region == Region::Vector {
            if let Dst::Grf { reg, .. } = inst.dst {
                if reg == gs.reg.wrapping_add(1) {
                    fail(CheckError::CompressedOverlap {
                        inst: at,
                        dst: reg,
                        src: gs.reg,
                    });
                }
            }
        }
    }
    let Dst::Grf { reg, subreg, .. } = inst.dst else {
        if let Some(d) = send {
            if let Message::ScratchBlockWrite { regs } = d.msg {
                transfer_to_slot(inst, regs, s);
            }
        }
        return result;
    };
    let reg = reg as usize;
    match send {
        Some(d) => {
            if let Message::ScratchBlockRead { regs, offset } = d.msg {
                let off = offset.map(u32::from).or_else(|| header_offset(inst, s));
                for j in 0..regs as usize {
                    s.grf[(reg + j).min(127)] = off.map_or(Cell::CONFLICT, |o| {
                        let slot = s.slot.get(o as usize + j);
                        slot.copied().unwrap_or(Cell::pack(Holding::Unwritten))
                    });
                }
            } else {
                for j in 0..d.rlen as usize {
                    s.set_grf((reg + j).min(127), value(a, j));
                }
            }
        }
        None if inst.exec_size == ExecSize::S1 => {
            let h = s.grf(reg);
            let now = match (h, subreg, inst.src[0]) {
                (Holding::HeaderTemplate, 2, Src::Imm { bits, .. }) => Holding::Header(bits),
                _ => Holding::Other,
            };
            s.set_grf(reg, now);
        }
        None => {
            let template = a.dst.is_none()
                && inst.op == Op::Mov
                && matches!(inst.src[0], Src::Grf(g) if g.reg == 0 && g.region == Region::Vector);
            for j in 0..inst.exec_size.regs() as usize {
                let h = if template {
                    Holding::HeaderTemplate
                } else {
                    value(a, j)
                };
                s.set_grf((reg + j).min(127), h);
            }
        }
    }
    result
}

fn value(a: &Annot, j: usize) -> Holding {
    match a.dst {
        Some((v, off)) => Holding::Value {
            vreg: v,
            grf: off + j as u8,
        },
        None => Holding::Other,
    }
}

fn header_offset(inst: &Inst, s: &State) -> Option<u32> {
    match inst.src[0] {
        Src::Grf(g) => match s.grf(g.reg as usize) {
            Holding::Header(o) => Some(o),
            _ => None,
        },
        _ => None,
    }
}

fn transfer_to_slot(inst: &Inst, regs: u8, s: &mut State) {
    let Src::Grf(g) = inst.src[0] else { return };
    match header_offset(inst, s) {
        Some(o) => {
            for j in 0..regs as usize {
                let v = s.grf[(g.reg as usize + 1 + j).min(127)];
                if let Some(slot) = s.slot.get_mut(o as usize + j) {
                    *slot = v;
                }
            }
        }
        None => s.slot.fill(Cell::CONFLICT),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::gen::{ExecSize, Gen, SendDesc, Type};

    /// `mov(8) gH = g0; mov(1) gH.2 = offset`: a scratch block message header.
    fn header(h: u8, offset: u32) -> [(Inst, Annot); 2] {
        let w = ExecSize::S8;
        let template = Inst::unary(Op::Mov, w, Dst::grf(h, Type::UD), Src::grf(0, Type::UD));
        let d = Dst::Grf {
            reg: h,
            subreg: 2,
            ty: Type::UD,
        };
        let at = Inst::unary(Op::Mov, ExecSize::S1, d, Src::ud(offset));
        [
            (template.no_mask(), Annot::default()),
            (at.no_mask(), Annot::default()),
        ]
    }

    /// Spills virtual register 7 to scratch GRF `offset`, fills it back — through a header
    /// built in g6, or with the offset in the descriptor and GRF `header_at` as the header —
    /// and reads it.
    fn spill_and_fill(offset: u32, header_at: Option<u8>) -> Result<(), CheckError> {
        let w = ExecSize::S8;
        let def = Annot {
            dst: Some((7, 0)),
            ..Annot::default()
        };
        let mut code = vec![(
            Inst::unary(Op::Mov, w, Dst::grf(4, Type::UD), Src::grf(1, Type::UD)),
            def,
        )];
        code.extend(header(3, offset));
        let write = SendDesc::new(Message::ScratchBlockWrite { regs: 1 }, 2, 0, true);
        code.push((
            Inst::send(w, Dst::Null(Type::UD), 3, write).no_mask(),
            Annot::default(),
        ));
        let (payload, offset_in) = match header_at {
            Some(g) => (g, Some(offset as u16)),
            None => {
                code.extend(header(6, offset));
                (6, None)
            }
        };
        let read = Message::ScratchBlockRead {
            regs: 1,
            offset: offset_in,
        };
        code.push((
            Inst::send(
                w,
                Dst::grf(10, Type::UD),
                payload,
                SendDesc::new(read, 1, 1, true),
            )
            .no_mask(),
            Annot::default(),
        ));
        let use_ = Annot {
            src: [Some((7, 0)), None, None],
            ..Annot::default()
        };
        code.push((
            Inst::unary(Op::Mov, w, Dst::grf(11, Type::UD), Src::grf(10, Type::UD)),
            use_,
        ));
        let (insts, annots): (Vec<Inst>, Vec<Annot>) = code.into_iter().unzip();
        let p = Program {
            width: w,
            gen: Gen::Gen9,
            insts,
        };
        check(&p, &annots, offset + 1)
    }

    /// `mov g4 = v7; do { read v7 from g4; mov g4 = v8 (if clobber) } while`: the read is
    /// wrong only once the loop's back edge has brought the clobber round.
    fn loop_reading(clobber: bool) -> (Program, Vec<Annot>) {
        let w = ExecSize::S8;
        let def = |v| Annot {
            dst: Some((v, 0)),
            ..Annot::default()
        };
        let mov = |d, s| Inst::unary(Op::Mov, w, Dst::grf(d, Type::UD), Src::grf(s, Type::UD));
        let mut code = vec![
            (mov(4, 1), def(7)),
            (Inst::control(Op::Do, w), Annot::default()),
            (
                mov(5, 4),
                Annot {
                    src: [Some((7, 0)), None, None],
                    ..def(9)
                },
            ),
        ];
        if clobber {
            code.push((mov(4, 1), def(8)));
        }
        code.push((Inst::control(Op::While { jip: 2 }, w), Annot::default()));
        let (insts, annots) = code.into_iter().unzip();
        let p = Program {
            width: w,
            gen: Gen::Gen9,
            insts,
        };
        (p, annots)
    }

    /// Both visiting orders agree on whether there is an error, including one only the
    /// settled state of a loop shows; the reported error is the stack order's.
    #[test]
    fn both_orders_agree_on_whether_a_program_fails() {
        for clobber in [false, true] {
            let (p, annots) = loop_reading(clobber);
            let flows: Vec<Flow> = p
                .insts
                .iter()
                .map(|i| Flow::of(Some(i.op), i.pred))
                .collect();
            let g = flow::graph(&flows).expect("structured");
            let mut entry = State {
                grf: vec![Cell::pack(Holding::Unwritten); 128],
                slot: Vec::new(),
            };
            for r in 0..=1 {
                entry.set_grf(r, Holding::Payload(r as u8));
            }
            let stack = solve(&p, &annots, &g, &entry, Order::Stack);
            let lowest = solve(&p, &annots, &g, &entry, Order::LowestFirst);
            assert_eq!(stack.is_some(), clobber);
            assert_eq!(lowest.is_some(), clobber);
            // `check` reports the stack order's error, naming where its registers are written.
            let checked = check(&p, &annots, 0).err();
            match (&checked, &stack) {
                (
                    Some(CheckError::IncorrectValue { inst, grf, .. }),
                    Some(CheckError::IncorrectValue {
                        inst: i, grf: g, ..
                    }),
                ) => {
                    assert_eq!((inst, grf), (i, g));
                    let message = checked.as_ref().unwrap().to_string();
                    assert!(
                        message.contains("vgrf7+0 (written by instruction 0)"),
                        "{message}"
                    );
                }
                _ => assert_eq!(checked, stack),
            }
        }
    }

    #[test]
    fn a_fill_reads_back_its_spill_at_any_scratch_offset() {
        for offset in [0, 2047, 2048, 3000, super::super::SCRATCH_GRFS - 1] {
            assert_eq!(spill_and_fill(offset, None), Ok(()), "offset {offset}");
        }
        for offset in [0, 2047, 4095] {
            assert_eq!(spill_and_fill(offset, Some(0)), Ok(()), "offset {offset}");
        }
    }

    /// A read with its offset in the descriptor takes the scratch base from its header, so
    /// the header must be g0 (or a copy): the value in g4, say, is no header.
    #[test]
    fn a_descriptor_offset_read_needs_g0_for_its_header() {
        assert!(matches!(
            spill_and_fill(5, Some(4)),
            Err(CheckError::BadHeader { grf: 4, .. })
        ));
    }
}
