//! Texture shapes: what every texture instruction of every shape means, as one function
//! ([`texture_result`]) that the interpreter, the Gen sampler and the a6xx core all call.
//!
//! The rules (also in `docs/semantics.md`); every value is bits, floats are binary32:
//!
//! * **Dimensionality.** 1D reads `(x, 0)` with the layer in the fourth texel coordinate;
//!   2D reads `(x, y)` and the layer; 3D reads `(x, y, z)` with `z` in the fourth texel
//!   coordinate — the depth of level `l` is `max(1, layers >> l)` (a texture's layer count is
//!   its depth when sampled as 3D); a cube picks a face from the direction and reads `(x, y)`
//!   of that face with the face number (0–5: +x, −x, +y, −y, +z, −z) in the fourth coordinate.
//!   There are no cube arrays and no 3D layers.
//! * **Nearest texel.** A float coordinate `u` on an axis of size `n` is
//!   `f2i(floor(canon(u * n)))`, plus the texel offset (wrapping add), then wrapped
//!   (Euclidean) at `n`. Integer fetches add the offset to the integer coordinate, then wrap.
//! * **Level.** Integer fetches clamp the lod (signed) to the texture; float samples use
//!   `floor(lod + bias)` ([`super::sample_coords`]); with gradients the level is [`grad_lod`]:
//!   the unbiased exponent field of `rho = fmax` over the coordinate axes of
//!   `canon(|ddx_i| * size_i)` and `canon(|ddy_i| * size_i)` (level-0 sizes; a cube's three
//!   axes all use the width), i.e. `((bits(rho) >> 23) & 0xff) - 127`, then clamped — an
//!   exact `floor(log2(rho))` for normal `rho`; zero and denormals give level 0, infinity and
//!   NaN the last level.
//! * **Cube faces.** The major axis is the one with the largest `|coordinate|`; ties go to
//!   z over y over x. With `m = |major|`, `sc`/`tc` from the Vulkan face table,
//!   `s = canon(canon(canon(sc / m) + 1) * 0.5)`, same for `t`; a zero or NaN `m` reads face
//!   +x at `s = t = canon(NaN)` (texel 0 of the row, as `f2i(NaN) = 0`).
//! * **Compare.** `c = 1.0` if `ref <= texel.x` (IEEE: false when either is NaN), else `0.0`;
//!   a sample with compare returns `(c, 0.0, 0.0, 1.0)`.
//! * **Gather.** Level 0 (lod and bias are not allowed). The 2×2 footprint's corner is
//!   `x0 = f2i(floor(canon(canon(u * w) - 0.5)))` plus the offset, `x1 = x0 + 1`, both
//!   wrapped; same for `y`. The result is component `comp` of the texels
//!   `(x0, y1), (x1, y1), (x1, y0), (x0, y0)` — or, with compare, their four compare results.
//!   A cube gathers on the selected face, wrapping within it.
//! * **Size query.** With integer `lod` (signed) inside the texture, `(w_l, layers, 0, levels)`
//!   for 1D, `(w_l, h_l, layers, levels)` for 2D and cube, `(w_l, h_l, d_l, levels)` for 3D;
//!   a lod outside gives `(0, 0, 0, levels)`.

use super::{canon, f2i, fmax, texel, TextureDesc};

/// Texture dimensionality of an instruction (the view the instruction takes of a texture).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum TexDim {
    /// One coordinate `u` (layer optional).
    D1,
    /// Two coordinates `(u, v)` (layer optional).
    #[default]
    D2,
    /// Three coordinates `(u, v, r)`; no layer.
    D3,
    /// A direction `(x, y, z)`; no layer.
    Cube,
}

impl TexDim {
    /// Every dimensionality.
    pub const ALL: [TexDim; 4] = [TexDim::D1, TexDim::D2, TexDim::D3, TexDim::Cube];

