//! Running lowered code: every invocation from a fresh state, writing its own output slots and
//! buffer regions of one shared [`Results`].
//!
//! Invocations share nothing but what they only read, so they run in groups of [`LANES`]
//! (ids `8k..8k + 8`), each group in lockstep: one `match` per op runs it for every lane
//! there, and a lane that branches away waits until the group's lowest pc reaches it
//! (`Group::exec`). What the order of invocations does decide is settled per lane after its
//! group: the first invocation that fails is the one reported, and the run's total fuel is
//! shared out as if each invocation had run after the ones before it.
//!
//! Fuel is charged per block entered to the group as a whole; what the lanes waiting elsewhere
//! did not use is added up only when the set of running lanes changes, which is far rarer.
//!
//! Nothing allocates in the hot loop. Statistics are a const generic, so the plain run carries
//! none of their cost. Failures inside the loop are a small `Fault` plus the op index per
//! lane; they become an [`InterpError`] with the instruction and invocation only on the way
//! out.

use super::code::{Code, Op, NONE};
use super::memory::{Access, Lanes, Mask, Slot, State, ALL_LANES, LANES};
use super::record::{Recorded, Seen};
use super::{InterpError, RunOptions, RunStats};
use crate::ir::{AluOp, BitSize, Block, Inst, Program, Value};
use cranelift_entity::packed_option::ReservedValue;
use sim::dispatch::{Dispatch, Results};
use sim::semantics::{texture_result, SubgroupFault, SubgroupOp, TexRequest};

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
    /// A shared-memory access raced with lane `other`'s.
    Race { other: u8 },
    /// A shuffle read invocation `source` of its workgroup, which is not active.
    Shuffle { source: u32 },
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
    if !d.whole_workgroups() {
        return bad("workgroups have 1, 2, 4 or 8 invocations and the dispatch whole workgroups");
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
pub(super) fn run<const STATS: bool, const RECORD: bool>(
    code: &Code,
    st: &mut State,
    p: &Program,
    opts: &RunOptions,
    stats: Option<&mut RunStats>,
    mut record: Option<&mut Recorded>,
) -> Result<Results, InterpError> {
    let d = &p.dispatch;
    check_dispatch(d)?;
    let mut res = d.initial_results();
    st.prepare(code, STATS);
    st.shared.prepare(d);
    let mut total_left = opts.total_fuel;
    let mut executed = 0u64;
    let mut max_iters = 0u32;
    let mut loop_passes = 0u64;
    let mut first = 0u32;
    while first < d.invocations {
        let lanes = (d.invocations - first).min(LANES as u32);
        st.begin_group(code);
        // No invocation of the group can be given more; `settle` works out what each had.
        let cap = opts.fuel.min(total_left);
        // The value slots are held by the group itself for the run (and put back after), so
        // the hot loop does not reach them through `st` after every store.
        let mut vals = std::mem::take(&mut st.vals);
        let mut g = Group {
            code,
            vals: &mut vals,
            epoch: st.epoch,
            st: &mut *st,
            d,
            res: &mut res,
            first,
            live: ALL_LANES >> (LANES as u32 - lanes),
            active: 0,
            spare: [u32::MAX; LANES],
            waiting: u32::MAX,
            lane_pc: [0; LANES],
            last_block: [NONE; LANES],
            cap,
            spent: 0,
            behind: [0; LANES],
            unskipped: 0,
            faults: [None; LANES],
            back_edge_fuel: 0,
            max_iters,
            loop_passes,
            record: record.as_deref_mut(),
        };
        g.exec::<STATS, RECORD>();
        let back_edge_fuel = g.back_edge_fuel;
        max_iters = g.max_iters;
        loop_passes = g.loop_passes;
        g.add_skipped_fuel();
        let used: [u64; LANES] = std::array::from_fn(|l| g.used(l));
        let faults = g.faults;
        st.vals = vals;
        for lane in 0..lanes as usize {
            let inv = first + lane as u32;
            settle(code, opts, inv, used[lane], faults[lane], &mut total_left)?;
        }
        // Every lane finished: each unit of fuel it used was an instruction executed or a
        // back-edge taken by falling off a loop body.
        executed += used.iter().sum::<u64>() - back_edge_fuel;
        first += lanes;
    }
    if let Some(s) = stats {
        *s = RunStats {
            executed_insts: executed,
            max_loop_iterations: max_iters,
            loop_passes,
            loops_taken_twice: st.loop_twice.iter().filter(|&&t| t).count() as u32,
            divergent_ifs_simd8: st.if_diverged.iter().filter(|&&d| d).count() as u32,
            if_nodes: code.if_nodes,
            loop_nodes: code.loop_nodes,
        };
    }
    Ok(res)
}

/// Invocation `inv`'s outcome as if it had run after the ones before it, with `total_left` of
/// the run's fuel: it had `opts.fuel` or what was left, whichever is less, and it failed if
/// it needed more (before any other fault it met) or met a fault. Takes its fuel from
/// `total_left`.
fn settle(
    code: &Code,
    opts: &RunOptions,
    inv: u32,
    used: u64,
    fault: Option<(usize, Fault)>,
    total_left: &mut u64,
) -> Result<(), InterpError> {
    let allowed = opts.fuel.min(*total_left);
    let out_of_fuel = || Err(error(code, inv, 0, Fault::Fuel, allowed < opts.fuel));
    match fault {
        Some((_, Fault::Fuel)) => out_of_fuel(),
        _ if used > allowed => out_of_fuel(),
        Some((pc, fault)) => Err(error(code, inv, pc, fault, false)),
        None => {
            *total_left -= used;
            Ok(())
        }
    }
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
        Fault::Race { other } => InterpError::SharedRace {
            invocation,
            inst: inst.unwrap_or(Inst::reserved_value()),
            other: invocation - invocation % LANES as u32 + u32::from(other),
        },
        Fault::Shuffle { source } => InterpError::InactiveShuffle {
            invocation,
            inst: inst.unwrap_or(Inst::reserved_value()),
            named: source,
        },
        Fault::Deref(reason) => InterpError::DerefMisuse {
            invocation,
            inst: inst.unwrap_or(Inst::reserved_value()),
            reason,
        },
    }
}

