//! Storage of a run: value slots, local-variable words, registers, the interned variable types
//! deref chains walk, and the scratch the coverage statistics use. Allocated when a run starts,
//! kept (with its capacity) across runs. Invocations run in groups of [`LANES`] (see
//! [`super::exec`]), so everything an invocation owns is kept once per lane.
//!
//! * A value is a [`Slot`]: 4 words per lane (bools 0/1, unused components 0, so a write
//!   past the components its writers produce is skipped), stamped with
//!   the *epoch* of the group that wrote it and the lanes that did; reading a lane that did
//!   not write it in this epoch is reading an undefined value. Epochs grow across groups and
//!   runs, so nothing is cleared per group except variables and registers.
//! * A deref value is `[var, word offset, type id, 0]`; the type id indexes
//!   [`super::types::Types`].
//! * Each local variable is `VarType::words()` flat words per lane, zeroed when a group starts.
//!   Words past a variable's end read 0 and are not written.
//! * Workgroups never straddle groups, so the shared arrays of a group's workgroups are
//!   its own: [`Shared`], zeroed when a group starts, with a [`Touch`] per word so that an
//!   access racing with another invocation's since the last barrier is caught (commutative
//!   atomics whose results are unused do not race with each other).

use super::code::Code;
use sim::semantics::AtomicOp;

/// The most words all local variables of a program may take (a malformed program declaring
/// an enormous array is rejected rather than allocated).
pub const MAX_VAR_WORDS: u32 = 1 << 22;

/// Invocations run together: one aligned group of 8 (ids `8k..8k + 8`), so the statistics
/// about what a SIMD8 machine would see are a group's own.
pub const LANES: usize = 8;

/// One word per lane.
pub type Lanes = [u32; LANES];

/// A set of lanes: bit `l` is lane `l`.
pub type Mask = u32;

/// Every lane.
pub const ALL_LANES: Mask = (1 << LANES) - 1;

/// One SSA value of every lane of a group, by component (so a scalar op reads one run).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Slot {
    /// Component `k` of lane `l` is `c[k][l]`; past the value's component count they are 0.
    pub c: [Lanes; 4],
    /// The epoch of the group that wrote it (0: never written).
    pub epoch: u32,
    /// The lanes that wrote it in that epoch.
    pub defined: Mask,
}

/// How an instruction touches a shared word, for the race rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// A load.
    Read,
    /// A store, or an atomic whose result is used (it reads and writes, so another
    /// invocation's access in the same phase would show in its result or the word).
    Write,
    /// A commutative atomic whose result is unused: with others of the same operation its
    /// order cannot show.
    Unordered(AtomicOp),
}

/// Who has accessed one shared word since the group's last barrier, as lane masks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Touch {
    /// The barriers the group had passed at the accesses (the word is untouched in any
    /// other phase).
    pub phase: u32,
    /// Lanes that read it.
    pub read: u8,
    /// Lanes that wrote it.
    pub written: u8,
    /// Lanes that applied an [`Access::Unordered`] atomic.
    pub unordered: u8,
    /// Their operation while they all applied one, `None` once two differ.
    pub op: Option<AtomicOp>,
}

impl Touch {
    /// The lanes other than `me` whose accesses race with `access` by `me`.
    fn races(&self, me: u8, access: Access) -> u8 {
        let others = !me;
        let conflicting = match access {
            Access::Read => self.written | self.unordered,
            Access::Write => self.read | self.written | self.unordered,
            Access::Unordered(op) => {
                let mixed = if self.op == Some(op) {
                    0
                } else {
                    self.unordered
                };
                self.read | self.written | mixed
            }
        };
        conflicting & others
    }
}

