//! The state of one hardware thread: register file, written-ness of every GRF dword, the
//! scoreboard, flags, the channel mask with its control-flow stack, and scratch memory.
//! Taken over from the previous run and reset per thread; nothing here allocates while
//! executing.
//!
//! Thread payload at start (all of it counts as written; every other GRF dword is 0 and
//! unwritten):
//! * g0, the header template: dword 0 = thread index, dword 1 = dispatch width, the rest 0;
//! * g1 (SIMD8) or g1–g2 (SIMD16): the invocation id of each channel, `thread * width + c`
//!   (UD), also for channels past the last invocation, which start disabled.

use super::decode::{Decoded, FLAG_READY, WAIT_CHUNK};

/// Dwords in the register file, plus padding so 8-wide reads near the end stay in bounds.
pub(super) const FILE_DWORDS: usize = 1024 + 16;

/// Bytes of the written-ness bitmap: 8 dwords each, plus padding so an 8-byte window at any
/// dword of the register file stays in bounds.
const WRITTEN_BYTES: usize = 144;

thread_local! {
    /// The thread state of the last finished run (see [`Thread::take`]).
    static SPARE: std::cell::RefCell<Option<Thread>> = const { std::cell::RefCell::new(None) };
}

/// One entry of the control-flow stack.
#[derive(Clone, Copy, Debug)]
pub(super) struct Frame {
    /// Channels active when the block was entered (if: minus those that left a loop since).
    pub saved: u32,
    /// If: channels waiting for the else-part. Loop: channels parked by `cont`.
    pub other: u32,
    /// Where to go when no channel is active: the else/endif (if) or the while (loop).
    pub join: u32,
    /// A loop frame (else an if frame).
    pub is_loop: bool,
}

/// Per-thread machine state.
pub(super) struct Thread {
    /// Thread index within the dispatch.
    pub index: u32,
    /// The register file as dwords.
    pub grf: Box<[u32; FILE_DWORDS]>,
    /// One bit per dword, written since the thread started: byte `k` holds dwords
    /// `8k..8k + 8` (one GRF), so the window at any dword is one unaligned 8-byte load.
    pub written: [u8; WRITTEN_BYTES],
    /// Cycle at which each GRF's pending write completes, then each flag's
    /// ([`super::decode::FLAG_READY`]); the other entries are never waited for (so a `u8`
    /// indexes it unchecked, [`super::decode::NO_WAIT`] waits for 0 and
    /// [`super::decode::NO_BOOK`] books harmlessly).
    pub ready: [u64; 256],
    /// f0.0, f0.1, f1.0, f1.1: one bit per channel.
    pub flags: [u32; 4],
    /// Written-ness of each flag bit.
    pub flag_written: [u32; 4],
    /// Channels enabled by control flow.
    pub mask: u32,
    /// The control-flow stack.
    pub stack: Vec<Frame>,
    /// Scratch dwords.
    pub scratch: Vec<u32>,
    /// One bit per scratch dword: written by this thread.
    pub scratch_written: Vec<u64>,
    /// One past the highest scratch dword touched (what reset must clear).
    pub scratch_high: usize,
    /// Issue clock.
    pub now: u64,
    /// Latest result-ready time so far.
    pub last_ready: u64,
    /// GRFs past which the register file and the GRF entries of `ready` are all zero: the
    /// ones the last thread's program could touch (see [`Thread::reset`]).
    dirty_grfs: usize,
}

impl Thread {
    /// A fresh state with `scratch_dwords` of scratch and room for `depth` nested blocks.
    pub fn new(scratch_dwords: usize, depth: usize) -> Thread {
        Thread {
            index: 0,
            grf: Box::new([0; FILE_DWORDS]),
            written: [0; WRITTEN_BYTES],
            ready: [0; 256],
            flags: [0; 4],
            flag_written: [0; 4],
            mask: 0,
            stack: Vec::with_capacity(depth + 1),
            scratch: vec![0; scratch_dwords],
            scratch_written: vec![0; scratch_dwords.div_ceil(64) + 1],
            scratch_high: 0,
            now: 0,
            last_ready: 0,
            dirty_grfs: 0,
        }
    }

