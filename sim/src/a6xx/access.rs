//! Operand access with the timing checks: reading a source for the active fibers, writing a
//! destination, and noting the late source reads of async instructions.
//!
//! A read is stale when the latest write to the register has not become visible to this kind
//! of reader for some active fiber: it then returns the old contents for the fibers of that
//! write and records a [`HazardKind::ReadTooEarly`]. A write checks the two write hazards (an
//! outstanding async result for the same fibers that would land *after* this write, so the
//! older value would win; an async reader that has not read the old value yet) before it
//! lands. Results are written at issue; "landing" only decides what readers see.

use super::hazard::{Hazard, HazardKind, Missing};
use super::machine::{Machine, Sync, Track};
use super::reg::{Reg, Src, GPRS};
use super::timing::{Reader, ALU_SLOTS, PRED_DELAY};

/// How a destination is produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Producer {
    /// cat1/2/3: fixed latency.
    Alu,
    /// cat4: lands after the given cycles, needs `(ss)`.
    Ss(u64),
    /// cat5/6: lands after the given cycles, needs `(sy)`.
    Sy(u64),
}

impl<const W: usize> Machine<'_, W> {
    #[cold]
    pub fn hazard(&mut self, kind: HazardKind, reg: Option<Reg>, producer: Option<u32>) {
        self.hazards.push(Hazard {
            kind,
            reg,
            producer,
            consumer: self.pc as u32,
            wave: self.wave,
        });
    }

    /// Value of const scalar `k`: uniform `k`, or 0 past the end.
    #[inline]
    pub fn constant(&self, k: u16) -> u32 {
        self.dispatch.uniforms.get(k as usize).copied().unwrap_or(0)
    }

    /// `src` for every fiber (only active fibers are checked). Operands are returned by
    /// value, straight into the caller's variable: an out-parameter had to be zeroed first.
    #[inline]
    pub fn read(&mut self, src: Src, how: Reader) -> [u32; W] {
        match src {
            Src::Imm(v) => [v; W],
            Src::Const(k) => [self.constant(k); W],
            Src::Reg(r) => self.read_reg(r, how),
        }
    }

    /// Register `r`, with old values where the latest write is not visible.
    #[inline]
    pub fn read_reg(&mut self, r: Reg, how: Reader) -> [u32; W] {
        let row = r.row();
        let m = self.mask;
        if self.written[row] & m != m {
            self.hazard(HazardKind::Uninitialized, Some(r), None);
        }
        let t = &self.track[row];
        if self.now < t.settle && t.lanes & m != 0 && self.now < t.vis[how as usize] {
            self.stale_read(r, how)
        } else {
            self.rows[self.cur(row)]
        }
    }

    /// A read that sees the old contents for the fibers of the pending write.
    #[cold]
    fn stale_read(&mut self, r: Reg, how: Reader) -> [u32; W] {
        let row = r.row();
        let t = self.track[row];
        let missing = match t.sync {
            Sync::Ss => Missing::Ss,
            Sync::Sy => Missing::Sy,
            Sync::None => Missing::Slots {
                needed: if r.is_pred() {
                    PRED_DELAY
                } else {
                    ALU_SLOTS[how as usize]
                } as u8,
                had: self.now.saturating_sub(t.issue + 1).min(255) as u8,
            },
        };
        self.hazard(HazardKind::ReadTooEarly(missing), Some(r), Some(t.producer));
        let (cur, old) = (&self.rows[self.cur(row)], &self.rows[self.old(row)]);
        std::array::from_fn(|i| {
            if (t.lanes >> i) & 1 != 0 {
                old[i]
            } else {
                cur[i]
            }
        })
    }

    /// Notes that the current async instruction reads `r` until cycle `until`.
    #[inline]
    pub fn note_late_read(&mut self, r: Reg, until: u64, sy_class: bool) {
        let (now, m, pc) = (self.now, self.mask, self.pc as u32);
        let (ss_e, sy_e) = (self.ss_epoch, self.sy_epoch);
        self.touch(r.row());
        let t = &mut self.track[r.row()];
        if war_open(t, now, ss_e, sy_e) {
            t.war_lanes |= m;
            t.war_until = t.war_until.max(until);
        } else {
            t.war_lanes = m;
            t.war_until = until;
        }
        t.war_reader = pc;
        t.war_sy = sy_class;
        t.war_ss_epoch = ss_e;
        t.war_sy_epoch = sy_e;
    }

    /// Records the hazards `write` found on `dst`, before it changes its record.
    #[cold]
    fn write_hazards(&mut self, dst: Reg, waw: bool, war: bool) {
        let t = self.track[dst.row()];
        if waw {
            let missing = if t.sync == Sync::Ss {
                Missing::Ss
            } else {
                Missing::Sy
            };
            self.hazard(
                HazardKind::WriteAfterWrite(missing),
                Some(dst),
                Some(t.producer),
            );
        }
        if war {
            self.hazard(
                HazardKind::WriteAfterRead(Missing::Ss),
                Some(dst),
                Some(t.war_reader),
            );
        }
    }

    /// Writes `val` to `dst` for the active fibers (predicates keep bit 0).
    #[inline]
    pub fn write(&mut self, dst: Reg, val: &[u32; W], p: Producer) {
        let row = dst.row();
        let (now, m) = (self.now, self.mask);
        let t = &self.track[row];
        let (mut vis, sync) = match p {
            Producer::Alu if row >= GPRS => ([now + 1 + PRED_DELAY; 3], Sync::None),
            Producer::Alu => (ALU_SLOTS.map(|s| now + 1 + s), Sync::None),
            Producer::Ss(lat) => ([now + lat; 3], Sync::Ss),
            Producer::Sy(lat) => ([now + lat; 3], Sync::Sy),
        };
        let lands = vis[0].max(vis[1]).max(vis[2]);
        let settled = now >= t.settle;
        let waw = !settled && t.sync != Sync::None && t.lanes & m != 0 && lands < t.settle;
        let war = t.war_lanes & m != 0 && war_open(t, now, self.ss_epoch, self.sy_epoch);
        if waw || war {
            self.write_hazards(dst, waw, war);
        }
        self.touch(row);
        let keep = if row >= GPRS { 1 } else { u32::MAX };
        let flip = self.flip[row] as usize;
        let [a, b] = &mut self.rows[2 * row..2 * row + 2] else {
            unreachable!("two slots per register")
        };
        let (cur, other) = if flip == 0 { (a, b) } else { (b, a) };
        // A group holding every live fiber may write the dead ones too (nothing reads them):
        // a copy rather than a blend.
        let whole = m == self.live;
        if settled {
            // The current contents become the old ones: the write goes to the other slot,
            // which takes the current contents for the fibers it leaves alone.
            self.flip[row] ^= 1;
            if whole {
                copy_kept(other, val, keep);
            } else {
                blend(other, cur, val, &self.active, keep);
            }
        } else if whole {
            copy_kept(cur, val, keep);
        } else {
            blend_in_place(cur, val, &self.active, keep);
        }
        self.written[row] |= m;
        let t = &mut self.track[row];
        // A write covering every pending fiber replaces the record; otherwise merge it.
        let pending = now < t.settle && t.lanes & !m != 0;
        if pending {
            t.lanes |= m;
            for (v, o) in vis.iter_mut().zip(t.vis) {
                *v = (*v).max(o);
            }
        } else {
            t.lanes = m;
        }
        t.vis = vis;
        t.settle = vis[0].max(vis[1]).max(vis[2]);
        t.issue = now;
        t.producer = self.pc as u32;
        t.sync = match sync {
            Sync::None if pending => t.sync,
            s => s,
        };
    }
}

