//! cat5 texture instructions: which opcode and flags, and where each parameter sits in the
//! instruction's one consecutive source range (ir3's `emit_tex` layout, its two source
//! arguments placed back to back):
//!
//! * first argument: the coordinates (a 1D coordinate is padded to two, as ir3 treats 1D as
//!   2D of height 1), the shadow reference (`.s`), the array layer (`.a`); for `samgq`, zero
//!   padding to four, then `ddx` and `ddy` (each padded to two);
//! * second argument: the texel offsets (`.o`, integer, padded to two; the low four bits of
//!   each are read as a signed number), then the lod (`saml`, `isaml`) or bias (`samb`).
//!
//! `getsize` takes only the integer lod. Parameters past `params` read as zero. Results go
//! through `semantics::texture_result`.

use crate::semantics::{TexAccess, TexDim, TexRequest};

/// The cat5 opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexKind {
    /// `sam`: float coordinates, level 0.
    Sam,
    /// `samb`: with a bias.
    Samb,
    /// `saml`: with a lod.
    Saml,
    /// `samgq`: with gradients.
    Samgq,
    /// `isam`: integer coordinates, lod 0.
    Isam,
    /// `isaml`: integer coordinates and lod.
    Isaml,
    /// `gather4r`/`g`/`b`/`a`: one component of the 2×2 footprint.
    Gather4(u8),
    /// `getsize`: the level's size.
    Getsize,
}

/// A cat5 instruction's opcode and flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TexOp {
    /// Opcode.
    pub kind: TexKind,
    /// Dimensionality (`.3d` for 3D; cubes are a texture type in the descriptor).
    pub dim: TexDim,
    /// `.s`: shadow compare.
    pub shadow: bool,
    /// `.a`: an array layer is sent.
    pub array: bool,
    /// `.o`: texel offsets are sent.
    pub offset: bool,
}

/// Where each parameter of a [`TexOp`] sits (index into the source range).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TexLayout {
    /// The first coordinate (coordinates are consecutive).
    pub coord: Option<u8>,
    /// Shadow reference.
    pub reference: Option<u8>,
    /// Array layer.
    pub layer: Option<u8>,
    /// First x gradient (one per coordinate).
    pub ddx: Option<u8>,
    /// First y gradient.
    pub ddy: Option<u8>,
    /// First offset (one per coordinate).
    pub offset: Option<u8>,
    /// Lod or bias.
    pub lod: Option<u8>,
    /// Parameters in all.
    pub len: u8,
}

impl TexOp {
    /// A plain 2D `sam` or `isam` (no flags).
    pub const fn plain(kind: TexKind) -> TexOp {
        TexOp {
            kind,
            dim: TexDim::D2,
            shadow: false,
            array: false,
            offset: false,
        }
    }

    /// Where the parameters go.
    pub fn layout(&self) -> TexLayout {
        let mut l = TexLayout::default();
        let mut n = 0u8;
        let take = |n: &mut u8, k: u8| {
            let at = *n;
            *n += k;
            Some(at)
        };
        if self.kind == TexKind::Getsize {
            l.lod = take(&mut n, 1);
            l.len = n;
            return l;
        }
        let c = self.dim.coords() as u8;
        l.coord = take(&mut n, c.max(2));
        if self.shadow {
            l.reference = take(&mut n, 1);
        }
        if self.array {
            l.layer = take(&mut n, 1);
        }
        if self.kind == TexKind::Samgq {
            n = n.max(4);
            l.ddx = take(&mut n, c.max(2));
            l.ddy = take(&mut n, c.max(2));
        }
        if self.offset {
            l.offset = take(&mut n, c.max(2));
        }
        if matches!(self.kind, TexKind::Samb | TexKind::Saml | TexKind::Isaml) {
            l.lod = take(&mut n, 1);
        }
        l.len = n;
        l
    }

