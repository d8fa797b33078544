//! Vector shrinking: components of a vector value that nothing reads are dropped, so the
//! per-component dead code behind them can die (the L4D2 follow-up in the seed: a phi kept
//! alive by a component nobody uses).
//!
//! A value's read mask is the union over its uses: a `mov` reads the components its
//! swizzle names; every other use (ALU ops, stores, outputs, phis, texture coordinates,
//! indices) reads all of them. When the mask is neither empty nor full, the definition
//! shrinks to the read components, in order, and every `mov` use's swizzle is renumbered:
//!
//! * `load_const`, `vec`, `mov`: keep the read components / operands / swizzle entries;
//! * ALU ops (component-wise): each operand is narrowed by a new `mov x.K` placed just
//!   before the op, `K` the kept components (the next round may shrink the operand itself);
//! * `load_uniform`, `load_buffer`: read consecutive words from the index, so only trailing
//!   components go (the first ones keep their numbers).
//!
//! Invariant relied on: ALU operands have the result's component count; uses other than
//! `mov` are treated as reading everything, so only `mov` swizzles need rewriting. Phis,
//! texture results and deref loads are left at full width.

use crate::ir::{Function, Inst, InstKind, Value};
use cranelift_entity::packed_option::ReservedValue;
use cranelift_entity::SecondaryMap;

/// Drops unread components of vector values; returns whether anything shrank.
pub fn shrink_vectors(func: &mut Function) -> bool {
    let mut mask: SecondaryMap<Value, u8> = SecondaryMap::with_capacity(func.values.len());
    let read = |mask: &mut SecondaryMap<Value, u8>, v: Value, m: u8| mask[v] |= m;
    for (_, inst) in func.insts_in_order() {
        let kind = &func.insts[inst].kind;
        match kind {
            InstKind::Mov { src, swizzle } => {
                let n = func.result(inst).map_or(0, |r| func.ty(r).comps());
                let m = swizzle[..usize::from(n)]
                    .iter()
                    .fold(0u8, |m, &c| m | (1 << c));
                read(&mut mask, *src, m);
            }
            _ => kind.visit_args(|v| read(&mut mask, v, 0xf)),
        }
    }
    // New position of each old component of each shrunk value.
    let mut remap: SecondaryMap<Value, Option<[u8; 4]>> = SecondaryMap::new();
    let mut progress = false;
    for b in func.blocks_in_order() {
        let insts = std::mem::take(&mut func.blocks[b].insts);
        let mut out = Vec::with_capacity(insts.len());
        for inst in insts {
            if let Some(result) = func.result(inst) {
                if let Some(map) = shrink(func, inst, result, mask[result], &mut out) {
                    remap[result] = Some(map);
                    progress = true;
                }
            }
            out.push(inst);
        }
        func.blocks[b].insts = out;
    }
    if progress {
        for (_, inst) in func.insts_in_order() {
            if let InstKind::Mov { src, swizzle } = &mut func.insts[inst].kind {
                if let Some(map) = remap[*src] {
                    for c in swizzle.iter_mut() {
                        *c = map[usize::from(*c)];
                    }
                }
            }
        }
    }
    progress
}

/// Shrinks the definition of `result` to the components `mask` reads, pushing any operand
/// movs it needs onto `out`; returns the old → new component map.
fn shrink(
    func: &mut Function,
    inst: Inst,
    result: Value,
    mask: u8,
    out: &mut Vec<Inst>,
) -> Option<[u8; 4]> {
    let ty = func.ty(result);
    let n = ty.comps();
    let full = (1u8 << n) - 1;
    let mask = mask & full;
    if n <= 1 || mask == 0 || mask == full {
        return None;
    }
    let trailing_only = matches!(
        func.insts[inst].kind,
        InstKind::LoadUniform { .. } | InstKind::LoadBuffer { .. } | InstKind::LoadShared { .. }
    );
    let kept: Vec<u8> = if trailing_only {
        (0..8 - mask.leading_zeros() as u8).collect()
    } else {
        (0..n).filter(|c| mask & (1 << c) != 0).collect()
    };
    let k = kept.len() as u8;
    if k == n {
        return None;
    }
    let mut map = [0u8; 4];
    for (new, &old) in kept.iter().enumerate() {
        map[usize::from(old)] = new as u8;
    }
    let pick = |a: &[Value; 4]| {
        let mut r = [Value::reserved_value(); 4];
        for (new, &old) in kept.iter().enumerate() {
            r[new] = a[usize::from(old)];
        }
        r
    };
    let new_kind = match &func.insts[inst].kind {
        InstKind::Const { bits } => {
            let mut nb = [0; 4];
            for (new, &old) in kept.iter().enumerate() {
                nb[new] = bits[usize::from(old)];
            }
            InstKind::Const { bits: nb }
        }
        InstKind::Vec { args } => InstKind::Vec { args: pick(args) },
        InstKind::Mov { src, swizzle } => {
            let mut s = [0; 4];
            for (new, &old) in kept.iter().enumerate() {
                s[new] = swizzle[usize::from(old)];
            }
            InstKind::Mov {
                src: *src,
                swizzle: s,
            }
        }
        InstKind::Alu { op, args } => {
            let (op, mut args) = (*op, *args);
            let mut swizzle = [0; 4];
            swizzle[..kept.len()].copy_from_slice(&kept);
            if args[..op.arity()].iter().any(|&a| func.ty(a).comps() != n) {
                return None;
            }
            let mut narrowed: Vec<(Value, Value)> = Vec::new();
            for a in &mut args[..op.arity()] {
                if let Some(&(_, nv)) = narrowed.iter().find(|(old, _)| old == a) {
                    *a = nv;
                    continue;
                }
                let aty = func.ty(*a).with_comps(k);
                let (mov, nv) = func.make_inst(InstKind::Mov { src: *a, swizzle }, aty);
                out.push(mov);
                let nv = nv.expect("a mov has a result");
                narrowed.push((*a, nv));
                *a = nv;
            }
            InstKind::Alu { op, args }
        }
        InstKind::LoadUniform { .. }
        | InstKind::LoadBuffer { .. }
        | InstKind::LoadShared { .. } => func.insts[inst].kind.clone(),
        _ => return None,
    };
    func.insts[inst].kind = new_kind;
    func.values[result].ty = ty.with_comps(k);
    Some(map)
}
