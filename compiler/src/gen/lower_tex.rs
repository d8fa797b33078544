//! Phase 1, texture part: each `tex`/`txf`/`txs` shape becomes one sampler message with the
//! generation's parameter order (`sim::gen::sampler_params`; the tables are
//! `docs/textures.md`).
//!
//! * Choice of message (Mesa's `sampler_msg_type`): `txs` → `resinfo`; `txf` → `ld`, or on
//!   Gen9 `ld_lz` for a 1D/3D fetch without a lod. (Mesa takes `ld_lz` for every zero lod;
//!   plain 2D fetches keep `ld` with a trailing zero lod here — the input `opt_zero_samples`'
//!   historical bugs needed, which the planted versions and `corpus/regressions` test.)
//!   Gather → `gather4`/`gather4_c`;
//!   gradients → `sample_d` (`sample_d_c` with a compare, Gen9 only); a lod → `sample_l`
//!   (`sample_l_c`), or on Gen9 `sample_lz` (`sample_c_lz`) for a constant zero; a bias →
//!   `sample_b` (`sample_b_c`); neither → `sample` (`sample_c`). A lod and a bias together
//!   are folded by one `add` into the lod (the rule rounds the sum once).
//! * Gradients a message cannot take are turned into a lod first, like Mesa's `nir_lower_tex`
//!   txd→txl for cube maps (`lower_txd_cube_map`) and for Gen7 shadows (`lower_txd_shadow`,
//!   no `sample_d_c` before Haswell): EU code computes exactly `semantics::grad_lod` — `and`
//!   away the signs, `mul` by the level-0 sizes, a `sel.ge` chain from `0.0` (`fmax`), the
//!   exponent field minus 127, `i2f` — and sends `sample_l`/`sample_l_c`. SIMD16 does the same
//!   (Mesa splits SIMD16 `sample_d` into two SIMD8 messages; this backend has no half-width
//!   instructions, and the payload would exceed 11 GRFs).
//! * The coordinates fill u, v, r by dimensionality; an array layer takes the slot after
//!   the last coordinate (v for 1D, r for 2D). Parameters the shape lacks inside the sent
//!   prefix are immediate zeros; the prefix ends at the last parameter the shape has.
//!   Constant parameters stay immediates so `opt_zero_samples` can see the zeros.
//! * A message header (a copy of g0, dword 2 = [`SamplerHeader`]) is sent when the shape has
//!   texel offsets or the message is a gather4. The response is trimmed to the components
//!   read (`rlen = (last read + 1) * P`, Mesa's `nir_def_components_read`); with a header
//!   the trimmed channels are also masked in dword 2 (Mesa's "reversed" writemask) — gathers
//!   too, whose header is always there.
//! * Identical payloads (header included) in one block are built once and shared.
//!
//! Planted: [`Plant::GenSamplerOffsetOrder`] packs the offsets backwards.

use super::lower::{Comp, Lower};
use super::vinst::VSrc;
use super::CompileError;
use crate::ir::{InstKind, TexDim, TexParams, Value};
use crate::planted::Plant;
use sim::gen::{
    sampler_params, CondMod, ExecSize, Gen, Message, Op, Pred, SamplerHeader, SamplerOp,
    SamplerParam, Type,
};
use std::collections::HashMap;

/// The smallest budget (GRFs at SIMD8; SIMD16 doubles it, as `gen_grfs` does) at which `p`
/// is known to compile: [`super::MIN_GRFS`] (`docs/budgets.md`) while every sampler payload
/// has at most four parameters — the floor program's largest — and `2k + 2` for the widest
/// payload of `k` GRFs-per-lane beyond that (its parameters may each need a fill temporary
/// next to the payload). `k` is bounded from the IR shape: coordinates, layer, reference,
/// lod or bias, gradients and a header for offsets or gathers. Below it a
/// `NoRegisterToSpill` is not an allocator bug; the fuzzer does not try such budgets.
pub fn register_floor(p: &crate::ir::Program) -> u32 {
    let f = &p.func;
    let widest = f
        .insts_in_order()
        .into_iter()
        .filter_map(|(_, i)| match &f.insts[i].kind {
            InstKind::Tex { params, .. } | InstKind::Txf { params, .. } => {
                let c = params.dim.coords();
                let grad = if params.grad().is_some() { 2 * c } else { 0 };
                let header = params.has_offset() || params.gather.is_some();
                let fetch_lod = matches!(f.insts[i].kind, InstKind::Txf { .. });
                Some(
                    c + grad
                        + u32::from(params.layer().is_some())
                        + u32::from(params.compare().is_some())
                        + u32::from(params.lod().is_some() || params.bias().is_some() || fetch_lod)
                        + u32::from(header),
                )
            }
            _ => None,
        })
        .max()
        .unwrap_or(0);
    if widest <= 4 {
        super::MIN_GRFS
    } else {
        (2 * widest + 2).max(super::MIN_GRFS)
    }
}

