//! Gen12's software scoreboard, checked as a thread runs: the hardware no longer stalls on a
//! register an earlier instruction has yet to write (`brw_lower_scoreboard.cpp:25-34`, Mesa
//! 25.0.7: "Gfx12+ hardware lacks the register scoreboard logic"), so the compiler orders
//! dependent instructions through each instruction's SWSB annotation, and reading a register
//! before its writer is known to be done is a hazard: on the hardware it reads whatever the
//! register held.
//!
//! The rules are brw's own, the ones its lowering pass writes the annotations by:
//! * Out-of-order instructions — sends, `math` below Xe2, and on Meteor Lake 64-bit floats
//!   (`is_unordered`, `brw_ir_fs.h:375-382`) — set a scoreboard token (`$n`). Until a later
//!   instruction waits for it (`$n.dst`, or `sync.allwr`), its destination is pending: reading
//!   it (RAW) or writing it (WAW) is a hazard. Until `$n.src`, `$n.dst`, `sync.allrd` or
//!   `sync.allwr`, its sources are pending: writing them (WAR) is a hazard
//!   (`update_inst_scoreboard`, `:1045-1100`: payload sources and unordered math's sources are
//!   read asynchronously). Setting a token again waits for its previous instruction.
//! * In-order instructions count per pipe (`ordered_inst_addresses`, `ordered_unit`: every
//!   in-order instruction but `sync` counts one in its pipe). Gfx12 has one pipe; Gfx12.5 has
//!   float, integer and long (`inferred_exec_pipe`, `:116-172`). `@d` (RegDist) waits until the
//!   d-th previous instruction of the pipe it names is done — `A@d` every pipe, a bare `@d`
//!   the pipe `inferred_sync_pipe` (`:70-110`) gives the waiting instruction — and so every
//!   earlier one of that pipe. brw takes a result as done without a wait once it is more than
//!   10 instructions of its pipe back (14 on the long pipe; `ordered_dependency_swsb`,
//!   `:884-907`). Reading an in-order result before then is a hazard; so is overwriting one,
//!   or a register an in-order instruction reads, from *another* pipe (brw drops the wait
//!   for a read when reader and writer share the pipe, `dependency_for_write`, `:625-633`;
//!   it keeps it for a write, but its own generator writes one GRF three times in a row
//!   without one, so the pipe keeps its writes in order).
//!
//! Only GRFs are tracked; flags need no annotation (the hardware keeps them coherent,
//! `:50-54`), and the address register and accumulator are left to the executor's other checks.

use super::super::gen::Gen;
use super::super::inst::{Inst, Src};
use super::super::opcode::Opcode;
use super::super::swsb::{Pipe, Token};
use super::super::types::Type;
use super::timing::registers;
use super::Stop;

/// GRFs tracked.
const GRFS: usize = 128;
/// Scoreboard tokens (Gfx12: 16; Xe2: 32).
const TOKENS: usize = 32;
/// In-order pipes counted: float, integer, long.
const PIPES: usize = 3;

/// An in-order pipe brw counts in (`tgl_pipe` less `NONE`, `MATH`, `SCALAR`, `ALL`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum InOrder {
    Float = 0,
    Int = 1,
    Long = 2,
}

impl InOrder {
    /// The distance past which brw takes a result as done (`ordered_dependency_swsb`).
    fn max_distance(self) -> u64 {
        if self == InOrder::Long {
            14
        } else {
            10
        }
    }

    fn name(self) -> &'static str {
        match self {
            InOrder::Float => "float",
            InOrder::Int => "integer",
            InOrder::Long => "long",
        }
    }
}

/// The last write of a GRF still in flight, and who made it.
#[derive(Clone, Copy, Debug)]
enum Write {
    /// By an in-order instruction: its pipe and its address in that pipe.
    Ordered(InOrder, u64, usize),
    /// By an out-of-order instruction holding token `.0`.
    Unordered(u8, usize),
}

/// The most recent in-order read of a GRF per pipe (its address and byte offset).
type Reads = [Option<(u64, usize)>; PIPES];

/// One thread's scoreboard.
#[derive(Clone, Debug)]
pub struct Scoreboard {
    gen: Gen,
    /// In-order instructions executed per pipe (the next one's address).
    count: [u64; PIPES],
    /// Per pipe: every instruction below this address is known done (waited for).
    done: [u64; PIPES],
    /// Per GRF: the write in flight, if any.
    writes: Vec<Option<Write>>,
    /// Per GRF: tokens whose instruction may still read it.
    pending_reads: Vec<u32>,
    /// Per GRF: the latest in-order read per pipe.
    ordered_reads: Vec<Reads>,
    /// Per token: the byte offset of the instruction holding it.
    holders: [Option<usize>; TOKENS],
}

impl Scoreboard {
    /// A thread's scoreboard at dispatch: nothing in flight.
    pub fn new(gen: Gen) -> Scoreboard {
        Scoreboard {
            gen,
            count: [0; PIPES],
            done: [0; PIPES],
            writes: vec![None; GRFS],
            pending_reads: vec![0; GRFS],
            ordered_reads: vec![[None; PIPES]; GRFS],
            holders: [None; TOKENS],
        }
    }

