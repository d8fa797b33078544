//! Lowered code: the ops the executor runs and the tables they index, built by
//! [`super::lower`]. Value operands are value ids, which are also slot indices.

use super::types::Types;
use crate::ir::{AluOp, AtomicOp, BitSize, Inst, SubgroupOp};

/// "No block" / "no source" in the tables.
pub const NONE: u32 = u32::MAX;

/// One step of lowered code. Value operands are value ids (slot indices). A `checked` op may
/// read a value some invocation has not defined, so it checks its operands; the others read
/// only values every path to them defines ([`super::lower`] works out which).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Op {
    /// Enter `block`: charge `insts` fuel, become the last block.
    Enter {
        block: u32,
        insts: u32,
    },
    /// Like `Enter`, running the phis of [`Code::phi_tables`]`[table]` first.
    EnterPhis {
        block: u32,
        insts: u32,
        table: u32,
    },
    /// `dst = consts[k]`.
    Const {
        dst: u32,
        k: u32,
    },
    /// A one-operand ALU op (split by arity so the common ops read only their operands).
    /// `scalar`: one component, and no writer of `dst` leaves more nonzero (so the result
    /// is written without consulting [`Code::value_comps`]).
    Alu1 {
        op: AluOp,
        comps: u8,
        scalar: bool,
        checked: bool,
        dst: u32,
        a: u32,
    },
    Alu2 {
        op: AluOp,
        comps: u8,
        scalar: bool,
        checked: bool,
        dst: u32,
        a: u32,
        b: u32,
    },
    /// Three or four operands (a three-operand op repeats its last).
    Alu3 {
        op: AluOp,
        comps: u8,
        scalar: bool,
        checked: bool,
        dst: u32,
        args: [u32; 4],
    },
    /// An ALU op on 16- or 64-bit integers ([`AluOp::eval_sized`]): `int` the width of its
    /// integer operands, `result` its result's; operands checked (the slow path of rare ops).
    AluSized {
        op: AluOp,
        int: BitSize,
        result: BitSize,
        comps: u8,
        dst: u32,
        args: [u32; 4],
    },
    Vec {
        comps: u8,
        checked: bool,
        dst: u32,
        args: [u32; 4],
    },
    Mov {
        comps: u8,
        checked: bool,
        swizzle: [u8; 4],
        dst: u32,
        src: u32,
    },
    InvocationId {
        dst: u32,
    },
    LocalId {
        dst: u32,
    },
    WorkgroupId {
        dst: u32,
    },
    LoadShared {
        comps: u8,
        shared: u32,
        dst: u32,
        index: u32,
    },
    StoreShared {
        comps: u8,
        shared: u32,
        index: u32,
        value: u32,
    },
    /// `dst` = the old word of this invocation's buffer part; `op(old, value)` stored.
    AtomicBuffer {
        op: AtomicOp,
        buffer: u32,
        dst: u32,
        index: u32,
        value: u32,
    },
    /// The same on the workgroup's shared array; `unordered`: a commutative op whose result
    /// no instruction reads (the race rule lets invocations share its word).
    AtomicShared {
        op: AtomicOp,
        unordered: bool,
        shared: u32,
        dst: u32,
        index: u32,
        value: u32,
    },
    /// A subgroup operation: each workgroup's active lanes together. `a` and `b` are the
    /// operands (`NONE` past the operation's arity).
    Subgroup {
        op: SubgroupOp,
        dst: u32,
        a: u32,
        b: u32,
    },
    /// A workgroup barrier: every live lane is here (barriers are top-level only).
    Barrier,
    LoadUniform {
        comps: u8,
        dst: u32,
        index: u32,
    },
    LoadBuffer {
        comps: u8,
        buffer: u32,
        dst: u32,
        index: u32,
    },
    StoreBuffer {
        comps: u8,
        buffer: u32,
        index: u32,
        value: u32,
    },
    StoreOutput {
        comps: u8,
        checked: bool,
        slot: u32,
        value: u32,
    },
    /// A texture op described by `texs[k]`.
    Tex {
        k: u32,
    },
    DerefVar {
        dst: u32,
        var: u32,
        ty: u32,
    },
    DerefArray {
        dst: u32,
        parent: u32,
        index: u32,
    },
    DerefStruct {
        dst: u32,
        parent: u32,
        field: u32,
    },
    DerefCast {
        dst: u32,
        parent: u32,
        ty: u32,
    },
    LoadDeref {
        comps: u8,
        dst: u32,
        deref: u32,
    },
    StoreDeref {
        comps: u8,
        deref: u32,
        value: u32,
    },
    LoadReg {
        dst: u32,
        reg: u32,
    },
    StoreReg {
        checked: bool,
        reg: u32,
        value: u32,
    },
    /// Falls through when `cond` is true, else jumps to `else_pc`; `node` numbers the `if`.
    Branch {
        checked: bool,
        cond: u32,
        else_pc: u32,
        node: u32,
    },
    Jump {
        target: u32,
    },
    /// `continue` of loop `node` (its fuel is charged with its block): to the loop's latch,
    /// where the lanes wait for the rest of the iteration.
    Continue {
        latch: u32,
        node: u32,
    },
    /// Falling off the body of loop `node`: costs 1 fuel, then the latch (the next op).
    BackEdge {
        node: u32,
    },
    /// Loop `node` starts an execution.
    LoopEnter {
        node: u32,
    },
}

