//! Disassembly in the style of Mesa's brw disassembler: `add(8) g10<1>F g4<8,8,1>F 0x1D`,
//! `(+f0.0) sel(16) ...`, `cmp.l.f0.0(8) null<1>D ...`, `send(16) g10<1>UD g2<8,8,1>UD
//! sampler ld surface 0 mlen 4 rlen 8`, `if(8) JIP: 5 UIP: 9`; and whole-program listings
//! with instruction indices.

use super::isa::{
    CondMod, Dst, ExecSize, Flag, Inst, MathFn, Op, Pred, Program, Region, Src, Type,
};
use super::send::{Message, SendDesc, Surface};
use std::fmt;

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Type::UD => "UD",
            Type::D => "D",
            Type::F => "F",
        })
    }
}

impl fmt::Display for Flag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Flag::F0_0 => "f0.0",
            Flag::F0_1 => "f0.1",
            Flag::F1_0 => "f1.0",
            Flag::F1_1 => "f1.1",
        })
    }
}

impl fmt::Display for CondMod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CondMod::Z => "z",
            CondMod::Nz => "nz",
            CondMod::L => "l",
            CondMod::Le => "le",
            CondMod::G => "g",
            CondMod::Ge => "ge",
        })
    }
}

impl fmt::Display for Src {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Src::Null => f.write_str("null"),
            Src::Imm { bits, ty: Type::F } => {
                let x = f32::from_bits(bits);
                if x.is_finite() {
                    write!(f, "{x:?}F")
                } else {
                    write!(f, "0x{bits:08x}F")
                }
            }
            Src::Imm { bits, ty } => write!(f, "0x{bits:x}{ty}"),
            Src::Grf(g) => {
                if g.neg {
                    f.write_str("-")?;
                }
                if g.abs {
                    f.write_str("(abs)")?;
                }
                write!(f, "g{}", g.reg)?;
                if g.subreg != 0 || g.region == Region::Scalar {
                    write!(f, ".{}", g.subreg)?;
                }
                match g.region {
                    Region::Vector => write!(f, "<8,8,1>{}", g.ty),
                    Region::Scalar => write!(f, "<0,1,0>{}", g.ty),
                }
            }
        }
    }
}

impl fmt::Display for Dst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Dst::Null(ty) => write!(f, "null<1>{ty}"),
            Dst::Grf { reg, subreg: 0, ty } => write!(f, "g{reg}<1>{ty}"),
            Dst::Grf { reg, subreg, ty } => write!(f, "g{reg}.{subreg}<1>{ty}"),
        }
    }
}

impl fmt::Display for MathFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MathFn::Inv => "inv",
            MathFn::Sqrt => "sqrt",
            MathFn::Rsq => "rsq",
            MathFn::Exp => "exp",
            MathFn::Log => "log",
            MathFn::Sin => "sin",
            MathFn::Cos => "cos",
            MathFn::Pow => "pow",
            MathFn::IntDiv => "intdiv",
            MathFn::IntMod => "intmod",
        })
    }
}

impl fmt::Display for Surface {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Surface::Buffer(b) => write!(f, "buffer {b}"),
            Surface::Uniform => f.write_str("uniform"),
            Surface::Output => f.write_str("output"),
            Surface::Shared => f.write_str("shared"),
        }
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Message::Sampler { op, texture, dim } => {
                write!(f, "sampler {} surface {texture}", op.name())?;
                if *dim != crate::semantics::TexDim::D2 {
                    write!(f, " {}", dim.name())?;
                }
                Ok(())
            }
            Message::UntypedRead { surface, channels } => {
                write!(f, "dp untyped read {surface} ch {channels}")
            }
            Message::UntypedWrite { surface, channels } => {
                write!(f, "dp untyped write {surface} ch {channels}")
            }
            Message::UntypedAtomic { surface, op } => {
                write!(f, "dp untyped atomic {} {surface}", op.name())
            }
            Message::ScratchBlockRead { regs, offset } => {
                write!(f, "scratch block read regs {regs}")?;
                match offset {
                    Some(o) => write!(f, " offset {o}"),
                    None => Ok(()),
                }
            }
            Message::ScratchBlockWrite { regs } => write!(f, "scratch block write regs {regs}"),
            Message::ScratchRead { channels } => write!(f, "scratch scattered read ch {channels}"),
            Message::ScratchWrite { channels } => {
                write!(f, "scratch scattered write ch {channels}")
            }
        }
    }
}

