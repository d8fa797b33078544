//! SSA construction for local variables: every variable whose deref chains all have
//! constant indices becomes SSA values, one per 32-bit word, with phis where paths meet.
//!
//! Analysis: each deref chain is resolved to (variable, word offset, pointee type) —
//! `deref_array` with a constant index wraps it at the array length as the interpreter does,
//! `deref_struct` adds the field offset, `deref_cast` keeps the offset and changes the type.
//! A variable with any dynamic index, an unresolvable step, or an access past its end stays
//! in memory (the backends lower it to scratch/private memory). If a deref value is used by
//! anything but a deref step, load or store (a phi of derefs, say) or made by anything but a
//! deref step, no variable is promoted at all.
//!
//! Renaming walks the structured tree once with the current value of every word ("slot"),
//! starting at 0 (variables are zero when an invocation starts): a load becomes a `vec` (or
//! `mov`) of the current values, a store updates them (one `mov` per component). At an `if`
//! merge a phi joins slots whose values differ on the two incoming paths; at a loop header
//! a phi is created for every slot stored anywhere in the loop (entry edge plus one source
//! per back-edge: each `continue` and the fall-through end of the body); after a loop, a phi
//! joins the slot values of the `break`s where they differ. Trivial header phis are left to
//! `opt_remove_phis`.
//!
//! Edge cases: a path ending in `break`/`continue` does not reach the merge; a merge or a
//! loop exit no path reaches (unreachable code) keeps the values from before.

use crate::ir::{
    first_block, last_block, Block, CfNode, Function, Inst, InstKind, PhiSource, Type, Value,
    VarType,
};
use cranelift_entity::packed_option::ReservedValue;
use cranelift_entity::SecondaryMap;

/// Where a resolved deref points: its slot range start and pointee type.
#[derive(Clone, Default)]
struct Place {
    slot: u32,
    ty: Option<VarType>,
    var: u32,
}

/// Promotes constant-indexed local variables to SSA values; returns whether any was.
pub fn lower_vars_to_ssa(func: &mut Function) -> bool {
    let Some((places, promoted)) = analyse(func) else {
        return false;
    };
    if !promoted.iter().any(|&p| p) {
        return false;
    }
    let nslots = func
        .vars
        .values()
        .map(|t| t.words() as usize)
        .sum::<usize>();
    let Some(entry) = first_block(&func.body) else {
        return false;
    };
    let (zinst, zero) = func.make_inst(InstKind::Const { bits: [0; 4] }, Type::I32);
    func.blocks[entry].insts.insert(0, zinst);
    let mut cx = Rename {
        places,
        promoted,
        removed: SecondaryMap::new(),
    };
    let body = std::mem::take(&mut func.body);
    let cur = vec![zero.expect("a const has a result"); nslots];
    cx.list(func, &body, cur, &mut Vec::new());
    func.body = body;
    func.remove_insts(&cx.removed);
    true
}

