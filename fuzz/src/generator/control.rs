//! Structured control flow: lists of blocks, `if`s with merge phis, and loops that terminate by
//! construction.
//!
//! Every loop has a counter: `i = phi(pre: 0, each back-edge: i_next)`, `i_next = iadd i, 1`
//! in the header (so it dominates every back-edge block), then `if (uge i, limit) { break }`
//! with `limit = iand(x, MASK) + BASE`, `MASK ≤ max_trip_count`, `BASE ≤ 2` and `x` data (invocation id, uniform,
//! buffer word, earlier value), so lanes leave at different iterations. Other `break`s and
//! `continue`s end if-sides under data-dependent conditions; each `continue` supplies the
//! header phis' back-edge sources. Never both sides of an if jump, so every merge block is
//! reachable; the counter's break makes every block after a loop reachable.

use super::ctx::{CarriedPhi, Carry, Gen, LoopFrame};
use super::pool::{Entry, Flavor};
use super::{data, observe, workgroup};
use arbitrary::Result;
use compiler::ir::{AluOp, InstKind, PhiSource, Type, Value};

/// Statements of the current block.
pub fn block(g: &mut Gen) -> Result<()> {
    let n = g.range(&g.cfg.block_len)?;
    for _ in 0..n {
        if !g.has_budget() {
            break;
        }
        data::statement(g)?;
    }
    Ok(())
}

/// The rest of a list whose first block is current: statements, then ifs and loops each
/// followed by a block of statements.
pub fn list(g: &mut Gen) -> Result<()> {
    block(g)?;
    let top = g.depth == 0;
    // The top level nearly always gets at least one item, and its first is usually a loop
    // that every invocation enters: back-edges taken twice are what the passes under test
    // need most.
    let n = g.range(&g.cfg.list_len)?.max(u32::from(top));
    for i in 0..n {
        if !g.has_budget() || g.depth >= g.cfg.max_depth {
            break;
        }
        let loop_ok = (g.loops.len() as u32) < g.cfg.max_loop_depth;
        let first_at_top = top && i == 0 && g.u.int_in_range(0..=3)? != 3;
        if top {
            workgroup::maybe_barrier(g)?;
        }
        if loop_ok && (first_at_top || g.chance(g.cfg.loop_rate)?) {
            gen_loop(g)?;
        } else {
            gen_if(g)?;
        }
        block(g)?;
    }
    if top {
        workgroup::maybe_barrier(g)?;
        block(g)?;
    }
    Ok(())
}

/// A branch condition: a loop-invariant compare hoisted before an enclosing loop, an old
/// boolean, a fresh compare, `band`/`bor`/`bnot` of booleans, or `band`/`bor` of two fresh
/// compares read by nothing else — so many predicates stay alive, combined compares feed
/// branches, and branches fold into a6xx `braa`/`brao`.
pub fn condition(g: &mut Gen) -> Result<Value> {
    if let Some(frame) = g.loops.iter_mut().rev().find(|f| !f.hoisted.is_empty()) {
        let n = frame.hoisted.len();
        if g.u.ratio(2, 3)? {
            return Ok(frame.hoisted.swap_remove(n - 1));
        }
    }
    Ok(match g.u.int_in_range(0..=5)? {
        0 | 1 => g.bool()?,
        2 => compare(g, true)?,
        3 => {
            let op = g.pick(&[AluOp::Band, AluOp::Bor, AluOp::Bxor])?;
            let x = g.bool()?;
            let y = g.bool()?;
            g.alu(op, &[x, y])
        }
        4 => {
            let x = g.bool()?;
            g.alu(AluOp::Bnot, &[x])
        }
        _ => {
            let op = g.pick(&[AluOp::Band, AluOp::Bor])?;
            let x = compare(g, false)?;
            let y = compare(g, false)?;
            g.budget = g.budget.saturating_sub(1);
            g.b.alu(op, &[x, y])
        }
    })
}

