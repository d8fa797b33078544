//! Workgroups: invocations that talk to each other through shared arrays, ordered by
//! top-level barriers, race-free by construction.
//!
//! A program with workgroups (chance `Config::workgroup_rate`) has a workgroup of 2, 4 or 8
//! invocations and two shared arrays of `size * per` words, where each invocation owns the
//! `per` words from `local_id * per` (`per` 1, 2 or 4). The barriers cut the program into
//! phases; in phase `p` array `p % 2` is the *written* one and array `(p + 1) % 2` the *read*
//! one:
//! * an invocation stores only to its own words of the written array, and loads its own
//!   words of it back;
//! * it loads any word of the read array, which no invocation writes in this phase;
//! * with `Config::atomic_rate`, it applies an atomic to one of its own words of the written
//!   array (any operation; the old word it returns is defined, as no one else touches it).
//!
//! With `Config::atomic_rate` the dispatch has a third, *atomic* array of `size` words. In
//! even phases every invocation applies one operation, drawn per phase among the commutative
//! ones, to any of its words and never reads the result; in odd phases anyone loads any of
//! its words. Its final words do not depend on the order the atomics ran in.
//!
//! So no two invocations touch a word between two barriers unless both only read it or both
//! apply the phase's atomic without reading the result, and every result is defined —
//! whatever the divergence around the accesses (they go anywhere, in ifs and loops; only
//! barriers are held to the top level). The interpreter checks the rule on every run
//! (`InterpError::SharedRace`), for programs the reducer and the mutator change too.
//!
//! With `Config::subgroup_rate` the program also has subgroup operations (its workgroup is
//! then 8 invocations three times in four: the subgroup size the drivers that take them
//! offer): half the shared statements become a reduction, scan, ballot, elect or broadcast
//! of values in scope, anywhere — divergent ones see the invocations that took the branch —
//! and a shuffle at the top level only, where every invocation it may name is active (the
//! index is masked below the workgroup size).

use super::config::Rate;
use super::ctx::{Gen, Plan};
use super::pool::Flavor;
use arbitrary::{Result, Unstructured};
use compiler::ir::{AluOp, AtomicOp, InstKind, SubgroupOp, Type, Value};
use cranelift_entity::packed_option::ReservedValue;
use sim::dispatch::Dispatch;

/// What the dispatch's workgroups are to hold.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Words each invocation owns per shared array.
    per: u32,
    /// Whether the program has subgroup operations.
    subgroups: bool,
}

/// Gives the dispatch workgroups, or not, by `Config::workgroup_rate`; the invocation count
/// becomes whole workgroups. Returns their shape when it did.
pub fn dispatch(
    u: &mut Unstructured,
    cfg: &super::Config,
    d: &mut Dispatch,
) -> Result<Option<Shape>> {
    if !chance(u, cfg.workgroup_rate)? {
        return Ok(None);
    }
    let subgroups = chance(u, cfg.subgroup_rate)?;
    let size = if subgroups && u.int_in_range(0..=3)? != 0 {
        8
    } else {
        [2, 4, 8][u.int_in_range(0..=2)?]
    };
    let per = [1, 2, 4][u.int_in_range(0..=2)?];
    d.workgroup = size;
    d.invocations = (d.invocations - d.invocations % size).max(size);
    d.shared = vec![size * per; 2];
    if chance(u, cfg.atomic_rate)? {
        d.shared.push(size);
    }
    Ok(Some(Shape { per, subgroups }))
}

/// `true` with probability `num/den`, drawn before there is a [`Gen`].
fn chance(u: &mut Unstructured, (num, den): Rate) -> Result<bool> {
    Ok(num != 0 && den != 0 && u.int_in_range(0..=den - 1)? < num)
}

/// The shared atomic array's number.
const ATOMIC_ARRAY: u32 = 2;

