//! The state of a run and of its current wave, and the operand reads and writes that check
//! ir3's rules ([`super::rules`]) as they go.
//!
//! Registers are kept per fiber as full 32-bit components (`r0.x` = 0 … `r47.w` = 191): with
//! merged registers a half register `hrN.c` is one half of full component `(4N + c) / 2`, the
//! low half when `4N + c` is even. Shared registers (`r48.x` … `r55.w`) hold one value per
//! wave; a write takes the first active fiber's value. Every register location has one timing
//! record (who wrote it last, when, of which class) and one open late read, per wave.

use super::rules::{Chip, Hazard, Rule};
use super::{Dispatch, Run, Stop, Traced, MAX_HAZARDS};
use crate::ir3::{Instr, Operand, Reg};

/// Full GPR components (`r0.x` … `r47.w`).
const GPRS: usize = 192;
/// Shared register components (`r48.x` … `r55.w`).
const SHARED: usize = 32;
/// Timing slots: GPRs, shared registers, `a0.x`, `a1.x`, `p0.x` … `p0.w`.
const SLOTS: usize = GPRS + SHARED + 2 + 4;
/// The first predicate's slot.
const PREDS: usize = GPRS + SHARED + 2;

/// Where an operand lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Loc {
    /// A full GPR component.
    Full(usize),
    /// Half of a full GPR component (`true`: the high half).
    Half(usize, bool),
    /// A shared register component.
    Shared(usize),
    /// Half of a shared register component (`true`: the high half).
    SharedHalf(usize, bool),
    /// `a0.x`.
    A0,
    /// `a1.x`.
    A1,
    /// `p0.c`.
    Pred(u8),
    /// `up0.c`: `p0.c` written by the scalar ALU, one value for the active fibers (a7xx;
    /// the code reads it back as `p0.c`).
    UPred(u8),
}

impl Loc {
    /// The register as the code names it (`reg`, `half`).
    pub fn of(reg: Reg, half: bool) -> Result<Loc, Stop> {
        match reg {
            Reg::Gpr { num, comp } if num < 48 => {
                let c = 4 * num as usize + comp as usize;
                Ok(if half {
                    Loc::Half(c / 2, c % 2 == 1)
                } else {
                    Loc::Full(c)
                })
            }
            Reg::Gpr { num, comp } if num < 56 => {
                let c = 4 * (num as usize - 48) + comp as usize;
                // Merged like the GPRs (`hr48.x`, `hr48.y` are `r48.x`'s halves) [inferred].
                Ok(if half {
                    Loc::SharedHalf(c / 2, c % 2 == 1)
                } else {
                    Loc::Shared(c)
                })
            }
            Reg::A0 { comp: 0 } => Ok(Loc::A0),
            Reg::A0 { comp: 1 } => Ok(Loc::A1),
            Reg::P0 { comp } => Ok(Loc::Pred(comp)),
            Reg::Up0 { comp } => Ok(Loc::UPred(comp)),
            other => Err(Stop::Unsupported(format!(
                "register {}{other}",
                if half { "h" } else { "" }
            ))),
        }
    }

    /// This location `n` components on (a `(rptN)` or vector access).
    pub fn offset(self, n: usize) -> Result<Loc, Stop> {
        let out = match self {
            Loc::Full(c) if c + n < GPRS => Loc::Full(c + n),
            Loc::Half(c, hi) => {
                let h = 2 * c + hi as usize + n;
                if h >= 2 * GPRS {
                    return Err(Stop::Unsupported("a half register past hr95.w".into()));
                }
                Loc::Half(h / 2, h % 2 == 1)
            }
            Loc::Shared(c) if c + n < SHARED => Loc::Shared(c + n),
            Loc::SharedHalf(c, hi) if 2 * c + (hi as usize) + n < 2 * SHARED => {
                let h = 2 * c + hi as usize + n;
                Loc::SharedHalf(h / 2, h % 2 == 1)
            }
            Loc::Pred(p) if p as usize + n < 4 => Loc::Pred(p + n as u8),
            l if n == 0 => l,
            l => return Err(Stop::Unsupported(format!("{} + {n}", l.name()))),
        };
        Ok(out)
    }

