//! Phase 1: IR → virtual Gen instructions.
//!
//! Every IR value becomes one *component* per vector element: an immediate (constants), the
//! invocation-id payload register g1 (g1–g2), or a GRF offset of a virtual register. `vecN`
//! and `mov` only rename components, no code: a component's register is either written once
//! (SSA results) or, for IR registers, by copies only.
//!
//! * Booleans live in GRFs as 0 / 0xffffffff (what `cmp` writes); `if`, `bcsel` and the
//!   fix-ups read them through `cmp.nz f0.0` right before the predicated instruction, so no
//!   flag is live across other code and none needs allocating.
//! * The input is in register form: out-of-SSA (`passes::to_registers`) has turned phis into
//!   `load_reg`/`store_reg`, so parallel copies and their swap problem are `from_ssa`'s alone
//!   and the fuzz oracle tests them there. Each IR register maps to virtual registers written
//!   and read by copies; they start at 0 as the IR says (dead zeroing is removed). A phi is
//!   refused as unsupported input.
//! * Control flow is Gen's: `if`/`else`/`endif`, `do`/`while`, unpredicated `break`/`cont`
//!   inside the `if` that guards them.
//! * Memory: uniforms, buffers and outputs go through the data port, textures through sampler
//!   messages, dynamically indexed locals through scattered scratch messages
//!   ([`super::lower_mem`]); ALU ops in [`super::lower_alu`].

use super::spill::MAX_SPILL_GRFS;
use super::vinst::{Payload, VInst, VOp, VProgram, VRef, VReg, VSrc};
use super::CompileError;
use crate::ir::{self, Block, CfNode, Function, InstKind, Value, VarType};
use cranelift_entity::{PrimaryMap, SecondaryMap};
use sim::gen::{CondMod, ExecSize, Gen, Op, Pred, Type};
use std::collections::{HashMap, HashSet};

/// One component of a lowered value.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Comp {
    /// Not (yet) defined.
    #[default]
    None,
    /// A constant.
    Imm(u32),
    /// A thread-payload register.
    Fixed(u8),
    /// GRF offset `.1` of a virtual register.
    Reg(VReg, u8),
}

/// A lowered IR value.
pub type Comps = [Comp; 4];

/// Compile-time view of a deref: variable, constant word offset, dynamic word offset.
#[derive(Clone, Debug)]
pub(super) struct Deref {
    pub var: ir::Var,
    pub off: u32,
    pub dynamic: Option<Comp>,
    pub ty: VarType,
}

/// A sampler payload's identity: header dword 2 (if any) and the parameters.
pub(super) type PayloadKey = (Option<u32>, Vec<VSrc>);

/// The lowering context.
pub(super) struct Lower<'a> {
    pub f: &'a Function,
    pub p: VProgram,
    pub width: ExecSize,
    pub gen: Gen,
    pub vals: SecondaryMap<Value, Comps>,
    pub derefs: HashMap<Value, Deref>,
    pub regs: SecondaryMap<ir::Reg, Comps>,
    pub var_base: SecondaryMap<ir::Var, u32>,
    /// Registers written more than once (IR registers): never cached.
    pub multi_def: HashSet<VReg>,
    /// Registers holding uniform loads.
    pub uniform_regs: HashSet<VReg>,
    /// Sampler payloads built in the current block, for reuse (keyed by header and sources).
    pub payload_cache: Vec<(PayloadKey, VReg)>,
    /// The dispatch: its textures' sizes (the computed-lod fallback of gradients), its
    /// workgroup size and shared arrays.
    pub dispatch: &'a sim::dispatch::Dispatch,
    /// Which result components of each texture instruction are read (bit per component).
    pub read_comps: HashMap<Value, u8>,
    /// Planted bugs (the lowering's own).
    pub plants: crate::planted::Plants,
    depth: u8,
    loop_depth: u8,
}

/// Lowers `f` for dispatch width `width` on generation `gen`.
pub fn lower(
    f: &Function,
    dispatch: &sim::dispatch::Dispatch,
    width: ExecSize,
    gen: Gen,
    plants: crate::planted::Plants,
) -> Result<VProgram, CompileError> {
    let mut l = Lower {
        f,
        plants,
        dispatch,
        read_comps: ir::texture_reads(f),
        // Most IR instructions lower to one or two: reserved up front, the list is not
        // copied again and again as it grows (a sixth of lowering on `gpufuzz bench`).
        p: VProgram {
            regs: PrimaryMap::new(),
            insts: Vec::with_capacity(2 * f.insts.len()),
            var_scratch_grfs: 0,
            gen,
        },
        width,
        gen,
        vals: SecondaryMap::new(),
        derefs: HashMap::new(),
        regs: SecondaryMap::new(),
        var_base: SecondaryMap::new(),
        multi_def: HashSet::new(),
        uniform_regs: HashSet::new(),
        payload_cache: Vec::new(),
        depth: 0,
        loop_depth: 0,
    };
    l.prepare()?;
    l.list(&f.body)?;
    Ok(l.p)
}

