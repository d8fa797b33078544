//! Running lowered code: every invocation in order, each from a fresh state, writing its own
//! output slots and buffer regions of one shared [`Results`].
//!
//! The hot loop is one `match` per op over value slots; nothing allocates. Statistics are a
//! const generic, so the plain run carries none of their cost. Failures inside the loop are a
//! small [`Fault`] plus the op index; they become an [`InterpError`] with the instruction and
//! invocation only on the way out.

use super::code::{Code, Op, NONE};
use super::memory::{Slot, State};
use super::{InterpError, RunOptions, RunStats};
use crate::ir::{AluOp, Block, Inst, Program, Value};
use cranelift_entity::packed_option::ReservedValue;
use sim::dispatch::{Dispatch, Results};
use sim::semantics::{texture_result, TexRequest};

/// What went wrong inside the hot loop.
#[derive(Clone, Copy, Debug)]
enum Fault {
    /// The op's instruction read an undefined value.
    Undefined(u32),
    /// A phi read an undefined source.
    UndefinedPhi { value: u32, inst: Inst },
    /// Phis had no source for predecessor `pred` of `block`.
    NoPhi { block: u32, pred: u32 },
    /// A deref instruction met a bad deref.
    Deref(&'static str),
    /// Fuel ran out.
    Fuel,
}

/// Checks that the dispatch's resources can exist (the rules of `sim::semantics` assume it).
fn check_dispatch(d: &Dispatch) -> Result<(), InterpError> {
    let bad = |reason| Err(InterpError::BadDispatch { reason });
    let words = |per: u32| u64::from(d.invocations) * u64::from(per);
    if words(d.outputs) > u64::from(u32::MAX) {
        return bad("output slots overflow 32 bits");
    }
    if d.buffers
        .iter()
        .any(|&len| words(len) > u64::from(u32::MAX))
    {
        return bad("a buffer overflows 32 bits");
    }
    for t in &d.textures {
        let max = i32::MAX as u32;
        if !(1..=max).contains(&t.width) || !(1..=max).contains(&t.height) {
            return bad("texture width and height must be 1..=i32::MAX");
        }
        if !(1..=32).contains(&t.levels) || !(1..=max).contains(&t.layers) {
            return bad("texture levels must be 1..=32 and layers 1..=i32::MAX");
        }
    }
    Ok(())
}

/// Runs every invocation of `p` (already lowered into `code`).
pub(super) fn run<const STATS: bool>(
    code: &Code,
    st: &mut State,
    p: &Program,
    opts: &RunOptions,
    stats: Option<&mut RunStats>,
) -> Result<Results, InterpError> {
    let d = &p.dispatch;
    check_dispatch(d)?;
    let mut res = d.initial_results();
    st.prepare(code, STATS);
    let mut total_left = opts.total_fuel;
    let mut executed = 0u64;
    let mut max_iters = 0u32;
    let mut loop_passes = 0u64;
    for inv in 0..d.invocations {
        st.begin_invocation(code);
        let fuel = opts.fuel.min(total_left);
        // The value slots are held by the invocation itself for the run (and put back after),
        // so the hot loop does not reach them through `st` after every store.
        let mut vals = std::mem::take(&mut st.vals);
        let mut run = Invocation {
            code,
            vals: &mut vals,
            epoch: st.epoch,
            st: &mut *st,
            d,
            res: &mut res,
            inv,
            fuel,
            executed: 0,
            max_iters,
            loop_passes,
        };
        let outcome = run.exec::<STATS>();
        executed += run.executed;
        max_iters = run.max_iters;
        loop_passes = run.loop_passes;
        let left = run.fuel;
        st.vals = vals;
        if let Err((pc, fault)) = outcome {
            return Err(error(code, inv, pc, fault, fuel < opts.fuel));
        }
        total_left -= fuel - left;
    }
    if let Some(s) = stats {
        *s = RunStats {
            executed_insts: executed,
            max_loop_iterations: max_iters,
            loop_passes,
            loops_taken_twice: st.loop_twice.iter().filter(|&&t| t).count() as u32,
            divergent_ifs_simd8: st.if_groups.iter().filter(|g| g.2).count() as u32,
            if_nodes: code.if_nodes,
            loop_nodes: code.loop_nodes,
        };
    }
    Ok(res)
}

/// The error for `fault` at op `pc` of invocation `inv`.
fn error(code: &Code, invocation: u32, pc: usize, fault: Fault, total: bool) -> InterpError {
    let at = code.op_inst.get(pc).copied();
    let inst = at.filter(|i| *i != Inst::reserved_value());
    match fault {
        Fault::Fuel if total => InterpError::OutOfTotalFuel { invocation },
        Fault::Fuel => InterpError::OutOfFuel { invocation },
        Fault::Undefined(v) => InterpError::UndefinedValue {
            invocation,
            inst,
            value: Value::from_u32(v),
        },
        Fault::UndefinedPhi { value, inst } => InterpError::UndefinedValue {
            invocation,
            inst: Some(inst),
            value: Value::from_u32(value),
        },
        Fault::NoPhi { block, pred } => InterpError::NoPhiSource {
            invocation,
            block: Block::from_u32(block),
            pred: (pred != NONE).then(|| Block::from_u32(pred)),
        },
        Fault::Deref(reason) => InterpError::DerefMisuse {
            invocation,
            inst: inst.unwrap_or(Inst::reserved_value()),
            reason,
        },
    }
}

/// One invocation in progress.
struct Invocation<'a> {
    code: &'a Code,
    /// Value slots (taken out of `st` for the invocation).
    vals: &'a mut [Slot],
    /// The invocation's epoch (`st.epoch`).
    epoch: u32,
    st: &'a mut State,
    d: &'a Dispatch,
    res: &'a mut Results,
    inv: u32,
    /// Fuel left.
    fuel: u64,
    /// Instructions executed.
    executed: u64,
    /// Most loop-body passes in one loop execution so far in the run (statistics only).
    max_iters: u32,
    /// Passes through loop bodies so far, all invocations (see [`RunStats::loop_passes`]).
    loop_passes: u64,
}