    /// ir3's name with flags, e.g. `saml.s.a.o`.
    pub fn name(&self) -> String {
        let mut s = match self.kind {
            TexKind::Sam => "sam",
            TexKind::Samb => "samb",
            TexKind::Saml => "saml",
            TexKind::Samgq => "samgq",
            TexKind::Isam => "isam",
            TexKind::Isaml => "isaml",
            TexKind::Gather4(0) => "gather4r",
            TexKind::Gather4(1) => "gather4g",
            TexKind::Gather4(2) => "gather4b",
            TexKind::Gather4(_) => "gather4a",
            TexKind::Getsize => "getsize",
        }
        .to_string();
        for (on, flag) in [
            (self.dim == TexDim::D3, ".3d"),
            (self.dim == TexDim::Cube, ".cube"),
            (self.dim == TexDim::D1, ".1d"),
            (self.shadow, ".s"),
            (self.array, ".a"),
            (self.offset, ".o"),
        ] {
            if on {
                s.push_str(flag);
            }
        }
        s
    }

    /// The request of one fiber whose parameters are `p` (zero past those sent).
    pub fn request(&self, p: &[u32]) -> TexRequest {
        let l = self.layout();
        let at =
            |k: Option<u8>, i: usize| k.map_or(0, |k| p.get(k as usize + i).copied().unwrap_or(0));
        let n = self.dim.coords() as usize;
        let access = match self.kind {
            TexKind::Isam | TexKind::Isaml => TexAccess::Fetch,
            TexKind::Gather4(c) => TexAccess::Gather(c & 3),
            TexKind::Getsize => TexAccess::Size,
            _ => TexAccess::Sample,
        };
        let vec3 = |k: Option<u8>| -> [u32; 3] {
            std::array::from_fn(|i| if i < n { at(k, i) } else { 0 })
        };
        let lod = at(l.lod, 0);
        TexRequest {
            access,
            dim: self.dim,
            coord: vec3(l.coord),
            lod: if self.kind == TexKind::Samb { 0 } else { lod },
            bias: if self.kind == TexKind::Samb { lod } else { 0 },
            layer: at(l.layer, 0),
            compare: l.reference.map(|_| at(l.reference, 0)),
            grad: l.ddx.map(|_| (vec3(l.ddx), vec3(l.ddy))),
            offset: std::array::from_fn(|i| {
                if i < n && l.offset.is_some() {
                    ((at(l.offset, i) & 0xf) as i8) << 4 >> 4
                } else {
                    0
                }
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(kind: TexKind, dim: TexDim, shadow: bool, array: bool, offset: bool) -> TexOp {
        TexOp {
            kind,
            dim,
            shadow,
            array,
            offset,
        }
    }

    /// The layouts of `docs/textures.md` ("a6xx cat5"), spelled out.
    #[test]
    fn layouts_follow_ir3_order() {
        let l = op(TexKind::Samgq, TexDim::D3, false, false, true).layout();
        assert_eq!(
            (l.coord, l.ddx, l.ddy, l.offset, l.lod, l.len),
            (Some(0), Some(4), Some(7), Some(10), None, 13)
        );
        let l = op(TexKind::Saml, TexDim::D2, true, true, false).layout();
        assert_eq!(
            (l.coord, l.reference, l.layer, l.lod, l.len),
            (Some(0), Some(2), Some(3), Some(4), 5)
        );
        let l = op(TexKind::Samgq, TexDim::D1, true, false, false).layout();
        // u, pad, ref, zero pad, dudx + pad, dudy + pad.
        assert_eq!(
            (l.reference, l.ddx, l.ddy, l.len),
            (Some(2), Some(4), Some(6), 8)
        );
        let l = op(TexKind::Isaml, TexDim::D1, false, true, true).layout();
        assert_eq!(
            (l.layer, l.offset, l.lod, l.len),
            (Some(2), Some(3), Some(5), 6)
        );
        let l = op(TexKind::Getsize, TexDim::D3, false, false, false).layout();
        assert_eq!((l.coord, l.lod, l.len), (None, Some(0), 1));
        assert_eq!(
            op(TexKind::Gather4(3), TexDim::Cube, true, false, false).name(),
            "gather4a.cube.s"
        );
    }

    /// A bias goes to `bias`, offsets read their low four bits as signed numbers.
    #[test]
    fn requests_read_their_slots() {
        let o = op(TexKind::Samb, TexDim::D2, false, false, true);
        let q = o.request(&[1, 2, 0x1f, 0xfffffff8, 7]);
        assert_eq!(
            (q.coord, q.offset, q.bias, q.lod),
            ([1, 2, 0], [-1, -8, 0], 7, 0)
        );
    }
}