fn unsupported(what: impl Into<String>) -> CompileError {
    CompileError::Unsupported(what.into())
}

impl Lower<'_> {
    /// Per-lane GRFs of a 32-bit value.
    pub fn per(&self) -> u8 {
        self.width.regs() as u8
    }

    /// Variables and registers get their storage before any code.
    fn prepare(&mut self) -> Result<(), CompileError> {
        let lanes = self.width.lanes();
        let mut dwords = 0u32;
        for (var, ty) in self.f.vars.iter() {
            self.var_base[var] = dwords;
            dwords = dwords
                .checked_add(ty.words().saturating_mul(lanes))
                .filter(|&d| d <= 1 << 20)
                .ok_or_else(|| unsupported("local variables too large for scratch"))?;
        }
        self.p.var_scratch_grfs = dwords.div_ceil(8);
        for (reg, ty) in self.f.regs.iter() {
            let mut c = [Comp::None; 4];
            for slot in c.iter_mut().take(ty.comps() as usize) {
                let r = self.new_reg(self.per());
                self.multi_def.insert(r);
                *slot = Comp::Reg(r, 0);
                self.mov_to(
                    r,
                    VSrc::Imm {
                        bits: 0,
                        ty: Type::UD,
                    },
                );
            }
            self.regs[reg] = c;
        }
        Ok(())
    }

    /// A fresh spillable register.
    pub fn new_reg(&mut self, size: u8) -> VReg {
        self.p.new_reg(size, true)
    }

    /// Appends an instruction at the current nesting.
    pub fn emit(&mut self, mut inst: VInst) {
        inst.depth = self.depth;
        inst.loop_depth = self.loop_depth;
        self.p.insts.push(inst);
    }

    /// A source operand for component `c` read as `ty`.
    pub fn src(&self, c: Comp, ty: Type) -> VSrc {
        match c {
            Comp::Imm(bits) => VSrc::Imm { bits, ty },
            Comp::Fixed(grf) => VSrc::Fixed { grf, ty },
            Comp::Reg(r, off) => VSrc::Reg(VRef::new(r, off, ty)),
            Comp::None => VSrc::Imm { bits: 0, ty },
        }
    }

    /// Like [`Self::src`] but never an immediate (moved into a register first).
    pub fn reg_src(&mut self, c: Comp, ty: Type) -> VSrc {
        match c {
            Comp::Imm(_) | Comp::None => {
                let s = self.src(c, ty);
                let r = self.new_reg(self.per());
                self.mov_to(r, s);
                VSrc::Reg(VRef::new(r, 0, ty))
            }
            _ => self.src(c, ty),
        }
    }

    /// A virtual-register source (immediates and payload registers are moved first), for
    /// operands that take source modifiers.
    pub fn vreg_src(&mut self, c: Comp, ty: Type) -> VSrc {
        match c {
            Comp::Reg(..) => self.src(c, ty),
            _ => {
                let s = self.src(c, ty);
                let r = self.new_reg(self.per());
                self.mov_to(r, s);
                VSrc::Reg(VRef::new(r, 0, ty))
            }
        }
    }

    /// `mov r, s` at full width.
    pub fn mov_to(&mut self, r: VReg, s: VSrc) {
        let ty = match s {
            VSrc::Imm { ty, .. } | VSrc::Fixed { ty, .. } => ty,
            VSrc::Reg(v) => v.ty,
            VSrc::Null => Type::UD,
        };
        let dst = VRef::new(r, 0, ty);
        self.emit(VInst::new(
            Op::Mov,
            self.width,
            Some(dst),
            [s, VSrc::Null, VSrc::Null],
        ));
    }

    /// Emits `op` into a fresh register typed `ty`; returns it as a component.
    pub fn op(&mut self, op: Op, ty: Type, src: [VSrc; 3]) -> Comp {
        self.op_with(op, ty, src, None, Pred::None)
    }

    /// Like [`Self::op`] with a conditional modifier and a predicate.
    pub fn op_with(
        &mut self,
        op: Op,
        ty: Type,
        src: [VSrc; 3],
        cmod: Option<CondMod>,
        pred: Pred,
    ) -> Comp {
        let r = self.new_reg(self.per());
        let mut inst = VInst::new(op, self.width, Some(VRef::new(r, 0, ty)), src);
        inst.cmod = cmod;
        inst.pred = pred;
        self.emit(inst);
        Comp::Reg(r, 0)
    }

    /// `cmp.nz f0.0 null, b, 0`: the flag from a 0/~0 boolean.
    pub fn flag_from(&mut self, b: Comp) {
        self.flag_cmp(b, CondMod::Nz, 0);
    }

    /// `cmp.cm f0.0 null, x:UD, bits`: the flag from comparing `x` with a constant.
    pub fn flag_cmp(&mut self, x: Comp, cm: CondMod, bits: u32) {
        let s = self.reg_src(x, Type::UD);
        let imm = VSrc::Imm { bits, ty: Type::UD };
        let mut inst = VInst::new(Op::Cmp, self.width, None, [s, imm, VSrc::Null]);
        inst.cmod = Some(cm);
        self.emit(inst);
    }

    /// A message: builds (or reuses) the payload, sends, returns the response register.
    ///
    /// A payload is built right before its message and dies there, so spilling it would gain
    /// nothing: it is unspillable. Only a payload that fits a scratch block message (8 GRFs)
    /// may be shared by a later message with the same parameters, and sharing makes it an
    /// ordinary spillable register. Nothing that lives across other code is unspillable:
    /// that is what keeps the register floor a property of single instructions
    /// (`docs/budgets.md`).
    pub fn message(
        &mut self,
        msg: sim::gen::Message,
        header: Option<u32>,
        params: &[Comp],
        rlen: u8,
        reuse: bool,
    ) -> Option<VReg> {
        let srcs: Vec<VSrc> = params.iter().map(|&c| self.src(c, Type::UD)).collect();
        let per = self.per();
        let mlen = header.is_some() as u8 + srcs.len() as u8 * per;
        let spillable = mlen <= MAX_SPILL_GRFS;
        let cached = reuse
            && spillable
            && srcs.iter().all(|s| match s {
                VSrc::Reg(r) => !self.multi_def.contains(&r.reg),
                _ => true,
            });
        let found = cached
            .then(|| {
                self.payload_cache
                    .iter()
                    .find(|(k, _)| k.0 == header && k.1 == srcs)
                    .map(|e| e.1)
            })
            .flatten();
        let payload = match found {
            Some(r) => {
                self.p.regs[r].spillable = true;
                r
            }
            None => {
                let r = self.p.new_reg(mlen, false);
                let mut uniform = 0u16;
                for (k, s) in srcs.iter().enumerate() {
                    if s.vref().is_some_and(|v| self.uniform_regs.contains(&v.reg)) {
                        uniform |= 1 << k;
                    }
                }
                let mut inst = VInst::new(
                    Op::Nop,
                    self.width,
                    Some(VRef::new(r, 0, Type::UD)),
                    [VSrc::Null; 3],
                );
                inst.op = VOp::LoadPayload(Payload {
                    header,
                    srcs: srcs.clone(),
                    uniform,
                    no_mask: false,
                });
                self.emit(inst);
                if cached {
                    self.payload_cache.push(((header, srcs), r));
                }
                r
            }
        };
        let desc = sim::gen::SendDesc::new(msg, mlen, rlen, header.is_some());
        let dst = (rlen > 0).then(|| {
            let d = self.new_reg(rlen);
            VRef::new(d, 0, Type::UD)
        });
        let inst = VInst::new(
            Op::Send(desc),
            self.width,
            dst,
            [
                VSrc::Reg(VRef::new(payload, 0, Type::UD)),
                VSrc::Null,
                VSrc::Null,
            ],
        );
        self.emit(inst);
        dst.map(|d| d.reg)
    }

    fn list(&mut self, list: &[CfNode]) -> Result<(), CompileError> {
        for node in list {
            match node {
                CfNode::Block(b) => self.block(*b)?,
                CfNode::If(n) => {
                    let c = self.value(n.cond, 0)?;
                    self.flag_from(c);
                    let mut inst =
                        VInst::new(Op::If { jip: 0, uip: 0 }, self.width, None, [VSrc::Null; 3]);
                    inst.pred = Pred::Normal;
                    self.emit(inst);
                    self.depth += 1;
                    self.list(&n.then_list)?;
                    self.control(Op::Else { jip: 0 });
                    let at = self.p.insts.len();
                    self.list(&n.else_list)?;
                    if self.p.insts.len() == at {
                        self.p.insts.pop();
                    }
                    self.depth -= 1;
                    self.control(Op::EndIf);
                }
                CfNode::Loop(n) => {
                    self.control(Op::Do);
                    self.depth += 1;
                    self.loop_depth += 1;
                    self.list(&n.body)?;
                    self.depth -= 1;
                    self.loop_depth -= 1;
                    self.control(Op::While { jip: 0 });
                }
            }
        }
        Ok(())
    }

    fn control(&mut self, op: Op) {
        self.payload_cache.clear();
        self.emit(VInst::new(op, self.width, None, [VSrc::Null; 3]));
    }

    /// Component `k` of an already lowered value.
    pub fn value(&self, v: Value, k: usize) -> Result<Comp, CompileError> {
        match self.vals.get(v).map(|c| c[k]) {
            Some(Comp::None) | None => Err(unsupported(format!("{v} used before its definition"))),
            Some(c) => Ok(c),
        }
    }

    fn block(&mut self, b: Block) -> Result<(), CompileError> {
        self.payload_cache.clear();
        let mut jump = None;
        for &i in &self.f.blocks[b].insts {
            match &self.f.insts[i].kind {
                InstKind::Break => jump = Some(Op::Break { uip: 0 }),
                InstKind::Continue => jump = Some(Op::Cont { uip: 0 }),
                InstKind::Phi { .. } => {
                    return Err(unsupported(
                        "phi: the Gen backend takes register form (run out-of-SSA first)",
                    ))
                }
                kind => {
                    let result = self.f.insts[i].result.expand();
                    self.inst(kind, result)?;
                }
            }
        }
        if let Some(op) = jump {
            self.control(op);
        }
        Ok(())
    }

    fn inst(&mut self, kind: &InstKind, result: Option<Value>) -> Result<(), CompileError> {
        let comps = result.map_or(0, |v| self.f.ty(v).comps() as usize);
        let mut out = [Comp::None; 4];
        match kind {
            InstKind::Const { bits } => {
                let is_bool = result.is_some_and(|v| self.f.ty(v).bits() == Some(ir::BitSize::B1));
                for k in 0..comps {
                    out[k] = Comp::Imm(if is_bool && bits[k] != 0 {
                        u32::MAX
                    } else {
                        bits[k]
                    });
                }
            }
            InstKind::Alu { op, args } => {
                for (k, o) in out.iter_mut().enumerate().take(comps) {
                    let mut a = [Comp::None; 3];
                    for (j, slot) in a.iter_mut().enumerate().take(op.arity()) {
                        *slot = self.value(args[j], k)?;
                    }
                    *o = self.alu(*op, a);
                }
            }
            InstKind::Vec { args } => {
                for k in 0..comps {
                    out[k] = self.value(args[k], 0)?;
                }
            }
            InstKind::Mov { src, swizzle } => {
                for k in 0..comps {
                    out[k] = self.value(*src, swizzle[k] as usize)?;
                }
            }
            InstKind::InvocationId => out[0] = Comp::Fixed(1),
            InstKind::LoadReg { reg } => {
                let r = self.regs[*reg];
                for k in 0..comps {
                    let s = self.src(r[k], Type::UD);
                    let d = self.new_reg(self.per());
                    self.mov_to(d, s);
                    out[k] = Comp::Reg(d, 0);
                }
            }
            InstKind::StoreReg { reg, value } => {
                let r = self.regs[*reg];
                for (k, c) in r.iter().enumerate() {
                    if let Comp::Reg(d, _) = *c {
                        let s = self.src(self.value(*value, k)?, Type::UD);
                        self.mov_to(d, s);
                    }
                }
            }
            InstKind::Subgroup { op, args } => {
                let mut a = [Comp::None; 2];
                for (slot, &v) in a.iter_mut().zip(&args[..op.arity()]) {
                    *slot = self.value(v, 0)?;
                }
                out[0] = self.subgroup(*op, a[0], a[1]);
            }
            InstKind::Phi { .. } | InstKind::Break | InstKind::Continue => {}
            _ => self.memory(kind, result, &mut out)?,
        }
        if let Some(v) = result {
            if self.f.ty(v) != ir::Type::Deref {
                self.vals[v] = out;
            }
        }
        Ok(())
    }
}
