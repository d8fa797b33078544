//! Phase 5: emit the `sim::gen::Program`: virtual registers become GRFs, `LoadPayload`s
//! become moves, jump targets are computed from the structure, the thread start zeroes the
//! scratch the program uses, and the thread ends with an EOT send.
//!
//! * Scratch initialisation (thread start, before any allocated code, so g3 and up are free):
//!   `mov(8) NoMask` zeroes into g4.., then per chunk of up to 8 GRFs a header (g0 copy with
//!   the offset in dword 2) in g3 and a scratch block write. Locals start at 0 as the IR says,
//!   and a spill pre-fill before a slot's first write reads defined data.
//! * EOT: if the last instruction is a send without response (an output write, say), it gets
//!   EOT; otherwise the thread ends with a one-GRF scratch block write from g3/g4 (header and a
//!   copy of g0, NoMask) carrying EOT — harmless, since nothing reads scratch afterwards.
//! * Every emitted instruction gets an [`Annot`]: which virtual register (and GRF of it) each
//!   operand stood for. The checker reads only that and the code.

use super::checker::Annot;
use super::flow::{self, Flow};
use super::ra::{Allocation, FIRST_GRF};
use super::vinst::{VOp, VProgram, VRef, VSrc};
use super::CompileError;
use crate::executed::Role;
use cranelift_entity::EntityRef;
use sim::gen::{Dst, ExecSize, Gen, Inst, Message, Op, Program, SendDesc, Src, Type};

/// The emitted program and its annotations.
pub struct Emitted {
    /// The program.
    pub program: Program,
    /// One annotation per instruction.
    pub annots: Vec<Annot>,
    /// One role per instruction (spill code's scratch messages; the rest `Program`).
    pub roles: Vec<Role>,
}

struct Emitter<'a> {
    a: &'a Allocation,
    insts: Vec<Inst>,
    annots: Vec<Annot>,
    roles: Vec<Role>,
}

impl Emitter<'_> {
    fn grf(&self, r: &VRef) -> u8 {
        let base = self.a.grf.get(r.reg.index()).copied().unwrap_or(u8::MAX);
        let base = if base == u8::MAX { FIRST_GRF } else { base };
        base.saturating_add(r.off).min(127)
    }

    fn src(&self, s: &VSrc) -> (Src, Option<(u32, u8)>) {
        match *s {
            VSrc::Null => (Src::Null, None),
            VSrc::Imm { bits, ty } => (Src::Imm { bits, ty }, None),
            VSrc::Fixed { grf, ty } => (Src::grf(grf, ty), None),
            VSrc::Reg(r) => {
                let mut g = match r.scalar {
                    Some(dword) => Src::scalar(self.grf(&r), dword, r.ty),
                    None => Src::grf(self.grf(&r), r.ty),
                };
                if r.neg {
                    g = g.negated();
                }
                if r.abs {
                    g = g.absolute();
                }
                (g, Some((r.orig.as_u32(), r.orig_off)))
            }
        }
    }

    fn push(&mut self, inst: Inst, annot: Annot) {
        self.insts.push(inst);
        self.annots.push(annot);
        self.roles.push(Role::Program);
    }

    /// `mov(8) NoMask g<h>, g0` then `mov(1) NoMask g<h>.2, offset`.
    fn header(&mut self, h: u8, offset: u32) {
        let m = Inst::unary(
            Op::Mov,
            ExecSize::S8,
            Dst::grf(h, Type::UD),
            Src::grf(0, Type::UD),
        );
        self.push(m.no_mask(), Annot::default());
        let d = Dst::Grf {
            reg: h,
            subreg: 2,
            ty: Type::UD,
        };
        let m = Inst::unary(Op::Mov, ExecSize::S1, d, Src::ud(offset));
        self.push(m.no_mask(), Annot::default());
    }
}

