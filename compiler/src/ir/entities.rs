//! Entity references: small typed indices into the maps of a [`Function`](super::Function).
//!
//! Their `Display` matches the text format (`ssa_3`, `block_2`, `reg_1`, `var_0`).

use cranelift_entity::entity_impl;

/// An SSA value: the result of one instruction.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(u32);
entity_impl!(Value, "ssa_");

/// An instruction in the data-flow graph.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Inst(u32);
entity_impl!(Inst, "inst");

/// A basic block: a straight run of instructions in the structured control-flow tree.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block(u32);
entity_impl!(Block, "block_");

/// A non-SSA register, introduced by out-of-SSA and read/written by `load_reg`/`store_reg`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(u32);
entity_impl!(Reg, "reg_");

/// A local variable, reached through deref chains.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var(u32);
entity_impl!(Var, "var_");
