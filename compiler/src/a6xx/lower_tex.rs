//! Texture instructions to cat5: `tex` → `sam` (`samb` with a bias, `saml` with a lod — a lod
//! and a bias together are folded by one `add.f` into the lod, the rule rounds the sum once —
//! `samgq` with gradients, `gather4r/g/b/a` for a gather), `txf` → `isaml` (`isam` without
//! a lod), `txs` → `getsize`; flags `.s` for a compare, `.a` for a layer, `.o` for texel
//! offsets, the dimensionality for 1D/3D/cube. Parameters go where `sim::a6xx::TexOp::layout`
//! puts them (ir3's `emit_tex` order); gaps are immediate zeros (a 1D coordinate's pad is
//! 0.5 for samples, as in ir3). Only the components the program reads get a destination, so
//! `wrmask` trims the response.

use super::lower::Lower;
use super::lower_alu::{alu2, Out};
use super::vir::{Opnd, VInst};
use super::CompileError;
use crate::ir::{InstKind, TexDim, Value};
use sim::a6xx::{Binary, TexKind, TexOp};

/// The cat5 opcode and flags of a texture instruction (`None` for anything else).
pub fn tex_op(kind: &InstKind) -> Option<TexOp> {
    let (params, fetch, size) = match kind {
        InstKind::Tex { params, .. } => (params, false, false),
        InstKind::Txf { params, .. } => (params, true, false),
        InstKind::Txs { params, .. } => (params, false, true),
        _ => return None,
    };
    let kind = if size {
        TexKind::Getsize
    } else if fetch {
        if params.lod().is_some() {
            TexKind::Isaml
        } else {
            TexKind::Isam
        }
    } else if let Some(c) = params.gather {
        TexKind::Gather4(c)
    } else if params.grad().is_some() {
        TexKind::Samgq
    } else if params.lod().is_some() {
        TexKind::Saml
    } else if params.bias().is_some() {
        TexKind::Samb
    } else {
        TexKind::Sam
    };
    Some(TexOp {
        kind,
        dim: params.dim,
        shadow: params.compare().is_some(),
        array: params.layer().is_some(),
        offset: params.has_offset(),
    })
}

/// The fewest GPRs any allocation of `p` can have: the largest texture payload area (the
/// sources or the four results) plus the spill-code scratch. A budget below it is not an
/// allocator failure; the fuzzer does not try such budgets.
pub fn register_floor(p: &crate::ir::Program) -> u32 {
    let f = &p.func;
    let payload = f
        .insts_in_order()
        .into_iter()
        .filter_map(|(_, i)| tex_op(&f.insts[i].kind))
        .map(|op| u32::from(op.layout().len).max(4))
        .max()
        .unwrap_or(0);
    payload + super::ra::SCRATCH
}

impl Lower<'_> {
    /// Lowers a `tex`, `txf` or `txs`; pushes the four result components to `out`.
    pub(super) fn texture(
        &mut self,
        kind: &InstKind,
        res: Option<Value>,
        out: &mut Vec<Opnd>,
    ) -> Result<(), CompileError> {
        let (texture, coord, params, fetch) = match kind {
            InstKind::Tex {
                texture,
                coord,
                params,
            } => (*texture, Some(*coord), params, false),
            InstKind::Txf {
                texture,
                coord,
                params,
            } => (*texture, Some(*coord), params, true),
            InstKind::Txs { texture, params } => (*texture, None, params, false),
            _ => {
                return Err(CompileError::Unsupported(
                    "not a texture instruction".into(),
                ))
            }
        };
        let dim = params.dim;
        let mut lod = params.lod().map(|v| self.comp(v, 0)).transpose()?;
        let bias = params.bias().map(|v| self.comp(v, 0)).transpose()?;
        let op = tex_op(kind).ok_or_else(|| CompileError::Unsupported("not a texture".into()))?;
        match (lod, bias) {
            (Some(l), Some(b)) => lod = Some(alu2(self, Binary::AddF, l, b)),
            (None, Some(b)) => lod = Some(b),
            _ => {}
        }
        let l = op.layout();
        let mut srcs = vec![Opnd::Imm(0); l.len as usize];
        let n = dim.coords() as usize;
        let put = |srcs: &mut Vec<Opnd>, at: Option<u8>, i: usize, o: Opnd| {
            if let Some(k) = at {
                srcs[k as usize + i] = o;
            }
        };
        if let Some(c) = coord {
            for i in 0..n {
                let x = self.comp(c, i)?;
                put(&mut srcs, l.coord, i, x);
            }
            if dim == TexDim::D1 && !fetch {
                put(&mut srcs, l.coord, 1, Opnd::Imm(0.5f32.to_bits()));
            }
        }
        if let Some(r) = params.compare() {
            let x = self.comp(r, 0)?;
            put(&mut srcs, l.reference, 0, x);
        }
        if let Some(v) = params.layer() {
            let x = self.comp(v, 0)?;
            put(&mut srcs, l.layer, 0, x);
        }
        if let Some((dx, dy)) = params.grad() {
            for i in 0..n {
                let x = self.comp(dx, i)?;
                put(&mut srcs, l.ddx, i, x);
                let y = self.comp(dy, i)?;
                put(&mut srcs, l.ddy, i, y);
            }
        }
        for i in 0..n {
            put(&mut srcs, l.offset, i, Opnd::Imm(params.offset[i] as u32));
        }
        if let Some(x) = lod {
            put(&mut srcs, l.lod, 0, x);
        }
        let read = res
            .and_then(|r| self.tex_reads.get(&r).copied())
            .unwrap_or(0xf);
        let mut dsts = [None; 4];
        for (c, d) in dsts.iter_mut().enumerate() {
            if read >> c & 1 != 0 {
                let r = self.new_gpr();
                *d = Some(r);
                out.push(Opnd::V(r));
            } else {
                // Never read: no destination, so the response skips it.
                out.push(Opnd::Imm(0));
            }
        }
        self.emit(VInst::Tex {
            op,
            dsts,
            srcs,
            tex: u8::try_from(texture)
                .map_err(|_| CompileError::Unsupported("texture index over 255".into()))?,
        });
        Ok(())
    }
}
