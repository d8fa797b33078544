//! Spill and fill code, and the assignment of spill slots to scratch offsets.
//!
//! Spilling register `v` into slot `k` rewrites every instruction that touches it, moving
//! only the GRFs of `v` that instruction touches (as brw does), so that an instruction needs
//! no more registers with its operands spilled than the GRFs it reads and writes itself — the
//! floor the register budget may go down to (`docs/budgets.md`):
//! * a read gets a fill before it: a scratch block read into a fresh temporary, which the
//!   instruction reads instead. As in brw's `emit_unspill`, on gen7 the read is gen7's
//!   scratch message: the offset in its descriptor and g0 as dispatched for its header, so a
//!   fill is one instruction and needs no register but its temporary. On gen9, and on gen7
//!   once the slots could reach past the descriptor's 12 bits of offset, the fill builds a
//!   header of its own (g0 with the offset, NoMask) for an OWord block read — brw's choice on
//!   gen9, where the gen7 message's fixed binding table entry makes the data cache read
//!   coherently with the instruction cache, slower than sending a header;
//! * a write goes to the data part of a fresh payload (header + data) and is followed by a
//!   scratch block write of the GRFs written. As in brw's `spill_reg`, an unpredicated write
//!   of whole 32-bit channels is written back *per channel*: the header (NoMask) and a block
//!   write under the instruction's own channel mask, which stores only the enabled channels'
//!   dwords. Any other write (predicated, partial, NoMask, a payload) is written back whole
//!   (NoMask), so the data part first gets those GRFs' old contents (a *pre-fill*, read
//!   through the payload's own header GRF, which the write then uses as it is) when the
//!   write happens under control flow, or zeroes (NoMask `mov`) at the top level, where the
//!   header is built after the instruction: channels the write does not enable keep what
//!   they had, and nothing unwritten reaches scratch.
//!
//! Temporaries are never spilled again. Slots are numbered per spilled register; after
//! allocation [`assign_slots`] gives them scratch offsets: a slot is a variable defined by its
//! block writes and used by its block reads, with liveness over the structured CFG (loop
//! extension included; a per-channel write under control flow leaves the other channels'
//! contents, so it does not end the slot's previous life), and slots whose live intervals do
//! not overlap share an offset (slots a descriptor names first, so they stay within its 12
//! bits). The emitter initialises every slot at thread start, so a pre-fill before the first
//! write reads defined data.

use super::flow;
use super::liveness::{flows, kills, BitSet};
use super::vinst::{Payload, VInst, VOp, VProgram, VRef, VReg, VSrc};
use crate::executed::Role;
use crate::planted::{Plant, Plants};
use cranelift_entity::packed_option::ReservedValue;
use cranelift_entity::EntityRef;
use sim::gen::{ExecSize, Gen, Message, Op, SendDesc, Type, SCRATCH_DESCRIPTOR_OFFSETS};

/// The most GRFs one scratch block message moves: the largest register spill code can move
/// (larger ones are never spilled, so they must not live across other code).
pub const MAX_SPILL_GRFS: u8 = 8;

/// Where [`spill_regs`] put the instructions it was given.
#[derive(Clone, Debug, Default)]
pub struct Moved {
    /// For each old instruction, the new index of the first instruction emitted for it (its
    /// fills, else itself); one more entry holds the new length.
    pub first: Vec<u32>,
    /// The new index of each old instruction.
    pub at: Vec<u32>,
    /// The old instructions that touch a spilled register (they and their spill code are all
    /// that reads or writes the new registers).
    pub touched: Vec<u32>,
}

