//! Scratch: per-thread private memory for spills and dynamically indexed arrays, through
//! block messages (whole GRFs at a 32-byte-unit offset from header dword 2 or, for a read, from
//! the descriptor; a write without NoMask stores only its enabled channels' dwords, dword `j`
//! of a data GRF being channel `j`, or `8 + j` in the second GRF of a SIMD16 value) and
//! scattered messages (per-lane dword offsets, masked).
//!
//! Scratch starts at zero but unwritten: reading a dword (scattered) or a whole 32-byte slot
//! (block) this thread never wrote is a `ScratchUnwritten` hazard and reads 0. Block reads
//! carry written-ness into the GRFs dword by dword, so a fill of a partially spilled register
//! leaves the unwritten lanes unwritten. Accesses past `Config::scratch_grfs` are a
//! `ScratchOutOfRange` hazard: reads give 0 (marked written), writes are dropped.

use super::hazard::{Hazard, HazardKind, HazardLog};
use super::layout::Layout;
use super::payload;
use super::state::Thread;

fn hazard(t: &Thread, pc: u32, dword: u32, kind: HazardKind, log: &mut HazardLog) {
    log.report(Hazard {
        thread: t.index,
        inst: pc,
        reg: (dword / 8).min(u16::MAX as u32) as u16,
        kind,
    });
}

#[inline]
fn scratch_written(t: &Thread, at: usize) -> bool {
    t.scratch_written[at / 64] >> (at % 64) & 1 != 0
}

/// Written-ness of the 32-byte slot at dword `at` (a multiple of 8, so its 8 bits share one
/// word of the bitmap), bit `k` = dword `at + k`.
#[inline]
fn slot_written(t: &Thread, at: usize) -> u32 {
    (t.scratch_written[at / 64] >> (at % 64)) as u32 & 0xff
}

#[inline]
fn store(t: &mut Thread, at: usize, v: u32, written: bool) {
    t.scratch[at] = v;
    if written {
        t.scratch_written[at / 64] |= 1 << (at % 64);
    } else {
        t.scratch_written[at / 64] &= !(1 << (at % 64));
    }
    t.scratch_high = t.scratch_high.max(at + 1);
}

/// Block read: `regs` GRFs from scratch slot `slot` (the header's dword 2 or the
/// descriptor's offset) into the response. Inlined, like [`block_write`], into the scratch
/// block step, its only caller: one call per spill or fill.
#[inline(always)]
pub(super) fn block_read(
    t: &mut Thread,
    l: &Layout,
    slot: u32,
    regs: u32,
    log: &mut HazardLog,
    pc: u32,
) {
    let size = t.scratch.len() as u64;
    for r in 0..regs {
        let dst = l.dst + r * 8;
        let at = (slot as u64 + r as u64) * 8;
        if at + 8 > size {
            hazard(
                t,
                pc,
                at.min(u32::MAX as u64) as u32,
                HazardKind::ScratchOutOfRange,
                log,
            );
            t.set8(dst as usize, [0; 8]);
            t.set_reg_written(dst / 8, 0xff);
            continue;
        }
        let at = at as usize;
        let v = *<&[u32; 8]>::try_from(&t.scratch[at..at + 8]).expect("a slot");
        t.set8(dst as usize, v);
        let bits = slot_written(t, at);
        if bits == 0 {
            hazard(t, pc, at as u32, HazardKind::ScratchUnwritten, log);
        }
        t.set_reg_written(dst / 8, bits);
    }
}

/// Block write: the `regs` GRFs after the header to the slot in header dword 2, the dwords
/// of channels `live` only ([`payload::WHOLE_GRFS`]: all of them).
#[inline(always)]
pub(super) fn block_write(
    t: &mut Thread,
    l: &Layout,
    regs: u32,
    live: u32,
    log: &mut HazardLog,
    pc: u32,
) {
    let slot = t.grf[(l.payload + 2) as usize];
    let size = t.scratch.len() as u64;
    for r in 0..regs {
        let src = l.params + r * 8;
        let at = (slot as u64 + r as u64) * 8;
        if at + 8 > size {
            hazard(
                t,
                pc,
                at.min(u32::MAX as u64) as u32,
                HazardKind::ScratchOutOfRange,
                log,
            );
            continue;
        }
        let w = t.reg_written(src / 8);
        let at = at as usize;
        let v = t.get8(src as usize);
        let lanes = payload::grf_lanes(live, r, l.per);
        let dwords = <&mut [u32; 8]>::try_from(&mut t.scratch[at..at + 8]).expect("a slot");
        if lanes == 0xff {
            *dwords = v;
        } else {
            for (j, (s, v)) in dwords.iter_mut().zip(v).enumerate() {
                if lanes >> j & 1 != 0 {
                    *s = v;
                }
            }
        }
        let word = &mut t.scratch_written[at / 64];
        let keep = !((lanes as u64) << (at % 64));
        *word = (*word & keep) | (((w & lanes) as u64) << (at % 64));
        t.scratch_high = t.scratch_high.max(at + 8);
    }
}

/// Scattered read of `channels` dwords per enabled lane at the lane's dword offset.
pub(super) fn read(
    t: &mut Thread,
    l: &Layout,
    lanes: u32,
    channels: u32,
    log: &mut HazardLog,
    pc: u32,
) {
    let size = t.scratch.len() as u32;
    for i in 0..lanes {
        if l.live >> i & 1 == 0 {
            continue;
        }
        let off = l.param(t, 0, i);
        for c in 0..channels {
            let at = off.wrapping_add(c);
            let v = if at >= size {
                hazard(t, pc, at, HazardKind::ScratchOutOfRange, log);
                0
            } else {
                if !scratch_written(t, at as usize) {
                    hazard(t, pc, at, HazardKind::ScratchUnwritten, log);
                }
                t.scratch[at as usize]
            };
            l.respond(t, c, i, v);
        }
    }
}

/// Scattered write of `channels` dwords per enabled lane, lanes in increasing order.
pub(super) fn write(
    t: &mut Thread,
    l: &Layout,
    lanes: u32,
    channels: u32,
    log: &mut HazardLog,
    pc: u32,
) {
    let size = t.scratch.len() as u32;
    for i in 0..lanes {
        if l.live >> i & 1 == 0 {
            continue;
        }
        let off = l.param(t, 0, i);
        for c in 0..channels {
            let at = off.wrapping_add(c);
            let v = l.param(t, 1 + c, i);
            if at >= size {
                hazard(t, pc, at, HazardKind::ScratchOutOfRange, log);
            } else {
                store(t, at as usize, v, true);
            }
        }
    }
}
