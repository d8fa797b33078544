//! The instruction set: one [`Instr`] is an [`Op`] plus its sync and scheduling [`Flags`].
//!
//! Categories follow ir3: cat0 flow, cat1 `mov`/`cov`, cat2 one- and two-source ALU (incl.
//! `cmps`), cat3 three-source ALU, cat4 SFU, cat5 texture, cat6 memory. The model has no cat7
//! instruction. Branch offsets are in instructions, relative to the branch itself.

use super::reg::{Cond, Reg, Src};

/// Modifiers carried by an instruction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags {
    /// `(ss)`: wait until every outstanding SFU result of the wave has landed (and every
    /// in-flight source read of an async instruction is done) before issuing.
    pub ss: bool,
    /// `(sy)`: wait until every outstanding texture / memory load of the wave has landed.
    pub sy: bool,
    /// `(jp)`: a reconvergence point; parked fibers may only rejoin here.
    pub jp: bool,
    /// `(nopN)`, N ≤ 3: N empty cycles after the instruction; only on cat2/cat3.
    pub nop: u8,
}

/// One instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Instr {
    /// What it does.
    pub op: Op,
    /// Its modifiers.
    pub flags: Flags,
}

impl Instr {
    /// An instruction without modifiers.
    pub const fn new(op: Op) -> Instr {
        Instr {
            op,
            flags: Flags {
                ss: false,
                sy: false,
                jp: false,
                nop: 0,
            },
        }
    }

    /// With `(ss)`.
    pub const fn ss(mut self) -> Instr {
        self.flags.ss = true;
        self
    }

    /// With `(sy)`.
    pub const fn sy(mut self) -> Instr {
        self.flags.sy = true;
        self
    }

    /// With `(jp)`.
    pub const fn jp(mut self) -> Instr {
        self.flags.jp = true;
        self
    }

    /// With `(nopN)`.
    pub const fn nop(mut self, n: u8) -> Instr {
        self.flags.nop = n;
        self
    }
}

impl From<Op> for Instr {
    fn from(op: Op) -> Instr {
        Instr::new(op)
    }
}

/// The operation of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// cat0 `(rptN)nop`: `repeat + 1` empty cycles.
    Nop {
        /// Extra cycles beyond the first (printed as `(rptN)`).
        repeat: u8,
    },
    /// cat0 `jump #off`: unconditional.
    Jump {
        /// Target relative to this instruction.
        offset: i32,
    },
    /// cat0 `br p0.c, #off`: per-fiber branch on a predicate (or its inverse).
    Br {
        /// The condition.
        cond: Cond,
        /// Target relative to this instruction.
        offset: i32,
    },
    /// cat0 `braa p0.a, p0.b, #off`: per-fiber branch if both conditions hold.
    Braa {
        /// First condition.
        a: Cond,
        /// Second condition.
        b: Cond,
        /// Target relative to this instruction.
        offset: i32,
    },
    /// cat0 `brao p0.a, p0.b, #off`: per-fiber branch if either condition holds.
    Brao {
        /// First condition.
        a: Cond,
        /// Second condition.
        b: Cond,
        /// Target relative to this instruction.
        offset: i32,
    },
    /// cat0 `bany p0.c, #off`: the whole group branches if the condition holds for any of its
    /// active fibers.
    Bany {
        /// The condition.
        cond: Cond,
        /// Target relative to this instruction.
        offset: i32,
    },
    /// cat0 `ball p0.c, #off`: the whole group branches if the condition holds for all of its
    /// active fibers.
    Ball {
        /// The condition.
        cond: Cond,
        /// Target relative to this instruction.
        offset: i32,
    },
    /// cat0 `getone #off`: the lowest active fiber falls through, all others branch.
    Getone {
        /// Target relative to this instruction.
        offset: i32,
    },
    /// cat0 `end`: the active fibers finish.
    End,
    /// cat1 `mov.u32u32 dst, src`: bit copy. `src` may be a predicate (reads 0/1).
    Mov {
        /// Destination GPR.
        dst: Reg,
        /// Source.
        src: Src,
    },
    /// cat1 `cov.<from><to> dst, src`: conversion.
    Cov {
        /// Which conversion.
        conv: Conv,
        /// Destination GPR.
        dst: Reg,
        /// Source.
        src: Src,
    },
    /// cat2 one-source ALU.
    Alu1 {
        /// Which operation.
        op: Unary,
        /// Destination (a predicate only for `not.b`).
        dst: Reg,
        /// Source.
        src: Src,
    },
    /// cat2 two-source ALU.
    Alu2 {
        /// Which operation.
        op: Binary,
        /// Destination (a predicate only for `and.b`/`or.b`/`xor.b`).
        dst: Reg,
        /// First source.
        a: Src,
        /// Second source.
        b: Src,
    },
    /// cat2 `cmps.<ty>.<cond> dst, a, b`: 1 if the comparison holds, else 0; `dst` is a GPR
    /// or a predicate.
    Cmps {
        /// How the sources are compared.
        ty: CmpType,
        /// The comparison.
        cond: CmpCond,
        /// Destination GPR or predicate.
        dst: Reg,
        /// Left source.
        a: Src,
        /// Right source.
        b: Src,
    },
    /// cat3 three-source ALU; `c` is read one cycle late.
    Alu3 {
        /// Which operation.
        op: Ternary,
        /// Destination GPR.
        dst: Reg,
        /// First source.
        a: Src,
        /// Second source.
        b: Src,
        /// Third source (read late: needs one delay slot fewer).
        c: Src,
    },
    /// cat4 SFU, one source; result needs `(ss)`.
    Sfu {
        /// Which function.
        op: SfuOp,
        /// Destination GPR.
        dst: Reg,
        /// Source.
        src: Src,
    },
    /// cat4-class integer division (a model simplification: real ir3 lowers these to ALU
    /// sequences); result needs `(ss)`.
    Div {
        /// Which division.
        op: DivOp,
        /// Destination GPR.
        dst: Reg,
        /// Dividend.
        a: Src,
        /// Divisor.
        b: Src,
    },
    /// cat5 texture access; result needs `(sy)`.
    Tex {
        /// `sam` or `isam`.
        op: TexOp,
        /// First of four consecutive destination GPRs (component i goes to `dst + i`).
        dst: Reg,
        /// Which of the four components are written (bit i = component i), 1..=15.
        wrmask: u8,
        /// First of `params` consecutive source GPRs.
        src: Reg,
        /// How many parameters are sent (1..=the op's layout length); the rest read 0.
        params: u8,
        /// Texture number in the dispatch.
        tex: u8,
    },
    /// cat6 load of `count` (1..=4) consecutive words into consecutive GPRs; needs `(sy)`.
    Load {
        /// Where from (not [`Space::Output`]).
        space: Space,
        /// First destination GPR.
        dst: Reg,
        /// Word address of the first word.
        addr: Addr,
        /// Words loaded (1..=4).
        count: u8,
    },
    /// cat6 store of `count` (1..=4) consecutive GPRs to consecutive words.
    Store {
        /// Where to (not [`Space::Uniform`]).
        space: Space,
        /// Word address of the first word.
        addr: Addr,
        /// First source GPR.
        src: Reg,
        /// Words stored (1..=4).
        count: u8,
    },
}