/// One group of invocations in progress.
struct Group<'a> {
    code: &'a Code,
    /// Value slots (taken out of `st` for the group).
    vals: &'a mut [Slot],
    /// The group's epoch (`st.epoch`).
    epoch: u32,
    st: &'a mut State,
    d: &'a Dispatch,
    res: &'a mut Results,
    /// The invocation of lane 0.
    first: u32,
    /// Lanes neither finished nor failed (nor dropped after an earlier lane failed).
    live: Mask,
    /// Lanes running the op at the current pc (changed only through
    /// [`Group::set_active`]).
    active: Mask,
    /// All ones in the lanes outside `active`, which a write must leave as they are: kept
    /// with `active`, which changes far less often than slots are written.
    spare: Lanes,
    /// The lowest pc a live lane not in `active` waits at, or the end of the code if that is
    /// lower; 0 after a fault, so the group reschedules.
    waiting: u32,
    /// Where each lane not in `active` waits.
    lane_pc: [u32; LANES],
    /// The block each lane executed last ([`NONE`] before the first).
    last_block: [u32; LANES],
    /// Fuel each lane may use.
    cap: u64,
    /// Fuel charged so far, to whichever lanes were active.
    spent: u64,
    /// Per lane, the fuel charged while it was not active: it has used `spent - behind`
    /// (once `unskipped` is added).
    behind: [u64; LANES],
    /// Fuel charged since `active` last changed, not yet added to `behind` of the lanes
    /// outside it: `active` changes far less often than blocks are entered.
    unskipped: u64,
    /// Per lane, the op index and fault that stopped it.
    faults: [Option<(usize, Fault)>; LANES],
    /// Fuel charged for back-edges taken by falling off a loop body, all lanes (statistics
    /// only): the rest of the fuel used counts executed instructions, so entering a block
    /// need not count them.
    back_edge_fuel: u64,
    /// Most loop-body passes in one loop execution so far in the run (statistics only).
    max_iters: u32,
    /// Passes through loop bodies so far, all invocations (see [`RunStats::loop_passes`]).
    loop_passes: u64,
    /// Where every value written is recorded, when the run records them.
    record: Option<&'a mut Recorded>,
}

/// The lanes of `m`, lowest first.
#[inline(always)]
fn lanes_of(mut m: Mask) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            l
        })
    })
}

// The lane loops below shift by the lane number with `wrapping_shl`/`wrapping_shr`: the lane
// is always below 32, and the overflow check a plain shift carries (overflow checks stay on
// in the fuzzing profile) keeps them from vectorising.

/// All ones in the lanes of `m`, zeros elsewhere.
#[inline(always)]
fn lane_bits(m: Mask) -> Lanes {
    std::array::from_fn(|l| 0u32.wrapping_sub(m.wrapping_shr(l as u32) & 1))
}

/// `d = o` except in the lanes `keep` is all ones in (branch-free, so it vectorises).
#[inline(always)]
fn blend(d: &mut Lanes, o: &Lanes, keep: &Lanes) {
    for l in 0..LANES {
        d[l] = (d[l] & keep[l]) | (o[l] & !keep[l]);
    }
}

/// The lanes of `m` where `test(lane)` holds.
#[inline(always)]
fn lanes_where(m: Mask, test: impl Fn(usize) -> bool) -> Mask {
    let mut out = 0;
    for l in 0..LANES {
        out |= (test(l) as Mask).wrapping_shl(l as u32);
    }
    out & m
}