/// Reads slot `v`, which must have been written in epoch `epoch`.
#[inline(always)]
fn get(vals: &[Slot], v: u32, epoch: u32) -> Result<[u32; 4], Fault> {
    let s = &vals[v as usize];
    if s.epoch == epoch {
        Ok(s.c)
    } else {
        Err(Fault::Undefined(v))
    }
}

/// `op` on the first `comps` components of the operands (the rest 0). Scalars, most ALU ops
/// executed, take a path without the loop.
#[inline(always)]
fn alu(op: AluOp, comps: u8, a: [u32; 4], b: [u32; 4], c: [u32; 4]) -> [u32; 4] {
    let mut out = [0; 4];
    if comps == 1 {
        out[0] = op.eval(a[0], b[0], c[0]);
    } else {
        for i in 0..comps as usize {
            out[i] = op.eval(a[i], b[i], c[i]);
        }
    }
    out
}

/// The value phi source `src` holds, if it is a source ([`NONE`] is not) written in `epoch`.
#[inline(always)]
fn read_phi_source(vals: &[Slot], src: u32, epoch: u32) -> Option<[u32; 4]> {
    match vals.get(src as usize) {
        Some(s) if src != NONE && s.epoch == epoch => Some(s.c),
        _ => None,
    }
}

/// Why phi number `phi` (of [`Code::phi_dsts`]) could not read source `src` entering `block`
/// from `pred`.
#[cold]
fn phi_fault(code: &Code, block: u32, pred: u32, phi: usize, src: u32) -> Fault {
    if src == NONE {
        Fault::NoPhi { block, pred }
    } else {
        Fault::UndefinedPhi {
            value: src,
            inst: code.phi_insts[phi],
        }
    }
}

