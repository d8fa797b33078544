//! The editing vocabulary the mutations share: addressing a control-flow list by its path
//! through the tree, placing new instructions in a block (after its phis, before its jump),
//! and making a value observable in an output slot of its own.
//!
//! Nothing here panics on a program it does not expect: a path that does not lead to a list
//! gives `None`, and the mutation that asked for it does not apply.

use crate::rng::SplitMix64;
use compiler::ir::{AluOp, Block, CfNode, Function, InstKind, Program, Type, Value};
use cranelift_entity::packed_option::ReservedValue;

/// Most output slots a mutation grows a program to (the text format's default limit).
const MAX_OUTPUTS: u32 = 256;

/// One step from a control-flow list into a nested one: node `i`'s then-list, else-list or
/// loop body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The then-list of the `if` at this index.
    Then(usize),
    /// The else-list of the `if` at this index.
    Else(usize),
    /// The body of the `loop` at this index.
    Body(usize),
}

/// A control-flow list's address: the steps from the function body to it.
pub type Path = Vec<Step>;

/// The list at `path`, if the path leads to one.
pub fn list<'a>(body: &'a [CfNode], path: &[Step]) -> Option<&'a [CfNode]> {
    let mut list = body;
    for step in path {
        list = match (step, list.get(index(*step))?) {
            (Step::Then(_), CfNode::If(n)) => &n.then_list,
            (Step::Else(_), CfNode::If(n)) => &n.else_list,
            (Step::Body(_), CfNode::Loop(n)) => &n.body,
            _ => return None,
        };
    }
    Some(list)
}

/// The list at `path`, mutably.
pub fn list_mut<'a>(body: &'a mut Vec<CfNode>, path: &[Step]) -> Option<&'a mut Vec<CfNode>> {
    let mut list = body;
    for step in path {
        list = match (step, list.get_mut(index(*step))?) {
            (Step::Then(_), CfNode::If(n)) => &mut n.then_list,
            (Step::Else(_), CfNode::If(n)) => &mut n.else_list,
            (Step::Body(_), CfNode::Loop(n)) => &mut n.body,
            _ => return None,
        };
    }
    Some(list)
}

fn index(step: Step) -> usize {
    match step {
        Step::Then(i) | Step::Else(i) | Step::Body(i) => i,
    }
}

/// Every control-flow list of the function, outermost first.
pub fn all_lists(body: &[CfNode]) -> Vec<Path> {
    let mut out = vec![Vec::new()];
    let mut i = 0;
    while i < out.len() {
        let path = out[i].clone();
        if let Some(list) = list(body, &path) {
            for (k, node) in list.iter().enumerate() {
                let steps: &[Step] = match node {
                    CfNode::Block(_) => &[],
                    CfNode::If(_) => &[Step::Then(k), Step::Else(k)],
                    CfNode::Loop(_) => &[Step::Body(k)],
                };
                for s in steps {
                    let mut p = path.clone();
                    p.push(*s);
                    out.push(p);
                }
            }
        }
        i += 1;
    }
    out
}

/// Every `(path, index)` of a node of the list at `path` that `wanted` accepts.
pub fn nodes(body: &[CfNode], wanted: impl Fn(&CfNode) -> bool) -> Vec<(Path, usize)> {
    let mut out = Vec::new();
    for path in all_lists(body) {
        if let Some(list) = list(body, &path) {
            out.extend(
                (0..list.len())
                    .filter(|&k| wanted(&list[k]))
                    .map(|k| (path.clone(), k)),
            );
        }
    }
    out
}

/// The block at `list[k]`, if it is one.
pub fn block_at(list: &[CfNode], k: usize) -> Option<Block> {
    match list.get(k)? {
        CfNode::Block(b) => Some(*b),
        _ => None,
    }
}

/// Whether any block of `nodes` outside nested loops ends in a `break` or `continue` (a jump
/// that belongs to the loop around `nodes`).
pub fn has_own_jump(func: &Function, nodes: &[CfNode]) -> bool {
    nodes.iter().any(|node| match node {
        CfNode::Block(b) => func.ends_in_jump(*b),
        CfNode::If(n) => has_own_jump(func, &n.then_list) || has_own_jump(func, &n.else_list),
        CfNode::Loop(_) => false,
    })
}

