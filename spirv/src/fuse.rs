//! Program fusion: several programs as one compute shader, so that one pipeline compile (on
//! lavapipe mostly LLVM's fixed cost per shader) judges them all.
//!
//! Program `k` is a function of its own, emitted exactly as it would be alone except for
//! where it finds its invocations and words ([`crate::emitter::Placement`]):
//!
//! * its invocations are a range of whole workgroups, after the previous program's: its
//!   invocation `i` is global invocation `first_invocation + i`; `main` switches on the
//!   workgroup id to call its function, whose prologue returns at once for the invocations
//!   of its last workgroup past its count;
//! * every storage role (outputs, uniforms, buffer `b`) is one binding shared by all programs,
//!   each program's part side by side in program order (its part starts at its offset, and is
//!   as long as it would be alone);
//! * textures keep a binding each, after the storage bindings, program by program.
//!
//! [`groups`] splits a batch into runs of programs that fit one shader together (the Vulkan
//! minimum of 16 sampled images per stage, the emitter's largest binding, the dispatch's
//! workgroup count); [`FusedModule::results`] reads one program's [`Results`] back.

use crate::emitter::Placement;
use crate::interface::{store, DecodeError, Interface, Resource, StorageRole};
use crate::{check_dispatch, EmitError, EmitOptions, MAX_BINDING_WORDS};
use compiler::ir::Program;
use sim::dispatch::{Dispatch, Results};
use std::ops::Range;

/// Most textures in one fused shader: Vulkan guarantees `maxPerStageDescriptorSamplers` and
/// `maxPerStageDescriptorSampledImages` of at least 16.
pub const MAX_FUSED_TEXTURES: usize = 16;

/// Most workgroups in one fused dispatch: Vulkan guarantees `maxComputeWorkGroupCount[0]` of
/// at least 65535.
pub const MAX_FUSED_WORKGROUPS: u64 = 65_535;

/// Several programs emitted as one shader, with where each one sits.
#[derive(Clone, Debug, PartialEq)]
pub struct FusedModule {
    /// The SPIR-V binary (entry point `main`).
    pub words: Vec<u32>,
    /// The bindings (each storage role once, holding every program's part) and the dispatch
    /// size (every program's workgroups).
    pub interface: Interface,
    /// Where each program sits, in program order.
    pub parts: Vec<Part>,
}

/// Where one program of a fused module sits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// Its first workgroup (its invocation 0 is that workgroup's first invocation).
    pub first_workgroup: u32,
    /// Per storage role it has words in: the role, where its part starts, and its length.
    pub storage: Vec<(StorageRole, u32, u32)>,
}

/// The storage roles of a set of dispatches, in binding order.
fn roles<'a>(dispatches: impl Iterator<Item = &'a Dispatch>) -> Vec<StorageRole> {
    let buffers = dispatches.map(|d| d.buffers.len()).max().unwrap_or(0);
    let mut roles = vec![StorageRole::Outputs, StorageRole::Uniforms];
    roles.extend((0..buffers as u32).map(StorageRole::Buffer));
    roles
}

/// The words a dispatch's part of a storage role holds.
fn part_words(d: &Dispatch, role: StorageRole) -> u64 {
    let n = u64::from(d.invocations);
    match role {
        StorageRole::Outputs => n * u64::from(d.outputs),
        StorageRole::Uniforms => d.uniforms.len() as u64,
        StorageRole::Buffer(b) => n * u64::from(d.buffers.get(b as usize).copied().unwrap_or(0)),
    }
}

/// Why these dispatches cannot share one shader of `local_size`, if they cannot.
fn misfit(dispatches: &[&Dispatch], local_size: u32) -> Option<String> {
    // Its workgroups are the shader's, of its own size: it goes alone.
    if dispatches.iter().any(|d| d.has_workgroups()) {
        return Some("a dispatch with workgroups of its own".into());
    }
    let textures: usize = dispatches.iter().map(|d| d.textures.len()).sum();
    if textures > MAX_FUSED_TEXTURES {
        return Some(format!("{textures} textures in one shader"));
    }
    let workgroups: u64 = dispatches
        .iter()
        .map(|d| u64::from(d.invocations.div_ceil(local_size.max(1))))
        .sum();
    if workgroups > MAX_FUSED_WORKGROUPS {
        return Some(format!("{workgroups} workgroups in one dispatch"));
    }
    for role in roles(dispatches.iter().copied()) {
        let words: u64 = dispatches.iter().map(|d| part_words(d, role)).sum();
        if words > MAX_BINDING_WORDS {
            return Some(format!("a storage binding of {words} words"));
        }
    }
    None
}