/// A lowered `tex`, `txf` or `txs`; absent parameters name the always-zero slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct TexOp {
    pub access: sim::semantics::TexAccess,
    pub dim: sim::semantics::TexDim,
    pub offset: [i8; 3],
    pub texture: u32,
    pub dst: u32,
    pub coord: u32,
    pub lod: u32,
    pub bias: u32,
    pub layer: u32,
    /// The shadow reference's slot, if compared.
    pub compare: Option<u32>,
    /// The gradients' slots, if given.
    pub grad: Option<(u32, u32)>,
}

/// The phis at the head of one block, as a table: `srcs[k * phis + phi]` is the value phi
/// number `phi` takes when entered from `preds[k]` ([`NONE`] if it names no such source).
/// Sources are grouped by predecessor so entering a block reads one contiguous run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhiTable {
    /// Range of [`Code::phi_preds`].
    pub preds: (u32, u32),
    /// First of the block's phis in [`Code::phi_dsts`] (and `phi_insts`).
    pub first_phi: u32,
    /// Number of phis.
    pub phis: u32,
    /// First entry in [`Code::phi_srcs`].
    pub first_src: u32,
}

/// What entering a block with phis from one predecessor copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhiEdge {
    /// Range of [`Code::phi_moves`], in phi order.
    pub moves: (u32, u32),
    /// Whether some phi reads another phi's result (a swap, a rotation): only then must
    /// every source be read before any result is written. A phi reading its own result
    /// changes nothing and is not counted.
    pub parallel: bool,
}

/// One phi's copy on one edge: `dst = src`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhiMove {
    /// The source value.
    pub src: u32,
    /// The phi's result.
    pub dst: u32,
    /// Whether no writer of `dst` leaves more than one component nonzero.
    pub scalar: bool,
}

