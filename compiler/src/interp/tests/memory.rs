//! Uniforms, buffers, outputs, textures, local variables and registers: each with its wrapping
//! rule, expected values computed by hand or with the `sim::semantics` functions directly.

use super::*;
use crate::ir::{TexParams, VarType};
use sim::semantics::{buffer_word, fetch_coords, sample_coords, texel, TextureDesc};

fn store(b: &mut Builder, slot: u32, value: crate::ir::Value) {
    b.ins(InstKind::StoreOutput { slot, value }, Type::None);
}

#[test]
fn uniforms_and_outputs_wrap() {
    let mut b = Builder::new();
    let two = b.iconst(2);
    let max = b.iconst(u32::MAX);
    let u4 = b
        .ins(InstKind::LoadUniform { index: two }, Type::vec32(4))
        .unwrap();
    let u3 = b
        .ins(InstKind::LoadUniform { index: max }, Type::vec32(3))
        .unwrap();
    store(&mut b, 4, u4); // slots 4, 5, 0, 1
    store(&mut b, 2, u3); // slots 2, 3, 4
    let mut p = prog(b.finish(), 1, 6);
    p.dispatch.uniforms = vec![10, 20, 30];
    let out = run(&p, &RunOptions::default()).unwrap().outputs;
    // u4 = uniforms[2, 0, 1, 2]; u3 = uniforms[MAX % 3 = 0, (MAX + 1) wraps to 0, 1].
    assert_eq!(out, vec![20, 30, 10, 10, 20, 10]);
    p.dispatch.uniforms.clear();
    let out = run(&p, &RunOptions::default()).unwrap().outputs;
    assert_eq!(out, vec![0; 6], "an empty uniform file reads 0");
    p.dispatch.outputs = 0;
    assert!(run(&p, &RunOptions::default()).unwrap().outputs.is_empty());
}

#[test]
fn buffers_load_and_store_with_wrapping() {
    let mut b = Builder::new();
    let id = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let three = b.iconst(3);
    let six = b.iconst(6);
    let four = b.iconst(4);
    let seven = b.iconst(7);
    let eight = b.iconst(8);
    let loaded = b
        .ins(
            InstKind::LoadBuffer {
                buffer: 0,
                index: three,
            },
            Type::vec32(2),
        )
        .unwrap();
    let w = b.vec(&[id, seven, eight]);
    b.ins(
        InstKind::StoreBuffer {
            buffer: 0,
            index: six,
            value: w,
        },
        Type::None,
    );
    let again = b
        .ins(
            InstKind::LoadBuffer {
                buffer: 0,
                index: four,
            },
            Type::I32,
        )
        .unwrap();
    let empty = b
        .ins(
            InstKind::LoadBuffer {
                buffer: 1,
                index: id,
            },
            Type::I32,
        )
        .unwrap();
    b.ins(
        InstKind::StoreBuffer {
            buffer: 1,
            index: id,
            value: w,
        },
        Type::None,
    );
    store(&mut b, 0, loaded);
    store(&mut b, 2, again);
    store(&mut b, 3, empty);
    let mut p = prog(b.finish(), 2, 4);
    p.dispatch.buffers = vec![4, 0];
    let res = run(&p, &RunOptions::default()).unwrap();
    let bw = |i, k| buffer_word(0, i, k);
    // Loads words 3 and 0; stores words 6 % 4 = 2, 3, 0; reads word 4 % 4 = 0 back.
    assert_eq!(
        res.outputs,
        vec![bw(0, 3), bw(0, 0), 8, 0, bw(1, 3), bw(1, 0), 8, 0]
    );
    assert_eq!(res.buffers[0], vec![8, bw(0, 1), 0, 7, 8, bw(1, 1), 1, 7]);
    assert!(
        res.buffers[1].is_empty(),
        "a 0-word buffer reads 0 and drops stores"
    );
}

fn textures() -> Vec<TextureDesc> {
    let t0 = TextureDesc {
        width: 8,
        height: 4,
        levels: 3,
        layers: 2,
    };
    let t1 = TextureDesc {
        width: 5,
        height: 5,
        levels: 1,
        layers: 1,
    };
    vec![t0, t1]
}