/// Emits `p` under allocation `a`. `scratch_grfs`: GRFs of scratch to zero at thread start.
pub fn emit(
    p: &VProgram,
    a: &Allocation,
    width: ExecSize,
    gen: Gen,
    budget: u32,
    scratch_grfs: u32,
) -> Result<Emitted, CompileError> {
    let data = budget.saturating_sub(1).min(8) as u8;
    let len = emitted_len(p, scratch_grfs, data);
    let mut e = Emitter {
        a,
        insts: Vec::with_capacity(len),
        annots: Vec::with_capacity(len),
        roles: Vec::with_capacity(len),
    };
    if scratch_grfs > 0 {
        for j in 0..data {
            let m = Inst::unary(
                Op::Mov,
                ExecSize::S8,
                Dst::grf(FIRST_GRF + 1 + j, Type::UD),
                Src::ud(0),
            );
            e.push(m.no_mask(), Annot::default());
        }
        let mut at = 0;
        while at < scratch_grfs {
            let regs = (scratch_grfs - at).min(data as u32) as u8;
            e.header(FIRST_GRF, at);
            let desc = SendDesc::new(Message::ScratchBlockWrite { regs }, 1 + regs, 0, true);
            let s = Inst::send(width, Dst::Null(Type::UD), FIRST_GRF, desc);
            e.push(s.no_mask(), Annot::default());
            at += regs as u32;
        }
    }
    for vi in &p.insts {
        match &vi.op {
            VOp::LoadPayload(pl) => {
                let d = vi.dst.expect("payload destination");
                let base = e.grf(&d);
                let mut k = 0u8;
                if let Some(off) = pl.header {
                    e.header(base, off);
                    k = 1;
                }
                let per = vi.exec.regs() as u8;
                for s in &pl.srcs {
                    let (src, sa) = e.src(s);
                    let dst = Dst::grf(base + k, Type::UD);
                    let src = match src {
                        Src::Imm { bits, .. } => Src::ud(bits),
                        Src::Grf(mut g) => {
                            g.ty = Type::UD;
                            Src::Grf(g)
                        }
                        s => s,
                    };
                    let mut m = Inst::unary(Op::Mov, vi.exec, dst, src);
                    m.no_mask = pl.no_mask;
                    let annot = Annot {
                        dst: Some((d.orig.as_u32(), d.orig_off + k)),
                        src: [sa, None, None],
                    };
                    e.push(m, annot);
                    k += per;
                }
            }
            VOp::Hw(op) => {
                let (dst, da) = match &vi.dst {
                    Some(d) => (
                        Dst::grf(e.grf(d), d.ty),
                        Some((d.orig.as_u32(), d.orig_off)),
                    ),
                    None => (Dst::Null(Type::UD), None),
                };
                let mut src = [Src::Null; 3];
                let mut sa = [None; 3];
                for k in 0..3 {
                    (src[k], sa[k]) = e.src(&vi.src[k]);
                }
                let block = matches!(
                    op,
                    Op::Send(SendDesc {
                        msg: Message::ScratchBlockRead { .. } | Message::ScratchBlockWrite { .. },
                        ..
                    })
                );
                let annot = if block {
                    Annot::default()
                } else {
                    Annot { dst: da, src: sa }
                };
                let mut inst = Inst::new(*op, vi.exec, dst, src);
                inst.no_mask = vi.no_mask;
                inst.pred = vi.pred;
                inst.cmod = vi.cmod;
                e.push(inst, annot);
                if let Some(r) = e.roles.last_mut() {
                    *r = vi.role;
                }
            }
        }
    }
    let ends_with_send =
        matches!(e.insts.last(), Some(Inst { op: Op::Send(d), .. }) if d.rlen == 0);
    if ends_with_send {
        if let Some(Inst {
            op: Op::Send(d), ..
        }) = e.insts.last_mut()
        {
            d.eot = true;
        }
    } else {
        e.header(FIRST_GRF, 0);
        let m = Inst::unary(
            Op::Mov,
            ExecSize::S8,
            Dst::grf(FIRST_GRF + 1, Type::UD),
            Src::grf(0, Type::UD),
        );
        e.push(m.no_mask(), Annot::default());
        let mut desc = SendDesc::new(Message::ScratchBlockWrite { regs: 1 }, 2, 0, true);
        desc.eot = true;
        let s = Inst::send(width, Dst::Null(Type::UD), FIRST_GRF, desc);
        e.push(s.no_mask(), Annot::default());
    }
    resolve_jumps(&mut e.insts)?;
    Ok(Emitted {
        program: Program {
            width,
            gen,
            insts: e.insts,
        },
        annots: e.annots,
        roles: e.roles,
    })
}

/// How many instructions [`emit`] makes of `p` at most, so that its lists are allocated once
/// (grown push by push, their copies cost more than the emitting on spilling programs): the
/// scratch zeroing (`data` GRFs a message), one per instruction, a payload's moves and
/// header, and the end of the thread.
fn emitted_len(p: &VProgram, scratch_grfs: u32, data: u8) -> usize {
    let zeroing = if scratch_grfs > 0 {
        data as usize + 3 * scratch_grfs.div_ceil(data.max(1) as u32) as usize
    } else {
        0
    };
    let body: usize = p
        .insts
        .iter()
        .map(|i| match &i.op {
            VOp::LoadPayload(pl) => 2 * pl.header.is_some() as usize + pl.srcs.len(),
            VOp::Hw(_) => 1,
        })
        .sum();
    zeroing + body + 4
}

/// Fills in JIP/UIP from the structure.
fn resolve_jumps(insts: &mut [Inst]) -> Result<(), CompileError> {
    let flows: Vec<Flow> = insts.iter().map(|i| Flow::of(Some(i.op), i.pred)).collect();
    let s = flow::structure(&flows).ok_or(CompileError::Unstructured)?;
    for (i, inst) in insts.iter_mut().enumerate() {
        let p = s.partner[i];
        inst.op = match inst.op {
            Op::If { .. } => {
                let endif = s.endif[i];
                Op::If {
                    jip: if p != u32::MAX { p } else { endif },
                    uip: endif,
                }
            }
            Op::Else { .. } => Op::Else { jip: p },
            Op::While { .. } => Op::While { jip: p + 1 },
            Op::Break { .. } => Op::Break { uip: p },
            Op::Cont { .. } => Op::Cont { uip: p },
            op => op,
        };
    }
    Ok(())
}