/// A commutative operation for a phase of the atomic array.
fn phase_op(g: &mut Gen) -> Result<Option<AtomicOp>> {
    if g.dispatch.shared.len() <= ATOMIC_ARRAY as usize {
        return Ok(None);
    }
    let ops: Vec<AtomicOp> = AtomicOp::ALL.into_iter().filter(|o| o.commutes()).collect();
    Ok(Some(g.pick(&ops)?))
}

/// The prologue's part: the local and workgroup ids (in the pool, so they feed data and
/// branches: branches on the local id diverge inside a workgroup).
pub fn prologue(g: &mut Gen, shape: Option<Shape>) -> Result<()> {
    let Some(Shape { per, subgroups }) = shape else {
        return Ok(());
    };
    let local = g.emit(InstKind::LocalId, Type::I32, Flavor::Int);
    g.emit(InstKind::WorkgroupId, Type::I32, Flavor::Int);
    let atomic = phase_op(g)?;
    g.shared = Some(Plan {
        per,
        phase: 0,
        local,
        atomic,
        subgroups,
    });
    Ok(())
}

/// At the top level between items: a barrier, half the time; with subgroup operations, one
/// of them half the time too (the statements inside the items are divergent far more often).
pub fn maybe_barrier(g: &mut Gen) -> Result<()> {
    if g.shared.is_some_and(|p| p.subgroups) && g.u.arbitrary::<bool>()? {
        subgroup(g)?;
    }
    if g.shared.is_none() || !g.u.arbitrary::<bool>()? {
        return Ok(());
    }
    g.emit_effect(InstKind::Barrier);
    let atomic = phase_op(g)?;
    if let Some(plan) = &mut g.shared {
        plan.phase += 1;
        plan.atomic = atomic;
    }
    Ok(())
}

/// One shared access: a store to or a load from this invocation's own words of the written
/// array, or a load of any word of the read array; sometimes an atomic instead.
pub fn access(g: &mut Gen) -> Result<()> {
    let Some(plan) = g.shared else {
        return Ok(());
    };
    let written = plan.phase % 2;
    if plan.subgroups && g.u.arbitrary::<bool>()? {
        return subgroup(g);
    }
    if g.chance(g.cfg.atomic_rate)? {
        return atomic(g, plan, written);
    }
    match g.u.int_in_range(0..=2)? {
        0 => {
            let c = own_comps(g, plan)?;
            let index = own_index(g, plan, c)?;
            let value = g.get(Type::vec32(c), Flavor::Int)?;
            g.emit_effect(InstKind::StoreShared {
                shared: written,
                index,
                value,
            });
        }
        1 => {
            let c = own_comps(g, plan)?;
            let index = own_index(g, plan, c)?;
            let kind = InstKind::LoadShared {
                shared: written,
                index,
            };
            g.emit(kind, Type::vec32(c), Flavor::Int);
        }
        _ => {
            let len = g.dispatch.shared[(1 - written) as usize];
            let index = g.word_index(len)?;
            let c = g.comps()?;
            let kind = InstKind::LoadShared {
                shared: 1 - written,
                index,
            };
            g.emit(kind, Type::vec32(c), Flavor::Int);
        }
    }
    Ok(())
}

/// An atomic on an own word of the written array (its result in scope), or one on the
/// atomic array: the phase's operation on any word with the result unread in even phases, a
/// load of any word in odd ones.
fn atomic(g: &mut Gen, plan: Plan, written: u32) -> Result<()> {
    let value = g.int()?;
    match plan.atomic {
        Some(op) if g.u.arbitrary::<bool>()? => {
            let index = g.word_index(g.dispatch.shared[ATOMIC_ARRAY as usize])?;
            if plan.phase.is_multiple_of(2) {
                let kind = InstKind::AtomicShared {
                    shared: ATOMIC_ARRAY,
                    op,
                    index,
                    value,
                };
                g.emit_unread(kind, Type::I32);
            } else {
                let kind = InstKind::LoadShared {
                    shared: ATOMIC_ARRAY,
                    index,
                };
                g.emit(kind, Type::I32, Flavor::Int);
            }
        }
        _ => {
            let index = own_index(g, plan, 1)?;
            let kind = InstKind::AtomicShared {
                shared: written,
                op: g.pick(&AtomicOp::ALL)?,
                index,
                value,
            };
            g.emit(kind, Type::I32, Flavor::Int);
        }
    }
    Ok(())
}

