//! The emitted shader's interface as plain data: what a runner binds in descriptor set 0,
//! with every initial word, and how the read-back words become [`Results`].
//!
//! Bindings are numbered in this order, each present only when it holds at least one word:
//! the outputs, the uniforms, buffer 0, 1, …, then texture 0, 1, …. Every storage binding is
//! an array of `u32` (`StorageBuffer`, `Block` struct with one runtime array, stride 4).
//! Outputs and buffers are invocation-major, like [`Results`]. A texture is a combined image
//! sampler over a 2D-array image of format `R32G32B32A32_UINT` with `levels` mips and
//! `layers` layers; level `l` is `max(1, width >> l)` × `max(1, height >> l)` texels and texel
//! (x, y) of (level, layer) holds [`sim::semantics::texel`]. The sampler is nearest/nearest
//! with repeat addressing, normalized coordinates, `minLod` 0 and `maxLod` ≥ `levels - 1`.
//!
//! Our textures may have more levels than Vulkan allows for their size (ours stop shrinking
//! at 1×1). Such an image is made wider — `width = max(width, 1 << (levels - 1))` — and each
//! of our levels sits in the top-left corner of the image's level, the rest zero; the shader
//! only ever addresses texels inside our level.

use crate::EmitError;
use compiler::ir::{Program, SubgroupOp};
use sim::dispatch::{Dispatch, Results};
use sim::semantics::{buffer_word, texel, TextureDesc};

/// Descriptor set 0 and the dispatch size of an emitted shader.
#[derive(Clone, Debug, PartialEq)]
pub struct Interface {
    /// Invocations per workgroup (the shader's `LocalSize` x).
    pub local_size: u32,
    /// Workgroups to dispatch in x (enough for every invocation; the rest return at once).
    pub workgroups: u32,
    /// The bindings, in binding order.
    pub bindings: Vec<Binding>,
    /// What the module's subgroup operations need of the pipeline, when it has any.
    pub subgroups: Option<SubgroupNeeds>,
}

/// One descriptor binding in set 0.
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    /// The binding number.
    pub binding: u32,
    /// What it holds.
    pub resource: Resource,
}

/// The resource behind a binding.
#[derive(Clone, Debug, PartialEq)]
pub enum Resource {
    /// A storage buffer of `u32` words, starting as `words`.
    Storage {
        /// Which part of the dispatch it holds.
        role: StorageRole,
        /// Initial contents (outputs are zero).
        words: Vec<u32>,
    },
    /// A combined image sampler.
    Texture(TextureData),
}

/// What a storage binding holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StorageRole {
    /// The output slots, invocation-major (written by the shader).
    Outputs,
    /// The uniform file (read only).
    Uniforms,
    /// Buffer `n`, invocation-major (read and written).
    Buffer(u32),
}

/// A texture's shape and texels.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureData {
    /// The texture number in the dispatch.
    pub texture: u32,
    /// The texture's shape in the IR.
    pub desc: TextureDesc,
    /// Width of the Vulkan image's level 0 (at least `desc.width`, see the module doc).
    pub width: u32,
    /// Height of the Vulkan image's level 0 (`desc.height`).
    pub height: u32,
    /// One entry per (level, layer), level-major: `subresources[level * layers + layer]` holds
    /// the image level's texels row by row, four `u32` words (R, G, B, A) each.
    pub subresources: Vec<Vec<u32>>,
}

/// Widest image emitted: Vulkan guarantees `maxImageDimension2D` ≥ 4096.
pub const MAX_IMAGE_WIDTH: u32 = 4096;

impl TextureData {
    /// The image as an executor of a driver's code reads it (`sim::image`).
    pub fn image(&self) -> sim::image::Image {
        sim::image::Image {
            width: self.width,
            height: self.height,
            levels: self.desc.levels,
            layers: self.desc.layers,
            texels: self.subresources.concat(),
        }
    }

