//! The random program generator: bytes in, a valid [`Program`] out.
//!
//! Driven by [`arbitrary::Unstructured`], so libFuzzer's mutations steer it; every bound is a
//! field of [`Config`]. Programs are valid by construction (SSA dominance through a scoped
//! pool of values, phis with one source per predecessor, well-typed operands) and terminate
//! by construction (every loop has a bounded counter). Running out of bytes only makes the
//! remaining choices take their defaults; budgets shrink on every step.
//!
//! Phases, in order:
//! 1. [`dispatch`] — invocations, outputs, uniforms, buffers, textures; sometimes
//!    workgroups with shared arrays ([`workgroup`]);
//! 2. prologue — the invocation id, local variables ([`memory`]) fully initialised, and
//!    sometimes a register-pressure block of values that stay live to the end;
//! 3. the body ([`control`]): lists of blocks, ifs, loops; blocks are filled from the
//!    statement table ([`data`], [`texture`], [`memory`]), and in some programs with chains
//!    of 16- and 64-bit integers ([`wide`]);
//! 4. [`observe`] — every value still in scope folded into output slot 0.
//!
//! [`shape_stats`] counts the shapes aimed for; the tests hold every program to
//! `compiler::ir::verify::verify_reachable` (the verifier, and no dead block).

pub mod config;
mod control;
mod ctx;
mod data;
pub mod dispatch;
mod memory;
mod observe;
mod pool;
pub mod stats;
#[cfg(test)]
mod tests;
mod texture;
mod wide;
mod workgroup;

pub use config::Config;
pub use stats::{shape_stats, ShapeStats, TEX_SHAPES};

use arbitrary::Unstructured;
use compiler::ir::{AluOp, Builder, InstKind, Program, Type};
use ctx::Gen;
use pool::{Flavor, Pool};

/// Generates a program from `u` under `cfg` (clamped first). Never fails for lack of bytes;
/// an `Err` would come only from `arbitrary` itself.
pub fn generate(u: &mut Unstructured, cfg: &Config) -> arbitrary::Result<Program> {
    let cfg = cfg.clamped();
    let mut dispatch = dispatch::generate(u, &cfg)?;
    let shape = workgroup::dispatch(u, &cfg, &mut dispatch)?;
    let mut g = Gen {
        u,
        cfg: &cfg,
        b: Builder::new(),
        dispatch,
        pool: Pool::default(),
        budget: u32::MAX,
        depth: 0,
        loops: Vec::new(),
        vars: Vec::new(),
        next_slot: 0,
        scratch: Vec::new(),
        shared: None,
        subgroup_ops: Vec::new(),
        sized_ints: false,
    };
    prologue(&mut g, shape)?;
    g.budget = cfg.max_insts;
    control::list(&mut g)?;
    observe::fold_all(&mut g)?;
    let Gen { b, dispatch, .. } = g;
    Ok(Program {
        dispatch,
        func: b.finish(),
    })
}

/// The invocation id (and the workgroup's ids), local variables, and sometimes many values
/// live until the end.
fn prologue(g: &mut Gen, shape: Option<workgroup::Shape>) -> arbitrary::Result<()> {
    let id = g.emit(InstKind::InvocationId, Type::I32, Flavor::Int);
    workgroup::prologue(g, shape)?;
    memory::declare(g)?;
    g.sized_ints = g.chance(g.cfg.sized_int_rate)?;
    if g.chance(g.cfg.pressure_rate)? {
        let n = g.range(&g.cfg.pressure_values)?;
        for k in 0..n {
            // Distinct per invocation, so nothing folds to a constant.
            let c = g.iconst(k.wrapping_mul(0x9e37_79b9) | 1);
            let op = g.pick(&[AluOp::Iadd, AluOp::Imul, AluOp::Ixor, AluOp::Ishl])?;
            let v = g.alu(op, &[id, c]);
            if k % 3 == 2 {
                g.alu(AluOp::I2f, &[v]);
            }
        }
    }
    Ok(())
}
