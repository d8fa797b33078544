//! Structured control flow and phis.
//!
//! The IR's tree maps onto SPIR-V's structured constructs one to one:
//!
//! * a block is one SPIR-V block (its label holds its instructions);
//! * `if c { T } else { E }` ends the block before it with `OpSelectionMerge M` and a
//!   conditional branch, where `M` is the block after the `if` (the IR always has one);
//! * `loop { B }` gets two extra blocks: a header holding only the loop's phis,
//!   `OpLoopMerge M C` and a branch to `B`'s first block, and a continue block `C` that
//!   branches back to the header. `M` is the block after the loop; `break` branches to `M`,
//!   `continue` and falling off the body branch to `C`.
//!
//! Because every back-edge now goes through `C`, an IR loop-header phi becomes two: a phi in
//! `C` taking the IR phi's sources for the edges into `C`, and the header phi taking the
//! entry source and `C`'s phi. Phis are inserted after the whole function is emitted, from
//! the recorded edges (each edge knows which IR block it leaves), so forward references need
//! no care; a phi source for a SPIR-V edge the IR has no source for is `OpUndef`.
//!
//! Code after a `break`/`continue` in the same list, and after an `if` or `loop` that never
//! falls through, cannot run: it is not emitted, except the merge block a live construct
//! names, which becomes `OpUnreachable`.

use crate::emitter::{need, EdgePred, Emitter, PendingPhi};
use crate::EmitError;
use compiler::ir::{first_block, Block, CfNode, InstKind, Value};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{self, Word};
use std::collections::HashMap;

/// Where `break` and `continue` go in the innermost loop.
pub(crate) struct LoopTargets {
    merge: Word,
    cont: Word,
    /// Whether some `break` was emitted (otherwise the merge block is unreachable).
    broken: bool,
}

/// Emits a control-flow list; its last block branches to `exit`. Returns whether control
/// can fall off the end (and so reach `exit`).
pub(crate) fn emit_list(
    e: &mut Emitter,
    list: &[CfNode],
    mut lp: Option<&mut LoopTargets>,
    exit: Word,
) -> Result<bool, EmitError> {
    let mut open: Option<(Block, Word)> = None;
    for (i, node) in list.iter().enumerate() {
        match node {
            CfNode::Block(b) => {
                let label = e.label(*b);
                e.b.begin_block(Some(label))?;
                match emit_block(e, *b)? {
                    None => open = Some((*b, label)),
                    Some(jump) => {
                        let Some(lp) = lp.as_deref_mut() else {
                            return Err(EmitError::Invalid(format!("{b}: jump outside a loop")));
                        };
                        let to = if jump == InstKind::Break {
                            lp.broken = true;
                            lp.merge
                        } else {
                            lp.cont
                        };
                        e.branch(label, to, EdgePred::Ir(*b))?;
                        return Ok(false);
                    }
                }
            }
            CfNode::If(n) => {
                let (b, label) = take_open(&mut open)?;
                let merge = next_block(e, list, i)?;
                let cond = e.val(n.cond)?;
                let cond = e.component(cond, e.func.ty(n.cond), 0)?;
                let then_first = list_entry(e, &n.then_list)?;
                let else_first = list_entry(e, &n.else_list)?;
                e.b.selection_merge(merge, spirv::SelectionControl::NONE)?;
                e.b.branch_conditional(cond, then_first, else_first, [])?;
                for to in [then_first, else_first] {
                    e.edges.push(crate::emitter::Edge {
                        to,
                        from: label,
                        pred: EdgePred::Ir(b),
                    });
                }
                let then_falls = emit_list(e, &n.then_list, lp.as_deref_mut(), merge)?;
                let else_falls = emit_list(e, &n.else_list, lp.as_deref_mut(), merge)?;
                if !then_falls && !else_falls {
                    unreachable_block(e, merge)?;
                    return Ok(false);
                }
            }
            CfNode::Loop(n) => {
                let (b, label) = take_open(&mut open)?;
                let merge = next_block(e, list, i)?;
                let Some(first) = first_block(&n.body) else {
                    return Err(EmitError::Invalid("a loop body without a block".into()));
                };
                let header = e.b.id();
                let cont = e.b.id();
                e.phi_home.insert(first, header);
                e.branch(label, header, EdgePred::Ir(b))?;
                e.b.begin_block(Some(header))?;
                let body = e.label(first);
                e.b.loop_merge(merge, cont, spirv::LoopControl::NONE, [])?;
                e.branch(header, body, EdgePred::None)?;
                let mut targets = LoopTargets {
                    merge,
                    cont,
                    broken: false,
                };
                emit_list(e, &n.body, Some(&mut targets), cont)?;
                e.b.begin_block(Some(cont))?;
                if e.edges.iter().any(|edge| edge.to == cont) {
                    route_header_phis(e, first, cont)?;
                }
                e.branch(cont, header, EdgePred::Continue)?;
                if !targets.broken {
                    unreachable_block(e, merge)?;
                    return Ok(false);
                }
            }
        }
    }
    let (b, label) = take_open(&mut open)?;
    e.branch(label, exit, EdgePred::Ir(b))?;
    Ok(true)
}