/// The texture instruction's parts.
struct TexInst<'a> {
    texture: u32,
    coord: Option<Value>,
    params: &'a TexParams,
    fetch: bool,
    size: bool,
}

impl Lower<'_> {
    /// Lowers a `tex`, `txf` or `txs`.
    pub(super) fn texture(
        &mut self,
        kind: &InstKind,
        result: Option<Value>,
        out: &mut [Comp; 4],
    ) -> Result<(), CompileError> {
        let t = match kind {
            InstKind::Tex {
                texture,
                coord,
                params,
            }
            | InstKind::Txf {
                texture,
                coord,
                params,
            } => TexInst {
                texture: *texture,
                coord: Some(*coord),
                params,
                fetch: matches!(kind, InstKind::Txf { .. }),
                size: false,
            },
            InstKind::Txs { texture, params } => TexInst {
                texture: *texture,
                coord: None,
                params,
                fetch: false,
                size: true,
            },
            _ => return Err(bad("not a texture instruction")),
        };
        let p = t.params;
        let dim = p.dim;
        let gen9 = self.gen == Gen::Gen9;
        let mut named: HashMap<SamplerParam, Comp> = HashMap::new();
        if let Some(c) = t.coord {
            let slots = [SamplerParam::U, SamplerParam::V, SamplerParam::R];
            for (k, &s) in slots.iter().enumerate().take(dim.coords() as usize) {
                named.insert(s, self.value(c, k)?);
            }
        }
        if let Some(l) = p.layer() {
            let slot = match dim {
                TexDim::D1 => SamplerParam::V,
                _ => SamplerParam::R,
            };
            named.insert(slot, self.value(l, 0)?);
        }
        let lod = p.lod().map(|x| self.value(x, 0)).transpose()?;
        let bias = p.bias().map(|x| self.value(x, 0)).transpose()?;
        let reference = p.compare().map(|x| self.value(x, 0)).transpose()?;
        if let Some(r) = reference {
            named.insert(SamplerParam::Ref, r);
        }
        let zero_lod = |l: Option<Comp>| matches!(l, None | Some(Comp::Imm(0)));
        let compare = reference.is_some();
        let op = if t.size {
            named.insert(SamplerParam::Lod, lod.unwrap_or(Comp::Imm(0)));
            SamplerOp::Resinfo
        } else if t.fetch {
            if gen9 && lod.is_none() && dim != TexDim::D2 {
                SamplerOp::LdLz
            } else {
                named.insert(SamplerParam::Lod, lod.unwrap_or(Comp::Imm(0)));
                SamplerOp::Ld
            }
        } else if p.gather.is_some() {
            if compare {
                SamplerOp::Gather4C
            } else {
                SamplerOp::Gather4
            }
        } else if let Some((dx, dy)) = p.grad() {
            let direct = dim != TexDim::Cube && self.width == ExecSize::S8 && (!compare || gen9);
            if direct {
                let slots = [
                    (SamplerParam::Dudx, SamplerParam::Dudy),
                    (SamplerParam::Dvdx, SamplerParam::Dvdy),
                    (SamplerParam::Drdx, SamplerParam::Drdy),
                ];
                for (k, &(sx, sy)) in slots.iter().enumerate().take(dim.coords() as usize) {
                    named.insert(sx, self.value(dx, k)?);
                    named.insert(sy, self.value(dy, k)?);
                }
                if compare {
                    SamplerOp::SampleDC
                } else {
                    SamplerOp::SampleD
                }
            } else {
                let l = self.grad_lod(t.texture, dim, dx, dy)?;
                named.insert(SamplerParam::Lod, l);
                if compare {
                    SamplerOp::SampleLC
                } else {
                    SamplerOp::SampleL
                }
            }
        } else {
            let lod = match (lod, bias) {
                (Some(l), Some(b)) => {
                    let ls = self.reg_src(l, Type::F);
                    let bs = self.src(b, Type::F);
                    Some(self.op(Op::Add, Type::F, [ls, bs, VSrc::Null]))
                }
                (l, _) => l,
            };
            match (lod, bias, compare) {
                (Some(l), _, c) if !(gen9 && zero_lod(Some(l))) => {
                    named.insert(SamplerParam::Lod, l);
                    if c {
                        SamplerOp::SampleLC
                    } else {
                        SamplerOp::SampleL
                    }
                }
                (Some(_), _, true) => SamplerOp::SampleCLz,
                (Some(_), _, false) => SamplerOp::SampleLz,
                (None, Some(b), c) => {
                    named.insert(SamplerParam::Bias, b);
                    if c {
                        SamplerOp::SampleBC
                    } else {
                        SamplerOp::SampleB
                    }
                }
                (None, None, true) => SamplerOp::SampleC,
                (None, None, false) => SamplerOp::Sample,
            }
        };
        let order = sampler_params(op, self.gen);
        let sent = order
            .iter()
            .rposition(|s| named.contains_key(s))
            .map_or(1, |k| k + 1);
        let params: Vec<Comp> = order[..sent]
            .iter()
            .map(|s| named.get(s).copied().unwrap_or(Comp::Imm(0)))
            .collect();
        let read = result
            .and_then(|r| self.read_comps.get(&r).copied())
            .unwrap_or(0xf);
        let channels = (8 - (read & 0xf).leading_zeros() as u8).clamp(1, 4);
        let mut offset = p.offset;
        if self.plants.has(Plant::GenSamplerOffsetOrder) {
            offset.reverse();
        }
        let header = (p.has_offset() || op.needs_header()).then(|| {
            SamplerHeader {
                offset,
                mask: !((1u8 << channels) - 1) & 0xf,
                component: p.gather.unwrap_or(0),
            }
            .encode()
        });
        let per = self.per();
        let tex = u8::try_from(t.texture).map_err(|_| bad("texture index over 255"))?;
        let msg = Message::Sampler {
            op,
            texture: tex,
            dim,
        };
        let r = self
            .message(msg, header, &params, channels * per, true)
            .expect("response");
        for (k, o) in out.iter_mut().enumerate() {
            *o = if (k as u8) < channels {
                Comp::Reg(r, k as u8 * per)
            } else {
                // Never read (that is why the response stops before it).
                Comp::Imm(0)
            };
        }
        Ok(())
    }

    /// EU code computing `semantics::grad_lod` as a float lod (an integer in float).
    fn grad_lod(
        &mut self,
        texture: u32,
        dim: TexDim,
        dx: Value,
        dy: Value,
    ) -> Result<Comp, CompileError> {
        let t = self
            .dispatch
            .textures
            .get(texture as usize)
            .copied()
            .ok_or_else(|| bad("no such texture"))?;
        let sizes = match dim {
            TexDim::D1 => [t.width, 1, 1],
            TexDim::D2 => [t.width, t.height, 1],
            TexDim::D3 => [t.width, t.height, t.layers],
            TexDim::Cube => [t.width; 3],
        };
        let mut rho = Comp::Imm(0);
        for (k, &size) in sizes.iter().enumerate().take(dim.coords() as usize) {
            for d in [dx, dy] {
                let g = self.value(d, k)?;
                let gs = self.reg_src(g, Type::UD);
                let abs = self.op(Op::And, Type::UD, [gs, imm(0x7fff_ffff), VSrc::Null]);
                let a = self.src(abs, Type::F);
                let n = VSrc::Imm {
                    bits: (size as f32).to_bits(),
                    ty: Type::F,
                };
                let m = self.op(Op::Mul, Type::F, [a, n, VSrc::Null]);
                let r = self.reg_src(rho, Type::F);
                let ms = self.src(m, Type::F);
                rho = self.op_with(
                    Op::Sel,
                    Type::F,
                    [r, ms, VSrc::Null],
                    Some(CondMod::Ge),
                    Pred::None,
                );
            }
        }
        let rs = self.src(rho, Type::UD);
        let e = self.op(Op::Shr, Type::UD, [rs, imm(23), VSrc::Null]);
        let es = self.src(e, Type::UD);
        let e = self.op(Op::And, Type::UD, [es, imm(0xff), VSrc::Null]);
        let es = self.src(e, Type::D);
        let minus = VSrc::Imm {
            bits: -127i32 as u32,
            ty: Type::D,
        };
        let l = self.op(Op::Add, Type::D, [es, minus, VSrc::Null]);
        let ls = self.src(l, Type::D);
        Ok(self.op(Op::Mov, Type::F, [ls, VSrc::Null, VSrc::Null]))
    }
}

fn imm(bits: u32) -> VSrc {
    VSrc::Imm { bits, ty: Type::UD }
}

fn bad(what: impl Into<String>) -> CompileError {
    CompileError::Unsupported(what.into())
}
