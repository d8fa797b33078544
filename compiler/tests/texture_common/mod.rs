//! Hand-written programs with one texture instruction of each shape, and their known answers
//! (computed here from the coordinates the program builds, through
//! `sim::semantics::texture_result`), shared by the interpreter, Gen and a6xx texture tests.
#![allow(dead_code)]

use sim::semantics::{texture_result, TexAccess, TexDim, TexRequest, TextureDesc};

/// The program's textures.
pub const TEXTURES: [TextureDesc; 2] = [
    TextureDesc {
        width: 8,
        height: 4,
        levels: 3,
        layers: 2,
    },
    TextureDesc {
        width: 5,
        height: 7,
        levels: 2,
        layers: 6,
    },
];

/// Invocations of every shape program.
pub const INVOCATIONS: u32 = 21;

/// One texture shape under test.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Test name.
    pub name: &'static str,
    /// `tex`, `txf` or `txs`.
    pub op: &'static str,
    /// Dimensionality.
    pub dim: TexDim,
    /// Texture number.
    pub texture: u32,
    /// With a lod parameter.
    pub lod: bool,
    /// With a bias.
    pub bias: bool,
    /// With a layer.
    pub layer: bool,
    /// With a shadow reference.
    pub compare: bool,
    /// With gradients.
    pub grad: bool,
    /// Constant offsets.
    pub offset: [i8; 3],
    /// Gather component.
    pub gather: Option<u8>,
    /// Result components stored (the rest are never read: partial use).
    pub used: u8,
    /// A constant zero lod (the `_lz` messages).
    pub zero_lod: bool,
}

const BASE: Shape = Shape {
    name: "",
    op: "tex",
    dim: TexDim::D2,
    texture: 0,
    lod: false,
    bias: false,
    layer: false,
    compare: false,
    grad: false,
    offset: [0; 3],
    gather: None,
    used: 4,
    zero_lod: false,
};

/// Every shape the tests cover.
pub fn shapes() -> Vec<Shape> {
    use TexDim::*;
    let s = |name, f: &dyn Fn(&mut Shape)| {
        let mut x = Shape { name, ..BASE };
        f(&mut x);
        x
    };
    vec![
        s("sample_2d", &|_| {}),
        s("sample_1d", &|x| x.dim = D1),
        s("sample_1d_array_lod", &|x| {
            x.dim = D1;
            x.layer = true;
            x.lod = true
        }),
        s("sample_3d_lod", &|x| {
            x.dim = D3;
            x.lod = true;
            x.texture = 1
        }),
        s("sample_cube_bias", &|x| {
            x.dim = Cube;
            x.bias = true
        }),
        s("sample_2d_array_offset", &|x| {
            x.layer = true;
            x.offset = [-3, 5, 0]
        }),
        s("sample_3d_offset", &|x| {
            x.dim = D3;
            x.offset = [1, -8, 7];
            x.texture = 1
        }),
        s("sample_lz_2d", &|x| {
            x.lod = true;
            x.zero_lod = true
        }),
        s("sample_c_2d", &|x| x.compare = true),
        s("sample_c_cube_lod", &|x| {
            x.dim = Cube;
            x.compare = true;
            x.lod = true
        }),
        s("sample_c_bias_array", &|x| {
            x.compare = true;
            x.bias = true;
            x.layer = true;
            x.texture = 1
        }),
        s("sample_c_lz_offset", &|x| {
            x.compare = true;
            x.lod = true;
            x.zero_lod = true;
            x.offset = [2, -1, 0]
        }),
        s("sample_d_2d", &|x| x.grad = true),
        s("sample_d_3d", &|x| {
            x.dim = D3;
            x.grad = true;
            x.texture = 1
        }),
        s("sample_d_1d_array_offset", &|x| {
            x.dim = D1;
            x.grad = true;
            x.layer = true;
            x.offset = [4, 0, 0]
        }),
        s("sample_d_cube", &|x| {
            x.dim = Cube;
            x.grad = true
        }),
        s("sample_d_c_2d", &|x| {
            x.grad = true;
            x.compare = true
        }),
        s("sample_partial_xy", &|x| {
            x.lod = true;
            x.used = 2
        }),
        s("sample_partial_x_offset", &|x| {
            x.used = 1;
            x.offset = [1, 1, 0]
        }),
        s("ld_1d_array", &|x| {
            x.op = "txf";
            x.dim = D1;
            x.lod = true;
            x.layer = true
        }),
        s("ld_3d_offset", &|x| {
            x.op = "txf";
            x.dim = D3;
            x.lod = true;
            x.offset = [-1, 2, 3];
            x.texture = 1
        }),
        s("ld_lz_3d_partial", &|x| {
            x.op = "txf";
            x.dim = D3;
            x.texture = 1;
            x.used = 3
        }),
        s("ld_2d_zero_lod_offset", &|x| {
            x.op = "txf";
            x.lod = true;
            x.zero_lod = true;
            x.offset = [3, -4, 0]
        }),
        s("gather4_2d_comp1", &|x| x.gather = Some(1)),
        s("gather4_array_offset", &|x| {
            x.gather = Some(3);
            x.layer = true;
            x.offset = [-2, 3, 0];
            x.texture = 1
        }),
        s("gather4_cube", &|x| {
            x.dim = Cube;
            x.gather = Some(0)
        }),
        s("gather4_partial_xyz", &|x| {
            x.gather = Some(2);
            x.used = 3
        }),
        s("gather4_c_2d", &|x| {
            x.gather = Some(0);
            x.compare = true
        }),
        s("resinfo_2d", &|x| {
            x.op = "txs";
            x.lod = true
        }),
        s("resinfo_3d_partial", &|x| {
            x.op = "txs";
            x.dim = D3;
            x.lod = true;
            x.texture = 1;
            x.used = 2
        }),
        s("resinfo_1d", &|x| {
            x.op = "txs";
            x.dim = D1;
            x.texture = 1
        }),
    ]
}