/// Resolves every placed deref; returns the places and which variables can be promoted.
fn analyse(func: &Function) -> Option<(SecondaryMap<Value, Place>, Vec<bool>)> {
    let mut base = Vec::with_capacity(func.vars.len());
    let mut next = 0u32;
    for t in func.vars.values() {
        base.push(next);
        next += t.words();
    }
    let mut promoted = vec![true; func.vars.len()];
    let mut places: SecondaryMap<Value, Place> = SecondaryMap::new();
    let mut known: SecondaryMap<Value, bool> = SecondaryMap::new();
    for (_, inst) in func.insts_in_order() {
        let kind = &func.insts[inst].kind;
        let deref_use_ok = matches!(
            kind,
            InstKind::DerefArray { .. }
                | InstKind::DerefStruct { .. }
                | InstKind::DerefCast { .. }
                | InstKind::LoadDeref { .. }
        );
        let mut bad_use = false;
        match kind {
            InstKind::StoreDeref { value, .. } => bad_use |= func.ty(*value) == Type::Deref,
            InstKind::DerefArray { index, .. } => bad_use |= func.ty(*index) == Type::Deref,
            _ if !deref_use_ok => kind.visit_args(|v| bad_use |= func.ty(v) == Type::Deref),
            _ => {}
        }
        if bad_use {
            return None;
        }
        let Some(result) = func.result(inst) else {
            continue;
        };
        let place = match kind {
            InstKind::DerefVar { var } => Some(Place {
                slot: base[var.as_u32() as usize],
                ty: Some(func.vars[*var].clone()),
                var: var.as_u32(),
            }),
            InstKind::DerefArray { parent, index } => {
                let p = known[*parent].then(|| places[*parent].clone())?;
                let idx = func.const_bits(*index).map(|b| b[0]);
                match (&p.ty, idx) {
                    (Some(VarType::Array(elem, len)), Some(i)) if *len > 0 => Some(Place {
                        slot: p.slot + (i % len) * elem.words(),
                        ty: Some((**elem).clone()),
                        var: p.var,
                    }),
                    _ => {
                        promoted[p.var as usize] = false;
                        Some(Place { ty: None, ..p })
                    }
                }
            }
            InstKind::DerefStruct { parent, field } => {
                let p = known[*parent].then(|| places[*parent].clone())?;
                let off = p.ty.as_ref().and_then(|t| t.field_offset(*field));
                match (&p.ty, off) {
                    (Some(VarType::Struct(fields)), Some(off)) => Some(Place {
                        slot: p.slot + off,
                        ty: Some(fields[*field as usize].clone()),
                        var: p.var,
                    }),
                    _ => {
                        promoted[p.var as usize] = false;
                        Some(Place { ty: None, ..p })
                    }
                }
            }
            InstKind::DerefCast { parent, ty } => {
                let p = known[*parent].then(|| places[*parent].clone())?;
                Some(Place {
                    ty: p.ty.as_ref().map(|_| ty.clone()),
                    ..p
                })
            }
            _ if func.ty(result) == Type::Deref => return None,
            _ => None,
        };
        if let Some(p) = place {
            let var = p.var as usize;
            let end = base[var] + func.vars.values().nth(var).map_or(0, VarType::words);
            let fits = p.ty.as_ref().is_some_and(|t| p.slot + t.words() <= end);
            if !fits {
                promoted[var] = false;
            }
            places[result] = p;
            known[result] = true;
        }
    }
    // Loads and stores must be of whole vectors.
    for (_, inst) in func.insts_in_order() {
        if let InstKind::LoadDeref { deref } | InstKind::StoreDeref { deref, .. } =
            &func.insts[inst].kind
        {
            if !known[*deref] {
                return None;
            }
            let p = &places[*deref];
            if !matches!(p.ty, Some(VarType::Vector(_))) {
                promoted[p.var as usize] = false;
            }
        }
    }
    Some((places, promoted))
}

/// Slot values where a `break` or `continue` left: (block, values).
type Exits = Vec<(Block, Vec<Value>)>;

struct Rename {
    places: SecondaryMap<Value, Place>,
    promoted: Vec<bool>,
    removed: SecondaryMap<Inst, bool>,
}

/// Jumps seen while walking a loop body.
#[derive(Default)]
struct LoopExits {
    breaks: Exits,
    continues: Exits,
}

impl Rename {
    fn promoted_deref(&self, func: &Function, v: Value) -> Option<(u32, u32)> {
        if func.ty(v) != Type::Deref {
            return None;
        }
        let p = &self.places[v];
        match (&p.ty, self.promoted.get(p.var as usize)) {
            (Some(t), Some(true)) => Some((p.slot, t.words())),
            _ => None,
        }
    }

    /// Walks a list from the state `cur`; returns the state at its end if control falls
    /// off it. `loops` is the stack of enclosing loops' exits.
    fn list(
        &mut self,
        func: &mut Function,
        list: &[CfNode],
        mut cur: Vec<Value>,
        loops: &mut Vec<LoopExits>,
    ) -> Option<Vec<Value>> {
        for (idx, node) in list.iter().enumerate() {
            match node {
                CfNode::Block(b) => {
                    self.block(func, *b, &mut cur);
                    if func.ends_in_jump(*b) {
                        let brk = matches!(
                            func.blocks[*b].insts.last().map(|&i| &func.insts[i].kind),
                            Some(InstKind::Break)
                        );
                        if let Some(l) = loops.last_mut() {
                            let exits = if brk { &mut l.breaks } else { &mut l.continues };
                            exits.push((*b, cur.clone()));
                        }
                        return None;
                    }
                }
                CfNode::If(n) => {
                    let t = self.list(func, &n.then_list, cur.clone(), loops);
                    let e = self.list(func, &n.else_list, cur.clone(), loops);
                    let mut ins = Vec::new();
                    if let (Some(t), Some(b)) = (t, last_block(&n.then_list)) {
                        ins.push((b, t));
                    }
                    if let (Some(e), Some(b)) = (e, last_block(&n.else_list)) {
                        ins.push((b, e));
                    }
                    if let Some(CfNode::Block(merge)) = list.get(idx + 1) {
                        join(func, *merge, &ins, &mut cur);
                    }
                }
                CfNode::Loop(n) => {
                    let (Some(header), Some(CfNode::Block(prev))) =
                        (first_block(&n.body), idx.checked_sub(1).map(|k| &list[k]))
                    else {
                        continue;
                    };
                    let mut stored = vec![false; cur.len()];
                    self.stored_slots(func, &n.body, &mut stored);
                    let mut phis = Vec::new();
                    let mut inner = cur.clone();
                    for (s, _) in stored.iter().enumerate().filter(|(_, &st)| st) {
                        let src = PhiSource {
                            pred: *prev,
                            value: cur[s],
                        };
                        let (phi, v) = make_phi(func, header, vec![src]);
                        inner[s] = v;
                        phis.push((phi, s));
                    }
                    loops.push(LoopExits::default());
                    let end = self.list(func, &n.body, inner, loops);
                    let mut exits = loops.pop().expect("pushed above");
                    if let (Some(end), Some(last)) = (end, last_block(&n.body)) {
                        exits.continues.push((last, end));
                    }
                    for (phi, s) in phis {
                        if let InstKind::Phi { sources } = &mut func.insts[phi].kind {
                            for (pred, state) in &exits.continues {
                                sources.push(PhiSource {
                                    pred: *pred,
                                    value: state[s],
                                });
                            }
                        }
                    }
                    if let Some(CfNode::Block(after)) = list.get(idx + 1) {
                        join(func, *after, &exits.breaks, &mut cur);
                    }
                }
            }
        }
        Some(cur)
    }

