//! Lowering a program to flat code the executor runs: one [`Op`] per instruction, jumps for
//! the control-flow tree, per-block phi tables and interned variable types.
//!
//! The control-flow tree becomes:
//! * a block → `Enter` (charges the block's fuel, runs its phis against the block executed
//!   last, records itself as the last block), then its instructions up to the first jump;
//! * `if c { T } else { E }` → `Branch c, else` · T · `Jump end` · else: E · end:
//! * `loop { B }` → `LoopEnter` · header: B · `BackEdge` · latch: `Jump header` · exit:,
//!   where `break` is a `Jump exit` and `continue` a `Continue latch` of the innermost loop.
//!   A `continue` goes forward to the latch, not back to the header, so its lanes wait there
//!   until the rest of the iteration's lanes arrive, and every lane still in the loop starts
//!   the next iteration together: the lockstep is maximal reconvergence (what subgroup
//!   operations see, `docs/semantics.md`).
//!
//! Everything that would make an instruction meaningless whatever runs (an id out of range, a
//! missing result, a phi below a non-phi, a jump outside a loop, a deref operand that is not a
//! deref) is rejected here as [`InterpError::Malformed`]; what depends on the path taken is
//! checked while running.
//!
//! Two facts found on the way let the executor skip work:
//! * which values every path to an op defines (a walk of the tree: an `if` keeps what both
//!   sides define, a loop what all its `break`s do): an op reading only those is not
//!   `checked` for undefined values, as no check of it could fail;
//! * how many components each value's writers can leave nonzero ([`Code::value_comps`]), so
//!   writes into a slot touch only those.

use super::code::{Code, Op, PhiEdge, PhiMove, PhiTable, TexOp, NONE};
use super::memory::MAX_VAR_WORDS;
use super::InterpError;
use crate::ir::{BitSize, BlockData, CfNode, Function, Inst, InstKind, Program, Type, Value};
use cranelift_entity::packed_option::ReservedValue;
use cranelift_entity::EntityRef;
use sim::semantics::TexAccess;

fn malformed(at: impl std::fmt::Display, reason: &'static str) -> InterpError {
    InterpError::Malformed {
        at: at.to_string(),
        reason,
    }
}

/// Components (words) a value of type `ty` occupies in its slot: one per component, two for
/// a 64-bit one, low word first (derefs use 3).
fn slot_comps(ty: Type) -> Option<u8> {
    match ty {
        Type::Data { .. } if (1..=4).contains(&ty.words()) => Some(ty.words()),
        Type::Deref => Some(3),
        _ => None,
    }
}

/// The type of `inst`'s result; `None` when it has none (or a malformed one).
fn result_type(f: &Function, inst: Inst) -> Type {
    let result = f.insts[inst].result.expand();
    result
        .and_then(|v| f.values.get(v))
        .map_or(Type::None, |d| d.ty)
}

impl Code {
    /// Lowers `p`, replacing whatever was lowered before.
    pub fn lower(&mut self, p: &Program) -> Result<(), InterpError> {
        self.clear();
        let f = &p.func;
        self.nvalues = u32::try_from(f.values.len())
            .ok()
            .filter(|&n| n < NONE)
            .ok_or_else(|| malformed("function", "too many values"))?;
        self.nregs = f.regs.len() as u32;
        self.value_comps(f);
        self.known.resize((f.values.len() + 1).div_ceil(64), 0);
        if f.insts
            .values()
            .any(|d| matches!(d.kind, InstKind::AtomicShared { .. }))
        {
            let counts = f.use_counts();
            self.uses.extend(f.values.keys().map(|v| counts[v]));
        }
        for (var, ty) in f.vars.iter() {
            let words = ty.words();
            let id = self.types.intern(ty);
            self.vars.push((self.var_words, words));
            self.var_types.push(id);
            self.var_words = self
                .var_words
                .checked_add(words)
                .filter(|&w| w <= MAX_VAR_WORDS)
                .ok_or_else(|| malformed(var, "local variables too large"))?;
        }
        self.list(p, &f.body)
    }