/// Per-invocation inputs, exactly as the program computes them.
struct Inputs {
    fcoord: [f32; 3],
    icoord: [u32; 3],
    flod: f32,
    ilod: u32,
    bias: f32,
    flayer: f32,
    ilayer: u32,
    reference: f32,
    ddx: [f32; 3],
    ddy: [f32; 3],
}

fn inputs(id: u32) -> Inputs {
    let f = id as f32;
    Inputs {
        fcoord: [f * 0.13 + -0.4, f * 0.21 + 0.05, f * -0.07 + 0.3],
        icoord: [id.wrapping_add(-3i32 as u32), id.wrapping_mul(2), id],
        flod: f * 0.3,
        ilod: id >> 2,
        bias: f * 0.2 + -0.5,
        flayer: f * 0.25,
        ilayer: id.wrapping_add(-4i32 as u32),
        reference: f * 8.0,
        ddx: [f * 0.02, 0.1, 0.05],
        ddy: [0.01, f * 0.03, 0.2],
    }
}

/// The text of `s`'s program: builds the inputs, runs the instruction and stores the used
/// components to outputs `0..used`.
pub fn program(s: &Shape) -> String {
    let mut t = String::new();
    let mut n = 0u32;
    let mut line = |t: &mut String, ty: &str, rhs: String| -> String {
        let v = format!("ssa_{n}");
        n += 1;
        t.push_str(&format!("  {ty} {v} = {rhs}\n"));
        v
    };
    t.push_str(&format!("invocations {INVOCATIONS}\noutputs {}\n", s.used));
    for d in TEXTURES {
        t.push_str(&format!(
            "texture {}x{} levels {} layers {}\n",
            d.width, d.height, d.levels, d.layers
        ));
    }
    t.push_str("\nblock_0:\n");
    let s1 = "vec1 32";
    let id = line(&mut t, s1, "load_invocation_id".into());
    let fid = line(&mut t, s1, format!("u2f {id}"));
    let k = |t: &mut String, x: f32, line: &mut dyn FnMut(&mut String, &str, String) -> String| {
        line(t, s1, format!("load_const (0x{:08x})", x.to_bits()))
    };
    let mut affine = |t: &mut String, a: f32, b: f32| {
        let ka = k(t, a, &mut line);
        let m = line(t, s1, format!("fmul {fid}, {ka}"));
        let kb = k(t, b, &mut line);
        line(t, s1, format!("fadd {m}, {kb}"))
    };
    let nc = s.dim.coords() as usize;
    let fc = [
        affine(&mut t, 0.13, -0.4),
        affine(&mut t, 0.21, 0.05),
        affine(&mut t, -0.07, 0.3),
    ];
    let flod = affine(&mut t, 0.3, 0.0);
    let bias = affine(&mut t, 0.2, -0.5);
    let flayer = affine(&mut t, 0.25, 0.0);
    let reference = affine(&mut t, 8.0, 0.0);
    let dx0 = affine(&mut t, 0.02, 0.0);
    let dy1 = affine(&mut t, 0.03, 0.0);
    let consts: Vec<String> = [0.1f32, 0.05, 0.01, 0.2]
        .iter()
        .map(|&x| line(&mut t, s1, format!("load_const (0x{:08x})", x.to_bits())))
        .collect();
    let ic = {
        let m3 = line(&mut t, s1, "load_const (0xfffffffd)".into());
        let x = line(&mut t, s1, format!("iadd {id}, {m3}"));
        let two = line(&mut t, s1, "load_const (0x00000002)".into());
        let y = line(&mut t, s1, format!("imul {id}, {two}"));
        [x, y, id.clone()]
    };
    let ilod = {
        let two = line(&mut t, s1, "load_const (0x00000002)".into());
        line(&mut t, s1, format!("ushr {id}, {two}"))
    };
    let ilayer = {
        let m4 = line(&mut t, s1, "load_const (0xfffffffc)".into());
        line(&mut t, s1, format!("iadd {id}, {m4}"))
    };
    let zero = line(&mut t, s1, "load_const (0x00000000)".into());
    let vec = |t: &mut String,
               parts: &[String],
               line: &mut dyn FnMut(&mut String, &str, String) -> String| {
        if parts.len() == 1 {
            parts[0].clone()
        } else {
            line(
                t,
                &format!("vec{} 32", parts.len()),
                format!("vec{} {}", parts.len(), parts.join(", ")),
            )
        }
    };
    let fetch = s.op == "txf";
    let coord = if fetch {
        vec(&mut t, &ic[..nc], &mut line)
    } else {
        vec(&mut t, &fc[..nc], &mut line)
    };
    let ddx = vec(
        &mut t,
        &[dx0.clone(), consts[0].clone(), consts[1].clone()][..nc],
        &mut line,
    );
    let ddy = vec(
        &mut t,
        &[consts[2].clone(), dy1.clone(), consts[3].clone()][..nc],
        &mut line,
    );
    let mut rhs = match s.op {
        "txs" => format!("txs {}", s.texture),
        op => format!("{op} {}, {coord}", s.texture),
    };
    if s.dim != TexDim::D2 {
        rhs += &format!(", dim {}", s.dim.name());
    }
    if s.lod {
        let l = if s.zero_lod {
            &zero
        } else if fetch || s.op == "txs" {
            &ilod
        } else {
            &flod
        };
        rhs += &format!(", lod {l}");
    }
    if s.bias {
        rhs += &format!(", bias {bias}");
    }
    if s.layer {
        rhs += &format!(", layer {}", if fetch { &ilayer } else { &flayer });
    }
    if s.compare {
        rhs += &format!(", compare {reference}");
    }
    if s.grad {
        rhs += &format!(", ddx {ddx}, ddy {ddy}");
    }
    if s.offset != [0; 3] {
        let o: Vec<String> = s.offset[..nc].iter().map(|x| x.to_string()).collect();
        rhs += &format!(", offset ({})", o.join(", "));
    }
    if let Some(c) = s.gather {
        rhs += &format!(", gather {c}");
    }
    let r = line(&mut t, "vec4 32", rhs);
    let stored = if s.used == 4 {
        r
    } else {
        let sw = &"xyzw"[..s.used as usize];
        let ty = if s.used == 1 {
            "vec1 32".to_string()
        } else {
            format!("vec{} 32", s.used)
        };
        line(&mut t, &ty, format!("mov {r}.{sw}"))
    };
    t.push_str(&format!("  store_output 0, {stored}\n"));
    t
}