/// A fresh integer compare; in the pool (`pooled`) or read only by the caller.
fn compare(g: &mut Gen, pooled: bool) -> Result<Value> {
    let op = g.pick(&[AluOp::Ilt, AluOp::Ult, AluOp::Ieq, AluOp::Ine, AluOp::Ige])?;
    let x = g.int()?;
    let y = g.int()?;
    Ok(if pooled {
        g.alu(op, &[x, y])
    } else {
        g.budget = g.budget.saturating_sub(1);
        g.b.alu(op, &[x, y])
    })
}

/// Ends the current if-side with `break` or `continue` (if inside a loop and the dice say so).
fn maybe_jump(g: &mut Gen) -> Result<bool> {
    if g.loops.is_empty() || !g.chance(g.cfg.jump_rate)? {
        return Ok(false);
    }
    if g.chance(g.cfg.continue_rate)? {
        back_edge(g)?;
        g.b.cont();
    } else {
        g.b.brk();
    }
    Ok(true)
}

/// A merge phi being planned: its type and, in "same" mode, the one value of every source.
struct MergePhi {
    ty: Type,
    flavor: Flavor,
    same: Option<Value>,
    sources: Vec<PhiSource>,
}

fn merge_sources(g: &mut Gen, phis: &mut [MergePhi]) -> Result<()> {
    let pred = g.b.current_block();
    for p in phis.iter_mut() {
        let value = match p.same {
            Some(v) => v,
            None => g.get(p.ty, p.flavor)?,
        };
        p.sources.push(PhiSource { pred, value });
    }
    Ok(())
}

/// `if cond { … } else { … }` with phis at the merge block.
pub fn gen_if(g: &mut Gen) -> Result<()> {
    // Control flow costs budget even when it emits nothing else, so nesting stays bounded.
    g.budget = g.budget.saturating_sub(2);
    let cond = condition(g)?;
    let n = g.range(&g.cfg.merge_phis)?;
    let mut phis = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let (ty, flavor) = g.phi_ty()?;
        let same = if g.chance(g.cfg.same_phi_rate)? {
            Some(g.get(ty, flavor)?)
        } else {
            None
        };
        phis.push(MergePhi {
            ty,
            flavor,
            same,
            sources: Vec::new(),
        });
    }
    g.depth += 1;

    g.b.begin_if(cond);
    g.pool.mark();
    list(g)?;
    observe::recent(g)?;
    let then_jumped = maybe_jump(g)?;
    if !then_jumped {
        merge_sources(g, &mut phis)?;
    }
    g.pool.pop();

    g.b.begin_else();
    g.pool.mark();
    if then_jumped || g.chance(g.cfg.else_rate)? {
        list(g)?;
        observe::recent(g)?;
    }
    let else_jumped = !then_jumped && maybe_jump(g)?;
    if !else_jumped {
        merge_sources(g, &mut phis)?;
    }
    g.pool.pop();

    g.b.end_if();
    g.depth -= 1;
    for p in phis {
        let (v, _) = g.b.phi(p.ty, p.sources);
        g.pool.push(Entry {
            v,
            ty: p.ty,
            flavor: p.flavor,
            slow: false,
        });
    }
    Ok(())
}

/// The data a loop's trip count depends on.
fn limit_source(g: &mut Gen) -> Result<Value> {
    Ok(match g.u.int_in_range(0..=5)? {
        0 | 1 => g.emit(InstKind::InvocationId, Type::I32, Flavor::Int),
        2 if !g.dispatch.uniforms.is_empty() => {
            let k = g.index(g.dispatch.uniforms.len())? as u32;
            let index = g.iconst(k);
            g.emit(InstKind::LoadUniform { index }, Type::I32, Flavor::Int)
        }
        3 if !g.dispatch.buffers.is_empty() => {
            let buffer = g.index(g.dispatch.buffers.len())? as u32;
            let index = g.int()?;
            g.emit(
                InstKind::LoadBuffer { buffer, index },
                Type::I32,
                Flavor::Int,
            )
        }
        4 => {
            let k = g.u.int_in_range(0..=g.cfg.max_trip_count)?;
            g.iconst(k)
        }
        _ => g.int()?,
    })
}

