//! Virtual ir3-style code: scalar virtual registers, sim opcodes, blocks with explicit
//! terminators. `lower` makes it; `opt_predicates` and `ra_predicates` rewrite it in place;
//! `ra` turns it into machine blocks ([`MBlock`]) that `legalize` lays out.
//!
//! Invariants: every virtual register is scalar and of one class (GPR or predicate); a
//! predicate is only read by terminators; block `i`'s fall-through successor is block `i + 1`;
//! an edge to a block at or before its source is a loop back-edge (structured layout).

use sim::a6xx::{
    Binary, CmpCond, CmpType, Conv, DivOp, Op, Reg, SfuOp, Space, Ternary, TexOp, Unary,
};

/// A virtual register (index into [`VFunc::class`]).
pub type VReg = u32;

/// The register file a virtual register lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// A full 32-bit GPR.
    Gpr,
    /// A predicate (`p0.*`).
    Pred,
}

/// A source operand before register allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opnd {
    /// A GPR virtual register.
    V(VReg),
    /// Const-file scalar `c[k]`.
    Const(u16),
    /// An immediate.
    Imm(u32),
}

/// A predicate operand: the virtual predicate and, once predicate RA ran, its register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct POp {
    /// The virtual predicate.
    pub v: VReg,
    /// `p0.<phys>`; [`NO_PHYS`] before predicate RA.
    pub phys: u8,
}

/// Marks a predicate operand not yet allocated.
pub const NO_PHYS: u8 = u8::MAX;

/// A destination of a cat2 instruction: a GPR or (for `cmps` and the bit ops) a predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dst {
    /// A GPR.
    G(VReg),
    /// A predicate.
    P(POp),
}

/// One virtual instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum VInst {
    /// The invocation id (arrives in `r0.x`); only first in the entry block.
    InvocationId {
        /// Destination.
        dst: VReg,
    },
    /// `mov`.
    Mov {
        /// Destination.
        dst: VReg,
        /// Source.
        src: Opnd,
    },
    /// `cov`.
    Cov {
        /// Conversion.
        conv: Conv,
        /// Destination.
        dst: VReg,
        /// Source.
        src: Opnd,
    },
    /// cat2 one-source.
    Alu1 {
        /// Operation.
        op: Unary,
        /// Destination.
        dst: Dst,
        /// Source.
        src: Opnd,
    },
    /// cat2 two-source.
    Alu2 {
        /// Operation.
        op: Binary,
        /// Destination.
        dst: Dst,
        /// First source.
        a: Opnd,
        /// Second source.
        b: Opnd,
    },
    /// `cmps`.
    Cmps {
        /// Operand type.
        ty: CmpType,
        /// Comparison.
        cond: CmpCond,
        /// Destination.
        dst: Dst,
        /// Left.
        a: Opnd,
        /// Right.
        b: Opnd,
    },
    /// cat3.
    Alu3 {
        /// Operation.
        op: Ternary,
        /// Destination.
        dst: VReg,
        /// First source.
        a: Opnd,
        /// Second source.
        b: Opnd,
        /// Third (late) source.
        c: Opnd,
    },
    /// cat4 SFU.
    Sfu {
        /// Function.
        op: SfuOp,
        /// Destination.
        dst: VReg,
        /// Source.
        src: Opnd,
    },
    /// SFU-class division.
    Div {
        /// Which.
        op: DivOp,
        /// Destination.
        dst: VReg,
        /// Dividend.
        a: Opnd,
        /// Divisor.
        b: Opnd,
    },
    /// `sam`/`isam`: parameters in order, destinations per component.
    Tex {
        /// Which.
        op: TexOp,
        /// Destination per component (none = not written).
        dsts: [Option<VReg>; 4],
        /// Parameters sent, in the sim's order.
        srcs: Vec<Opnd>,
        /// Texture number.
        tex: u8,
    },
    /// One-word cat6 load.
    Load {
        /// Space.
        space: Space,
        /// Destination.
        dst: VReg,
        /// Base address register.
        base: Option<VReg>,
        /// Word offset.
        offset: i32,
    },
    /// One-word cat6 store.
    Store {
        /// Space.
        space: Space,
        /// Base address register.
        base: Option<VReg>,
        /// Word offset.
        offset: i32,
        /// Stored register.
        src: VReg,
    },
}

/// Branch flavour of a conditional terminator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BrKind {
    /// `br a`.
    Br,
    /// `braa a, b`: both.
    Braa,
    /// `brao a, b`: either.
    Brao,
}

/// A predicate condition with its invert bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PCond {
    /// The predicate.
    pub p: POp,
    /// Branch when it is false.
    pub inv: bool,
}