/// The shared arrays of the workgroups of one group.
#[derive(Debug, Default)]
pub struct Shared {
    /// Per array: its first word in a workgroup's part and its length.
    pub arrays: Vec<(u32, u32)>,
    /// Words of one workgroup's arrays together.
    pub words: u32,
    /// Invocations per workgroup.
    pub workgroup: u32,
    /// Workgroup `w` of the group (lanes `w * workgroup..`) from `w * words`.
    pub data: Vec<u32>,
    /// One per word of `data`.
    pub touch: Vec<Touch>,
    /// Barriers the group has passed, plus one (so that no word starts touched).
    pub phase: u32,
}

impl Shared {
    /// Lays out `dispatch`'s arrays for a run.
    pub fn prepare(&mut self, dispatch: &sim::dispatch::Dispatch) {
        self.arrays.clear();
        self.words = 0;
        for &len in &dispatch.shared {
            self.arrays.push((self.words, len));
            self.words += len;
        }
        self.workgroup = dispatch.workgroup.max(1);
        let groups = LANES as u32 / self.workgroup.min(LANES as u32);
        let n = (self.words * groups) as usize;
        self.data.resize(n, 0);
        self.touch.resize(n, Touch::default());
    }

    /// Starts a group: every word 0 and untouched.
    pub fn begin_group(&mut self) {
        self.data.fill(0);
        self.touch.fill(Touch::default());
        self.phase = 1;
    }

    /// Where lane `lane`'s workgroup keeps word `index + k` of array `array` (wrapping at
    /// its length), with the access recorded ([`Self::access`]; the first race found in an
    /// instruction goes to `racing`, as (lane, the lane it races with)); none for an empty or
    /// missing array.
    #[inline(always)]
    pub fn touch(
        &mut self,
        lane: usize,
        array: u32,
        index: u32,
        k: u32,
        access: Access,
        racing: &mut Option<(usize, u8)>,
    ) -> Option<usize> {
        let w = self.word(lane, array, index, k)?;
        if let Some(other) = self.access(w, lane, access) {
            racing.get_or_insert((lane, other));
        }
        Some(w)
    }

    /// Where lane `lane`'s workgroup keeps word `index + k` of array `array`.
    #[inline]
    fn word(&self, lane: usize, array: u32, index: u32, k: u32) -> Option<usize> {
        let &(base, len) = self.arrays.get(array as usize)?;
        (len != 0).then(|| {
            let group = lane as u32 / self.workgroup;
            (group * self.words + base + index.wrapping_add(k) % len) as usize
        })
    }

    /// Records lane `lane`'s access to word `w`; the lowest lane it races with, if another
    /// lane accessed the word since the last barrier in a way whose order would show.
    #[inline]
    fn access(&mut self, w: usize, lane: usize, access: Access) -> Option<u8> {
        let t = &mut self.touch[w];
        let me = 1u8 << lane;
        if t.phase != self.phase {
            *t = Touch {
                phase: self.phase,
                ..Touch::default()
            };
        }
        let races = t.races(me, access);
        match access {
            Access::Read => t.read |= me,
            Access::Write => t.written |= me,
            Access::Unordered(op) => {
                t.op = if t.unordered == 0 || t.op == Some(op) {
                    Some(op)
                } else {
                    None
                };
                t.unordered |= me;
            }
        }
        (races != 0).then(|| races.trailing_zeros() as u8)
    }
}

/// Per-run mutable storage.
#[derive(Debug, Default)]
pub struct State {
    /// Value slots by value id, plus one always-zero slot (the absent texture parameter).
    pub vals: Vec<Slot>,
    /// The current group's epoch.
    pub epoch: u32,
    /// Local-variable words: lane `l`'s variables back to back from `l * Code::var_words`.
    pub mem: Vec<u32>,
    /// Registers by register id, by component and lane like a [`Slot`].
    pub regs: Vec<[Lanes; 4]>,
    /// Phi results read before any is written (phis of a block are parallel).
    pub phi_tmp: Vec<[Lanes; 4]>,
    /// Back-edges taken in the current execution of each loop node by each lane (statistics
    /// only).
    pub loop_iters: Vec<Lanes>,
    /// Loop nodes whose back-edge was taken twice in one execution (statistics only).
    pub loop_twice: Vec<bool>,
    /// Per `if` node: the sides the group took so far (bit 0 then, bit 1 else) (statistics
    /// only).
    pub if_sides: Vec<u8>,
    /// Per `if` node: two invocations of one group took different sides (statistics only).
    pub if_diverged: Vec<bool>,
    /// The group's workgroup-shared arrays.
    pub shared: Shared,
}

