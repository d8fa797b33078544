//! The arithmetic and memory rules every executor shares: the IR interpreter, the Gen EU and the
//! a6xx core. One definition, so a correct compile agrees bit for bit.
//!
//! The machines are the hardware; the IR adopts their rules. Nothing here is undefined or
//! implementation-defined:
//!
//! * **Integers** are 32 bits and wrap. Shift amounts are taken modulo 32.
//! * **Division** follows RISC-V: `x / 0` is all ones (`u32::MAX`, or `-1` signed), `x % 0` is `x`,
//!   `i32::MIN / -1` is `i32::MIN` and `i32::MIN % -1` is `0`. `imod` takes the sign of the divisor
//!   (GLSL `mod`), `irem` the sign of the dividend (C `%`).
//! * **Floats** are IEEE binary32, round to nearest even, never fused unless the op is `ffma`.
//!   Every arithmetic result that is a NaN is replaced by the canonical quiet NaN `0x7fc00000`,
//!   so NaN payloads never depend on the host. `fneg` and `fabs` are sign-bit operations.
//!   `fmin`/`fmax` return the other operand when one is NaN (IEEE minNum/maxNum), the canonical
//!   NaN when both are, and order `-0.0 < +0.0`.
//! * **Float → int** saturates, NaN → 0 (`f2i`, `f2u`). Int → float rounds to nearest even.
//! * **Bit fields** (`ubitfield_extract`, `ibitfield_extract`, `bitfield_insert`) clamp their field to the word:
//!   the offset to at most 32, then the count to at most `32 - offset`; a field of 0 bits is 0
//!   (Vulkan leaves a field past bit 31 undefined; these programs never reach it there).
//!   `find_lsb`, `ufind_msb` and `ifind_msb` give `-1` when no bit qualifies, as GLSL's
//!   `findLSB`/`findMSB` do. `umul_high`/`imul_high` are the high word of the 64-bit product,
//!   `uadd_carry`/`usub_borrow` the carry (borrow) out of the 32-bit add (subtract), 0 or 1.
//! * **Booleans** converted to 32 bits are `1`/`0` (`b2i`) or `1.0`/`0.0` (`b2f`).
//! * **Indices** into uniforms, buffers and local arrays wrap: `index % length`, unsigned.
//! * **Buffers** are per-invocation: invocation `i` sees its own `len` words, initially
//!   [`buffer_word`]`(buffer, i, k)`.
//! * **Textures** are functions, not memory: [`texel`] gives the four channels of a texel from
//!   (texture, x, y, lod, layer). Integer fetches ([`fetch_coords`]) clamp lod and layer and wrap
//!   x and y at the level's size; float samples ([`sample_coords`]) take the nearest texel
//!   (`floor(u * width)`, then wrap), the level `floor(lod + bias)` and the layer
//!   `round_even(layer)`, each converted with saturating `f2i` and clamped. A parameter a
//!   message does not send reads as zero — `0` and `0.0` share the bit pattern, so trimming a
//!   trailing parameter is correct exactly when that parameter is zero. Every texture shape
//!   (1D/2D/3D/cube, offsets, compare, gradients, gather, size queries) is one call of
//!   [`texture_result`] (module `texture`), which the sample and fetch rules above are cases of.
//! * **Atomics** ([`AtomicOp`]) return the old word and store `op(old, value)`.
//! * **Subgroup operations** ([`SubgroupOp`]) combine the values of the invocations of a
//!   workgroup that execute them together (module `subgroup`).

mod atomic;
mod subgroup;
mod texture;
pub use atomic::AtomicOp;
pub use subgroup::{identity, SubgroupFault, SubgroupOp};
pub use texture::{cube_face, grad_lod, texture_result, TexAccess, TexDim, TexRequest};

/// The canonical quiet NaN every float result that is a NaN becomes.
pub const CANONICAL_NAN: u32 = 0x7fc0_0000;

/// Bits of a float result, with any NaN made canonical.
#[inline]
pub fn canon(x: f32) -> u32 {
    if x.is_nan() {
        CANONICAL_NAN
    } else {
        x.to_bits()
    }
}