    /// Applies `inst`'s waits, checks its registers and records what it leaves in flight.
    /// `at` is its byte offset (named in a hazard).
    pub fn step(&mut self, inst: &Inst, at: usize) -> Result<(), Stop> {
        // Gfx9 has a hardware scoreboard; an instruction without an annotation (built by
        // hand, not decoded) has nothing to check.
        if !self.gen.is_gfx12() || inst.swsb.is_none() {
            return Ok(());
        }
        self.wait(inst);
        let (reads, writes) = registers(inst);
        let unordered = is_unordered(inst);
        let pipe = (!unordered && inst.opcode != Opcode::SYNC).then(|| exec_pipe(self.gen, inst));
        for g in reads.iter().cloned().flatten() {
            self.check_read(g, at)?;
        }
        for g in writes.iter().cloned().flatten() {
            self.check_write(g, pipe, at)?;
        }
        match pipe {
            Some(p) => {
                let address = self.count[p as usize];
                self.count[p as usize] += 1;
                for g in reads.iter().cloned().flatten() {
                    self.ordered_reads[g][p as usize] = Some((address, at));
                }
                for g in writes.iter().cloned().flatten() {
                    self.writes[g] = Some(Write::Ordered(p, address, at));
                }
            }
            // The end-of-thread send needs no token: nothing runs after it.
            None if unordered && inst.send.is_some_and(|s| s.eot) => {}
            None if unordered => {
                let Some(swsb) = inst.swsb.filter(|s| s.token == Some(Token::Set)) else {
                    return Err(Stop::Hazard(format!(
                        "out-of-order {} at byte {at} sets no scoreboard token",
                        inst.opcode.name()
                    )));
                };
                let token = swsb.sbid;
                self.holders[token as usize] = Some(at);
                for g in reads.iter().cloned().flatten() {
                    self.pending_reads[g] |= 1 << token;
                }
                for g in writes.iter().cloned().flatten() {
                    self.writes[g] = Some(Write::Unordered(token, at));
                }
            }
            None => {}
        }
        Ok(())
    }

    /// What `inst` waits for: its token (`.dst`/`.src`, or a token it sets again), its
    /// RegDist, and `sync.allrd`/`sync.allwr`.
    fn wait(&mut self, inst: &Inst) {
        if let Some(swsb) = inst.swsb {
            match swsb.token {
                Some(Token::Dst | Token::Set) => self.token_done(swsb.sbid, true),
                Some(Token::Src) => self.token_done(swsb.sbid, false),
                None => {}
            }
            if swsb.regdist > 0 {
                let pipes: Vec<InOrder> = match swsb.pipe {
                    Pipe::All => vec![InOrder::Float, InOrder::Int, InOrder::Long],
                    Pipe::Float => vec![InOrder::Float],
                    Pipe::Int => vec![InOrder::Int],
                    Pipe::Long => vec![InOrder::Long],
                    Pipe::Math => vec![],
                    Pipe::None => sync_pipe(self.gen, inst).into_iter().collect(),
                };
                for p in pipes {
                    let upto = self.count[p as usize].saturating_sub(u64::from(swsb.regdist) - 1);
                    let done = &mut self.done[p as usize];
                    *done = (*done).max(upto);
                }
            }
        }
        match inst.sync_function {
            Some(2) => (0..TOKENS as u8).for_each(|t| self.token_done(t, false)),
            Some(3) => (0..TOKENS as u8).for_each(|t| self.token_done(t, true)),
            _ => {}
        }
    }

    /// Token `t`'s instruction has read its sources, and with `written` its destination too.
    fn token_done(&mut self, t: u8, written: bool) {
        for g in 0..GRFS {
            self.pending_reads[g] &= !(1u32 << t);
            if written && matches!(self.writes[g], Some(Write::Unordered(u, _)) if u == t) {
                self.writes[g] = None;
            }
        }
        if written {
            self.holders[t as usize] = None;
        }
    }

    /// Whether an in-order result at `address` of pipe `p` is done.
    fn ordered_done(&self, p: InOrder, address: u64) -> bool {
        address < self.done[p as usize] || self.count[p as usize] - address > p.max_distance()
    }

    fn check_read(&self, g: usize, at: usize) -> Result<(), Stop> {
        match self.writes[g] {
            Some(Write::Unordered(t, by)) => Err(Stop::Hazard(format!(
                "g{g} read at byte {at} before ${t} (set at byte {by}) wrote it: no $.dst wait"
            ))),
            Some(Write::Ordered(p, address, by)) if !self.ordered_done(p, address) => {
                Err(Stop::Hazard(format!(
                    "g{g} read at byte {at} before the {} pipe's write at byte {by} is done \
                     ({} instructions back, no RegDist covering it)",
                    p.name(),
                    self.count[p as usize] - address
                )))
            }
            _ => Ok(()),
        }
    }

