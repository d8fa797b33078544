//! Local variables: arrays (sometimes of arrays) and structs, declared first and fully
//! initialised in the entry block, then read and written through well-typed deref chains
//! (`deref_var`, `deref_array` with constant or dynamic index, `deref_struct`, `deref_cast`
//! to a type of no more words) ending at a vector pointee.

use super::ctx::{Gen, VarInfo};
use super::pool::Flavor;
use arbitrary::Result;
use compiler::a6xx::lower::MAX_LOCAL_WORDS;
use compiler::ir::{InstKind, Type, Value, VarType};

fn vector(g: &mut Gen) -> Result<VarType> {
    Ok(VarType::Vector(g.comps()?))
}

fn var_type(g: &mut Gen) -> Result<VarType> {
    let len = g.range(&g.cfg.array_len)?;
    Ok(match g.u.int_in_range(0..=5)? {
        0..=2 => VarType::Array(Box::new(vector(g)?), len),
        3 => {
            let inner = g.u.int_in_range(1..=3)?;
            VarType::Array(Box::new(VarType::Array(Box::new(vector(g)?), inner)), len)
        }
        4 => VarType::Struct(vec![vector(g)?, VarType::Array(Box::new(vector(g)?), len)]),
        _ => VarType::Struct(vec![
            VarType::Array(Box::new(vector(g)?), len),
            vector(g)?,
            vector(g)?,
        ]),
    })
}

/// Declares the local variables and stores to every word of each (so no read sees an
/// unwritten word). Together they stay within the smallest private memory a backend gives
/// locals (a6xx's [`MAX_LOCAL_WORDS`]): a program a backend must refuse is no test of it.
pub fn declare(g: &mut Gen) -> Result<()> {
    let n = g.range(&g.cfg.local_vars)?;
    let mut words = 0;
    for _ in 0..n {
        let ty = var_type(g)?;
        if words + ty.words() > MAX_LOCAL_WORDS {
            continue;
        }
        words += ty.words();
        let var = g.b.var(ty.clone());
        g.vars.push(VarInfo {
            var,
            ty: ty.clone(),
        });
        let root = g.b.ins(InstKind::DerefVar { var }, Type::Deref).unwrap();
        init(g, root, &ty)?;
    }
    Ok(())
}

fn init(g: &mut Gen, deref: Value, ty: &VarType) -> Result<()> {
    match ty {
        VarType::Vector(n) => {
            let value = g.get(Type::vec32(*n), Flavor::Int)?;
            g.b.ins(InstKind::StoreDeref { deref, value }, Type::None);
        }
        VarType::Array(elem, len) => {
            for k in 0..*len {
                let index = g.iconst(k);
                let d = g.b.ins(
                    InstKind::DerefArray {
                        parent: deref,
                        index,
                    },
                    Type::Deref,
                );
                init(g, d.unwrap(), elem)?;
            }
        }
        VarType::Struct(fields) => {
            for (k, f) in fields.iter().enumerate() {
                let parent = deref;
                let kind = InstKind::DerefStruct {
                    parent,
                    field: k as u32,
                };
                let d = g.b.ins(kind, Type::Deref).unwrap();
                init(g, d, f)?;
            }
        }
    }
    Ok(())
}

fn deref(g: &mut Gen, kind: InstKind) -> Value {
    g.budget = g.budget.saturating_sub(1);
    g.b.ins(kind, Type::Deref).expect("derefs have a value")
}

/// One load or store through a random deref chain into a random variable.
pub fn local(g: &mut Gen) -> Result<()> {
    let k = g.index(g.vars.len())?;
    let VarInfo { var, ty } = g.vars[k].clone();
    let mut d = deref(g, InstKind::DerefVar { var });
    let mut ty = ty;
    let comps = loop {
        // Sometimes reinterpret what we point at as a vector of no more words.
        let words = ty.words();
        if !matches!(ty, VarType::Vector(_)) && g.u.int_in_range(0..=7)? == 7 {
            let n = g.u.int_in_range(1..=words.min(4))? as u8;
            let cast = VarType::Vector(n);
            d = deref(
                g,
                InstKind::DerefCast {
                    parent: d,
                    ty: cast.clone(),
                },
            );
            ty = cast;
        }
        match ty {
            VarType::Vector(n) => break n,
            VarType::Array(elem, len) => {
                let index = g.word_index(len)?;
                d = deref(g, InstKind::DerefArray { parent: d, index });
                ty = *elem;
            }
            VarType::Struct(mut fields) => {
                let f = g.index(fields.len())?;
                d = deref(
                    g,
                    InstKind::DerefStruct {
                        parent: d,
                        field: f as u32,
                    },
                );
                ty = fields.swap_remove(f);
            }
        }
    };
    if g.u.arbitrary::<bool>()? {
        g.emit(
            InstKind::LoadDeref { deref: d },
            Type::vec32(comps),
            Flavor::Int,
        );
    } else {
        let value = g.get(Type::vec32(comps), Flavor::Int)?;
        g.emit_effect(InstKind::StoreDeref { deref: d, value });
    }
    Ok(())
}
