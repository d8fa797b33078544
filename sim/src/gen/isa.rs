//! Instruction types of the Gen EU: operands, regions, flags, predication, conditional
//! modifiers, opcodes and the program container.
//!
//! The register file is 128 GRFs of 32 bytes (8 dwords). Operands address it as a flat dword
//! array: a GRF operand starts at dword `reg * 8 + subreg`. A per-lane (`<8,8,1>`) operand gives
//! channel `group + i` of an instruction the dword `start + i`, so a 32-bit SIMD16 value spans
//! two consecutive GRFs; a scalar (`<0,1,0>`) operand gives every channel the dword `start`.
//! A destination is always per-lane (`<1>`).

// The generation is a property of the messages (`send.rs`); named here with the instructions.
pub use super::send::Gen;
use super::send::SendDesc;

/// The number of general registers.
pub const GRF_COUNT: usize = 128;
/// Dwords per general register (32 bytes).
pub const GRF_DWORDS: usize = 8;

/// Channels an instruction executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExecSize {
    /// One channel (channel `group`), for scalar header set-up such as `mov(1) g10.2<1>UD`.
    S1,
    /// Eight channels: one GRF per 32-bit operand.
    S8,
    /// Sixteen channels ("compressed"): two GRFs per 32-bit operand, executed as two SIMD8
    /// halves, the first half's writes visible to the second half's reads.
    S16,
}

impl ExecSize {
    /// Number of channels.
    #[inline]
    pub fn lanes(self) -> u32 {
        match self {
            ExecSize::S1 => 1,
            ExecSize::S8 => 8,
            ExecSize::S16 => 16,
        }
    }

    /// GRFs a 32-bit per-lane operand of this size spans (1 for SIMD1 and SIMD8, 2 for SIMD16).
    #[inline]
    pub fn regs(self) -> u32 {
        self.lanes().div_ceil(8)
    }
}

/// Data type of an operand. Execution type of an instruction is the type of `src[0]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// Unsigned 32-bit integer.
    UD,
    /// Signed 32-bit integer.
    D,
    /// IEEE binary32.
    F,
}

impl Type {
    /// True for `UD` and `D`, which share bit patterns and mix freely.
    #[inline]
    pub fn is_int(self) -> bool {
        !matches!(self, Type::F)
    }
}

/// One of the four 16-bit flag subregisters; bit `c` belongs to channel `c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flag {
    /// `f0.0`
    F0_0,
    /// `f0.1`
    F0_1,
    /// `f1.0`
    F1_0,
    /// `f1.1`
    F1_1,
}

impl Flag {
    /// Index 0..4 in the order f0.0, f0.1, f1.0, f1.1.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
}

/// How an instruction uses its flag as a predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pred {
    /// Not predicated.
    None,
    /// `(+f0.0)`: channels whose flag bit is 1.
    Normal,
    /// `(-f0.0)`: channels whose flag bit is 0.
    Inverted,
}

/// Conditional modifier: a comparison whose per-channel outcome is written to the flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CondMod {
    /// equal (`.z`)
    Z,
    /// not equal (`.nz`)
    Nz,
    /// less than (`.l`)
    L,
    /// less or equal (`.le`)
    Le,
    /// greater than (`.g`)
    G,
    /// greater or equal (`.ge`)
    Ge,
}

/// Region of a GRF source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Region {
    /// `<8,8,1>`: channel `group + i` reads dword `start + i`.
    Vector,
    /// `<0,1,0>`: every channel reads dword `start`.
    Scalar,
}

/// A GRF source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GrfSrc {
    /// Register number, 0..128.
    pub reg: u8,
    /// Dword offset within the register, 0..8.
    pub subreg: u8,
    /// Operand type.
    pub ty: Type,
    /// Per-lane or broadcast.
    pub region: Region,
    /// `-` source modifier: float sign flip, integer two's-complement negate (wrapping).
    pub neg: bool,
    /// `(abs)` source modifier, applied before `neg`: float sign clear, integer wrapping abs.
    pub abs: bool,
}

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Src {
    /// No operand.
    Null,
    /// A 32-bit immediate, read by every channel.
    Imm {
        /// The bits.
        bits: u32,
        /// Its type.
        ty: Type,
    },
    /// A register.
    Grf(GrfSrc),
}

impl Src {
    /// Per-lane register source `g<reg><8,8,1>`.
    pub fn grf(reg: u8, ty: Type) -> Src {
        Src::Grf(GrfSrc {
            reg,
            subreg: 0,
            ty,
            region: Region::Vector,
            neg: false,
            abs: false,
        })
    }

    /// Scalar register source `g<reg>.<subreg><0,1,0>`.
    pub fn scalar(reg: u8, subreg: u8, ty: Type) -> Src {
        Src::Grf(GrfSrc {
            reg,
            subreg,
            ty,
            region: Region::Scalar,
            neg: false,
            abs: false,
        })
    }

    /// Unsigned immediate.
    pub fn ud(bits: u32) -> Src {
        Src::Imm { bits, ty: Type::UD }
    }

