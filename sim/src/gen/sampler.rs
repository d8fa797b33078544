//! The sampler shared function: `sample`, `sample_l`, `sample_b`, `ld` (Gen7 and Gen9
//! parameter orders) and Gen9 `ld_lz`, through `semantics::sample_coords`, `fetch_coords`
//! and `texel`, so texels agree with the interpreter.

use super::isa::Gen;
use super::payload::Layout;
use super::send::SamplerOp;
use super::state::Thread;
use crate::semantics::{fetch_coords, sample_coords, texel, TextureDesc};

/// Run a sampler message for the enabled lanes of `l`, returning `channels` channels.
pub(super) fn execute(
    t: &mut Thread,
    l: &Layout,
    gen: Gen,
    op: SamplerOp,
    texture: u32,
    desc: &TextureDesc,
    channels: u32,
) {
    for i in 0..l.lanes {
        if l.live >> i & 1 == 0 {
            continue;
        }
        let p = |k: u32| l.param(t, k, i);
        let coords = match op {
            SamplerOp::Sample => sample_coords(desc, p(0), p(1), 0, 0, p(2)),
            SamplerOp::SampleL => sample_coords(desc, p(1), p(2), p(0), 0, p(3)),
            SamplerOp::SampleB => sample_coords(desc, p(1), p(2), 0, p(0), p(3)),
            SamplerOp::Ld => match gen {
                Gen::Gen7 => fetch_coords(desc, p(0), p(2), p(1), p(3)),
                Gen::Gen9 => fetch_coords(desc, p(0), p(1), p(2), p(3)),
            },
            SamplerOp::LdLz => fetch_coords(desc, p(0), p(1), 0, p(2)),
        };
        let v = texel(texture, coords);
        for (c, &x) in v.iter().enumerate().take(channels as usize) {
            l.respond(t, c as u32, i, x);
        }
    }
}