/// `dst[i] = val[i] & keep` for every fiber.
#[inline]
fn copy_kept<const W: usize>(dst: &mut [u32; W], val: &[u32; W], keep: u32) {
    if keep == u32::MAX {
        *dst = *val;
    } else {
        for (d, &v) in dst.iter_mut().zip(val) {
            *d = v & keep;
        }
    }
}

/// `dst[i] = val[i] & keep` for the active fibers (`active[i]` all ones), `old[i]` for the
/// others: whole-row bit operations rather than a walk over the set bits of the mask.
#[inline]
fn blend<const W: usize>(
    dst: &mut [u32; W],
    old: &[u32; W],
    val: &[u32; W],
    active: &[u32; W],
    keep: u32,
) {
    for i in 0..W {
        dst[i] = merged(old[i], val[i], active[i], keep);
    }
}

/// [`blend`] with `old` the destination itself.
#[inline]
fn blend_in_place<const W: usize>(
    dst: &mut [u32; W],
    val: &[u32; W],
    active: &[u32; W],
    keep: u32,
) {
    for i in 0..W {
        dst[i] = merged(dst[i], val[i], active[i], keep);
    }
}

/// One fiber's word after a masked write: `val & keep` where `active` is all ones, `old`
/// where it is zero.
#[inline(always)]
fn merged(old: u32, val: u32, active: u32, keep: u32) -> u32 {
    (old & !active) | (val & keep & active)
}

/// Whether an async reader still has to read the register.
#[inline]
fn war_open(t: &Track, now: u64, ss_epoch: u32, sy_epoch: u32) -> bool {
    now < t.war_until && t.war_ss_epoch == ss_epoch && (!t.war_sy || t.war_sy_epoch == sy_epoch)
}
