//! Phase 1, memory part: uniforms, buffers and outputs through the data port (untyped
//! reads/writes, one per-lane word address, no header), textures through sampler messages
//! ([`super::lower_tex`]), and local variables through scattered scratch messages.
//! * Shared arrays: one word per message through the shared local memory surface, the arrays
//!   back to back, the index wrapped at its array's length here (the data port does not
//!   wrap there); barriers emit nothing, as every workgroup lies inside one thread.
//! * Atomics: one untyped atomic message per instruction (address, operand; the old word
//!   back), on a buffer or the shared local memory surface; the lanes of a message apply
//!   theirs in lane order, one of the orders the IR allows.
//! * Locals: each variable has `words * width` dwords of scratch from a fixed base, lane-major
//!   (lane `l`'s word `w` at `base + l * words + w`, so a vector's words are consecutive for
//!   the 1–4-channel messages); the lane is `invocation_id & (width - 1)`. Array indices wrap
//!   with `and` (power-of-two lengths) or `umod`. The emitter zeroes the area at thread start,
//!   as the IR's locals start at 0.

use super::lower::{Comp, Deref, Lower};
use super::vinst::VSrc;
use super::CompileError;
use crate::ir::{AluOp, AtomicOp, InstKind, Value, VarType};
use crate::planted::Plant;
use sim::gen::{MathFn, Message, Op, Surface, Type};

