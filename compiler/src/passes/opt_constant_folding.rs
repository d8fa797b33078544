//! Constant folding: instructions whose operands are all constants become constants.
//!
//! * ALU ops fold per component through [`AluOp::eval`](crate::ir::AluOp::eval), the very
//!   definition the interpreter uses, so a folded value is bit-for-bit what would have been
//!   computed (canonical NaNs, wrapping, division by zero included);
//! * `mov` and `vec` of constants are constants;
//! * `bcsel c, x, y` with a constant `c` whose components all agree is `x` or `y`.
//!
//! Invariant relied on: operands of ALU ops have the result's component count (`bcsel`'s
//! condition included); an op whose operands do not is left alone. Booleans are stored as
//! 0/1 and `eval` returns 0/1 for boolean results; components past the count stay 0.
//!
//! Edge cases: folded instructions keep their result value (the kind becomes `load_const`);
//! a folded `bcsel` is replaced by the chosen operand, which dominates it.

use crate::ir::edit::{resolve, Subst};
use crate::ir::{BitSize, Function, Inst, InstKind};
use cranelift_entity::SecondaryMap;

/// Folds constant expressions; returns whether anything changed.
pub fn fold_constants(func: &mut Function) -> bool {
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
        let n = usize::from(func.ty(result).comps());
        let mut out = [0u32; 4];
        match &func.insts[inst].kind {
            InstKind::Alu { op, args } => {
                let arity = op.arity();
                let mut ops = [[0u32; 4]; 4];
                let mut all_const = true;
                for k in 0..arity {
                    if usize::from(func.ty(args[k]).comps()) != n {
                        all_const = false;
                        break;
                    }
                    match func.const_bits(args[k]) {
                        Some(bits) => ops[k] = bits,
                        None => all_const = false,
                    }
                }
                if !all_const {
                    if *op == crate::ir::AluOp::Bcsel {
                        if let Some(pick) = constant_select(func, args, n) {
                            subst[result] = pick.into();
                            dead[inst] = true;
                            progress = true;
                        }
                    }
                    continue;
                }
                let sized = func.sized_alu(*op, args, func.ty(result));
                match sized {
                    // A 64-bit result would be a 64-bit constant, which the IR has not.
                    Some((_, BitSize::B64)) | Some((BitSize::B64, _)) => continue,
                    Some((int, bits)) => {
                        for (j, o) in out.iter_mut().enumerate().take(n) {
                            let x = ops.map(|o| u64::from(o[j]));
                            *o = op.eval_sized(int, bits, x[0], x[1], x[2]) as u32;
                        }
                    }
                    None => {
                        for (j, o) in out.iter_mut().enumerate().take(n) {
                            *o = op.eval(ops[0][j], ops[1][j], ops[2][j], ops[3][j]);
                        }
                    }
                }
            }
            InstKind::Mov { src, swizzle } => {
                let Some(bits) = func.const_bits(*src) else {
                    continue;
                };
                for j in 0..n {
                    out[j] = bits[usize::from(swizzle[j])];
                }
            }
            InstKind::Vec { args } => {
                let mut all_const = true;
                for j in 0..n {
                    match func.const_bits(args[j]) {
                        Some(bits) => out[j] = bits[0],
                        None => all_const = false,
                    }
                }
                if !all_const {
                    continue;
                }
            }
            _ => continue,
        }
        func.insts[inst].kind = InstKind::Const { bits: out };
        progress = true;
    }
    if progress {
        func.apply_subst(&subst);
        func.remove_insts(&dead);
    }
    progress
}

/// For `bcsel c, x, y` with a constant condition whose components agree: `x` or `y`.
fn constant_select(
    func: &Function,
    args: &[crate::ir::Value; 4],
    n: usize,
) -> Option<crate::ir::Value> {
    if usize::from(func.ty(args[0]).comps()) != n {
        return None;
    }
    let c = func.const_bits(args[0])?;
    let first = c[0] != 0;
    c[..n]
        .iter()
        .all(|&x| (x != 0) == first)
        .then_some(if first { args[1] } else { args[2] })
}
