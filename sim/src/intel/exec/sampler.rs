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
//! Modelled messages: `sample`, `sample_l`, `sample_lz` (float coordinates; level
//! `round(lod)` clamped to the mips; texel `floor(u · width)` wrapped), `ld` and `ld_lz`
//! (integer coordinates; outside the level is a fault, since the emitter wraps and clamps
//! every fetch) and `resinfo` (level size, layers, mip count). Texel offsets in the header
//! are not modelled.

use super::{fault, unsupported, Stop};
use crate::gen::{sampler_params, Gen, SamplerHeader, SamplerOp, SamplerParam};

/// A bound image: `levels` mips of `layers` layers, four words a texel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Width of level 0.
    pub width: u32,
    /// Height of level 0.
    pub height: u32,
    /// Mip levels.
    pub levels: u32,
    /// Array layers.
    pub layers: u32,
    /// Level-major, then layer, then row, then column; four words a texel.
    pub texels: Vec<u32>,
}

impl Image {
    fn level_size(&self, level: u32) -> (u32, u32) {
        ((self.width >> level).max(1), (self.height >> level).max(1))
    }

    /// The texel at (x, y) of (level, layer), all in range.
    fn texel(&self, x: u32, y: u32, level: u32, layer: u32) -> [u32; 4] {
        let mut at = 0usize;
        for l in 0..level {
            let (w, h) = self.level_size(l);
            at += (w * h * 4 * self.layers) as usize;
        }
        let (w, h) = self.level_size(level);
        at += ((layer * h + y) * w + x) as usize * 4;
        self.texels[at..at + 4].try_into().expect("4 words")
    }
}

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
    match op {
        SamplerOp::Resinfo => {
            let lod = p(Lod);
            if lod >= image.levels {
                return unsupported("resinfo of a level past the last");
            }
            let (w, h) = image.level_size(lod);
            Ok([w, h, image.layers, image.levels])
        }
        SamplerOp::Ld | SamplerOp::LdLz => {
            let (x, y, layer) = (p(U), p(V), p(R));
            let lod = if op == SamplerOp::Ld { p(Lod) } else { 0 };
            if lod >= image.levels || layer >= image.layers {
                return fault(format!(
                    "ld of level {lod} layer {layer}, outside the image"
                ));
            }
            let (w, h) = image.level_size(lod);
            if x >= w || y >= h {
                return fault(format!("ld of texel ({x}, {y}) outside its {w}×{h} level"));
            }
            Ok(image.texel(x, y, lod, layer))
        }
        _ => {
            let f = |name| f32::from_bits(p(name));
            let lod = if op == SamplerOp::SampleL {
                f(Lod)
            } else {
                0.0
            };
            if !lod.is_finite() || lod.fract() != 0.0 {
                return unsupported("sampling at a level that is not a whole number");
            }
            let level = (lod.max(0.0) as u32).min(image.levels - 1);
            let (w, h) = image.level_size(level);
            let nearest = |c: f32, size: u32| -> Result<u32, Stop> {
                if !c.is_finite() {
                    return unsupported("sampling at a coordinate that is not finite");
                }
                let t = (c as f64 * size as f64).floor() as i64;
                Ok(t.rem_euclid(size as i64) as u32)
            };
            let layer = f(R);
            if !layer.is_finite() {
                return unsupported("sampling a layer that is not finite");
            }
            let layer = (layer.round_ties_even().max(0.0) as u32).min(image.layers - 1);
            Ok(image.texel(nearest(f(U), w)?, nearest(f(V), h)?, level, layer))
        }
    }
}