/// `dispatches` cut, in order, into runs of at most `most` that each fit one fused shader of
/// `local_size` (a dispatch too big to share a shader is a run of its own).
pub fn groups(dispatches: &[&Dispatch], most: usize, local_size: u32) -> Vec<Range<usize>> {
    let mut groups = Vec::new();
    let mut start = 0;
    for end in 1..=dispatches.len() {
        let full = end - start > most.max(1);
        // A dispatch that does not fit even alone still goes alone (the emitter says why).
        let closes = full || misfit(&dispatches[start..end], local_size).is_some();
        if closes && end - 1 > start {
            groups.push(start..end - 1);
            start = end - 1;
        }
    }
    if start < dispatches.len() {
        groups.push(start..dispatches.len());
    }
    groups
}

/// Emits `programs` as one shader. Every program must verify and the set must fit one shader
/// (see [`groups`]).
pub fn emit_fused(programs: &[&Program], options: &EmitOptions) -> Result<FusedModule, EmitError> {
    if programs.is_empty() {
        return Err(EmitError::Invalid("fusing no programs".into()));
    }
    if options.local_size == 0 {
        return Err(EmitError::Unsupported("a local size of 0".into()));
    }
    for p in programs {
        compiler::ir::verify(p).map_err(|e| EmitError::Invalid(e.to_string()))?;
        check_dispatch(&p.dispatch)?;
    }
    let dispatches: Vec<&Dispatch> = programs.iter().map(|p| &p.dispatch).collect();
    if let Some(why) = misfit(&dispatches, options.local_size) {
        return Err(EmitError::Unsupported(format!("fusing: {why}")));
    }
    let alone: Vec<Interface> = dispatches
        .iter()
        .map(|d| Interface::new(d, options.local_size))
        .collect();
    let mut bindings = Vec::new();
    let mut places = vec![Placement::default(); programs.len()];
    let mut parts: Vec<Part> = Vec::new();
    let mut workgroup = 0;
    for (interface, place) in alone.iter().zip(&mut places) {
        place.first_invocation = workgroup * options.local_size;
        parts.push(Part {
            first_workgroup: workgroup,
            storage: Vec::new(),
        });
        workgroup += interface.workgroups;
    }
    for role in roles(dispatches.iter().copied()) {
        let mut words = Vec::new();
        let binding = bindings.len() as u32;
        for (k, interface) in alone.iter().enumerate() {
            let Some(b) = interface.storage_binding(role) else {
                continue;
            };
            let Resource::Storage { words: part, .. } = &interface.bindings[b as usize].resource
            else {
                continue;
            };
            let offset = words.len() as u32;
            places[k].storage.push((role, binding, offset));
            parts[k].storage.push((role, offset, part.len() as u32));
            words.extend_from_slice(part);
        }
        if !words.is_empty() {
            bindings.push(crate::interface::Binding {
                binding,
                resource: Resource::Storage { role, words },
            });
        }
    }
    for (k, interface) in alone.iter().enumerate() {
        for b in &interface.bindings {
            if let Resource::Texture(t) = &b.resource {
                let binding = bindings.len() as u32;
                let slot = t.texture as usize;
                if places[k].textures.len() <= slot {
                    places[k].textures.resize(slot + 1, u32::MAX);
                }
                places[k].textures[slot] = binding;
                bindings.push(crate::interface::Binding {
                    binding,
                    resource: Resource::Texture(t.clone()),
                });
            }
        }
    }
    let interface = Interface {
        local_size: options.local_size,
        workgroups: workgroup,
        bindings,
        subgroups: None,
    };
    let ranges: Vec<Range<u32>> = parts
        .iter()
        .zip(&alone)
        .map(|(p, i)| p.first_workgroup..p.first_workgroup + i.workgroups)
        .collect();
    let words = crate::module::build_fused(programs, places, &ranges, &interface, options)?;
    Ok(FusedModule {
        words,
        interface,
        parts,
    })
}

