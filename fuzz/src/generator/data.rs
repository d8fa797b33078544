//! Straight-line statements, table-driven: rows of (name, weight, can-apply predicate,
//! generator). Every generator only reads values in scope (or makes them), so any row that
//! can apply produces valid code.

use super::ctx::Gen;
use super::pool::Flavor;
use super::{memory, texture, workgroup};
use arbitrary::Result;
use compiler::ir::alu::Kind;
use compiler::ir::{AluOp, AtomicOp, InstKind, Type};

/// One kind of straight-line statement; its kind's name is `WEIGHT_NAMES[weight]`.
pub struct Row {
    /// Index into `Config::weights`.
    pub weight: usize,
    /// Whether the dispatch/variables allow it.
    pub can: fn(&Gen) -> bool,
    /// Emits it.
    pub gen: fn(&mut Gen) -> Result<()>,
}

/// The statement table. Row 0 (ALU) is what empty input produces.
pub const ROWS: &[Row] = &[
    Row {
        weight: 0,
        can: |_| true,
        gen: alu,
    },
    Row {
        weight: 1,
        can: |_| true,
        gen: konst,
    },
    Row {
        weight: 2,
        can: |_| true,
        gen: vec_mov,
    },
    Row {
        weight: 3,
        can: |g| !g.dispatch.uniforms.is_empty(),
        gen: uniform,
    },
    Row {
        weight: 4,
        can: |g| !g.dispatch.buffers.is_empty(),
        gen: buffer,
    },
    Row {
        weight: 5,
        can: |_| true,
        gen: output,
    },
    Row {
        weight: 6,
        can: |g| !g.dispatch.textures.is_empty(),
        gen: texture::texture,
    },
    Row {
        weight: 7,
        can: |g| !g.vars.is_empty(),
        gen: memory::local,
    },
    Row {
        weight: 8,
        can: |g| g.shared.is_some(),
        gen: workgroup::access,
    },
];

/// Emits one statement chosen by weight among the rows that apply.
pub fn statement(g: &mut Gen) -> Result<()> {
    if g.sized_ints && g.chance((1, 5))? {
        return super::wide::chain(g);
    }
    let total: u32 = ROWS
        .iter()
        .filter(|r| (r.can)(g))
        .map(|r| g.cfg.weights[r.weight])
        .sum();
    if total == 0 {
        return alu(g);
    }
    let mut x = g.u.int_in_range(0..=total - 1)?;
    for r in ROWS {
        if !(r.can)(g) {
            continue;
        }
        let w = g.cfg.weights[r.weight];
        if x < w {
            return (r.gen)(g);
        }
        x -= w;
    }
    alu(g)
}

/// A random enabled ALU op on operands in scope.
pub fn alu(g: &mut Gen) -> Result<()> {
    let mask = g.cfg.alu_ops;
    let n = mask.count_ones() as usize;
    let k = g.index(n.max(1))?;
    let op = (0..AluOp::ALL.len())
        .filter(|&i| mask & (1u128 << i) != 0)
        .nth(k)
        .map_or(AluOp::Iadd, |i| AluOp::ALL[i]);
    alu_op(g, op)?;
    Ok(())
}

/// `op` with operands in scope, of a random width.
pub fn alu_op(g: &mut Gen, op: AluOp) -> Result<compiler::ir::Value> {
    let c = g.comps()?;
    let (any_ty, any_flavor) = {
        let (t, f) = g.any_ty()?;
        (t.with_comps(c), f)
    };
    let mut args = [compiler::ir::Value::from_u32(0); 4];
    let bit_field = matches!(
        op,
        AluOp::UbitfieldExtract | AluOp::IbitfieldExtract | AluOp::BitfieldInsert
    );
    for (i, kind) in op.srcs().iter().enumerate() {
        args[i] = match kind {
            // The offset and the count are the last two operands.
            Kind::Int if bit_field && i + 2 >= op.arity() => field_bound(g, c)?,
            Kind::Int => g.get(Type::vec32(c), Flavor::Int)?,
            Kind::Float => g.get(Type::vec32(c), Flavor::Float)?,
            Kind::Bool => g.get(Type::vec1(c), Flavor::Bool)?,
            Kind::Any => g.get(any_ty, any_flavor)?,
        };
    }
    Ok(g.alu(op, &args[..op.arity()]))
}