    /// Signed immediate.
    pub fn d(v: i32) -> Src {
        Src::Imm {
            bits: v as u32,
            ty: Type::D,
        }
    }

    /// Float immediate.
    pub fn f(v: f32) -> Src {
        Src::Imm {
            bits: v.to_bits(),
            ty: Type::F,
        }
    }

    /// The same register source with the `-` modifier toggled (no effect on others).
    pub fn negated(self) -> Src {
        match self {
            Src::Grf(g) => Src::Grf(GrfSrc { neg: !g.neg, ..g }),
            s => s,
        }
    }

    /// The same register source with the `(abs)` modifier set (no effect on others).
    pub fn absolute(self) -> Src {
        match self {
            Src::Grf(g) => Src::Grf(GrfSrc { abs: true, ..g }),
            s => s,
        }
    }

    /// The operand's type (`None` for `Null`).
    pub fn ty(&self) -> Option<Type> {
        match self {
            Src::Null => None,
            Src::Imm { ty, .. } => Some(*ty),
            Src::Grf(g) => Some(g.ty),
        }
    }
}

/// A destination operand, always per-lane (`<1>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dst {
    /// Results are discarded (flag-only compares, sends without response).
    Null(Type),
    /// Channel `group + i` writes dword `reg * 8 + subreg + i`.
    Grf {
        /// Register number, 0..128.
        reg: u8,
        /// Dword offset within the register, 0..8.
        subreg: u8,
        /// Destination type.
        ty: Type,
    },
}

impl Dst {
    /// `g<reg><1>` of the given type.
    pub fn grf(reg: u8, ty: Type) -> Dst {
        Dst::Grf { reg, subreg: 0, ty }
    }

    /// The destination type.
    pub fn ty(&self) -> Type {
        match self {
            Dst::Null(t) | Dst::Grf { ty: t, .. } => *t,
        }
    }
}

/// Functions of the extended math unit (`math` instruction).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    /// `1 / x` (F).
    Inv,
    /// `sqrt(x)` (F).
    Sqrt,
    /// `1 / sqrt(x)` (F).
    Rsq,
    /// `2^x` (F).
    Exp,
    /// `log2(x)` (F).
    Log,
    /// `sin(x)` (F).
    Sin,
    /// `cos(x)` (F).
    Cos,
    /// `src0 ^ src1` (F, `powf`).
    Pow,
    /// Integer quotient `src0 / src1`: `semantics::idiv` for a D execution type, `udiv` for UD.
    IntDiv,
    /// Integer remainder: `semantics::irem` (sign of dividend) for D, `umod` for UD.
    IntMod,
}

impl MathFn {
    /// True for the two-source functions (`pow`, `intdiv`, `intmod`).
    pub fn binary(self) -> bool {
        matches!(self, MathFn::Pow | MathFn::IntDiv | MathFn::IntMod)
    }
}

/// Opcodes. Control-flow targets are instruction indices into [`Program::insts`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// `dst = src0`, converting when the types differ in family (F→D `f2i`, F→UD `f2u`,
    /// D→F `i2f`, UD→F `u2f`; D↔UD and same-type moves copy bits).
    Mov,
    /// Predicated: `dst = flag ? src0 : src1` on every enabled channel (the predicate chooses,
    /// it does not disable). Unpredicated with `.l`: min; with `.ge`: max (`fmin`/`fmax` for F,
    /// signed for D, unsigned for UD); the flag is not written.
    Sel,
    /// Bitwise not (integer).
    Not,
    /// Bitwise and (integer).
    And,
    /// Bitwise or (integer).
    Or,
    /// Bitwise xor (integer).
    Xor,
    /// Shift left by `src1 % 32` (integer).
    Shl,
    /// Logical shift right by `src1 % 32` (integer).
    Shr,
    /// Arithmetic shift right by `src1 % 32` (integer).
    Asr,
    /// `src0 + src1` (wrapping or `canon(a + b)`).
    Add,
    /// `src0 * src1` (low 32 bits, or `canon(a * b)`).
    Mul,
    /// `src1 * src2 + src0`: fused for F (`canon(src1.mul_add(src2, src0))`), wrapping for ints.
    Mad,
    /// Compare `src0` with `src1` by the conditional modifier in the execution type; writes the
    /// flag bit of each enabled channel and, unless `dst` is null, `0xffff_ffff` (true) or `0`.
    Cmp,
    /// `x - floor(x)` (F).
    Frc,
    /// Round down, `floor` (F).
    Rndd,
    /// Round toward zero, `trunc` (F).
    Rndz,
    /// Round to nearest even (F).
    Rnde,
    /// Extended math.
    Math(MathFn),
    /// Open an if-block. Channels whose predicate holds (all, if unpredicated) run the
    /// then-part. `jip`: index of the matching `else`, or the `endif` if there is none;
    /// `uip`: index of the `endif`.
    If {
        /// The `else` (or `endif`) index.
        jip: u32,
        /// The `endif` index.
        uip: u32,
    },
    /// Switch to the channels that did not take the then-part. `jip`: the `endif` index.
    Else {
        /// The `endif` index.
        jip: u32,
    },
    /// Close an if-block, restoring the channels that entered it (minus those that left a
    /// loop meanwhile).
    EndIf,
    /// Open a loop (a marker that costs no cycles; the hardware has no DO on Gen6+).
    Do,
    /// Loop back to `jip` (the index just after the `do`) while any channel remains; a
    /// predicated `while` keeps only channels whose predicate holds.
    While {
        /// First instruction of the body (`do` index + 1).
        jip: u32,
    },
    /// Predicated channels (all, if unpredicated) leave the innermost loop. `uip`: its `while`.
    Break {
        /// Index of the innermost loop's `while`.
        uip: u32,
    },
    /// Predicated channels (all, if unpredicated) skip to the next iteration. `uip`: the `while`.
    Cont {
        /// Index of the innermost loop's `while`.
        uip: u32,
    },
    /// Send a message to a shared function: payload `mlen` GRFs from `src[0]`, response
    /// `rlen` GRFs at `dst`.
    Send(SendDesc),
    /// No operation (2 issue cycles).
    Nop,
}

