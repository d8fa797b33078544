//! Keeping computed values observable, so a miscompile cannot hide in a dead value: stores of
//! recent values at the end of branches and loop bodies (slots 1.., rotating), and a final
//! fold of every value still in scope into slot 0 with alternating `iadd`/`ixor` chains.

use super::ctx::Gen;
use super::pool::Flavor;
use arbitrary::Result;
use compiler::ir::{AluOp, BitSize, InstKind, Type, Value};

/// A 32-bit version of `v` (booleans through `b2i`, 16-bit integers zero-extended, a 64-bit
/// one's halves xor-ed).
fn as_words(g: &mut Gen, v: Value) -> Value {
    match g.b.func().ty(v).bits() {
        Some(BitSize::B1) => g.alu(AluOp::B2i, &[v]),
        Some(BitSize::B16) => g.convert(AluOp::U2u, v, BitSize::B32),
        Some(BitSize::B64) => {
            let k = g.sized_const(32, BitSize::B64);
            let high = g.alu(AluOp::Ushr, &[v, k]);
            let both = g.alu(AluOp::Ixor, &[v, high]);
            g.convert(AluOp::U2u, both, BitSize::B32)
        }
        _ => v,
    }
}

/// Stores `v` to the next observation slot (slots 1.. when there are several; slot 0 is the
/// final fold's).
pub fn store(g: &mut Gen, v: Value) {
    let v = as_words(g, v);
    let outputs = g.dispatch.outputs.max(1);
    let slot = if outputs > 1 {
        1 + g.next_slot % (outputs - 1)
    } else {
        0
    };
    g.next_slot = g.next_slot.wrapping_add(1);
    g.emit_effect(InstKind::StoreOutput { slot, value: v });
}

/// With `observe_rate`, stores the most recent value in scope.
pub fn recent(g: &mut Gen) -> Result<()> {
    if !g.chance(g.cfg.observe_rate)? {
        return Ok(());
    }
    if let Some(e) = g.pool.last() {
        store(g, e.v);
    }
    Ok(())
}

/// Folds every value in scope into output slot 0: one accumulator per width, then the
/// accumulators' components into one word. Now and then a vector accumulator's last
/// component is left out, so per-component dead code exists for `opt_shrink_vectors`.
pub fn fold_all(g: &mut Gen) -> Result<()> {
    let entries = g.pool.entries().to_vec();
    let mut acc: [Option<Value>; 4] = [None; 4];
    for (k, e) in entries.iter().enumerate() {
        let n = e.ty.comps();
        if n == 0 {
            continue;
        }
        let w = as_words(g, e.v);
        let slot = &mut acc[n as usize - 1];
        *slot = Some(match *slot {
            None => w,
            Some(a) => {
                let op = if k % 2 == 0 { AluOp::Iadd } else { AluOp::Ixor };
                g.alu(op, &[a, w])
            }
        });
    }
    let mut total: Option<Value> = None;
    for (n, a) in acc.iter().enumerate() {
        let Some(a) = *a else { continue };
        let drop_last = n > 0 && g.u.int_in_range(0..=2)? == 0;
        for c in 0..=n as u8 - u8::from(drop_last) {
            let word = if n == 0 {
                a
            } else {
                g.emit(
                    InstKind::Mov {
                        src: a,
                        swizzle: [c, 0, 0, 0],
                    },
                    Type::I32,
                    Flavor::Int,
                )
            };
            total = Some(match total {
                None => word,
                Some(t) => {
                    let op = if c % 2 == 0 { AluOp::Ixor } else { AluOp::Iadd };
                    g.alu(op, &[t, word])
                }
            });
        }
    }
    if let Some(t) = total {
        g.emit_effect(InstKind::StoreOutput { slot: 0, value: t });
    }
    Ok(())
}
