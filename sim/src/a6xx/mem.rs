//! cat5 texture and cat6 memory instructions. Their results are computed at issue and land
//! after their latency (see [`super::timing`]); their sources count as read until then.
//!
//! Addresses are words: fiber `i` accesses word `(base[i] + offset + c)` for component `c`
//! (wrapping 32-bit arithmetic), then wraps per space — at the buffer's per-invocation length
//! (`g<b>`), at `dispatch.outputs` (`o`), at `uniforms.len()` (`c`; an empty file reads 0),
//! at `Config::private_words` (`p`; past the end is a hazard). An empty buffer or output
//! region reads 0 and drops stores.

use super::access::Producer;
use super::hazard::HazardKind;
use super::isa::{Addr, Space, TexOp};

/// The most parameters a cat5 instruction sends (a 3D `samgq.o`: 4 + 3 + 3 + 3).
pub const MAX_TEX_PARAMS: usize = 16;
use super::machine::Machine;
use super::reg::Reg;
use super::timing::{ldc_latency, Reader, MEM_LATENCY, TEX_LATENCY};
use crate::semantics::texture_result;

/// The fibers set in `m`, ascending, taken from one 64-bit half at a time (`u128` arithmetic
/// per fiber costs several instructions).
#[inline]
fn lanes(m: u128) -> impl Iterator<Item = usize> {
    let mut halves = [m as u64, (m >> 64) as u64];
    let mut k = 0;
    std::iter::from_fn(move || {
        while k < 2 {
            let h = &mut halves[k];
            if *h != 0 {
                let i = h.trailing_zeros() as usize;
                *h &= *h - 1;
                return Some(64 * k + i);
            }
            k += 1;
        }
        None
    })
}

