//! Decoder for real Adreno a6xx / a7xx machine code as Mesa's ir3 compiler emits it, printing
//! each instruction in exactly the text Mesa's ir3 disassembler prints (turnip's "IR3 Assembly").
//!
//! Why a second ISA module next to [`crate::a6xx`]: that one models *our* instruction set for the
//! simulator; this one reads the *binary* the real compiler produced, so that captured programs
//! can be checked instruction by instruction against ir3's own listing and later lowered onto
//! the simulator. The decoded [`Instr`] therefore carries the meaning (opcode, operands and their
//! kinds, flags, branch offsets, memory-op fields); the text is derived from it by [`Instr::text`].
//!
//! The bit positions, opcode numbers and display syntax are facts taken from Mesa's isaspec
//! description of ir3 (`src/freedreno/isa/ir3-*.xml`, 25.0.7, plus the `(eolm)`/`(eogm)` cat0
//! bits and cat1 `(sat)`/`movs` of later releases). The decoder is table-driven per category:
//! * [`decode`] — one 64-bit word;
//! * [`decode_program`] — a whole program;
//! * [`Instr::text`] / [`program_text`] — ir3 syntax, branch operands resolved to `#lN`;
//! * [`branch_targets`] — the indices ir3 prints `lN:` labels before;
//! * [`parse_listing`] — the instruction lines of an ir3 listing, to zip with decoded words.

pub use crate::a6xx::isa::CmpCond;

mod decode;
pub mod exec;
mod header;
mod print;
#[cfg(test)]
mod tests;

pub use decode::{decode, decode_program};
pub use header::{parse_header, BadLine, Header, Input, UboRange};
pub use print::program_text;

/// Chip generation: some encodings only exist on, or differ between, a6xx and a7xx.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Gen {
    /// Adreno 6xx (e.g. a630, a660).
    A6xx,
    /// Adreno 7xx (e.g. a730, a750).
    A7xx,
}

/// Why a word could not be decoded. Names the category and the bits not understood, so a
/// mismatch against ir3 points straight at the missing table entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Undecodable {
    /// The opcode bits of this category match no known instruction.
    #[error("cat{cat}: unknown {what} {value:#x}")]
    Opcode {
        /// Instruction category (bits 61..63).
        cat: u8,
        /// Which opcode field (e.g. "opc bits 53..58").
        what: &'static str,
        /// Its value.
        value: u64,
    },
    /// The instruction is known but a field has a value ir3 does not define.
    #[error("cat{cat} {name}: invalid {what} {value:#x}")]
    Field {
        /// Instruction category.
        cat: u8,
        /// Mnemonic (or encoding family) being decoded.
        name: &'static str,
        /// The offending field.
        what: &'static str,
        /// Its value.
        value: u64,
    },
    /// The instruction exists, but not on this generation.
    #[error("{name} is not available on {gen:?}")]
    Gen {
        /// Mnemonic.
        name: &'static str,
        /// Generation it was decoded for.
        gen: Gen,
    },
}

/// Instruction-level flags, as ir3 prints them in front of the mnemonic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Flags {
    /// `(sy)`: wait for outstanding texture/memory (cat5/cat6) results.
    pub sy: bool,
    /// `(ss)`: wait for outstanding SFU / shared results.
    pub ss: bool,
    /// `(jp)`: join point (reconvergence).
    pub jp: bool,
    /// `(ul)`: unlock (last use of a0.x/a1.x?).
    pub ul: bool,
    /// `(eq)` on cat0.
    pub eq: bool,
    /// `(sat)` saturate (cat1..cat4).
    pub sat: bool,
    /// `(eolm)` on a cat0 nop after the last cat6.
    pub eolm: bool,
    /// `(eogm)` on a cat0 nop after the last cat5/cat6.
    pub eogm: bool,
    /// `(rptN)`: execute N extra times.
    pub repeat: u8,
    /// `(nopN)`: N delay slots after a cat2/cat3 (encoded in the src `(r)` bits when not repeating).
    pub nop: u8,
}