    /// Its timing records: one per 16-bit half, as ir3's register masks count merged
    /// registers (`regmask_t`, `ir3_legalize.c`).
    fn parts(self) -> std::ops::Range<usize> {
        let s = 2 * self.slot();
        match self {
            Loc::Half(_, hi) | Loc::SharedHalf(_, hi) => s + hi as usize..s + hi as usize + 1,
            _ => s..s + 2,
        }
    }

    fn slot(self) -> usize {
        match self {
            Loc::Full(c) | Loc::Half(c, _) => c,
            Loc::Shared(c) | Loc::SharedHalf(c, _) => GPRS + c,
            Loc::A0 => GPRS + SHARED,
            Loc::A1 => GPRS + SHARED + 1,
            Loc::Pred(p) | Loc::UPred(p) => PREDS + p as usize,
        }
    }

    pub fn half(self) -> bool {
        matches!(self, Loc::Half(..) | Loc::SharedHalf(..))
    }

    /// Held once for the whole wave (a shared register), not per fiber.
    fn per_wave(self) -> bool {
        matches!(self, Loc::Shared(_) | Loc::SharedHalf(..))
    }

    /// One value for the whole wave: a shared register or `up0.c` (the scalar ALU's).
    pub fn is_shared(self) -> bool {
        matches!(self, Loc::Shared(_) | Loc::SharedHalf(..) | Loc::UPred(_))
    }

    /// ir3's name for it.
    pub fn name(self) -> String {
        const C: [char; 4] = ['x', 'y', 'z', 'w'];
        match self {
            Loc::Full(c) => format!("r{}.{}", c / 4, C[c % 4]),
            Loc::Half(c, hi) => {
                let h = 2 * c + hi as usize;
                format!("hr{}.{}", h / 4, C[h % 4])
            }
            Loc::Shared(c) => format!("r{}.{}", 48 + c / 4, C[c % 4]),
            Loc::SharedHalf(c, hi) => {
                let h = 2 * c + hi as usize;
                format!("hr{}.{}", 48 + h / 4, C[h % 4])
            }
            Loc::A0 => "a0.x".into(),
            Loc::A1 => "a1.x".into(),
            Loc::Pred(p) => format!("p0.{}", C[p as usize]),
            Loc::UPred(p) => format!("up0.{}", C[p as usize]),
        }
    }
}

/// How a result is produced, which decides when it may be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Class {
    /// cat1–3 into a GPR or predicate: delay slots.
    Alu,
    /// A write of `a0.x`/`a1.x`: `non_alu` slots (or, on a7xx, an `(ss)`).
    Addr,
    /// Needs `(ss)`; `scalar`: from the scalar ALU (read at once by another).
    Ss {
        /// Written by the scalar ALU.
        scalar: bool,
    },
    /// Needs `(sy)`.
    Sy,
}

/// The last write of a location.
#[derive(Clone, Copy, Debug)]
struct Written {
    pc: usize,
    cycle: u64,
    class: Class,
    half: bool,
    mask: u128,
    ss: u32,
    sy: u32,
}

/// An async instruction that still reads a location.
#[derive(Clone, Copy, Debug)]
struct LateRead {
    pc: usize,
    needs_ss: bool,
    mask: u128,
    ss: u32,
    sy: u32,
}

/// How the current instruction reads a source (for the delay rule).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Reader {
    /// A cat0/4/5/6 reader (needs `non_alu` slots after an ALU result).
    pub other: bool,
    /// `end`: needs no slots.
    pub end: bool,
    /// Cycles late the source is read (a cat3's third).
    pub late: u64,
    /// The reader runs on the scalar ALU.
    pub scalar: bool,
}