/// Rewrites `p` so that each register `v` of `spills` lives in its spill slot, in one pass:
/// an instruction's fills come in the order of `spills`, before the pre-fill of its
/// destination. `scratch_end` bounds the scratch GRFs the program takes with these slots
/// (its locals and every slot so far, unshared): while it is within the descriptor's 12 bits,
/// gen7 fills name their offset there. Says where the instructions went.
pub fn spill_regs(p: &mut VProgram, spills: &[(VReg, u32)], scratch_end: u32) -> Moved {
    let descriptor = p.gen == Gen::Gen7 && scratch_end <= SCRATCH_DESCRIPTOR_OFFSETS;
    // Each spilled register's place in `spills`, which orders an instruction's fills.
    let mut rank = vec![None; p.regs.len()];
    for (k, &(v, _)) in spills.iter().enumerate() {
        rank[v.index()] = Some(k);
    }
    let rank_of = |r: VReg| rank.get(r.index()).copied().flatten();
    let spilled = |r: VReg| rank_of(r).map(|k| spills[k].1);
    let insts = std::mem::take(&mut p.insts);
    let mut out = Vec::with_capacity(insts.len() + 8 * spills.len());
    let len = insts.len();
    let mut moved = Moved {
        first: Vec::with_capacity(len + 1),
        at: Vec::with_capacity(len),
        // Found first, so that the runs of instructions between them move in bulk (one at a
        // time, each was copied three times over).
        touched: (0..len as u32)
            .filter(|&i| {
                let inst = &insts[i as usize];
                let mut touches = inst.dst.is_some_and(|d| spilled(d.reg).is_some());
                inst.for_each_use(|r, _| touches |= spilled(r.reg).is_some());
                touches
            })
            .collect(),
    };
    let mut rest = insts.into_iter();
    // The spilled registers the instruction at hand reads, gathered in one pass over its
    // operands (a pass per spilled register was most of the rewrite in rounds that spill
    // many).
    let mut reads: Vec<Read> = Vec::new();
    let mut next = 0;
    for k in 0..moved.touched.len() {
        let i = moved.touched[k] as usize;
        keep(i - next, &mut rest, &mut out, &mut moved);
        next = i + 1;
        let mut inst = rest.next().expect("a touched instruction");
        moved.first.push(out.len() as u32);
        reads.clear();
        inst.for_each_use(|r, n| {
            let Some(rank) = rank_of(r.reg) else { return };
            let size = p.regs[r.reg].size;
            let e = match reads.iter().position(|e| e.rank == rank) {
                Some(e) => e,
                None => {
                    reads.push(Read {
                        rank,
                        lo: size,
                        hi: 0,
                        temp: VReg::reserved_value(),
                    });
                    reads.len() - 1
                }
            };
            reads[e].lo = reads[e].lo.min(r.off);
            reads[e].hi = reads[e].hi.max(r.off.saturating_add(n).min(size));
        });
        reads.sort_unstable_by_key(|e| e.rank);
        for e in &mut reads {
            e.temp = p.new_reg(e.hi - e.lo, false);
            let within = (e.lo, e.hi - e.lo);
            fill(
                p,
                &mut out,
                &inst,
                e.temp,
                within,
                spills[e.rank].1,
                descriptor,
            );
        }
        if !reads.is_empty() {
            inst.for_each_use_mut(|r| {
                if let Some(rank) = rank_of(r.reg) {
                    let e = reads.iter().find(|e| e.rank == rank).expect("gathered");
                    r.reg = e.temp;
                    r.off -= e.lo;
                }
            });
        }
        let Some((v, slot)) = inst.dst.and_then(|d| Some((d.reg, spilled(d.reg)?))) else {
            moved.at.push(out.len() as u32);
            out.push(inst);
            continue;
        };
        let size = p.regs[v].size;
        let exec = inst.exec;
        let at = |mut i: VInst, like: &VInst| {
            i.depth = like.depth;
            i.loop_depth = like.loop_depth;
            i
        };
        // The GRFs of `v` the instruction writes: only those are written back.
        let lo = inst.dst.expect("defines").off;
        let regs = inst.dst_regs(|r| p.regs[r].size).min(size - lo).max(1);
        let s = p.new_reg(regs + 1, false);
        // brw's per-channel spill: an unpredicated write of whole 32-bit channels at the
        // program's width writes back through a scratch write masked like itself, so the
        // data part needs no old contents.
        let per_channel = matches!(inst.op, VOp::Hw(_))
            && !inst.no_mask
            && kills(&inst)
            && inst.exec.lanes() >= 8;
        let prefilled = !per_channel && inst.depth > 0;
        if prefilled {
            // Read through the payload's own header GRF: the pre-fill needs no other.
            out.push(at(header(s, slot, lo, exec), &inst));
            let own_header = VSrc::Reg(VRef::new(s, 0, Type::UD));
            let mut pre = block_read(
                own_header,
                None,
                VRef::new(s, 1, Type::UD),
                regs,
                slot,
                exec,
            );
            pre.role = Role::PreFill;
            out.push(at(pre, &inst));
        } else if !per_channel {
            let per = exec.regs() as u8;
            for j in (0..regs).step_by(per as usize) {
                let dst = VRef::new(s, 1 + j, Type::UD);
                let zero = VSrc::Imm {
                    bits: 0,
                    ty: Type::UD,
                };
                let mut m = VInst::new(Op::Mov, exec, Some(dst), [zero, VSrc::Null, VSrc::Null]);
                m.no_mask = true;
                out.push(at(m, &inst));
            }
        }
        let d = inst.dst.as_mut().expect("defines");
        d.reg = s;
        d.off = 1;
        // Merged with the old contents (or zeroes), unless written back channel by channel.
        inst.partial = !per_channel;
        let like = inst.clone();
        moved.at.push(out.len() as u32);
        out.push(inst);
        if !prefilled {
            // A pre-filled payload has its header already: the instruction writes only the
            // data part.
            out.push(at(header(s, slot, lo, exec), &like));
        }
        let desc = SendDesc::new(Message::ScratchBlockWrite { regs }, 1 + regs, 0, true);
        let src = VSrc::Reg(VRef::new(s, 0, Type::UD));
        let mut w = VInst::new(Op::Send(desc), exec, None, [src, VSrc::Null, VSrc::Null]);
        w.no_mask = !per_channel;
        w.slot = Some(slot);
        w.role = Role::Spill;
        out.push(at(w, &like));
    }
    keep(len - next, &mut rest, &mut out, &mut moved);
    moved.first.push(out.len() as u32);
    p.insts = out;
    moved
}

