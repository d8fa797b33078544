//! The data cache shared function: untyped (scattered) dword reads and writes of 1–4
//! channels per lane on buffers (per-invocation regions), the uniform file (read-only,
//! shared) and the output slots (write-only, per-invocation).
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

/// Untyped write of `channels` dwords per enabled lane.
pub(super) fn write(
    t: &Thread,
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
    // Where lane `i`'s word `a` goes: its workgroup's SLM word, unwrapped ([`Slm::word`]);
    // or its invocation's region, wrapped at the region's length.
    let size = slm.size;
    let (len, words) = match surface {
        Surface::Buffer(b) => (
            dispatch.buffers[b as usize],
            &mut results.buffers[b as usize],
        ),
        Surface::Output => (dispatch.outputs, &mut results.outputs),
        Surface::Shared => (slm.words, &mut slm.data),
        Surface::Uniform => return,
    };
    if len == 0 {
        return;
    }
    let addr = l.lane_params(t, 0);
    let mut data = [[0; 16]; 4];
    for (c, d) in data.iter_mut().enumerate().take(channels as usize) {
        *d = l.lane_params(t, 1 + c as u32);
    }
    // Enabled lanes only, in increasing order (`live` has no bit past the instruction's).
    let mut live = l.live;
    while live != 0 {
        let i = live.trailing_zeros();
        live &= live - 1;
        let inv = lanes.first_invocation.wrapping_add(i);
        if inv >= dispatch.invocations {
            continue;
        }
        let lane = i as usize % 16;
        for (c, d) in data.iter().enumerate().take(channels as usize) {
            let a = addr[lane].wrapping_add(c as u32);
            let at = match surface {
                Surface::Shared if a >= len => continue,
                Surface::Shared => (i / size) * len + a,
                _ => inv * len + a % len,
            };
            words[at as usize] = d[lane];
        }
    }
}
