//! The one image and sampler kind the SPIR-V emitter binds (`spirv_emit::interface`): a
//! 2D-array image of 32-bit unsigned RGBA texels, sampled with nearest filtering, nearest mip
//! selection, repeat addressing and normalized coordinates. Every executor of a real
//! driver's code (brw's sampler messages, ir3's cat5) reads textures through it.

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

/// Why a lookup has no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Miss {
    /// A request the model does not answer (a skip for the caller).
    Unmodelled(String),
    /// An integer fetch outside the image: the emitter wraps and clamps every fetch, so a
    /// program never does it (a fault for the caller).
    Outside(String),
}

impl Image {
    /// The size of level `level`.
    pub fn level_size(&self, level: u32) -> (u32, u32) {
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

    /// A size query of level `lod`: `(width, height, layers, levels)`.
    pub fn size(&self, lod: u32) -> Result<[u32; 4], Miss> {
        if lod >= self.levels {
            return Err(Miss::Unmodelled(
                "a size query of a level past the last".into(),
            ));
        }
        let (w, h) = self.level_size(lod);
        Ok([w, h, self.layers, self.levels])
    }

    /// An integer fetch of texel (x, y) of (lod, layer).
    pub fn fetch(&self, x: u32, y: u32, lod: u32, layer: u32) -> Result<[u32; 4], Miss> {
        if lod >= self.levels || layer >= self.layers {
            return Err(Miss::Outside(format!(
                "a fetch of level {lod} layer {layer}, outside the image"
            )));
        }
        let (w, h) = self.level_size(lod);
        if x >= w || y >= h {
            return Err(Miss::Outside(format!(
                "a fetch of texel ({x}, {y}) outside its {w}×{h} level"
            )));
        }
        Ok(self.texel(x, y, lod, layer))
    }

    /// A float sample at (u, v) of `layer` at level `lod` (a whole number): the nearest
    /// texel, wrapped; the layer rounded to even and clamped.
    pub fn sample(&self, u: f32, v: f32, lod: f32, layer: f32) -> Result<[u32; 4], Miss> {
        if !lod.is_finite() || lod.fract() != 0.0 {
            return Err(Miss::Unmodelled(
                "sampling at a level that is not a whole number".into(),
            ));
        }
        let level = (lod.max(0.0) as u32).min(self.levels - 1);
        let (w, h) = self.level_size(level);
        let nearest = |c: f32, size: u32| -> Result<u32, Miss> {
            if !c.is_finite() {
                return Err(Miss::Unmodelled(
                    "sampling at a coordinate that is not finite".into(),
                ));
            }
            let t = (c as f64 * size as f64).floor() as i64;
            Ok(t.rem_euclid(size as i64) as u32)
        };
        if !layer.is_finite() {
            return Err(Miss::Unmodelled(
                "sampling a layer that is not finite".into(),
            ));
        }
        let layer = (layer.round_ties_even().max(0.0) as u32).min(self.layers - 1);
        Ok(self.texel(nearest(u, w)?, nearest(v, h)?, level, layer))
    }
}