    /// Marks the slots stored anywhere in `list`.
    fn stored_slots(&self, func: &Function, list: &[CfNode], out: &mut [bool]) {
        crate::ir::walk_blocks(list, &mut |b| {
            for &i in &func.blocks[b].insts {
                if let InstKind::StoreDeref { deref, .. } = func.insts[i].kind {
                    if let Some((slot, words)) = self.promoted_deref(func, deref) {
                        out[slot as usize..(slot + words) as usize].fill(true);
                    }
                }
            }
        });
    }

    /// Rewrites the loads and stores of promoted variables in one block.
    fn block(&mut self, func: &mut Function, b: Block, cur: &mut [Value]) {
        let insts = std::mem::take(&mut func.blocks[b].insts);
        let mut out = Vec::with_capacity(insts.len());
        for inst in insts {
            match func.insts[inst].kind.clone() {
                InstKind::DerefVar { .. }
                | InstKind::DerefArray { .. }
                | InstKind::DerefStruct { .. }
                | InstKind::DerefCast { .. } => {
                    let r = func.result(inst).expect("derefs have results");
                    let p = &self.places[r];
                    if self.promoted.get(p.var as usize) == Some(&true) {
                        self.removed[inst] = true;
                    }
                }
                InstKind::LoadDeref { deref } => {
                    if let Some((slot, words)) = self.promoted_deref(func, deref) {
                        let slots = &cur[slot as usize..(slot + words) as usize];
                        func.insts[inst].kind = if words == 1 {
                            InstKind::Mov {
                                src: slots[0],
                                swizzle: [0; 4],
                            }
                        } else {
                            let mut args = [Value::reserved_value(); 4];
                            args[..slots.len()].copy_from_slice(slots);
                            InstKind::Vec { args }
                        };
                    }
                }
                InstKind::StoreDeref { deref, value } => {
                    if let Some((slot, words)) = self.promoted_deref(func, deref) {
                        self.removed[inst] = true;
                        for c in 0..words {
                            cur[(slot + c) as usize] = if words == 1 {
                                value
                            } else {
                                let mut swizzle = [0; 4];
                                swizzle[0] = c as u8;
                                let kind = InstKind::Mov {
                                    src: value,
                                    swizzle,
                                };
                                let (mov, v) = func.make_inst(kind, Type::I32);
                                out.push(mov);
                                v.expect("a mov has a result")
                            };
                        }
                    }
                }
                _ => {}
            }
            out.push(inst);
        }
        func.blocks[b].insts = out;
    }
}

/// Joins the incoming states at `block`: a slot with one value on every incoming path keeps
/// it, one whose values differ gets a phi. No incoming path: unreachable, `cur` is kept.
fn join(func: &mut Function, block: Block, ins: &[(Block, Vec<Value>)], cur: &mut [Value]) {
    let Some((_, first)) = ins.first() else {
        return;
    };
    for s in 0..cur.len() {
        if ins.iter().all(|(_, st)| st[s] == first[s]) {
            cur[s] = first[s];
        } else {
            let sources = ins
                .iter()
                .map(|(pred, st)| PhiSource {
                    pred: *pred,
                    value: st[s],
                })
                .collect();
            cur[s] = make_phi(func, block, sources).1;
        }
    }
}

/// A new `vec1 32` phi at the head of `block`.
fn make_phi(func: &mut Function, block: Block, sources: Vec<PhiSource>) -> (Inst, Value) {
    let (inst, v) = func.make_inst(InstKind::Phi { sources }, Type::I32);
    func.blocks[block].insts.insert(0, inst);
    (inst, v.expect("a phi has a result"))
}