/// `cov` conversions (all through [`crate::semantics`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Conv {
    /// `cov.f32s32`: saturating, NaN → 0 (`f2i`).
    F32S32,
    /// `cov.f32u32`: saturating, NaN → 0 (`f2u`).
    F32U32,
    /// `cov.s32f32`: round to nearest even (`i2f`).
    S32F32,
    /// `cov.u32f32`: round to nearest even (`u2f`).
    U32F32,
}

/// cat2 one-source operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unary {
    /// `not.b`: bitwise not (may write a predicate: bit 0 of the result).
    NotB,
    /// `absneg.f`: a sign-bit operation (no NaN canonicalisation): clear the sign if `abs`,
    /// then flip it if `neg`. Printed `absneg.f d, -|s|`.
    AbsNegF {
        /// Clear the sign bit first.
        abs: bool,
        /// Then flip the sign bit.
        neg: bool,
    },
    /// `absneg.s`: wrapping integer `abs` then wrapping negation.
    AbsNegS {
        /// Take the absolute value first (`i32::MIN` stays).
        abs: bool,
        /// Then negate (wrapping).
        neg: bool,
    },
    /// `floor.f`.
    FloorF,
    /// `ceil.f`.
    CeilF,
    /// `trunc.f`.
    TruncF,
    /// `rndne.f`: round to nearest, ties to even.
    RndneF,
}

/// cat2 two-source operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Binary {
    /// `add.f`.
    AddF,
    /// `mul.f`.
    MulF,
    /// `min.f` (`semantics::fmin`).
    MinF,
    /// `max.f` (`semantics::fmax`).
    MaxF,
    /// `add.u`: wrapping.
    AddU,
    /// `sub.u`: wrapping.
    SubU,
    /// `mull.u`: low 32 bits of the product.
    MulLU,
    /// `and.b` (may write a predicate).
    AndB,
    /// `or.b` (may write a predicate).
    OrB,
    /// `xor.b` (may write a predicate).
    XorB,
    /// `shl.b`: shift amount modulo 32.
    ShlB,
    /// `shr.b`: logical, amount modulo 32.
    ShrB,
    /// `ashr.b`: arithmetic, amount modulo 32.
    AshrB,
    /// `min.s`.
    MinS,
    /// `max.s`.
    MaxS,
    /// `min.u`.
    MinU,
    /// `max.u`.
    MaxU,
}

/// How `cmps` interprets its sources.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpType {
    /// Floats: any comparison with a NaN is false, except `ne` which is true.
    F,
    /// Unsigned integers.
    U,
    /// Signed integers.
    S,
}