#[test]
fn txf_with_zero_lod_equals_txf_without_lod() {
    let mut b = Builder::new();
    let id = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let five = b.iconst(5);
    let x = b.alu(AluOp::Iadd, &[id, five]);
    let y = b.iconst(u32::MAX); // -1: wraps to the last row
    let coord = b.vec(&[x, y]);
    let zero = b.iconst(0);
    let one = b.iconst(1);
    let txf = |b: &mut Builder, texture, lod: Option<_>, layer: Option<_>| {
        let mut params = TexParams::default();
        if let Some(l) = lod {
            params.lod = l;
        }
        if let Some(l) = layer {
            params.layer = l;
        }
        b.ins(
            InstKind::Txf {
                texture,
                coord,
                params,
            },
            Type::vec32(4),
        )
        .unwrap()
    };
    let explicit = txf(&mut b, 0, Some(zero), Some(zero));
    let absent = txf(&mut b, 0, None, None);
    let level1 = txf(&mut b, 0, Some(one), Some(one));
    let other = txf(&mut b, 1, None, None);
    for (k, v) in [explicit, absent, level1, other].into_iter().enumerate() {
        store(&mut b, 4 * k as u32, v);
    }
    let mut p = prog(b.finish(), 3, 16);
    p.dispatch.textures = textures();
    let out = run(&p, &RunOptions::default()).unwrap().outputs;
    let t = textures();
    for i in 0..3u32 {
        let o = &out[16 * i as usize..][..16];
        let want0 = texel(0, fetch_coords(&t[0], i + 5, u32::MAX, 0, 0));
        assert_eq!(o[0..4], want0, "invocation {i}, lod 0");
        assert_eq!(o[4..8], want0, "invocation {i}, absent lod");
        let want1 = texel(0, fetch_coords(&t[0], i + 5, u32::MAX, 1, 1));
        assert_eq!(o[8..12], want1, "invocation {i}, lod 1 layer 1");
        let want2 = texel(1, fetch_coords(&t[1], i + 5, u32::MAX, 0, 0));
        assert_eq!(o[12..16], want2, "invocation {i}, texture 1");
    }
}

#[test]
fn tex_with_float_coords() {
    let mut b = Builder::new();
    let id = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let idf = b.alu(AluOp::U2f, &[id]);
    let scale = b.fconst(0.3);
    let u = b.alu(AluOp::Fmul, &[idf, scale]);
    let v = b.fconst(0.99);
    let coord = b.vec(&[u, v]);
    let params = TexParams {
        lod: b.fconst(1.7),
        bias: b.fconst(0.5),
        layer: b.fconst(0.5),
        ..TexParams::default()
    };
    let full = b
        .ins(
            InstKind::Tex {
                texture: 0,
                coord,
                params,
            },
            Type::vec32(4),
        )
        .unwrap();
    let params = TexParams::default();
    let bare = b
        .ins(
            InstKind::Tex {
                texture: 0,
                coord,
                params,
            },
            Type::vec32(4),
        )
        .unwrap();
    store(&mut b, 0, full);
    store(&mut b, 4, bare);
    let mut p = prog(b.finish(), 4, 8);
    p.dispatch.textures = textures();
    let out = run(&p, &RunOptions::default()).unwrap().outputs;
    let t = textures()[0];
    let f = |x: f32| x.to_bits();
    for i in 0..4u32 {
        let u = f(i as f32 * 0.3);
        let o = &out[8 * i as usize..][..8];
        let want = texel(0, sample_coords(&t, u, f(0.99), f(1.7), f(0.5), f(0.5)));
        assert_eq!(o[0..4], want, "invocation {i}, lod/bias/layer");
        let want = texel(0, sample_coords(&t, u, f(0.99), 0, 0, 0));
        assert_eq!(o[4..8], want, "invocation {i}, no parameters");
    }
}

