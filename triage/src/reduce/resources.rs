//! Declarations no instruction uses — buffers, textures, shared arrays, local variables —
//! dropped from a program, the rest renumbered in order (the `unused-resources` pass).

use compiler::ir::{InstKind, Program};
use cranelift_entity::{EntityRef, PrimaryMap};

/// A kind of numbered dispatch resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resource {
    /// A storage buffer (`load_buffer`, `store_buffer`).
    Buffer,
    /// A texture (`tex`, `txf`, `txs`).
    Texture,
    /// A shared array (`load_shared`, `store_shared`).
    Shared,
}

/// The number of the `which` resource `kind` names, if it names one.
fn number(kind: &mut InstKind, which: Resource) -> Option<&mut u32> {
    match (which, kind) {
        (
            Resource::Buffer,
            InstKind::LoadBuffer { buffer, .. }
            | InstKind::StoreBuffer { buffer, .. }
            | InstKind::AtomicBuffer { buffer, .. },
        ) => Some(buffer),
        (
            Resource::Texture,
            InstKind::Tex { texture, .. }
            | InstKind::Txf { texture, .. }
            | InstKind::Txs { texture, .. },
        ) => Some(texture),
        (
            Resource::Shared,
            InstKind::LoadShared { shared, .. }
            | InstKind::StoreShared { shared, .. }
            | InstKind::AtomicShared { shared, .. },
        ) => Some(shared),
        _ => None,
    }
}

/// Drops the buffers or textures no placed instruction names and renumbers the rest in
/// order; whether any went.
pub fn drop_unused(p: &mut Program, which: Resource) -> bool {
    let declared = match which {
        Resource::Buffer => p.dispatch.buffers.len(),
        Resource::Texture => p.dispatch.textures.len(),
        Resource::Shared => p.dispatch.shared.len(),
    };
    let mut used = vec![false; declared];
    for (_, i) in p.func.insts_in_order() {
        if let Some(n) = number(&mut p.func.insts[i].kind, which) {
            if let Some(u) = used.get_mut(*n as usize) {
                *u = true;
            }
        }
    }
    if used.iter().all(|&u| u) {
        return false;
    }
    let renumbered: Vec<u32> = used
        .iter()
        .scan(0, |next, &u| {
            let n = *next;
            *next += u as u32;
            Some(n)
        })
        .collect();
    for inst in p.func.insts.values_mut() {
        if let Some(n) = number(&mut inst.kind, which) {
            if let Some(&m) = renumbered.get(*n as usize) {
                *n = m;
            }
        }
    }
    let mut keep = used.iter();
    match which {
        Resource::Buffer => p.dispatch.buffers.retain(|_| *keep.next().unwrap_or(&true)),
        Resource::Texture => p
            .dispatch
            .textures
            .retain(|_| *keep.next().unwrap_or(&true)),
        Resource::Shared => p.dispatch.shared.retain(|_| *keep.next().unwrap_or(&true)),
    }
    true
}

/// Drops the local variables no placed `deref_var` names and renumbers the rest in order;
/// whether any went.
pub fn drop_unused_vars(p: &mut Program) -> bool {
    let f = &mut p.func;
    let mut used = vec![false; f.vars.len()];
    for (_, i) in f.insts_in_order() {
        if let InstKind::DerefVar { var } = f.insts[i].kind {
            used[var.index()] = true;
        }
    }
    if used.iter().all(|&u| u) {
        return false;
    }
    let mut vars = PrimaryMap::new();
    let renumbered: Vec<_> = f
        .vars
        .iter()
        .map(|(v, ty)| used[v.index()].then(|| vars.push(ty.clone())))
        .collect();
    for inst in f.insts.values_mut() {
        if let InstKind::DerefVar { var } = &mut inst.kind {
            if let Some(&Some(n)) = renumbered.get(var.index()) {
                *var = n;
            }
        }
    }
    f.vars = vars;
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use compiler::ir::{parse_program, print_program, verify};

    #[test]
    fn unused_textures_buffers_and_variables_go_and_the_rest_are_renumbered() {
        let src = "invocations 1\noutputs 1\nbuffer 4\nbuffer 8\ntexture 4x4 levels 1 layers 1\n\
                   texture 8x8 levels 1 layers 1\nvar_0: vec1[2]\nvar_1: vec1[3]\n\n\
                   block_0:\n  vec1 32 ssa_0 = load_const (0x00000000)\n  \
                   vec2 32 ssa_1 = load_const (0x00000000, 0x00000000)\n  \
                   vec4 32 ssa_2 = tex 1, ssa_1\n  vec1 32 ssa_3 = load_buffer 1, ssa_0\n  \
                   deref ssa_4 = deref_var var_1\n  deref ssa_6 = deref_array ssa_4[ssa_0]\n  \
                   vec1 32 ssa_5 = load_deref ssa_6\n  \
                   store_output 0, ssa_5\n  store_output 0, ssa_3\n  store_output 0, ssa_2\n";
        let mut p = parse_program(src, "t.ir").expect("parses");
        assert!(drop_unused(&mut p, Resource::Texture));
        assert!(drop_unused(&mut p, Resource::Buffer));
        assert!(drop_unused_vars(&mut p));
        assert!(!drop_unused(&mut p, Resource::Texture) && !drop_unused_vars(&mut p));
        verify(&p).expect("still valid");
        assert_eq!(p.dispatch.textures.len(), 1);
        assert_eq!(p.dispatch.textures[0].width, 8);
        assert_eq!(p.dispatch.buffers, [8]);
        let text = print_program(&p);
        for want in [
            "tex 0, ssa_1",
            "load_buffer 0, ssa_0",
            "deref_var var_0",
            "var_0: vec1[3]",
        ] {
            assert!(text.contains(want), "{want}: {text}");
        }
    }
}