/// Unsigned division: `x / 0 = u32::MAX`.
#[inline]
pub fn udiv(a: u32, b: u32) -> u32 {
    a.checked_div(b).unwrap_or(u32::MAX)
}

/// Unsigned remainder: `x % 0 = x`.
#[inline]
pub fn umod(a: u32, b: u32) -> u32 {
    a.checked_rem(b).unwrap_or(a)
}

/// Signed division truncating toward zero: `x / 0 = -1`, `MIN / -1 = MIN`.
#[inline]
pub fn idiv(a: u32, b: u32) -> u32 {
    let (a, b) = (a as i32, b as i32);
    if b == 0 {
        u32::MAX
    } else {
        a.wrapping_div(b) as u32
    }
}

/// Signed remainder with the sign of the dividend: `x % 0 = x`, `MIN % -1 = 0`.
#[inline]
pub fn irem(a: u32, b: u32) -> u32 {
    let (a, b) = (a as i32, b as i32);
    if b == 0 {
        a as u32
    } else {
        a.wrapping_rem(b) as u32
    }
}

/// Signed modulo with the sign of the divisor (GLSL `mod`): `x mod 0 = x`, `MIN mod -1 = 0`.
#[inline]
pub fn imod(a: u32, b: u32) -> u32 {
    let r = irem(a, b) as i32;
    let bi = b as i32;
    if r != 0 && bi != 0 && ((r < 0) != (bi < 0)) {
        r.wrapping_add(bi) as u32
    } else {
        r as u32
    }
}

/// `fmin`: minNum with `-0.0 < +0.0`.
#[inline]
pub fn fmin(a: u32, b: u32) -> u32 {
    let (x, y) = (f32::from_bits(a), f32::from_bits(b));
    match (x.is_nan(), y.is_nan()) {
        (true, true) => CANONICAL_NAN,
        (true, false) => b,
        (false, true) => a,
        _ if x == y => {
            if (a >> 31) != 0 {
                a
            } else {
                b
            }
        }
        _ if x < y => a,
        _ => b,
    }
}

/// `fmax`: maxNum with `-0.0 < +0.0`.
#[inline]
pub fn fmax(a: u32, b: u32) -> u32 {
    let (x, y) = (f32::from_bits(a), f32::from_bits(b));
    match (x.is_nan(), y.is_nan()) {
        (true, true) => CANONICAL_NAN,
        (true, false) => b,
        (false, true) => a,
        _ if x == y => {
            if (a >> 31) == 0 {
                a
            } else {
                b
            }
        }
        _ if x > y => a,
        _ => b,
    }
}

/// The bit field `offset..offset + count` of `a`, clamped to the word (see the module
/// comment): `(offset, count)` with `offset <= 32` and `offset + count <= 32`.
#[inline]
pub fn bit_field(offset: u32, count: u32) -> (u32, u32) {
    let offset = offset.min(32);
    (offset, count.min(32 - offset))
}

/// `ubitfield_extract`: the clamped field, zero-extended.
#[inline]
pub fn ubitfield_extract(a: u32, offset: u32, count: u32) -> u32 {
    let (offset, count) = bit_field(offset, count);
    if count == 0 {
        return 0;
    }
    (a >> offset) & (u32::MAX >> (32 - count))
}

/// `ibitfield_extract`: the clamped field, sign-extended from its top bit.
#[inline]
pub fn ibitfield_extract(a: u32, offset: u32, count: u32) -> u32 {
    let (offset, count) = bit_field(offset, count);
    if count == 0 {
        return 0;
    }
    (((a << (32 - offset - count)) as i32) >> (32 - count)) as u32
}

/// `bitfield_insert`: `base` with the clamped field replaced by the low bits of `insert`.
#[inline]
pub fn bitfield_insert(base: u32, insert: u32, offset: u32, count: u32) -> u32 {
    let (offset, count) = bit_field(offset, count);
    if count == 0 {
        return base;
    }
    let mask = (u32::MAX >> (32 - count)) << offset;
    (base & !mask) | ((insert << offset) & mask)
}

/// `ufind_msb`: the index of the highest set bit, `-1` for 0.
#[inline]
pub fn ufind_msb(a: u32) -> u32 {
    31u32.wrapping_sub(a.leading_zeros())
}

