//! A program: its dispatch (the declarations) and one function in structured control flow.
//!
//! Definitions and order are kept apart, as in Cranelift: `insts` and `values` are the
//! data-flow graph; `body` (the control-flow tree) and each block's instruction list are the
//! layout. A pass that moves code edits the layout only.
//!
//! Layout invariants (NIR's), checked by the verifier:
//! * every control-flow list starts and ends with a block, and an `if` or a `loop` always has
//!   a block on each side, so no two blocks are adjacent and no two ifs/loops are;
//! * phis come first in their block; a `break` or `continue` comes last;
//! * each block and each instruction appears in the layout at most once.

use super::{AluOp, BitSize, Block, Inst, InstKind, Reg, Type, Value, Var, VarType};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::PrimaryMap;
use sim::dispatch::Dispatch;

/// A whole program: what the dispatch provides and the code that runs per invocation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Program {
    /// Invocations, outputs, uniforms, buffers and textures.
    pub dispatch: Dispatch,
    /// The code.
    pub func: Function,
}

/// A value's type and the instruction defining it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueData {
    /// The type.
    pub ty: Type,
    /// The defining instruction; none for a value no longer (or not yet) defined.
    pub def: PackedOption<Inst>,
}

/// An instruction and its result.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InstData {
    /// What it does.
    pub kind: InstKind,
    /// The value it defines, if any.
    pub result: PackedOption<Value>,
}

/// A block's instructions, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockData {
    /// Phis first, then the rest; a jump, if any, last.
    pub insts: Vec<Inst>,
}

/// A node of the structured control-flow tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CfNode {
    /// A basic block.
    Block(Block),
    /// A two-way branch that rejoins after both sides.
    If(Box<IfNode>),
    /// A loop, left only by `break`.
    Loop(Box<LoopNode>),
}

/// `if cond { then_list } else { else_list }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IfNode {
    /// A `vec1 1` condition.
    pub cond: Value,
    /// Runs when the condition is true.
    pub then_list: Vec<CfNode>,
    /// Runs when it is false.
    pub else_list: Vec<CfNode>,
}

/// `loop { body }`: the first block of the body is the loop header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopNode {
    /// The body; control falling off its end goes back to the header.
    pub body: Vec<CfNode>,
}

/// The code of a program.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Function {
    /// Every instruction ever created (layout decides which are live).
    pub insts: PrimaryMap<Inst, InstData>,
    /// Every value ever created.
    pub values: PrimaryMap<Value, ValueData>,
    /// Every block ever created.
    pub blocks: PrimaryMap<Block, BlockData>,
    /// Local variables.
    pub vars: PrimaryMap<Var, VarType>,
    /// Registers (register-form IR, after out-of-SSA).
    pub regs: PrimaryMap<Reg, Type>,
    /// The top-level control-flow list.
    pub body: Vec<CfNode>,
}

impl Program {
    /// Whether a placed instruction is an atomic (what a backend without atomics refuses).
    pub fn has_atomics(&self) -> bool {
        self.func.insts_in_order().into_iter().any(|(_, i)| {
            matches!(
                self.func.insts[i].kind,
                InstKind::AtomicBuffer { .. } | InstKind::AtomicShared { .. }
            )
        })
    }

    /// Whether a placed instruction is a subgroup operation (what a backend without them
    /// refuses).
    pub fn has_subgroup_ops(&self) -> bool {
        self.func
            .insts_in_order()
            .into_iter()
            .any(|(_, i)| self.func.insts[i].kind.is_convergent())
    }

    /// The widths of 16- and 64-bit integers a placed instruction defines: 16 and 64 (what a
    /// backend without them refuses, and a device needs `shaderInt16`/`shaderInt64` for).
    pub fn sized_ints(&self) -> (bool, bool) {
        let f = &self.func;
        let (mut b16, mut b64) = (false, false);
        for (_, i) in f.insts_in_order() {
            if let Some(v) = f.insts[i].result.expand() {
                match f.ty(v).bits() {
                    Some(BitSize::B16) => b16 = true,
                    Some(BitSize::B64) => b64 = true,
                    _ => {}
                }
            }
        }
        (b16, b64)
    }
}