    fn check_write(&self, g: usize, pipe: Option<InOrder>, at: usize) -> Result<(), Stop> {
        if let Some(Write::Unordered(t, by)) = self.writes[g] {
            return Err(Stop::Hazard(format!(
                "g{g} written at byte {at} before ${t} (set at byte {by}) wrote it: no $.dst wait"
            )));
        }
        let reads = self.pending_reads[g];
        if reads != 0 {
            let t = reads.trailing_zeros();
            let by = self.holders[t as usize].unwrap_or(0);
            return Err(Stop::Hazard(format!(
                "g{g} written at byte {at} before ${t} (set at byte {by}) read it: no $.src wait"
            )));
        }
        // Another pipe's in-order write or read still in flight. Within a pipe, writes land
        // in order and a read is done before a later write: brw's generator relies on it (its
        // scratch header, one IR instruction, is `mov(8) gN` then `and(1) gN.3`, `and(1) gN.5`
        // with no wait between them), though brw's pass orders same-pipe writes to one GRF.
        if let Some(Write::Ordered(p, address, by)) = self.writes[g] {
            if Some(p) != pipe && !self.ordered_done(p, address) {
                return Err(Stop::Hazard(format!(
                    "g{g} written at byte {at} before the {} pipe's write at byte {by} is done",
                    p.name()
                )));
            }
        }
        for (q, read) in self.ordered_reads[g].iter().enumerate() {
            let p = [InOrder::Float, InOrder::Int, InOrder::Long][q];
            if let Some((address, by)) = *read {
                if Some(p) != pipe && !self.ordered_done(p, address) {
                    return Err(Stop::Hazard(format!(
                        "g{g} written at byte {at} before the {} pipe's read at byte {by} is done",
                        p.name()
                    )));
                }
            }
        }
        Ok(())
    }
}

/// Whether `inst` runs out of order (`is_unordered`, `brw_ir_fs.h:375-382`).
fn is_unordered(inst: &Inst) -> bool {
    inst.opcode.is_send()
        || (inst.opcode == Opcode::MATH && !inst.gen.is_xe2())
        || (inst.gen.df_via_math_pipe()
            && (inst.dst.is_some_and(|d| d.ty == Type::DF) || exec_type(inst) == Some(Type::DF)))
}

/// The types of `inst`'s sources as brw's `get_exec_type` reads them (vector immediates as
/// their element type).
fn source_types(inst: &Inst) -> impl Iterator<Item = Type> + '_ {
    inst.src.iter().flatten().map(|s| match s {
        Src::Imm { ty: Type::V, .. } => Type::W,
        Src::Imm { ty: Type::UV, .. } => Type::UW,
        Src::Imm { ty: Type::VF, .. } => Type::F,
        Src::Imm { ty, .. } => *ty,
        Src::Reg(r) => r.ty,
    })
}

/// brw's `get_exec_type` (`brw_ir_fs.h:313-360`): the widest source type, a float winning a
/// tie; the destination's when there is no source.
fn exec_type(inst: &Inst) -> Option<Type> {
    let mut best: Option<Type> = None;
    for t in source_types(inst) {
        best = match best {
            Some(b) if t.size() < b.size() || (t.size() == b.size() && !t.is_float()) => Some(b),
            _ => Some(t),
        };
    }
    best.or(inst.dst.map(|d| d.ty))
}

/// The pipe an in-order instruction runs on (`inferred_exec_pipe`, `:116-172`, for the
/// hardware instructions brw emits; flow control has no destination and counts as integer).
fn exec_pipe(gen: Gen, inst: &Inst) -> InOrder {
    if !gen.is_xehp() {
        return InOrder::Float;
    }
    let t = exec_type(inst).unwrap_or(Type::UB);
    let dst = inst.dst.map_or(Type::UB, |d| d.ty);
    let size = |s: &Option<Src>| match s {
        Some(Src::Imm { ty, .. }) => ty.size(),
        Some(Src::Reg(r)) => r.ty.size(),
        None => 0,
    };
    let dword_multiply = !t.is_float()
        && ((inst.opcode == Opcode::MUL && size(&inst.src[0]).min(size(&inst.src[1])) >= 4)
            || (inst.opcode == Opcode::MAD && size(&inst.src[1]).min(size(&inst.src[2])) >= 4));
    if dst.size() >= 8 || t.size() >= 8 || dword_multiply {
        InOrder::Long
    } else if dst.is_float() {
        InOrder::Float
    } else {
        InOrder::Int
    }
}

/// The pipe a bare `@d` waits on (`inferred_sync_pipe`, `:70-110`): Gfx12's one pipe; on
/// Gfx12.5 long when a source is 64-bit, integer when one is an integer, else float; none for
/// a send.
fn sync_pipe(gen: Gen, inst: &Inst) -> Option<InOrder> {
    if !gen.is_xehp() {
        return Some(InOrder::Float);
    }
    if inst.opcode.is_send() {
        return None;
    }
    let (mut int, mut long) = (false, false);
    for t in source_types(inst) {
        int |= !t.is_float();
        long |= t.size() >= 8;
    }
    if long && gen.df_via_math_pipe() {
        None
    } else if long {
        Some(InOrder::Long)
    } else if int {
        Some(InOrder::Int)
    } else {
        Some(InOrder::Float)
    }
}