    /// Fills [`Code::value_comps`]: what each writer of a value leaves nonzero, phis taking
    /// the most of their sources (to a fixpoint, as loop phis read later phis).
    fn value_comps(&mut self, f: &Function) {
        let comps = &mut self.value_comps;
        comps.resize(f.values.len() + 1, 0);
        let mut phis = false;
        for d in f.insts.values() {
            let Some(v) = d.result.expand().filter(|v| v.index() < f.values.len()) else {
                continue;
            };
            let n = match &d.kind {
                InstKind::Phi { .. } => {
                    phis = true;
                    0
                }
                InstKind::Const { bits } => {
                    bits.iter().rposition(|&b| b != 0).map_or(0, |k| k + 1) as u8
                }
                InstKind::Alu { .. }
                | InstKind::Vec { .. }
                | InstKind::Mov { .. }
                | InstKind::LoadUniform { .. }
                | InstKind::LoadBuffer { .. }
                | InstKind::LoadShared { .. }
                | InstKind::LoadDeref { .. } => slot_comps(f.ty(v)).unwrap_or(4),
                InstKind::InvocationId
                | InstKind::LocalId
                | InstKind::WorkgroupId
                | InstKind::AtomicBuffer { .. }
                | InstKind::AtomicShared { .. }
                | InstKind::Subgroup { .. } => 1,
                InstKind::DerefVar { .. }
                | InstKind::DerefArray { .. }
                | InstKind::DerefStruct { .. }
                | InstKind::DerefCast { .. } => 3,
                _ => 4,
            };
            comps[v.index()] = comps[v.index()].max(n);
        }
        let mut changed = phis;
        while changed {
            changed = false;
            for d in f.insts.values() {
                let (InstKind::Phi { sources }, Some(v)) = (&d.kind, d.result.expand()) else {
                    continue;
                };
                if v.index() >= f.values.len() {
                    continue;
                }
                for s in sources {
                    let n = comps.get(s.value.index()).copied().unwrap_or(0);
                    if n > comps[v.index()] {
                        comps[v.index()] = n;
                        changed = true;
                    }
                }
            }
        }
    }

    fn pc(&self) -> u32 {
        self.ops.len() as u32
    }

    fn emit(&mut self, op: Op, inst: Inst) {
        self.ops.push(op);
        self.op_inst.push(inst);
    }