    /// The thread state left by this OS thread's last run, fitted to `scratch_dwords` and
    /// `depth`, or a new one: a run then allocates and zeroes no register file or scratch
    /// (32 KiB by default). Scratch past `scratch_high` is zero, so a spare one is clean once
    /// its used part is cleared, at any size.
    pub fn take(scratch_dwords: usize, depth: usize) -> Thread {
        let Some(mut t) = SPARE.with(|s| s.borrow_mut().take()) else {
            return Thread::new(scratch_dwords, depth);
        };
        t.scratch[..t.scratch_high].fill(0);
        let words = t.scratch_high.div_ceil(64).min(t.scratch_written.len());
        t.scratch_written[..words].fill(0);
        t.scratch_high = 0;
        t.scratch.resize(scratch_dwords, 0);
        t.scratch_written.resize(scratch_dwords.div_ceil(64) + 1, 0);
        t.stack.clear();
        t.stack.reserve(depth + 1);
        t
    }

    /// Leaves this state for the OS thread's next run (see [`Thread::take`]).
    pub fn give_back(self) {
        SPARE.with(|s| *s.borrow_mut() = Some(self));
    }

    /// Reset for thread `index` of a dispatch of `invocations` at `width` channels, running
    /// a program that reads and writes only the first `grfs` GRFs.
    ///
    /// Only the GRFs this program or the last thread's could have touched are cleared, with
    /// their scoreboard entries: most programs use a fraction of the register file, and
    /// clearing all of it (6 KiB with the scoreboard) was most of the cost of a thread's
    /// start. Every write lands in the writing program's GRFs (a partial store rewrites the
    /// rest of its eight dwords unchanged), so the registers past them stay zero.
    pub fn reset(&mut self, index: u32, width: u32, invocations: u32, grfs: usize) {
        self.index = index;
        // g0 to g2 hold the thread payload, set below.
        let grfs = grfs.max(3);
        let clear = self.dirty_grfs.max(grfs);
        self.grf[..clear * 8].fill(0);
        self.ready[..clear].fill(0);
        self.ready[FLAG_READY as usize..FLAG_READY as usize + 4].fill(0);
        self.dirty_grfs = grfs;
        self.written = [0; WRITTEN_BYTES];
        self.flags = [0; 4];
        self.flag_written = [0; 4];
        self.stack.clear();
        self.scratch[..self.scratch_high].fill(0);
        let words = self
            .scratch_high
            .div_ceil(64)
            .min(self.scratch_written.len());
        self.scratch_written[..words].fill(0);
        self.scratch_high = 0;
        self.now = 0;
        self.last_ready = 0;
        self.grf[0] = index;
        self.grf[1] = width;
        for c in 0..width {
            self.grf[8 + c as usize] = index.wrapping_mul(width).wrapping_add(c);
        }
        self.mark(0, 0xff);
        self.mark(8, 0xff);
        if width == 16 {
            self.mark(16, 0xff);
        }
        let live = invocations.saturating_sub(index * width).min(width);
        self.mask = if live >= 32 {
            u32::MAX
        } else {
            (1u32 << live) - 1
        };
    }

    /// GRF dwords `at..at + 8`. Array copies, here and in [`Thread::set8`]: a slice copy
    /// carries the standard library's debug precondition checks, kept on in the fuzzing
    /// profile.
    #[inline(always)]
    pub fn get8(&self, at: usize) -> [u32; 8] {
        *<&[u32; 8]>::try_from(&self.grf[at..at + 8]).expect("8 dwords")
    }

    /// Set GRF dwords `at..at + 8` to `v`.
    #[inline(always)]
    pub fn set8(&mut self, at: usize, v: [u32; 8]) {
        *<&mut [u32; 8]>::try_from(&mut self.grf[at..at + 8]).expect("8 dwords") = v;
    }

    /// Written-ness of the 32 dwords starting at dword `start` (bit `i` = dword `start + i`).
    #[inline]
    pub fn window(&self, start: u32) -> u32 {
        let at = (start / 8) as usize;
        let bytes = <[u8; 8]>::try_from(&self.written[at..at + 8]).expect("8 bytes");
        (u64::from_le_bytes(bytes) >> (start % 8)) as u32
    }