/// Moves the next `run` instructions of `rest` to `out` as they are.
fn keep(run: usize, rest: &mut std::vec::IntoIter<VInst>, out: &mut Vec<VInst>, moved: &mut Moved) {
    let at = out.len() as u32;
    moved.first.extend(at..at + run as u32);
    moved.at.extend(at..at + run as u32);
    out.extend(rest.take(run));
}

/// A spilled register an instruction reads.
struct Read {
    /// Its place in the spill list.
    rank: usize,
    /// The first GRF of it read.
    lo: u8,
    /// One past the last GRF of it read.
    hi: u8,
    /// The temporary it is filled into.
    temp: VReg,
}

/// A header for GRF `within` of slot `slot` written into GRF 0 of `reg` (the header holds
/// `within` until [`assign_slots`] adds the slot's offset).
fn header(reg: VReg, slot: u32, within: u8, exec: ExecSize) -> VInst {
    let mut h = VInst::new(
        Op::Nop,
        exec,
        Some(VRef::new(reg, 0, Type::UD)),
        [VSrc::Null; 3],
    );
    h.op = VOp::LoadPayload(Payload {
        header: Some(u32::from(within)),
        srcs: Vec::new(),
        uniform: 0,
        no_mask: true,
    });
    h.no_mask = true;
    h.slot = Some(slot);
    h
}