/// Plans the loop-carried phis: types, entry values and how back-edges feed them.
fn plan_carried(g: &mut Gen) -> Result<Vec<(Type, Flavor, Value, Carry)>> {
    let n = g.range(&g.cfg.carried_phis)? as usize;
    let mut out: Vec<(Type, Flavor, Value, Carry)> = Vec::with_capacity(n + 1);
    while out.len() < n {
        let (ty, flavor) = g.phi_ty()?;
        let pre = g.get(ty, flavor)?;
        if out.len() + 2 <= n && g.chance(g.cfg.swap_phi_rate)? {
            let i = out.len();
            let pre2 = g.get(ty, flavor)?;
            out.push((ty, flavor, pre, Carry::Swap(i + 1)));
            out.push((ty, flavor, pre2, Carry::Swap(i)));
            continue;
        }
        let carry = if g.chance(g.cfg.self_phi_rate)? {
            Carry::Itself
        } else if g.chance(g.cfg.same_phi_rate)? {
            Carry::Same
        } else {
            Carry::Fresh
        };
        out.push((ty, flavor, pre, carry));
    }
    Ok(out)
}

/// A value of `ty` for a back-edge: preferably one from a long-latency unit.
fn fresh(g: &mut Gen, ty: Type, flavor: Flavor) -> Result<Value> {
    if g.u.arbitrary::<bool>()? {
        let slow: Vec<Value> = g
            .pool
            .entries()
            .iter()
            .filter(|e| e.slow && e.ty == ty)
            .map(|e| e.v)
            .collect();
        if !slow.is_empty() {
            return g.pick(&slow);
        }
    }
    g.get(ty, flavor)
}

/// Adds the current block as a back-edge of the innermost loop: one source per header phi.
pub fn back_edge(g: &mut Gen) -> Result<()> {
    let frame: LoopFrame = g.loops.last().cloned().expect("back-edge outside a loop");
    let mut srcs = Vec::with_capacity(frame.carried.len());
    for c in &frame.carried {
        srcs.push(match c.carry {
            Carry::Itself => c.value,
            Carry::Swap(j) => frame.carried[j].value,
            Carry::Same => c.pre,
            Carry::Fresh => {
                let fl = g.flavor_of(c.value);
                fresh(g, c.ty, fl)?
            }
        });
    }
    let pred = g.b.current_block();
    if let (Some(phi), Some(next)) = (frame.counter_phi, frame.counter_next) {
        g.b.add_phi_source(phi, pred, next);
    }
    for (c, s) in frame.carried.iter().zip(srcs) {
        g.b.add_phi_source(c.inst, pred, s);
    }
    Ok(())
}

/// Small `if`s at the end of the innermost loop's body on the hoisted compares its branches
/// have not used, one each (whatever the budget and depth: each is one ALU statement and a
/// store, at most `hoisted_conds` of them, cheap to run every iteration): so every hoisted predicate is live across the loop header
/// and the body's other predicates, and several distinct ones must be back in a register
/// inside one loop — where a6xx reloads them, and where one predicate register
/// (`a6xx_predicates=1`) makes every one a reload.
fn hoisted_branches(g: &mut Gen) -> Result<()> {
    while let Some(cond) = g.loops.last_mut().and_then(|f| f.hoisted.pop()) {
        g.budget = g.budget.saturating_sub(2);
        g.depth += 1;
        g.b.begin_if(cond);
        g.pool.mark();
        data::alu(g)?;
        // Always observed: an `if` with no effect would be deleted, and its predicate with it.
        if let Some(e) = g.pool.last() {
            observe::store(g, e.v);
        }
        g.pool.pop();
        g.b.begin_else();
        g.b.end_if();
        g.depth -= 1;
    }
    Ok(())
}