impl FusedModule {
    /// Program `k`'s [`Results`] (its dispatch is `dispatch`) from the final words of every
    /// storage binding, in binding order (as [`Interface::results`] takes them).
    pub fn results(
        &self,
        k: usize,
        dispatch: &Dispatch,
        read_back: &[Vec<u32>],
    ) -> Result<Results, DecodeError> {
        let mut results = dispatch.initial_results();
        for (role, words) in self.interface.storage_read_back(read_back)? {
            if let Some(&(_, offset, len)) = self.parts[k].storage.iter().find(|(r, ..)| *r == role)
            {
                store(
                    &mut results,
                    role,
                    &words[offset as usize..(offset + len) as usize],
                );
            }
        }
        Ok(results)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use compiler::ir::text::parse_program;
    use sim::semantics::TextureDesc;

    fn dispatch(invocations: u32, textures: usize) -> Dispatch {
        Dispatch {
            invocations,
            outputs: 2,
            textures: vec![
                TextureDesc {
                    width: 2,
                    height: 2,
                    levels: 1,
                    layers: 1,
                };
                textures
            ],
            ..Dispatch::default()
        }
    }

    #[test]
    fn groups_respect_the_count_and_the_texture_limit() {
        let ds: Vec<Dispatch> = [0, 3, 3, 3, 3, 3, 3, 0, 0]
            .iter()
            .map(|&t| dispatch(8, t))
            .collect();
        let refs: Vec<&Dispatch> = ds.iter().collect();
        // 0+3+3+3+3+3 = 15 textures fit; the sixth program with textures would make 18.
        assert_eq!(groups(&refs, 8, 64), vec![0..6, 6..9]);
        assert_eq!(groups(&refs, 4, 64), vec![0..4, 4..8, 8..9]);
        assert_eq!(groups(&refs, 1, 64).len(), 9);
        let big = [dispatch(8, 17), dispatch(8, 0)];
        let refs: Vec<&Dispatch> = big.iter().collect();
        assert_eq!(groups(&refs, 8, 64), vec![0..1, 1..2]);
    }

    #[test]
    fn parts_sit_side_by_side_and_read_back_apart() {
        let a = parse_program(
            "invocations 3\noutputs 2\nbuffer 2\n\nblock_0:\n  vec1 32 ssa_0 = load_invocation_id\n  \
             store_output 0, ssa_0\n",
            "a",
        )
        .unwrap();
        let b = parse_program(
            "invocations 70\noutputs 1\nuniforms 0x00000005\n\nblock_0:\n  \
             vec1 32 ssa_0 = load_invocation_id\n  store_output 0, ssa_0\n",
            "b",
        )
        .unwrap();
        let m = emit_fused(&[&a, &b], &EmitOptions::default()).unwrap();
        if crate::validate::spirv_val(&m.words).is_err() {
            panic!("{}", crate::disassemble(&m.words).unwrap());
        }
        assert_eq!(m.interface.workgroups, 1 + 2);
        assert_eq!(m.parts[1].first_workgroup, 1);
        assert_eq!(
            m.parts[1].storage,
            vec![(StorageRole::Outputs, 6, 70), (StorageRole::Uniforms, 0, 1)]
        );
        // Outputs (6 + 70 words), uniforms (1), buffer 0 (6).
        let outputs: Vec<u32> = (0..76).collect();
        let read = vec![outputs, vec![5], (100..106).collect()];
        let ra = m.results(0, &a.dispatch, &read).unwrap();
        assert_eq!(ra.outputs, (0..6).collect::<Vec<_>>());
        assert_eq!(ra.buffers, vec![(100..106).collect::<Vec<_>>()]);
        let rb = m.results(1, &b.dispatch, &read).unwrap();
        assert_eq!(rb.outputs, (6..76).collect::<Vec<_>>());
        assert!(rb.buffers.is_empty());
    }
}