/// `ifind_msb`: the index of the highest bit that differs from the sign bit, `-1` for 0 and -1.
#[inline]
pub fn ifind_msb(a: u32) -> u32 {
    ufind_msb(if (a as i32) < 0 { !a } else { a })
}

/// `find_lsb`: the index of the lowest set bit, `-1` for 0.
#[inline]
pub fn find_lsb(a: u32) -> u32 {
    if a == 0 {
        u32::MAX
    } else {
        a.trailing_zeros()
    }
}

/// Float → signed int, saturating, NaN → 0.
#[inline]
pub fn f2i(a: u32) -> u32 {
    f32::from_bits(a) as i32 as u32
}

/// Float → unsigned int, saturating (negative → 0), NaN → 0.
#[inline]
pub fn f2u(a: u32) -> u32 {
    f32::from_bits(a) as u32
}

/// Signed int → float, round to nearest even.
#[inline]
pub fn i2f(a: u32) -> u32 {
    (a as i32 as f32).to_bits()
}

/// Unsigned int → float, round to nearest even.
#[inline]
pub fn u2f(a: u32) -> u32 {
    (a as f32).to_bits()
}

/// A 32-bit mixing function (a murmur3 finaliser over three words); the source of buffer
/// contents and texels.
#[inline]
pub fn hash3(a: u32, b: u32, c: u32) -> u32 {
    let mut x = a
        .wrapping_mul(0x9e37_79b1)
        .wrapping_add(b.wrapping_mul(0x85eb_ca77))
        .wrapping_add(c.wrapping_mul(0xc2b2_ae3d))
        ^ 0x2545_f491;
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// Initial contents of word `index` of `buffer` as invocation `invocation` sees it: small
/// integers (0..=255), so sums and products of a few of them stay readable in reports.
#[inline]
pub fn buffer_word(buffer: u32, invocation: u32, index: u32) -> u32 {
    hash3(buffer ^ 0xb0f0_0000, invocation, index) & 0xff
}

/// A texture's shape. Level `l` is `max(1, width >> l)` by `max(1, height >> l)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TextureDesc {
    /// Width of level 0 in texels (at least 1).
    pub width: u32,
    /// Height of level 0 in texels (at least 1).
    pub height: u32,
    /// Number of mip levels (at least 1).
    pub levels: u32,
    /// Number of array layers (at least 1).
    pub layers: u32,
}

/// Integer texel coordinates after clamping and wrapping: (x, y, lod, layer).
pub type TexelCoords = [u32; 4];

impl TextureDesc {
    /// Size of mip level `lod` (already clamped).
    #[inline]
    pub fn level_size(&self, lod: u32) -> (u32, u32) {
        // `checked_shr`: a texture may declare more levels than its size has bits.
        let shrink = |size: u32| size.checked_shr(lod).unwrap_or(0).max(1);
        (shrink(self.width), shrink(self.height))
    }
}

#[inline]
fn clamp_signed(v: u32, count: u32) -> u32 {
    (v as i32).clamp(0, count as i32 - 1) as u32
}

#[inline]
fn wrap_signed(v: u32, size: u32) -> u32 {
    (v as i32).rem_euclid(size as i32) as u32
}

/// The texel an integer fetch (`txf`, `ld`, `isam`) reads: lod and layer clamped to the
/// texture (as signed integers), x and y wrapped (Euclidean) at the level's size.
#[inline]
pub fn fetch_coords(t: &TextureDesc, x: u32, y: u32, lod: u32, layer: u32) -> TexelCoords {
    let lod = clamp_signed(lod, t.levels);
    let layer = clamp_signed(layer, t.layers);
    let (w, h) = t.level_size(lod);
    [wrap_signed(x, w), wrap_signed(y, h), lod, layer]
}