    /// Mark dwords `start + i` for each set bit `i` of `bits` as written.
    #[inline]
    pub fn mark(&mut self, start: u32, bits: u32) {
        let at = (start / 8) as usize;
        let bytes = <&mut [u8; 8]>::try_from(&mut self.written[at..at + 8]).expect("8 bytes");
        *bytes = (u64::from_le_bytes(*bytes) | ((bits as u64) << (start % 8))).to_le_bytes();
    }

    /// Written-ness of GRF `reg`'s 8 dwords (bit `i` = dword `i`), for the GRF-aligned
    /// operands of sends.
    #[inline]
    pub fn reg_written(&self, reg: u32) -> u32 {
        self.written[reg as usize] as u32
    }

    /// Set the written-ness of GRF `reg`'s 8 dwords to exactly `bits` (block reads).
    #[inline]
    pub fn set_reg_written(&mut self, reg: u32, bits: u32) {
        self.written[reg as usize] = bits as u8;
    }

    /// Channels whose predicate holds (all channels when unpredicated).
    #[inline]
    pub fn pred_bits(&self, d: &Decoded) -> u32 {
        (self.flags[d.flag] ^ d.pred_invert) | d.pred_free
    }

    /// Scoreboard: wait for every register and flag `d` touches (`d.waits`, then the rest
    /// of its list in `more_waits`, [`super::decode::Code::waits`]), issue it, and book its
    /// results. Returns the stall cycles.
    ///
    /// Branch-free but for the rare long lists: an instruction with no result (latency 0)
    /// books only the unused entry, and raising `last_ready` to its start changes no cycle
    /// count, `now` being past it.
    #[inline(always)]
    pub fn issue(&mut self, d: &Decoded, more_waits: &[u8]) -> u64 {
        if d.long_lists {
            return self.issue_long(d, more_waits);
        }
        let start = self.ready_after(&d.waits, self.now);
        self.book(d, start)
    }

    /// [`Thread::issue`] for an instruction whose lists go past `d.waits` or `d.books`.
    #[cold]
    #[inline(never)]
    fn issue_long(&mut self, d: &Decoded, more_waits: &[u8]) -> u64 {
        let mut start = self.ready_after(&d.waits, self.now);
        let (first, end) = (d.more_waits.0 as usize, d.more_waits.1 as usize);
        for w in more_waits[first..end].chunks_exact(WAIT_CHUNK) {
            start = self.ready_after(w, start);
        }
        let (first, count) = (d.more_books.first as usize, d.more_books.count as usize);
        let done = start + d.latency as u64;
        self.ready[first..first + count].fill(done);
        self.book(d, start)
    }

    /// The first cycle from `start` on at which every register and flag of `waits` is ready.
    #[inline(always)]
    fn ready_after(&self, waits: &[u8], start: u64) -> u64 {
        waits
            .iter()
            .fold(start, |t, &g| t.max(self.ready[g as usize]))
    }

    /// Issues `d` at `start`, booking `d.books` until its result is ready; returns the
    /// stall cycles.
    #[inline(always)]
    fn book(&mut self, d: &Decoded, start: u64) -> u64 {
        let stall = start - self.now;
        // A thread's cycle count stays far below 2^64 (a run stops at its budget), so these
        // sums cannot overflow: wrapping adds skip the overflow checks the fuzzing profile
        // keeps on, twice per instruction executed.
        self.now = start.wrapping_add(d.issue as u64);
        let done = start.wrapping_add(d.latency as u64);
        for &g in &d.books {
            self.ready[g as usize] = done;
        }
        self.last_ready = self.last_ready.max(done);
        stall
    }

    /// A bound on the cycle count at which any instruction issued from now on can start
    /// (no register or flag is booked past `last_ready`).
    #[inline]
    pub fn horizon(&self) -> u64 {
        self.now.max(self.last_ready)
    }

    /// The thread's cycle count so far.
    pub fn cycles(&self) -> u64 {
        self.now.max(self.last_ready)
    }
}