/// A register as encoded in an 8-bit register field: `num << 2 | component`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reg {
    /// General purpose `rN.c` (`hrN.c` when half).
    Gpr {
        /// Register number 0..60 (48+ are the shared/uniform range on some chips).
        num: u8,
        /// Component 0..3 = x..w.
        comp: u8,
    },
    /// Address register `a0.c` (register number 61).
    A0 {
        /// Component.
        comp: u8,
    },
    /// Predicate register `p0.c` (register number 62).
    P0 {
        /// Component.
        comp: u8,
    },
    /// a7xx's uniform predicate `up0.c`: register number 61 as a compare's destination.
    Up0 {
        /// Component.
        comp: u8,
    },
}

impl Reg {
    /// From an 8-bit field.
    pub fn from_field(v: u64) -> Reg {
        let num = ((v >> 2) & 0x3f) as u8;
        let comp = (v & 3) as u8;
        match num {
            61 => Reg::A0 { comp },
            62 => Reg::P0 { comp },
            _ => Reg::Gpr { num, comp },
        }
    }

    /// The 8-bit field value (`num << 2 | comp`).
    pub fn field(&self) -> u8 {
        match *self {
            Reg::Gpr { num, comp } => num << 2 | comp,
            Reg::A0 { comp } | Reg::Up0 { comp } => 61 << 2 | comp,
            Reg::P0 { comp } => 62 << 2 | comp,
        }
    }
}

/// Scalar types of the `#type` enum (cat1, cat5, cat6); `U64` only in atomics' `#type-atomic`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Type {
    F16,
    F32,
    U16,
    U32,
    S16,
    S32,
    U8,
    U8_32,
    U64,
}

impl Type {
    /// `#type` (3 bits).
    pub fn from_field(v: u64) -> Type {
        [
            Type::F16,
            Type::F32,
            Type::U16,
            Type::U32,
            Type::S16,
            Type::S32,
            Type::U8,
            Type::U8_32,
        ][(v & 7) as usize]
    }
    /// `#type-atomic`: like `#type` but 6 is u64.
    pub fn from_atomic_field(v: u64) -> Type {
        if v & 7 == 6 {
            Type::U64
        } else {
            Type::from_field(v)
        }
    }
    /// The suffix ir3 prints.
    pub fn name(&self) -> &'static str {
        match self {
            Type::F16 => "f16",
            Type::F32 => "f32",
            Type::U16 => "u16",
            Type::U32 => "u32",
            Type::S16 => "s16",
            Type::S32 => "s32",
            Type::U8 => "u8",
            Type::U8_32 => "u8_32",
            Type::U64 => "u64",
        }
    }
    /// 16-bit (or 8-bit) values live in half registers (`#type-half`).
    pub fn is_half(&self) -> bool {
        matches!(self, Type::F16 | Type::U16 | Type::S16 | Type::U8)
    }
}

/// How an immediate is shown; also says how to interpret its bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImmFmt {
    /// Decimal integer.
    Dec,
    /// `0x…` (no padding).
    Hex,
    /// IEEE half, printed `%f`.
    F16,
    /// IEEE single, printed `%f`.
    F32,
    /// Index into the cat2/cat4 float lookup table (`(0.5)`, `(pi)`, …).
    Flut,
}

/// A source or destination operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operand {
    /// A register (`half`: the `h` prefix, i.e. a 16-bit register).
    Reg {
        /// Register.
        reg: Reg,
        /// Half register.
        half: bool,
    },
    /// Const file `cN.c` (`index` = `N << 2 | c`).
    Const {
        /// Component index into the const file (vec4 number × 4 + component).
        index: u16,
        /// Half.
        half: bool,
    },
    /// `r<a0.x + offset>`: GPR addressed relative to a0.x (offset in components).
    RelGpr {
        /// Offset.
        offset: i32,
        /// Half.
        half: bool,
    },
    /// `c<a0.x + offset>`: const addressed relative to a0.x.
    RelConst {
        /// Offset.
        offset: i32,
        /// Half.
        half: bool,
    },
    /// An immediate; `value` holds the raw bits (sign-extended for signed fields).
    Imm {
        /// Value.
        value: i64,
        /// How it is printed / interpreted.
        fmt: ImmFmt,
        /// Half-precision immediate (`h(…)`).
        half: bool,
    },
}

