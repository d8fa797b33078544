//! Static checks a program must pass before it runs, and the loop structure the executor uses.
//!
//! Rules checked (every violation is collected, none stops the scan):
//! * exec size and channel group fit the dispatch width (SIMD16 only in SIMD16 programs;
//!   group 8 only for SIMD8 halves of a SIMD16 program; control flow runs at full width);
//! * every operand lies inside the 128-GRF file (`reg * 8 + subreg + dwords <= 1024`);
//! * each opcode has its operands, with the types it accepts (integer-only logic and shifts,
//!   float-only rounding and transcendental math, no float/integer mixing except `mov`
//!   and `cmp`'s destination);
//! * conditional modifiers only on ALU ops; `sel` has a predicate or `.l`/`.ge`, not both;
//! * control flow is properly nested and every JIP/UIP names the instruction the structure
//!   says (if → else/endif, else → endif, while → do + 1, break/cont → while);
//! * SEND descriptors are consistent (mlen/rlen per message, mlen limits, header where
//!   required, EOT without response, surfaces and textures that exist in the dispatch,
//!   `ld_lz` only on Gen9).

use super::isa::{CondMod, Dst, ExecSize, Gen, Inst, MathFn, Op, Pred, Program, Region, Src};
use super::send::{
    sampler_params, Message, SamplerOp, SendDesc, Surface, MAX_MLEN, MAX_SAMPLER_MLEN,
    SCRATCH_DESCRIPTOR_OFFSETS,
};
use crate::dispatch::Dispatch;
use crate::semantics::TexDim;
use std::fmt;

/// Why an instruction is invalid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Problem {
    /// Exec size or channel group does not fit the dispatch width or the opcode.
    ExecSize,
    /// An operand reaches past the register file (`operand`: "dst", "src0", "payload", ...).
    RegisterOutOfRange {
        /// Which operand.
        operand: &'static str,
    },
    /// A required operand is null or an immediate where a register is needed.
    MissingOperand {
        /// Which operand.
        operand: &'static str,
    },
    /// Operand types the opcode does not accept.
    Types(&'static str),
    /// A predicate or conditional modifier the opcode does not accept.
    Predication(&'static str),
    /// Control flow is not properly nested.
    Unstructured(&'static str),
    /// A jump target differs from the one the structure implies.
    JumpTarget {
        /// The index the structure implies.
        expected: u32,
        /// The index in the instruction.
        found: u32,
    },
    /// An inconsistent SEND descriptor.
    Message(&'static str),
    /// A texture, buffer or surface the dispatch does not have.
    NoSuchResource,
}

/// One invalid instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ValidationError {
    /// Instruction index (equal to the instruction count for "unterminated" structure).
    pub inst: u32,
    /// What is wrong.
    pub problem: Problem,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "instruction {}: {:?}", self.inst, self.problem)
    }
}

/// Loop structure of a valid program.
#[derive(Clone, Debug, Default)]
pub struct Structure {
    /// For each `do` index, the index of its `while` (other entries unused).
    pub while_of: Vec<u32>,
    /// Deepest nesting of if-blocks and loops.
    pub max_depth: usize,
}

struct Checker<'a> {
    errors: Vec<ValidationError>,
    inst: u32,
    width: u32,
    gen: Gen,
    dispatch: Option<&'a Dispatch>,
}

/// Check `program`, and if `dispatch` is given, that every surface and texture it names
/// exists. Returns the loop structure, or every problem found.
pub fn validate(
    program: &Program,
    dispatch: Option<&Dispatch>,
) -> Result<Structure, Vec<ValidationError>> {
    let mut c = Checker {
        errors: Vec::new(),
        inst: 0,
        width: program.width.lanes(),
        gen: program.gen,
        dispatch,
    };
    if program.width == ExecSize::S1 {
        c.err(Problem::ExecSize);
    }
    for (i, inst) in program.insts.iter().enumerate() {
        c.inst = i as u32;
        c.check(inst);
    }
    let structure = c.structure(&program.insts);
    if c.errors.is_empty() {
        Ok(structure)
    } else {
        Err(c.errors)
    }
}

