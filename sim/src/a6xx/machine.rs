//! The state of one run: the program and dispatch, what the run leaves behind, and the
//! current wave (register file in SoA form, timing records, divergent groups, private memory).
//!
//! Invariants: `rows[cur(r)][i]` is the architectural value of register `r` in fiber `i` as
//! if every write had landed; `rows[old(r)]` holds what readers see while the latest write to
//! `r` has not settled (for the fibers in `track[r].lanes`). The two are the slots `2r` and
//! `2r + 1`, `flip[r]` says which is current, so a write that starts a new record swaps them
//! instead of copying the row. Predicate rows hold 0 or 1. Parked groups
//! have distinct PCs, and `parked_min` is the smallest of them (`usize::MAX` when none).
//!
//! The register file ([`Files`]) outlives a run: a thread keeps one per wave width and the
//! next run takes it over. Every row not listed in `touched` is clean (zero, unflipped,
//! default track, unwritten), so starting a wave resets only the rows the last one used
//! instead of the whole file (a hundred or two hundred KiB per wave). Private memory travels
//! with it: zero and unwritten past each fiber's first `private_high` words, and wholly so
//! between runs, so a wave clears only the words below the highest one stored (spill slots
//! sit low) instead of 64 or 128 KiB.

use std::any::Any;
use std::cell::RefCell;

use super::config::Config;
use super::hazard::Hazards;
use super::isa::{Instr, Op};
use super::reg::ROWS;
use super::stats::Stats;
use crate::dispatch::{Dispatch, Results};

/// Which sync flag clears an outstanding async result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Sync {
    /// No async result outstanding.
    #[default]
    None,
    /// An SFU result: `(ss)`.
    Ss,
    /// A texture or memory result: `(sy)`.
    Sy,
}

/// Timing record of one register in the current wave.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Track {
    /// Fibers whose latest write has not settled yet.
    pub lanes: u128,
    /// Cycle from which every kind of reader sees the latest write.
    pub settle: u64,
    /// Cycle from which each kind of reader (`Reader as usize`) sees it.
    pub vis: [u64; 3],
    /// Issue cycle of the latest producer.
    pub issue: u64,
    /// Index of the latest producer.
    pub producer: u32,
    /// Whether the pending write is async, and of which class.
    pub sync: Sync,
    /// Fibers for which an async instruction has yet to read this register.
    pub war_lanes: u128,
    /// Cycle at which that read is done.
    pub war_until: u64,
    /// Index of that reader.
    pub war_reader: u32,
    /// Whether the reader is a `(sy)`-class instruction (so `(sy)` also ends the window).
    pub war_sy: bool,
    /// `(ss)` count when the window opened.
    pub war_ss_epoch: u32,
    /// `(sy)` count when the window opened.
    pub war_sy_epoch: u32,
}

/// The register state of a wave, kept from run to run (see the module comment).
pub(super) struct Files<const W: usize> {
    rows: Vec<[u32; W]>,
    flip: Vec<u8>,
    track: Vec<Track>,
    written: Vec<u128>,
    touched: Vec<u8>,
    is_touched: Vec<bool>,
    private: Vec<u32>,
    private_written: Vec<u32>,
}

thread_local! {
    /// Register files of finished runs, at most one per wave width.
    static SPARE: RefCell<Vec<Box<dyn Any>>> = const { RefCell::new(Vec::new()) };
}

impl<const W: usize> Files<W> {
    /// A spare file of this width if the thread has one, else a clean new one.
    fn take() -> Files<W> {
        let spare = SPARE.with(|s| {
            let mut s = s.borrow_mut();
            let k = s.iter().position(|f| f.is::<Files<W>>())?;
            s.swap_remove(k).downcast::<Files<W>>().ok()
        });
        match spare {
            Some(f) => *f,
            None => Files {
                rows: vec![[0; W]; 2 * ROWS],
                flip: vec![0; ROWS],
                track: vec![Track::default(); ROWS],
                written: vec![0; ROWS],
                touched: Vec::with_capacity(ROWS),
                is_touched: vec![false; ROWS],
                private: Vec::new(),
                private_written: Vec::new(),
            },
        }
    }

    /// Leaves the file for the thread's next run of this width.
    fn give_back(self) {
        SPARE.with(|s| s.borrow_mut().push(Box::new(self)));
    }
}

