//! Disassembly in Mesa's ir3 syntax: `(sy)mul.f r1.x, r1.x, c0.x`, `brao !p0.x, !p0.y, #7`,
//! `stp.u32 p[r0.x+16], r2.y, 1`, and a whole-program listing with instruction indices.
//!
//! Immediates print as `(1.5)` where the instruction reads floats (hex if the bits are a NaN),
//! else decimal, or hex above 0xffff. Texture sources print as the range of registers sent
//! (`r0.x..r0.z`), the textures as `t#N`, buffers as `g<b>[…]`, outputs as `o[…]`.

use std::fmt;

use super::isa::{
    Addr, Binary, CmpType, Conv, DivOp, Instr, Op, Program, SfuOp, Space, Ternary, Unary,
};
use super::reg::{fmt_const, Src};

/// A source printed with knowledge of whether the instruction reads floats.
struct S(Src, bool);

impl fmt::Display for S {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Src::Reg(r) => write!(f, "{r}"),
            Src::Const(k) => fmt_const(f, k),
            Src::Imm(v) if self.1 && !f32::from_bits(v).is_nan() => {
                write!(f, "({:?})", f32::from_bits(v))
            }
            Src::Imm(v) if v > 0xffff => write!(f, "0x{v:08x}"),
            Src::Imm(v) => write!(f, "{v}"),
        }
    }
}

struct A(Space, Addr);

impl fmt::Display for A {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Space::Global(b) => write!(f, "g{b}[")?,
            Space::Output => write!(f, "o[")?,
            Space::Private => write!(f, "p[")?,
            Space::Uniform => write!(f, "c[")?,
            Space::Local => write!(f, "l[")?,
        }
        match (self.1.base, self.1.offset) {
            (Some(r), 0) => write!(f, "{r}]"),
            (Some(r), o) if o < 0 => write!(f, "{r}{o}]"),
            (Some(r), o) => write!(f, "{r}+{o}]"),
            (None, o) => write!(f, "{o}]"),
        }
    }
}

fn binary_name(op: Binary) -> (&'static str, bool) {
    match op {
        Binary::AddF => ("add.f", true),
        Binary::MulF => ("mul.f", true),
        Binary::MinF => ("min.f", true),
        Binary::MaxF => ("max.f", true),
        Binary::AddU => ("add.u", false),
        Binary::SubU => ("sub.u", false),
        Binary::MulLU => ("mull.u", false),
        Binary::AndB => ("and.b", false),
        Binary::OrB => ("or.b", false),
        Binary::XorB => ("xor.b", false),
        Binary::ShlB => ("shl.b", false),
        Binary::ShrB => ("shr.b", false),
        Binary::AshrB => ("ashr.b", false),
        Binary::MinS => ("min.s", false),
        Binary::MaxS => ("max.s", false),
        Binary::MinU => ("min.u", false),
        Binary::MaxU => ("max.u", false),
    }
}

fn unary_src(
    f: &mut fmt::Formatter<'_>,
    src: Src,
    float: bool,
    abs: bool,
    neg: bool,
) -> fmt::Result {
    let s = S(src, float);
    match (abs, neg) {
        (false, false) => write!(f, "{s}"),
        (false, true) => write!(f, "-{s}"),
        (true, false) => write!(f, "|{s}|"),
        (true, true) => write!(f, "-|{s}|"),
    }
}

