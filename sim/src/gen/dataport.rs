//! The data cache shared function: untyped (scattered) dword reads and writes of 1–4
//! channels per lane on buffers (per-invocation regions), the uniform file (read-only,
//! shared) and the output slots (write-only, per-invocation), and one-dword atomics on
//! buffers and shared local memory.
//!
//! Addresses are per-lane word indices; component `c` of a lane is at
//! `address.wrapping_add(c) % len`, where `len` is the region length (buffer words per
//! invocation, uniform count, output slots). An empty region reads 0 and drops writes. A lane
//! whose invocation does not exist (only possible with NoMask) reads 0 from buffers and never
//! writes.
//!
//! Shared local memory is the exception: one region per workgroup (a thread holds whole
//! workgroups, so it is the thread's [`Slm`]), addressed by word without wrapping.

use super::layout::Layout;
use super::send::Surface;
use super::state::Thread;
use crate::dispatch::{Dispatch, Results};

/// Which lanes, and which invocation each is.
#[derive(Clone, Copy, Debug)]
pub(super) struct Lanes {
    /// Channels of the instruction.
    pub count: u32,
    /// Invocation of relative lane 0.
    pub first_invocation: u32,
}

/// The shared local memory of a thread's workgroups: workgroup `w` of the thread (lanes
/// `w * size ..`) holds `words` words from `w * words`, zeroed when the thread starts.
#[derive(Debug, Default)]
pub(super) struct Slm {
    pub words: u32,
    /// Invocations per workgroup.
    pub size: u32,
    pub data: Vec<u32>,
}

impl Slm {
    /// Sized for threads of `width` lanes of `dispatch`.
    pub fn new(dispatch: &Dispatch, width: u32) -> Slm {
        let words = dispatch.shared.iter().sum::<u32>();
        let size = dispatch.workgroup.max(1);
        Slm {
            words,
            size,
            data: vec![0; (words * width.div_ceil(size)) as usize],
        }
    }

    /// Where lane `lane`'s workgroup keeps word `address`, if it is inside.
    fn word(&self, lane: u32, address: u32) -> Option<usize> {
        (address < self.words).then(|| ((lane / self.size) * self.words + address) as usize)
    }
}

/// What the data port reaches: the dispatch's regions, the results, the thread's SLM.
pub(super) struct Memory<'a> {
    pub dispatch: &'a Dispatch,
    pub results: &'a mut Results,
    pub slm: &'a mut Slm,
}

/// Untyped read of `channels` dwords per enabled lane.
pub(super) fn read(
    t: &mut Thread,
    l: &Layout,
    lanes: Lanes,
    surface: Surface,
    channels: u32,
    memory: Memory,
) {
    let Memory {
        dispatch,
        results,
        slm,
    } = memory;
    for i in 0..lanes.count {
        if l.live >> i & 1 == 0 {
            continue;
        }
        let addr = l.param(t, 0, i);
        let inv = lanes.first_invocation.wrapping_add(i);
        for c in 0..channels {
            let a = addr.wrapping_add(c);
            let v = match surface {
                Surface::Uniform => {
                    let n = dispatch.uniforms.len() as u32;
                    if n == 0 {
                        0
                    } else {
                        dispatch.uniforms[(a % n) as usize]
                    }
                }
                Surface::Buffer(b) => {
                    let len = dispatch.buffers[b as usize];
                    if len == 0 || inv >= dispatch.invocations {
                        0
                    } else {
                        results.buffers[b as usize][(inv * len + a % len) as usize]
                    }
                }
                Surface::Output => 0,
                Surface::Shared => slm.word(i, a).map_or(0, |w| slm.data[w]),
            };
            l.respond(t, c, i, v);
        }
    }
}

/// The words a write or atomic to `surface` reaches and its region length (none for the
/// read-only uniforms).
fn writable<'m>(surface: Surface, memory: &'m mut Memory) -> Option<(u32, &'m mut [u32])> {
    Some(match surface {
        Surface::Buffer(b) => (
            memory.dispatch.buffers[b as usize],
            &mut memory.results.buffers[b as usize][..],
        ),
        Surface::Output => (memory.dispatch.outputs, &mut memory.results.outputs[..]),
        Surface::Shared => (memory.slm.words, &mut memory.slm.data[..]),
        Surface::Uniform => return None,
    })
}

/// Where lane `i` (of invocation `inv`) finds word `a` of a writable region of length `len`:
/// its workgroup's SLM word, unwrapped ([`Slm::word`]), or its invocation's region, wrapped.
fn place(surface: Surface, size: u32, len: u32, i: u32, inv: u32, a: u32) -> Option<usize> {
    match surface {
        Surface::Shared if a >= len => None,
        Surface::Shared => Some(((i / size) * len + a) as usize),
        _ => Some((inv * len + a % len) as usize),
    }
}

/// The enabled lanes in increasing order (`live` has no bit past the instruction's), with
/// their invocations, skipping lanes past the dispatch.
fn enabled(l: &Layout, lanes: Lanes, invocations: u32) -> impl Iterator<Item = (u32, u32)> {
    let mut live = l.live;
    std::iter::from_fn(move || {
        while live != 0 {
            let i = live.trailing_zeros();
            live &= live - 1;
            let inv = lanes.first_invocation.wrapping_add(i);
            if inv < invocations {
                return Some((i, inv));
            }
        }
        None
    })
}

/// Untyped write of `channels` dwords per enabled lane.
pub(super) fn write(
    t: &Thread,
    l: &Layout,
    lanes: Lanes,
    surface: Surface,
    channels: u32,
    mut memory: Memory,
) {
    let (size, invocations) = (memory.slm.size, memory.dispatch.invocations);
    let Some((len, words)) = writable(surface, &mut memory) else {
        return;
    };
    if len == 0 {
        return;
    }
    let addr = l.lane_params(t, 0);
    let mut data = [[0; 16]; 4];
    for (c, d) in data.iter_mut().enumerate().take(channels as usize) {
        *d = l.lane_params(t, 1 + c as u32);
    }
    for (i, inv) in enabled(l, lanes, invocations) {
        let lane = i as usize % 16;
        for (c, d) in data.iter().enumerate().take(channels as usize) {
            let a = addr[lane].wrapping_add(c as u32);
            if let Some(at) = place(surface, size, len, i, inv, a) {
                words[at] = d[lane];
            }
        }
    }
}

/// Untyped atomic: each enabled lane in increasing order responds with its word and stores
/// `op(old, data)`; a lane whose word does not exist responds 0.
pub(super) fn atomic(
    t: &mut Thread,
    l: &Layout,
    lanes: Lanes,
    surface: Surface,
    op: crate::semantics::AtomicOp,
    mut memory: Memory,
) {
    let (size, invocations) = (memory.slm.size, memory.dispatch.invocations);
    let Some((len, words)) = writable(surface, &mut memory) else {
        return;
    };
    let (addr, data) = (l.lane_params(t, 0), l.lane_params(t, 1));
    let mut old = [0; 16];
    if len != 0 {
        for (i, inv) in enabled(l, lanes, invocations) {
            let lane = i as usize % 16;
            if let Some(at) = place(surface, size, len, i, inv, addr[lane]) {
                old[lane] = words[at];
                words[at] = op.apply(words[at], data[lane]);
            }
        }
    }
    for i in 0..lanes.count {
        if l.live >> i & 1 != 0 {
            l.respond(t, 0, i, old[i as usize % 16]);
        }
    }
}