/// How a block ends.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    /// Unconditional jump (omitted when it goes to the next block).
    Jump(usize),
    /// Per-fiber branch to `taken`; the rest fall through to `fall` (the next block).
    Branch {
        /// `br`, `braa` or `brao`.
        kind: BrKind,
        /// First condition.
        a: PCond,
        /// Second condition (`braa`/`brao`).
        b: Option<PCond>,
        /// Target when the condition holds.
        taken: usize,
        /// Next block.
        fall: usize,
    },
    /// `end`.
    End,
}

impl Term {
    /// Successor blocks.
    pub fn succs(&self) -> Vec<usize> {
        match *self {
            Term::Jump(t) => vec![t],
            Term::Branch { taken, fall, .. } => vec![fall, taken],
            Term::End => vec![],
        }
    }

    /// Predicate conditions read.
    pub fn conds_mut(&mut self) -> Vec<&mut PCond> {
        match self {
            Term::Branch { a, b, .. } => std::iter::once(a).chain(b.as_mut()).collect(),
            _ => vec![],
        }
    }
}

/// A block: instructions, then the parallel copies of the successor's phis, then the
/// terminator.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VBlock {
    /// Straight-line code.
    pub insts: Vec<VInst>,
    /// Parallel copies `dst := src` (phi moves), run after `insts`.
    pub copies: Vec<(VReg, Opnd)>,
    /// Predicate reloads placed by predicate RA after the copies (back-edge fix-ups).
    pub tail: Vec<VInst>,
    /// How it ends.
    pub term: Option<Term>,
}

/// A whole virtual program.
#[derive(Clone, Debug, Default)]
pub struct VFunc {
    /// Blocks in layout order; block 0 is the entry.
    pub blocks: Vec<VBlock>,
    /// Class of each virtual register.
    pub class: Vec<Class>,
    /// Words of private memory used by local arrays (spill slots go after them).
    pub local_words: u32,
    /// Virtual registers known to hold 0 or 1 (IR booleans).
    pub is_bool: Vec<bool>,
}

impl VFunc {
    /// A new virtual register.
    pub fn new_reg(&mut self, c: Class) -> VReg {
        self.class.push(c);
        self.is_bool.push(false);
        (self.class.len() - 1) as VReg
    }

    /// Predecessors of every block.
    pub fn preds(&self) -> Vec<Vec<usize>> {
        let mut p = vec![Vec::new(); self.blocks.len()];
        for (b, blk) in self.blocks.iter().enumerate() {
            for s in blk.term.as_ref().map(Term::succs).unwrap_or_default() {
                p[s].push(b);
            }
        }
        p
    }
}

impl Opnd {
    /// The register read, if any.
    pub fn reg(self) -> Option<VReg> {
        match self {
            Opnd::V(v) => Some(v),
            _ => None,
        }
    }
}

impl VInst {
    /// Calls `f` with every GPR read.
    pub fn gpr_uses(&self, mut f: impl FnMut(VReg)) {
        let mut o = |x: &Opnd| {
            if let Opnd::V(v) = x {
                f(*v)
            }
        };
        match self {
            VInst::InvocationId { .. } => {}
            VInst::Mov { src, .. }
            | VInst::Cov { src, .. }
            | VInst::Alu1 { src, .. }
            | VInst::Sfu { src, .. } => o(src),
            VInst::Alu2 { a, b, .. } | VInst::Cmps { a, b, .. } | VInst::Div { a, b, .. } => {
                o(a);
                o(b)
            }
            VInst::Alu3 { a, b, c, .. } => {
                o(a);
                o(b);
                o(c)
            }
            VInst::Tex { srcs, .. } => srcs.iter().for_each(o),
            VInst::Load { base, .. } => {
                if let Some(v) = base {
                    o(&Opnd::V(*v))
                }
            }
            VInst::Store { base, src, .. } => {
                if let Some(v) = base {
                    o(&Opnd::V(*v))
                }
                o(&Opnd::V(*src))
            }
        }
    }

    /// Calls `f` with every GPR written.
    pub fn gpr_defs(&self, mut f: impl FnMut(VReg)) {
        match self {
            VInst::InvocationId { dst }
            | VInst::Mov { dst, .. }
            | VInst::Cov { dst, .. }
            | VInst::Alu3 { dst, .. }
            | VInst::Sfu { dst, .. }
            | VInst::Div { dst, .. }
            | VInst::Load { dst, .. } => f(*dst),
            VInst::Alu1 { dst, .. } | VInst::Alu2 { dst, .. } | VInst::Cmps { dst, .. } => {
                if let Dst::G(v) = dst {
                    f(*v)
                }
            }
            VInst::Tex { dsts, .. } => dsts.iter().flatten().for_each(|&v| f(v)),
            VInst::Store { .. } => {}
        }
    }

    /// The predicate written, if any.
    pub fn pred_def(&self) -> Option<POp> {
        match self {
            VInst::Alu1 { dst: Dst::P(p), .. }
            | VInst::Alu2 { dst: Dst::P(p), .. }
            | VInst::Cmps { dst: Dst::P(p), .. } => Some(*p),
            _ => None,
        }
    }

