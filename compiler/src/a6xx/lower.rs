//! Phase 1, `lower`: IR → scalar virtual ir3 code in blocks with explicit terminators.
//!
//! Every IR block becomes one virtual block, in program order (so the layout is the
//! structured order: an `if` block falls through into its then-list, a loop's back-edges are
//! the only edges going up). Each SSA component gets its own virtual register; constants,
//! `mov`/`vec` swizzles and the invocation id are aliases, not instructions. Booleans are 0/1
//! GPR values; an `if` condition becomes `cmps.s.ne p, c, 0` and `br !p, else`
//! (`opt_predicates` cleans that up). Phis become parallel copies at the ends of their
//! predecessors: there are no critical edges in structured control flow (a conditional
//! branch only goes to then/else heads, which have one predecessor), so the copies never run
//! on a path that does not enter the phi's block. Unreachable blocks become empty `end`
//! blocks. Local variables live in private memory (zeroed at entry); array indices wrap at
//! the array length at run time (`and` for powers of two, else `umod`).

use super::lower_alu::{alu, alu2, Out};
use super::vir::{BrKind, Class, Dst, Opnd, PCond, POp, Term, VBlock, VFunc, VInst, VReg, NO_PHYS};
use super::CompileError;
use crate::ir::AluOp;
use crate::ir::{self, CfNode, Cfg, InstKind, Value, VarType};
use cranelift_entity::EntityRef;
use sim::a6xx::{Binary, CmpCond, CmpType, DivOp, Space};

/// Words of private memory every program is given per fiber, at least: the simulator is
/// given more when a program's locals and spill slots need it ([`super::Compiled::sim_config`]),
/// as freedreno and turnip size private memory from each shader's own `pvtmem_size`.
pub const PRIVATE_WORDS: u32 = 1024;

/// The most private memory a fiber can be given (128 KiB): a program whose locals and spill
/// slots need more cannot run. Far more than any case needs; below it, how much spill slots
/// take is the compiler's own business, so heavy spilling is no false `PrivateMemory`.
pub const MAX_PRIVATE_WORDS: u32 = 32768;

/// Words of private memory local variables may take (half of what every program is given).
pub const MAX_LOCAL_WORDS: u32 = PRIVATE_WORDS / 2;

/// A deref: word address `dynamic + offset` in private memory, pointing at `ty`.
#[derive(Clone)]
struct Ptr {
    dynamic: Option<VReg>,
    offset: u32,
    ty: VarType,
}

pub(super) struct Lower<'a> {
    prog: &'a ir::Program,
    cfg: Cfg,
    pub(super) out: VFunc,
    vals: Vec<Vec<Opnd>>,
    ptrs: Vec<Option<Ptr>>,
    bmap: Vec<usize>,
    var_base: Vec<u32>,
    vid: VReg,
    pub(super) cur: usize,
    /// Components of each texture result the program reads.
    pub(super) tex_reads: std::collections::HashMap<Value, u8>,
}

/// Lowers a verified SSA program.
pub fn lower(prog: &ir::Program) -> Result<VFunc, CompileError> {
    let f = &prog.func;
    let cfg = Cfg::compute(f);
    let order = f.blocks_in_order();
    let mut bmap = vec![usize::MAX; f.blocks.len()];
    for (i, b) in order.iter().enumerate() {
        bmap[b.index()] = i;
    }
    let mut var_base = Vec::new();
    let mut words = 0u32;
    for (_, t) in f.vars.iter() {
        var_base.push(words);
        words = words.saturating_add(t.words());
    }
    if words > MAX_LOCAL_WORDS {
        return Err(CompileError::PrivateMemory {
            what: "local variables".into(),
            words,
            available: MAX_LOCAL_WORDS,
        });
    }
    let mut out = VFunc {
        blocks: vec![VBlock::default(); order.len().max(1)],
        class: Vec::new(),
        local_words: words,
        is_bool: Vec::new(),
    };
    let vid = out.new_reg(Class::Gpr);
    let mut l = Lower {
        prog,
        tex_reads: ir::texture_reads(f),
        cfg,
        out,
        vals: vec![Vec::new(); f.values.len()],
        ptrs: vec![None; f.values.len()],
        bmap,
        var_base,
        vid,
        cur: 0,
    };
    l.emit(VInst::InvocationId { dst: vid });
    if words > 0 {
        let z = l.new_gpr();
        l.emit(VInst::Mov {
            dst: z,
            src: Opnd::Imm(0),
        });
        for w in 0..words {
            l.emit(VInst::Store {
                space: Space::Private,
                base: None,
                offset: w as i32,
                src: z,
            });
        }
    }
    for &b in &order {
        l.cur = l.bmap[b.index()];
        if !l.cfg.is_reachable(b) {
            continue;
        }
        for &inst in &f.blocks[b].insts {
            l.inst(inst)?;
        }
    }
    l.structure(&f.body, None, None)?;
    l.phis(&order);
    for blk in &mut l.out.blocks {
        if blk.term.is_none() {
            blk.term = Some(Term::End);
        }
    }
    Ok(l.out)
}