    fn new(texture: u32, desc: TextureDesc) -> TextureData {
        let width = image_width(&desc);
        let image = TextureDesc { width, ..desc };
        let mut subresources = Vec::new();
        for level in 0..desc.levels {
            let (w, h) = desc.level_size(level);
            let (iw, ih) = image.level_size(level);
            for layer in 0..desc.layers {
                let mut words = vec![0; (iw * ih * 4) as usize];
                for y in 0..h {
                    for x in 0..w {
                        let at = ((y * iw + x) * 4) as usize;
                        words[at..at + 4].copy_from_slice(&texel(texture, [x, y, level, layer]));
                    }
                }
                subresources.push(words);
            }
        }
        TextureData {
            texture,
            desc,
            width,
            height: desc.height,
            subresources,
        }
    }

    /// The texels of one (level, layer).
    pub fn subresource(&self, level: u32, layer: u32) -> &[u32] {
        &self.subresources[(level * self.desc.layers + layer) as usize]
    }
}

/// Why read-back words do not fit the interface.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DecodeError {
    /// Not one word vector per storage binding.
    #[error("{got} read-back buffers for {want} storage bindings")]
    BindingCount {
        /// Storage bindings in the interface.
        want: usize,
        /// Vectors given.
        got: usize,
    },
    /// A read-back buffer of the wrong length.
    #[error("binding {binding}: {got} words read back, {want} expected")]
    Length {
        /// The binding.
        binding: u32,
        /// Its size in words.
        want: usize,
        /// Words given.
        got: usize,
    },
}

/// The width of the Vulkan image for a texture: wide enough for all its levels.
pub fn image_width(desc: &TextureDesc) -> u32 {
    let needed = 1u32
        .checked_shl(desc.levels.saturating_sub(1))
        .unwrap_or(u32::MAX);
    desc.width.max(needed)
}

impl Interface {
    /// The interface of a dispatch: every binding with its initial contents. A dispatch with
    /// workgroups takes its own workgroup size for `local_size`.
    pub fn new(dispatch: &Dispatch, local_size: u32) -> Interface {
        let local_size = if dispatch.has_workgroups() {
            dispatch.workgroup
        } else {
            local_size
        };
        let n = dispatch.invocations;
        let mut resources = Vec::new();
        let outputs = (n as usize) * (dispatch.outputs as usize);
        if outputs > 0 {
            resources.push(Resource::Storage {
                role: StorageRole::Outputs,
                words: vec![0; outputs],
            });
        }
        if !dispatch.uniforms.is_empty() {
            resources.push(Resource::Storage {
                role: StorageRole::Uniforms,
                words: dispatch.uniforms.clone(),
            });
        }
        for (b, &len) in dispatch.buffers.iter().enumerate() {
            let b = b as u32;
            if n > 0 && len > 0 {
                let words = (0..n)
                    .flat_map(|i| (0..len).map(move |k| buffer_word(b, i, k)))
                    .collect();
                resources.push(Resource::Storage {
                    role: StorageRole::Buffer(b),
                    words,
                });
            }
        }
        for (t, desc) in dispatch.textures.iter().enumerate() {
            resources.push(Resource::Texture(TextureData::new(t as u32, *desc)));
        }
        Interface {
            local_size,
            workgroups: n.div_ceil(local_size),
            bindings: resources
                .into_iter()
                .enumerate()
                .map(|(i, resource)| Binding {
                    binding: i as u32,
                    resource,
                })
                .collect(),
            subgroups: None,
        }
    }

    /// The binding of a storage role, if the dispatch has one.
    pub fn storage_binding(&self, role: StorageRole) -> Option<u32> {
        self.bindings.iter().find_map(|b| match &b.resource {
            Resource::Storage { role: r, .. } if *r == role => Some(b.binding),
            _ => None,
        })
    }

    /// The binding of texture `t`, if the dispatch has it.
    pub fn texture_binding(&self, t: u32) -> Option<u32> {
        self.bindings.iter().find_map(|b| match &b.resource {
            Resource::Texture(d) if d.texture == t => Some(b.binding),
            _ => None,
        })
    }