/// The comparison of `cmps`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpCond {
    /// `a < b`.
    Lt,
    /// `a <= b`.
    Le,
    /// `a > b`.
    Gt,
    /// `a >= b`.
    Ge,
    /// `a == b`.
    Eq,
    /// `a != b`.
    Ne,
}

impl CmpCond {
    /// Every condition, in the order of the hardware's 3-bit field (ir3's `cmps`/`cmpv`).
    pub const ALL: [CmpCond; 6] = [
        CmpCond::Lt,
        CmpCond::Le,
        CmpCond::Gt,
        CmpCond::Ge,
        CmpCond::Eq,
        CmpCond::Ne,
    ];

    /// The mnemonic's suffix (`lt`).
    pub fn name(self) -> &'static str {
        ["lt", "le", "gt", "ge", "eq", "ne"][self as usize]
    }
}

/// cat3 operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ternary {
    /// `mad.f32 d, a, b, c`: fused `a * b + c`, rounded once.
    MadF32,
    /// `mad.u24 d, a, b, c`: `(a & 0xffffff) * (b & 0xffffff) + c`, wrapping.
    MadU24,
    /// `sel.b32 d, a, cond, b`: `cond != 0 ? a : b` (`b` is the third, late source).
    SelB32,
}

/// cat4 SFU functions; each result is the canonicalised binary32 operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SfuOp {
    /// `rcp`: `1.0 / x`.
    Rcp,
    /// `rsq`: `1.0 / x.sqrt()`.
    Rsq,
    /// `sqrt`.
    Sqrt,
    /// `log2`.
    Log2,
    /// `exp2`.
    Exp2,
    /// `sin`.
    Sin,
    /// `cos`.
    Cos,
}

/// SFU-class integer division (model simplification), via `crate::semantics`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DivOp {
    /// `udiv`.
    Udiv,
    /// `umod`.
    Umod,
    /// `idiv`.
    Idiv,
    /// `irem` (sign of the dividend).
    Irem,
    /// `imod` (sign of the divisor).
    Imod,
}

pub use super::tex::{TexKind, TexLayout, TexOp};

/// A memory space of cat6 loads and stores. All are word-addressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Buffer `b` of the dispatch (`g<b>[…]`, `ldg`/`stg`): each fiber sees its invocation's
    /// region of `buffers[b]` words; each word address wraps at that length.
    Global(u8),
    /// The invocation's output slots (`o[…]`, `stg` only); word addresses wrap at
    /// `dispatch.outputs`.
    Output,
    /// Per-fiber private memory (`p[…]`, `ldp`/`stp`), `Config::private_words` words.
    Private,
    /// The uniform file (`c[…]`, `ldc` only); word addresses wrap at `uniforms.len()`.
    Uniform,
    /// The fiber's workgroup's local memory (`l[…]`, `ldl`/`stl`): the dispatch's shared
    /// arrays back to back, word addresses not wrapped (past the end reads 0 and drops
    /// writes). A wave holds whole workgroups, so it is the wave's.
    Local,
}

/// A word address: `base + offset` (wrapping), then `+ c` for component `c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Addr {
    /// A GPR holding a per-fiber word index, or none for 0.
    pub base: Option<Reg>,
    /// A constant word offset.
    pub offset: i32,
}

impl Op {
    /// The offset of a branch instruction.
    pub fn branch_offset(&self) -> Option<i32> {
        let mut op = *self;
        op.branch_offset_mut().map(|offset| *offset)
    }

    /// The offset of a branch instruction, to retarget it.
    pub fn branch_offset_mut(&mut self) -> Option<&mut i32> {
        match self {
            Op::Jump { offset }
            | Op::Br { offset, .. }
            | Op::Braa { offset, .. }
            | Op::Brao { offset, .. }
            | Op::Bany { offset, .. }
            | Op::Ball { offset, .. }
            | Op::Getone { offset } => Some(offset),
            _ => None,
        }
    }

    /// The ir3 category: 0 flow, 1 mov/cov, 2 ALU, 3 three-source ALU, 4 SFU, 5 texture,
    /// 6 memory.
    pub const fn category(&self) -> usize {
        match self {
            Op::Nop { .. }
            | Op::Jump { .. }
            | Op::Br { .. }
            | Op::Braa { .. }
            | Op::Brao { .. }
            | Op::Bany { .. }
            | Op::Ball { .. }
            | Op::Getone { .. }
            | Op::End => 0,
            Op::Mov { .. } | Op::Cov { .. } => 1,
            Op::Alu1 { .. } | Op::Alu2 { .. } | Op::Cmps { .. } => 2,
            Op::Alu3 { .. } => 3,
            Op::Sfu { .. } | Op::Div { .. } => 4,
            Op::Tex { .. } => 5,
            Op::Load { .. } | Op::Store { .. } => 6,
        }
    }
}

/// A whole program: instructions indexed from 0; execution starts at 0.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Program {
    /// The instructions in order.
    pub instrs: Vec<Instr>,
}