/// A source with its modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Src {
    /// The operand.
    pub op: Operand,
    /// `(neg)`.
    pub neg: bool,
    /// `(abs)`.
    pub abs: bool,
    /// `(last)`: last use of the register.
    pub last: bool,
    /// `(r)`: increments with `(rptN)`.
    pub r: bool,
}

impl Src {
    fn plain(op: Operand) -> Src {
        Src {
            op,
            neg: false,
            abs: false,
            last: false,
            r: false,
        }
    }
}

/// cat0 predicate source `[!]p0.c`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pred {
    /// Inverted (`!`).
    pub inv: bool,
    /// Component of p0.
    pub comp: u8,
}

/// Which display form a cat0 instruction has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowForm {
    /// No operands (`nop`, `end`, `predt`, …); shows `(rptN)`, `(eolm)`, `(eogm)`.
    NoSrc,
    /// `kill p0.x`.
    Pred,
    /// Branch target only (`jump`, `getone`, `shps`, …).
    Target,
    /// `getlast.wN #target`.
    GetLast,
    /// `brac.N #target`.
    Brac,
    /// `br`/`bany`/`ball` `p0.c, #target`.
    Branch1,
    /// `brao`/`braa` `p0.c, p0.c, #target`.
    Branch2,
}

/// cat0: flow control.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flow {
    /// Display form.
    pub form: FlowForm,
    /// Branch offset in instructions, relative to this instruction (forms with a target).
    pub offset: Option<i32>,
    /// Predicate sources.
    pub preds: Vec<Pred>,
    /// brac index / getlast cluster size.
    pub index: u32,
}

/// cat1 display form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MovForm {
    /// Same type: `mov`.
    Mov,
    /// Type conversion: `cov`.
    Cov,
    /// `mova a0.x, …` (s16).
    Mova,
    /// `mova1 a1.x, …` (u16).
    Mova1,
    /// `movs` broadcast from an immediate invocation (`Some(n)`) or a0.x (`None`).
    Movs(Option<u8>),
}

/// cat1 destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dst {
    /// A register.
    Reg(Reg),
    /// `r<a0.x + offset>`.
    Rel(u8),
}

/// cat1 mov/cov/mova/movs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mov {
    /// Display form.
    pub form: MovForm,
    /// Source type.
    pub src_type: Type,
    /// Destination type.
    pub dst_type: Type,
    /// Destination (half iff `dst_type` is 16-bit).
    pub dst: Dst,
    /// Source.
    pub src: Src,
    /// Rounding mode 0..3: none, `(even)`, `(pos_infinity)`, `(neg_infinity)`.
    pub round: u8,
}

/// cat1 swz/gat/sct (parallel multi-moves) and movmsk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovMulti {
    /// Source type (`None` for movmsk).
    pub src_type: Type,
    /// Destination type.
    pub dst_type: Type,
    /// Destinations.
    pub dsts: Vec<Reg>,
    /// Sources.
    pub srcs: Vec<Reg>,
    /// Rounding mode.
    pub round: u8,
}

/// cat2/cat3/cat4 ALU instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alu {
    /// Destination register.
    pub dst: Reg,
    /// Destination is a half register.
    pub dst_half: bool,
    /// Sources, in ir3 order.
    pub srcs: Vec<Src>,
    /// Condition (cmps/cmpv).
    pub cond: Option<CmpCond>,
    /// `(ei)` (cat2: end input, on bary.f).
    pub ei: bool,
    /// Sources are full precision.
    pub full: bool,
    /// cat3 dp2acc/dp4acc: `.mixed` signedness and `.high` packing.
    pub dp: Option<(bool, bool)>,
}

/// Descriptor mode of an s2en/bindless cat5 instruction (`#cat5-s2en-bindless-desc-mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TexIndirect {
    /// DESC_MODE 0..7.
    pub desc_mode: u8,
    /// Descriptor base (bindless only).
    pub base: u8,
    /// Bindless (modes 1,2,3,5,6,7).
    pub bindless: bool,
    /// Index register (modes 0..5).
    pub src3: Option<Reg>,
    /// Uses a1.x (modes 1,3,7).
    pub a1: bool,
}

