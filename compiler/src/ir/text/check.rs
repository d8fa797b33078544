//! The checks that need the whole body: run in text order once every definition is known.
//!
//! For each instruction: every operand names a defined value (reported at the use), every
//! phi predecessor names a block label, and operand and result types agree with the opcode
//! (ALU results derived as [`Builder::alu_type`](super::super::Builder::alu_type) does,
//! swizzles in range, `load_deref`/`store_deref` widths from the deref chain when it leads
//! to a variable). `if` conditions are `vec1 1`. Anything deeper is the verifier's, including
//! whether an array or struct deref fits its parent's pointee (the chain is only followed,
//! forgivingly, to size loads and stores).

use super::super::{BitSize, InstKind, SubgroupOp, Type, Value, VarType};
use super::parse::{Deferred, InstInfo, PResult, Parser};
use super::Pos;
use cranelift_entity::packed_option::ReservedValue;

/// Runs every deferred check, stopping at the first failure.
pub(super) fn run(p: &Parser) -> PResult<()> {
    for d in &p.deferred {
        match d {
            Deferred::Cond(v, pos) => {
                let t = defined(p, *v, *pos)?;
                if t != Type::B1 {
                    return p.err(
                        *pos,
                        format!("type mismatch: an `if` condition must be vec1 1, found {t}"),
                    );
                }
            }
            Deferred::Inst(info) => check_inst(p, info)?,
        }
    }
    Ok(())
}

fn value_ty(p: &Parser, v: Value) -> Option<Type> {
    let d = p.values.get(v.as_u32() as usize)?.as_ref()?;
    Some(d.ty)
}

fn defined(p: &Parser, v: Value, pos: Pos) -> PResult<Type> {
    match value_ty(p, v) {
        Some(t) => Ok(t),
        None => p.err(pos, format!("undefined value {v}")),
    }
}

fn want(p: &Parser, pos: Pos, what: &str, found: Type, want: Type) -> PResult<()> {
    if found == want {
        Ok(())
    } else {
        p.err(
            pos,
            format!("type mismatch: {what} must be {want}, found {found}"),
        )
    }
}

fn want_data32(p: &Parser, pos: Pos, what: &str, found: Type) -> PResult<()> {
    if found.bits() == Some(BitSize::B32) {
        Ok(())
    } else {
        p.err(
            pos,
            format!("type mismatch: {what} must be 32-bit data, found {found}"),
        )
    }
}

