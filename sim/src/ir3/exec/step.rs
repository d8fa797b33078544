//! One instruction: its sync flags, its operands read and checked, its results written, the
//! running group's next PC. Divergence is min-PC scheduling as in our own a6xx model
//! (`crate::a6xx`'s `flow`): a divergent branch parks the fibers going to the later address,
//! and groups merge when they reach the same PC. `(rptN)` runs the instruction N + 1 times,
//! one cycle apart, the destination and every `(r)` source one component further each time.

use super::alu::{self, Kind};
use super::wave::{Class, Loc, Machine, Reader};
use super::Stop;
use crate::ir3::{
    Alu, Body, Dst, Flow, FlowForm, ImmFmt, Instr, Mem, MemForm, Mov, MovForm, MovMulti, Operand,
    Src, Sync, Tex, TexSrc2, Type,
};

/// ir3's float lookup immediates (cat2/cat4 `(0.5)`, `(pi)`, …), as binary32.
const FLUT: [f32; 12] = [
    0.0,
    0.5,
    1.0,
    2.0,
    std::f32::consts::E,
    std::f32::consts::PI,
    std::f32::consts::FRAC_1_PI,
    std::f32::consts::LN_2,
    std::f32::consts::LOG2_E,
    std::f32::consts::LOG10_2,
    std::f32::consts::LOG2_10,
    4.0,
];

/// Integer and bitwise opcodes whose 16-bit form the executor computes (zero-extended
/// halves, result truncated): the ones whose low 16 bits do not depend on the high ones.
const HALF_OK: &[&str] = &[
    "add.u", "add.s", "sub.u", "sub.s", "and.b", "or.b", "xor.b", "not.b", "shl.b", "min.u",
    "max.u", "sel.b16", "cmps.u", "cmps.s", "andg", "shlm", "shlg", "mull.u", "mov", "cov",
    // ir3 counts a 32-bit word's bits 16 at a time on a6xx (`nir_op_bit_count`): `cov` to
    // halves, `cbits.b` of each, `add.s` of the two.
    "cbits.b",
];

/// Opcodes whose result converts to a wider destination by sign extension
/// (`ir3_output_conv_type`'s `TYPE_S32` list, ir3.h).
const SIGN_EXTENDING: &[&str] = &[
    "add.s", "sub.s", "min.s", "max.s", "absneg.s", "mul.s24", "mad.s24",
];

/// Opcodes whose `(sat)` the executor computes (`uadd_sat`, `usub_sat`, `iadd_sat`,
/// `isub_sat`, `ir3_compiler_nir.c`).
const SATURATING: &[&str] = &["add.u", "sub.u", "add.s", "sub.s"];

fn unsupported<T>(what: impl Into<String>) -> Result<T, Stop> {
    Err(Stop::Unsupported(what.into()))
}

/// A saturating add or subtract's result from the wrapping one `r` of `a` and `b`.
fn saturate(name: &str, a: u32, b: u32, r: u32) -> u32 {
    match name {
        "add.u" => a.saturating_add(b),
        "sub.u" => a.saturating_sub(b),
        "add.s" => (a as i32).saturating_add(b as i32) as u32,
        "sub.s" => (a as i32).saturating_sub(b as i32) as u32,
        _ => r,
    }
}