/// Second cat5 source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TexSrc2 {
    /// Not shown.
    None,
    /// A register.
    Reg(Reg),
    /// isam immediate offset (`+N`).
    ImmOffset(u8),
}

/// cat5: texture / sampler instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tex {
    /// Destination (first of `wrmask` consecutive components).
    pub dst: Reg,
    /// Destination is half.
    pub dst_half: bool,
    /// Write mask (x=1 … w=8).
    pub wrmask: u8,
    /// Result type, when the instruction has one.
    pub ty: Option<Type>,
    /// Sources are half.
    pub src_half: bool,
    /// First source (coordinates).
    pub src1: Option<Reg>,
    /// Second source.
    pub src2: TexSrc2,
    /// Sampler index (immediate).
    pub samp: Option<u8>,
    /// Texture index (immediate).
    pub tex: Option<u8>,
    /// s2en/bindless descriptor addressing.
    pub indirect: Option<TexIndirect>,
    /// Modifier suffixes in print order (`.3d`, `.a`, `.o`, `.p`, `.s`/`.v`, `.1d`), as flags.
    pub is_3d: bool,
    /// `.a` array.
    pub array: bool,
    /// `.o` offset.
    pub offset: bool,
    /// `.p`.
    pub p: bool,
    /// `.s` (or `.v` on isam).
    pub sv: bool,
    /// isam `.1d`.
    pub one_d: bool,
    /// brcst.active cluster size.
    pub cluster: u32,
}

/// Which cat6 encoding / display form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum MemForm {
    /// `ldg.T dst, g[src+off], size`.
    Ldg,
    /// ldg.a a6xx: `g[src1+(src2+off)<<shift]`; a7xx: `g[src1+src2+off]`.
    LdgA,
    /// `ldg.k.T c[dst], g[src+off], size`.
    LdgK,
    Stg,
    StgA,
    /// ldl / ldlw: `dst, l[src+off], size`.
    Ldl,
    Ldp,
    Ldlv,
    /// stl / stlw: `l[dst+off], src, size`.
    Stl,
    Stp,
    /// `stc.T c[dst], src, size`.
    Stc,
    Stsc,
    /// a3xx-style `resinfo.T.Nd dst, g[ssbo]`.
    Resinfo,
    /// a6xx `ldc.offsetN.S.mode dst, src1, src2`.
    Ldc,
    /// `ldc.N.k.mode c[a1.x], src1, src2`.
    LdcK,
    /// getspid / getwid / getfiberid.
    GetId,
    /// resinfo.b / resbase.
    Res1Src,
    /// ldib.b / stib.b.
    IboLdSt,
    /// atomic.b.*.
    IboAtomic,
    /// atomic.* on local memory.
    AtomicLocal,
    /// atomic.g.* on a global address.
    AtomicGlobal,
    Shfl,
    RayIntersection,
}

/// cat6: memory instruction. Field meaning depends on [`MemForm`]; unused fields are 0/None.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mem {
    /// Encoding / display form.
    pub form: MemForm,
    /// Value type.
    pub ty: Type,
    /// Destination operand (register, or const-file offset for stc/ldg.k).
    pub dst: Option<Operand>,
    /// Sources in display order.
    pub srcs: Vec<Operand>,
    /// Immediate address offset.
    pub off: i32,
    /// Number of components / size field.
    pub size: u32,
    /// ldg.a/stg.a shift (`SRC2_ADD_DWORD_SHIFT`).
    pub shift: u8,
    /// IBO: typed access.
    pub typed: bool,
    /// IBO: dimension (1..4, printed `Nd`).
    pub dim: u8,
    /// IBO: type size (components).
    pub type_size: u8,
    /// a6xx descriptor mode: 0 imm, 1 uniform, 2 nonuniform.
    pub mode: u8,
    /// Bindless base, if bindless.
    pub base: Option<u8>,
    /// ldc `.u`; ldg.k/stc destination relative to a1.x.
    pub flag: bool,
    /// shfl mode (1 xor, 2 up, 3 down, 6 rup, 7 rdown).
    pub sub: u8,
}