/// One subgroup operation on values in scope (a shuffle only at the top level, with a source
/// masked below the workgroup size; elsewhere a broadcast of the first active invocation).
/// A quarter of the time, one emitted before again, on the same operands when they are still
/// in scope: in another block it sees other invocations, the shape where a pass that treats
/// it as pure (CSE, hoisting) goes wrong.
fn subgroup(g: &mut Gen) -> Result<()> {
    let in_scope = |g: &Gen, kind: &InstKind| {
        let mut all = true;
        kind.visit_args(|a| all &= g.pool.entries().iter().any(|e| e.v == a));
        all
    };
    if !g.subgroup_ops.is_empty() && g.u.ratio(1, 4)? {
        let k = g.index(g.subgroup_ops.len())?;
        let kind = g.subgroup_ops[k].clone();
        let shuffle = matches!(
            kind,
            InstKind::Subgroup {
                op: SubgroupOp::Shuffle,
                ..
            }
        );
        if in_scope(g, &kind) && (!shuffle || g.depth == 0) {
            return emit_subgroup(g, kind);
        }
    }
    let none = Value::reserved_value();
    let combining: Vec<AtomicOp> = AtomicOp::ALL.into_iter().filter(|o| o.commutes()).collect();
    let (op, args) = match g.u.int_in_range(0..=6)? {
        k @ 0..=2 => {
            let c = g.pick(&combining)?;
            let op = [
                SubgroupOp::Reduce,
                SubgroupOp::InclusiveScan,
                SubgroupOp::ExclusiveScan,
            ][k as usize](c);
            (op, [g.int()?, none])
        }
        3 => (SubgroupOp::Ballot, [g.bool()?, none]),
        4 => (SubgroupOp::Elect, [none; 2]),
        5 if g.depth == 0 => {
            let x = g.int()?;
            let from = g.int()?;
            let mask = g.iconst(g.dispatch.workgroup - 1);
            let from = g.alu(AluOp::Iand, &[from, mask]);
            (SubgroupOp::Shuffle, [x, from])
        }
        _ => (SubgroupOp::BroadcastFirst, [g.int()?, none]),
    };
    emit_subgroup(g, InstKind::Subgroup { op, args })
}

/// Emits a subgroup operation and remembers it.
fn emit_subgroup(g: &mut Gen, kind: InstKind) -> Result<()> {
    g.subgroup_ops.push(kind.clone());
    if matches!(
        kind,
        InstKind::Subgroup {
            op: SubgroupOp::Elect,
            ..
        }
    ) {
        g.emit(kind, Type::B1, Flavor::Bool);
    } else {
        g.emit(kind, Type::I32, Flavor::Int);
    }
    Ok(())
}

/// A width for an access to one's own words: at most `per`.
fn own_comps(g: &mut Gen, plan: Plan) -> Result<u8> {
    Ok(g.comps()?.min(plan.per as u8))
}

/// `local * per + offset` with the `c` words from the offset inside one's own: the offset a
/// constant, or a value in scope clamped by `umin`.
fn own_index(g: &mut Gen, plan: Plan, c: u8) -> Result<Value> {
    let room = plan.per - u32::from(c);
    let base = match plan.per {
        1 => plan.local,
        per => {
            let shift = g.iconst(per.trailing_zeros());
            g.alu(AluOp::Ishl, &[plan.local, shift])
        }
    };
    if room == 0 {
        return Ok(base);
    }
    let offset = if g.chance(g.cfg.dynamic_index_rate)? {
        let x = g.int()?;
        let room = g.iconst(room);
        g.alu(AluOp::Umin, &[x, room])
    } else {
        let k = g.u.int_in_range(0..=room)?;
        g.iconst(k)
    };
    Ok(g.alu(AluOp::Iadd, &[base, offset]))
}