/// A lowered program (all vectors keep their capacity across programs).
#[derive(Clone, Debug, Default)]
pub struct Code {
    /// The code; execution starts at 0 and ends past the last op.
    pub ops: Vec<Op>,
    /// The instruction each op comes from (for errors); reserved for control ops.
    pub op_inst: Vec<Inst>,
    /// Constant vectors.
    pub consts: Vec<[u32; 4]>,
    /// Texture ops.
    pub texs: Vec<TexOp>,
    /// Phi tables of blocks with phis.
    pub phi_tables: Vec<PhiTable>,
    /// Predecessor block ids of the phi tables.
    pub phi_preds: Vec<u32>,
    /// Per entry of `phi_preds`: what entering from it copies, decided once here so that
    /// taking an edge runs a ready list (sources are still checked against `phi_srcs`).
    pub phi_edges: Vec<PhiEdge>,
    /// The copies of every edge: a missing source (which fails every lane entering) is left
    /// out, and so is a phi reading its own result unless the edge is parallel (where a
    /// second phi of the same result could make it matter).
    pub phi_moves: Vec<PhiMove>,
    /// Result value ids of phis.
    pub phi_dsts: Vec<u32>,
    /// The phi instructions (for errors).
    pub phi_insts: Vec<Inst>,
    /// Source value ids ([`NONE`]: no source for that predecessor).
    pub phi_srcs: Vec<u32>,
    /// Per value: how many of its slot's components any instruction writing it may leave
    /// nonzero (the rest stay 0 in every lane), so that writes blend only those.
    pub value_comps: Vec<u8>,
    /// Interned variable types.
    pub types: Types,
    /// Per variable: (first word in the variable storage, words).
    pub vars: Vec<(u32, u32)>,
    /// Interned type of each variable.
    pub var_types: Vec<u32>,
    /// Total variable words.
    pub var_words: u32,
    /// Values in the function (the always-zero slot is number `nvalues`).
    pub nvalues: u32,
    /// Registers in the function.
    pub nregs: u32,
    /// `if` nodes.
    pub if_nodes: u32,
    /// Loop nodes.
    pub loop_nodes: u32,
    /// Scratch: the `if`s and loops around the op being lowered.
    pub(super) nesting: u32,
    /// Scratch: innermost-last (header pc, loop node) of the loops being lowered.
    pub(super) loops: Vec<(u32, u32)>,
    /// Scratch: the values defined on every path to the op being lowered, as bits.
    pub(super) known: Vec<u64>,
    /// Scratch: copies of `known` set aside (`if` sides; per loop, what every `break` of it
    /// knows), each `known.len()` words.
    pub(super) known_saved: Vec<u64>,
    /// Scratch: innermost-last, where each loop being lowered keeps in `known_saved` what its
    /// `break`s know, and whether it has one.
    pub(super) loop_known: Vec<(usize, bool)>,
    /// Scratch: (loop depth, op index) of `break`s and `continue`s waiting for their loop's
    /// exit and latch.
    pub(super) jumps: Vec<(usize, usize)>,
    /// Scratch: phi instructions of the block being lowered.
    pub(super) block_phis: Vec<Inst>,
    /// Scratch: the sorted results of the block's phis.
    pub(super) sorted_dsts: Vec<u32>,
    /// Scratch: how many times each value is used, when the program has a shared atomic
    /// (whose result being read decides the race rule); empty otherwise.
    pub(super) uses: Vec<u32>,
}

impl Code {
    /// Forgets the program, keeping capacity.
    pub fn clear(&mut self) {
        self.ops.clear();
        self.op_inst.clear();
        self.consts.clear();
        self.texs.clear();
        self.phi_tables.clear();
        self.phi_preds.clear();
        self.phi_edges.clear();
        self.phi_moves.clear();
        self.phi_dsts.clear();
        self.phi_insts.clear();
        self.phi_srcs.clear();
        self.value_comps.clear();
        self.types.clear();
        self.vars.clear();
        self.var_types.clear();
        self.loops.clear();
        self.known.clear();
        self.known_saved.clear();
        self.loop_known.clear();
        self.jumps.clear();
        self.block_phis.clear();
        self.sorted_dsts.clear();
        self.uses.clear();
        self.var_words = 0;
        self.nesting = 0;
        self.nvalues = 0;
        self.nregs = 0;
        self.if_nodes = 0;
        self.loop_nodes = 0;
    }
}
