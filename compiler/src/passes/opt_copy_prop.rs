//! Copy propagation: values that are copies of other values are replaced by them.
//!
//! * `mov x.xyz` of a 3-component `x` (identity swizzle, same width) is `x`;
//! * `vec1 s` is `s`; `vec3 x.x, x.y, x.z` (components of one value, in order, all of them)
//!   is `x`;
//! * `mov (mov x.S).T` becomes `mov x.S∘T`; `mov (vec a, b, c).T` becomes `vec` of the picked
//!   scalars (or the scalar itself for one component).
//!
//! Invariant relied on: a value's definition dominates its uses, and the replacement is an
//! operand (or an operand's operand) of the replaced instruction, so it dominates every place
//! the replaced value was used. Vec operands are scalars of the result's bit size, so a picked
//! scalar has the right type.
//!
//! Edge cases: the rewritten movs/vecs keep their result value (only the kind changes), so
//! nothing else needs updating; phis are never rewritten, only their sources renamed.

use crate::ir::edit::{resolve, Subst};
use crate::ir::{Function, Inst, InstKind, Value};
use cranelift_entity::packed_option::ReservedValue;
use cranelift_entity::SecondaryMap;

/// Propagates copies; returns whether anything changed.
pub fn copy_prop(func: &mut Function) -> bool {
    let mut subst = Subst::with_capacity(func.values.len());
    let mut dead: SecondaryMap<Inst, bool> = SecondaryMap::with_capacity(func.insts.len());
    let mut progress = false;
    for (_, inst) in func.insts_in_order() {
        let Some(result) = func.result(inst) else {
            continue;
        };
        if matches!(func.insts[inst].kind, InstKind::Phi { .. }) {
            continue;
        }
        func.insts[inst]
            .kind
            .visit_args_mut(|v| *v = resolve(&subst, *v));
        match simplify(func, inst, result) {
            Some(Step::Replace(v)) => {
                subst[result] = v.into();
                dead[inst] = true;
                progress = true;
            }
            Some(Step::Rewrite(kind)) => {
                func.insts[inst].kind = kind;
                progress = true;
            }
            None => {}
        }
    }
    if progress {
        func.apply_subst(&subst);
        func.remove_insts(&dead);
    }
    progress
}

enum Step {
    Replace(Value),
    Rewrite(InstKind),
}

fn simplify(func: &Function, inst: Inst, result: Value) -> Option<Step> {
    let n = usize::from(func.ty(result).comps());
    match &func.insts[inst].kind {
        InstKind::Mov { src, swizzle } => {
            let (src, swizzle) = (*src, *swizzle);
            let m = usize::from(func.ty(src).comps());
            if n == m && (0..n).all(|i| usize::from(swizzle[i]) == i) {
                return Some(Step::Replace(src));
            }
            match func.def_kind(src)? {
                InstKind::Mov {
                    src: inner,
                    swizzle: s2,
                } => {
                    let mut composed = [0; 4];
                    for i in 0..n {
                        composed[i] = s2[usize::from(swizzle[i])];
                    }
                    Some(Step::Rewrite(InstKind::Mov {
                        src: *inner,
                        swizzle: composed,
                    }))
                }
                InstKind::Vec { args } => {
                    if n == 1 {
                        return Some(Step::Replace(args[usize::from(swizzle[0])]));
                    }
                    let mut picked = [Value::reserved_value(); 4];
                    for i in 0..n {
                        picked[i] = args[usize::from(swizzle[i])];
                    }
                    Some(Step::Rewrite(InstKind::Vec { args: picked }))
                }
                _ => None,
            }
        }
        InstKind::Vec { args } => {
            if n == 1 {
                return Some(Step::Replace(args[0]));
            }
            let mut whole = None;
            for (i, &a) in args[..n].iter().enumerate() {
                match func.def_kind(a)? {
                    InstKind::Mov { src, swizzle }
                        if usize::from(swizzle[0]) == i && whole.is_none_or(|w| w == *src) =>
                    {
                        whole = Some(*src);
                    }
                    _ => return None,
                }
            }
            let whole = whole?;
            (usize::from(func.ty(whole).comps()) == n).then_some(Step::Replace(whole))
        }
        _ => None,
    }
}