/// Appends a fill of GRFs `within.0..within.0 + within.1` of `slot` into `reg` (before
/// `like`), naming the offset in the message's `descriptor` or else in a header of its own.
fn fill(
    p: &mut VProgram,
    out: &mut Vec<VInst>,
    like: &VInst,
    reg: VReg,
    within: (u8, u8),
    slot: u32,
    descriptor: bool,
) {
    let (first, size) = within;
    let at = |mut i: VInst| {
        i.depth = like.depth;
        i.loop_depth = like.loop_depth;
        i
    };
    let dst = VRef::new(reg, 0, Type::UD);
    let mut r = if descriptor {
        let g0 = VSrc::Fixed {
            grf: 0,
            ty: Type::UD,
        };
        block_read(g0, Some(first.into()), dst, size, slot, like.exec)
    } else {
        let h = p.new_reg(1, false);
        out.push(at(header(h, slot, first, like.exec)));
        let header = VSrc::Reg(VRef::new(h, 0, Type::UD));
        block_read(header, None, dst, size, slot, like.exec)
    };
    r.role = Role::Fill;
    out.push(at(r));
}

/// A scratch block read of `size` GRFs of `slot` into `dst` through `header`, at `offset`
/// within the slot in the descriptor or (`None`) at the header's.
fn block_read(
    header: VSrc,
    offset: Option<u16>,
    dst: VRef,
    size: u8,
    slot: u32,
    exec: ExecSize,
) -> VInst {
    let msg = Message::ScratchBlockRead { regs: size, offset };
    let desc = SendDesc::new(msg, 1, size, true);
    let mut r = VInst::new(
        Op::Send(desc),
        exec,
        Some(dst),
        [header, VSrc::Null, VSrc::Null],
    );
    r.no_mask = true;
    r.slot = Some(slot);
    r
}