impl fmt::Display for SendDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} mlen {} rlen {}", self.msg, self.mlen, self.rlen)
    }
}

fn mnemonic(op: &Op) -> String {
    match op {
        Op::Mov => "mov".into(),
        Op::Sel => "sel".into(),
        Op::Not => "not".into(),
        Op::And => "and".into(),
        Op::Or => "or".into(),
        Op::Xor => "xor".into(),
        Op::Shl => "shl".into(),
        Op::Shr => "shr".into(),
        Op::Asr => "asr".into(),
        Op::Add => "add".into(),
        Op::Mul => "mul".into(),
        Op::Mad => "mad".into(),
        Op::Cmp => "cmp".into(),
        Op::Frc => "frc".into(),
        Op::Rndd => "rndd".into(),
        Op::Rndz => "rndz".into(),
        Op::Rnde => "rnde".into(),
        Op::Math(m) => format!("math {m}"),
        Op::If { .. } => "if".into(),
        Op::Else { .. } => "else".into(),
        Op::EndIf => "endif".into(),
        Op::Do => "do".into(),
        Op::While { .. } => "while".into(),
        Op::Break { .. } => "break".into(),
        Op::Cont { .. } => "cont".into(),
        Op::Send(_) => "send".into(),
        Op::Nop => "nop".into(),
    }
}

impl fmt::Display for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pred {
            Pred::None => {}
            Pred::Normal => write!(f, "(+{}) ", self.flag)?,
            Pred::Inverted => write!(f, "(-{}) ", self.flag)?,
        }
        let mut head = mnemonic(&self.op);
        if let Some(c) = self.cmod {
            head.push_str(&format!(".{c}"));
            if !matches!(self.op, Op::Sel) {
                head.push_str(&format!(".{}", self.flag));
            }
        }
        head.push_str(&format!("({})", self.exec_size.lanes()));
        match self.op {
            Op::If { jip, uip } => return write!(f, "{head} JIP: {jip} UIP: {uip}"),
            Op::Else { jip } | Op::While { jip } => return write!(f, "{head} JIP: {jip}"),
            Op::Break { uip } | Op::Cont { uip } => return write!(f, "{head} UIP: {uip}"),
            Op::EndIf | Op::Do | Op::Nop => return f.write_str(&head),
            _ => {}
        }
        let mut line = format!("{head:<16} {:<14}", self.dst.to_string());
        for s in &self.src {
            if *s != Src::Null {
                line.push_str(&format!(" {:<16}", s.to_string()));
            }
        }
        if let Op::Send(d) = self.op {
            line = format!("{} {d}", line.trim_end());
        }
        f.write_str(line.trim_end())?;
        let mut opts = Vec::new();
        if self.no_mask {
            opts.push("WE_all".to_string());
        }
        if self.group != 0 {
            opts.push(match self.exec_size {
                ExecSize::S8 => "2Q".to_string(),
                _ => format!("ch{}", self.group),
            });
        }
        if let Op::Send(d) = self.op {
            if d.header {
                opts.push("header".into());
            }
            if d.eot {
                opts.push("EOT".into());
            }
        }
        if !opts.is_empty() {
            write!(f, " {{ {} }}", opts.join(" "))?;
        }
        Ok(())
    }
}

impl fmt::Display for Program {
    /// One instruction per line, prefixed by its index (the numbers JIP/UIP refer to).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let gen = match self.gen {
            super::isa::Gen::Gen7 => 7,
            super::isa::Gen::Gen9 => 9,
        };
        writeln!(f, "// SIMD{} gen{}", self.width.lanes(), gen)?;
        for (i, inst) in self.insts.iter().enumerate() {
            writeln!(f, "{i:4}: {inst}")?;
        }
        Ok(())
    }
}
