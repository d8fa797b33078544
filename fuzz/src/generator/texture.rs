//! Texture messages of every shape: `tex` (float coords, optional lod *or* bias, layer),
//! `txf` (integer coords, optional lod and layer), and the wider shapes — 1D/3D/cube, texel
//! offsets, shadow compare, gradients, gather, size queries, results partly read. Trailing
//! parameters are often an explicit constant zero, sometimes zero only at run time, sometimes
//! not zero, and sometimes shared by two messages — the inputs SEND payload trimming
//! (`opt_zero_samples`) must get right.

use super::ctx::Gen;
use super::pool::Flavor;
use arbitrary::Result;
use compiler::ir::{AluOp, InstKind, TexDim, TexParams, Type, Value};

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

/// The instruction kind drawn for one texture statement.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Sample,
    Fetch,
    Gather,
    Size,
}

/// One texture instruction of a random shape (see `docs/semantics.md`, "Textures"), sometimes
/// followed by a second one sharing its coordinates and parameters; sometimes only part of
/// its result is kept in scope (the backends trim the response to what is read).
///
/// Three statements in four keep the plain shape (2D, optional lod or bias and layer): the
/// trailing-zero inputs `opt_zero_samples` needs stay common, and most programs stay within
/// what the Vulkan pipeline can run.
pub fn texture(g: &mut Gen) -> Result<()> {
    let n = g.dispatch.textures.len();
    let texture = g.index(n)? as u32;
    if g.u.int_in_range(0..=3)? != 0 {
        return plain(g, texture, n);
    }
    let kind = match g.u.int_in_range(0..=9)? {
        0..=4 => Kind::Sample,
        5..=6 => Kind::Fetch,
        7..=8 => Kind::Gather,
        _ => Kind::Size,
    };
    let dim = match kind {
        // Cubes are rarer: the Vulkan pipeline skips them (see `spirv/src/memory.rs`).
        Kind::Gather => g.pick(&[TexDim::D2, TexDim::D2, TexDim::D2, TexDim::Cube])?,
        Kind::Fetch => g.pick(&[TexDim::D1, TexDim::D2, TexDim::D3])?,
        _ => g.pick(&[TexDim::D1, TexDim::D2, TexDim::D2, TexDim::D3, TexDim::Cube])?,
    };
    let float = matches!(kind, Kind::Sample | Kind::Gather);
    let flavor = if float { Flavor::Float } else { Flavor::Int };
    let comps = dim.coords() as u8;
    let mut params = TexParams {
        dim,
        ..TexParams::default()
    };
    if kind == Kind::Size {
        params.lod = maybe(g, Flavor::Int)?;
        let kind = InstKind::Txs { texture, params };
        return keep_some(g, kind);
    }
    let coord = g.get(Type::vec32(comps), flavor)?;
    if dim.arrayable() && g.u.arbitrary::<bool>()? {
        params.layer = param(g, flavor)?;
    }
    if float && dim != TexDim::D3 && g.chance((1, 3))? {
        params.compare = g.get(Type::I32, Flavor::Float)?;
    }
    if dim != TexDim::Cube && g.chance((1, 3))? {
        for o in params.offset.iter_mut().take(comps as usize) {
            *o = g.u.int_in_range(-8i8..=7)?;
        }
    }
    match kind {
        Kind::Gather => params.gather = Some(g.u.int_in_range(0..=3)?),
        Kind::Fetch => params.lod = maybe(g, Flavor::Int)?,
        _ => match g.u.int_in_range(0..=3)? {
            0 => {
                params.ddx = gradient(g, comps)?;
                params.ddy = gradient(g, comps)?;
            }
            1 => params.lod = param(g, Flavor::Float)?,
            2 => params.bias = param(g, Flavor::Float)?,
            _ => {}
        },
    }
    let kind = if kind == Kind::Fetch {
        InstKind::Txf {
            texture,
            coord,
            params,
        }
    } else {
        InstKind::Tex {
            texture,
            coord,
            params,
        }
    };
    keep_some(g, kind)
}

/// A gradient: half the time any float vector, half the time constants `±2^e` (e in
/// −7..=1) that land the selected level inside the texture rather than clamped to an end.
fn gradient(g: &mut Gen, comps: u8) -> Result<Value> {
    if g.u.arbitrary::<bool>()? {
        return g.get(Type::vec32(comps), Flavor::Float);
    }
    let mut bits = [0u32; 4];
    for b in bits.iter_mut().take(comps as usize) {
        let e: i32 = g.u.int_in_range(-7..=1)?;
        let sign = if g.u.arbitrary::<bool>()? {
            0x8000_0000
        } else {
            0
        };
        *b = sign | ((127 + e) as u32) << 23;
    }
    Ok(g.emit(InstKind::Const { bits }, Type::vec32(comps), Flavor::Float))
}

/// Emits `kind`; a third of the time only a `mov` of some of its components stays in scope.
fn keep_some(g: &mut Gen, kind: InstKind) -> Result<()> {
    let v = g.emit(kind, Type::vec32(4), Flavor::Float);
    if g.chance((1, 3))? {
        g.pool.pop_last();
        let n = g.u.int_in_range(1..=3)?;
        let mut swizzle = [0u8; 4];
        for s in swizzle.iter_mut().take(n) {
            *s = g.u.int_in_range(0..=3)?;
        }
        let flavor = Flavor::Float;
        g.emit(
            InstKind::Mov { src: v, swizzle },
            Type::vec32(n as u8),
            flavor,
        );
    }
    Ok(())
}

/// The plain shape: `tex`/`txf` on 2D with optional lod or bias and layer.
fn plain(g: &mut Gen, texture: u32, n: usize) -> Result<()> {
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