    /// Coordinate components.
    pub fn coords(self) -> u32 {
        match self {
            TexDim::D1 => 1,
            TexDim::D2 => 2,
            TexDim::D3 | TexDim::Cube => 3,
        }
    }

    /// Whether a layer parameter is allowed.
    pub fn arrayable(self) -> bool {
        matches!(self, TexDim::D1 | TexDim::D2)
    }

    /// Text-format name.
    pub fn name(self) -> &'static str {
        match self {
            TexDim::D1 => "1d",
            TexDim::D2 => "2d",
            TexDim::D3 => "3d",
            TexDim::Cube => "cube",
        }
    }

    /// The dimensionality named `s`.
    pub fn from_name(s: &str) -> Option<TexDim> {
        TexDim::ALL.into_iter().find(|d| d.name() == s)
    }
}

/// What a texture instruction does with its coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum TexAccess {
    /// Float coordinates, nearest texel (`tex`).
    #[default]
    Sample,
    /// Integer coordinates (`txf`).
    Fetch,
    /// Float coordinates, one component of the 2×2 footprint (`tg4`).
    Gather(u8),
    /// The level's size (`txs`); coordinates are ignored.
    Size,
}

/// One texture request, as bits. Unused fields are zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct TexRequest {
    /// What is done.
    pub access: TexAccess,
    /// Dimensionality.
    pub dim: TexDim,
    /// Coordinates (float bits for samples and gathers, integers for fetches).
    pub coord: [u32; 3],
    /// Level: float for samples, integer for fetches and size queries.
    pub lod: u32,
    /// Level bias (float; samples only).
    pub bias: u32,
    /// Array layer: float for samples and gathers, integer for fetches.
    pub layer: u32,
    /// Shadow reference (float), if compared.
    pub compare: Option<u32>,
    /// Gradients `(ddx, ddy)` (float), if given; they replace lod and bias.
    pub grad: Option<([u32; 3], [u32; 3])>,
    /// Constant texel offsets (−8..=7 on every target).
    pub offset: [i8; 3],
}

/// The size query's answer (see the module rules).
fn size_query(t: &TextureDesc, dim: TexDim, lod: u32) -> [u32; 4] {
    if (lod as i32) < 0 || lod >= t.levels {
        return [0, 0, 0, t.levels];
    }
    let [w, h, d] = level_dims(t, dim, lod);
    match dim {
        TexDim::D1 => [w, t.layers, 0, t.levels],
        TexDim::D2 | TexDim::Cube => [w, h, t.layers, t.levels],
        TexDim::D3 => [w, h, d, t.levels],
    }
}

/// Level `l` (clamped already) sizes `(w, h, d)` of `t` as `dim` sees it.
fn level_dims(t: &TextureDesc, dim: TexDim, lod: u32) -> [u32; 3] {
    let (w, h) = t.level_size(lod);
    match dim {
        TexDim::D1 => [w, 1, 1],
        TexDim::D2 | TexDim::Cube => [w, h, 1],
        TexDim::D3 => [w, h, t.layers.checked_shr(lod).unwrap_or(0).max(1)],
    }
}

fn clamp_signed(v: u32, count: u32) -> u32 {
    (v as i32).clamp(0, count as i32 - 1) as u32
}

fn wrap_signed(v: u32, size: u32) -> u32 {
    (v as i32).rem_euclid(size as i32) as u32
}

fn mul(a: u32, b: f32) -> u32 {
    canon(f32::from_bits(a) * b)
}

/// `f2i(floor(x))` of float bits.
fn floor_int(x: u32) -> u32 {
    f2i(f32::from_bits(x).floor().to_bits())
}