    /// The run's [`Results`] from the final words of every storage binding, in binding order
    /// (textures skipped). Outputs or buffers without a binding (no words) come out empty or
    /// zero-length exactly as [`Dispatch::initial_results`] makes them.
    pub fn results(
        &self,
        dispatch: &Dispatch,
        read_back: &[Vec<u32>],
    ) -> Result<Results, DecodeError> {
        let mut results = dispatch.initial_results();
        for (role, words) in self.storage_read_back(read_back)? {
            store(&mut results, role, words);
        }
        Ok(results)
    }

    /// Each storage binding's role with its final words (`read_back` is in binding order,
    /// textures skipped), checked against the binding's count and sizes.
    pub(crate) fn storage_read_back<'a>(
        &self,
        read_back: &'a [Vec<u32>],
    ) -> Result<Vec<(StorageRole, &'a [u32])>, DecodeError> {
        let storage: Vec<_> = self
            .bindings
            .iter()
            .filter_map(|b| match &b.resource {
                Resource::Storage { role, words } => Some((b.binding, *role, words.len())),
                Resource::Texture(_) => None,
            })
            .collect();
        if storage.len() != read_back.len() {
            return Err(DecodeError::BindingCount {
                want: storage.len(),
                got: read_back.len(),
            });
        }
        storage
            .into_iter()
            .zip(read_back)
            .map(|((binding, role, want), words)| {
                if words.len() == want {
                    Ok((role, words.as_slice()))
                } else {
                    Err(DecodeError::Length {
                        binding,
                        want,
                        got: words.len(),
                    })
                }
            })
            .collect()
    }
}

/// Puts a storage binding's final words where [`Results`] keeps that role (uniforms are
/// read-only and not part of the results).
pub(crate) fn store(results: &mut Results, role: StorageRole, words: &[u32]) {
    match role {
        StorageRole::Outputs => words.clone_into(&mut results.outputs),
        StorageRole::Buffer(b) => words.clone_into(&mut results.buffers[b as usize]),
        StorageRole::Uniforms => {}
    }
}

/// `VkSubgroupFeatureFlags` bits: what a device must support in compute shaders.
pub mod features {
    /// `BASIC`: elect and the subgroup built-ins.
    pub const BASIC: u32 = 0x1;
    /// `ARITHMETIC`: reductions and scans.
    pub const ARITHMETIC: u32 = 0x4;
    /// `BALLOT`: ballot and broadcast.
    pub const BALLOT: u32 = 0x8;
    /// `SHUFFLE`.
    pub const SHUFFLE: u32 = 0x10;
}

/// What a module with subgroup operations needs of its pipeline and device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubgroupNeeds {
    /// The subgroup size the pipeline requires (the workgroup size), with full subgroups.
    pub size: u32,
    /// The `VkSubgroupFeatureFlags` ([`features`]) its operations use.
    pub operations: u32,
}

/// What `program`'s subgroup operations need, when it has any; an error when its dispatch
/// has no workgroups (a subgroup of one invocation no device can be asked for).
pub fn subgroup_needs(program: &Program) -> Result<Option<SubgroupNeeds>, EmitError> {
    let mut operations = 0;
    for (_, inst) in program.func.insts_in_order() {
        if let compiler::ir::InstKind::Subgroup { op, .. } = program.func.insts[inst].kind {
            operations |= features::BASIC | feature(op);
        }
    }
    if operations == 0 {
        return Ok(None);
    }
    if !program.dispatch.has_workgroups() {
        return Err(EmitError::Unsupported(
            "subgroup operations without workgroups (a subgroup of one invocation)".into(),
        ));
    }
    Ok(Some(SubgroupNeeds {
        size: program.dispatch.workgroup,
        operations,
    }))
}

