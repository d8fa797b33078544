//! Payload and response plumbing shared by every message: reading per-lane parameters
//! (past `mlen` they read as zero), checking that the payload registers that matter were
//! written, and writing per-lane response channels.

use super::decode::Decoded;
use super::hazard::{Hazard, HazardKind, HazardLog};
use super::layout::Layout;
use super::send::{Message, SendDesc};
use super::state::Thread;

/// A layout read against a thread: its parameters and response channels.
impl Layout {
    /// The channels of send `d` among `en`, relative to its group.
    #[inline]
    pub fn live(d: &Decoded, en: u32) -> u32 {
        // `en` lies within the instruction's channels.
        en >> d.group
    }

    /// Parameter `k` of relative lane `i` (0 when not sent).
    #[inline]
    pub fn param(&self, t: &Thread, k: u32, i: u32) -> u32 {
        if k < self.sent {
            t.grf[(self.params + k * self.per * 8 + i) as usize]
        } else {
            0
        }
    }

    /// Parameter `k` of every lane (index = relative lane; 0 when not sent, and past the
    /// instruction's lanes): one bounds check per parameter rather than one per lane.
    #[inline]
    pub fn lane_params(&self, t: &Thread, k: u32) -> [u32; 16] {
        let mut v = [0; 16];
        if k < self.sent {
            let at = (self.params + k * self.per * 8) as usize;
            for (x, &g) in v.iter_mut().zip(&t.grf[at..at + self.lanes as usize]) {
                *x = g;
            }
        }
        v
    }

    /// Write response channel `c` of relative lane `i` and mark it written.
    #[inline]
    pub fn respond(&self, t: &mut Thread, c: u32, i: u32, v: u32) {
        let at = self.dst + c * self.per * 8 + i;
        t.grf[at as usize] = v;
        t.mark(at, 1);
    }
}

/// The channels of a NoMask scratch block message: it moves whole GRFs whatever the channel
/// enables.
pub(super) const WHOLE_GRFS: u32 = u32::MAX;

/// The channels dword `j` of data or parameter GRF `r` belongs to, among `live` (relative
/// channels): bit `j` of the result. A parameter or a block-write GRF of a SIMD16 message
/// holds channels 0–7 and the next one 8–15.
#[inline(always)]
pub(super) fn grf_lanes(live: u32, r: u32, per: u32) -> u32 {
    (live >> ((r % per) * 8)) & 0xff
}

/// Report payload registers that matter but were not written: the header's 8 dwords, the
/// dwords of each per-lane parameter in lanes `live` (relative channels), and of block-write
/// data the same — or, for a NoMask block write (`live` = [`WHOLE_GRFS`]), any dword.
#[inline(always)]
pub(super) fn check(
    t: &Thread,
    desc: &SendDesc,
    l: &Layout,
    live: u32,
    log: &mut HazardLog,
    pc: u32,
) {
    let mut report = |reg: u32| {
        log.report(Hazard {
            thread: t.index,
            inst: pc,
            reg: reg as u16,
            kind: HazardKind::UnwrittenPayload,
        })
    };
    // Sends read and write whole GRFs (validation puts payload and response at dword 0 of
    // one): the written-ness of each is a byte of the bitmap.
    let h = desc.header as u32;
    let first = l.payload / 8;
    if h == 1 && t.reg_written(first) != 0xff {
        report(first);
    }
    let regs = (desc.mlen as u32).saturating_sub(h);
    let whole = live == WHOLE_GRFS && matches!(desc.msg, Message::ScratchBlockWrite { .. });
    for r in 0..regs {
        let reg = first + h + r;
        let w = t.reg_written(reg);
        let missing = if whole {
            w == 0
        } else {
            grf_lanes(live, r, l.per) & !w != 0
        };
        if missing {
            report(reg);
        }
    }
}