/// The level a sample with gradients `(ddx, ddy)` reads (before clamping to the texture):
/// the unbiased exponent field of the largest scaled gradient component.
pub fn grad_lod(t: &TextureDesc, dim: TexDim, ddx: [u32; 3], ddy: [u32; 3]) -> i32 {
    let sizes = match dim {
        TexDim::D1 => [t.width, 1, 1],
        TexDim::D2 => [t.width, t.height, 1],
        TexDim::D3 => [t.width, t.height, t.layers],
        TexDim::Cube => [t.width; 3],
    };
    let mut rho = 0u32;
    for i in 0..dim.coords() as usize {
        let n = sizes[i] as f32;
        for d in [ddx[i], ddy[i]] {
            rho = fmax(rho, mul(d & 0x7fff_ffff, n));
        }
    }
    ((rho >> 23) & 0xff) as i32 - 127
}

/// The cube face and face coordinates `(s, t)` (float bits, 0..1 inside) of direction `c`.
pub fn cube_face(c: [u32; 3]) -> (u32, u32, u32) {
    let [x, y, z] = c.map(f32::from_bits);
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    // Vulkan's table: (face, sc, tc, ma).
    let (face, sc, tc, m) = if az >= ax && az >= ay {
        if z.is_sign_negative() {
            (5, -x, -y, az)
        } else {
            (4, x, -y, az)
        }
    } else if ay >= ax {
        if y.is_sign_negative() {
            (3, x, -z, ay)
        } else {
            (2, x, z, ay)
        }
    } else if x.is_sign_negative() {
        (1, z, -y, ax)
    } else {
        (0, -z, -y, ax)
    };
    let half = |v: f32| {
        let q = canon(v / m);
        let q1 = canon(f32::from_bits(q) + 1.0);
        canon(f32::from_bits(q1) * 0.5)
    };
    (face, half(sc), half(tc))
}

/// Whether float bits `u` are a zero or a denormal (exponent field 0).
///
/// Fuzzed float coordinates are often small integer bit patterns, i.e. denormals, and an x86
/// multiply with a denormal operand takes a microcode assist (100+ cycles): before the
/// shortcuts below, that one `mulss` was a third of [`texture_result`]'s wall time. The
/// semantics keep denormals (no flush to zero), so the shortcuts must give exactly what the
/// multiply gives. What they rely on: `|u| < 2^-126` and `n as f32 <= 2^32`, so
/// `|u * n| < 2^-94`, far below 1 and below half an ulp of 0.5 (`2^-26`); no NaN arises.
fn zero_or_denormal(u: u32) -> bool {
    u & 0x7f80_0000 == 0
}

/// `f2i(floor(canon(u * n)))`: the texel index of float `u` on an axis of `n` texels.
fn scaled_floor(u: u32, n: u32) -> u32 {
    if zero_or_denormal(u) {
        // The product is below 1 in magnitude and, rounding being monotonic and `n >= 1`, no
        // smaller in magnitude than `u`: a negative denormal gives a negative nonzero product,
        // floor −1; a positive one floor +0. `±0 * n` (or any `u * 0`) is `±0`, floor `±0`,
        // index 0. Unsigned, the negative denormals are exactly the bits above `0x8000_0000`.
        return if u > 0x8000_0000 && n != 0 {
            u32::MAX
        } else {
            0
        };
    }
    floor_int(mul(u, n as f32))
}

/// `f2i(floor(canon(canon(u * n) - 0.5)))`: the lower gather corner of float `u` on an axis
/// of `n` texels.
fn gather_floor(u: u32, n: u32) -> u32 {
    if zero_or_denormal(u) {
        // `|u * n| < 2^-94` is less than half an ulp either side of 0.5, so `u * n - 0.5`
        // rounds to exactly −0.5 whatever the signs: floor −1.
        return u32::MAX;
    }
    floor_int(canon(f32::from_bits(mul(u, n as f32)) - 0.5))
}

/// The nearest texel index of float `u` on an axis of `n` texels, offset by `off`.
fn nearest(u: u32, n: u32, off: i8) -> u32 {
    wrap_signed(scaled_floor(u, n).wrapping_add(off as u32), n)
}

