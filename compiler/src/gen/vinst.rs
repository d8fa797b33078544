//! The backend's own instruction form: Gen instructions over *virtual* registers, before
//! register allocation (Mesa's `fs_inst` over VGRFs).
//!
//! A virtual register ([`VReg`]) is `size` consecutive GRFs once allocated; an operand names a
//! register and a GRF offset into it. Every 32-bit per-lane value takes `width / 8` GRFs, so a
//! SIMD16 value is a 2-GRF register (or two GRFs of a bigger one, such as a sampler response).
//! Operands also carry `orig`, the register the operand *stands for*: spill code replaces
//! `reg` by a temporary but keeps `orig`, and the allocation checker expects the GRF it reads
//! to hold `orig`'s value.
//!
//! Control flow stays structured: `if`/`else`/`endif`/`do`/`while`/`break`/`cont` are
//! instructions whose jump targets the emitter computes. `LoadPayload` is the one
//! pseudo-instruction: it builds a message payload (an optional scratch header, then one
//! per-lane parameter per source) and is expanded into moves after allocation.

use crate::executed::Role;
use cranelift_entity::{entity_impl, PrimaryMap};
use sim::gen::{CondMod, ExecSize, Gen, Op, Pred, Type};

/// A virtual register.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VReg(u32);
entity_impl!(VReg, "vgrf");

/// What the allocator needs to know about a virtual register.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct VRegInfo {
    /// Size in GRFs (1..=15).
    pub size: u8,
    /// Whether the allocator may spill it (not payloads, not spill/fill temporaries).
    pub spillable: bool,
}

/// A register operand: `size` GRFs of `reg` from GRF offset `off`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct VRef {
    /// Where the operand lives.
    pub reg: VReg,
    /// GRF offset into `reg`.
    pub off: u8,
    /// Operand type.
    pub ty: Type,
    /// `-` modifier (sources only).
    pub neg: bool,
    /// `(abs)` modifier (sources only).
    pub abs: bool,
    /// The register whose value the operand stands for (the checker's expectation).
    pub orig: VReg,
    /// GRF offset into `orig`.
    pub orig_off: u8,
    /// A source read as the scalar `<0,1,0>` of this dword of the GRF: every channel gets
    /// one channel's value (the cross-lane read subgroup operations are built from).
    pub scalar: Option<u8>,
}

impl VRef {
    /// Offset `off` of `reg`, typed `ty`, standing for itself.
    pub fn new(reg: VReg, off: u8, ty: Type) -> VRef {
        VRef {
            reg,
            off,
            ty,
            neg: false,
            abs: false,
            orig: reg,
            orig_off: off,
            scalar: None,
        }
    }

    /// Channel `channel`'s dword of `reg`, read by every channel: GRF `channel / 8`, dword
    /// `channel % 8`.
    pub fn channel(reg: VReg, channel: u32, ty: Type) -> VRef {
        VRef {
            scalar: Some((channel % 8) as u8),
            ..VRef::new(reg, (channel / 8) as u8, ty)
        }
    }
}

/// A source operand.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum VSrc {
    /// No operand.
    Null,
    /// An immediate.
    Imm {
        /// Bits.
        bits: u32,
        /// Type.
        ty: Type,
    },
    /// A thread-payload register (g0 header template, g1/g1–g2 invocation ids), never
    /// allocated.
    Fixed {
        /// GRF number.
        grf: u8,
        /// Type.
        ty: Type,
    },
    /// A virtual register.
    Reg(VRef),
}

impl VSrc {
    /// The register operand, if any.
    pub fn vref(&self) -> Option<&VRef> {
        match self {
            VSrc::Reg(r) => Some(r),
            _ => None,
        }
    }

    /// Whether this is the immediate 0.
    pub fn is_zero(&self) -> bool {
        matches!(self, VSrc::Imm { bits: 0, .. })
    }
}

/// A message payload under construction (Mesa's `LOAD_PAYLOAD`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Payload {
    /// A scratch block header: a copy of g0 with this offset (32-byte units) in dword 2.
    pub header: Option<u32>,
    /// One per-lane parameter per source, `width / 8` GRFs each.
    pub srcs: Vec<VSrc>,
    /// Bit `k`: parameter `k` came from the uniform file (what a sloppy "is zero" trusts).
    pub uniform: u16,
    /// Write all channels (scratch initialisation), not only the enabled ones.
    pub no_mask: bool,
}

/// What an instruction does.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum VOp {
    /// A hardware instruction (jump targets of control flow are filled in by the emitter).
    Hw(Op),
    /// Builds `dst` from a header and per-lane parameters.
    LoadPayload(Payload),
}