impl Machine<'_> {
    /// Issues `ins`; false when the wave has finished.
    pub fn step(&mut self, ins: &Instr) -> Result<bool, Stop> {
        if ins.flags.ss {
            self.ss_epoch += 1;
        }
        if ins.flags.sy {
            self.sy_epoch += 1;
        }
        if ins.flags.sat && !SATURATING.contains(&ins.name) {
            return unsupported(format!("(sat) on {}", ins.name));
        }
        let start = self.now;
        // `swz`/`gat`/`sct` move one pair per cycle (`ir3_src_read_delay`, `ir3_delay.c`).
        let repeat = match &ins.body {
            Body::MovMulti(m) => m.dsts.len().max(m.srcs.len()) - 1,
            _ => ins.flags.repeat as usize,
        };
        match &ins.body {
            Body::Flow(f) => return self.flow(ins, f),
            Body::Mov(m) => self.repeated(repeat, |s, i| s.mov(ins, m, i))?,
            Body::MovMulti(m) => self.multi(ins, m)?,
            Body::Alu(a) => self.repeated(repeat, |s, i| s.alu(ins, a, i))?,
            Body::Tex(t) => self.tex(ins, t)?,
            Body::Mem(m) => self.mem(ins, m)?,
            Body::Sync(Sync::Alias {
                scope: 0,
                b32,
                dst: Ok(r),
                src,
                ..
            }) => {
                self.aliases.push((Loc::of(*r, !b32)?, *src));
            }
            // a7xx's `(sy)(ss)lock; unlock` before `end` (25.0.7's `ir3_compiler_nir.c`): one
            // wave at a time, nothing to order.
            Body::Sync(Sync::Plain) if matches!(ins.name, "lock" | "unlock") => {}
            // Waves run one after another and every access lands at once: a fence orders
            // nothing more, and a barrier is exact only when the workgroup is one wave.
            Body::Sync(Sync::Barrier { .. }) if ins.name == "fence" => {}
            Body::Sync(Sync::Barrier { .. })
                if ins.name == "bar" && self.dispatch.local_size <= self.dispatch.wave => {}
            Body::Sync(_) | Body::Movmsk(_) => return unsupported(ins.name),
        }
        self.now = start + 1 + repeat as u64 + ins.flags.nop as u64;
        self.pc += 1;
        self.reschedule();
        Ok(true)
    }

    fn repeated(
        &mut self,
        repeat: usize,
        mut each: impl FnMut(&mut Self, usize) -> Result<(), Stop>,
    ) -> Result<(), Stop> {
        let start = self.now;
        for i in 0..=repeat {
            self.now = start + i as u64;
            each(self, i)?;
        }
        Ok(())
    }

    /// The value of `s` in every fiber for an opcode of `kind` read as `how`, `i` steps into
    /// a `(rptN)`; `half`: the opcode computes on 16 bits.
    fn source(
        &mut self,
        s: &Src,
        kind: Kind,
        how: Reader,
        i: usize,
        half_op: bool,
    ) -> Result<Vec<u32>, Stop> {
        let step = if s.r { i } else { 0 };
        let vals = match s.op {
            Operand::Reg { reg, half } => {
                let loc = Loc::of(reg, half)?.offset(step)?;
                self.read_loc(loc, how)
            }
            Operand::Const { index, half: false } => {
                vec![self.konst(index as i64 + step as i64)?; self.w]
            }
            Operand::Imm { value, fmt, half } => {
                let v = match (fmt, half) {
                    (ImmFmt::Flut, false) => FLUT[value as usize].to_bits(),
                    (ImmFmt::Dec | ImmFmt::Hex, false) => value as u32,
                    (ImmFmt::Dec | ImmFmt::Hex, true) if half_op => value as u32 & 0xffff,
                    (ImmFmt::F32, false) => value as u32,
                    _ => return unsupported("a half-precision immediate"),
                };
                vec![v; self.w]
            }
            Operand::RelGpr {
                offset,
                half: false,
            } => self.read_relative(offset + step as i32, how)?,
            other => return unsupported(format!("operand {other:?}")),
        };
        Ok(if s.abs || s.neg {
            vals.into_iter()
                .map(|v| alu::modify(kind, v, s.abs, s.neg))
                .collect()
        } else {
            vals
        })
    }

    /// The class a cat1–3 result into `dst` has, and whether the instruction runs on the
    /// scalar ALU (`is_scalar_alu`, `ir3.c`: shared destination, a chip with the scalar ALU,
    /// and not a mov from a non-uniform register).
    fn alu_class(&self, dst: Loc, plain_mov_from_gpr: bool) -> (Class, bool) {
        match dst {
            l if l.is_shared() && self.chip.scalar_alu && !plain_mov_from_gpr => {
                (Class::Ss { scalar: true }, true)
            }
            l if l.is_shared() => (Class::Ss { scalar: false }, false),
            Loc::A0 | Loc::A1 => (Class::Addr, false),
            _ => (Class::Alu, false),
        }
    }

    fn mov(&mut self, ins: &Instr, m: &Mov, i: usize) -> Result<(), Stop> {
        let (dst, relative) = match (m.form, m.dst) {
            (MovForm::Mova, _) => (Loc::A0, None),
            (MovForm::Mova1, _) => (Loc::A1, None),
            (MovForm::Mov | MovForm::Cov, Dst::Reg(r)) => {
                (Loc::of(r, m.dst_type.is_half())?.offset(i)?, None)
            }
            (MovForm::Mov | MovForm::Cov, Dst::Rel(off)) if !m.dst_type.is_half() => {
                (Loc::Full(0), Some(i32::from(off) + i as i32))
            }
            _ => return unsupported(format!("{} form", ins.name)),
        };
        // `(even)` on an integer-to-float conversion is what it does anyway.
        let int_to_float = m.dst_type == Type::F32 && !matches!(m.src_type, Type::F32 | Type::F16);
        if m.round != 0 && !(m.round == 1 && int_to_float) {
            return unsupported(format!("{} with rounding mode {}", ins.name, m.round));
        }
        if m.src.abs || m.src.neg {
            return unsupported(format!("{} with a source modifier", ins.name));
        }
        let from_gpr = match m.src.op {
            Operand::Reg { reg, half } => !Loc::of(reg, half)?.is_shared(),
            _ => false,
        };
        let (class, scalar) = self.alu_class(dst, from_gpr && m.form == MovForm::Mov);
        let how = Reader {
            scalar,
            ..Reader::default()
        };
        let half_src = m.src_type.is_half();
        let vals = self.source(&m.src, Kind::Int, how, i, half_src)?;
        let (from, to) = (m.src_type.name(), m.dst_type.name());
        let out = match m.form {
            MovForm::Mova => vals
                .iter()
                .map(|&v| v as u16 as i16 as i32 as u32)
                .collect(),
            MovForm::Mova1 => vals.iter().map(|&v| v & 0xffff).collect(),
            _ => {
                let mut out = Vec::with_capacity(vals.len());
                for v in vals {
                    let Some(c) = alu::convert(from, to, v) else {
                        return unsupported(format!("cov.{from}{to}"));
                    };
                    out.push(c);
                }
                out
            }
        };
        match relative {
            Some(offset) => self.write_relative(offset, &out)?,
            None => self.write(dst, &out, class),
        }
        Ok(())
    }

    /// `swz`/`gat`/`sct`: every source read before any destination is written.
    fn multi(&mut self, ins: &Instr, m: &MovMulti) -> Result<(), Stop> {
        if m.src_type != m.dst_type {
            return unsupported(format!("{} between types", ins.name));
        }
        let half = m.src_type.is_half();
        let pairs: Vec<_> = match (m.dsts.len(), m.srcs.len()) {
            (a, b) if a == b => m.dsts.iter().copied().zip(m.srcs.iter().copied()).collect(),
            _ => {
                return unsupported(format!(
                    "{} of {} to {}",
                    ins.name,
                    m.srcs.len(),
                    m.dsts.len()
                ))
            }
        };
        let start = self.now;
        let mut vals = Vec::new();
        for (i, &(_, s)) in pairs.iter().enumerate() {
            self.now = start + i as u64;
            vals.push(self.read_loc(Loc::of(s, half)?, Reader::default()));
        }
        for (i, ((d, _), v)) in pairs.iter().zip(vals).enumerate() {
            self.now = start + i as u64;
            let dst = Loc::of(*d, half)?;
            let (class, _) = self.alu_class(dst, true);
            self.write(dst, &v, class);
        }
        Ok(())
    }

    fn alu(&mut self, ins: &Instr, a: &Alu, i: usize) -> Result<(), Stop> {
        let name = ins.name;
        let dst = Loc::of(a.dst, a.dst_half)?.offset(i)?;
        let half_src = a.srcs.iter().any(|s| {
            matches!(
                s.op,
                Operand::Reg { half: true, .. } | Operand::Const { half: true, .. }
            )
        });
        let base = name
            .get(..6)
            .filter(|b| b.starts_with("cmps."))
            .unwrap_or(name);
        if half_src && !HALF_OK.contains(&base) {
            return unsupported(format!("{name} on half registers"));
        }
        let kind = alu::kind(name);
        let sfu = ins.cat == 4;
        let (class, scalar) = if sfu {
            (Class::Ss { scalar: false }, false)
        } else {
            self.alu_class(dst, false)
        };
        let late_src2 = match self.chip.gen {
            crate::ir3::Gen::A7xx => ins.cat == 3,
            crate::ir3::Gen::A6xx => name.starts_with("mad"),
        };
        let mut srcs = Vec::with_capacity(a.srcs.len());
        for (n, s) in a.srcs.iter().enumerate() {
            let how = Reader {
                other: sfu,
                late: if n == 2 && late_src2 {
                    self.chip.cat3_src2_read()
                } else {
                    0
                },
                scalar,
                ..Reader::default()
            };
            srcs.push(self.source(s, kind, how, i, half_src)?);
        }
        let w = self.w;
        let get = |k: usize, f: usize| srcs.get(k).map_or(0, |v| v[f]);
        let mut out = vec![0u32; w];
        for (f, o) in out.iter_mut().enumerate() {
            let (x, y, z) = (get(0, f), get(1, f), get(2, f));
            let r = if let Some(cond) = a.cond {
                let ty = name.chars().nth(5).unwrap_or('?');
                alu::compare(ty, cond, x, y, half_src).map(u32::from)
            } else if name == "absneg.f" || name == "absneg.s" {
                Some(x)
            } else {
                match ins.cat {
                    2 => alu::cat2(name, x, y),
                    3 => alu::cat3(name, x, y, z),
                    _ => alu::cat4(name, x),
                }
            };
            match r {
                Some(r) if ins.flags.sat => *o = saturate(name, x, y, r),
                Some(r) => *o = r,
                None => return unsupported(name),
            }
        }
        if half_src && !a.dst_half && a.cond.is_none() {
            // Half sources into a full destination: the 16-bit result, extended as ir3 says
            // the opcode's result converts (`ir3_output_conv_type`, ir3.h: the signed adds,
            // min/max and 24-bit multiplies sign-extend, the rest zero-extend). ir3_cf folds
            // a `u2u32`/`i2i32` of the result into the op this way.
            let signed = SIGN_EXTENDING.contains(&name);
            for o in &mut out {
                *o = if signed {
                    *o as u16 as i16 as i32 as u32
                } else {
                    *o & 0xffff
                };
            }
        }
        self.write(dst, &out, class);
        if sfu {
            for s in &a.srcs {
                if let Operand::Reg { reg, half } = s.op {
                    self.read_late(Loc::of(reg, half)?, true);
                }
            }
        }
        Ok(())
    }

    fn flow(&mut self, ins: &Instr, f: &Flow) -> Result<bool, Stop> {
        let pc = self.pc;
        let target = f.offset.map(|o| (pc as i64 + o as i64) as usize);
        let how = Reader {
            other: true,
            ..Reader::default()
        };
        self.now += 1 + ins.flags.repeat as u64;
        let cond = |s: &mut Self, k: usize| -> Result<u128, Stop> {
            let p = f.preds[k];
            let v = s.read_loc(Loc::Pred(p.comp), how);
            Ok(s.active()
                .filter(|&x| (v[x] & 1 != 0) != p.inv)
                .fold(0, |m, x| m | 1 << x))
        };
        match (ins.name, f.form) {
            ("nop" | "shpe", _) => self.pc += 1,
            // The preamble runs in every wave (`docs/ir3-execute.md`): its const writes are
            // the same each time, and its shared registers are the wave's.
            ("shps", _) => self.pc += 1,
            ("end", _) => return Ok(self.end_group()),
            ("jump", _) => self.pc = target.unwrap_or(pc + 1),
            ("getone", _) => {
                let keep = self.mask & self.mask.wrapping_neg();
                self.branch(self.mask & !keep, target.unwrap_or(pc + 1));
            }
            ("br", FlowForm::Branch1) => {
                let t = cond(self, 0)?;
                self.branch(t, target.unwrap_or(pc + 1));
            }
            ("bany" | "ball", FlowForm::Branch1) => {
                let t = cond(self, 0)?;
                let all = if ins.name == "bany" {
                    t != 0
                } else {
                    t == self.mask
                };
                let taken = if all { self.mask } else { 0 };
                self.branch(taken, target.unwrap_or(pc + 1));
            }
            ("brao" | "braa", FlowForm::Branch2) => {
                let (a, b) = (cond(self, 0)?, cond(self, 1)?);
                let t = if ins.name == "brao" { a | b } else { a & b };
                self.branch(t, target.unwrap_or(pc + 1));
            }
            ("predt" | "predf", _) => {
                // The first of `predt`/`predf` starts the region, the other switches to the
                // remaining fibers of it; `prede` ends it.
                let all = *self.predicated.get_or_insert(self.mask);
                self.mask = all;
                let v = self.read_loc(Loc::Pred(0), how);
                let holds = self
                    .active()
                    .filter(|&x| v[x] & 1 != 0)
                    .fold(0u128, |m, x| m | 1 << x);
                self.mask = if ins.name == "predt" {
                    holds
                } else {
                    all & !holds
                };
                self.pc += 1;
            }
            ("prede", _) => {
                match self.predicated.take() {
                    Some(all) => self.mask = all,
                    None => return unsupported("prede without predt"),
                }
                self.pc += 1;
            }
            (name, _) => return unsupported(name),
        }
        self.now += ins.flags.nop as u64;
        self.reschedule();
        Ok(true)
    }

    /// A per-fiber branch: `taken` go to `target`, the rest to the next instruction.
    fn branch(&mut self, taken: u128, target: usize) {
        let next = self.pc + 1;
        let stay = self.mask & !taken;
        if taken == 0 {
            self.pc = next;
        } else if stay == 0 {
            self.pc = target;
        } else if target < next {
            self.mask = taken;
            self.pc = target;
            self.park(next, stay);
        } else {
            self.mask = stay;
            self.pc = next;
            self.park(target, taken);
        }
    }

    fn park(&mut self, pc: usize, mask: u128) {
        match self.parked.iter_mut().find(|g| g.0 == pc) {
            Some(g) => g.1 |= mask,
            None => self.parked.push((pc, mask)),
        }
    }

    fn unpark_min(&mut self) -> Option<(usize, u128)> {
        let k = (0..self.parked.len()).min_by_key(|&k| self.parked[k].0)?;
        Some(self.parked.swap_remove(k))
    }

    /// The min-PC rule after the running group moved.
    fn reschedule(&mut self) {
        // A predicated region (`predt` … `prede`, no branches inside) runs to its end first:
        // its mask is the group's until `prede` restores it.
        if self.predicated.is_some() {
            return;
        }
        let Some(min) = self.parked.iter().map(|g| g.0).min() else {
            return;
        };
        if min > self.pc {
            return;
        }
        let (pc, mask) = self.unpark_min().expect("a parked group");
        if pc == self.pc {
            self.mask |= mask;
        } else {
            self.park(self.pc, self.mask);
            self.pc = pc;
            self.mask = mask;
        }
    }

    /// Retires the running group; false when the wave has no fibers left.
    fn end_group(&mut self) -> bool {
        match self.unpark_min() {
            Some((pc, mask)) => {
                self.pc = pc;
                self.mask = mask;
                true
            }
            None => false,
        }
    }

    /// The buffer a bindless descriptor index names.
    fn buffer_of(&self, base: Option<u8>, index: u32) -> Result<usize, Stop> {
        if base != Some(0) {
            return unsupported(format!("descriptor base {base:?}"));
        }
        match self.dispatch.descriptors.get(&index) {
            Some(super::Descriptor::Buffer(b)) => Ok(*b),
            Some(_) => unsupported("an image accessed as a buffer"),
            None => unsupported(format!(
                "descriptor {index} of set 0, which no binding fills"
            )),
        }
    }

    /// A 32-bit element type's check.
    fn word_type(&self, ins: &Instr, ty: Option<Type>) -> Result<(), Stop> {
        match ty {
            Some(Type::U32 | Type::S32 | Type::F32) => Ok(()),
            _ => unsupported(format!(
                "{} of {}",
                ins.name,
                ty.map_or("no type", |t| t.name())
            )),
        }
    }

    /// Element `e` of buffer `b` as a load reads it: 0 outside the buffer, as the descriptor's
    /// element count bounds it [inferred] — ir3 hoists reorderable loads out of the branch
    /// that guards them, so a load outside a buffer is no sign of wrong code.
    fn load_element(&self, b: usize, e: u32) -> u32 {
        self.buffers[b].get(e as usize).copied().unwrap_or(0)
    }

    /// Element `e` of buffer `b`, stored by fiber `f`. Outside the buffer is a fault: the
    /// emitter keeps every access of a program inside its buffers.
    fn element(&mut self, f: usize, b: usize, e: u32) -> Result<&mut u32, Stop> {
        let len = self.buffers[b].len();
        if e as usize >= len {
            return Err(
                self.fiber_fault(f, format!("an access to element {e} of a buffer of {len}"))
            );
        }
        Ok(&mut self.buffers[b][e as usize])
    }

    /// Component `k` of a cat5 source vector at `base`, through the `alias.tex` table (a7xx:
    /// `ir3_alias.c` lets an entry stand for a source register).
    fn tex_source(
        &mut self,
        base: Loc,
        k: usize,
        aliases: &[(Loc, Operand)],
    ) -> Result<Vec<u32>, Stop> {
        let how = Reader {
            other: true,
            ..Reader::default()
        };
        let loc = base.offset(k)?;
        let keep = if loc.half() { 0xffff } else { u32::MAX };
        match aliases.iter().find(|(l, _)| *l == loc).map(|(_, o)| *o) {
            Some(Operand::Imm { value, .. }) => Ok(vec![value as u32 & keep; self.w]),
            Some(Operand::Reg { reg, half }) => {
                let l = Loc::of(reg, half)?;
                self.read_late(l, false);
                Ok(self.read_loc(l, how))
            }
            Some(Operand::Const { index, half: false }) => {
                Ok(vec![self.konst(i64::from(index))?; self.w])
            }
            Some(other) => unsupported(format!("alias.tex of {other:?}")),
            None => {
                self.read_late(loc, false);
                Ok(self.read_loc(loc, how))
            }
        }
    }

    /// cat5 on the emitter's two kinds of descriptor: `isam` of a storage buffer (a
    /// read-only load, `emit_readonly_load_uav`: element coordinates, `.v` loading one element
    /// per written component from the coordinate plus the immediate offset) and, on a 2D-array
    /// image, `isam`/`isaml` (integer texel fetch) and `sam`/`saml` (nearest sample) with the
    /// sources `emit_tex` (`ir3_compiler_nir.c`) lays out: `(x, y, layer)` in the first, the
    /// level in the second.
    fn tex(&mut self, ins: &Instr, t: &Tex) -> Result<(), Stop> {
        let aliases = std::mem::take(&mut self.aliases);
        let name = ins.name;
        // A descriptor prefetch in the preamble (`prefetch_tex_ir3`): no destination.
        if t.dst == (crate::ir3::Reg::Gpr { num: 63, comp: 0 }) {
            return Ok(());
        }
        if !matches!(name, "isam" | "isaml" | "sam" | "saml") {
            return unsupported(format!("{name} (texture op)"));
        }
        let shape = [
            (t.is_3d, ".3d"),
            (t.offset, ".o"),
            (t.p, ".p"),
            (t.dst_half, "a half destination"),
            (t.ty != Some(Type::U32), "a type other than u32"),
        ];
        if let Some((_, what)) = shape.iter().find(|(on, _)| *on) {
            return unsupported(format!("{name} with {what}"));
        }
        let (Some(ind), Some(src)) = (t.indirect, t.src1) else {
            return unsupported(format!("{name} without a bindless descriptor"));
        };
        let index = t.tex.unwrap_or(0);
        if !ind.bindless || ind.src3.is_some() || ind.base != 0 {
            return unsupported(format!("{name} descriptor mode {}", ind.desc_mode));
        }
        // With `a1.x` in the descriptor, a6xx takes the texture from it and a7xx the sampler
        // (`#cat5-s2en-bindless-desc-mode`); the sampler is the one kind there is.
        let index = if ind.a1 && self.chip.gen == crate::ir3::Gen::A6xx {
            let a1 = self.read_loc(
                Loc::A1,
                Reader {
                    other: true,
                    ..Reader::default()
                },
            );
            match self.active().next() {
                Some(f) => a1[f] as u8,
                None => index,
            }
        } else {
            index
        };
        let comps: Vec<usize> = (0..4).filter(|c| t.wrmask >> c & 1 != 0).collect();
        let coord = Loc::of(src, t.src_half)?;
        let dst = Loc::of(t.dst, false)?;
        // Half sources are 16-bit integers or binary16 floats, widened.
        let float = |v: u32| {
            if t.src_half {
                crate::ir3::print::f16_to_f64(v as u16) as f32
            } else {
                f32::from_bits(v)
            }
        };
        let fibers: Vec<usize> = self.active().collect();
        let mut outs = vec![vec![0u32; self.w]; comps.len()];
        match self.dispatch.descriptors.get(&(index as u32)) {
            Some(super::Descriptor::Buffer(b)) if name == "isam" && !t.array => {
                let b = *b;
                let x = self.tex_source(coord, 0, &aliases)?;
                let off = match t.src2 {
                    TexSrc2::ImmOffset(n) => n as u32,
                    TexSrc2::None => 0,
                    TexSrc2::Reg(_) => return unsupported("isam with a register offset"),
                };
                // `.v` loads one element per component; otherwise the one element is a
                // single-channel texel, read as `(r, 0, 0, 1)`.
                for (&c, out) in comps.iter().zip(outs.iter_mut()) {
                    for &f in &fibers {
                        out[f] = match (t.sv, c) {
                            (true, _) | (false, 0) => {
                                let e = x[f].wrapping_add(off).wrapping_add(t.sv as u32 * c as u32);
                                self.load_element(b, e)
                            }
                            (false, 3) => 1,
                            (false, _) => 0,
                        };
                    }
                }
            }
            Some(super::Descriptor::Texture(image)) => {
                let image = *image;
                let x = self.tex_source(coord, 0, &aliases)?;
                let y = self.tex_source(coord, 1, &aliases)?;
                let layer = if t.array {
                    self.tex_source(coord, 2, &aliases)?
                } else {
                    vec![0; self.w]
                };
                let lod = match (name, t.src2) {
                    ("isaml" | "saml", TexSrc2::Reg(r)) => {
                        self.tex_source(Loc::of(r, t.src_half)?, 0, &aliases)?
                    }
                    ("isam" | "sam", TexSrc2::None) => vec![0; self.w],
                    _ => return unsupported(format!("{name} with those sources")),
                };
                for &f in &fibers {
                    let img = &self.dispatch.images[image];
                    let texel = if name.starts_with("isam") {
                        img.fetch(x[f], y[f], lod[f], layer[f])
                    } else {
                        img.sample(float(x[f]), float(y[f]), float(lod[f]), float(layer[f]))
                    };
                    let texel = texel.map_err(|miss| match miss {
                        crate::image::Miss::Unmodelled(why) => Stop::Unsupported(why),
                        crate::image::Miss::Outside(why) => self.fiber_fault(f, why),
                    })?;
                    for (k, &c) in comps.iter().enumerate() {
                        outs[k][f] = texel[c];
                    }
                }
            }
            Some(_) => return unsupported(format!("{name} of descriptor {index} of that kind")),
            None => {
                return unsupported(format!(
                    "descriptor {index} of set 0, which no binding fills"
                ))
            }
        }
        // Component `c` lands in `dst + c` (a register mask relative to `dst`, as
        // `regmask_set` reads `dsts[0]`'s wrmask in `ir3_legalize.c`).
        for (&c, out) in comps.iter().zip(&outs) {
            self.write(dst.offset(c)?, out, Class::Sy);
        }
        Ok(())
    }

    fn mem(&mut self, ins: &Instr, m: &Mem) -> Result<(), Stop> {
        let how = Reader {
            other: true,
            ..Reader::default()
        };
        let reg_of = |o: &Operand| match *o {
            Operand::Reg { reg, half } => Loc::of(reg, half),
            ref other => Err(Stop::Unsupported(format!("{} operand {other:?}", ins.name))),
        };
        // A per-fiber value: a register's, or an immediate's.
        let value = |s: &mut Self, o: &Operand| -> Result<Vec<u32>, Stop> {
            match *o {
                Operand::Imm { value, .. } => Ok(vec![value as u32; s.w]),
                _ => {
                    let l = reg_of(o)?;
                    Ok(s.read_loc(l, how))
                }
            }
        };
        let fibers: Vec<usize> = self.active().collect();
        match (m.form, ins.name) {
            (MemForm::IboLdSt, "stib.b" | "ldib.b") => {
                if m.typed || m.dim != 1 {
                    return unsupported(format!("{} typed or {}d", ins.name, m.dim));
                }
                self.word_type(ins, Some(m.ty))?;
                let index = value(self, &m.srcs[2])?;
                let offset = value(self, &m.srcs[1])?;
                self.read_late(reg_of(&m.srcs[1])?, ins.name == "stib.b");
                let data = reg_of(&m.srcs[0])?;
                for k in 0..m.type_size as usize {
                    let loc = data.offset(k)?;
                    if ins.name == "stib.b" {
                        let v = self.read_loc(loc, how);
                        self.read_late(loc, true);
                        for &f in &fibers {
                            let b = self.buffer_of(m.base, index[f])?;
                            let e = offset[f].wrapping_add(m.off as u32 + k as u32);
                            *self.element(f, b, e)? = v[f];
                            self.traced_store(f, || format!("t#{}[{e}]", index[f]), v[f]);
                        }
                    } else {
                        let mut out = vec![0; self.w];
                        for &f in &fibers {
                            let b = self.buffer_of(m.base, index[f])?;
                            let e = offset[f].wrapping_add(m.off as u32 + k as u32);
                            out[f] = self.load_element(b, e);
                        }
                        self.write(loc, &out, Class::Sy);
                    }
                }
            }
            (MemForm::Res1Src, "resinfo.b") => match m.dst {
                // A descriptor prefetch (`prefetch_tex_ir3`): no destination.
                Some(Operand::Reg {
                    reg: crate::ir3::Reg::Gpr { num: 63, comp: 0 },
                    ..
                }) => {}
                _ => return unsupported("resinfo.b with a destination"),
            },
            (MemForm::Ldp | MemForm::Stp, _) | (MemForm::Ldl | MemForm::Stl, "ldl" | "stl") => {
                let local = matches!(m.form, MemForm::Ldl | MemForm::Stl);
                let store = matches!(m.form, MemForm::Stp | MemForm::Stl);
                let size = match m.ty {
                    Type::U32 | Type::S32 | Type::F32 => 4,
                    Type::U16 | Type::S16 | Type::F16 => 2,
                    other => return unsupported(format!("{} of {}", ins.name, other.name())),
                };
                let (addr, data) = match store {
                    false => (&m.srcs[0], m.dst.as_ref()),
                    true => (m.dst.as_ref().unwrap_or(&m.srcs[0]), m.srcs.first()),
                };
                let base = value(self, addr)?;
                // The data register is as wide as the type, whether or not ir3 prints its `h`
                // (`stp.u16 p[r1.x], r13.w, 1` stores `hr13.w`).
                let data = match data {
                    Some(Operand::Reg { reg, .. }) => Loc::of(*reg, size == 2)?,
                    _ => return unsupported(format!("{} data", ins.name)),
                };
                let mask = if size == 4 { u32::MAX } else { 0xffff };
                for k in 0..m.size as usize {
                    let loc = data.offset(k)?;
                    let byte = |f: usize| base[f].wrapping_add(m.off as u32 + size * k as u32);
                    let space = if local { "l" } else { "p" };
                    if store {
                        let v = self.read_loc(loc, how);
                        self.read_late(loc, true);
                        for &f in &fibers {
                            let (word, shift) = match local {
                                true => self.local_word(byte(f), size)?,
                                false => self.private_word(f, byte(f), size)?,
                            };
                            *word = (*word & !(mask << shift)) | (v[f] & mask) << shift;
                            self.traced_store(f, || format!("{space}[{}]", byte(f)), v[f] & mask);
                        }
                    } else {
                        let mut out = vec![0; self.w];
                        for &f in &fibers {
                            let (word, shift) = match local {
                                true => self.local_word(byte(f), size)?,
                                false => self.private_word(f, byte(f), size)?,
                            };
                            out[f] = (*word >> shift) & mask;
                        }
                        // Local-memory loads are ss-class, private ones sy-class (rules.rs).
                        let class = match local {
                            true => Class::Ss { scalar: false },
                            false => Class::Sy,
                        };
                        self.write(loc, &out, class);
                    }
                }
            }
            (MemForm::Stc, _) => {
                self.word_type(ins, Some(m.ty))?;
                let Some(Operand::Imm { value: at, .. }) = m.dst else {
                    return unsupported("stc destination");
                };
                let mut at = at as usize;
                if m.flag {
                    let a1 = self.read_loc(Loc::A1, how);
                    at += fibers.first().map_or(0, |&f| a1[f] as usize);
                }
                let src = reg_of(&m.srcs[0])?;
                for k in 0..m.size as usize {
                    let loc = src.offset(k)?;
                    let v = self.read_loc(loc, how);
                    self.read_late(loc, true);
                    let Some(&f) = fibers.first() else {
                        break;
                    };
                    self.write_const(at + k, v[f], false)?;
                }
            }
            (MemForm::Ldc, _) => {
                // `ldc.offsetN.S.mode dst, vec4, ubo`: S words from word `4 · vec4 + N` of a
                // UBO slot, into consecutive registers.
                if m.base.is_some() {
                    return unsupported("bindless ldc");
                }
                self.word_type(ins, Some(m.ty))?;
                let at = value(self, &m.srcs[0])?;
                let block = value(self, &m.srcs[1])?;
                let dst = match m.dst {
                    Some(Operand::Reg { reg, half: false }) => Loc::of(reg, false)?,
                    _ => return unsupported("ldc destination"),
                };
                let mut outs = vec![vec![0u32; self.w]; m.type_size as usize];
                for &f in &fibers {
                    let Some(ubo) = self.dispatch.ubos.get(&block[f]) else {
                        return unsupported(format!(
                            "ldc from UBO {}, which no binding fills",
                            block[f]
                        ));
                    };
                    for (k, out) in outs.iter_mut().enumerate() {
                        let word = 4 * at[f] as usize + m.off as usize + k;
                        out[f] = ubo.get(word).copied().unwrap_or(0);
                    }
                }
                for (k, out) in outs.iter().enumerate() {
                    self.write(dst.offset(k)?, out, Class::Sy);
                }
            }
            (MemForm::LdcK, _) => {
                if m.base.is_some() {
                    return unsupported("bindless ldc.k");
                }
                let a1 = self.read_loc(Loc::A1, how);
                let off = value(self, &m.srcs[0])?;
                let block = value(self, &m.srcs[1])?;
                let Some(&f) = fibers.first() else {
                    return Ok(());
                };
                let Some(ubo) = self.dispatch.ubos.get(&block[f]) else {
                    return unsupported(format!(
                        "ldc.k from UBO {}, which no binding fills",
                        block[f]
                    ));
                };
                let (dst, from) = (a1[f] as usize, 4 * off[f] as usize);
                let words: Vec<u32> = (0..4 * m.size as usize)
                    .map(|k| ubo.get(from + k).copied().unwrap_or(0))
                    .collect();
                for (k, v) in words.into_iter().enumerate() {
                    self.write_const(dst + k, v, true)?;
                }
            }
            _ => return unsupported(ins.name),
        }
        Ok(())
    }
}