impl Lower<'_> {
    /// Lowers a memory, texture or deref instruction.
    pub(super) fn memory(
        &mut self,
        kind: &InstKind,
        result: Option<Value>,
        out: &mut [Comp; 4],
    ) -> Result<(), CompileError> {
        let comps = result.map_or(0, |v| self.f.ty(v).comps() as usize);
        let per = self.per();
        match kind {
            InstKind::LoadUniform { index } => {
                let i = self.value(*index, 0)?;
                let msg = Message::UntypedRead {
                    surface: Surface::Uniform,
                    channels: comps as u8,
                };
                let r = self.message(msg, None, &[i], comps as u8 * per, false);
                for (k, o) in out.iter_mut().enumerate().take(comps) {
                    *o = Comp::Reg(r.expect("response"), k as u8 * per);
                }
                if let Some(r) = r {
                    self.uniform_regs.insert(r);
                }
            }
            InstKind::LoadBuffer { buffer, index } => {
                let i = self.value(*index, 0)?;
                let surface = Surface::Buffer(resource(*buffer)?);
                let msg = Message::UntypedRead {
                    surface,
                    channels: comps as u8,
                };
                let r = self
                    .message(msg, None, &[i], comps as u8 * per, false)
                    .expect("response");
                for (k, o) in out.iter_mut().enumerate().take(comps) {
                    *o = Comp::Reg(r, k as u8 * per);
                }
            }
            InstKind::StoreBuffer {
                buffer,
                index,
                value,
            } => {
                let mut params = vec![self.value(*index, 0)?];
                let n = self.f.ty(*value).comps() as usize;
                for k in 0..n {
                    params.push(self.value(*value, k)?);
                }
                let surface = Surface::Buffer(resource(*buffer)?);
                let msg = Message::UntypedWrite {
                    surface,
                    channels: n as u8,
                };
                self.message(msg, None, &params, 0, false);
            }
            InstKind::LocalId | InstKind::WorkgroupId => {
                // A workgroup is aligned invocations of a power-of-two count (at most 8), so
                // the ids are the invocation id's low and high bits.
                let size = self.dispatch.workgroup.max(1);
                let id = Comp::Fixed(1);
                out[0] = match kind {
                    InstKind::LocalId => {
                        self.alu(AluOp::Iand, [id, Comp::Imm(size - 1), Comp::None])
                    }
                    _ => self.alu(
                        AluOp::Ushr,
                        [id, Comp::Imm(size.trailing_zeros()), Comp::None],
                    ),
                };
            }
            // Every workgroup lies inside one thread, whose channels run in lockstep and whose
            // messages complete in order: nothing to wait for.
            InstKind::Barrier => {}
            InstKind::LoadShared { shared, index } => {
                for (c, o) in out.iter_mut().enumerate().take(comps) {
                    let Some(addr) = self.shared_address(*shared, *index, c as u32)? else {
                        *o = Comp::Imm(0);
                        continue;
                    };
                    let msg = Message::UntypedRead {
                        surface: Surface::Shared,
                        channels: 1,
                    };
                    let r = self.message(msg, None, &[addr], per, false);
                    *o = Comp::Reg(r.expect("response"), 0);
                }
            }
            InstKind::StoreShared {
                shared,
                index,
                value,
            } => {
                for c in 0..self.f.ty(*value).comps() {
                    let Some(addr) = self.shared_address(*shared, *index, u32::from(c))? else {
                        continue;
                    };
                    let v = self.value(*value, c as usize)?;
                    let msg = Message::UntypedWrite {
                        surface: Surface::Shared,
                        channels: 1,
                    };
                    self.message(msg, None, &[addr, v], 0, false);
                }
            }
            InstKind::AtomicBuffer {
                buffer,
                op,
                index,
                value,
            } => {
                let params = [self.value(*index, 0)?, self.value(*value, 0)?];
                let msg = Message::UntypedAtomic {
                    surface: Surface::Buffer(resource(*buffer)?),
                    op: self.atomic_op(*op),
                };
                let r = self.message(msg, None, &params, per, false);
                out[0] = Comp::Reg(r.expect("response"), 0);
            }
            InstKind::AtomicShared {
                shared,
                op,
                index,
                value,
            } => {
                out[0] = match self.shared_address(*shared, *index, 0)? {
                    Some(addr) => {
                        let params = [addr, self.value(*value, 0)?];
                        let msg = Message::UntypedAtomic {
                            surface: Surface::Shared,
                            op: self.atomic_op(*op),
                        };
                        let r = self.message(msg, None, &params, per, false);
                        Comp::Reg(r.expect("response"), 0)
                    }
                    None => Comp::Imm(0),
                };
            }
            InstKind::StoreOutput { slot, value } => {
                let mut params = vec![Comp::Imm(*slot)];
                let n = self.f.ty(*value).comps() as usize;
                for k in 0..n {
                    params.push(self.value(*value, k)?);
                }
                let msg = Message::UntypedWrite {
                    surface: Surface::Output,
                    channels: n as u8,
                };
                self.message(msg, None, &params, 0, false);
            }
            InstKind::Tex { .. } | InstKind::Txf { .. } | InstKind::Txs { .. } => {
                self.texture(kind, result, out)?;
            }
            InstKind::DerefVar { var } => {
                let ty = self
                    .f
                    .vars
                    .get(*var)
                    .cloned()
                    .ok_or_else(|| bad("unknown variable"))?;
                let d = Deref {
                    var: *var,
                    off: 0,
                    dynamic: None,
                    ty,
                };
                self.derefs
                    .insert(result.ok_or_else(|| bad("deref without result"))?, d);
            }
            InstKind::DerefArray { parent, index } => {
                let mut d = self.deref(*parent)?;
                let VarType::Array(elem, len) = d.ty.clone() else {
                    return Err(bad("deref_array of a non-array"));
                };
                let ew = elem.words();
                match self.value(*index, 0)? {
                    Comp::Imm(i) => d.off += (i % len.max(1)) * ew,
                    i => {
                        let i = self.reg_src(i, Type::UD);
                        let w = if len.is_power_of_two() {
                            self.op(Op::And, Type::UD, [i, imm(len - 1), VSrc::Null])
                        } else {
                            let m = Op::Math(MathFn::IntMod);
                            self.op(m, Type::UD, [i, imm(len), VSrc::Null])
                        };
                        let w = if ew != 1 {
                            let s = self.src(w, Type::UD);
                            self.op(Op::Mul, Type::UD, [s, imm(ew), VSrc::Null])
                        } else {
                            w
                        };
                        d.dynamic = Some(match d.dynamic {
                            None => w,
                            Some(prev) => {
                                let a = self.src(prev, Type::UD);
                                let b = self.src(w, Type::UD);
                                self.op(Op::Add, Type::UD, [a, b, VSrc::Null])
                            }
                        });
                    }
                }
                d.ty = *elem;
                self.derefs
                    .insert(result.ok_or_else(|| bad("deref without result"))?, d);
            }
            InstKind::DerefStruct { parent, field } => {
                let mut d = self.deref(*parent)?;
                let off =
                    d.ty.field_offset(*field)
                        .ok_or_else(|| bad("bad struct field"))?;
                let VarType::Struct(fields) = &d.ty else {
                    unreachable!()
                };
                let fty = fields[*field as usize].clone();
                d.off += off;
                d.ty = fty;
                self.derefs
                    .insert(result.ok_or_else(|| bad("deref without result"))?, d);
            }
            InstKind::DerefCast { parent, ty } => {
                let mut d = self.deref(*parent)?;
                d.ty = ty.clone();
                self.derefs
                    .insert(result.ok_or_else(|| bad("deref without result"))?, d);
            }
            InstKind::LoadDeref { deref } => {
                let d = self.deref(*deref)?;
                let addr = self.local_address(&d);
                let msg = Message::ScratchRead {
                    channels: comps as u8,
                };
                let r = self
                    .message(msg, None, &[addr], comps as u8 * per, false)
                    .expect("response");
                for (k, o) in out.iter_mut().enumerate().take(comps) {
                    *o = Comp::Reg(r, k as u8 * per);
                }
            }
            InstKind::StoreDeref { deref, value } => {
                let d = self.deref(*deref)?;
                let addr = self.local_address(&d);
                let n = self.f.ty(*value).comps() as usize;
                let mut params = vec![addr];
                for k in 0..n {
                    params.push(self.value(*value, k)?);
                }
                self.message(
                    Message::ScratchWrite { channels: n as u8 },
                    None,
                    &params,
                    0,
                    false,
                );
            }
            other => return Err(bad(format!("cannot lower {}", other.name()))),
        }
        Ok(())
    }

    fn deref(&self, v: Value) -> Result<Deref, CompileError> {
        self.derefs
            .get(&v)
            .cloned()
            .ok_or_else(|| bad(format!("{v} is not a known deref")))
    }

    /// The shared-memory word of component `c` of an access to array `array` at `index`:
    /// the arrays lie back to back, and the index wraps at the array's length (`and` for a
    /// power of two, else `umod`); none for an empty array.
    /// The data port's operation for an IR atomic (the planted slip swaps signedness).
    fn atomic_op(&self, op: AtomicOp) -> AtomicOp {
        match op {
            AtomicOp::Imin if self.plants.has(Plant::GenAtomicSignedness) => AtomicOp::Umin,
            AtomicOp::Imax if self.plants.has(Plant::GenAtomicSignedness) => AtomicOp::Umax,
            op => op,
        }
    }

    fn shared_address(
        &mut self,
        array: u32,
        index: Value,
        c: u32,
    ) -> Result<Option<Comp>, CompileError> {
        let lens = &self.dispatch.shared;
        let len = *lens
            .get(array as usize)
            .ok_or_else(|| bad("no such shared array"))?;
        if len == 0 {
            return Ok(None);
        }
        let base: u32 = if self.plants.has(Plant::GenSharedBase) {
            0
        } else {
            lens[..array as usize].iter().sum()
        };
        let mut w = self.value(index, 0)?;
        if c > 0 {
            w = self.alu(AluOp::Iadd, [w, Comp::Imm(c), Comp::None]);
        }
        w = match len.is_power_of_two() {
            true => self.alu(AluOp::Iand, [w, Comp::Imm(len - 1), Comp::None]),
            false => self.alu(AluOp::Umod, [w, Comp::Imm(len), Comp::None]),
        };
        if base > 0 {
            w = self.alu(AluOp::Iadd, [w, Comp::Imm(base), Comp::None]);
        }
        Ok(Some(w))
    }

    /// Per-lane scratch dword address of a deref.
    fn local_address(&mut self, d: &Deref) -> Comp {
        let words = self.f.vars[d.var].words();
        let mask = imm(self.width.lanes() - 1);
        let lane = self.op(
            Op::And,
            Type::UD,
            [
                VSrc::Fixed {
                    grf: 1,
                    ty: Type::UD,
                },
                mask,
                VSrc::Null,
            ],
        );
        let scaled = if words != 1 {
            let s = self.src(lane, Type::UD);
            self.op(Op::Mul, Type::UD, [s, imm(words), VSrc::Null])
        } else {
            lane
        };
        let s = self.src(scaled, Type::UD);
        let base = self.var_base[d.var] + d.off;
        let a = self.op(Op::Add, Type::UD, [s, imm(base), VSrc::Null]);
        match d.dynamic {
            None => a,
            Some(x) => {
                let a = self.src(a, Type::UD);
                let x = self.src(x, Type::UD);
                self.op(Op::Add, Type::UD, [a, x, VSrc::Null])
            }
        }
    }
}

fn imm(bits: u32) -> VSrc {
    VSrc::Imm { bits, ty: Type::UD }
}

fn resource(b: u32) -> Result<u8, CompileError> {
    u8::try_from(b).map_err(|_| bad("buffer index over 255"))
}

fn bad(what: impl Into<String>) -> CompileError {
    CompileError::Unsupported(what.into())
}