/// The texel a float sample (`tex`, `sample`, `sam`) reads: nearest texel. All arguments are
/// float bits; `lod + bias` rounds once (canonical NaN → level 0).
#[inline]
pub fn sample_coords(
    t: &TextureDesc,
    u: u32,
    v: u32,
    lod: u32,
    bias: u32,
    layer: u32,
) -> TexelCoords {
    let eff = f32::from_bits(canon(f32::from_bits(lod) + f32::from_bits(bias)));
    let lod = clamp_signed(f2i(eff.floor().to_bits()), t.levels);
    let layer = clamp_signed(
        f2i(f32::from_bits(layer).round_ties_even().to_bits()),
        t.layers,
    );
    let (w, h) = t.level_size(lod);
    let x = f2i(canon(f32::from_bits(u) * w as f32).floor_bits());
    let y = f2i(canon(f32::from_bits(v) * h as f32).floor_bits());
    [wrap_signed(x, w), wrap_signed(y, h), lod, layer]
}

trait FloorBits {
    fn floor_bits(self) -> u32;
}

impl FloorBits for u32 {
    #[inline]
    fn floor_bits(self) -> u32 {
        f32::from_bits(self).floor().to_bits()
    }
}

/// The four channels of texel `c` of texture number `texture`, as float bits: multiples of
/// 1/8 between 0 and 127.875, exact in binary32.
#[inline]
pub fn texel(texture: u32, c: TexelCoords) -> [u32; 4] {
    let base = hash3(
        texture ^ 0x7e40_0000,
        c[0] | (c[1] << 16),
        c[2] | (c[3] << 8),
    );
    std::array::from_fn(|i| {
        let h = hash3(base, i as u32, 0x51);
        ((h & 0x3ff) as f32 * 0.125).to_bits()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_edge_cases() {
        assert_eq!(udiv(7, 0), u32::MAX);
        assert_eq!(umod(7, 0), 7);
        assert_eq!(idiv(i32::MIN as u32, -1i32 as u32), i32::MIN as u32);
        assert_eq!(irem(i32::MIN as u32, -1i32 as u32), 0);
        assert_eq!(idiv(-7i32 as u32, 2), -3i32 as u32);
        assert_eq!(irem(-7i32 as u32, 2), -1i32 as u32);
        assert_eq!(imod(-7i32 as u32, 2), 1);
        assert_eq!(imod(7, -2i32 as u32), -1i32 as u32);
        assert_eq!(imod(5, 0), 5);
    }

    #[test]
    fn float_rules() {
        let nan = f32::NAN.to_bits() | 0x8000_0123;
        assert_eq!(fmin(nan, 2.0f32.to_bits()), 2.0f32.to_bits());
        assert_eq!(fmax(nan, nan), CANONICAL_NAN);
        assert_eq!(
            fmin(0.0f32.to_bits(), (-0.0f32).to_bits()),
            (-0.0f32).to_bits()
        );
        assert_eq!(
            fmax((-0.0f32).to_bits(), 0.0f32.to_bits()),
            0.0f32.to_bits()
        );
        assert_eq!(f2i(f32::NAN.to_bits()), 0);
        assert_eq!(f2i(3e10f32.to_bits()), i32::MAX as u32);
        assert_eq!(f2u((-5.0f32).to_bits()), 0);
        assert_eq!(canon(f32::INFINITY - f32::INFINITY), CANONICAL_NAN);
    }

    #[test]
    fn texture_addressing() {
        let t = TextureDesc {
            width: 8,
            height: 4,
            levels: 3,
            layers: 2,
        };
        assert_eq!(fetch_coords(&t, -1i32 as u32, 5, 1, 9), [3, 1, 1, 1]);
        assert_eq!(fetch_coords(&t, 0, 0, -4i32 as u32, 0), [0, 0, 0, 0]);
        let f = |x: f32| x.to_bits();
        assert_eq!(sample_coords(&t, f(0.5), f(0.99), 0, 0, 0), [4, 3, 0, 0]);
        assert_eq!(
            sample_coords(&t, f(-0.1), f(f32::NAN), f(1.7), f(0.5), f(0.5)),
            [1, 0, 2, 0]
        );
        let a = texel(0, [1, 2, 0, 0]);
        assert_eq!(a, texel(0, [1, 2, 0, 0]));
        assert_ne!(a, texel(1, [1, 2, 0, 0]));
        assert!(a.iter().all(|&c| f32::from_bits(c) < 128.0));
    }
}