/// Gives each spill slot a scratch offset (in GRFs, from `base`); rewrites the headers and
/// descriptors and returns the scratch GRFs the slots take. Slots whose live intervals overlap
/// get disjoint offsets ([`Plant::GenSpillSlotReuse`]: intervals from first write to last
/// read in program order, blind to loop back-edges). Slots some fill names in its descriptor
/// are placed first, among themselves: [`spill_regs`] made such fills only while all slots so
/// far fitted in the descriptor's 12 bits unshared, so they still do.
pub fn assign_slots(p: &mut VProgram, slots: &[u8], base: u32, plants: Plants) -> u32 {
    let n = slots.len();
    if n == 0 {
        return 0;
    }
    let mut iv = vec![(u32::MAX, 0u32); n];
    let mut widen = |k: usize, s: u32, e: u32| {
        iv[k].0 = iv[k].0.min(s);
        iv[k].1 = iv[k].1.max(e);
    };
    let access = |i: &VInst| -> Option<(usize, bool)> {
        let k = i.slot? as usize;
        match i.hw() {
            // A write kills the slot only when it writes all of it, every channel included:
            // NoMask, or masked at the top level, where every channel of the thread runs.
            Some(Op::Send(d)) => Some((
                k,
                matches!(d.msg, Message::ScratchBlockWrite { regs } if regs == slots[k])
                    && (i.no_mask || i.depth == 0),
            )),
            _ => None,
        }
    };
    // The slots some fill names in its descriptor.
    let mut named = vec![false; n];
    for (i, inst) in p.insts.iter().enumerate() {
        if let Some((k, write)) = access(inst) {
            named[k] |= matches!(
                inst.hw(),
                Some(Op::Send(SendDesc {
                    msg: Message::ScratchBlockRead {
                        offset: Some(_),
                        ..
                    },
                    ..
                }))
            );
            let pos = 2 * i as u32;
            if write {
                widen(k, pos + 1, pos + 2);
            } else {
                widen(k, pos, pos + 1);
            }
        }
    }
    if !plants.has(Plant::GenSpillSlotReuse) {
        if let Some(g) = flow::graph(&flows(&p.insts)) {
            let nb = g.len();
            let mut livein = vec![BitSet::new(n); nb];
            let mut liveout = vec![BitSet::new(n); nb];
            let mut changed = true;
            // One working set for every block (a fresh one per block and pass was most of
            // the cost on programs with many blocks).
            let mut live = BitSet::new(n);
            while changed {
                changed = false;
                for b in (0..nb).rev() {
                    live.0.iter_mut().for_each(|w| *w = 0);
                    for &s in &g.succs[b] {
                        live.union(&livein[s as usize]);
                    }
                    liveout[b].0.copy_from_slice(&live.0);
                    for i in g.range(b).rev() {
                        if let Some((k, write)) = access(&p.insts[i]) {
                            if write {
                                live.clear(k);
                            } else {
                                live.set(k);
                            }
                        }
                    }
                    if live != livein[b] {
                        livein[b].0.copy_from_slice(&live.0);
                        changed = true;
                    }
                }
            }
            for b in 0..nb {
                let r = g.range(b);
                let (first, last) = (r.start as u32, r.end as u32 - 1);
                for k in livein[b].iter() {
                    widen(k, 2 * first, 2 * first);
                }
                for k in liveout[b].iter() {
                    widen(k, 2 * last + 2, 2 * last + 2);
                }
            }
            for &(d, w) in &g.structure.loops {
                let exit = w as usize + 1;
                if exit < p.insts.len() {
                    for k in livein[g.block_of[exit] as usize].iter() {
                        widen(k, 2 * d, 2 * w + 2);
                    }
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&k| iv[k].0);
    let (first, rest): (Vec<usize>, Vec<usize>) = order.into_iter().partition(|&k| named[k]);
    let mut offset = vec![0u32; n];
    let mut live = Vec::new();
    let mut total = place(&first, slots, &iv, &mut offset, &mut live);
    if !rest.is_empty() {
        // The rest go around every slot of the first group, found again by overlap.
        live = first;
        live.sort_by_key(|&k| (offset[k], offset[k] + slots[k] as u32));
        total = total.max(place(&rest, slots, &iv, &mut offset, &mut live));
    }
    for inst in &mut p.insts {
        let Some(k) = inst.slot else { continue };
        let at = base + offset[k as usize];
        match &mut inst.op {
            VOp::LoadPayload(pl) => pl.header = Some(at + pl.header.unwrap_or(0)),
            VOp::Hw(Op::Send(SendDesc {
                msg:
                    Message::ScratchBlockRead {
                        offset: Some(o), ..
                    },
                ..
            })) => {
                let o32 = at + u32::from(*o);
                debug_assert!(o32 < SCRATCH_DESCRIPTOR_OFFSETS, "placed first");
                *o = o32 as u16;
            }
            _ => {}
        }
    }
    total
}

/// Places the slots of `order` (by start) greedily at the lowest offset free of every
/// overlapping slot in `live` (placed slots, kept by offset) or placed here; returns the
/// scratch GRFs they take. A slot that ends before the current one starts ends before every
/// later one starts too, so only the placed slots still live are looked at, in offset order
/// so that the first gap of `size` between them is a linear scan (all placed slots, sorted
/// for every slot, were quadratic in the spill count of a starved budget).
fn place(
    order: &[usize],
    slots: &[u8],
    iv: &[(u32, u32)],
    offset: &mut [u32],
    live: &mut Vec<usize>,
) -> u32 {
    let space = |o: usize, offset: &[u32]| (offset[o], offset[o] + slots[o] as u32);
    let mut total = 0u32;
    for &k in order {
        let size = slots[k] as u32;
        live.retain(|&o| iv[o].1 > iv[k].0);
        let mut at = 0u32;
        for &o in live
            .iter()
            .filter(|&&o| iv[o].0 < iv[k].1 && iv[k].0 < iv[o].1)
        {
            let (start, end) = space(o, offset);
            if start >= at + size {
                break;
            }
            at = at.max(end);
        }
        offset[k] = at;
        total = total.max(at + size);
        let place = live.partition_point(|&o| space(o, offset) <= space(k, offset));
        live.insert(place, k);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_entity::PrimaryMap;

    /// What an instruction of spill code is, in a word.
    fn shape(i: &VInst) -> String {
        match (&i.op, i.hw()) {
            (VOp::LoadPayload(pl), _) if pl.header.is_some() => "header".into(),
            (_, Some(Op::Send(d))) => match d.msg {
                Message::ScratchBlockRead {
                    offset: Some(o), ..
                } => format!("fill at {o} through g0"),
                Message::ScratchBlockRead { .. } if i.role == Role::PreFill => "pre-fill".into(),
                Message::ScratchBlockRead { .. } => "fill through header".into(),
                Message::ScratchBlockWrite { .. } if i.no_mask => "write whole".into(),
                Message::ScratchBlockWrite { .. } => "write enabled channels".into(),
                _ => "send".into(),
            },
            (_, Some(Op::Mov))
                if i.no_mask
                    && i.src[0]
                        == VSrc::Imm {
                            bits: 0,
                            ty: Type::UD,
                        } =>
            {
                "zeroes".into()
            }
            _ => format!("{:?}", i.hw().expect("hardware")),
        }
    }

    /// v0 = 1 (plain), v1 = 2 (NoMask, in an `if`), v2 = 3 (NoMask, top level), then
    /// v0 + v1 + v2, all three spilled: the three ways a write goes back, and the fills.
    fn spilled(gen: Gen) -> Vec<String> {
        let mut p = VProgram {
            regs: PrimaryMap::new(),
            insts: Vec::new(),
            var_scratch_grfs: 0,
            gen,
        };
        let v: Vec<VReg> = (0..4).map(|_| p.new_reg(1, true)).collect();
        let imm = |bits| VSrc::Imm { bits, ty: Type::UD };
        let def = |k: usize, bits, depth, no_mask| {
            let dst = Some(VRef::new(v[k], 0, Type::UD));
            let mut i = VInst::new(
                Op::Mov,
                ExecSize::S8,
                dst,
                [imm(bits), VSrc::Null, VSrc::Null],
            );
            i.depth = depth;
            i.no_mask = no_mask;
            i
        };
        let read = |k: usize| VSrc::Reg(VRef::new(v[k], 0, Type::UD));
        p.insts = vec![
            def(0, 1, 0, false),
            def(1, 2, 1, true),
            def(2, 3, 0, true),
            VInst::new(
                Op::Mad,
                ExecSize::S8,
                Some(VRef::new(v[3], 0, Type::UD)),
                [read(0), read(1), read(2)],
            ),
        ];
        spill_regs(&mut p, &[(v[0], 0), (v[1], 1), (v[2], 2)], 3);
        p.insts.iter().map(shape).collect()
    }

    /// The plain write goes back per channel; the NoMask ones whole, after a pre-fill in the
    /// `if` (whose header the write reuses) or zeroes at the top level. Fills name their
    /// offset in the descriptor on gen7 and build a header on gen9.
    #[test]
    fn writes_go_back_per_channel_or_whole_and_fills_take_gen_s_form() {
        let writes = [
            "Mov",
            "header",
            "write enabled channels",
            "header",
            "pre-fill",
            "Mov",
            "write whole",
            "zeroes",
            "Mov",
            "header",
            "write whole",
        ];
        let gen7 = ["fill at 0 through g0"; 3];
        assert_eq!(spilled(Gen::Gen7), [&writes[..], &gen7, &["Mad"]].concat());
        let gen9 = ["header", "fill through header"].repeat(3);
        assert_eq!(spilled(Gen::Gen9), [&writes[..], &gen9, &["Mad"]].concat());
    }
}