/// One run over all waves; `W` is the wave width.
pub(super) struct Machine<'a, const W: usize> {
    pub prog: &'a [Instr],
    pub dispatch: &'a Dispatch,
    pub config: &'a Config,
    pub results: Results,
    pub stats: Stats,
    /// Issues of each instruction so far (see `RunResult::profile`).
    pub profile: Vec<u64>,
    pub hazards: Hazards,
    /// Current wave number.
    pub wave: u32,
    /// Invocation id of fiber 0 of the current wave.
    pub base: u32,
    /// Cycle of the current wave.
    pub now: u64,
    /// PC of the running group.
    pub pc: usize,
    /// Fibers of the running group; change it with `set_mask`.
    pub mask: u128,
    /// Fibers of the current wave whose invocation exists. The others are never read (reads,
    /// branch conditions and stores all go through `mask`, a subset), so their register
    /// contents do not matter.
    pub live: u128,
    /// `mask` as one word per fiber, all ones when active, so that a masked register write
    /// is a blend of whole rows.
    pub active: [u32; W],
    /// Number of fibers in `mask`, counted when it changes rather than at every issue (a
    /// `u128` population count is some thirty instructions without `popcnt`).
    pub fibers: u64,
    /// Parked groups: (pc, fibers).
    pub parked: Vec<(usize, u128)>,
    /// Smallest parked PC, `usize::MAX` if none.
    pub parked_min: usize,
    /// Two slots per register: current and old contents (see the invariants).
    pub rows: Vec<[u32; W]>,
    /// Which slot of each register is current.
    pub flip: Vec<u8>,
    pub track: Vec<Track>,
    /// Fibers that have written each register.
    pub written: Vec<u128>,
    /// Rows changed since they were last clean, each once (see the module comment).
    pub touched: Vec<u8>,
    /// Whether each row is in `touched`.
    pub is_touched: Vec<bool>,
    /// Cycle when every SFU result issued so far has landed.
    pub ss_ready: u64,
    /// Cycle when every texture/memory load issued so far has landed.
    pub sy_ready: u64,
    /// Number of `(ss)` issued in this wave.
    pub ss_epoch: u32,
    /// Number of `(sy)` issued in this wave.
    pub sy_epoch: u32,
    /// Private memory, word-major: word `a` of fiber `i` at `a * W + i`, so that a spill
    /// slot (one word for every fiber) is a row, loaded and stored like a register.
    pub private: Vec<u32>,
    /// Per private word, all ones once stored (a mask, so that stores blend whole rows).
    pub private_written: Vec<u32>,
    /// One past the highest private word stored in this wave (per fiber); every word at or
    /// above it is zero and unwritten.
    pub private_high: usize,
    /// The wave's workgroups' local memory: workgroup `k` of the wave (fibers
    /// `k * size ..`) holds `local_words` words from `k * local_words`; zeroed per wave.
    pub local: Vec<u32>,
    /// Words of one workgroup's local memory (the dispatch's shared arrays together).
    pub local_words: u32,
}

impl<'a, const W: usize> Machine<'a, W> {
    /// All fibers of a wave.
    pub const FULL: u128 = if W >= 128 {
        u128::MAX
    } else {
        (1u128 << W) - 1
    };

    pub fn new(prog: &'a [Instr], dispatch: &'a Dispatch, config: &'a Config) -> Self {
        let uses_private = prog.iter().any(|i| {
            matches!(
                i.op,
                Op::Load {
                    space: super::isa::Space::Private,
                    ..
                } | Op::Store {
                    space: super::isa::Space::Private,
                    ..
                }
            )
        });
        let pw = if uses_private {
            W * config.private_words.max(1) as usize
        } else {
            0
        };
        let mut f = Files::<W>::take();
        // Spare private memory is all zero: any size or stride is a clean one. It only grows,
        // so that runs alternating with and without spills do not zero it again each time.
        if f.private.len() < pw {
            f.private.resize(pw, 0);
            f.private_written.resize(pw, 0);
        }
        Machine {
            prog,
            dispatch,
            config,
            results: dispatch.initial_results(),
            stats: Stats::default(),
            profile: vec![0; prog.len()],
            hazards: Hazards {
                list: Vec::new(),
                count: 0,
                cap: config.max_hazards,
            },
            wave: 0,
            base: 0,
            now: 0,
            pc: 0,
            mask: 0,
            live: 0,
            active: [0; W],
            fibers: 0,
            parked: Vec::with_capacity(W),
            parked_min: usize::MAX,
            rows: f.rows,
            flip: f.flip,
            track: f.track,
            written: f.written,
            touched: f.touched,
            is_touched: f.is_touched,
            ss_ready: 0,
            sy_ready: 0,
            ss_epoch: 0,
            sy_epoch: 0,
            private: f.private,
            private_written: f.private_written,
            private_high: 0,
            local_words: dispatch.shared.iter().sum(),
            local: vec![
                0;
                dispatch.shared.iter().sum::<u32>() as usize
                    * W.div_ceil(dispatch.workgroup.max(1) as usize)
            ],
        }
    }