/// What invocation `id` of `s`'s program stores.
pub fn expected(s: &Shape, id: u32) -> Vec<u32> {
    let x = inputs(id);
    let b = |v: f32| v.to_bits();
    let fetch = s.op == "txf";
    let access = match (s.op, s.gather) {
        ("txf", _) => TexAccess::Fetch,
        ("txs", _) => TexAccess::Size,
        (_, Some(c)) => TexAccess::Gather(c),
        _ => TexAccess::Sample,
    };
    let nc = s.dim.coords() as usize;
    let keep = |i: usize, v: u32| if i < nc { v } else { 0 };
    let coord: [u32; 3] =
        std::array::from_fn(|i| keep(i, if fetch { x.icoord[i] } else { b(x.fcoord[i]) }));
    let ddx: [u32; 3] = std::array::from_fn(|i| keep(i, b(x.ddx[i])));
    let ddy: [u32; 3] = std::array::from_fn(|i| keep(i, b(x.ddy[i])));
    let lod = match (s.lod, s.zero_lod) {
        (false, _) | (true, true) => 0,
        _ if fetch || s.op == "txs" => x.ilod,
        _ => b(x.flod),
    };
    let q = TexRequest {
        access,
        dim: s.dim,
        coord,
        lod,
        bias: if s.bias { b(x.bias) } else { 0 },
        layer: match (s.layer, fetch) {
            (false, _) => 0,
            (true, true) => x.ilayer,
            (true, false) => b(x.flayer),
        },
        compare: s.compare.then(|| b(x.reference)),
        grad: s.grad.then_some((ddx, ddy)),
        offset: s.offset,
    };
    let r = texture_result(&TEXTURES[s.texture as usize], s.texture, &q);
    r[..s.used as usize].to_vec()
}