    fn list(&mut self, p: &Program, list: &[CfNode]) -> Result<(), InterpError> {
        let none = Inst::reserved_value();
        for node in list {
            match node {
                CfNode::Block(b) => {
                    let data = p
                        .func
                        .blocks
                        .get(*b)
                        .ok_or_else(|| malformed(b, "block out of range"))?;
                    self.block(p, b.as_u32(), data)?;
                }
                CfNode::If(n) => {
                    let cond = self.operand(&p.func, n.cond, none)?;
                    let node = self.if_nodes;
                    self.if_nodes += 1;
                    let branch = self.ops.len();
                    self.emit(
                        Op::Branch {
                            checked: !self.is_known(cond),
                            cond,
                            else_pc: 0,
                            node,
                        },
                        none,
                    );
                    let before = self.save_known();
                    self.nesting += 1;
                    self.list(p, &n.then_list)?;
                    let then_known = self.save_known();
                    let jump = self.ops.len();
                    self.emit(Op::Jump { target: 0 }, none);
                    let else_pc = self.pc();
                    self.restore_known(before);
                    self.list(p, &n.else_list)?;
                    self.nesting -= 1;
                    // After the `if`: what both sides define.
                    let words = self.known.len();
                    let then_known = &self.known_saved[then_known..then_known + words];
                    for (k, t) in self.known.iter_mut().zip(then_known) {
                        *k &= t;
                    }
                    self.known_saved.truncate(before);
                    let end = self.pc();
                    if let Op::Branch { else_pc: e, .. } = &mut self.ops[branch] {
                        *e = else_pc;
                    }
                    self.ops[jump] = Op::Jump { target: end };
                }
                CfNode::Loop(n) => {
                    let node = self.loop_nodes;
                    self.loop_nodes += 1;
                    self.emit(Op::LoopEnter { node }, none);
                    let header = self.pc();
                    self.loops.push((header, node));
                    let breaks_known = self.known_saved.len();
                    let words = self.known.len();
                    self.known_saved.resize(breaks_known + words, u64::MAX);
                    self.loop_known.push((breaks_known, false));
                    self.nesting += 1;
                    self.list(p, &n.body)?;
                    self.nesting -= 1;
                    self.loops.pop();
                    // After the loop: what every `break` of it knows (without one, nothing
                    // runs after it).
                    if let Some((at, true)) = self.loop_known.pop() {
                        self.known
                            .copy_from_slice(&self.known_saved[at..at + words]);
                    }
                    self.known_saved.truncate(breaks_known);
                    self.emit(Op::BackEdge { node }, none);
                    let latch = self.pc();
                    self.emit(Op::Jump { target: header }, none);
                    let exit = self.pc();
                    let depth = self.loops.len() + 1;
                    while let Some(&(d, at)) = self.jumps.last() {
                        if d != depth {
                            break;
                        }
                        self.ops[at] = match self.ops[at] {
                            Op::Continue { node, .. } => Op::Continue { latch, node },
                            _ => Op::Jump { target: exit },
                        };
                        self.jumps.pop();
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether value (slot) `v` is defined on every path to the op being lowered.
    fn is_known(&self, v: u32) -> bool {
        let (word, bit) = (v as usize / 64, v % 64);
        self.known
            .get(word)
            .is_some_and(|w| w & 1u64.wrapping_shl(bit) != 0)
    }

    fn set_known(&mut self, v: u32) {
        let (word, bit) = (v as usize / 64, v % 64);
        if let Some(w) = self.known.get_mut(word) {
            *w |= 1u64.wrapping_shl(bit);
        }
    }

    /// Sets a copy of `known` aside; where it is in `known_saved`.
    fn save_known(&mut self) -> usize {
        let at = self.known_saved.len();
        self.known_saved.extend_from_slice(&self.known);
        at
    }

    /// Makes `known` the copy set aside at `at`.
    fn restore_known(&mut self, at: usize) {
        let words = self.known.len();
        self.known
            .copy_from_slice(&self.known_saved[at..at + words]);
    }

    /// Clears `checked` on `op` when every operand it checks is known to be defined.
    fn drop_needless_checks(&self, op: &mut Op) {
        let known = |v: &u32| self.is_known(*v);
        match op {
            Op::Alu1 { checked, a, .. } => *checked = !known(a),
            Op::Alu2 { checked, a, b, .. } => *checked = !(known(a) && known(b)),
            Op::Alu3 { checked, args, .. } => *checked = !args.iter().all(known),
            Op::Vec {
                checked,
                comps,
                args,
                ..
            } => *checked = !args.iter().take(usize::from(*comps)).all(known),
            Op::Mov { checked, src, .. } => *checked = !known(src),
            Op::StoreOutput { checked, value, .. } | Op::StoreReg { checked, value, .. } => {
                *checked = !known(value)
            }
            _ => {}
        }
    }

    /// The value `op` writes, if any.
    pub(super) fn written(&self, op: &Op) -> Option<u32> {
        match *op {
            Op::Const { dst, .. }
            | Op::Alu1 { dst, .. }
            | Op::Alu2 { dst, .. }
            | Op::Alu3 { dst, .. }
            | Op::AluSized { dst, .. }
            | Op::Vec { dst, .. }
            | Op::Mov { dst, .. }
            | Op::InvocationId { dst }
            | Op::LocalId { dst }
            | Op::WorkgroupId { dst }
            | Op::LoadUniform { dst, .. }
            | Op::LoadBuffer { dst, .. }
            | Op::LoadShared { dst, .. }
            | Op::AtomicBuffer { dst, .. }
            | Op::AtomicShared { dst, .. }
            | Op::Subgroup { dst, .. }
            | Op::DerefVar { dst, .. }
            | Op::DerefArray { dst, .. }
            | Op::DerefStruct { dst, .. }
            | Op::DerefCast { dst, .. }
            | Op::LoadDeref { dst, .. }
            | Op::LoadReg { dst, .. } => Some(dst),
            Op::Tex { k } => Some(self.texs[k as usize].dst),
            _ => None,
        }
    }

    /// The slot of operand `v` of `inst`.
    fn operand(&self, f: &Function, v: Value, inst: Inst) -> Result<u32, InterpError> {
        if v.index() < f.values.len() {
            Ok(v.as_u32())
        } else {
            Err(malformed(inst, "operand is not a value"))
        }
    }

    /// The slot of an operand that must be a deref.
    fn deref_operand(&self, f: &Function, v: Value, inst: Inst) -> Result<u32, InterpError> {
        let slot = self.operand(f, v, inst)?;
        if f.ty(v) != Type::Deref {
            return Err(malformed(inst, "deref operand is not a deref"));
        }
        Ok(slot)
    }

    /// Components of `v` as stored data (1–4).
    fn data_comps(&self, f: &Function, v: Value, inst: Inst) -> Result<u8, InterpError> {
        self.operand(f, v, inst)?;
        match f.ty(v) {
            Type::Data { comps, .. } if (1..=4).contains(&comps) => Ok(comps),
            _ => Err(malformed(inst, "operand is not 1-4 components of data")),
        }
    }

    fn block(&mut self, p: &Program, block: u32, data: &BlockData) -> Result<(), InterpError> {
        let f = &p.func;
        let enter_at = self.ops.len();
        self.emit(Op::Enter { block, insts: 0 }, Inst::reserved_value());
        self.block_phis.clear();
        let mut count = 0u32;
        for &inst in &data.insts {
            let d = f
                .insts
                .get(inst)
                .ok_or_else(|| malformed(inst, "instruction out of range"))?;
            count += 1;
            if let InstKind::Phi { .. } = d.kind {
                if count as usize != self.block_phis.len() + 1 {
                    return Err(malformed(inst, "phi after a non-phi"));
                }
                self.block_phis.push(inst);
                // Entering the block runs its phis before anything reads them.
                if let Some(v) = d.result.expand().filter(|v| v.index() < f.values.len()) {
                    self.set_known(v.as_u32());
                }
                continue;
            }
            if self.inst(p, inst)? {
                break;
            }
        }
        self.ops[enter_at] = if self.block_phis.is_empty() {
            Op::Enter {
                block,
                insts: count,
            }
        } else {
            let table = self.phi_table(f)?;
            Op::EnterPhis {
                block,
                insts: count,
                table,
            }
        };
        Ok(())
    }

    /// Builds the phi table of `self.block_phis`.
    fn phi_table(&mut self, f: &Function) -> Result<u32, InterpError> {
        let first_pred = self.phi_preds.len();
        for &inst in &self.block_phis {
            if let InstKind::Phi { sources } = &f.insts[inst].kind {
                for s in sources {
                    let pred = s.pred.as_u32();
                    if !self.phi_preds[first_pred..].contains(&pred) {
                        self.phi_preds.push(pred);
                    }
                }
            }
        }
        let npreds = self.phi_preds.len() - first_pred;
        let table = PhiTable {
            preds: (first_pred as u32, self.phi_preds.len() as u32),
            first_phi: self.phi_dsts.len() as u32,
            phis: self.block_phis.len() as u32,
            first_src: self.phi_srcs.len() as u32,
        };
        let nphis = self.block_phis.len();
        let first_src = self.phi_srcs.len();
        self.phi_srcs.resize(first_src + npreds * nphis, NONE);
        for k in 0..nphis {
            let inst = self.block_phis[k];
            let dst = self.result(f, inst)?;
            let InstKind::Phi { sources } = &f.insts[inst].kind else {
                unreachable!("block_phis holds phis only");
            };
            for s in sources {
                let v = self.operand(f, s.value, inst)?;
                let pred = s.pred.as_u32();
                let col = self.phi_preds[first_pred..]
                    .iter()
                    .position(|&q| q == pred)
                    .expect("every source's pred was collected");
                let at = first_src + col * nphis + k;
                if self.phi_srcs[at] == NONE {
                    self.phi_srcs[at] = v;
                }
            }
            self.phi_dsts.push(dst);
            self.phi_insts.push(inst);
        }
        self.sorted_dsts.clear();
        self.sorted_dsts
            .extend_from_slice(&self.phi_dsts[table.first_phi as usize..]);
        self.sorted_dsts.sort_unstable();
        let dsts = &self.phi_dsts[table.first_phi as usize..];
        for srcs in self.phi_srcs[first_src..].chunks(nphis.max(1)) {
            let sorted = &self.sorted_dsts;
            let parallel = srcs.iter().zip(dsts).any(|(&src, &dst)| {
                let results =
                    sorted.partition_point(|&d| d <= src) - sorted.partition_point(|&d| d < src);
                results > usize::from(src == dst)
            });
            let first_move = self.phi_moves.len() as u32;
            for (&src, &dst) in srcs.iter().zip(dsts) {
                if src == NONE || (src == dst && !parallel) {
                    continue;
                }
                let scalar = self.value_comps[dst as usize] == 1;
                self.phi_moves.push(PhiMove { src, dst, scalar });
            }
            self.phi_edges.push(PhiEdge {
                moves: (first_move, self.phi_moves.len() as u32),
                parallel,
            });
        }
        self.phi_tables.push(table);
        Ok((self.phi_tables.len() - 1) as u32)
    }

    /// The result slot of `inst` (which must have one).
    fn result(&self, f: &Function, inst: Inst) -> Result<u32, InterpError> {
        match f.insts[inst].result.expand() {
            Some(v) if v.index() < f.values.len() => Ok(v.as_u32()),
            _ => Err(malformed(inst, "instruction has no result")),
        }
    }

    /// Lowers one non-phi instruction; whether it was a jump (which ends the block).
    fn inst(&mut self, p: &Program, inst: Inst) -> Result<bool, InterpError> {
        let f = &p.func;
        let d = &p.dispatch;
        let op = match &f.insts[inst].kind {
            InstKind::Phi { .. } => unreachable!("phis are lowered with their block"),
            InstKind::Const { bits } => {
                let dst = self.result(f, inst)?;
                self.consts.push(*bits);
                Op::Const {
                    dst,
                    k: (self.consts.len() - 1) as u32,
                }
            }
            InstKind::Alu { op, args } => match f.sized_alu(*op, args, result_type(f, inst)) {
                Some((int, result)) => {
                    let dst = self.result(f, inst)?;
                    let comps = self.data_comps(f, Value::from_u32(dst), inst)?;
                    let mut a = [NONE; 4];
                    for k in 0..op.arity().min(4) {
                        a[k] = self.operand(f, args[k], inst)?;
                    }
                    Op::AluSized {
                        op: *op,
                        int,
                        result,
                        comps,
                        dst,
                        args: a,
                    }
                }
                None => {
                    let dst = self.result(f, inst)?;
                    let comps = slot_comps(f.ty(Value::from_u32(dst)))
                        .ok_or_else(|| malformed(inst, "ALU result is not data"))?;
                    let mut a = [0; 4];
                    let arity = op.arity().clamp(1, 4);
                    for k in 0..arity {
                        a[k] = self.operand(f, args[k], inst)?;
                    }
                    if arity == 3 {
                        a[3] = a[2];
                    }
                    let (op, [a, b, c, d]) = (*op, a);
                    // Decided here so the executor's commonest write needs no look-up.
                    let scalar = comps == 1 && self.value_comps[dst as usize] == 1;
                    match arity {
                        1 => Op::Alu1 {
                            op,
                            comps,
                            scalar,
                            checked: true,
                            dst,
                            a,
                        },
                        2 => Op::Alu2 {
                            op,
                            comps,
                            scalar,
                            checked: true,
                            dst,
                            a,
                            b,
                        },
                        _ => Op::Alu3 {
                            op,
                            comps,
                            scalar,
                            checked: true,
                            dst,
                            args: [a, b, c, d],
                        },
                    }
                }
            },
            InstKind::Vec { args } if result_type(f, inst).bits() == Some(BitSize::B64) => {
                // A `vec1` of a 64-bit scalar copies its two words.
                let dst = self.result(f, inst)?;
                Op::Mov {
                    comps: 2,
                    checked: true,
                    swizzle: [0, 1, 0, 0],
                    dst,
                    src: self.operand(f, args[0], inst)?,
                }
            }
            InstKind::Vec { args } => {
                let dst = self.result(f, inst)?;
                let comps = self.data_comps(f, Value::from_u32(dst), inst)?;
                let mut a = [0; 4];
                for k in 0..comps as usize {
                    a[k] = self.operand(f, args[k], inst)?;
                }
                Op::Vec {
                    comps,
                    checked: true,
                    dst,
                    args: a,
                }
            }
            InstKind::Mov { src, swizzle } => {
                let dst = self.result(f, inst)?;
                let comps = slot_comps(f.ty(Value::from_u32(dst)))
                    .ok_or_else(|| malformed(inst, "mov result is not data"))?;
                if swizzle[..comps as usize].iter().any(|&s| s > 3) {
                    return Err(malformed(inst, "swizzle component out of range"));
                }
                // A 64-bit scalar's `.x` is its two words.
                let swizzle =
                    if comps == 2 && f.ty(Value::from_u32(dst)).bits() == Some(BitSize::B64) {
                        [0, 1, 0, 0]
                    } else {
                        *swizzle
                    };
                Op::Mov {
                    comps,
                    checked: true,
                    swizzle,
                    dst,
                    src: self.operand(f, *src, inst)?,
                }
            }
            InstKind::InvocationId => Op::InvocationId {
                dst: self.result(f, inst)?,
            },
            InstKind::LocalId => Op::LocalId {
                dst: self.result(f, inst)?,
            },
            InstKind::WorkgroupId => Op::WorkgroupId {
                dst: self.result(f, inst)?,
            },
            InstKind::Subgroup { op, args } => {
                let mut slots = [NONE; 2];
                for (s, &v) in slots.iter_mut().zip(&args[..op.arity()]) {
                    *s = self.operand(f, v, inst)?;
                }
                Op::Subgroup {
                    op: *op,
                    dst: self.result(f, inst)?,
                    a: slots[0],
                    b: slots[1],
                }
            }
            InstKind::Barrier => {
                if self.nesting != 0 {
                    return Err(malformed(inst, "barrier inside an if or a loop"));
                }
                Op::Barrier
            }
            InstKind::LoadShared { shared, index } => {
                let dst = self.result(f, inst)?;
                if *shared as usize >= d.shared.len() {
                    return Err(malformed(inst, "no such shared array"));
                }
                Op::LoadShared {
                    comps: self.data_comps(f, Value::from_u32(dst), inst)?,
                    shared: *shared,
                    dst,
                    index: self.operand(f, *index, inst)?,
                }
            }
            InstKind::StoreShared {
                shared,
                index,
                value,
            } => {
                if *shared as usize >= d.shared.len() {
                    return Err(malformed(inst, "no such shared array"));
                }
                Op::StoreShared {
                    comps: self.data_comps(f, *value, inst)?,
                    shared: *shared,
                    index: self.operand(f, *index, inst)?,
                    value: value.as_u32(),
                }
            }
            InstKind::AtomicBuffer {
                buffer,
                op,
                index,
                value,
            } => {
                if *buffer as usize >= d.buffers.len() {
                    return Err(malformed(inst, "no such buffer"));
                }
                Op::AtomicBuffer {
                    op: *op,
                    buffer: *buffer,
                    dst: self.result(f, inst)?,
                    index: self.operand(f, *index, inst)?,
                    value: self.operand(f, *value, inst)?,
                }
            }
            InstKind::AtomicShared {
                shared,
                op,
                index,
                value,
            } => {
                if *shared as usize >= d.shared.len() {
                    return Err(malformed(inst, "no such shared array"));
                }
                let dst = self.result(f, inst)?;
                let used = self.uses.get(dst as usize).is_some_and(|&n| n != 0);
                Op::AtomicShared {
                    op: *op,
                    unordered: op.commutes() && !used,
                    shared: *shared,
                    dst,
                    index: self.operand(f, *index, inst)?,
                    value: self.operand(f, *value, inst)?,
                }
            }
            InstKind::LoadUniform { index } => {
                let dst = self.result(f, inst)?;
                Op::LoadUniform {
                    comps: self.data_comps(f, Value::from_u32(dst), inst)?,
                    dst,
                    index: self.operand(f, *index, inst)?,
                }
            }
            InstKind::LoadBuffer { buffer, index } => {
                let dst = self.result(f, inst)?;
                if *buffer as usize >= d.buffers.len() {
                    return Err(malformed(inst, "no such buffer"));
                }
                Op::LoadBuffer {
                    comps: self.data_comps(f, Value::from_u32(dst), inst)?,
                    buffer: *buffer,
                    dst,
                    index: self.operand(f, *index, inst)?,
                }
            }
            InstKind::StoreBuffer {
                buffer,
                index,
                value,
            } => {
                if *buffer as usize >= d.buffers.len() {
                    return Err(malformed(inst, "no such buffer"));
                }
                Op::StoreBuffer {
                    comps: self.data_comps(f, *value, inst)?,
                    buffer: *buffer,
                    index: self.operand(f, *index, inst)?,
                    value: value.as_u32(),
                }
            }
            InstKind::StoreOutput { slot, value } => Op::StoreOutput {
                comps: self.data_comps(f, *value, inst)?,
                checked: true,
                slot: *slot,
                value: value.as_u32(),
            },
            InstKind::Tex {
                texture, params, ..
            }
            | InstKind::Txf {
                texture, params, ..
            }
            | InstKind::Txs { texture, params } => {
                if *texture as usize >= d.textures.len() {
                    return Err(malformed(inst, "no such texture"));
                }
                let zero = self.nvalues;
                let param = |v: Option<Value>| v.map_or(Ok(zero), |v| self.operand(f, v, inst));
                let access = match (&f.insts[inst].kind, params.gather) {
                    (InstKind::Txf { .. }, _) => TexAccess::Fetch,
                    (InstKind::Txs { .. }, _) => TexAccess::Size,
                    (_, Some(c)) => TexAccess::Gather(c),
                    _ => TexAccess::Sample,
                };
                let grad = match params.grad() {
                    Some((x, y)) => Some((self.operand(f, x, inst)?, self.operand(f, y, inst)?)),
                    None => None,
                };
                let t = TexOp {
                    access,
                    dim: params.dim,
                    offset: params.offset,
                    texture: *texture,
                    dst: self.result(f, inst)?,
                    coord: param(match &f.insts[inst].kind {
                        InstKind::Tex { coord, .. } | InstKind::Txf { coord, .. } => Some(*coord),
                        _ => None,
                    })?,
                    lod: param(params.lod())?,
                    bias: param(params.bias())?,
                    layer: param(params.layer())?,
                    compare: params
                        .compare()
                        .map(|v| self.operand(f, v, inst))
                        .transpose()?,
                    grad,
                };
                self.texs.push(t);
                Op::Tex {
                    k: (self.texs.len() - 1) as u32,
                }
            }
            InstKind::DerefVar { var } => {
                let ty = *self
                    .var_types
                    .get(var.index())
                    .ok_or_else(|| malformed(inst, "no such variable"))?;
                Op::DerefVar {
                    dst: self.deref_result(f, inst)?,
                    var: var.as_u32(),
                    ty,
                }
            }
            InstKind::DerefArray { parent, index } => Op::DerefArray {
                dst: self.deref_result(f, inst)?,
                parent: self.deref_operand(f, *parent, inst)?,
                index: self.operand(f, *index, inst)?,
            },
            InstKind::DerefStruct { parent, field } => Op::DerefStruct {
                dst: self.deref_result(f, inst)?,
                parent: self.deref_operand(f, *parent, inst)?,
                field: *field,
            },
            InstKind::DerefCast { parent, ty } => Op::DerefCast {
                dst: self.deref_result(f, inst)?,
                parent: self.deref_operand(f, *parent, inst)?,
                ty: self.types.intern(ty),
            },
            InstKind::LoadDeref { deref } => {
                let dst = self.result(f, inst)?;
                Op::LoadDeref {
                    comps: self.data_comps(f, Value::from_u32(dst), inst)?,
                    dst,
                    deref: self.deref_operand(f, *deref, inst)?,
                }
            }
            InstKind::StoreDeref { deref, value } => Op::StoreDeref {
                comps: self.data_comps(f, *value, inst)?,
                deref: self.deref_operand(f, *deref, inst)?,
                value: value.as_u32(),
            },
            InstKind::LoadReg { reg } => {
                if reg.index() >= f.regs.len() {
                    return Err(malformed(inst, "no such register"));
                }
                Op::LoadReg {
                    dst: self.result(f, inst)?,
                    reg: reg.as_u32(),
                }
            }
            InstKind::StoreReg { reg, value } => {
                if reg.index() >= f.regs.len() {
                    return Err(malformed(inst, "no such register"));
                }
                Op::StoreReg {
                    checked: true,
                    reg: reg.as_u32(),
                    value: self.operand(f, *value, inst)?,
                }
            }
            InstKind::Break => {
                if self.loops.is_empty() {
                    return Err(malformed(inst, "break outside a loop"));
                }
                self.jumps.push((self.loops.len(), self.ops.len()));
                if let Some(&mut (at, ref mut broke)) = self.loop_known.last_mut() {
                    *broke = true;
                    let words = self.known.len();
                    let breaks_known = &mut self.known_saved[at..at + words];
                    for (b, k) in breaks_known.iter_mut().zip(&self.known) {
                        *b &= k;
                    }
                }
                Op::Jump { target: NONE }
            }
            InstKind::Continue => {
                let &(_, node) = self
                    .loops
                    .last()
                    .ok_or_else(|| malformed(inst, "continue outside a loop"))?;
                self.jumps.push((self.loops.len(), self.ops.len()));
                Op::Continue { latch: NONE, node }
            }
        };
        let mut op = op;
        self.drop_needless_checks(&mut op);
        if let Some(v) = self.written(&op) {
            self.set_known(v);
        }
        self.emit(op, inst);
        Ok(f.insts[inst].kind.is_jump())
    }

    /// The result slot of a deref instruction (which must be of deref type).
    fn deref_result(&self, f: &Function, inst: Inst) -> Result<u32, InterpError> {
        let dst = self.result(f, inst)?;
        if f.ty(Value::from_u32(dst)) != Type::Deref {
            return Err(malformed(inst, "deref result is not of type deref"));
        }
        Ok(dst)
    }
}