impl Invocation<'_> {
    /// Runs the code from the start; on failure, the op index and the fault.
    fn exec<const STATS: bool>(&mut self) -> Result<(), (usize, Fault)> {
        let ops = &self.code.ops[..];
        let mut pc = 0usize;
        let mut last_block = NONE;
        while let Some(op) = ops.get(pc) {
            pc += 1;
            let r = self.step::<STATS>(op, &mut pc, &mut last_block);
            if let Err(f) = r {
                return Err((pc - 1, f));
            }
        }
        Ok(())
    }

    #[inline(always)]
    fn charge(&mut self, n: u64) -> Result<(), Fault> {
        if n > self.fuel {
            return Err(Fault::Fuel);
        }
        self.fuel -= n;
        Ok(())
    }

    #[inline(always)]
    fn set(&mut self, dst: u32, c: [u32; 4]) {
        self.vals[dst as usize] = Slot {
            c,
            epoch: self.epoch,
        };
    }

    #[inline(always)]
    fn get(&self, v: u32) -> Result<[u32; 4], Fault> {
        get(self.vals, v, self.epoch)
    }

    /// Reads a deref operand: (var, offset, type).
    #[inline(always)]
    fn deref(&self, v: u32) -> Result<(u32, u32, u32), Fault> {
        let [var, off, ty, _] = self.get(v)?;
        if !self.code.types.is_type(ty) {
            return Err(Fault::Deref("not a deref value"));
        }
        Ok((var, off, ty))
    }

    /// Where word `(index + c) % len` of this invocation's part of `buffer` lies; none for a
    /// 0-word buffer.
    #[inline(always)]
    fn buffer_word(&self, buffer: u32, index: u32, c: u32) -> Option<usize> {
        let len = self.d.buffers[buffer as usize];
        (len != 0).then(|| (self.inv * len + index.wrapping_add(c) % len) as usize)
    }

    /// Executes one op.
    #[inline(always)]
    fn step<const STATS: bool>(
        &mut self,
        op: &Op,
        pc: &mut usize,
        last_block: &mut u32,
    ) -> Result<(), Fault> {
        match *op {
            Op::Enter { block, insts } => {
                self.charge(u64::from(insts))?;
                self.executed += u64::from(insts);
                *last_block = block;
            }
            Op::EnterPhis {
                block,
                insts,
                table,
            } => {
                self.charge(u64::from(insts))?;
                self.executed += u64::from(insts);
                self.phis(block, *last_block, table)?;
                *last_block = block;
            }
            Op::Const { dst, k } => {
                let c = self.code.consts[k as usize];
                self.set(dst, c);
            }
            Op::Alu1 { op, comps, dst, a } => {
                let a = self.get(a)?;
                self.set(dst, alu(op, comps, a, a, a));
            }
            Op::Alu2 {
                op,
                comps,
                dst,
                a,
                b,
            } => {
                let a = self.get(a)?;
                let b = self.get(b)?;
                self.set(dst, alu(op, comps, a, b, b));
            }
            Op::Alu3 {
                op,
                comps,
                dst,
                args,
            } => {
                let a = self.get(args[0])?;
                let b = self.get(args[1])?;
                let c = self.get(args[2])?;
                self.set(dst, alu(op, comps, a, b, c));
            }
            Op::Vec { comps, dst, args } => {
                let mut out = [0; 4];
                for i in 0..comps as usize {
                    out[i] = self.get(args[i])?[0];
                }
                self.set(dst, out);
            }
            Op::Mov {
                comps,
                swizzle,
                dst,
                src,
            } => {
                let s = self.get(src)?;
                let mut out = [0; 4];
                for i in 0..comps as usize {
                    out[i] = s[swizzle[i] as usize & 3];
                }
                self.set(dst, out);
            }
            Op::InvocationId { dst } => self.set(dst, [self.inv, 0, 0, 0]),
            Op::LoadUniform { comps, dst, index } => {
                let index = self.get(index)?[0];
                let u = &self.d.uniforms;
                let mut out = [0; 4];
                if !u.is_empty() {
                    for (c, o) in out.iter_mut().enumerate().take(comps as usize) {
                        *o = u[(index.wrapping_add(c as u32) as usize) % u.len()];
                    }
                }
                self.set(dst, out);
            }
            Op::LoadBuffer {
                comps,
                buffer,
                dst,
                index,
            } => {
                let index = self.get(index)?[0];
                let mut out = [0; 4];
                for (c, o) in out.iter_mut().enumerate().take(comps as usize) {
                    if let Some(w) = self.buffer_word(buffer, index, c as u32) {
                        *o = self.res.buffers[buffer as usize][w];
                    }
                }
                self.set(dst, out);
            }
            Op::StoreBuffer {
                comps,
                buffer,
                index,
                value,
            } => {
                let index = self.get(index)?[0];
                let v = self.get(value)?;
                for (c, &x) in v.iter().enumerate().take(comps as usize) {
                    if let Some(w) = self.buffer_word(buffer, index, c as u32) {
                        self.res.buffers[buffer as usize][w] = x;
                    }
                }
            }
            Op::StoreOutput { comps, slot, value } => {
                let v = self.get(value)?;
                let n = self.d.outputs;
                if n != 0 {
                    let base = (self.inv * n) as usize;
                    for (c, &x) in v.iter().enumerate().take(comps as usize) {
                        let s = slot.wrapping_add(c as u32) % n;
                        self.res.outputs[base + s as usize] = x;
                    }
                }
            }
            Op::Tex { k } => {
                let t = self.code.texs[k as usize];
                let [a, b, c, _] = self.get(t.coord)?;
                let first3 = |v: [u32; 4]| [v[0], v[1], v[2]];
                let grad = match t.grad {
                    Some((x, y)) => Some((first3(self.get(x)?), first3(self.get(y)?))),
                    None => None,
                };
                let q = TexRequest {
                    access: t.access,
                    dim: t.dim,
                    coord: [a, b, c],
                    lod: self.get(t.lod)?[0],
                    bias: self.get(t.bias)?[0],
                    layer: self.get(t.layer)?[0],
                    compare: t.compare.map(|r| self.get(r).map(|v| v[0])).transpose()?,
                    grad,
                    offset: t.offset,
                };
                let desc = &self.d.textures[t.texture as usize];
                self.set(t.dst, texture_result(desc, t.texture, &q));
            }
            Op::DerefVar { dst, var, ty } => self.set(dst, [var, 0, ty, 0]),
            Op::DerefArray { dst, parent, index } => {
                let (var, off, ty) = self.deref(parent)?;
                let index = self.get(index)?[0];
                let (delta, elem) = self
                    .code
                    .types
                    .element(ty, index)
                    .ok_or(Fault::Deref("deref_array of a non-array"))?;
                self.set(dst, [var, off.wrapping_add(delta), elem, 0]);
            }
            Op::DerefStruct { dst, parent, field } => {
                let (var, off, ty) = self.deref(parent)?;
                let (delta, fty) = self.code.types.field(ty, field).ok_or(Fault::Deref(
                    "deref_struct of a non-struct or a missing field",
                ))?;
                self.set(dst, [var, off.wrapping_add(delta), fty, 0]);
            }
            Op::DerefCast { dst, parent, ty } => {
                let (var, off, _) = self.deref(parent)?;
                self.set(dst, [var, off, ty, 0]);
            }
            Op::LoadDeref { comps, dst, deref } => {
                let (var, off, _) = self.deref(deref)?;
                let v = self
                    .st
                    .load(self.code, var, off, comps)
                    .ok_or(Fault::Deref("deref of no variable"))?;
                self.set(dst, v);
            }
            Op::StoreDeref {
                comps,
                deref,
                value,
            } => {
                let (var, off, _) = self.deref(deref)?;
                let v = self.get(value)?;
                if !self.st.store(self.code, var, off, v, comps) {
                    return Err(Fault::Deref("deref of no variable"));
                }
            }
            Op::LoadReg { dst, reg } => {
                let v = self.st.regs[reg as usize];
                self.set(dst, v);
            }
            Op::StoreReg { reg, value } => {
                self.st.regs[reg as usize] = self.get(value)?;
            }
            Op::Branch {
                cond,
                else_pc,
                node,
            } => {
                let taken = self.get(cond)?[0] != 0;
                if STATS {
                    self.note_branch(node, taken);
                }
                if !taken {
                    *pc = else_pc as usize;
                }
            }
            Op::Jump { target } => *pc = target as usize,
            Op::Continue { header, node } => {
                if STATS {
                    self.note_back_edge(node);
                }
                *pc = header as usize;
            }
            Op::BackEdge { header, node } => {
                self.charge(1)?;
                if STATS {
                    self.note_back_edge(node);
                }
                *pc = header as usize;
            }
            Op::LoopEnter { node } => {
                if STATS {
                    self.st.loop_iters[node as usize] = 0;
                    self.max_iters = self.max_iters.max(1);
                    self.loop_passes += 1;
                }
            }
        }
        Ok(())
    }

    /// Runs the phis of table `table` at the head of `block`, entered from `pred`: all sources
    /// are read before any result is written.
    fn phis(&mut self, block: u32, pred: u32, table: u32) -> Result<(), Fault> {
        let code = self.code;
        let t = code.phi_tables[table as usize];
        let preds = &code.phi_preds[t.preds.0 as usize..t.preds.1 as usize];
        let col = preds
            .iter()
            .position(|&p| p == pred)
            .ok_or(Fault::NoPhi { block, pred })?;
        let first_phi = t.first_phi as usize;
        let n = t.phis as usize;
        let first_src = t.first_src as usize + col * n;
        let srcs = &code.phi_srcs[first_src..first_src + n];
        let dsts = &code.phi_dsts[first_phi..first_phi + n];
        let epoch = self.epoch;
        let vals = &mut *self.vals;
        let fault = |k: usize, src: u32| phi_fault(code, block, pred, first_phi + k, src);
        if !t.reads_own_results {
            // No phi reads another's result: each is written as soon as it is read.
            for (k, (&dst, &src)) in dsts.iter().zip(srcs).enumerate() {
                let c = read_phi_source(vals, src, epoch).ok_or_else(|| fault(k, src))?;
                vals[dst as usize] = Slot { c, epoch };
            }
            return Ok(());
        }
        // Some phi reads another's result: read every source before writing any result.
        let tmp = &mut self.st.phi_tmp;
        tmp.clear();
        for (k, &src) in srcs.iter().enumerate() {
            tmp.push(read_phi_source(vals, src, epoch).ok_or_else(|| fault(k, src))?);
        }
        for (&dst, &c) in dsts.iter().zip(tmp.iter()) {
            vals[dst as usize] = Slot { c, epoch };
        }
        Ok(())
    }

    fn note_branch(&mut self, node: u32, taken: bool) {
        let group = self.inv / 8;
        let g = &mut self.st.if_groups[node as usize];
        if g.0 != group {
            *g = (group, 0, g.2);
        }
        g.1 |= if taken { 1 } else { 2 };
        g.2 |= g.1 == 3;
    }

    fn note_back_edge(&mut self, node: u32) {
        let n = &mut self.st.loop_iters[node as usize];
        *n += 1;
        if *n >= 2 {
            self.st.loop_twice[node as usize] = true;
        }
        self.max_iters = self.max_iters.max(*n + 1);
        self.loop_passes += 1;
    }
}