/// `var_0: vec1[4]` with dynamic indices; `var_1: struct { vec2, vec1[3] }` through struct,
/// array and cast derefs, including a load and a store running past the variable's end.
#[test]
fn local_arrays_and_structs_through_derefs() {
    let mut b = Builder::new();
    let arr = b.var(VarType::Array(Box::new(VarType::Vector(1)), 4));
    let st = b.var(VarType::Struct(vec![
        VarType::Vector(2),
        VarType::Array(Box::new(VarType::Vector(1)), 3),
    ]));
    let id = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let da = b.ins(InstKind::DerefVar { var: arr }, Type::Deref).unwrap();
    let el = |b: &mut Builder, parent, index| {
        b.ins(InstKind::DerefArray { parent, index }, Type::Deref)
            .unwrap()
    };
    for k in 0..4 {
        let i = b.iconst(k);
        let v = b.iconst(10 * k);
        let d = el(&mut b, da, i);
        b.ins(InstKind::StoreDeref { deref: d, value: v }, Type::None);
    }
    let one = b.iconst(1);
    let two = b.iconst(2);
    let five = b.iconst(5);
    let n99 = b.iconst(99);
    let i1 = b.alu(AluOp::Iadd, &[id, one]);
    let d = el(&mut b, da, i1);
    b.ins(
        InstKind::StoreDeref {
            deref: d,
            value: n99,
        },
        Type::None,
    );
    let i5 = b.alu(AluOp::Iadd, &[id, five]);
    let i2 = b.alu(AluOp::Iadd, &[id, two]);
    let mut loads = Vec::new();
    for index in [i5, id, i2] {
        let d = el(&mut b, da, index);
        loads.push(b.ins(InstKind::LoadDeref { deref: d }, Type::I32).unwrap());
    }
    let ds = b.ins(InstKind::DerefVar { var: st }, Type::Deref).unwrap();
    let f0 = b
        .ins(
            InstKind::DerefStruct {
                parent: ds,
                field: 0,
            },
            Type::Deref,
        )
        .unwrap();
    let f1 = b
        .ins(
            InstKind::DerefStruct {
                parent: ds,
                field: 1,
            },
            Type::Deref,
        )
        .unwrap();
    let v12 = b.const_vec(&[1, 2]);
    b.ins(
        InstKind::StoreDeref {
            deref: f0,
            value: v12,
        },
        Type::None,
    );
    let seven = b.iconst(7);
    let e = el(&mut b, f1, id);
    b.ins(
        InstKind::StoreDeref {
            deref: e,
            value: seven,
        },
        Type::None,
    );
    let cast = |b: &mut Builder, parent, n| {
        let ty = VarType::Vector(n);
        b.ins(InstKind::DerefCast { parent, ty }, Type::Deref)
            .unwrap()
    };
    let whole = cast(&mut b, ds, 4);
    loads.push(
        b.ins(InstKind::LoadDeref { deref: whole }, Type::vec32(4))
            .unwrap(),
    );
    let last = el(&mut b, f1, two);
    let tail = cast(&mut b, last, 2);
    loads.push(
        b.ins(InstKind::LoadDeref { deref: tail }, Type::vec32(2))
            .unwrap(),
    );
    let v56 = b.const_vec(&[5, 6]);
    b.ins(
        InstKind::StoreDeref {
            deref: tail,
            value: v56,
        },
        Type::None,
    );
    loads.push(
        b.ins(InstKind::LoadDeref { deref: tail }, Type::vec32(2))
            .unwrap(),
    );
    let mut slot = 0;
    for v in loads {
        store(&mut b, slot, v);
        slot += u32::from(b.func().ty(v).comps());
    }
    let p = prog(b.finish(), 4, slot);
    let out = run(&p, &RunOptions::default()).unwrap().outputs;
    let want: [[u32; 11]; 4] = [
        // arr[(i+5)%4] = 99, arr[i], arr[(i+2)%4]; struct words 0..4; words 4..6 twice.
        [99, 0, 20, 1, 2, 7, 0, 0, 0, 5, 0],
        [99, 10, 30, 1, 2, 0, 7, 0, 0, 5, 0],
        [99, 20, 0, 1, 2, 0, 0, 7, 0, 5, 0],
        [99, 30, 10, 1, 2, 7, 0, 0, 0, 5, 0],
    ];
    assert_eq!(out, want.concat());
}

#[test]
fn registers_start_zero_in_every_invocation() {
    let mut b = Builder::new();
    let r = b.reg(Type::vec32(2));
    let before = b.ins(InstKind::LoadReg { reg: r }, Type::vec32(2)).unwrap();
    let id = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let three = b.iconst(3);
    let v = b.vec(&[id, three]);
    b.ins(InstKind::StoreReg { reg: r, value: v }, Type::None);
    let after = b.ins(InstKind::LoadReg { reg: r }, Type::vec32(2)).unwrap();
    store(&mut b, 0, before);
    store(&mut b, 2, after);
    let p = prog(b.finish(), 2, 4);
    let out = run(&p, &RunOptions::default()).unwrap().outputs;
    assert_eq!(out, vec![0, 0, 0, 3, 0, 0, 1, 3]);
}