/// One instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Inst {
    /// The operation.
    pub op: Op,
    /// Channels executed.
    pub exec_size: ExecSize,
    /// First channel: 0, or 8 for the second SIMD8 half of a SIMD16 thread (`2Q`), or any
    /// channel `< width` for SIMD1.
    pub group: u8,
    /// Write all channels of `[group, group + exec_size)` regardless of the control-flow mask
    /// (`WE_all`). Does not override the predicate.
    pub no_mask: bool,
    /// Predication by `flag`.
    pub pred: Pred,
    /// Conditional modifier writing `flag` (on `cmp`, or any ALU op where it compares the
    /// result with zero); on `sel` it selects min/max instead.
    pub cmod: Option<CondMod>,
    /// The flag subregister used by both `pred` and `cmod`.
    pub flag: Flag,
    /// Destination.
    pub dst: Dst,
    /// Sources; unused ones are `Src::Null`.
    pub src: [Src; 3],
}

impl Inst {
    /// An unpredicated instruction with the given operands, channel group 0.
    pub fn new(op: Op, exec_size: ExecSize, dst: Dst, src: [Src; 3]) -> Inst {
        Inst {
            op,
            exec_size,
            group: 0,
            no_mask: false,
            pred: Pred::None,
            cmod: None,
            flag: Flag::F0_0,
            dst,
            src,
        }
    }

    /// A one-source ALU instruction.
    pub fn unary(op: Op, exec_size: ExecSize, dst: Dst, a: Src) -> Inst {
        Inst::new(op, exec_size, dst, [a, Src::Null, Src::Null])
    }

    /// A two-source ALU instruction.
    pub fn binary(op: Op, exec_size: ExecSize, dst: Dst, a: Src, b: Src) -> Inst {
        Inst::new(op, exec_size, dst, [a, b, Src::Null])
    }

    /// A control-flow instruction (no operands).
    pub fn control(op: Op, exec_size: ExecSize) -> Inst {
        Inst::new(op, exec_size, Dst::Null(Type::UD), [Src::Null; 3])
    }

    /// A `send` with payload at `payload` and response at `dst` (`Dst::Null` when rlen is 0).
    pub fn send(exec_size: ExecSize, dst: Dst, payload: u8, desc: SendDesc) -> Inst {
        Inst::new(
            Op::Send(desc),
            exec_size,
            dst,
            [Src::grf(payload, Type::UD), Src::Null, Src::Null],
        )
    }

    /// The same instruction predicated on `flag` (inverted if `inverted`).
    pub fn predicated(self, flag: Flag, inverted: bool) -> Inst {
        Inst {
            flag,
            pred: if inverted {
                Pred::Inverted
            } else {
                Pred::Normal
            },
            ..self
        }
    }

    /// The same instruction with conditional modifier `cmod` on `flag`.
    pub fn with_cmod(self, cmod: CondMod, flag: Flag) -> Inst {
        Inst {
            cmod: Some(cmod),
            flag,
            ..self
        }
    }

    /// The same instruction with `NoMask` (`WE_all`).
    pub fn no_mask(self) -> Inst {
        Inst {
            no_mask: true,
            ..self
        }
    }

    /// The same instruction on channel group `group`.
    pub fn group(self, group: u8) -> Inst {
        Inst { group, ..self }
    }
}

/// A compiled program: one kernel run by every thread of a dispatch.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Program {
    /// Dispatch width: `S8` or `S16` (SIMD1 is not a dispatch width).
    pub width: ExecSize,
    /// The generation, which fixes sampler parameter orders.
    pub gen: Gen,
    /// The instructions; execution starts at index 0 and a thread ends at a `send` with EOT
    /// or by running past the last instruction.
    pub insts: Vec<Inst>,
}