/// Whether every texture and surface message `msg` names exists in `dispatch` (the only
/// rule [`validate`] checks against a dispatch).
fn has_resources(msg: &Message, dispatch: &Dispatch) -> bool {
    match *msg {
        Message::Sampler { texture, .. } => (texture as usize) < dispatch.textures.len(),
        Message::UntypedRead {
            surface: Surface::Buffer(b),
            ..
        }
        | Message::UntypedWrite {
            surface: Surface::Buffer(b),
            ..
        }
        | Message::UntypedAtomic {
            surface: Surface::Buffer(b),
            ..
        } => (b as usize) < dispatch.buffers.len(),
        _ => true,
    }
}

/// A program that passed [`validate`] without a dispatch, with its loop structure: what a
/// compiler that validates its output hands on, so the simulator does not validate it again
/// (see `exec::run_valid`). The program cannot be changed afterwards; it reads as a
/// [`Program`] through `Deref`.
#[derive(Clone)]
pub struct ValidProgram {
    program: Program,
    structure: Structure,
}

impl ValidProgram {
    /// Validate `program` (without a dispatch); every problem found if it is not valid.
    pub fn new(program: Program) -> Result<ValidProgram, Vec<ValidationError>> {
        let structure = validate(&program, None)?;
        Ok(ValidProgram { program, structure })
    }

    /// The loop structure [`validate`] found.
    pub(super) fn structure(&self) -> &Structure {
        &self.structure
    }

    /// What [`validate`] with `dispatch` adds to the checks this program passed: that every
    /// texture and surface it names exists there. The same errors, in the same order.
    pub fn check_resources(&self, dispatch: &Dispatch) -> Result<(), Vec<ValidationError>> {
        let errors: Vec<ValidationError> = (0u32..)
            .zip(&self.program.insts)
            .filter_map(|(inst, i)| match i.op {
                Op::Send(d) if !has_resources(&d.msg, dispatch) => Some(ValidationError {
                    inst,
                    problem: Problem::NoSuchResource,
                }),
                _ => None,
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

impl std::ops::Deref for ValidProgram {
    type Target = Program;

    fn deref(&self) -> &Program {
        &self.program
    }
}

/// As the program alone: a valid program prints as it did before validation.
impl fmt::Debug for ValidProgram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.program, f)
    }
}

impl fmt::Display for ValidProgram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.program, f)
    }
}

fn same_family(a: Option<super::isa::Type>, b: Option<super::isa::Type>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.is_int() == b.is_int(),
        _ => true,
    }
}