fn mask_name(mask: u8) -> String {
    "xyzw"
        .chars()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .map(|(_, c)| c)
        .collect()
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Op::Nop { repeat: 0 } => write!(f, "nop"),
            Op::Nop { repeat } => write!(f, "(rpt{repeat})nop"),
            Op::Jump { offset } => write!(f, "jump #{offset}"),
            Op::Br { cond, offset } => write!(f, "br {cond}, #{offset}"),
            Op::Braa { a, b, offset } => write!(f, "braa {a}, {b}, #{offset}"),
            Op::Brao { a, b, offset } => write!(f, "brao {a}, {b}, #{offset}"),
            Op::Bany { cond, offset } => write!(f, "bany {cond}, #{offset}"),
            Op::Ball { cond, offset } => write!(f, "ball {cond}, #{offset}"),
            Op::Getone { offset } => write!(f, "getone #{offset}"),
            Op::End => write!(f, "end"),
            Op::Mov { dst, src } => write!(f, "mov.u32u32 {dst}, {}", S(src, false)),
            Op::Cov { conv, dst, src } => {
                let (name, float) = match conv {
                    Conv::F32S32 => ("cov.f32s32", true),
                    Conv::F32U32 => ("cov.f32u32", true),
                    Conv::S32F32 => ("cov.s32f32", false),
                    Conv::U32F32 => ("cov.u32f32", false),
                };
                write!(f, "{name} {dst}, {}", S(src, float))
            }
            Op::Alu1 { op, dst, src } => {
                let (name, float, abs, neg) = match op {
                    Unary::NotB => ("not.b", false, false, false),
                    Unary::AbsNegF { abs, neg } => ("absneg.f", true, abs, neg),
                    Unary::AbsNegS { abs, neg } => ("absneg.s", false, abs, neg),
                    Unary::FloorF => ("floor.f", true, false, false),
                    Unary::CeilF => ("ceil.f", true, false, false),
                    Unary::TruncF => ("trunc.f", true, false, false),
                    Unary::RndneF => ("rndne.f", true, false, false),
                };
                write!(f, "{name} {dst}, ")?;
                unary_src(f, src, float, abs, neg)
            }
            Op::Alu2 { op, dst, a, b } => {
                let (name, fl) = binary_name(op);
                write!(f, "{name} {dst}, {}, {}", S(a, fl), S(b, fl))
            }
            Op::Cmps {
                ty,
                cond,
                dst,
                a,
                b,
            } => {
                let t = match ty {
                    CmpType::F => "f",
                    CmpType::U => "u",
                    CmpType::S => "s",
                };
                let c = cond.name();
                let fl = ty == CmpType::F;
                write!(f, "cmps.{t}.{c} {dst}, {}, {}", S(a, fl), S(b, fl))
            }
            Op::Alu3 { op, dst, a, b, c } => {
                let (name, fl) = match op {
                    Ternary::MadF32 => ("mad.f32", true),
                    Ternary::MadU24 => ("mad.u24", false),
                    Ternary::SelB32 => ("sel.b32", false),
                };
                write!(f, "{name} {dst}, {}, {}, {}", S(a, fl), S(b, fl), S(c, fl))
            }
            Op::Sfu { op, dst, src } => {
                let name = match op {
                    SfuOp::Rcp => "rcp",
                    SfuOp::Rsq => "rsq",
                    SfuOp::Sqrt => "sqrt",
                    SfuOp::Log2 => "log2",
                    SfuOp::Exp2 => "exp2",
                    SfuOp::Sin => "sin",
                    SfuOp::Cos => "cos",
                };
                write!(f, "{name} {dst}, {}", S(src, true))
            }
            Op::Div { op, dst, a, b } => {
                let name = match op {
                    DivOp::Udiv => "udiv",
                    DivOp::Umod => "umod",
                    DivOp::Idiv => "idiv",
                    DivOp::Irem => "irem",
                    DivOp::Imod => "imod",
                };
                write!(f, "{name} {dst}, {}, {}", S(a, false), S(b, false))
            }
            Op::Tex {
                op,
                dst,
                wrmask,
                src,
                params,
                tex,
            } => {
                let name = op.name();
                write!(f, "{name} (f32)({}){dst}, {src}", mask_name(wrmask))?;
                if params > 1 {
                    match src.add(params - 1) {
                        Some(last) => write!(f, "..{last}")?,
                        None => write!(f, "..+{}", params - 1)?,
                    }
                }
                write!(f, ", t#{tex}")
            }
            Op::Load {
                space,
                dst,
                addr,
                count,
            } => {
                let name = match space {
                    Space::Global(_) | Space::Output => "ldg",
                    Space::Private => "ldp",
                    Space::Uniform => "ldc",
                    Space::Local => "ldl",
                };
                write!(f, "{name}.u32 {dst}, {}, {count}", A(space, addr))
            }
            Op::Store {
                space,
                addr,
                src,
                count,
            } => {
                let name = match space {
                    Space::Global(_) | Space::Output => "stg",
                    Space::Private => "stp",
                    Space::Uniform => "stc",
                    Space::Local => "stl",
                };
                write!(f, "{name}.u32 {}, {src}, {count}", A(space, addr))
            }
        }
    }
}

impl fmt::Display for Instr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fl = self.flags;
        if fl.sy {
            write!(f, "(sy)")?;
        }
        if fl.ss {
            write!(f, "(ss)")?;
        }
        if fl.jp {
            write!(f, "(jp)")?;
        }
        if fl.nop > 0 {
            write!(f, "(nop{})", fl.nop)?;
        }
        write!(f, "{}", self.op)
    }
}

impl fmt::Display for Program {
    /// One instruction per line, prefixed by its index: `   3: (jp)add.f r0.y, r0.x, r0.z`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, ins) in self.instrs.iter().enumerate() {
            writeln!(f, "{i:4}: {ins}")?;
        }
        Ok(())
    }
}