/// Compare result of reference `r` against texel channel `x`: 1.0 or 0.0.
fn compare(r: u32, x: u32) -> u32 {
    if f32::from_bits(r) <= f32::from_bits(x) {
        1.0f32.to_bits()
    } else {
        0
    }
}

/// The sample level of a float request: gradients, or `floor(lod + bias)`; clamped.
fn sample_level(t: &TextureDesc, q: &TexRequest) -> u32 {
    match q.grad {
        Some((dx, dy)) => clamp_signed(grad_lod(t, q.dim, dx, dy) as u32, t.levels),
        None => {
            let eff = canon(f32::from_bits(q.lod) + f32::from_bits(q.bias));
            clamp_signed(floor_int(eff), t.levels)
        }
    }
}

/// The float layer of a request: `round_even`, clamped.
fn float_layer(t: &TextureDesc, layer: u32) -> u32 {
    let r = f32::from_bits(layer).round_ties_even().to_bits();
    clamp_signed(f2i(r), t.layers)
}

/// The result of texture request `q` on texture number `texture` of shape `t`.
pub fn texture_result(t: &TextureDesc, texture: u32, q: &TexRequest) -> [u32; 4] {
    let o = q.offset;
    match q.access {
        TexAccess::Size => size_query(t, q.dim, q.lod),
        TexAccess::Fetch => {
            let lod = clamp_signed(q.lod, t.levels);
            let [w, h, d] = level_dims(t, q.dim, lod);
            let at = |c: u32, n: u32, off: i8| wrap_signed(c.wrapping_add(off as u32), n);
            let c = match q.dim {
                TexDim::D1 => [
                    at(q.coord[0], w, o[0]),
                    0,
                    lod,
                    clamp_signed(q.layer, t.layers),
                ],
                TexDim::D2 | TexDim::Cube => [
                    at(q.coord[0], w, o[0]),
                    at(q.coord[1], h, o[1]),
                    lod,
                    clamp_signed(q.layer, t.layers),
                ],
                TexDim::D3 => [
                    at(q.coord[0], w, o[0]),
                    at(q.coord[1], h, o[1]),
                    lod,
                    at(q.coord[2], d, o[2]),
                ],
            };
            texel(texture, c)
        }
        TexAccess::Sample => {
            let lod = sample_level(t, q);
            let [w, h, d] = level_dims(t, q.dim, lod);
            let c = match q.dim {
                TexDim::D1 => [
                    nearest(q.coord[0], w, o[0]),
                    0,
                    lod,
                    float_layer(t, q.layer),
                ],
                TexDim::D2 => [
                    nearest(q.coord[0], w, o[0]),
                    nearest(q.coord[1], h, o[1]),
                    lod,
                    float_layer(t, q.layer),
                ],
                TexDim::D3 => [
                    nearest(q.coord[0], w, o[0]),
                    nearest(q.coord[1], h, o[1]),
                    lod,
                    nearest(q.coord[2], d, o[2]),
                ],
                TexDim::Cube => {
                    let (face, s, tt) = cube_face(q.coord);
                    [nearest(s, w, 0), nearest(tt, h, 0), lod, face]
                }
            };
            let v = texel(texture, c);
            match q.compare {
                Some(r) => [compare(r, v[0]), 0, 0, 1.0f32.to_bits()],
                None => v,
            }
        }
        TexAccess::Gather(comp) => {
            let [w, h, _] = level_dims(t, q.dim, 0);
            let (u, v, slot3, off) = match q.dim {
                TexDim::Cube => {
                    let (face, s, tt) = cube_face(q.coord);
                    (s, tt, face, [0, 0])
                }
                _ => (
                    q.coord[0],
                    q.coord[1],
                    float_layer(t, q.layer),
                    [o[0], o[1]],
                ),
            };
            let corner = |u: u32, n: u32, off: i8| {
                let a = gather_floor(u, n).wrapping_add(off as u32);
                (wrap_signed(a, n), wrap_signed(a.wrapping_add(1), n))
            };
            let (x0, x1) = corner(u, w, off[0]);
            let (y0, y1) = corner(v, h, off[1]);
            let taps = [(x0, y1), (x1, y1), (x1, y0), (x0, y0)];
            taps.map(|(x, y)| {
                let v = texel(texture, [x, y, 0, slot3]);
                match q.compare {
                    Some(r) => compare(r, v[0]),
                    None => v[comp as usize & 3],
                }
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{fetch_coords, sample_coords};
    use super::*;

    const T: TextureDesc = TextureDesc {
        width: 8,
        height: 4,
        levels: 3,
        layers: 2,
    };

    fn f(x: f32) -> u32 {
        x.to_bits()
    }

    #[test]
    fn plain_shapes_match_the_old_rules() {
        let q = TexRequest {
            coord: [f(0.5), f(0.99), 0],
            lod: f(1.7),
            bias: f(-0.5),
            layer: f(0.5),
            ..TexRequest::default()
        };
        let c = sample_coords(&T, f(0.5), f(0.99), f(1.7), f(-0.5), f(0.5));
        assert_eq!(texture_result(&T, 3, &q), texel(3, c));
        let q = TexRequest {
            access: TexAccess::Fetch,
            coord: [-1i32 as u32, 5, 0],
            lod: 1,
            layer: 9,
            ..TexRequest::default()
        };
        let c = fetch_coords(&T, -1i32 as u32, 5, 1, 9);
        assert_eq!(texture_result(&T, 3, &q), texel(3, c));
    }

    #[test]
    fn offsets_shift_then_wrap() {
        let q = TexRequest {
            access: TexAccess::Fetch,
            coord: [1, 0, 0],
            offset: [-3, 7, 0],
            ..TexRequest::default()
        };
        // x = 1 - 3 = -2 → 6; y = 0 + 7 = 7 → 3.
        assert_eq!(texture_result(&T, 0, &q), texel(0, [6, 3, 0, 0]));
    }

    #[test]
    fn three_d_depth_minifies() {
        let q = TexRequest {
            access: TexAccess::Sample,
            dim: TexDim::D3,
            coord: [f(0.0), f(0.0), f(0.75)],
            lod: f(1.0),
            ..TexRequest::default()
        };
        // Level 1 depth is max(1, 2 >> 1) = 1: z = floor(0.75) = 0.
        assert_eq!(texture_result(&T, 0, &q), texel(0, [0, 0, 1, 0]));
        let size = TexRequest {
            access: TexAccess::Size,
            lod: 1,
            ..q
        };
        assert_eq!(texture_result(&T, 0, &size), [4, 2, 1, 3]);
        let out = TexRequest { lod: 3, ..size };
        assert_eq!(texture_result(&T, 0, &out), [0, 0, 0, 3]);
    }

    #[test]
    fn cube_faces_and_ties() {
        assert_eq!(cube_face([f(1.0), f(0.0), f(0.0)]).0, 0);
        assert_eq!(cube_face([f(-2.0), f(1.0), f(0.0)]).0, 1);
        assert_eq!(cube_face([f(1.0), f(1.0), f(0.0)]).0, 2);
        assert_eq!(cube_face([f(1.0), f(1.0), f(-1.0)]).0, 5);
        // +x face: sc = -z, tc = -y; (0.5 * -1 + 1) / 2 = 0.25.
        let (_, s, t) = cube_face([f(2.0), f(-1.0), f(1.0)]);
        assert_eq!((s, t), (f(0.25), f(0.75)));
    }

    #[test]
    fn compare_is_zero_or_one() {
        let base = TexRequest {
            coord: [f(0.1), f(0.1), 0],
            ..TexRequest::default()
        };
        let x = f32::from_bits(texture_result(&T, 1, &base)[0]);
        let at = |r: f32| {
            texture_result(
                &T,
                1,
                &TexRequest {
                    compare: Some(f(r)),
                    ..base
                },
            )
        };
        assert_eq!(at(x), [f(1.0), 0, 0, f(1.0)]);
        assert_eq!(at(x + 0.125), [0, 0, 0, f(1.0)]);
        assert_eq!(at(f32::NAN), [0, 0, 0, f(1.0)]);
    }

    #[test]
    fn gradients_pick_the_exponent() {
        let g = |x: f32, y: f32| grad_lod(&T, TexDim::D2, [f(x), f(y), 0], [0, 0, 0]);
        assert_eq!(g(0.25, 0.0), 1); // 0.25 * 8 = 2
        assert_eq!(g(0.24, 0.0), 0); // 1.92
        assert_eq!(g(-0.0, 0.6), 1); // 0.6 * 4 = 2.4
        assert_eq!(g(0.0, 0.0), -127);
        assert_eq!(g(f32::NAN, 0.1), -2); // NaN ignored: 0.4
        assert_eq!(g(f32::INFINITY, 0.0), 128);
    }

    /// The zero/denormal shortcuts of [`scaled_floor`] and [`gather_floor`] against the plain
    /// multiply, on every size a texture axis can have in the fuzzer (1..=64 and its mips),
    /// powers of two and their neighbours up to `2^31`, `2^24 ± 1` (where `n as f32` starts
    /// rounding), `u32::MAX` and 0; both signs of zeros, denormals (all of them at the
    /// extreme sizes, a dense sample otherwise), the smallest normals and a few ordinary values.
    #[test]
    fn denormal_shortcuts_match_the_multiply() {
        let plain_floor = |u: u32, n: u32| floor_int(mul(u, n as f32));
        let plain_gather =
            |u: u32, n: u32| floor_int(canon(f32::from_bits(mul(u, n as f32)) - 0.5));
        let check = |u: u32, n: u32| {
            assert_eq!(
                scaled_floor(u, n),
                plain_floor(u, n),
                "floor {u:#010x} * {n}"
            );
            assert_eq!(
                gather_floor(u, n),
                plain_gather(u, n),
                "gather {u:#010x} * {n}"
            );
        };
        let mut sizes: Vec<u32> = (0..=70).chain([16384, u32::MAX]).collect();
        for k in 6..32 {
            sizes.extend([(1 << k) - 1, 1 << k, (1 << k) + 1]);
        }
        let mut mantissas: Vec<u32> = (0..1024).chain(0x7f_fc00..0x80_0000).collect();
        mantissas.extend((0..0x80_0000).step_by(4099));
        for sign in [0, 0x8000_0000] {
            for exp in [0u32, 1, 2] {
                for &m in &mantissas {
                    let u = sign | exp << 23 | m;
                    sizes.iter().for_each(|&n| check(u, n));
                }
            }
            for x in [0.5f32, 1.0, 0.99, 3.75, 1e30, f32::INFINITY, f32::NAN] {
                sizes.iter().for_each(|&n| check(sign | x.to_bits(), n));
            }
            for n in [1, 64, u32::MAX] {
                (0..0x80_0000).for_each(|m| check(sign | m, n));
            }
        }
    }

    #[test]
    fn gather_footprint() {
        let q = TexRequest {
            access: TexAccess::Gather(2),
            coord: [f(0.5), f(0.5), 0],
            ..TexRequest::default()
        };
        // u * 8 - 0.5 = 3.5 → x0 = 3, x1 = 4; v * 4 - 0.5 = 1.5 → y0 = 1, y1 = 2.
        let tap = |x, y| texel(5, [x, y, 0, 0])[2];
        assert_eq!(
            texture_result(&T, 5, &q),
            [tap(3, 2), tap(4, 2), tap(4, 1), tap(3, 1)]
        );
    }
}