    /// Notes that row `row` is about to change (it must be reset before the next wave).
    #[inline]
    pub fn touch(&mut self, row: usize) {
        if !self.is_touched[row] {
            self.is_touched[row] = true;
            self.touched.push(row as u8);
        }
    }

    /// Makes `mask` the running group's fibers.
    #[inline]
    pub fn set_mask(&mut self, mask: u128) {
        self.mask = mask;
        self.fibers = u64::from(mask.count_ones());
        // Eight fibers at a time, so that every shift is by a constant.
        for (k, words) in self.active.as_chunks_mut::<8>().0.iter_mut().enumerate() {
            let byte = (mask >> (8 * k)) as u32;
            for (i, a) in words.iter_mut().enumerate() {
                *a = 0u32.wrapping_sub((byte >> i) & 1);
            }
        }
    }

    /// Zeroes the private words stored since the last clear (see `private_high`).
    fn clear_private(&mut self) {
        if self.private_high == 0 {
            return;
        }
        let stored = ..self.private_high * W;
        self.private[stored].fill(0);
        self.private_written[stored].fill(0);
        self.private_high = 0;
    }

    /// Ends the run: what it leaves behind, the register file going back to the thread.
    pub fn finish(mut self) -> (Results, Stats, Hazards, Vec<u64>) {
        self.clear_private();
        Files::<W> {
            rows: self.rows,
            flip: self.flip,
            track: self.track,
            written: self.written,
            touched: self.touched,
            is_touched: self.is_touched,
            private: self.private,
            private_written: self.private_written,
        }
        .give_back();
        (self.results, self.stats, self.hazards, self.profile)
    }

    /// Slot of the current contents of register row `row`.
    #[inline]
    pub fn cur(&self, row: usize) -> usize {
        2 * row + self.flip[row] as usize
    }

    /// Slot of the contents readers see while the latest write to `row` has not settled.
    #[inline]
    pub fn old(&self, row: usize) -> usize {
        2 * row + 1 - self.flip[row] as usize
    }

    /// Starts wave `wave`: fibers whose invocation exists are active, `r0.x` holds the
    /// invocation id, nothing else is written.
    pub fn start_wave(&mut self, wave: u32) {
        self.wave = wave;
        self.base = wave * W as u32;
        self.now = 0;
        self.pc = 0;
        let live = self
            .dispatch
            .invocations
            .saturating_sub(self.base)
            .min(W as u32);
        self.live = if live as usize >= W {
            Self::FULL
        } else {
            (1u128 << live) - 1
        };
        self.set_mask(self.live);
        self.parked.clear();
        self.parked_min = usize::MAX;
        for &r in &self.touched {
            let r = r as usize;
            self.rows[2 * r] = [0; W];
            self.rows[2 * r + 1] = [0; W];
            self.flip[r] = 0;
            self.track[r] = Track::default();
            self.written[r] = 0;
            self.is_touched[r] = false;
        }
        self.touched.clear();
        self.touch(0);
        for (i, v) in self.rows[0].iter_mut().enumerate() {
            *v = self.base + i as u32;
        }
        self.rows[1] = self.rows[0];
        self.written[0] = self.mask;
        self.ss_ready = 0;
        self.sy_ready = 0;
        self.ss_epoch = 0;
        self.sy_epoch = 0;
        self.clear_private();
        self.local.fill(0);
    }
}