/// A loop with a counter, carried phis, an exit test in the header, a body, and sometimes
/// header values used only after the loop.
pub fn gen_loop(g: &mut Gen) -> Result<()> {
    g.budget = g.budget.saturating_sub(2);
    // Pre-header: trip limit, counter constants, entry values of carried phis.
    // limit = (x & mask) + base: lanes differ through x, and `base` (2 when the bytes run
    // out) makes most loops take their back-edge at least twice.
    let x = limit_source(g)?;
    let max = g.cfg.max_trip_count;
    let mask = max - g.u.int_in_range(0..=max - 1)?;
    let m = g.iconst(mask);
    let masked = g.alu(AluOp::Iand, &[x, m]);
    let base = 2 - g.u.int_in_range(0..=2)?;
    let b = g.iconst(base);
    let limit = g.alu(AluOp::Iadd, &[masked, b]);
    let zero = g.iconst(0);
    let one = g.iconst(1);
    let plan = plan_carried(g)?;
    let mut hoisted = Vec::new();
    if g.chance(g.cfg.hoisted_cond_rate)? {
        for _ in 0..g.range(&g.cfg.hoisted_conds)? {
            hoisted.push(compare(g, false)?);
        }
    }
    let pre = g.b.current_block();
    g.depth += 1;

    // Header: phis, counter increment, header-only values, exit test.
    g.b.begin_loop();
    let (i, counter_phi) = g.b.phi(
        Type::I32,
        vec![PhiSource {
            pred: pre,
            value: zero,
        }],
    );
    g.pool.push(Entry {
        v: i,
        ty: Type::I32,
        flavor: Flavor::Int,
        slow: false,
    });
    let mut frame = LoopFrame {
        counter_phi: Some(counter_phi),
        counter_next: None,
        carried: Vec::with_capacity(plan.len()),
        hoisted,
    };
    for &(ty, flavor, pv, carry) in &plan {
        let (value, inst) = g.b.phi(
            ty,
            vec![PhiSource {
                pred: pre,
                value: pv,
            }],
        );
        g.pool.push(Entry {
            v: value,
            ty,
            flavor,
            slow: false,
        });
        frame.carried.push(CarriedPhi {
            inst,
            value,
            ty,
            pre: pv,
            carry,
        });
    }
    frame.counter_next = Some(g.alu(AluOp::Iadd, &[i, one]));
    let mut deferred = Vec::new();
    if g.chance(g.cfg.header_only_rate)? {
        let before = g.pool.entries().len();
        let k = g.u.int_in_range(1..=3)?;
        for _ in 0..k {
            data::alu(g)?;
        }
        deferred = g.pool.split_off(before);
    }
    let mut exit = g.alu(AluOp::Uge, &[i, limit]);
    if g.u.int_in_range(0..=3)? == 3 {
        let c = condition(g)?;
        exit = g.alu(AluOp::Bor, &[exit, c]);
    }
    g.pool.mark();
    g.loops.push(frame);
    g.b.begin_if(exit);
    if g.u.int_in_range(0..=3)? == 3 {
        g.pool.mark();
        observe::recent(g)?;
        g.pool.pop();
    }
    g.b.brk();
    g.b.begin_else();
    g.b.end_if();

    // Body.
    list(g)?;
    hoisted_branches(g)?;
    observe::recent(g)?;
    back_edge(g)?;
    if g.u.int_in_range(0..=7)? == 7 {
        // The last block's back-edge written as an explicit `continue`.
        g.b.cont();
    }
    g.loops.pop();
    g.pool.pop();
    g.b.end_loop();
    g.depth -= 1;
    for e in deferred {
        g.pool.push(e);
    }
    Ok(())
}
