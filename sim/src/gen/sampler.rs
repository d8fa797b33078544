//! The sampler shared function: every [`SamplerOp`] in its generation's parameter order
//! ([`sampler_params`]), decoded into a `semantics::TexRequest` and answered by
//! `semantics::texture_result`, so results agree with the interpreter.
//!
//! Header dword 2 (when a header is sent) carries the texel offsets (bits 11:8 u, 7:4 v,
//! 3:0 r, each a 4-bit two's-complement number), the channel mask (bits 15:12, a set bit
//! suppresses that response channel) and gather4's component (bits 17:16).

use super::isa::Gen;
use super::layout::Layout;
use super::send::{sampler_params, SamplerOp, SamplerParam};
use super::state::Thread;
use crate::semantics::{texture_result, TexAccess, TexDim, TexRequest, TextureDesc};

/// What a sampler message's header dword 2 says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SamplerHeader {
    /// Texel offsets (u, v, r).
    pub offset: [i8; 3],
    /// Response channels suppressed (bit c = channel c).
    pub mask: u8,
    /// Gather component.
    pub component: u8,
}

impl SamplerHeader {
    /// Decodes header dword 2.
    pub fn decode(dw2: u32) -> SamplerHeader {
        let nibble = |shift: u32| (((dw2 >> shift) & 0xf) as i8) << 4 >> 4;
        SamplerHeader {
            offset: [nibble(8), nibble(4), nibble(0)],
            mask: ((dw2 >> 12) & 0xf) as u8,
            component: ((dw2 >> 16) & 3) as u8,
        }
    }

    /// Encodes header dword 2 (offsets outside −8..=7 keep their low 4 bits).
    pub fn encode(&self) -> u32 {
        let o = |i: usize, shift: u32| ((self.offset[i] as u32) & 0xf) << shift;
        o(0, 8)
            | o(1, 4)
            | o(2, 0)
            | u32::from(self.mask & 0xf) << 12
            | u32::from(self.component & 3) << 16
    }
}

/// The response channels a message with header `h` (if any) and `rlen / P = channels`
/// writes, in response order.
pub fn response_channels(header: Option<SamplerHeader>, channels: u32) -> Vec<u32> {
    match header {
        Some(h) => (0..4).filter(|c| h.mask >> c & 1 == 0).collect(),
        None => (0..channels.min(4)).collect(),
    }
}

/// Run a sampler message for the enabled lanes of `l`, writing `channels` response channels.
#[allow(clippy::too_many_arguments)]
pub(super) fn execute(
    t: &mut Thread,
    l: &Layout,
    gen: Gen,
    op: SamplerOp,
    dim: TexDim,
    texture: u32,
    desc: &TextureDesc,
    header: Option<SamplerHeader>,
    channels: u32,
) {
    let order = sampler_params(op, gen);
    let h = header.unwrap_or_default();
    let out = response_channels(header, channels);
    for i in 0..l.lanes {
        if l.live >> i & 1 == 0 {
            continue;
        }
        let mut get = [0u32; 13];
        for (k, &p) in order.iter().enumerate() {
            get[p as usize] = l.param(t, k as u32, i);
        }
        let q = request(op, dim, &h, |p| get[p as usize]);
        let v = texture_result(desc, texture, &q);
        for (slot, &c) in out.iter().enumerate().take(channels as usize) {
            l.respond(t, slot as u32, i, v[c as usize]);
        }
    }
}

/// The request a message makes, from its parameters by name (unsent ones read 0).
fn request(
    op: SamplerOp,
    dim: TexDim,
    h: &SamplerHeader,
    p: impl Fn(SamplerParam) -> u32,
) -> TexRequest {
    use SamplerParam::*;
    let access = match op {
        SamplerOp::Ld | SamplerOp::LdLz => TexAccess::Fetch,
        SamplerOp::Gather4 | SamplerOp::Gather4C => TexAccess::Gather(h.component),
        SamplerOp::Resinfo => TexAccess::Size,
        _ => TexAccess::Sample,
    };
    // The array index takes the slot after the last coordinate: v for 1D, r for 2D.
    let (coord, layer) = match dim {
        TexDim::D1 => ([p(U), 0, 0], p(V)),
        TexDim::D2 => ([p(U), p(V), 0], p(R)),
        TexDim::D3 | TexDim::Cube => ([p(U), p(V), p(R)], 0),
    };
    let compare = matches!(
        op,
        SamplerOp::SampleC
            | SamplerOp::SampleBC
            | SamplerOp::SampleLC
            | SamplerOp::SampleCLz
            | SamplerOp::SampleDC
            | SamplerOp::Gather4C
    )
    .then(|| p(Ref));
    let grad = matches!(op, SamplerOp::SampleD | SamplerOp::SampleDC)
        .then(|| ([p(Dudx), p(Dvdx), p(Drdx)], [p(Dudy), p(Dvdy), p(Drdy)]));
    TexRequest {
        access,
        dim,
        coord,
        lod: p(Lod),
        bias: p(Bias),
        layer,
        compare,
        grad,
        offset: h.offset,
    }
}
