//! Duplicating a sampler message with another payload: a copy of a `tex`/`txf` right after
//! it, its coordinates moved by a constant and, half the time, other texel offsets. Two
//! messages close together share payload registers and liveness, where `opt_zero_samples`
//! and payload trimming went wrong before (`zero-samples-shared-payload`).

use super::edit;
use crate::rng::SplitMix64;
use compiler::ir::{AluOp, InstKind, Program, TexDim, Type, Value};
use cranelift_entity::packed_option::ReservedValue;

/// Copies a placed `tex`/`txf` with moved coordinates and observes the copy's texel.
pub fn duplicate(p: &mut Program, rng: &mut SplitMix64) -> Option<()> {
    let func = &p.func;
    let sends: Vec<_> = func
        .insts_in_order()
        .into_iter()
        .filter(|(_, i)| {
            matches!(
                func.insts[*i].kind,
                InstKind::Tex { .. } | InstKind::Txf { .. }
            )
        })
        .collect();
    let &(b, inst) = edit::pick(&sends, rng)?;
    let mut kind = func.insts[inst].kind.clone();
    let at = func.blocks[b].insts.iter().position(|&i| i == inst)? + 1;
    let (coord, float, params) = match &mut kind {
        InstKind::Tex { coord, params, .. } => (coord, true, params),
        InstKind::Txf { coord, params, .. } => (coord, false, params),
        _ => return None,
    };
    let comps = func.ty(*coord).comps();
    let step: Vec<u32> = (0..comps)
        .map(|_| {
            let k = rng.range(1, 3) as u32;
            if float {
                (k as f32 * 0.37).to_bits()
            } else {
                k
            }
        })
        .collect();
    if params.dim != TexDim::Cube && rng.next_u64() & 1 == 1 {
        for o in params.offset.iter_mut().take(comps as usize) {
            *o = rng.range(0, 15) as i8 - 8;
        }
    }
    let func = &mut p.func;
    let mut bits = [0; 4];
    bits[..step.len()].copy_from_slice(&step);
    let c = edit::insert(func, b, at, InstKind::Const { bits }, Type::vec32(comps))?;
    let op = if float { AluOp::Fadd } else { AluOp::Iadd };
    let args = [*coord, c, Value::reserved_value(), Value::reserved_value()];
    let moved = edit::insert(
        func,
        b,
        at + 1,
        InstKind::Alu { op, args },
        Type::vec32(comps),
    )?;
    *coord = moved;
    let texel = edit::insert(func, b, at + 2, kind, Type::vec32(4))?;
    // Observed where the copy is: a block ending in a jump takes the store before it.
    edit::observe(p, b, texel)
}