/// A bit field's offset or count, `vecC`: mostly within the word (a constant, or a value in
/// scope masked to 0..=31), sometimes any value (the clamped case).
fn field_bound(g: &mut Gen, c: u8) -> Result<compiler::ir::Value> {
    let ty = Type::vec32(c);
    Ok(match g.u.int_in_range(0..=3)? {
        0 | 1 => {
            let mut bits = [0u32; 4];
            for w in bits.iter_mut().take(usize::from(c)) {
                *w = g.u.int_in_range(0..=32)?;
            }
            g.emit(InstKind::Const { bits }, ty, Flavor::Int)
        }
        2 => {
            let x = g.get(ty, Flavor::Int)?;
            let mut bits = [0u32; 4];
            bits[..usize::from(c)].fill(31);
            let m = g.emit(InstKind::Const { bits }, ty, Flavor::Int);
            g.alu(AluOp::Iand, &[x, m])
        }
        _ => g.get(ty, Flavor::Int)?,
    })
}

fn konst(g: &mut Gen) -> Result<()> {
    let f = g.pick(&[Flavor::Int, Flavor::Float, Flavor::Bool])?;
    let c = g.comps()?;
    if c == 1 || f == Flavor::Bool {
        g.constant(f)?;
    } else {
        let mut bits = [0u32; 4];
        for w in bits.iter_mut().take(c as usize) {
            *w = if f == Flavor::Float {
                (g.u.int_in_range(-64i32..=64)? as f32 * 0.25).to_bits()
            } else {
                g.u.int_in_range(0..=40)?
            };
        }
        g.emit(InstKind::Const { bits }, Type::vec32(c), f);
    }
    Ok(())
}

fn vec_mov(g: &mut Gen) -> Result<()> {
    let (ty, flavor) = g.any_ty()?;
    if g.u.arbitrary::<bool>()? {
        // A swizzle of a vector in scope (extraction, shuffle or copy).
        let src = g.get(ty, flavor)?;
        let n = ty.comps();
        let out = g.comps()?;
        let mut sw = [0u8; 4];
        for s in sw.iter_mut().take(out as usize) {
            *s = g.u.int_in_range(0..=n - 1)?;
        }
        g.emit(
            InstKind::Mov { src, swizzle: sw },
            ty.with_comps(out),
            flavor,
        );
    } else {
        let c = g.u.int_in_range(2..=4u8)?;
        let scalar = ty.with_comps(1);
        let mut args = Vec::with_capacity(4);
        for _ in 0..c {
            args.push(g.get(scalar, flavor)?);
        }
        let v = g.b.vec(&args);
        g.budget = g.budget.saturating_sub(1);
        g.pool.push(super::pool::Entry {
            v,
            ty: scalar.with_comps(c),
            flavor,
            slow: false,
        });
    }
    Ok(())
}

fn uniform(g: &mut Gen) -> Result<()> {
    let len = g.dispatch.uniforms.len() as u32;
    let index = g.word_index(len)?;
    let c = g.comps()?;
    let f = g.pick(&[Flavor::Int, Flavor::Float])?;
    g.emit(InstKind::LoadUniform { index }, Type::vec32(c), f);
    Ok(())
}

fn buffer(g: &mut Gen) -> Result<()> {
    let buffer = g.index(g.dispatch.buffers.len())? as u32;
    let len = g.dispatch.buffers[buffer as usize];
    let index = g.word_index(len)?;
    if g.chance(g.cfg.atomic_rate)? {
        // The invocation's own words: the old word is defined whatever the operation.
        let kind = InstKind::AtomicBuffer {
            buffer,
            op: g.pick(&AtomicOp::ALL)?,
            index,
            value: g.int()?,
        };
        g.emit(kind, Type::I32, Flavor::Int);
    } else if g.u.arbitrary::<bool>()? {
        let c = g.comps()?;
        g.emit(
            InstKind::LoadBuffer { buffer, index },
            Type::vec32(c),
            Flavor::Int,
        );
    } else {
        let ty = g.vec_ty()?;
        let value = g.get(ty, Flavor::Int)?;
        g.emit_effect(InstKind::StoreBuffer {
            buffer,
            index,
            value,
        });
    }
    Ok(())
}

fn output(g: &mut Gen) -> Result<()> {
    let ty = g.vec_ty()?;
    let v = g.get(ty, Flavor::Int)?;
    super::observe::store(g, v);
    Ok(())
}