fn check_inst(p: &Parser, info: &InstInfo) -> PResult<()> {
    let Some(data) = p.func.insts.get(info.inst) else {
        return Ok(());
    };
    let mut args = Vec::new();
    data.kind.visit_args(|v| args.push(v));
    let mut tys = Vec::with_capacity(args.len());
    for (&v, &pos) in args.iter().zip(&info.ops) {
        tys.push(defined(p, v, pos)?);
    }
    if tys.len() != args.len() {
        return Ok(());
    }
    let ty = data
        .result
        .expand()
        .and_then(|v| value_ty(p, v))
        .unwrap_or(Type::None);
    let pos = |i: usize| info.ops.get(i).copied().unwrap_or(info.ty_pos);
    let name = data.kind.name();
    match &data.kind {
        InstKind::Alu { op, .. } => {
            for (i, t) in tys.iter().enumerate() {
                if !matches!(t, Type::Data { .. }) {
                    return p.err(
                        pos(i),
                        format!(
                            "type mismatch: operand {} of `{op}` must be data, found {t}",
                            i + 1
                        ),
                    );
                }
            }
            let comps = tys[0].comps();
            let int = op.int_bits(tys.iter().map(|t| t.bits()));
            let derived = match op.result_bits(int, ty.bits()) {
                Some(bits) => Type::Data { bits, comps },
                None => tys.get(1).copied().unwrap_or(Type::None),
            };
            if derived != ty {
                return p.err(
                    info.ty_pos,
                    format!(
                        "type mismatch: `{op}` of these operands produces {derived}, \
                         but the result is declared {ty}"
                    ),
                );
            }
            let rc = ty.comps().max(1);
            for (i, (&kind, &t)) in op.srcs().iter().zip(&tys).enumerate() {
                let w = match op.operand_bits(kind, int) {
                    Some(bits) => Type::Data { bits, comps: rc },
                    None => ty,
                };
                want(p, pos(i), &format!("operand {} of `{op}`", i + 1), t, w)?;
            }
        }
        InstKind::Vec { .. } => {
            for (i, &t) in tys.iter().enumerate() {
                let what = format!("operand {} of `{name}`", i + 1);
                want(p, pos(i), &what, t, ty.with_comps(1))?;
            }
        }
        InstKind::Mov { swizzle, .. } => {
            let src = tys[0];
            if src.bits().is_none() || src.bits() != ty.bits() {
                let what = format!("the source of a `mov` to {ty}");
                return p.err(
                    pos(0),
                    format!("type mismatch: {what} must have the same bit size, found {src}"),
                );
            }
            let n = (ty.comps() as usize).min(4);
            if let Some(&c) = swizzle[..n].iter().find(|&&c| c >= src.comps()) {
                let letter = char::from(b"xyzw"[(c as usize).min(3)]);
                return p.err(
                    info.extra,
                    format!("swizzle out of range: `.{letter}` of a {src}"),
                );
            }
        }
        InstKind::Phi { sources } => {
            for (i, (src, &t)) in sources.iter().zip(&tys).enumerate() {
                let bpos = info.blocks.get(i).copied().unwrap_or(info.ty_pos);
                let idx = src.pred.as_u32() as usize;
                if !matches!(p.block_defs.get(idx), Some(Some(_))) {
                    return p.err(bpos, format!("unknown block {} in phi", src.pred));
                }
                let what = format!("phi source {}", src.value);
                want(p, pos(i), &what, t, ty)?;
            }
        }
        InstKind::LoadUniform { .. }
        | InstKind::LoadBuffer { .. }
        | InstKind::LoadShared { .. } => {
            want(p, pos(0), "the index", tys[0], Type::I32)?;
        }
        InstKind::StoreBuffer { .. } | InstKind::StoreShared { .. } => {
            want(p, pos(0), "the index", tys[0], Type::I32)?;
            want_data32(p, pos(1), "the stored value", tys[1])?;
        }
        InstKind::AtomicBuffer { .. } | InstKind::AtomicShared { .. } => {
            want(
                p,
                info.ty_pos,
                &format!("the result of `{name}`"),
                ty,
                Type::I32,
            )?;
            want(p, pos(0), "the index", tys[0], Type::I32)?;
            want(p, pos(1), "the operand", tys[1], Type::I32)?;
        }
        InstKind::Subgroup { op, .. } => {
            for (i, &t) in tys.iter().enumerate() {
                let w = if *op == SubgroupOp::Ballot {
                    Type::B1
                } else {
                    Type::I32
                };
                want(p, pos(i), &format!("operand {} of `{name}`", i + 1), t, w)?;
            }
        }
        InstKind::StoreOutput { .. } => want_data32(p, pos(0), "the stored value", tys[0])?,
        InstKind::Tex { params, .. } | InstKind::Txf { params, .. } => {
            let coord = Type::vec32(params.dim.coords() as u8);
            want(p, pos(0), "the coordinate", tys[0], coord)?;
            let present = params
                .named()
                .into_iter()
                .filter(|(_, v)| *v != Value::reserved_value());
            for (i, (param, _)) in present.enumerate() {
                let t = if param.starts_with("dd") {
                    coord
                } else {
                    Type::I32
                };
                want(
                    p,
                    pos(i + 1),
                    &format!("the `{param}` of `{name}`"),
                    tys[i + 1],
                    t,
                )?;
            }
        }
        InstKind::Txs { .. } => {
            if let Some(&t) = tys.first() {
                want(p, pos(0), "the `lod` of `txs`", t, Type::I32)?;
            }
        }
        InstKind::DerefArray { .. } => {
            want(p, pos(0), "the parent", tys[0], Type::Deref)?;
            want(p, pos(1), "the index", tys[1], Type::I32)?;
        }
        InstKind::DerefStruct { .. } => want(p, pos(0), "the parent", tys[0], Type::Deref)?,
        InstKind::DerefCast { .. } => want(p, pos(0), "the parent", tys[0], Type::Deref)?,
        InstKind::LoadDeref { deref } => {
            want(p, pos(0), "the deref", tys[0], Type::Deref)?;
            match pointee(p, *deref) {
                Some(VarType::Vector(n)) if *n != ty.comps() => {
                    return p.err(
                        info.ty_pos,
                        format!(
                            "type mismatch: `load_deref` of a vec{n} produces {}, \
                             but the result is declared {ty}",
                            Type::vec32((*n).clamp(1, 4))
                        ),
                    );
                }
                Some(vt @ (VarType::Array(..) | VarType::Struct(_))) => {
                    return p.err(pos(0), format!("`load_deref` of {vt}: only vectors load"));
                }
                _ => {}
            }
        }
        InstKind::StoreDeref { deref, .. } => {
            want(p, pos(0), "the deref", tys[0], Type::Deref)?;
            want_data32(p, pos(1), "the stored value", tys[1])?;
            match pointee(p, *deref) {
                Some(VarType::Vector(n)) => {
                    let w = Type::vec32((*n).clamp(1, 4));
                    want(p, pos(1), "the stored value", tys[1], w)?;
                }
                Some(vt) => {
                    return p.err(pos(0), format!("`store_deref` to {vt}: only vectors store"));
                }
                None => {}
            }
        }
        InstKind::StoreReg { reg, .. } => {
            if let Some(&rt) = p.func.regs.get(*reg) {
                want(p, pos(0), &format!("the value stored to {reg}"), tys[0], rt)?;
            }
        }
        InstKind::Const { .. }
        | InstKind::InvocationId
        | InstKind::LocalId
        | InstKind::WorkgroupId
        | InstKind::Barrier
        | InstKind::DerefVar { .. }
        | InstKind::LoadReg { .. }
        | InstKind::Break
        | InstKind::Continue => {}
    }
    Ok(())
}

/// The type a deref chain points at, when it leads through derefs to a variable or a cast
/// (none through phis, on cycles or on paths that do not fit the types).
fn pointee<'p>(p: &'p Parser, v: Value) -> Option<&'p VarType> {
    enum Step {
        Elem,
        Field(u32),
    }
    let mut steps = Vec::new();
    let mut cur = v;
    let base = loop {
        if steps.len() > p.values.len() {
            return None;
        }
        let def = p.values.get(cur.as_u32() as usize)?.as_ref()?;
        match &p.func.insts.get(def.inst)?.kind {
            InstKind::DerefVar { var } => break p.func.vars.get(*var)?,
            InstKind::DerefCast { ty, .. } => break ty,
            InstKind::DerefArray { parent, .. } => {
                steps.push(Step::Elem);
                cur = *parent;
            }
            InstKind::DerefStruct { parent, field } => {
                steps.push(Step::Field(*field));
                cur = *parent;
            }
            _ => return None,
        }
    };
    let mut t = base;
    for step in steps.iter().rev() {
        t = match (step, t) {
            (Step::Elem, VarType::Array(elem, _)) => elem,
            (Step::Field(f), VarType::Struct(fields)) => fields.get(*f as usize)?,
            _ => return None,
        };
    }
    Some(t)
}