impl Checker<'_> {
    fn err(&mut self, problem: Problem) {
        self.errors.push(ValidationError {
            inst: self.inst,
            problem,
        });
    }

    fn check(&mut self, inst: &Inst) {
        let lanes = inst.exec_size.lanes();
        let group = inst.group as u32;
        let fits = match inst.exec_size {
            ExecSize::S1 => group < self.width,
            ExecSize::S8 => group == 0 || (group == 8 && self.width == 16),
            ExecSize::S16 => group == 0 && self.width == 16,
        };
        if !fits {
            self.err(Problem::ExecSize);
        }
        self.check_operands(inst, lanes);
        match inst.op {
            Op::If { .. }
            | Op::Else { .. }
            | Op::EndIf
            | Op::Do
            | Op::While { .. }
            | Op::Break { .. }
            | Op::Cont { .. } => {
                if lanes != self.width || group != 0 {
                    self.err(Problem::ExecSize);
                }
                if inst.cmod.is_some() {
                    self.err(Problem::Predication(
                        "no conditional modifier on control flow",
                    ));
                }
                let may_pred = matches!(
                    inst.op,
                    Op::If { .. } | Op::While { .. } | Op::Break { .. } | Op::Cont { .. }
                );
                if !may_pred && inst.pred != Pred::None {
                    self.err(Problem::Predication("else/endif/do cannot be predicated"));
                }
            }
            Op::Send(desc) => self.check_send(inst, &desc),
            Op::Nop => {}
            _ => self.check_alu(inst),
        }
    }

    fn check_operands(&mut self, inst: &Inst, lanes: u32) {
        const NAMES: [&str; 3] = ["src0", "src1", "src2"];
        // A send's `src0` is its payload: `mlen` GRFs whatever the execution size, checked by
        // `check_send`. A one-GRF header in g127 is a legal SIMD16 payload.
        let payload = matches!(inst.op, Op::Send(_));
        for (k, s) in inst.src.iter().enumerate() {
            if payload && k == 0 {
                continue;
            }
            if let Src::Grf(g) = s {
                let n = if g.region == Region::Vector { lanes } else { 1 };
                if g.reg as u32 >= 128
                    || g.subreg >= 8
                    || (g.reg as u32 * 8 + g.subreg as u32 + n) > 1024
                {
                    self.err(Problem::RegisterOutOfRange { operand: NAMES[k] });
                }
            }
        }
        if let Dst::Grf { reg, subreg, .. } = inst.dst {
            let n = match inst.op {
                Op::Send(d) => d.rlen as u32 * 8,
                _ => lanes,
            };
            if reg as u32 >= 128 || subreg >= 8 || (reg as u32 * 8 + subreg as u32 + n) > 1024 {
                self.err(Problem::RegisterOutOfRange { operand: "dst" });
            }
        }
    }

    fn check_alu(&mut self, inst: &Inst) {
        let arity = match inst.op {
            Op::Mov | Op::Not | Op::Frc | Op::Rndd | Op::Rndz | Op::Rnde => 1,
            Op::Math(f) if !f.binary() => 1,
            Op::Mad => 3,
            _ => 2,
        };
        const NAMES: [&str; 3] = ["src0", "src1", "src2"];
        for (k, (src, name)) in inst.src.iter().zip(NAMES).enumerate() {
            let present = *src != Src::Null;
            if k < arity && !present {
                self.err(Problem::MissingOperand { operand: name });
            } else if k >= arity && present {
                self.err(Problem::Types("extra source operand"));
            }
        }
        let t0 = inst.src[0].ty();
        let dt = Some(inst.dst.ty());
        for k in 1..arity {
            if !same_family(t0, inst.src[k].ty()) {
                self.err(Problem::Types("sources mix float and integer"));
            }
        }
        let int_only = matches!(
            inst.op,
            Op::Not
                | Op::And
                | Op::Or
                | Op::Xor
                | Op::Shl
                | Op::Shr
                | Op::Asr
                | Op::Math(MathFn::IntDiv)
                | Op::Math(MathFn::IntMod)
        );
        let float_only = matches!(inst.op, Op::Frc | Op::Rndd | Op::Rndz | Op::Rnde)
            || matches!(inst.op, Op::Math(f) if !matches!(f, MathFn::IntDiv | MathFn::IntMod));
        if int_only && t0.is_some_and(|t| !t.is_int()) {
            self.err(Problem::Types("integer-only opcode on float sources"));
        }
        if float_only && t0.is_some_and(|t| t.is_int()) {
            self.err(Problem::Types("float-only opcode on integer sources"));
        }
        if !matches!(inst.op, Op::Mov | Op::Cmp) && !same_family(t0, dt) {
            self.err(Problem::Types(
                "destination family differs from execution type",
            ));
        }
        match inst.op {
            Op::Cmp if inst.cmod.is_none() => {
                self.err(Problem::Predication("cmp needs a conditional modifier"))
            }
            Op::Sel => {
                let minmax = matches!(inst.cmod, Some(CondMod::L) | Some(CondMod::Ge));
                let pred = inst.pred != Pred::None;
                if pred == minmax || (inst.cmod.is_some() && !minmax) {
                    self.err(Problem::Predication(
                        "sel needs a predicate or .l/.ge, not both",
                    ));
                }
            }
            _ => {}
        }
    }

    fn check_send(&mut self, inst: &Inst, d: &SendDesc) {
        if inst.exec_size == ExecSize::S1 {
            self.err(Problem::ExecSize);
        }
        if inst.cmod.is_some() {
            self.err(Problem::Predication("no conditional modifier on send"));
        }
        match inst.src[0] {
            Src::Grf(g) if g.region == Region::Vector && g.subreg == 0 => {
                if g.reg as u32 + d.mlen as u32 > 128 {
                    self.err(Problem::RegisterOutOfRange { operand: "payload" });
                }
            }
            _ => self.err(Problem::MissingOperand { operand: "payload" }),
        }
        if d.rlen > 0 && !matches!(inst.dst, Dst::Grf { subreg: 0, .. }) {
            self.err(Problem::MissingOperand { operand: "dst" });
        }
        if d.eot && d.rlen != 0 {
            self.err(Problem::Message("EOT send with a response"));
        }
        let p = inst.exec_size.regs() as u8;
        let h = d.header as u8;
        let (mlen, rlen) = (d.mlen, d.rlen);
        if mlen == 0 || mlen > MAX_MLEN {
            self.err(Problem::Message("mlen out of range"));
        }
        let ch_ok = |c: u8| (1..=4).contains(&c);
        match d.msg {
            Message::Sampler { op, dim, .. } => {
                if mlen > MAX_SAMPLER_MLEN {
                    self.err(Problem::Message("sampler mlen over 11"));
                }
                let params = mlen.saturating_sub(h);
                if params < p || params % p != 0 {
                    self.err(Problem::Message("sampler parameters not whole"));
                }
                if params / p > sampler_params(op, self.gen).len() as u8 {
                    self.err(Problem::Message(
                        "more sampler parameters than the message has",
                    ));
                }
                if rlen == 0 || rlen % p != 0 || rlen > 4 * p {
                    self.err(Problem::Message("sampler rlen not 1..4 channels"));
                }
                if op.gen9_only() && self.gen == Gen::Gen7 {
                    self.err(Problem::Message("sampler message needs Gen9"));
                }
                if op.needs_header() && !d.header {
                    self.err(Problem::Message("gather4 without a header"));
                }
                if op.simd8_only() && p != 1 {
                    self.err(Problem::Message("sample_d is SIMD8 only"));
                }
                if dim == TexDim::Cube && matches!(op, SamplerOp::Ld | SamplerOp::LdLz) {
                    self.err(Problem::Message("ld of a cube"));
                }
                if self.dispatch.is_some_and(|dp| !has_resources(&d.msg, dp)) {
                    self.err(Problem::NoSuchResource);
                }
            }
            Message::UntypedRead { surface, channels } => {
                if surface == Surface::Output || !ch_ok(channels) {
                    self.err(Problem::Message("bad untyped read"));
                }
                if mlen != h + p || rlen != channels * p {
                    self.err(Problem::Message("untyped read mlen/rlen"));
                }
                if self.dispatch.is_some_and(|dp| !has_resources(&d.msg, dp)) {
                    self.err(Problem::NoSuchResource);
                }
            }
            Message::UntypedWrite { surface, channels } => {
                if surface == Surface::Uniform || !ch_ok(channels) {
                    self.err(Problem::Message("bad untyped write"));
                }
                if mlen != h + (1 + channels) * p || rlen != 0 {
                    self.err(Problem::Message("untyped write mlen/rlen"));
                }
                if self.dispatch.is_some_and(|dp| !has_resources(&d.msg, dp)) {
                    self.err(Problem::NoSuchResource);
                }
            }
            Message::UntypedAtomic { surface, .. } => {
                if !matches!(surface, Surface::Buffer(_) | Surface::Shared) {
                    self.err(Problem::Message("bad untyped atomic"));
                }
                if mlen != h + 2 * p || rlen != p {
                    self.err(Problem::Message("untyped atomic mlen/rlen"));
                }
                if self.dispatch.is_some_and(|dp| !has_resources(&d.msg, dp)) {
                    self.err(Problem::NoSuchResource);
                }
            }
            Message::ScratchBlockRead { regs, offset } => {
                if !d.header || !(1..=8).contains(&regs) || mlen != 1 || rlen != regs {
                    self.err(Problem::Message("scratch block read header/mlen/rlen"));
                }
                if offset.is_some_and(|o| u32::from(o) >= SCRATCH_DESCRIPTOR_OFFSETS) {
                    self.err(Problem::Message("scratch block read offset past 12 bits"));
                }
            }
            Message::ScratchBlockWrite { regs } => {
                if !d.header || !(1..=8).contains(&regs) || mlen != 1 + regs || rlen != 0 {
                    self.err(Problem::Message("scratch block write header/mlen/rlen"));
                }
            }
            Message::ScratchRead { channels } => {
                if !ch_ok(channels) || mlen != h + p || rlen != channels * p {
                    self.err(Problem::Message("scratch read mlen/rlen"));
                }
            }
            Message::ScratchWrite { channels } => {
                if !ch_ok(channels) || mlen != h + (1 + channels) * p || rlen != 0 {
                    self.err(Problem::Message("scratch write mlen/rlen"));
                }
            }
        }
    }

    fn structure(&mut self, insts: &[Inst]) -> Structure {
        enum Open {
            If { at: u32, els: Option<u32> },
            Loop { at: u32 },
        }
        let mut s = Structure {
            while_of: vec![0; insts.len()],
            max_depth: 0,
        };
        let mut stack: Vec<Open> = Vec::new();
        let mut exits: Vec<(u32, u32, u32)> = Vec::new(); // (do, inst, uip)
        let jump = |c: &mut Self, at: u32, expected: u32, found: u32| {
            if expected != found {
                c.errors.push(ValidationError {
                    inst: at,
                    problem: Problem::JumpTarget { expected, found },
                });
            }
        };
        for (i, inst) in insts.iter().enumerate() {
            let i = i as u32;
            self.inst = i;
            match inst.op {
                Op::If { .. } => stack.push(Open::If { at: i, els: None }),
                Op::Else { .. } => match stack.last_mut() {
                    Some(Open::If { els: e @ None, .. }) => *e = Some(i),
                    _ => self.err(Problem::Unstructured("else without if")),
                },
                Op::EndIf => match stack.pop() {
                    Some(Open::If { at, els }) => {
                        if let Op::If { jip, uip } = insts[at as usize].op {
                            jump(self, at, els.unwrap_or(i), jip);
                            jump(self, at, i, uip);
                        }
                        if let Some(e) = els {
                            if let Op::Else { jip } = insts[e as usize].op {
                                jump(self, e, i, jip);
                            }
                        }
                    }
                    _ => self.err(Problem::Unstructured("endif without if")),
                },
                Op::Do => stack.push(Open::Loop { at: i }),
                Op::While { jip } => match stack.pop() {
                    Some(Open::Loop { at }) => {
                        jump(self, i, at + 1, jip);
                        s.while_of[at as usize] = i;
                    }
                    _ => self.err(Problem::Unstructured("while without do")),
                },
                Op::Break { uip } | Op::Cont { uip } => {
                    let lp = stack.iter().rev().find_map(|o| match o {
                        Open::Loop { at } => Some(*at),
                        _ => None,
                    });
                    match lp {
                        Some(at) => exits.push((at, i, uip)),
                        None => self.err(Problem::Unstructured("break/cont outside a loop")),
                    }
                }
                _ => {}
            }
            s.max_depth = s.max_depth.max(stack.len());
        }
        if !stack.is_empty() {
            self.inst = insts.len() as u32;
            self.err(Problem::Unstructured("unterminated if or loop"));
        }
        for (at, i, uip) in exits {
            let w = s.while_of[at as usize];
            if w != 0 {
                jump(self, i, w, uip);
            }
        }
        s
    }
}