impl Out for Lower<'_> {
    fn new_gpr(&mut self) -> VReg {
        self.out.new_reg(Class::Gpr)
    }

    fn emit(&mut self, i: VInst) {
        self.out.blocks[self.cur].insts.push(i);
    }
}

impl Lower<'_> {
    /// A register holding `o` (a `mov` for constants).
    pub(super) fn in_reg(&mut self, o: Opnd) -> VReg {
        match o {
            Opnd::V(v) => v,
            _ => {
                let d = self.new_gpr();
                self.emit(VInst::Mov { dst: d, src: o });
                d
            }
        }
    }

    fn val(&self, v: Value) -> Result<&[Opnd], CompileError> {
        match self.vals.get(v.index()) {
            Some(x) if !x.is_empty() => Ok(x),
            _ => Err(CompileError::Unsupported(format!(
                "{v} used before its definition"
            ))),
        }
    }

    /// Component `c` of a shared access to `array` at `index`: the index wrapped at the
    /// array's length (`and` for a power of two, else `umod`) in a register, and the array's
    /// first word in local memory (the arrays lie back to back); none for an empty array.
    fn shared_address(
        &mut self,
        array: u32,
        index: Value,
        c: u32,
    ) -> Result<Option<(VReg, i32)>, CompileError> {
        let lens = &self.prog.dispatch.shared;
        let Some(&len) = lens.get(array as usize) else {
            return Err(CompileError::Unsupported(format!(
                "no shared array {array}"
            )));
        };
        if len == 0 {
            return Ok(None);
        }
        let base: u32 = lens[..array as usize].iter().sum();
        let mut w = self.comp(index, 0)?;
        if c > 0 {
            w = alu(self, AluOp::Iadd, [w, Opnd::Imm(c), w]);
        }
        w = match len.is_power_of_two() {
            true => alu(self, AluOp::Iand, [w, Opnd::Imm(len - 1), w]),
            false => alu(self, AluOp::Umod, [w, Opnd::Imm(len), w]),
        };
        Ok(Some((self.in_reg(w), base as i32)))
    }

    pub(super) fn comp(&self, v: Value, c: usize) -> Result<Opnd, CompileError> {
        let x = self.val(v)?;
        Ok(x[c.min(x.len() - 1)])
    }

    fn ptr(&self, v: Value) -> Result<Ptr, CompileError> {
        self.ptrs
            .get(v.index())
            .cloned()
            .flatten()
            .ok_or_else(|| CompileError::Unsupported(format!("{v} is not a deref")))
    }

    fn inst(&mut self, inst: ir::Inst) -> Result<(), CompileError> {
        let f = &self.prog.func;
        let data = &f.insts[inst];
        let res = data.result.expand();
        let comps = res.map(|v| f.ty(v).comps() as usize).unwrap_or(0);
        let mut out: Vec<Opnd> = Vec::new();
        match &data.kind {
            InstKind::Const { bits } => out.extend(bits[..comps].iter().map(|&b| Opnd::Imm(b))),
            InstKind::Alu { op, args } => {
                for c in 0..comps {
                    let mut a = [Opnd::Imm(0); 3];
                    for (k, slot) in a.iter_mut().enumerate().take(op.arity()) {
                        *slot = self.comp(args[k], c)?;
                    }
                    out.push(alu(self, *op, a));
                }
            }
            InstKind::Vec { args } => {
                for &a in &args[..comps] {
                    out.push(self.comp(a, 0)?);
                }
            }
            InstKind::Mov { src, swizzle } => {
                for &s in &swizzle[..comps] {
                    out.push(self.comp(*src, s as usize)?);
                }
            }
            InstKind::Phi { .. } => {
                for _ in 0..comps {
                    out.push(Opnd::V(self.new_gpr()));
                }
            }
            InstKind::InvocationId => out.push(Opnd::V(self.vid)),
            InstKind::LocalId | InstKind::WorkgroupId => {
                // Aligned workgroups of a power-of-two size: the id's low and high bits.
                let size = self.prog.dispatch.workgroup.max(1);
                let id = Opnd::V(self.vid);
                out.push(match data.kind {
                    InstKind::LocalId => alu(self, AluOp::Iand, [id, Opnd::Imm(size - 1), id]),
                    _ => alu(
                        self,
                        AluOp::Ushr,
                        [id, Opnd::Imm(size.trailing_zeros()), id],
                    ),
                });
            }
            // A wave holds whole workgroups and runs in lockstep; its loads land in order
            // behind `(sy)`: nothing to wait for.
            InstKind::Barrier => {}
            InstKind::LoadShared { shared, index } => {
                for c in 0..comps as u32 {
                    out.push(match self.shared_address(*shared, *index, c)? {
                        Some((at, base)) => {
                            let dst = self.new_gpr();
                            self.emit(VInst::Load {
                                space: Space::Local,
                                dst,
                                base: Some(at),
                                offset: base,
                            });
                            Opnd::V(dst)
                        }
                        None => Opnd::Imm(0),
                    });
                }
            }
            InstKind::StoreShared {
                shared,
                index,
                value,
            } => {
                for c in 0..f.ty(*value).comps() as usize {
                    let Some((at, base)) = self.shared_address(*shared, *index, c as u32)? else {
                        continue;
                    };
                    let src = self.comp(*value, c)?;
                    let src = self.in_reg(src);
                    self.emit(VInst::Store {
                        space: Space::Local,
                        base: Some(at),
                        offset: base,
                        src,
                    });
                }
            }
            InstKind::AtomicBuffer { .. } | InstKind::AtomicShared { .. } => {
                let what = data.kind.name();
                return Err(CompileError::Unsupported(format!("{what}: no atomics")));
            }
            InstKind::Subgroup { .. } => {
                let what = data.kind.name();
                return Err(CompileError::Unsupported(format!(
                    "{what}: no subgroup operations"
                )));
            }
            InstKind::LoadUniform { index } => {
                let n = self.prog.dispatch.uniforms.len() as u32;
                let idx = self.comp(*index, 0)?;
                for c in 0..comps as u32 {
                    out.push(match idx {
                        _ if n == 0 => Opnd::Imm(0),
                        Opnd::Imm(k) => Opnd::Const((k.wrapping_add(c) % n) as u16),
                        _ => {
                            let base = self.in_reg(idx);
                            let dst = self.new_gpr();
                            let i = VInst::Load {
                                space: Space::Uniform,
                                dst,
                                base: Some(base),
                                offset: c as i32,
                            };
                            self.emit(i);
                            Opnd::V(dst)
                        }
                    });
                }
            }
            InstKind::LoadBuffer { buffer, index } => {
                let base = self.comp(*index, 0)?;
                let base = self.in_reg(base);
                for c in 0..comps {
                    let dst = self.new_gpr();
                    let space = Space::Global(*buffer as u8);
                    self.emit(VInst::Load {
                        space,
                        dst,
                        base: Some(base),
                        offset: c as i32,
                    });
                    out.push(Opnd::V(dst));
                }
            }
            InstKind::StoreBuffer {
                buffer,
                index,
                value,
            } => {
                let base = self.comp(*index, 0)?;
                let base = self.in_reg(base);
                for c in 0..f.ty(*value).comps() as usize {
                    let src = self.comp(*value, c)?;
                    let src = self.in_reg(src);
                    let space = Space::Global(*buffer as u8);
                    self.emit(VInst::Store {
                        space,
                        base: Some(base),
                        offset: c as i32,
                        src,
                    });
                }
            }
            InstKind::StoreOutput { slot, value } => {
                for c in 0..f.ty(*value).comps() as usize {
                    let src = self.comp(*value, c)?;
                    let src = self.in_reg(src);
                    let offset = slot.wrapping_add(c as u32) as i32;
                    self.emit(VInst::Store {
                        space: Space::Output,
                        base: None,
                        offset,
                        src,
                    });
                }
            }
            InstKind::Tex { .. } | InstKind::Txf { .. } | InstKind::Txs { .. } => {
                self.texture(&data.kind, res, &mut out)?;
            }
            InstKind::DerefVar { var } => {
                let ty = f.vars[*var].clone();
                let offset = self.var_base[var.index()];
                self.set_ptr(
                    res,
                    Ptr {
                        dynamic: None,
                        offset,
                        ty,
                    },
                );
            }
            InstKind::DerefArray { parent, index } => {
                let p = self.ptr(*parent)?;
                let (elem, len) = match &p.ty {
                    VarType::Array(e, l) => ((**e).clone(), (*l).max(1)),
                    t => (t.clone(), 1),
                };
                let ew = elem.words();
                let idx = self.comp(*index, 0)?;
                let mut ptr = Ptr {
                    dynamic: p.dynamic,
                    offset: p.offset,
                    ty: elem,
                };
                if let Opnd::Imm(k) = idx {
                    ptr.offset += (k % len) * ew;
                } else {
                    let w = if len.is_power_of_two() {
                        alu2(self, Binary::AndB, idx, Opnd::Imm(len - 1))
                    } else {
                        let d = self.new_gpr();
                        self.emit(VInst::Div {
                            op: DivOp::Umod,
                            dst: d,
                            a: idx,
                            b: Opnd::Imm(len),
                        });
                        Opnd::V(d)
                    };
                    let scaled = match ew {
                        1 => w,
                        _ if ew.is_power_of_two() => {
                            alu2(self, Binary::ShlB, w, Opnd::Imm(ew.trailing_zeros()))
                        }
                        _ => alu2(self, Binary::MulLU, w, Opnd::Imm(ew)),
                    };
                    let sum = match p.dynamic {
                        Some(d) => alu2(self, Binary::AddU, Opnd::V(d), scaled),
                        None => scaled,
                    };
                    ptr.dynamic = Some(self.in_reg(sum));
                }
                self.set_ptr(res, ptr);
            }
            InstKind::DerefStruct { parent, field } => {
                let p = self.ptr(*parent)?;
                let off = p.ty.field_offset(*field).unwrap_or(0);
                let ty = match &p.ty {
                    VarType::Struct(fs) => fs.get(*field as usize).cloned().unwrap_or(p.ty.clone()),
                    t => t.clone(),
                };
                self.set_ptr(
                    res,
                    Ptr {
                        dynamic: p.dynamic,
                        offset: p.offset + off,
                        ty,
                    },
                );
            }
            InstKind::DerefCast { parent, ty } => {
                let p = self.ptr(*parent)?;
                self.set_ptr(
                    res,
                    Ptr {
                        ty: ty.clone(),
                        ..p
                    },
                );
            }
            InstKind::LoadDeref { deref } => {
                let p = self.ptr(*deref)?;
                for c in 0..comps as u32 {
                    let dst = self.new_gpr();
                    let offset = (p.offset + c) as i32;
                    self.emit(VInst::Load {
                        space: Space::Private,
                        dst,
                        base: p.dynamic,
                        offset,
                    });
                    out.push(Opnd::V(dst));
                }
            }
            InstKind::StoreDeref { deref, value } => {
                let p = self.ptr(*deref)?;
                for c in 0..f.ty(*value).comps() as u32 {
                    let src = self.comp(*value, c as usize)?;
                    let src = self.in_reg(src);
                    let offset = (p.offset + c) as i32;
                    self.emit(VInst::Store {
                        space: Space::Private,
                        base: p.dynamic,
                        offset,
                        src,
                    });
                }
            }
            InstKind::LoadReg { .. } | InstKind::StoreReg { .. } => {
                return Err(CompileError::Unsupported(
                    "registers (load_reg/store_reg): the a6xx backend consumes SSA".into(),
                ))
            }
            InstKind::Break | InstKind::Continue => {}
        }
        if let Some(v) = res {
            if f.ty(v).bits() == Some(ir::BitSize::B1) {
                for o in &out {
                    if let Opnd::V(r) = o {
                        self.out.is_bool[*r as usize] = true;
                    }
                }
            }
            if !out.is_empty() {
                self.vals[v.index()] = out;
            }
        }
        Ok(())
    }

    fn set_ptr(&mut self, res: Option<Value>, p: Ptr) {
        if let Some(v) = res {
            self.ptrs[v.index()] = Some(p);
        }
    }

    /// Sets every block's terminator from the control-flow tree. `cont` is where control
    /// goes off the end of `list`; `lp` is (header, exit) of the innermost loop.
    fn structure(
        &mut self,
        list: &[CfNode],
        cont: Option<usize>,
        lp: Option<(usize, Option<usize>)>,
    ) -> Result<(), CompileError> {
        let f = &self.prog.func;
        for (i, node) in list.iter().enumerate() {
            let after = match list.get(i + 1) {
                Some(n) => Some(self.first(n)),
                None => cont,
            };
            match node {
                CfNode::Block(b) => {
                    let vb = self.bmap[b.index()];
                    if !self.cfg.is_reachable(*b) {
                        continue;
                    }
                    let last = f.blocks[*b].insts.last().map(|&i| &f.insts[i].kind);
                    let term = match last {
                        Some(InstKind::Break) => lp.and_then(|l| l.1).map(Term::Jump),
                        Some(InstKind::Continue) => lp.map(|l| Term::Jump(l.0)),
                        _ => match list.get(i + 1) {
                            Some(CfNode::If(n)) => {
                                self.cur = vb;
                                let c = self.comp(n.cond, 0)?;
                                Some(self.branch_on(c, &n.then_list, &n.else_list))
                            }
                            _ => after.map(Term::Jump),
                        },
                    };
                    self.out.blocks[vb].term = Some(term.unwrap_or(Term::End));
                }
                CfNode::If(n) => {
                    self.structure(&n.then_list, after, lp)?;
                    self.structure(&n.else_list, after, lp)?;
                }
                CfNode::Loop(l) => {
                    let header = l.body.first().map(|n| self.first(n));
                    if let Some(h) = header {
                        self.structure(&l.body, Some(h), Some((h, after)))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// `cmps.s.ne p, c, 0; br !p, else` at the end of the current block.
    fn branch_on(&mut self, c: Opnd, then_list: &[CfNode], else_list: &[CfNode]) -> Term {
        let p = self.out.new_reg(Class::Pred);
        let pop = POp {
            v: p,
            phys: NO_PHYS,
        };
        self.emit(VInst::Cmps {
            ty: CmpType::S,
            cond: CmpCond::Ne,
            dst: Dst::P(pop),
            a: c,
            b: Opnd::Imm(0),
        });
        let fall = then_list
            .first()
            .map(|n| self.first(n))
            .unwrap_or(self.cur + 1);
        let taken = else_list.first().map(|n| self.first(n)).unwrap_or(fall);
        Term::Branch {
            kind: BrKind::Br,
            a: PCond { p: pop, inv: true },
            b: None,
            taken,
            fall,
        }
    }

    fn first(&self, n: &CfNode) -> usize {
        match n {
            CfNode::Block(b) => self.bmap[b.index()],
            CfNode::Loop(l) => l.body.first().map_or(usize::MAX, |n| self.first(n)),
            CfNode::If(_) => usize::MAX,
        }
    }

    /// Phi sources become parallel copies at the ends of the predecessors.
    fn phis(&mut self, order: &[ir::Block]) {
        let f = &self.prog.func;
        for &b in order {
            if !self.cfg.is_reachable(b) {
                continue;
            }
            for &inst in &f.blocks[b].insts {
                let InstKind::Phi { sources } = &f.insts[inst].kind else {
                    continue;
                };
                let Some(res) = f.insts[inst].result.expand() else {
                    continue;
                };
                let dsts = self.vals[res.index()].clone();
                for s in sources {
                    if !self.cfg.is_reachable(s.pred) {
                        continue;
                    }
                    let pb = self.bmap[s.pred.index()];
                    for (c, d) in dsts.iter().enumerate() {
                        let (Opnd::V(d), Ok(src)) = (d, self.comp(s.value, c)) else {
                            continue;
                        };
                        self.out.blocks[pb].copies.push((*d, src));
                    }
                }
            }
        }
    }
}