/// Bytes of local memory (`l[]`, the workgroup's shared memory) a workgroup has: the 32 KiB
/// turnip reports as `maxComputeSharedMemorySize` on a6xx and a7xx.
pub const LOCAL_BYTES: u32 = 32 * 1024;

/// One run over all waves.
pub(super) struct Machine<'a> {
    pub code: &'a [Instr],
    pub chip: Chip,
    pub dispatch: &'a Dispatch,
    budget: u64,
    pub issued: u64,
    pub buffers: Vec<Vec<u32>>,
    pub consts: Vec<Option<u32>>,
    hazards: Vec<Hazard>,
    first_cycles: Option<u64>,
    trace: Vec<Traced>,
    /// Fibers per wave.
    pub w: usize,
    /// `gpr[c * w + fiber]`.
    gpr: Vec<u32>,
    shared: [u32; SHARED],
    /// `a0.x`, `a1.x`, `p0.x..w` per fiber: `special[k * w + fiber]`.
    special: Vec<u32>,
    /// Private words, `private[fiber * words + i]`.
    pub private: Vec<u32>,
    pub private_words: usize,
    private_dirty: bool,
    /// The current workgroup's local memory by word (`ldl`/`stl`), zeroed when its first
    /// wave starts.
    local: Vec<u32>,
    pub pc: usize,
    pub mask: u128,
    pub parked: Vec<(usize, u128)>,
    /// The mask before `predt`/`predf`, while predicated.
    pub predicated: Option<u128>,
    pub now: u64,
    pub ss_epoch: u32,
    pub sy_epoch: u32,
    rec: Vec<Option<Written>>,
    late: Vec<Option<LateRead>>,
    /// Const components written by `stc` (read only after an `(ss)`) or `ldc.k` (after a
    /// `(sy)`): the writer, whether it was `ldc.k`, and the flag's count then.
    const_pending: std::collections::BTreeMap<usize, (usize, bool, u32)>,
    /// `alias.tex` entries for the next cat5: the aliased location and its value.
    pub aliases: Vec<(Loc, Operand)>,
    watch: Option<usize>,
    writes: Vec<(String, u32)>,
    /// The hardware workgroup id of the current wave.
    pub group: u32,
    /// The local id of its fiber 0.
    first: u32,
}