impl Function {
    /// The widths of an ALU instruction `op args` whose result is `result`: of its integers
    /// (its first integer operand's, 32 without one or when that operand is not data) and of
    /// its result ([`AluOp::result_bits`]: none for an `Any` op, whose result is its
    /// operands'; the declared size when the result is that). Tolerates missing values.
    pub fn alu_widths(
        &self,
        op: AluOp,
        args: &[Value; 4],
        result: Type,
    ) -> (BitSize, Option<BitSize>) {
        let int = op.int_bits(args.iter().map(|&v| self.values.get(v)?.ty.bits()));
        (int, op.result_bits(int, result.bits()).or(result.bits()))
    }

    /// Whether an ALU instruction works on 16- or 64-bit integers (or picks between them):
    /// the [`AluOp::eval_sized`] ops, with their widths.
    pub fn sized_alu(
        &self,
        op: AluOp,
        args: &[Value; 4],
        result: Type,
    ) -> Option<(BitSize, BitSize)> {
        match self.alu_widths(op, args, result) {
            (int, Some(bits)) if int.is_wide() || bits.is_wide() => Some((int, bits)),
            _ => None,
        }
    }

    /// Creates an instruction (not yet placed in any block) and its result value of type
    /// `ty` (none for `Type::None`).
    pub fn make_inst(&mut self, kind: InstKind, ty: Type) -> (Inst, Option<Value>) {
        let inst = self.insts.next_key();
        let result = (ty != Type::None).then(|| {
            self.values.push(ValueData {
                ty,
                def: inst.into(),
            })
        });
        self.insts.push(InstData {
            kind,
            result: result.into(),
        });
        (inst, result)
    }

    /// The type of a value.
    pub fn ty(&self, v: Value) -> Type {
        self.values[v].ty
    }

    /// The instruction defining a value, if any.
    pub fn def(&self, v: Value) -> Option<Inst> {
        self.values[v].def.expand()
    }

    /// The result of an instruction, if any.
    pub fn result(&self, inst: Inst) -> Option<Value> {
        self.insts[inst].result.expand()
    }

    /// The kind of the instruction defining `v`, if any.
    pub fn def_kind(&self, v: Value) -> Option<&InstKind> {
        self.def(v).map(|i| &self.insts[i].kind)
    }

    /// Blocks in program order (the order the text format prints them).
    pub fn blocks_in_order(&self) -> Vec<Block> {
        let mut out = Vec::new();
        walk_blocks(&self.body, &mut |b| out.push(b));
        out
    }

    /// Instructions in program order, with their blocks.
    pub fn insts_in_order(&self) -> Vec<(Block, Inst)> {
        let mut out = Vec::new();
        walk_blocks(&self.body, &mut |b| {
            out.extend(self.blocks[b].insts.iter().map(|&i| (b, i)));
        });
        out
    }

    /// Number of instructions placed in blocks (the size the reducer and reports quote).
    pub fn inst_count(&self) -> usize {
        let mut n = 0;
        walk_blocks(&self.body, &mut |b| n += self.blocks[b].insts.len());
        n
    }
}

/// Calls `f` for every block of a control-flow list, in program order.
pub fn walk_blocks(list: &[CfNode], f: &mut impl FnMut(Block)) {
    for node in list {
        match node {
            CfNode::Block(b) => f(*b),
            CfNode::If(n) => {
                walk_blocks(&n.then_list, f);
                walk_blocks(&n.else_list, f);
            }
            CfNode::Loop(n) => walk_blocks(&n.body, f),
        }
    }
}

/// The first block of a control-flow list (lists always start with one).
pub fn first_block(list: &[CfNode]) -> Option<Block> {
    match list.first()? {
        CfNode::Block(b) => Some(*b),
        _ => None,
    }
}

/// The last block of a control-flow list (lists always end with one).
pub fn last_block(list: &[CfNode]) -> Option<Block> {
    match list.last()? {
        CfNode::Block(b) => Some(*b),
        _ => None,
    }
}