/// cat7: barriers, cache maintenance, alias.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sync {
    /// bar / fence with `.g .l .r .w` scope bits.
    Barrier {
        /// Global.
        g: bool,
        /// Local.
        l: bool,
        /// Read.
        r: bool,
        /// Write.
        w: bool,
    },
    /// sleep `.s` / `.l`.
    Sleep {
        /// Long.
        long: bool,
    },
    /// dccln / dcinv / dcflu `.shr` / `.all`.
    Cache {
        /// `.all`.
        all: bool,
    },
    /// icinv, ccinv, lock, unlock.
    Plain,
    /// a7xx alias table entry.
    Alias {
        /// Scope 0 tex, 1 rt, 2/3 mem.
        scope: u8,
        /// Integer (`b`) rather than float (`f`) type.
        int: bool,
        /// 32-bit rather than 16-bit.
        b32: bool,
        /// Table size − 1.
        table_size_minus_one: u8,
        /// Destination: register, or render target `rtN.c` as (N, c).
        dst: Result<Reg, (u8, u8)>,
        /// Aliased value.
        src: Operand,
    },
}

/// What an instruction does, by category family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// cat0.
    Flow(Flow),
    /// cat1 mov/cov/mova/mova1/movs.
    Mov(Mov),
    /// cat1 swz/gat/sct.
    MovMulti(MovMulti),
    /// cat1 movmsk (width = (repeat+1)*32).
    Movmsk(Dst),
    /// cat2/cat3/cat4.
    Alu(Alu),
    /// cat5.
    Tex(Tex),
    /// cat6.
    Mem(Mem),
    /// cat7.
    Sync(Sync),
}

/// One decoded instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instr {
    /// The machine word.
    pub word: u64,
    /// Generation it was decoded for.
    pub gen: Gen,
    /// Category 0..7.
    pub cat: u8,
    /// Mnemonic as ir3 names the opcode (`add.u`, `cmps.s`, `stib.b`, `atomic.g.add`, …).
    pub name: &'static str,
    /// Instruction flags.
    pub flags: Flags,
    /// Operands and category-specific fields.
    pub body: Body,
}

impl Instr {
    /// Branch target index, for instructions with a target, given this instruction's index.
    pub fn branch_target(&self, index: usize) -> Option<i64> {
        match &self.body {
            Body::Flow(f) => f.offset.map(|o| index as i64 + o as i64),
            _ => None,
        }
    }
}

/// Indices that ir3 prints an `lN:` label before: the targets of all branches (sorted, unique).
pub fn branch_targets(program: &[Result<Instr, Undecodable>]) -> Vec<usize> {
    let mut t: Vec<usize> = program
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.as_ref().ok()?.branch_target(i))
        .filter(|&t| t >= 0)
        .map(|t| t as usize)
        .collect();
    t.sort_unstable();
    t.dedup();
    t
}

/// The instruction part of an ir3 listing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Listing {
    /// Instruction lines, in order, trimmed.
    pub instrs: Vec<String>,
    /// For each `lN:` label line: the index of the instruction it precedes (which is N in ir3's
    /// numbering), in order of appearance.
    pub labels: Vec<usize>,
}

/// Extracts the instruction lines of an ir3 listing (turnip "IR3 Assembly"), dropping the
/// header and `; …` statistics comments, `// …` lines, `@in`/`@out`/`@const`… directives and
/// `lN:` label lines (their positions are returned in [`Listing::labels`]).
pub fn parse_listing(text: &str) -> Listing {
    let mut out = Listing::default();
    for line in text.lines() {
        let l = line.trim();
        if l.is_empty() || l.starts_with(';') || l.starts_with("//") || l.starts_with('@') {
            continue;
        }
        // The "Native code for … shader …:" header line.
        if l.starts_with("Native code") {
            continue;
        }
        if let Some(n) = l.strip_suffix(':').and_then(|s| s.strip_prefix('l')) {
            if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
                out.labels.push(out.instrs.len());
                continue;
            }
        }
        out.instrs.push(l.to_string());
    }
    out
}
