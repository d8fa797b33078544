//! The sampler shared function (SFID 2) on a 2D-array image of 32-bit unsigned RGBA texels,
//! sampled with nearest filtering, nearest mip selection and repeat addressing — the one
//! image and sampler kind the SPIR-V emitter binds.
//!
//! Descriptor (Gfx9, `brw_eu_defines.h`): bits 18:17 SIMD mode (1 SIMD8, 2 SIMD16), 16:12
//! message type, 11:8 sampler, 7:0 surface. The payload is an optional header, then one
//! parameter per register (SIMD8) or register pair (SIMD16) in the message's order
//! (`sim::gen::sampler_params` for Gfx9, brw's `lower_sampler_logical_send`); parameters not
//! sent read as 0. The response holds the channels the header's mask (dword 2 bits 15:12)
//! leaves, or the first `rlen / regs` channels without a header.
//!
//! Modelled messages: `sample`, `sample_l`, `sample_lz`, `ld`, `ld_lz` and `resinfo`, each
//! answered by [`crate::image`]. Texel offsets in the header are not modelled.

pub use crate::image::Image;
use crate::image::Miss;

use super::{fault, unsupported, Stop};
use crate::gen::{sampler_params, Gen, SamplerHeader, SamplerOp, SamplerParam};

/// The message types modelled (`GFX5_SAMPLER_MESSAGE_*`, `GFX9_SAMPLER_MESSAGE_*`).
fn op(kind: u32) -> Result<SamplerOp, Stop> {
    Ok(match kind {
        0 => SamplerOp::Sample,
        2 => SamplerOp::SampleL,
        7 => SamplerOp::Ld,
        10 => SamplerOp::Resinfo,
        24 => SamplerOp::SampleLz,
        26 => SamplerOp::LdLz,
        k => return unsupported(format!("sampler message type {k}")),
    })
}

/// Per-lane answer of one sampler message: `payload` is the header (if `header`) and the
/// parameters; returns `channels × simd` response dwords (channel-major) and the SIMD width.
pub fn sample(
    desc: u32,
    header: bool,
    payload: &[u32],
    rlen: usize,
    lanes: u32,
    image: &Image,
) -> Result<(Vec<u32>, usize), Stop> {
    let simd = match desc >> 17 & 3 {
        1 => 8,
        2 => 16,
        m => return unsupported(format!("sampler SIMD mode {m}")),
    };
    let op = op(desc >> 12 & 0x1f)?;
    let regs = simd / 8;
    let (h, params) = if header {
        let h = SamplerHeader::decode(payload[2]);
        if h.offset != [0; 3] {
            return unsupported("sampler texel offsets");
        }
        (Some(h), &payload[8..])
    } else {
        (None, payload)
    };
    let channels: Vec<usize> = match h {
        Some(h) => (0..4).filter(|c| h.mask >> c & 1 == 0).collect(),
        None => (0..(rlen / regs).min(4)).collect(),
    };
    if channels.len() * regs != rlen {
        return fault(format!(
            "sampler rlen {rlen} for {} channels",
            channels.len()
        ));
    }
    let order = sampler_params(op, Gen::Gen9);
    let sent = params.len() / (8 * regs);
    if sent > order.len() {
        return fault(format!(
            "{sent} sampler parameters, {} at most",
            order.len()
        ));
    }
    let mut words = vec![0; channels.len() * simd];
    for lane in (0..simd).filter(|i| lanes >> i & 1 == 1) {
        let p = |name: SamplerParam| {
            order[..sent]
                .iter()
                .position(|&q| q == name)
                .map_or(0, |k| params[k * simd + lane])
        };
        let v = lookup(op, image, &p)?;
        for (k, &c) in channels.iter().enumerate() {
            words[k * simd + lane] = v[c];
        }
    }
    Ok((words, simd))
}

fn lookup(op: SamplerOp, image: &Image, p: &dyn Fn(SamplerParam) -> u32) -> Result<[u32; 4], Stop> {
    use SamplerParam::*;
    let f = |name| f32::from_bits(p(name));
    let answer = match op {
        SamplerOp::Resinfo => image.size(p(Lod)),
        SamplerOp::Ld => image.fetch(p(U), p(V), p(Lod), p(R)),
        SamplerOp::LdLz => image.fetch(p(U), p(V), 0, p(R)),
        SamplerOp::SampleL => image.sample(f(U), f(V), f(Lod), f(R)),
        _ => image.sample(f(U), f(V), 0.0, f(R)),
    };
    answer.or_else(|miss| match miss {
        Miss::Unmodelled(why) => unsupported(why),
        Miss::Outside(why) => fault(why),
    })
}