impl State {
    /// Forgets everything, keeping capacity.
    pub fn clear(&mut self) {
        self.vals.clear();
        self.epoch = 0;
        self.mem.clear();
        self.regs.clear();
        self.phi_tmp.clear();
        self.loop_iters.clear();
        self.loop_twice.clear();
        self.if_sides.clear();
        self.if_diverged.clear();
    }

    /// Sizes the storage for `code` at the start of a run.
    pub fn prepare(&mut self, code: &Code, stats: bool) {
        self.vals.resize(code.nvalues as usize + 1, Slot::default());
        self.mem.resize(code.var_words as usize * LANES, 0);
        self.regs.resize(code.nregs as usize, [[0; LANES]; 4]);
        // Emptied for a run without statistics too, so that `begin_group` clears nothing a
        // run before left behind.
        self.loop_iters.clear();
        self.loop_twice.clear();
        self.if_sides.clear();
        self.if_diverged.clear();
        if stats {
            self.loop_iters.resize(code.loop_nodes as usize, [0; LANES]);
            self.loop_twice.resize(code.loop_nodes as usize, false);
            self.if_sides.resize(code.if_nodes as usize, 0);
            self.if_diverged.resize(code.if_nodes as usize, false);
        }
    }

    /// Starts a group: a fresh epoch, zeroed variables and registers, no `if` sides taken.
    pub fn begin_group(&mut self, code: &Code) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // Epochs wrapped: forget every old stamp so none can match by accident.
            self.vals.iter_mut().for_each(|s| s.epoch = 0);
            self.epoch = 1;
        }
        self.mem.fill(0);
        self.regs.fill([[0; LANES]; 4]);
        self.shared.begin_group();
        self.if_sides.fill(0);
        self.vals[code.nvalues as usize] = Slot {
            c: [[0; LANES]; 4],
            epoch: self.epoch,
            defined: ALL_LANES,
        };
    }

    /// Lane `lane`'s words `off..off + comps` of variable `var` (0 past its end); none for a
    /// bad variable.
    #[inline]
    pub fn load(
        &self,
        code: &Code,
        lane: usize,
        var: u32,
        off: u32,
        comps: u8,
    ) -> Option<[u32; 4]> {
        let &(base, words) = code.vars.get(var as usize)?;
        let mem = &self.mem[lane * code.var_words as usize..];
        let mut out = [0; 4];
        for (c, o) in out.iter_mut().enumerate().take(comps as usize) {
            let w = u64::from(off) + c as u64;
            if w < u64::from(words) {
                *o = mem[(u64::from(base) + w) as usize];
            }
        }
        Some(out)
    }

    /// Writes `data[..comps]` to lane `lane`'s words `off..` of `var` (dropping words past its
    /// end); false for a bad variable.
    #[inline]
    pub fn store(
        &mut self,
        code: &Code,
        lane: usize,
        var: u32,
        off: u32,
        data: [u32; 4],
        comps: u8,
    ) -> bool {
        let Some(&(base, words)) = code.vars.get(var as usize) else {
            return false;
        };
        let mem = &mut self.mem[lane * code.var_words as usize..];
        for (c, &d) in data.iter().enumerate().take(comps as usize) {
            let w = u64::from(off) + c as u64;
            if w < u64::from(words) {
                mem[(u64::from(base) + w) as usize] = d;
            }
        }
        true
    }
}