/// `out[k][l]`, computed by `f(k, l)` for every lane: inactive lanes compute too (on
/// whatever their slots hold; every rule is total), which is cheaper than skipping them.
#[inline(always)]
fn per_lane(comps: u8, f: impl Fn(usize, usize) -> u32) -> [Lanes; 4] {
    let mut out = [[0; LANES]; 4];
    for (k, o) in out.iter_mut().enumerate().take(comps as usize) {
        for (l, x) in o.iter_mut().enumerate() {
            *x = f(k, l);
        }
    }
    out
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

impl Group<'_> {
    /// Runs the code from the start until every lane has finished or failed.
    ///
    /// The group runs the lowest pc any live lane is at, so lanes that parted meet again
    /// where their paths join: after an `if` the side that falls through waits at the other
    /// side's start, the lanes leaving a loop wait at its exit until the last one leaves.
    fn exec<const STATS: bool, const RECORD: bool>(&mut self) {
        let ops = &self.code.ops[..];
        let end = ops.len() as u32;
        let mut pc = 0u32;
        self.set_active(self.live);
        self.waiting = end;
        loop {
            // One test per op: `waiting` is never past the end, and a fault sets it to 0 (which
            // also catches the active lanes all failing).
            if pc >= self.waiting {
                self.add_skipped_fuel();
                if pc >= end {
                    self.live &= !self.active;
                    self.set_active(0);
                }
                for l in lanes_of(self.active) {
                    self.lane_pc[l] = pc;
                }
                if self.live == 0 {
                    return;
                }
                pc = self.schedule();
                continue;
            }
            let before = self.active;
            let next = self.step::<STATS>(&ops[pc as usize], pc);
            if RECORD {
                self.record(&ops[pc as usize], before);
            }
            pc = next;
        }
    }

    /// Records the values `op` wrote in `lanes` (those still active after it).
    fn record(&mut self, op: &Op, lanes: Mask) {
        match *op {
            // A deref's slot holds a place, not a value a program computes.
            Op::DerefVar { .. }
            | Op::DerefArray { .. }
            | Op::DerefStruct { .. }
            | Op::DerefCast { .. } => {}
            Op::EnterPhis { table, .. } => {
                let t = self.code.phi_tables[table as usize];
                for phi in t.first_phi..t.first_phi + t.phis {
                    self.seen(self.code.phi_dsts[phi as usize], lanes);
                }
            }
            _ => {
                if let Some(dst) = self.code.written(op) {
                    self.seen(dst, lanes);
                }
            }
        }
    }

    /// Records slot `dst`'s components in `lanes`.
    fn seen(&mut self, dst: u32, lanes: Mask) {
        let lanes = lanes & self.active & self.defined(dst);
        let comps = self.code.value_comps[dst as usize].max(1);
        let Some(record) = self.record.as_deref_mut() else {
            return;
        };
        let slot = &self.vals[dst as usize];
        for l in lanes_of(lanes) {
            let invocation = &mut record.invocations[self.first as usize + l];
            for k in 0..comps {
                invocation.push(Seen {
                    value: Value::from_u32(dst),
                    component: k,
                    word: slot.c[k as usize][l],
                });
            }
        }
    }

    /// Makes the live lanes at the lowest pc active; that pc.
    fn schedule(&mut self) -> u32 {
        let pc = lanes_of(self.live)
            .map(|l| self.lane_pc[l])
            .min()
            .unwrap_or(u32::MAX);
        self.set_active(lanes_where(self.live, |l| self.lane_pc[l] == pc));
        self.waiting = lanes_of(self.live & !self.active)
            .map(|l| self.lane_pc[l])
            .min()
            .unwrap_or(u32::MAX)
            .min(self.code.ops.len() as u32);
        pc
    }

    /// Stops `lanes` at op `pc` for `fault`. Invocations after the first that failed never
    /// run in order, so lanes after it stop too.
    /// Fails lane `l` for racing with lane `other`, if a shared access found a race.
    #[inline]
    fn race(&mut self, racing: Option<(usize, u8)>, pc: u32) {
        if let Some((l, other)) = racing {
            self.fail(1 << l, pc, Fault::Race { other });
        }
    }

    #[cold]
    #[inline(never)]
    fn fail(&mut self, lanes: Mask, pc: u32, fault: Fault) {
        self.add_skipped_fuel();
        for l in lanes_of(lanes) {
            self.faults[l].get_or_insert((pc as usize, fault));
        }
        self.live &= (1 << lanes.trailing_zeros()) - 1;
        self.set_active(self.active & self.live);
        // The group reschedules after this op (see `exec`).
        self.waiting = 0;
    }

    /// Runs a subgroup operation for each workgroup of the group on its active lanes (the
    /// lanes of the workgroup running this op together: `docs/semantics.md`).
    fn subgroup(&mut self, op: SubgroupOp, dst: u32, a: u32, b: u32, pc: u32) {
        let none = [0; LANES];
        let operand = |v: u32| if v == NONE { none } else { *self.comp(v, 0) };
        let (a, b) = (operand(a), operand(b));
        let w = self.d.workgroup.clamp(1, LANES as u32) as usize;
        let mut out = [0; LANES];
        for base in (0..LANES).step_by(w) {
            let active = (self.active >> base) & ((1 << w) - 1);
            if active == 0 {
                continue;
            }
            let lanes = base..base + w;
            let done = op.eval(
                active,
                &a[lanes.clone()],
                &b[lanes.clone()],
                &mut out[lanes],
            );
            if let Err(SubgroupFault::InactiveSource { reader, source }) = done {
                self.fail(1 << (base + reader as usize), pc, Fault::Shuffle { source });
            }
        }
        self.set_scalar(dst, &out);
    }

    /// Makes `lanes` the active lanes.
    #[inline(always)]
    fn set_active(&mut self, lanes: Mask) {
        self.active = lanes;
        self.spare = lane_bits(!lanes);
    }

    /// Charges the lanes outside `active` nothing for the fuel charged since it last changed
    /// (called before it changes).
    #[inline(always)]
    fn add_skipped_fuel(&mut self) {
        if self.unskipped != 0 {
            let n = self.unskipped;
            for (b, &s) in self.behind.iter_mut().zip(&self.spare) {
                // No overflow: `behind` never passes `spent` (wrapping lets it vectorise).
                *b = b.wrapping_add(n & u64::from(s));
            }
            self.unskipped = 0;
        }
    }

    /// The fuel lane `l` has used (after [`Group::add_skipped_fuel`]).
    fn used(&self, l: usize) -> u64 {
        self.spent - self.behind[l]
    }

    /// Charges `n` fuel to every active lane (failing those without enough). No lane has
    /// used more than the group has spent, so only a group that has spent a lane's fuel
    /// looks at the lanes one by one.
    #[inline(always)]
    fn charge(&mut self, n: u64, pc: u32) {
        if self.spent.saturating_add(n) > self.cap {
            self.add_skipped_fuel();
            let short = lanes_where(self.active, |l| self.used(l) + n > self.cap);
            if short != 0 {
                self.fail(short, pc, Fault::Fuel);
            }
        }
        self.unskipped += n;
        self.spent += n;
    }

    /// The lanes that wrote slot `v` in this group.
    #[inline(always)]
    fn defined(&self, v: u32) -> Mask {
        let s = &self.vals[v as usize];
        if s.epoch == self.epoch {
            s.defined
        } else {
            0
        }
    }

    /// Fails the active lanes that read `v` without having written it.
    #[inline(always)]
    fn need(&mut self, v: u32, pc: u32) {
        let missing = self.active & !self.defined(v);
        if missing != 0 {
            self.fail(missing, pc, Fault::Undefined(v));
        }
    }

    /// Component `k` of slot `v`, every lane.
    #[inline(always)]
    fn comp(&self, v: u32, k: usize) -> &Lanes {
        &self.vals[v as usize].c[k]
    }

    /// Whether no live lane waits elsewhere: what the other lanes hold then no longer
    /// matters (they have finished, failed or do not exist), so writes need not spare them.
    #[inline(always)]
    fn all_here(&self) -> bool {
        self.live & !self.active == 0
    }

    /// [`Group::set`] of a one-component result (most are) to a slot no writer leaves more
    /// components of nonzero (`Code::value_comps[dst] == 1`), without a loop over components.
    #[inline(always)]
    fn set_scalar(&mut self, dst: u32, out: &Lanes) {
        let (active, all_here) = (self.active, self.all_here());
        let epoch = self.epoch;
        let s = &mut self.vals[dst as usize];
        if s.epoch != epoch {
            // Field by field: a whole new `Slot` is built aside and copied.
            s.c[0] = *out;
            s.c[1..].fill([0; LANES]);
            s.epoch = epoch;
            s.defined = active;
        } else if all_here {
            s.defined |= active;
            s.c[0] = *out;
        } else {
            s.defined |= active;
            blend(&mut s.c[0], out, &self.spare);
        }
    }

    /// Writes `out` to slot `dst` in the active lanes. Past the components any writer of
    /// `dst` may leave nonzero ([`Code::value_comps`]) `out` and the slot are 0 in every lane,
    /// so only the components before are written once the slot has been written in the group.
    #[inline(always)]
    fn set(&mut self, dst: u32, out: &[Lanes; 4]) {
        let (active, all_here) = (self.active, self.all_here());
        let epoch = self.epoch;
        let comps = usize::from(self.code.value_comps[dst as usize]);
        let s = &mut self.vals[dst as usize];
        if s.epoch != epoch {
            // No lane has written it in this group: nothing in it is anyone's value.
            *s = Slot {
                c: *out,
                epoch,
                defined: active,
            };
            return;
        }
        s.defined |= active;
        if all_here {
            for (d, o) in s.c.iter_mut().zip(out).take(comps) {
                *d = *o;
            }
        } else {
            for (d, o) in s.c.iter_mut().zip(out).take(comps) {
                blend(d, o, &self.spare);
            }
        }
    }

    /// Reads deref operand `v` in every active lane: (var, offset, type) by lane, failing the
    /// lanes where it is undefined or not a deref.
    #[inline(always)]
    fn deref(&mut self, v: u32, pc: u32) -> [[u32; 3]; LANES] {
        self.need(v, pc);
        let s = self.vals[v as usize].c;
        let types = &self.code.types;
        let bad = lanes_where(self.active, |l| !types.is_type(s[2][l]));
        if bad != 0 {
            self.fail(bad, pc, Fault::Deref("not a deref value"));
        }
        std::array::from_fn(|l| [s[0][l], s[1][l], s[2][l]])
    }

    /// Where word `(index + c) % len` of invocation `inv`'s part of `buffer` lies; none for
    /// a 0-word buffer.
    #[inline(always)]
    fn buffer_word(&self, inv: u32, buffer: u32, index: u32, c: u32) -> Option<usize> {
        let len = self.d.buffers[buffer as usize];
        (len != 0).then(|| (inv * len + index.wrapping_add(c) % len) as usize)
    }

    /// Evaluates `op` on `args` (an op of fewer operands repeats its last) for each of `comps`
    /// components and writes the result to `dst`; `scalar` results (most) take
    /// [`Group::set_scalar`].
    #[inline(always)]
    fn alu(&mut self, op: AluOp, comps: u8, scalar: bool, dst: u32, args: [u32; 4]) {
        let [a, b, c, d] = args.map(|v| &self.vals[v as usize].c);
        if scalar {
            let out = op.eval_lanes(&a[0], &b[0], &c[0], &d[0]);
            self.set_scalar(dst, &out);
            return;
        }
        let mut out = [[0; LANES]; 4];
        for k in 0..comps as usize {
            out[k] = op.eval_lanes(&a[k], &b[k], &c[k], &d[k]);
        }
        self.set(dst, &out);
    }

    /// [`AluOp::eval_sized`] lane by lane for each of `comps` components: a 64-bit operand
    /// or result is the slot's two words (low first), any other one word per component.
    fn alu_sized(
        &mut self,
        op: AluOp,
        [int, result]: [BitSize; 2],
        comps: u8,
        dst: u32,
        args: [u32; 4],
    ) {
        let mut widths = [1u8; 3];
        for (w, &k) in widths.iter_mut().zip(op.srcs()) {
            *w = op.operand_bits(k, int).unwrap_or(result).words();
        }
        let rw = usize::from(result.words());
        let mut out = [[0; LANES]; 4];
        for k in 0..usize::from(comps) {
            for l in 0..LANES {
                let mut x = [0u64; 3];
                for (i, &w) in widths.iter().enumerate().take(op.arity()) {
                    let c = &self.vals[args[i] as usize].c;
                    x[i] = if w == 2 {
                        u64::from(c[0][l]) | u64::from(c[1][l]) << 32
                    } else {
                        u64::from(c[k][l])
                    };
                }
                let r = op.eval_sized(int, result, x[0], x[1], x[2]);
                out[k * rw][l] = r as u32;
                if rw == 2 {
                    out[k * rw + 1][l] = (r >> 32) as u32;
                }
            }
        }
        self.set(dst, &out);
    }

    /// Executes the op at `pc` in the active lanes; the next pc.
    #[inline(always)]
    fn step<const STATS: bool>(&mut self, op: &Op, pc: u32) -> u32 {
        match *op {
            Op::Enter { block, insts } => {
                self.charge(u64::from(insts), pc);
                self.enter(block);
            }
            Op::EnterPhis {
                block,
                insts,
                table,
            } => {
                self.charge(u64::from(insts), pc);
                self.phis(block, table, pc);
                self.enter(block);
            }
            Op::Const { dst, k } => {
                let c = self.code.consts[k as usize];
                self.set(dst, &c.map(|x| [x; LANES]));
            }
            Op::Alu1 {
                op,
                comps,
                scalar,
                checked,
                dst,
                a,
            } => {
                if checked {
                    self.need(a, pc);
                }
                self.alu(op, comps, scalar, dst, [a, a, a, a]);
            }
            Op::Alu2 {
                op,
                comps,
                scalar,
                checked,
                dst,
                a,
                b,
            } => {
                if checked {
                    self.need(a, pc);
                    self.need(b, pc);
                }
                self.alu(op, comps, scalar, dst, [a, b, b, b]);
            }
            Op::Alu3 {
                op,
                comps,
                scalar,
                checked,
                dst,
                args: [a, b, c, d],
            } => {
                if checked {
                    self.need(a, pc);
                    self.need(b, pc);
                    self.need(c, pc);
                    self.need(d, pc);
                }
                self.alu(op, comps, scalar, dst, [a, b, c, d]);
            }
            Op::AluSized {
                op,
                int,
                result,
                comps,
                dst,
                args,
            } => {
                for &a in &args[..op.arity()] {
                    self.need(a, pc);
                }
                self.alu_sized(op, [int, result], comps, dst, args);
            }
            Op::Vec {
                comps,
                checked,
                dst,
                args,
            } => {
                if checked {
                    for &a in &args[..comps as usize] {
                        self.need(a, pc);
                    }
                }
                let out = per_lane(comps, |k, l| self.comp(args[k], 0)[l]);
                self.set(dst, &out);
            }
            Op::Mov {
                comps,
                checked,
                swizzle,
                dst,
                src,
            } => {
                if checked {
                    self.need(src, pc);
                }
                let out = per_lane(comps, |k, l| self.comp(src, swizzle[k] as usize & 3)[l]);
                self.set(dst, &out);
            }
            Op::InvocationId { dst } => {
                let first = self.first;
                self.set(dst, &per_lane(1, |_, l| first + l as u32));
            }
            Op::LocalId { dst } => {
                let w = self.d.workgroup.max(1);
                let first = self.first;
                self.set(dst, &per_lane(1, |_, l| (first + l as u32) % w));
            }
            Op::WorkgroupId { dst } => {
                let w = self.d.workgroup.max(1);
                let first = self.first;
                self.set(dst, &per_lane(1, |_, l| (first + l as u32) / w));
            }
            Op::LoadShared {
                comps,
                shared,
                dst,
                index,
            } => {
                self.need(index, pc);
                let mut out = [[0; LANES]; 4];
                let mut racing = None;
                for l in lanes_of(self.active) {
                    let index = self.comp(index, 0)[l];
                    for (k, o) in out.iter_mut().enumerate().take(comps as usize) {
                        let sh = &mut self.st.shared;
                        if let Some(w) =
                            sh.touch(l, shared, index, k as u32, Access::Read, &mut racing)
                        {
                            o[l] = sh.data[w];
                        }
                    }
                }
                self.race(racing, pc);
                self.set(dst, &out);
            }
            Op::StoreShared {
                comps,
                shared,
                index,
                value,
            } => {
                self.need(index, pc);
                self.need(value, pc);
                let mut racing = None;
                for l in lanes_of(self.active) {
                    let index = self.comp(index, 0)[l];
                    for k in 0..comps as usize {
                        let v = self.comp(value, k)[l];
                        let sh = &mut self.st.shared;
                        if let Some(w) =
                            sh.touch(l, shared, index, k as u32, Access::Write, &mut racing)
                        {
                            sh.data[w] = v;
                        }
                    }
                }
                self.race(racing, pc);
            }
            Op::AtomicShared {
                op,
                unordered,
                shared,
                dst,
                index,
                value,
            } => {
                self.need(index, pc);
                self.need(value, pc);
                let access = if unordered {
                    Access::Unordered(op)
                } else {
                    Access::Write
                };
                let mut out = [[0; LANES]; 4];
                let mut racing = None;
                // Lanes apply theirs in lane order, as one SIMD message's lanes do.
                for l in lanes_of(self.active) {
                    let index = self.comp(index, 0)[l];
                    let v = self.comp(value, 0)[l];
                    let sh = &mut self.st.shared;
                    if let Some(w) = sh.touch(l, shared, index, 0, access, &mut racing) {
                        out[0][l] = sh.data[w];
                        sh.data[w] = op.apply(sh.data[w], v);
                    }
                }
                self.race(racing, pc);
                self.set(dst, &out);
            }
            Op::AtomicBuffer {
                op,
                buffer,
                dst,
                index,
                value,
            } => {
                self.need(index, pc);
                self.need(value, pc);
                let mut out = [[0; LANES]; 4];
                for l in lanes_of(self.active) {
                    let (inv, index) = (self.first + l as u32, self.comp(index, 0)[l]);
                    if let Some(w) = self.buffer_word(inv, buffer, index, 0) {
                        let v = self.comp(value, 0)[l];
                        let word = &mut self.res.buffers[buffer as usize][w];
                        out[0][l] = *word;
                        *word = op.apply(*word, v);
                    }
                }
                self.set(dst, &out);
            }
            Op::Subgroup { op, dst, a, b } => {
                for v in [a, b] {
                    if v != NONE {
                        self.need(v, pc);
                    }
                }
                self.subgroup(op, dst, a, b, pc);
            }
            Op::Barrier => self.st.shared.phase += 1,
            Op::LoadUniform { comps, dst, index } => {
                self.need(index, pc);
                let u = &self.d.uniforms;
                let out = per_lane(comps, |k, l| {
                    let index = self.comp(index, 0)[l];
                    match u.len() {
                        0 => 0,
                        n => u[(index.wrapping_add(k as u32) as usize) % n],
                    }
                });
                self.set(dst, &out);
            }
            Op::LoadBuffer {
                comps,
                buffer,
                dst,
                index,
            } => {
                self.need(index, pc);
                let mut out = [[0; LANES]; 4];
                for l in lanes_of(self.active) {
                    let (inv, index) = (self.first + l as u32, self.comp(index, 0)[l]);
                    for (k, o) in out.iter_mut().enumerate().take(comps as usize) {
                        if let Some(w) = self.buffer_word(inv, buffer, index, k as u32) {
                            o[l] = self.res.buffers[buffer as usize][w];
                        }
                    }
                }
                self.set(dst, &out);
            }
            Op::StoreBuffer {
                comps,
                buffer,
                index,
                value,
            } => {
                self.need(index, pc);
                self.need(value, pc);
                for l in lanes_of(self.active) {
                    let (inv, index) = (self.first + l as u32, self.comp(index, 0)[l]);
                    for k in 0..comps as usize {
                        if let Some(w) = self.buffer_word(inv, buffer, index, k as u32) {
                            self.res.buffers[buffer as usize][w] = self.comp(value, k)[l];
                        }
                    }
                }
            }
            Op::StoreOutput {
                comps,
                checked,
                slot,
                value,
            } => {
                if checked {
                    self.need(value, pc);
                }
                let n = self.d.outputs;
                if n != 0 {
                    // A component's slot is the same in every lane, so it is found once; a lane's
                    // later components still overwrite earlier ones wrapping onto the same slot.
                    let (active, first) = (self.active, self.first);
                    for k in 0..comps as usize {
                        let s = (slot.wrapping_add(k as u32) % n) as usize;
                        let c = self.vals[value as usize].c[k];
                        for l in lanes_of(active) {
                            let base = ((first + l as u32) * n) as usize;
                            self.res.outputs[base + s] = c[l];
                        }
                    }
                }
            }
            Op::Tex { k } => self.tex(k, pc),
            Op::DerefVar { dst, var, ty } => {
                self.set(dst, &[[var; LANES], [0; LANES], [ty; LANES], [0; LANES]]);
            }
            Op::DerefArray { dst, parent, index } => {
                let p = self.deref(parent, pc);
                self.need(index, pc);
                let mut out = [[0; LANES]; 4];
                let mut bad = 0;
                for l in lanes_of(self.active) {
                    let [var, off, ty] = p[l];
                    match self.code.types.element(ty, self.comp(index, 0)[l]) {
                        Some((delta, elem)) => {
                            [out[0][l], out[1][l], out[2][l]] = [var, off.wrapping_add(delta), elem]
                        }
                        None => bad |= 1 << l,
                    }
                }
                if bad != 0 {
                    self.fail(bad, pc, Fault::Deref("deref_array of a non-array"));
                }
                self.set(dst, &out);
            }
            Op::DerefStruct { dst, parent, field } => {
                let p = self.deref(parent, pc);
                let mut out = [[0; LANES]; 4];
                let mut bad = 0;
                for l in lanes_of(self.active) {
                    let [var, off, ty] = p[l];
                    match self.code.types.field(ty, field) {
                        Some((delta, fty)) => {
                            [out[0][l], out[1][l], out[2][l]] = [var, off.wrapping_add(delta), fty]
                        }
                        None => bad |= 1 << l,
                    }
                }
                if bad != 0 {
                    let why = "deref_struct of a non-struct or a missing field";
                    self.fail(bad, pc, Fault::Deref(why));
                }
                self.set(dst, &out);
            }
            Op::DerefCast { dst, parent, ty } => {
                let p = self.deref(parent, pc);
                let out = per_lane(3, |k, l| if k == 2 { ty } else { p[l][k] });
                self.set(dst, &out);
            }
            Op::LoadDeref { comps, dst, deref } => {
                let p = self.deref(deref, pc);
                let mut out = [[0; LANES]; 4];
                let mut bad = 0;
                for l in lanes_of(self.active) {
                    let [var, off, _] = p[l];
                    match self.st.load(self.code, l, var, off, comps) {
                        Some(v) => (0..4).for_each(|k| out[k][l] = v[k]),
                        None => bad |= 1 << l,
                    }
                }
                if bad != 0 {
                    self.fail(bad, pc, Fault::Deref("deref of no variable"));
                }
                self.set(dst, &out);
            }
            Op::StoreDeref {
                comps,
                deref,
                value,
            } => {
                let p = self.deref(deref, pc);
                self.need(value, pc);
                let mut bad = 0;
                for l in lanes_of(self.active) {
                    let [var, off, _] = p[l];
                    let v = std::array::from_fn(|k| self.vals[value as usize].c[k][l]);
                    if !self.st.store(self.code, l, var, off, v, comps) {
                        bad |= 1 << l;
                    }
                }
                if bad != 0 {
                    self.fail(bad, pc, Fault::Deref("deref of no variable"));
                }
            }
            Op::LoadReg { dst, reg } => {
                let v = self.st.regs[reg as usize];
                self.set(dst, &v);
            }
            Op::StoreReg {
                checked,
                reg,
                value,
            } => {
                if checked {
                    self.need(value, pc);
                }
                let keep = lane_bits(!self.active & self.live);
                let v = &self.vals[value as usize].c;
                for (r, v) in self.st.regs[reg as usize].iter_mut().zip(v) {
                    blend(r, v, &keep);
                }
            }
            Op::Branch {
                checked,
                cond,
                else_pc,
                node,
            } => {
                if checked {
                    self.need(cond, pc);
                }
                let c = self.comp(cond, 0);
                let taken = lanes_where(self.active, |l| c[l] != 0);
                let other = self.active & !taken;
                if STATS {
                    self.note_branch(node, taken, other);
                }
                if other == 0 {
                    return pc + 1;
                }
                if taken == 0 {
                    return else_pc;
                }
                // The lanes that do not take it wait at the else-part, after the then-part.
                for l in lanes_of(other) {
                    self.lane_pc[l] = else_pc;
                }
                self.add_skipped_fuel();
                self.set_active(taken);
                self.waiting = self.waiting.min(else_pc);
            }
            Op::Jump { target } => return target,
            Op::Continue { latch, node } => {
                if STATS {
                    self.note_back_edge(node);
                }
                return latch;
            }
            Op::BackEdge { node } => {
                self.charge(1, pc);
                if STATS {
                    self.back_edge_fuel += u64::from(self.active.count_ones());
                    self.note_back_edge(node);
                }
            }
            Op::LoopEnter { node } => {
                if STATS {
                    for l in lanes_of(self.active) {
                        self.st.loop_iters[node as usize][l] = 0;
                    }
                    if self.active != 0 {
                        self.max_iters = self.max_iters.max(1);
                    }
                    self.loop_passes += u64::from(self.active.count_ones());
                }
            }
        }
        pc + 1
    }

    /// The active lanes (charged already) enter `block`.
    #[inline(always)]
    fn enter(&mut self, block: u32) {
        if self.all_here() {
            self.last_block = [block; LANES];
        } else {
            blend(&mut self.last_block, &[block; LANES], &self.spare);
        }
    }

    /// A texture op in every active lane.
    fn tex(&mut self, k: u32, pc: u32) {
        let t = self.code.texs[k as usize];
        // Operands in the order the rules read them, so a lane's first undefined one is named.
        self.need(t.coord, pc);
        if let Some((x, y)) = t.grad {
            self.need(x, pc);
            self.need(y, pc);
        }
        self.need(t.lod, pc);
        self.need(t.bias, pc);
        self.need(t.layer, pc);
        if let Some(r) = t.compare {
            self.need(r, pc);
        }
        let desc = &self.d.textures[t.texture as usize];
        let lane3 = |v: u32, l: usize| std::array::from_fn(|k| self.comp(v, k)[l]);
        let mut out = [[0; LANES]; 4];
        for l in lanes_of(self.active) {
            let q = TexRequest {
                access: t.access,
                dim: t.dim,
                coord: lane3(t.coord, l),
                lod: self.comp(t.lod, 0)[l],
                bias: self.comp(t.bias, 0)[l],
                layer: self.comp(t.layer, 0)[l],
                compare: t.compare.map(|r| self.comp(r, 0)[l]),
                grad: t.grad.map(|(x, y)| (lane3(x, l), lane3(y, l))),
                offset: t.offset,
            };
            let v = texture_result(desc, t.texture, &q);
            (0..4).for_each(|k| out[k][l] = v[k]);
        }
        self.set(t.dst, &out);
    }

    /// Runs the phis of table `table` at the head of `block` in every active lane, each
    /// lane taking the sources of the block it came from.
    fn phis(&mut self, block: u32, table: u32, pc: u32) {
        let mut todo = self.active;
        while todo != 0 {
            let pred = self.last_block[todo.trailing_zeros() as usize];
            let from = lanes_where(todo, |l| self.last_block[l] == pred);
            todo &= !from;
            self.phis_from(block, pred, table, from, pc);
            todo &= self.live;
        }
    }

    /// Runs the phis of `table` in `lanes`, which all entered `block` from `pred`: all
    /// sources are read before any result is written.
    fn phis_from(&mut self, block: u32, pred: u32, table: u32, lanes: Mask, pc: u32) {
        let code = self.code;
        let t = code.phi_tables[table as usize];
        let preds = &code.phi_preds[t.preds.0 as usize..t.preds.1 as usize];
        let Some(col) = preds.iter().position(|&p| p == pred) else {
            self.fail(lanes, pc, Fault::NoPhi { block, pred });
            return;
        };
        let first_phi = t.first_phi as usize;
        let n = t.phis as usize;
        let first_src = t.first_src as usize + col * n;
        let srcs = &code.phi_srcs[first_src..first_src + n];
        // The other lanes are set aside while these run.
        let active = self.active;
        if lanes != active {
            self.add_skipped_fuel();
            self.set_active(lanes);
        }
        // Every source is checked before any result is written (a lane failing a later check
        // is dropped, so what it wrote would not matter).
        for (k, &src) in srcs.iter().enumerate() {
            let have = if (src as usize) < self.vals.len() {
                self.defined(src)
            } else {
                0
            };
            let missing = self.active & !have;
            if missing != 0 {
                self.fail(
                    missing,
                    pc,
                    phi_fault(code, block, pred, first_phi + k, src),
                );
            }
        }
        let edge = code.phi_edges[t.preds.0 as usize + col];
        let moves = &code.phi_moves[edge.moves.0 as usize..edge.moves.1 as usize];
        if !edge.parallel && self.active != 0 {
            // No phi reads another's result: each is written as soon as it is read.
            for m in moves {
                if m.scalar {
                    let c = self.vals[m.src as usize].c[0];
                    self.set_scalar(m.dst, &c);
                } else {
                    let c = self.vals[m.src as usize].c;
                    self.set(m.dst, &c);
                }
            }
        }
        if edge.parallel && self.active != 0 {
            // Some phi reads another's result: every source was read before any is written.
            let mut tmp = std::mem::take(&mut self.st.phi_tmp);
            tmp.clear();
            tmp.extend(moves.iter().map(|m| self.vals[m.src as usize].c));
            for (m, c) in moves.iter().zip(&tmp) {
                self.set(m.dst, c);
            }
            self.st.phi_tmp = tmp;
        }
        if self.active != active & self.live {
            self.set_active(active & self.live);
        }
    }

    fn note_branch(&mut self, node: u32, taken: Mask, other: Mask) {
        let sides = &mut self.st.if_sides[node as usize];
        *sides |= u8::from(taken != 0) | u8::from(other != 0) << 1;
        if *sides == 3 {
            self.st.if_diverged[node as usize] = true;
        }
    }

    fn note_back_edge(&mut self, node: u32) {
        let iters = &mut self.st.loop_iters[node as usize];
        for l in lanes_of(self.active) {
            let n = &mut iters[l];
            *n += 1;
            if *n >= 2 {
                self.st.loop_twice[node as usize] = true;
            }
            self.max_iters = self.max_iters.max(*n + 1);
        }
        self.loop_passes += u64::from(self.active.count_ones());
    }
}