fn take_open(open: &mut Option<(Block, Word)>) -> Result<(Block, Word), EmitError> {
    open.take()
        .ok_or_else(|| EmitError::Invalid("an if or loop not preceded by a block".into()))
}

/// The label of the block after node `i` (the merge block of the `if` or loop at `i`).
fn next_block(e: &mut Emitter, list: &[CfNode], i: usize) -> Result<Word, EmitError> {
    match list.get(i + 1) {
        Some(CfNode::Block(m)) => Ok(e.label(*m)),
        _ => Err(EmitError::Invalid(
            "an if or loop not followed by a block".into(),
        )),
    }
}

fn list_entry(e: &mut Emitter, list: &[CfNode]) -> Result<Word, EmitError> {
    match first_block(list) {
        Some(b) => Ok(e.entry_label(b)),
        None => Err(EmitError::Invalid("a list without a first block".into())),
    }
}

fn unreachable_block(e: &mut Emitter, label: Word) -> Result<(), EmitError> {
    e.b.begin_block(Some(label))?;
    e.b.unreachable()?;
    Ok(())
}

/// The continue block's phis: one per phi of the loop header `first`.
fn route_header_phis(e: &mut Emitter, first: Block, cont: Word) -> Result<(), EmitError> {
    let func = e.func;
    for &inst in &func.blocks[first].insts {
        if !matches!(func.insts[inst].kind, InstKind::Phi { .. }) {
            continue;
        }
        let Some(v) = func.result(inst) else { continue };
        let ty = e.data_type(func.ty(v))?;
        let result = e.b.id();
        e.phis.push(PendingPhi {
            home: cont,
            result,
            ty,
            phi: v,
            routed: true,
        });
    }
    Ok(())
}

/// Emits a block's instructions (its phis only get ids); returns the jump ending it, if any.
fn emit_block(e: &mut Emitter, block: Block) -> Result<Option<InstKind>, EmitError> {
    let func = e.func;
    for &inst in &func.blocks[block].insts {
        let data = &func.insts[inst];
        let result = data.result.expand();
        match &data.kind {
            InstKind::Phi { .. } => {
                let v = need(result, "phi")?;
                let ty = e.data_type(func.ty(v))?;
                let id = e.b.id();
                e.vals.insert(v, id);
                let home = e.entry_label(block);
                e.phis.push(PendingPhi {
                    home,
                    result: id,
                    ty,
                    phi: v,
                    routed: false,
                });
            }
            k @ (InstKind::Break | InstKind::Continue) => return Ok(Some(k.clone())),
            kind => emit_inst(e, kind, result)?,
        }
    }
    Ok(None)
}

fn emit_inst(e: &mut Emitter, kind: &InstKind, result: Option<Value>) -> Result<(), EmitError> {
    let func = e.func;
    match kind {
        InstKind::Const { bits } => {
            let v = need(result, "constant")?;
            let t = func.ty(v);
            let id = e.const_vector(t, &bits[..t.comps() as usize])?;
            e.vals.insert(v, id);
        }
        InstKind::Alu { op, args } => {
            let v = need(result, op.name())?;
            let id = crate::alu::emit_alu(e, *op, args, func.ty(v))?;
            e.vals.insert(v, id);
        }
        InstKind::Vec { args } => {
            let v = need(result, "vec")?;
            let t = func.ty(v);
            let n = t.comps() as usize;
            let mut parts = Vec::with_capacity(n);
            for &a in &args[..n] {
                let id = e.val(a)?;
                parts.push(e.component(id, func.ty(a), 0)?);
            }
            let id = if n == 1 {
                parts[0]
            } else {
                let ty = e.data_type(t)?;
                e.b.composite_construct(ty, None, parts)?
            };
            e.vals.insert(v, id);
        }
        InstKind::Mov { src, swizzle } => {
            let v = need(result, "mov")?;
            let id = emit_mov(e, *src, swizzle, func.ty(v))?;
            e.vals.insert(v, id);
        }
        InstKind::InvocationId => {
            let v = need(result, "load_invocation_id")?;
            e.vals.insert(v, e.invocation);
        }
        InstKind::LocalId
        | InstKind::WorkgroupId
        | InstKind::Barrier
        | InstKind::LoadShared { .. }
        | InstKind::StoreShared { .. }
        | InstKind::AtomicShared { .. } => crate::workgroup::emit(e, kind, result)?,
        InstKind::Subgroup { op, args } => crate::subgroup::emit(e, *op, args, result)?,
        _ => crate::memory::emit_memory(e, kind, result)?,
    }
    Ok(())
}