/// The feature bit an operation needs beyond `BASIC`.
fn feature(op: SubgroupOp) -> u32 {
    match op {
        SubgroupOp::Reduce(_) | SubgroupOp::InclusiveScan(_) | SubgroupOp::ExclusiveScan(_) => {
            features::ARITHMETIC
        }
        SubgroupOp::Ballot | SubgroupOp::BroadcastFirst => features::BALLOT,
        SubgroupOp::Shuffle => features::SHUFFLE,
        SubgroupOp::Elect => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dispatch() -> Dispatch {
        Dispatch {
            invocations: 3,
            outputs: 2,
            uniforms: vec![7, 8],
            buffers: vec![4, 0, 1],
            textures: vec![TextureDesc {
                width: 5,
                height: 2,
                levels: 3,
                layers: 2,
            }],
            ..Default::default()
        }
    }

    #[test]
    fn bindings_follow_the_documented_order_and_skip_empty_resources() {
        let d = dispatch();
        let i = Interface::new(&d, 64);
        assert_eq!(i.workgroups, 1);
        assert_eq!(i.storage_binding(StorageRole::Outputs), Some(0));
        assert_eq!(i.storage_binding(StorageRole::Uniforms), Some(1));
        assert_eq!(i.storage_binding(StorageRole::Buffer(0)), Some(2));
        assert_eq!(i.storage_binding(StorageRole::Buffer(1)), None);
        assert_eq!(i.storage_binding(StorageRole::Buffer(2)), Some(3));
        assert_eq!(i.texture_binding(0), Some(4));
        let initial = d.initial_results();
        let Resource::Storage { words, .. } = &i.bindings[2].resource else {
            panic!("buffer 0 is not a storage binding")
        };
        assert_eq!(words, &initial.buffers[0]);
        assert_eq!(Interface::new(&d, 2).workgroups, 2);
    }

    #[test]
    fn texels_are_the_simulators_texels_level_by_level() {
        let i = Interface::new(&dispatch(), 64);
        let Resource::Texture(t) = &i.bindings[4].resource else {
            panic!("binding 4 is not the texture")
        };
        assert_eq!(t.subresources.len(), 6);
        // Level 2 of a 5x2 texture is 1x1; level 1 is 2x1.
        assert_eq!(t.subresource(2, 1), texel(0, [0, 0, 2, 1]));
        assert_eq!(t.subresource(1, 0).len(), 2 * 4);
        assert_eq!(&t.subresource(0, 1)[4 * 6..4 * 7], texel(0, [1, 1, 0, 1]));
    }

    #[test]
    fn textures_with_more_levels_than_vulkan_allows_get_a_wider_image() {
        let desc = TextureDesc {
            width: 4,
            height: 7,
            levels: 5,
            layers: 1,
        };
        let d = Dispatch {
            textures: vec![desc],
            ..Dispatch::default()
        };
        let i = Interface::new(&d, 64);
        let Resource::Texture(t) = &i.bindings[0].resource else {
            panic!("binding 0 is not the texture")
        };
        assert_eq!((t.width, t.height), (16, 7));
        // Level 1 of ours is 2x3 inside the image's 8x3; the rest is zero.
        let level = t.subresource(1, 0);
        assert_eq!(level.len(), 8 * 3 * 4);
        assert_eq!(&level[4 * 9..4 * 10], texel(0, [1, 1, 1, 0]));
        assert_eq!(&level[4 * 10..4 * 11], [0; 4]);
        // Level 4: ours 1x1, the image's 1x1.
        assert_eq!(t.subresource(4, 0), texel(0, [0, 0, 4, 0]));
    }

    #[test]
    fn read_back_words_become_results() {
        let d = dispatch();
        let i = Interface::new(&d, 64);
        let outputs = vec![1, 2, 3, 4, 5, 6];
        let b0: Vec<u32> = (100..112).collect();
        let b2 = vec![9, 9, 9];
        let read = vec![outputs.clone(), vec![7, 8], b0.clone(), b2.clone()];
        let r = i.results(&d, &read).unwrap();
        assert_eq!(r.outputs, outputs);
        assert_eq!(r.buffers, vec![b0, vec![], b2]);
        assert_eq!(
            i.results(&d, &read[..3]),
            Err(DecodeError::BindingCount { want: 4, got: 3 })
        );
        let mut short = read.clone();
        short[2].pop();
        assert_eq!(
            i.results(&d, &short),
            Err(DecodeError::Length {
                binding: 2,
                want: 12,
                got: 11
            })
        );
    }
}