impl<'a> Machine<'a> {
    pub fn new(code: &'a [Instr], dispatch: &'a Dispatch, budget: u64) -> Machine<'a> {
        let w = dispatch.wave as usize;
        let private_words = dispatch.private_bytes.div_ceil(4) as usize;
        Machine {
            code,
            chip: dispatch.chip,
            dispatch,
            budget,
            issued: 0,
            buffers: dispatch.buffers.clone(),
            consts: dispatch.consts.clone(),
            hazards: Vec::new(),
            first_cycles: None,
            trace: Vec::new(),
            w,
            gpr: vec![0; GPRS * w],
            shared: [0; SHARED],
            special: vec![0; 6 * w],
            private: vec![0; private_words * w],
            private_words,
            private_dirty: false,
            local: vec![0; LOCAL_BYTES as usize / 4],
            pc: 0,
            mask: 0,
            parked: Vec::new(),
            predicated: None,
            now: 0,
            ss_epoch: 0,
            sy_epoch: 0,
            rec: vec![None; 2 * SLOTS],
            late: vec![None; 2 * SLOTS],
            const_pending: Default::default(),
            aliases: Vec::new(),
            watch: None,
            writes: Vec::new(),
            group: 0,
            first: 0,
        }
    }

    /// Runs one wave: workgroup `group`, local ids `first..first + fibers`.
    pub fn run_wave(
        &mut self,
        group: u32,
        first: u32,
        fibers: u32,
        watch: Option<usize>,
    ) -> Result<(), Stop> {
        let w = self.w;
        self.gpr.fill(0);
        self.shared = [0; SHARED];
        self.special.fill(0);
        if self.private_dirty {
            self.private.fill(0);
            self.private_dirty = false;
        }
        if first == 0 {
            self.local.fill(0);
        }
        self.rec.fill(None);
        self.late.fill(None);
        self.const_pending.clear();
        self.aliases.clear();
        self.parked.clear();
        self.predicated = None;
        (self.pc, self.now, self.ss_epoch, self.sy_epoch) = (0, 0, 0, 0);
        self.mask = if fibers as usize >= 128 {
            u128::MAX
        } else {
            (1u128 << fibers) - 1
        };
        self.group = group;
        self.first = first;
        self.watch = watch;
        let d = self.dispatch;
        if let Some(r) = d.local_id {
            let base = Loc::of(r, false)?;
            for k in 0..3 {
                let Loc::Full(c) = base.offset(k)? else {
                    return Err(Stop::Unsupported("local ids outside the GPRs".into()));
                };
                for f in 0..w {
                    self.gpr[c * w + f] = if k == 0 { first + f as u32 } else { 0 };
                }
            }
        }
        if let Some(r) = d.workgroup_id {
            let base = Loc::of(r, false)?;
            for k in 0..3 {
                let Loc::Shared(c) = base.offset(k)? else {
                    return Err(Stop::Unsupported(
                        "workgroup id outside the shared registers".into(),
                    ));
                };
                self.shared[c] = if k == 0 { group } else { 0 };
            }
        }
        loop {
            if self.issued >= self.budget {
                return Err(Stop::Timeout);
            }
            let Some(ins) = self.code.get(self.pc) else {
                return Err(self.fault("ran off the end of the program".into()));
            };
            let traced = self.watch.is_some_and(|f| (self.mask >> f) & 1 != 0);
            let (pc, cycle) = (self.pc, self.now);
            self.issued += 1;
            let go_on = self.step(ins)?;
            if traced {
                let writes = std::mem::take(&mut self.writes);
                self.trace.push(Traced { pc, cycle, writes });
            }
            if !go_on {
                break;
            }
        }
        self.first_cycles.get_or_insert(self.now);
        Ok(())
    }

    pub fn finish(self, stopped: Option<Stop>) -> Run {
        Run {
            stopped,
            buffers: self.buffers,
            hazards: self.hazards,
            issued: self.issued,
            cycles: self.first_cycles.unwrap_or(0),
            trace: self.trace,
        }
    }

    pub fn fault(&self, why: String) -> Stop {
        Stop::Fault {
            pc: self.pc,
            invocation: None,
            why,
        }
    }

    /// A fault of fiber `f`'s access.
    pub fn fiber_fault(&self, f: usize, why: String) -> Stop {
        Stop::Fault {
            pc: self.pc,
            invocation: Some(self.group * self.dispatch.local_size + self.first + f as u32),
            why,
        }
    }

    /// Active fibers, lowest first.
    pub fn active(&self) -> impl Iterator<Item = usize> + use<> {
        let m = self.mask;
        (0..128).filter(move |f| (m >> f) & 1 != 0)
    }

    #[cold]
    fn hazard(&mut self, rule: Rule, reg: String, producer: usize) {
        let h = Hazard {
            rule,
            reg,
            producer,
            consumer: self.pc,
        };
        if self.hazards.len() < MAX_HAZARDS && !self.hazards.contains(&h) {
            self.hazards.push(h);
        }
    }

    /// Checks ir3's read rules for `loc` read by the current instruction as `how`.
    fn check_read(&mut self, loc: Loc, how: Reader) {
        let mut seen = None;
        for part in loc.parts() {
            match self.rec[part] {
                Some(w) if seen != Some(w.pc) => {
                    seen = Some(w.pc);
                    self.check_part(loc, w, how);
                }
                _ => {}
            }
        }
    }

    fn check_part(&mut self, loc: Loc, w: Written, how: Reader) {
        if w.mask & self.mask == 0 {
            return;
        }
        let rule = match w.class {
            Class::Ss { scalar } if scalar && how.scalar && w.half == loc.half() => None,
            Class::Ss { .. } => (self.ss_epoch == w.ss).then_some(Rule::Ss),
            Class::Sy => (self.sy_epoch == w.sy).then_some(Rule::Sy),
            Class::Addr | Class::Alu => {
                let chip = self.chip;
                let needed = if w.class == Class::Addr {
                    chip.non_alu()
                } else if how.end {
                    0
                } else if how.other {
                    chip.non_alu()
                } else {
                    let penalty = if w.half != loc.half() { 3 } else { 0 };
                    (chip.alu_to_alu() + penalty).saturating_sub(how.late)
                };
                let had = self.now.saturating_sub(w.cycle + 1);
                // a7xx: an early preamble's `a1.x` is an (ss) producer (`is_ss_producer`).
                let synced = w.class == Class::Addr
                    && chip.gen == crate::ir3::Gen::A7xx
                    && self.ss_epoch != w.ss;
                (had < needed && !synced).then_some(Rule::Slots { needed, had })
            }
        };
        if let Some(rule) = rule {
            self.hazard(rule, loc.name(), w.pc);
        }
    }

    /// `loc`'s value in every fiber (16-bit halves zero-extended), checked as `how` reads it.
    pub fn read_loc(&mut self, loc: Loc, how: Reader) -> Vec<u32> {
        self.check_read(loc, how);
        let w = self.w;
        match loc {
            Loc::Full(c) => self.gpr[c * w..(c + 1) * w].to_vec(),
            Loc::Half(c, hi) => (self.gpr[c * w..(c + 1) * w].iter())
                .map(|&v| if hi { v >> 16 } else { v & 0xffff })
                .collect(),
            Loc::Shared(c) => vec![self.shared[c]; w],
            Loc::SharedHalf(c, hi) => {
                let v = self.shared[c];
                vec![if hi { v >> 16 } else { v & 0xffff }; w]
            }
            Loc::A0 | Loc::A1 | Loc::Pred(_) | Loc::UPred(_) => {
                let k = loc.slot() - GPRS - SHARED;
                self.special[k * w..(k + 1) * w].to_vec()
            }
        }
    }

    /// Const component `k`, checked against outstanding const-file writes.
    pub fn konst(&mut self, k: i64) -> Result<u32, Stop> {
        let name = || format!("c{}.{}", k / 4, ['x', 'y', 'z', 'w'][(k % 4) as usize]);
        if let Some(&(pc, sy, epoch)) = usize::try_from(k)
            .ok()
            .and_then(|k| self.const_pending.get(&k))
        {
            let now = if sy { self.sy_epoch } else { self.ss_epoch };
            if now == epoch {
                self.hazard(Rule::Const { sy }, name(), pc);
            }
        }
        match usize::try_from(k).ok().and_then(|k| self.consts.get(k)) {
            Some(Some(v)) => Ok(*v),
            _ => Err(Stop::Unsupported(format!(
                "a read of {}, which the dispatch does not fill",
                name()
            ))),
        }
    }

    /// Notes, for the tracer, that fiber `f` stored `v` at `place`.
    pub fn traced_store(&mut self, f: usize, place: impl FnOnce() -> String, v: u32) {
        if self.watch == Some(f) {
            self.writes.push((place(), v));
        }
    }

    /// Writes const component `k` as `stc` (`sy` false) or `ldc.k` does: readers need the
    /// flag. ir3 25.0.7 asks for it before any const read after such a write
    /// (`needs_ss_for_const`, `needs_sy_for_const`); 26.2.6's code reads consts the
    /// preamble did not write without it, so only the written ones are checked.
    pub fn write_const(&mut self, k: usize, v: u32, sy: bool) -> Result<(), Stop> {
        let epoch = if sy { self.sy_epoch } else { self.ss_epoch };
        match self.consts.get_mut(k) {
            Some(c) => *c = Some(v),
            None => return Err(self.fault(format!("a const write past the file, at {k}"))),
        }
        self.const_pending.insert(k, (self.pc, sy, epoch));
        Ok(())
    }

    /// Notes that the current (async) instruction reads `loc` late.
    pub fn read_late(&mut self, loc: Loc, needs_ss: bool) {
        let late = LateRead {
            pc: self.pc,
            needs_ss,
            mask: if loc.per_wave() { u128::MAX } else { self.mask },
            ss: self.ss_epoch,
            sy: self.sy_epoch,
        };
        for part in loc.parts() {
            self.late[part] = Some(late);
        }
    }

    /// Writes `vals` (one per fiber) to `loc` for the active fibers, as `class` produces it.
    pub fn write(&mut self, loc: Loc, vals: &[u32], class: Class) {
        let slot = loc.slot();
        let mask = if loc.per_wave() { u128::MAX } else { self.mask };
        let written = Written {
            pc: self.pc,
            cycle: self.now,
            class,
            half: loc.half(),
            mask,
            ss: self.ss_epoch,
            sy: self.sy_epoch,
        };
        for part in loc.parts() {
            if let Some(r) = self.late[part] {
                let open = self.ss_epoch == r.ss && (r.needs_ss || self.sy_epoch == r.sy);
                if open && r.mask & mask != 0 && r.pc != self.pc {
                    self.hazard(Rule::WriteAfterRead, loc.name(), r.pc);
                }
            }
            if let Some(p) = self.rec[part].filter(|p| p.mask & mask != 0 && p.pc != self.pc) {
                let outstanding = match (p.class, class) {
                    (Class::Ss { scalar: true }, Class::Ss { scalar: true }) => false,
                    (Class::Ss { .. }, _) => self.ss_epoch == p.ss,
                    (Class::Sy, _) => self.sy_epoch == p.sy,
                    _ => false,
                };
                if outstanding {
                    self.hazard(Rule::WriteAfterWrite, loc.name(), p.pc);
                }
            }
            self.rec[part] = Some(written);
        }
        let w = self.w;
        let active: Vec<usize> = self.active().collect();
        let watched = self.watch.filter(|f| (self.mask >> f) & 1 != 0);
        match loc {
            Loc::Full(c) => {
                for &f in &active {
                    self.gpr[c * w + f] = vals[f];
                }
            }
            Loc::Half(c, hi) => {
                let (shift, keep) = if hi { (16, 0xffff) } else { (0, 0xffff_0000) };
                for &f in &active {
                    let g = &mut self.gpr[c * w + f];
                    *g = (*g & keep) | (vals[f] & 0xffff) << shift;
                }
            }
            Loc::Shared(c) => {
                if let Some(&f) = active.first() {
                    self.shared[c] = vals[f];
                }
            }
            Loc::SharedHalf(c, hi) => {
                if let Some(&f) = active.first() {
                    let (shift, keep) = if hi { (16, 0xffff) } else { (0, 0xffff_0000) };
                    let g = &mut self.shared[c];
                    *g = (*g & keep) | (vals[f] & 0xffff) << shift;
                }
            }
            // A predicate holds whether the value is not zero: `ir3_opt_predicates.c` folds
            // `cmps.s.ne p0.c, x, 0` into the bitop that computed `x`.
            // `up0.c`: one value for the wave, written for the active fibers only — a parked
            // fiber's `p0.c` is left as it was [inferred: what ir3's predicate RA assumes,
            // since it keeps `p0` values of parked fibers live across such writes].
            Loc::UPred(_) => {
                let k = slot - GPRS - SHARED;
                if let Some(&f) = active.first() {
                    let v = u32::from(vals[f] != 0);
                    for &g in &active {
                        self.special[k * w + g] = v;
                    }
                }
            }
            Loc::Pred(_) => {
                let k = slot - GPRS - SHARED;
                for &f in &active {
                    self.special[k * w + f] = u32::from(vals[f] != 0);
                }
            }
            Loc::A0 | Loc::A1 => {
                let k = slot - GPRS - SHARED;
                for &f in &active {
                    self.special[k * w + f] = vals[f];
                }
            }
        }
        if let Some(f) = watched {
            let first = self.active().next().unwrap_or(f);
            let v = match loc {
                Loc::Shared(c) => self.shared[c],
                Loc::Pred(_) => u32::from(vals[f] != 0),
                Loc::UPred(_) => u32::from(vals[first] != 0),
                _ if loc.is_shared() => vals[first],
                _ => vals[f] & if loc.half() { 0xffff } else { u32::MAX },
            };
            self.writes.push((loc.name(), v));
        }
    }

    /// Fiber `f`'s private word holding byte `byte` of an access of `size` bytes (2 or 4),
    /// and the shift of the value in it.
    pub fn private_word(
        &mut self,
        f: usize,
        byte: u32,
        size: u32,
    ) -> Result<(&mut u32, u32), Stop> {
        if !byte.is_multiple_of(size) {
            return Err(Stop::Unsupported(format!(
                "a private access of {size} bytes at byte {byte}"
            )));
        }
        let i = (byte / 4) as usize;
        if i >= self.private_words {
            return Err(Stop::Unsupported(format!(
                "private byte {byte} past the {} bytes per fiber",
                4 * self.private_words
            )));
        }
        self.private_dirty = true;
        Ok((
            &mut self.private[f * self.private_words + i],
            8 * (byte % 4),
        ))
    }

    /// The local-memory word holding byte `byte` of an access of `size` bytes (2 or 4), shared
    /// by every fiber of the workgroup.
    pub fn local_word(&mut self, byte: u32, size: u32) -> Result<(&mut u32, u32), Stop> {
        if !byte.is_multiple_of(size) {
            return Err(Stop::Unsupported(format!(
                "a local access of {size} bytes at byte {byte}"
            )));
        }
        match self.local.get_mut((byte / 4) as usize) {
            Some(word) => Ok((word, 8 * (byte % 4))),
            None => Err(Stop::Fault {
                pc: self.pc,
                invocation: None,
                why: format!("local byte {byte} past the workgroup's {LOCAL_BYTES}"),
            }),
        }
    }

    /// Writes `r<a0.x + offset>` in every active fiber. Its timing is not recorded: which
    /// register a fiber wrote is known only as it runs.
    pub fn write_relative(&mut self, offset: i32, vals: &[u32]) -> Result<(), Stop> {
        let a0 = self.read_loc(Loc::A0, Reader::default());
        let w = self.w;
        for f in self.active() {
            let c = i64::from(a0[f] as i32) + i64::from(offset);
            if !(0..GPRS as i64).contains(&c) {
                return Err(Stop::Unsupported("r<a0.x> outside the GPRs".into()));
            }
            self.gpr[c as usize * w + f] = vals[f];
        }
        Ok(())
    }

    /// `r<a0.x + offset>` in every active fiber.
    pub fn read_relative(&mut self, offset: i32, how: Reader) -> Result<Vec<u32>, Stop> {
        let a0 = self.read_loc(Loc::A0, how);
        let w = self.w;
        let mut out = vec![0; w];
        for f in self.active() {
            let c = i64::from(a0[f] as i32) + i64::from(offset);
            if !(0..GPRS as i64).contains(&c) {
                return Err(Stop::Unsupported("r<a0.x> outside the GPRs".into()));
            }
            out[f] = self.gpr[c as usize * w + f];
        }
        Ok(out)
    }
}