impl<const W: usize> Machine<'_, W> {
    /// Reads the base address register (if any) of an async instruction.
    fn address(&mut self, addr: Addr) -> [u32; W] {
        let mut base = match addr.base {
            Some(r) => self.read_reg(r, Reader::Other),
            None => [0; W],
        };
        let off = addr.offset as u32;
        for b in base.iter_mut() {
            *b = b.wrapping_add(off);
        }
        base
    }

    /// Wraps private address `a`, recording a hazard past the end.
    fn private_index(&mut self, a: u32) -> u32 {
        let words = self.config.private_words.max(1);
        if a >= words {
            self.hazard(HazardKind::PrivateOutOfRange { address: a }, None, None);
        }
        a % words
    }

    /// The word every fiber accesses when there is no base register and the address (fiber
    /// 0's, `a`) needs no wrapping: spill slots. Worked out once, not per fiber.
    fn same_private_word(&self, addr: Addr, a: u32) -> Option<u32> {
        (addr.base.is_none() && a < self.config.private_words.max(1)).then_some(a)
    }

    /// Private word `a` of every active fiber (0 for the others), with a hazard per active
    /// fiber that never stored it.
    fn load_private_row(&mut self, a: u32) -> [u32; W] {
        let row = a as usize * W..(a as usize + 1) * W;
        let (vals, written) = (&self.private[row.clone()], &self.private_written[row]);
        let unwritten: usize = (0..W)
            .map(|i| (self.active[i] & !written[i] & 1) as usize)
            .sum();
        let out = std::array::from_fn(|i| vals[i] & self.active[i]);
        for _ in 0..unwritten {
            self.hazard(HazardKind::PrivateUninitialized { address: a }, None, None);
        }
        out
    }

    /// Stores `v` to private word `a` of every active fiber: a blend of one row.
    fn store_private_row(&mut self, a: u32, v: &[u32; W]) {
        let a = a as usize;
        if self.mask != 0 {
            self.private_high = self.private_high.max(a + 1);
        }
        let row = a * W..(a + 1) * W;
        let cells = self.private[row.clone()]
            .iter_mut()
            .zip(&mut self.private_written[row]);
        for ((p, w), (&x, &on)) in cells.zip(v.iter().zip(&self.active)) {
            *p = (*p & !on) | (x & on);
            *w |= on;
        }
    }

    /// `ldg`, `ldp`, `ldc`.
    pub fn load(&mut self, space: Space, dst: Reg, addr: Addr, count: u8) {
        let lat = match space {
            Space::Uniform => ldc_latency(count),
            _ => MEM_LATENCY,
        };
        let base = self.address(addr);
        let first = self.base as usize;
        // One loop over the fibers per space, each fiber at `inv = first + i`.
        for c in 0..count {
            let Some(d) = dst.add(c) else { return };
            let mut out = [0u32; W];
            let at = |i: usize| base[i].wrapping_add(c as u32);
            match space {
                Space::Global(b) => {
                    let len = self.dispatch.buffers[b as usize] as usize;
                    if len > 0 {
                        let buf = &self.results.buffers[b as usize];
                        for i in lanes(self.mask) {
                            out[i] = buf[(first + i) * len + at(i) as usize % len];
                        }
                    }
                }
                Space::Uniform => {
                    let u = &self.dispatch.uniforms;
                    if !u.is_empty() {
                        for i in lanes(self.mask) {
                            out[i] = u[at(i) as usize % u.len()];
                        }
                    }
                }
                Space::Private => match self.same_private_word(addr, at(0)) {
                    Some(a) => out = self.load_private_row(a),
                    None => {
                        for i in lanes(self.mask) {
                            let a = self.private_index(at(i));
                            let k = a as usize * W + i;
                            if self.private_written[k] == 0 {
                                self.hazard(
                                    HazardKind::PrivateUninitialized { address: a },
                                    None,
                                    None,
                                );
                            }
                            out[i] = self.private[k];
                        }
                    }
                },
                Space::Local => {
                    for i in lanes(self.mask) {
                        if let Some(k) = self.local_index(i, at(i)) {
                            out[i] = self.local[k];
                        }
                    }
                }
                Space::Output => {}
            }
            self.write(d, &out, Producer::Sy(lat));
        }
        if let Some(r) = addr.base {
            self.note_late_read(r, self.now + lat, true);
        }
    }

    /// `stg` (buffers and outputs), `stp`.
    pub fn store(&mut self, space: Space, addr: Addr, src: Reg, count: u8) {
        let until = self.now + MEM_LATENCY;
        let base = self.address(addr);
        if let Some(r) = addr.base {
            self.note_late_read(r, until, true);
        }
        let first = self.base as usize;
        for c in 0..count {
            let Some(s) = src.add(c) else { return };
            let v = self.read_reg(s, Reader::Other);
            self.note_late_read(s, until, true);
            let at = |i: usize| base[i].wrapping_add(c as u32);
            match space {
                Space::Global(b) => {
                    let len = self.dispatch.buffers[b as usize] as usize;
                    if len > 0 {
                        let buf = &mut self.results.buffers[b as usize];
                        for i in lanes(self.mask) {
                            buf[(first + i) * len + at(i) as usize % len] = v[i];
                        }
                    }
                }
                Space::Output => {
                    let len = self.dispatch.outputs as usize;
                    if len > 0 {
                        let outputs = &mut self.results.outputs;
                        let same = addr.base.is_none().then(|| at(0) as usize % len);
                        for i in lanes(self.mask) {
                            let k = same.unwrap_or_else(|| at(i) as usize % len);
                            outputs[(first + i) * len + k] = v[i];
                        }
                    }
                }
                Space::Private => match self.same_private_word(addr, at(0)) {
                    Some(a) => self.store_private_row(a, &v),
                    None => {
                        for i in lanes(self.mask) {
                            let a = self.private_index(at(i)) as usize;
                            self.private_high = self.private_high.max(a + 1);
                            let k = a * W + i;
                            self.private[k] = v[i];
                            self.private_written[k] = u32::MAX;
                        }
                    }
                },
                Space::Local => {
                    for i in lanes(self.mask) {
                        if let Some(k) = self.local_index(i, at(i)) {
                            self.local[k] = v[i];
                        }
                    }
                }
                Space::Uniform => {}
            }
        }
    }

    /// Where fiber `i`'s workgroup keeps local word `a`, if it is inside.
    fn local_index(&self, i: usize, a: u32) -> Option<usize> {
        let size = self.dispatch.workgroup.max(1) as usize;
        (a < self.local_words).then(|| i / size * self.local_words as usize + a as usize)
    }

    /// A cat5 texture instruction.
    pub fn texture(&mut self, op: TexOp, dst: Reg, wrmask: u8, src: Reg, params: u8, tex: u8) {
        let until = self.now + TEX_LATENCY;
        let mut p = [[0u32; W]; MAX_TEX_PARAMS];
        for (k, row) in p.iter_mut().enumerate().take(params as usize) {
            let Some(s) = src.add(k as u8) else { break };
            *row = self.read_reg(s, Reader::Other);
        }
        let desc = self.dispatch.textures[tex as usize];
        let mut out = [[0u32; W]; 4];
        for i in lanes(self.mask) {
            let lane: [u32; MAX_TEX_PARAMS] = std::array::from_fn(|k| p[k][i]);
            let t = texture_result(&desc, tex as u32, &op.request(&lane));
            for c in 0..4 {
                out[c][i] = t[c];
            }
        }
        for (c, row) in out.iter().enumerate() {
            if wrmask & (1 << c) != 0 {
                if let Some(d) = dst.add(c as u8) {
                    self.write(d, row, Producer::Sy(TEX_LATENCY));
                }
            }
        }
        for k in 0..params {
            if let Some(s) = src.add(k) {
                self.note_late_read(s, until, true);
            }
        }
    }
}
