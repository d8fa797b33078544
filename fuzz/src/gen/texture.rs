//! Texture messages: `tex` (float coords, optional lod *or* bias, layer) and `txf` (integer
//! coords, optional lod and layer). Trailing parameters are often an explicit constant zero,
//! sometimes zero only at run time, sometimes not zero, and sometimes shared by two messages
//! — the inputs SEND payload trimming (`opt_zero_samples`) must get right.

use super::ctx::Gen;
use super::pool::Flavor;
use arbitrary::Result;
use compiler::ir::{AluOp, InstKind, TexParams, Type, Value};

/// A value that is zero at run time but not a constant in the IR.
fn runtime_zero(g: &mut Gen) -> Result<Value> {
    let zero_uniform = g.dispatch.uniforms.iter().position(|&w| w == 0);
    match (g.u.int_in_range(0..=2)?, zero_uniform) {
        (0, Some(k)) => {
            let index = g.iconst(k as u32);
            Ok(g.emit(InstKind::LoadUniform { index }, Type::I32, Flavor::Int))
        }
        (1, _) => {
            // Invocation ids are far below 2^16.
            let id = g.emit(InstKind::InvocationId, Type::I32, Flavor::Int);
            let s = g.iconst(16);
            Ok(g.alu(AluOp::Ushr, &[id, s]))
        }
        _ => {
            let x = g.int()?;
            Ok(g.alu(AluOp::Isub, &[x, x]))
        }
    }
}

/// A parameter value: constant zero, run-time zero or anything (of `flavor`).
fn param(g: &mut Gen, flavor: Flavor) -> Result<Value> {
    if g.chance(g.cfg.tex_zero_rate)? {
        Ok(g.iconst(0))
    } else if g.chance(g.cfg.tex_runtime_zero_rate)? {
        runtime_zero(g)
    } else {
        g.get(Type::I32, flavor)
    }
}

fn maybe(g: &mut Gen, flavor: Flavor) -> Result<Value> {
    if g.u.int_in_range(0..=2)? == 0 {
        Ok(TexParams::default().lod)
    } else {
        param(g, flavor)
    }
}

/// One texture message, sometimes followed by a second one sharing its coordinates and
/// parameters.
pub fn texture(g: &mut Gen) -> Result<()> {
    let n = g.dispatch.textures.len();
    let texture = g.index(n)? as u32;
    let is_tex = g.u.arbitrary::<bool>()?;
    let flavor = if is_tex { Flavor::Float } else { Flavor::Int };
    let coord = g.get(Type::vec32(2), flavor)?;
    // `maybe` returns the reserved value (absent) or a parameter.
    let mut params = TexParams {
        lod: maybe(g, flavor)?,
        ..TexParams::default()
    };
    if is_tex && params.lod().is_none() {
        params.bias = maybe(g, Flavor::Float)?;
    }
    params.layer = maybe(g, flavor)?;
    emit(g, is_tex, texture, coord, params);
    if g.u.int_in_range(0..=2)? == 2 {
        let texture = g.index(n)? as u32;
        let is_tex2 = g.u.arbitrary::<bool>()?;
        if !is_tex2 {
            params.bias = TexParams::default().bias;
        }
        emit(g, is_tex2, texture, coord, params);
    }
    Ok(())
}

fn emit(g: &mut Gen, is_tex: bool, texture: u32, coord: Value, params: TexParams) {
    let kind = if is_tex {
        InstKind::Tex {
            texture,
            coord,
            params,
        }
    } else {
        InstKind::Txf {
            texture,
            coord,
            params,
        }
    };
    g.emit(kind, Type::vec32(4), Flavor::Float);
}