/// `mov`: component `c` of the result is component `swizzle[c]` of `src`.
fn emit_mov(
    e: &mut Emitter,
    src: Value,
    swizzle: &[u8; 4],
    t: compiler::ir::Type,
) -> Result<Word, EmitError> {
    let s = e.val(src)?;
    let st = e.func.ty(src);
    let n = t.comps() as usize;
    let m = st.comps();
    if swizzle[..n].iter().any(|&c| c >= m) {
        return Err(EmitError::Invalid(format!(
            "mov of {src} reads past its end"
        )));
    }
    let ty = e.data_type(t)?;
    Ok(match (n, m) {
        (1, 1) => s,
        (1, _) => {
            e.b.composite_extract(ty, None, s, [u32::from(swizzle[0])])?
        }
        (_, 1) => e.b.composite_construct(ty, None, vec![s; n])?,
        _ => {
            let comps = swizzle[..n].iter().map(|&c| u32::from(c));
            e.b.vector_shuffle(ty, None, s, s, comps)?
        }
    })
}

/// Inserts every pending phi at the head of its block, with one (value, parent) pair per
/// recorded edge into that block.
pub(crate) fn insert_phis(e: &mut Emitter) -> Result<(), EmitError> {
    let routed: HashMap<Value, Word> = e
        .phis
        .iter()
        .filter(|p| p.routed)
        .map(|p| (p.phi, p.result))
        .collect();
    let mut by_home: HashMap<Word, Vec<Instruction>> = HashMap::new();
    let phis = std::mem::take(&mut e.phis);
    for p in &phis {
        let mut operands = Vec::new();
        let incoming: Vec<_> = e
            .edges
            .iter()
            .filter(|edge| edge.to == p.home)
            .map(|edge| (edge.from, edge.pred))
            .collect();
        for (from, pred) in incoming {
            let source = match pred {
                EdgePred::Ir(pb) => phi_source(e, p.phi, pb),
                EdgePred::Continue if !p.routed => routed.get(&p.phi).copied(),
                EdgePred::Continue | EdgePred::None => None,
            };
            let value = match source {
                Some(v) => v,
                None => e.undef(p.ty),
            };
            operands.push(Operand::IdRef(value));
            operands.push(Operand::IdRef(from));
        }
        if operands.is_empty() {
            return Err(EmitError::Builder(format!(
                "phi {} in a block without predecessors",
                p.phi
            )));
        }
        let inst = Instruction::new(spirv::Op::Phi, Some(p.ty), Some(p.result), operands);
        by_home.entry(p.home).or_default().push(inst);
    }
    // Called right after the function is ended: it is the module's last.
    let module = e.b.module_mut();
    let Some(function) = module.functions.last_mut() else {
        return Err(EmitError::Builder("phis without a function".into()));
    };
    for block in &mut function.blocks {
        let Some(label) = block.label.as_ref().and_then(|l| l.result_id) else {
            continue;
        };
        if let Some(insts) = by_home.remove(&label) {
            block.instructions.splice(0..0, insts);
        }
    }
    if !by_home.is_empty() {
        return Err(EmitError::Builder("phis for a block never emitted".into()));
    }
    Ok(())
}

/// The id of the IR phi `phi`'s source for predecessor `pred`, if it has one that was emitted.
fn phi_source(e: &Emitter, phi: Value, pred: Block) -> Option<Word> {
    let InstKind::Phi { sources } = e.func.def_kind(phi)? else {
        return None;
    };
    let s = sources.iter().find(|s| s.pred == pred)?;
    e.vals.get(&s.value).copied()
}