    /// The predicate destination, mutably.
    pub fn pred_def_mut(&mut self) -> Option<&mut POp> {
        match self {
            VInst::Alu1 { dst: Dst::P(p), .. }
            | VInst::Alu2 { dst: Dst::P(p), .. }
            | VInst::Cmps { dst: Dst::P(p), .. } => Some(p),
            _ => None,
        }
    }

    /// Calls `f` with every GPR operand slot (reads, then writes) for renaming.
    pub fn map_gprs(&mut self, mut f: impl FnMut(&mut VReg)) {
        let mut o = |x: &mut Opnd| {
            if let Opnd::V(v) = x {
                f(v)
            }
        };
        match self {
            VInst::InvocationId { .. } => {}
            VInst::Mov { src, .. }
            | VInst::Cov { src, .. }
            | VInst::Alu1 { src, .. }
            | VInst::Sfu { src, .. } => o(src),
            VInst::Alu2 { a, b, .. } | VInst::Cmps { a, b, .. } | VInst::Div { a, b, .. } => {
                o(a);
                o(b)
            }
            VInst::Alu3 { a, b, c, .. } => {
                o(a);
                o(b);
                o(c)
            }
            VInst::Tex { srcs, .. } => srcs.iter_mut().for_each(o),
            VInst::Load { .. } | VInst::Store { .. } => {}
        }
    }
}

/// What an allocated instruction means to the checker: which virtual register each register
/// operand must hold (uses) or now holds (defs), and whether it merely moves contents.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rec {
    /// Registers read and the virtual register each must hold.
    pub uses: Pairs<MAX_REC_USES>,
    /// Registers written and the virtual register each now holds.
    pub defs: Pairs<MAX_REC_DEFS>,
    /// Spill code or a copy inserted by the allocator (contents move, values do not change).
    pub kind: RecKind,
}

/// The most uses a record lists: a texture sample's parameters (the sim's limit).
pub const MAX_REC_USES: usize = 16;
/// The most defs a record lists: a texture sample's four components.
pub const MAX_REC_DEFS: usize = 4;

/// A short list of (register, virtual register) pairs kept inline: every allocated
/// instruction has a record, and two heap lists per instruction were a sizeable share of the
/// backend's time (allocation, growth, freeing). The halves are separate arrays so that the
/// list has no padding and moves as one block copy.
#[derive(Clone, Copy)]
pub struct Pairs<const N: usize> {
    len: u8,
    regs: [Reg; N],
    vregs: [VReg; N],
}

impl<const N: usize> Pairs<N> {
    /// A list holding `p` alone.
    pub fn one(p: (Reg, VReg)) -> Self {
        let mut l = Self::default();
        l.push(p);
        l
    }

    /// Appends `p`; the capacity is the most any instruction has.
    pub fn push(&mut self, (r, v): (Reg, VReg)) {
        let k = usize::from(self.len);
        assert!(k < N, "more register operands than any instruction has");
        self.regs[k] = r;
        self.vregs[k] = v;
        self.len += 1;
    }

    /// The pairs in order.
    pub fn iter(&self) -> impl Iterator<Item = (Reg, VReg)> + '_ {
        let n = usize::from(self.len);
        self.regs[..n]
            .iter()
            .copied()
            .zip(self.vregs[..n].iter().copied())
    }

    /// Whether `p` is listed.
    pub fn contains(&self, p: (Reg, VReg)) -> bool {
        self.iter().any(|q| q == p)
    }

    /// The first pair.
    pub fn first(&self) -> Option<(Reg, VReg)> {
        self.iter().next()
    }
}

impl<const N: usize> Default for Pairs<N> {
    fn default() -> Self {
        Pairs {
            len: 0,
            regs: [Reg::p(0); N],
            vregs: [0; N],
        }
    }
}

impl<const N: usize> PartialEq for Pairs<N> {
    fn eq(&self, o: &Self) -> bool {
        self.iter().eq(o.iter())
    }
}

impl<const N: usize> Eq for Pairs<N> {}

impl<const N: usize> std::fmt::Debug for Pairs<N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The role of an allocated instruction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RecKind {
    /// Computes its defs from its uses.
    #[default]
    Normal,
    /// `stp` of a spill slot: the slot takes the register's contents.
    Spill,
    /// `ldp` of a spill slot: the register takes the slot's contents.
    Fill,
    /// An allocator copy: the destination takes the source's contents.
    Move,
    /// A predicate reload (a cloned def).
    PredReload,
}

/// An allocated instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MInst {
    /// The machine operation (branch offsets still 0).
    pub op: Op,
    /// The checker's record.
    pub rec: Rec,
}

/// An allocated block: instructions and the terminator (with physical predicates).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MBlock {
    /// Instructions, the terminator excluded.
    pub insts: Vec<MInst>,
    /// The terminator.
    pub term: Term,
}