/// Whether a block of `nodes` (the top-level ones: barriers are nowhere else) holds a
/// `barrier`, which must stay in the top-level list.
pub fn has_barrier(func: &Function, nodes: &[CfNode]) -> bool {
    nodes.iter().any(|node| match node {
        CfNode::Block(b) => func.blocks[*b]
            .insts
            .iter()
            .any(|&i| matches!(func.insts[i].kind, InstKind::Barrier)),
        _ => false,
    })
}

/// Places a new instruction at the end of block `b` (before its jump, if any).
pub fn append(func: &mut Function, b: Block, kind: InstKind, ty: Type) -> Option<Value> {
    let at = func.blocks[b].insts.len() - usize::from(func.ends_in_jump(b));
    insert(func, b, at, kind, ty)
}

/// Places a new instruction at position `at` of block `b`.
pub fn insert(func: &mut Function, b: Block, at: usize, kind: InstKind, ty: Type) -> Option<Value> {
    let (inst, v) = func.make_inst(kind, ty);
    func.blocks[b].insts.insert(at, inst);
    v
}

/// Places a new phi at the head of block `b`.
pub fn prepend_phi(func: &mut Function, b: Block, kind: InstKind, ty: Type) -> Value {
    let (inst, v) = func.make_inst(kind, ty);
    func.blocks[b].insts.insert(0, inst);
    v.unwrap_or_else(Value::reserved_value)
}

/// Appends a component-wise ALU operation to `b`; its result type follows the operands as
/// `Builder::alu_type`'s does (a builder only appends to the block it is building).
pub fn alu(func: &mut Function, b: Block, op: AluOp, args: &[Value]) -> Value {
    let comps = func.ty(args[0]).comps();
    let ty = match op.dst() {
        compiler::ir::alu::Kind::Bool => Type::vec1(comps),
        compiler::ir::alu::Kind::Any => func.ty(args[1]),
        _ => Type::vec32(comps),
    };
    let mut a = [Value::reserved_value(); 4];
    a[..args.len()].copy_from_slice(args);
    let kind = InstKind::Alu { op, args: a };
    append(func, b, kind, ty).unwrap_or_else(Value::reserved_value)
}

/// Appends a constant of 32-bit words (1–4) to `b`.
pub fn constant(func: &mut Function, b: Block, words: &[u32]) -> Value {
    let mut bits = [0; 4];
    bits[..words.len()].copy_from_slice(words);
    let ty = Type::vec32(words.len() as u8);
    append(func, b, InstKind::Const { bits }, ty).unwrap_or_else(Value::reserved_value)
}

/// Appends the invocation id to `b`: a value that differs per invocation, so nothing built
/// on it folds to a constant.
pub fn invocation_id(func: &mut Function, b: Block) -> Value {
    append(func, b, InstKind::InvocationId, Type::I32).unwrap_or_else(Value::reserved_value)
}

/// Stores 32-bit `value` in output slots of its own, appended to the program's, at the end
/// of `b`, so what the mutation built is compared; `None` if the outputs would pass the
/// limit.
pub fn observe(program: &mut Program, b: Block, value: Value) -> Option<()> {
    let comps = program.func.ty(value).comps() as u32;
    let slot = program.dispatch.outputs;
    if comps == 0 || slot + comps > MAX_OUTPUTS {
        return None;
    }
    program.dispatch.outputs += comps;
    let store = InstKind::StoreOutput { slot, value };
    append(&mut program.func, b, store, Type::None);
    Some(())
}

/// One of `xs`, uniformly.
pub fn pick<'a, T>(xs: &'a [T], rng: &mut SplitMix64) -> Option<&'a T> {
    if xs.is_empty() {
        return None;
    }
    xs.get(rng.range(0, xs.len() as u64 - 1) as usize)
}