/// One virtual instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct VInst {
    /// The operation.
    pub op: VOp,
    /// Channels executed.
    pub exec: ExecSize,
    /// Write all channels regardless of the control-flow mask.
    pub no_mask: bool,
    /// Predication by f0.0.
    pub pred: Pred,
    /// Conditional modifier writing f0.0.
    pub cmod: Option<CondMod>,
    /// Destination (`None`: null of type UD).
    pub dst: Option<VRef>,
    /// Sources.
    pub src: [VSrc; 3],
    /// The write does not replace the whole destination for liveness (predicated, or a
    /// spill temporary merged with its old contents).
    pub partial: bool,
    /// Nesting depth of ifs and loops around the instruction.
    pub depth: u8,
    /// Nesting depth of loops around the instruction.
    pub loop_depth: u8,
    /// Spill slot (before slot assignment) a scratch block send or its header belongs to.
    pub slot: Option<u32>,
    /// What the instruction is for (spill code marks its scratch messages, so executed
    /// spill traffic can be counted: `crate::executed`).
    pub role: Role,
}

impl VInst {
    /// An unpredicated instruction.
    pub fn new(op: Op, exec: ExecSize, dst: Option<VRef>, src: [VSrc; 3]) -> VInst {
        VInst {
            op: VOp::Hw(op),
            exec,
            no_mask: false,
            pred: Pred::None,
            cmod: None,
            dst,
            src,
            partial: false,
            depth: 0,
            loop_depth: 0,
            slot: None,
            role: Role::Program,
        }
    }

    /// The hardware op, if not a pseudo-instruction.
    pub fn hw(&self) -> Option<Op> {
        match self.op {
            VOp::Hw(op) => Some(op),
            VOp::LoadPayload(_) => None,
        }
    }

    /// GRFs the destination covers.
    pub fn dst_regs(&self, regs_of: impl Fn(VReg) -> u8) -> u8 {
        match (&self.op, &self.dst) {
            (_, None) => 0,
            (VOp::Hw(Op::Send(d)), Some(_)) => d.rlen,
            (VOp::LoadPayload(p), Some(r)) => {
                let n = p.header.is_some() as u8 + p.srcs.len() as u8 * self.exec.regs() as u8;
                n.min(regs_of(r.reg).saturating_sub(r.off))
            }
            (_, Some(_)) => self.exec.regs() as u8,
        }
    }

    /// GRFs source `k` covers (a send's payload: `mlen`).
    pub fn src_regs(&self, k: usize) -> u8 {
        match (&self.op, k) {
            (VOp::Hw(Op::Send(d)), 0) => d.mlen,
            _ => self.exec.regs() as u8,
        }
    }

    /// Calls `f` with every register source and the GRFs it covers, payload parameters of
    /// a `LoadPayload` included. Inlined: the allocator's passes over the code call it for
    /// every instruction, each with a closure of a few instructions.
    #[inline]
    pub fn for_each_use(&self, mut f: impl FnMut(&VRef, u8)) {
        let per = self.exec.regs() as u8;
        if let VOp::LoadPayload(p) = &self.op {
            for s in &p.srcs {
                if let VSrc::Reg(r) = s {
                    f(r, per);
                }
            }
        }
        for (k, s) in self.src.iter().enumerate() {
            if let VSrc::Reg(r) = s {
                f(
                    r,
                    if r.scalar.is_some() {
                        1
                    } else {
                        self.src_regs(k)
                    },
                );
            }
        }
    }

    /// Calls `f` with a mutable reference to every register source.
    pub fn for_each_use_mut(&mut self, mut f: impl FnMut(&mut VRef)) {
        if let VOp::LoadPayload(p) = &mut self.op {
            for s in &mut p.srcs {
                if let VSrc::Reg(r) = s {
                    f(r);
                }
            }
        }
        for s in &mut self.src {
            if let VSrc::Reg(r) = s {
                f(r);
            }
        }
    }

    /// Whether the instruction must stay even if its result is unused.
    pub fn has_side_effects(&self) -> bool {
        match self.op {
            VOp::Hw(Op::Send(d)) => d.rlen == 0 || d.msg.writes_memory(),
            VOp::Hw(op) => is_control(op) || self.dst.is_none(),
            VOp::LoadPayload(_) => false,
        }
    }
}

/// Whether `op` is structured control flow.
pub fn is_control(op: Op) -> bool {
    matches!(
        op,
        Op::If { .. }
            | Op::Else { .. }
            | Op::EndIf
            | Op::Do
            | Op::While { .. }
            | Op::Break { .. }
            | Op::Cont { .. }
    )
}

/// A program in virtual registers.
#[derive(Clone, Debug)]
pub struct VProgram {
    /// Registers.
    pub regs: PrimaryMap<VReg, VRegInfo>,
    /// Instructions in order.
    pub insts: Vec<VInst>,
    /// Scratch GRFs used by local variables (offset 0 on); spill slots follow.
    pub var_scratch_grfs: u32,
    /// The generation it is lowered for (which scratch read its fills use).
    pub gen: Gen,
}

impl VProgram {
    /// A new register of `size` GRFs.
    pub fn new_reg(&mut self, size: u8, spillable: bool) -> VReg {
        debug_assert!((1..=15).contains(&size), "register of {size} GRFs");
        self.regs.push(VRegInfo { size, spillable })
    }
}
