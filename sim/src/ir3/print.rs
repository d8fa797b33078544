//! [`Instr`] → ir3 text. Each category follows its isaspec `<display>` template; the order of
//! the flag prefixes differs between categories, so each builds its own.

use super::*;

const SWIZ: [char; 4] = ['x', 'y', 'z', 'w'];

/// Every instruction's text, in order (label lines not included; see [`branch_targets`]).
/// Undecodable words come out as `; undecodable: <reason>` so indices stay aligned.
pub fn program_text(program: &[Result<Instr, Undecodable>]) -> Vec<String> {
    program
        .iter()
        .enumerate()
        .map(|(i, r)| match r {
            Ok(ins) => ins.text(i),
            Err(e) => format!("; undecodable: {e}"),
        })
        .collect()
}

impl std::fmt::Display for Reg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Reg::Gpr { num, comp } => write!(f, "r{num}.{}", SWIZ[comp as usize]),
            Reg::A0 { comp } => write!(f, "a0.{}", SWIZ[comp as usize]),
            Reg::P0 { comp } => write!(f, "p0.{}", SWIZ[comp as usize]),
            Reg::Up0 { comp } => write!(f, "up0.{}", SWIZ[comp as usize]),
        }
    }
}

fn h(half: bool) -> &'static str {
    if half {
        "h"
    } else {
        ""
    }
}

fn on(b: bool, s: &'static str) -> &'static str {
    if b {
        s
    } else {
        ""
    }
}

fn konst(index: u16) -> String {
    format!("c{}.{}", index >> 2, SWIZ[(index & 3) as usize])
}

fn rel(c: char, offset: i32, zero_short: bool) -> String {
    if offset == 0 && zero_short {
        format!("{c}<a0.x>")
    } else {
        format!("{c}<a0.x + {offset}>")
    }
}

/// C's `%f` (6 decimals; `inf`/`nan` spelled as glibc does).
fn c_float(v: f64) -> String {
    if v.is_nan() {
        if v.is_sign_negative() {
            "-nan".into()
        } else {
            "nan".into()
        }
    } else if v.is_infinite() {
        if v < 0.0 {
            "-inf".into()
        } else {
            "inf".into()
        }
    } else {
        format!("{v:.6}")
    }
}

pub(crate) fn f16_to_f64(b: u16) -> f64 {
    let sign = if b & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((b >> 10) & 0x1f) as i32;
    let m = (b & 0x3ff) as f64;
    sign * match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

const FLUT: [&str; 12] = [
    "(0.0)",
    "(0.5)",
    "(1.0)",
    "(2.0)",
    "(e)",
    "(pi)",
    "(1/pi)",
    "(1/log2(e))",
    "(log2(e))",
    "(1/log2(10))",
    "(log2(10))",
    "(4.0)",
];

/// The immediate's text without any `h` wrapping.
fn imm_text(value: i64, fmt: ImmFmt) -> String {
    match fmt {
        ImmFmt::Dec => format!("{value}"),
        ImmFmt::Hex => format!("{:x}", value as u64),
        ImmFmt::F16 => c_float(f16_to_f64(value as u16)),
        ImmFmt::F32 => c_float(f32::from_bits(value as u32) as f64),
        ImmFmt::Flut => FLUT[value as usize].to_string(),
    }
}

/// Operand text with its own `h` prefix, no source modifiers.
fn operand(op: &Operand) -> String {
    match *op {
        Operand::Reg { reg, half } => format!("{}{reg}", h(half)),
        Operand::Const { index, half } => format!("{}{}", h(half), konst(index)),
        Operand::RelGpr { offset, half } => format!("{}{}", h(half), rel('r', offset, true)),
        Operand::RelConst { offset, half } => format!("{}{}", h(half), rel('c', offset, true)),
        Operand::Imm { value, fmt, .. } => imm_text(value, fmt),
    }
}

fn absneg(s: &Src) -> &'static str {
    match (s.abs, s.neg) {
        (false, false) => "",
        (false, true) => "(neg)",
        (true, false) => "(abs)",
        (true, true) => "(absneg)",
    }
}

/// `#multisrc` (cat2/cat4).
fn multisrc(s: &Src) -> String {
    let r = on(s.r, "(r)");
    match s.op {
        Operand::Reg { .. } => {
            format!("{}{}{r}{}", on(s.last, "(last)"), absneg(s), operand(&s.op))
        }
        Operand::Imm {
            value,
            fmt: ImmFmt::Flut,
            half,
        } => {
            format!("{}{r}{}{}", absneg(s), h(half), FLUT[value as usize])
        }
        Operand::Imm {
            value, half: true, ..
        } => format!("{}{r}h({value})", absneg(s)),
        Operand::Imm { value, .. } => format!("{}{r}{value}", absneg(s)),
        _ => format!("{}{r}{}", absneg(s), operand(&s.op)),
    }
}

/// The flag marks as ir3 spells them, each empty when clear.
struct Marks {
    sy: &'static str,
    ss: &'static str,
    jp: &'static str,
    ul: &'static str,
    sat: &'static str,
}

impl Marks {
    fn of(f: &Flags) -> Marks {
        Marks {
            sy: on(f.sy, "(sy)"),
            ss: on(f.ss, "(ss)"),
            jp: on(f.jp, "(jp)"),
            ul: on(f.ul, "(ul)"),
            sat: on(f.sat, "(sat)"),
        }
    }

    /// An ALU instruction's leading marks: `(nopN) ` when it has nop cycles, else `(rptN)`;
    /// `lead` is what goes before them (`(sat)` where it leads, or nothing).
    fn alu_prefix(&self, f: &Flags, lead: &str) -> String {
        let Marks { sy, ss, jp, ul, .. } = self;
        if f.nop > 0 {
            format!("{sy}{ss}{jp}{lead}(nop{}) {ul}", f.nop)
        } else {
            format!("{sy}{ss}{jp}{lead}{}{ul}", rpt(f))
        }
    }
}

/// `(rptN)` or nothing.
fn rpt(f: &Flags) -> String {
    if f.repeat > 0 {
        format!("(rpt{})", f.repeat)
    } else {
        String::new()
    }
}

impl Instr {
    /// The instruction as ir3 prints it, `index` being its position in the program (used to
    /// print branch operands as `#lN`).
    pub fn text(&self, index: usize) -> String {
        let f = &self.flags;
        let Marks {
            sy,
            ss,
            jp,
            ul,
            sat,
        } = Marks::of(f);
        let name = self.name;
        match &self.body {
            Body::Flow(fl) => {
                let eq = on(f.eq, "(eq)");
                let target = || format!("#l{}", self.branch_target(index).unwrap_or(0));
                let pred = |p: &Pred| format!("{}p0.{}", on(p.inv, "!"), SWIZ[p.comp as usize]);
                match fl.form {
                    FlowForm::NoSrc => format!(
                        "{sy}{ss}{eq}{jp}{}{}{}{name}",
                        on(f.eolm, "(eolm)"),
                        on(f.eogm, "(eogm)"),
                        rpt(f)
                    ),
                    FlowForm::Pred => format!("{sy}{ss}{eq}{jp}{name} {}", pred(&fl.preds[0])),
                    // brax has no display template of its own in the XML; print like jump.
                    FlowForm::Target => format!("{sy}{ss}{jp}{name} {}", target()),
                    FlowForm::GetLast => format!("{sy}{ss}{jp}{name}.w{} {}", fl.index, target()),
                    FlowForm::Brac => format!("{sy}{ss}{eq}{jp}{name}.{} {}", fl.index, target()),
                    FlowForm::Branch1 => format!(
                        "{sy}{ss}{eq}{jp}{name} {}, {}",
                        pred(&fl.preds[0]),
                        target()
                    ),
                    FlowForm::Branch2 => format!(
                        "{sy}{ss}{eq}{jp}{name} {}, {}, {}",
                        pred(&fl.preds[0]),
                        pred(&fl.preds[1]),
                        target()
                    ),
                }
            }
            Body::Mov(m) => self.mov_text(m),
            Body::MovMulti(m) => {
                let round = ROUND[m.round as usize];
                let dh = cat1_half(m.dst_type);
                let sh = cat1_half(m.src_type);
                let regs = |v: &[Reg], half: bool| {
                    v.iter()
                        .map(|r| format!("{}{r}", h(half)))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                format!(
                    "{sy}{ss}{jp}{ul}{name}.{}{} {round}{sat}{}, {}",
                    m.src_type.name(),
                    m.dst_type.name(),
                    regs(&m.dsts, dh),
                    regs(&m.srcs, sh)
                )
            }
            Body::Movmsk(d) => format!(
                "{sy}{ss}{jp}{ul}movmsk.w{} {}",
                (f.repeat as u32 + 1) * 32,
                cat1_dst(d)
            ),
            Body::Alu(a) => match self.cat {
                2 | 4 => {
                    // 26.2.6 prints cat2's `(sat)` on the destination (`add.u (sat)r6.w, …`,
                    // measured), where 25.0.7's XML leads with it; cat4's is not seen yet.
                    let (lead, on_dst) = if self.cat == 2 { ("", sat) } else { (sat, "") };
                    let pre = Marks::of(f).alu_prefix(f, lead);
                    let cond = a.cond.map(|c| format!(".{}", c.name())).unwrap_or_default();
                    let srcs: Vec<String> = a.srcs.iter().map(multisrc).collect();
                    format!(
                        "{pre}{name}{cond} {on_dst}{}{}{}, {}",
                        on(a.ei, "(ei)"),
                        h(a.dst_half),
                        a.dst,
                        srcs.join(", ")
                    )
                }
                _ => self.cat3_text(a),
            },
            Body::Tex(t) => self.tex_text(t),
            Body::Mem(m) => format!("{sy}{jp}{}", mem_text(name, m, self.gen)),
            Body::Sync(s) => {
                let head = format!("{sy}{ss}{jp}{name}");
                match s {
                    Sync::Barrier { g, l, r, w } => {
                        format!(
                            "{head}{}{}{}{}",
                            on(*g, ".g"),
                            on(*l, ".l"),
                            on(*r, ".r"),
                            on(*w, ".w")
                        )
                    }
                    Sync::Sleep { long } => format!("{head}{}", if *long { ".l" } else { ".s" }),
                    Sync::Cache { all } => format!("{head}{}", if *all { ".all" } else { ".shr" }),
                    Sync::Plain => head,
                    Sync::Alias {
                        scope,
                        int,
                        b32,
                        table_size_minus_one,
                        dst,
                        src,
                    } => {
                        let scope = ["tex", "rt", "mem", "mem"][*scope as usize];
                        let dst = match dst {
                            Ok(r) => format!("{}{r}", h(!b32)),
                            Err((rt, c)) => format!("rt{rt}.{}", SWIZ[*c as usize]),
                        };
                        let src = match *src {
                            Operand::Imm { value, fmt, half } => {
                                let body = imm_text(value, fmt);
                                let body = if fmt == ImmFmt::Hex {
                                    format!("0x{body}")
                                } else {
                                    body
                                };
                                format!("{}({body})", h(half))
                            }
                            ref o => operand(o),
                        };
                        format!(
                            "{head}.{scope}.{}{}.{table_size_minus_one} {dst}, {src}",
                            if *int { "b" } else { "f" },
                            if *b32 { "32" } else { "16" }
                        )
                    }
                }
            }
        }
    }

    fn mov_text(&self, m: &Mov) -> String {
        let f = &self.flags;
        let Marks {
            sy,
            ss,
            jp,
            ul,
            sat,
        } = Marks::of(f);
        let pre = format!("{sy}{ss}{jp}{}{ul}", rpt(f));
        let round = ROUND[m.round as usize];
        let s = &m.src;
        let r = on(s.r, "(r)");
        // The `#cat1-*-src` displays: immediates carry no (r); registers do.
        let src = match s.op {
            Operand::Imm { value, fmt, .. } => match fmt {
                ImmFmt::F16 => format!("h({})", imm_text(value, fmt)),
                ImmFmt::F32 => format!("({})", imm_text(value, fmt)),
                ImmFmt::Hex => format!("0x{}", imm_text(value, fmt)),
                _ => imm_text(value, fmt),
            },
            Operand::Reg { .. } => format!("{}{r}{}", on(s.last, "(last)"), operand(&s.op)),
            _ => format!("{r}{}", operand(&s.op)),
        };
        let types = format!("{}{}", m.src_type.name(), m.dst_type.name());
        let dst = format!("{}{}", h(cat1_half(m.dst_type)), cat1_dst(&m.dst));
        match m.form {
            MovForm::Mova => format!("{pre}mova {round}{sat}a0.x, {r}{src}"),
            // 26.2.6 prints bit 43 of `mova1` as `.u` where 25.0.7's XML has `(r)` (measured:
            // turnip's `mova1.u a1.x, 0` is 0x204888f5_00000000).
            MovForm::Mova1 if s.r => format!(
                "{pre}mova1.u {round}{sat}a1.x, {}",
                src.trim_start_matches("(r)")
            ),
            MovForm::Mova1 => format!("{pre}mova1 {round}{sat}a1.x, {r}{src}"),
            MovForm::Cov => format!("{pre}cov.{types} {round}{sat}{dst}, {src}"),
            MovForm::Mov => format!("{pre}mov.{types} {round}{sat}{dst}, {src}"),
            MovForm::Movs(inv) => {
                let inv = inv.map(|i| i.to_string()).unwrap_or_else(|| "a0.x".into());
                format!("{pre}movs.{types} {round}{sat}{dst}, {src}, {inv}")
            }
        }
    }

    fn cat3_text(&self, a: &Alu) -> String {
        let f = &self.flags;
        let Marks {
            sy,
            ss,
            jp,
            ul,
            sat,
        } = Marks::of(f);
        let name = self.name;
        // `#cat3-src`: gpr `{LAST}{HALF}r`, const `{HALF}c`, immediate, relative (always `+ N`).
        let src = |s: &Src| -> String {
            let neg = on(s.neg, "(neg)");
            let r = on(s.r, "(r)");
            let body = match s.op {
                Operand::Reg { .. } => format!("{}{}", on(s.last, "(last)"), operand(&s.op)),
                Operand::RelGpr { offset, half } => {
                    format!("{}{}", h(half), rel('r', offset, false))
                }
                Operand::RelConst { offset, half } => {
                    format!("{}{}", h(half), rel('c', offset, false))
                }
                _ => operand(&s.op),
            };
            format!("{neg}{r}{body}")
        };
        let [s1, s2, s3] = [&a.srcs[0], &a.srcs[1], &a.srcs[2]];
        if let Some((mixed, high)) = a.dp {
            return format!(
                "{sy}{ss}{jp}{sat}(nop{}) {ul}{name}{}{} {}, {}, {}, {}",
                f.nop,
                if mixed { ".mixed" } else { ".unsigned" },
                if high { ".high" } else { ".low" },
                a.dst,
                src(s1),
                src(s2),
                src(s3)
            );
        }
        let pre = Marks::of(f).alu_prefix(f, sat);
        format!(
            "{pre}{name} {}{}, {}, {}, {}",
            h(a.dst_half),
            a.dst,
            src(s1),
            src(s2),
            src(s3)
        )
    }

    fn tex_text(&self, t: &Tex) -> String {
        let f = &self.flags;
        let (sy, jp) = (on(f.sy, "(sy)"), on(f.jp, "(jp)"));
        let name = self.name;
        if name == "tcinv" {
            return format!("{sy}{jp}tcinv");
        }
        let ty = t.ty.map(|t| format!("({})", t.name())).unwrap_or_default();
        let wm = WRMASK[t.wrmask as usize];
        let head = format!("{ty}({wm}){}{}", h(t.dst_half), t.dst);
        let sh = h(t.src_half);
        let src1 = t.src1.map(|r| format!(", {sh}{r}")).unwrap_or_default();
        let src2 = match t.src2 {
            TexSrc2::None => String::new(),
            TexSrc2::Reg(r) => format!(", {sh}{r}"),
            TexSrc2::ImmOffset(0) => String::new(),
            TexSrc2::ImmOffset(n) => format!("+{n}"),
        };
        if name == "brcst.active" {
            return format!("{sy}{jp}{name}.w{} {head}{src1}", t.cluster);
        }
        if name.starts_with("quad_shuffle") {
            return format!("{sy}{jp}{name} {head}{src1}{src2}");
        }
        let sv = if name == "isam" { ".v" } else { ".s" };
        let mods = format!(
            "{}{}{}{}{}",
            on(t.is_3d, ".3d"),
            on(t.array, ".a"),
            on(t.offset, ".o"),
            on(t.p, ".p"),
            on(t.sv, sv)
        );
        let one_d = on(t.one_d, ".1d");
        let samp = t.samp.map(|s| format!(", s#{s}")).unwrap_or_default();
        let texn = t.tex.map(|s| format!(", t#{s}")).unwrap_or_default();
        match &t.indirect {
            None => format!("{sy}{jp}{name}{mods}{one_d} {head}{src1}{src2}{samp}{texn}"),
            Some(ind) => {
                let m = ind.desc_mode;
                let s2en = on(m < 6, ".s2en");
                let uni = on(matches!(m, 0 | 1 | 5), ".uniform");
                let nonuni = on(matches!(m, 2..=4), ".nonuniform");
                let base = if ind.bindless {
                    format!(".base{}", ind.base)
                } else {
                    String::new()
                };
                let src3 = match ind.src3 {
                    Some(r) => format!(", {}{r}", h(!ind.bindless)),
                    None => format!("{samp}{texn}"),
                };
                format!(
                    "{sy}{jp}{name}{mods}{s2en}{uni}{nonuni}{base}{one_d} {head}{src1}{src2}{src3}{}",
                    on(ind.a1, ", a1.x")
                )
            }
        }
    }
}

const ROUND: [&str; 4] = ["", "(even)", "(pos_infinity)", "(neg_infinity)"];

const WRMASK: [&str; 16] = [
    "", "x", "y", "xy", "z", "xz", "yz", "xyz", "w", "xw", "yw", "xyw", "zw", "xzw", "yzw", "xyzw",
];

fn cat1_half(t: Type) -> bool {
    matches!(
        t,
        Type::F16 | Type::U16 | Type::S16 | Type::U8 | Type::U8_32
    )
}

fn cat1_dst(d: &Dst) -> String {
    match *d {
        Dst::Reg(r) => r.to_string(),
        Dst::Rel(0) => "r<a0.x>".into(),
        Dst::Rel(o) => format!("r<a0.x + {o}>"),
    }
}

/// `offset` type: `+N` / `-N`, nothing for 0.
fn soff(o: i32) -> String {
    if o == 0 {
        String::new()
    } else {
        format!("{o:+}")
    }
}

/// `uoffset` type: `+N`, nothing for 0.
fn uoff(o: i32) -> String {
    if o == 0 {
        String::new()
    } else {
        format!("+{o}")
    }
}

fn mem_text(name: &str, m: &Mem, gen: Gen) -> String {
    let ty = m.ty.name();
    let s = |i: usize| operand(&m.srcs[i]);
    let dst = || m.dst.as_ref().map(operand).unwrap_or_default();
    let base = m.base.map(|b| format!(".base{b}")).unwrap_or_default();
    let mode = ["imm", "uniform", "nonuniform", "?"][m.mode as usize & 3];
    let ibo = || {
        format!(
            "{name}.{}.{}d.{ty}.{}.{mode}{base}",
            if m.typed { "typed" } else { "untyped" },
            m.dim,
            m.type_size
        )
    };
    // `#const-dst`: an immediate index, or a1.x plus an offset.
    let cdst = || {
        let v = match m.dst {
            Some(Operand::Imm { value, .. }) => value as i32,
            _ => 0,
        };
        if m.flag {
            format!("a1.x{}", uoff(v))
        } else {
            v.to_string()
        }
    };
    match m.form {
        MemForm::Ldg => format!(
            "{name}.{ty} {}, g[{}{}], {}",
            dst(),
            s(0),
            soff(m.off),
            m.size
        ),
        MemForm::LdgA if gen == Gen::A7xx => {
            format!(
                "{name}.{ty} {}, g[{}+{}+{}], {}",
                dst(),
                s(0),
                s(1),
                m.off,
                m.size
            )
        }
        MemForm::LdgA if m.shift > 0 => format!(
            "{name}.{ty} {}, g[{}+{}<<{}{}<<2], {}",
            dst(),
            s(0),
            s(1),
            m.shift + 2,
            uoff(m.off),
            m.size
        ),
        MemForm::LdgA => {
            format!(
                "{name}.{ty} {}, g[{}+({}{})<<{}], {}",
                dst(),
                s(0),
                s(1),
                uoff(m.off),
                m.shift + 2,
                m.size
            )
        }
        MemForm::LdgK => format!(
            "{name}.{ty} c[{}], g[{}{}], {}",
            cdst(),
            s(0),
            soff(m.off),
            m.size
        ),
        MemForm::Stg => format!(
            "{name}.{ty} g[{}{}], {}, {}",
            s(0),
            soff(m.off),
            s(1),
            m.size
        ),
        MemForm::StgA if gen == Gen::A7xx => {
            format!(
                "{name}.{ty} g[{}+{}+{}], {}, {}",
                s(0),
                s(1),
                m.off,
                s(2),
                m.size
            )
        }
        MemForm::StgA if m.shift > 0 => format!(
            "{name}.{ty} g[{}+{}<<{}{}<<2], {}, {}",
            s(0),
            s(1),
            m.shift + 2,
            uoff(m.off),
            s(2),
            m.size
        ),
        MemForm::StgA => {
            format!(
                "{name}.{ty} g[{}+({}{})<<{}], {}, {}",
                s(0),
                s(1),
                uoff(m.off),
                m.shift + 2,
                s(2),
                m.size
            )
        }
        MemForm::Ldl => format!(
            "{name}.{ty} {}, l[{}{}], {}",
            dst(),
            s(0),
            soff(m.off),
            m.size
        ),
        MemForm::Ldp => format!(
            "{name}.{ty} {}, p[{}{}], {}",
            dst(),
            s(0),
            soff(m.off),
            m.size
        ),
        MemForm::Ldlv => format!("{name}.{ty} {}, l[{}], {}", dst(), m.off, m.size),
        MemForm::Stl => format!(
            "{name}.{ty} l[{}{}], {}, {}",
            dst(),
            soff(m.off),
            s(0),
            m.size
        ),
        MemForm::Stp => format!(
            "{name}.{ty} p[{}{}], {}, {}",
            dst(),
            soff(m.off),
            s(0),
            m.size
        ),
        MemForm::Stc => format!("{name}.{ty} c[{}], {}, {}", cdst(), s(0), m.size),
        MemForm::Stsc => format!("{name}.{ty} c[{}], {}, {}", dst(), s(0), m.size),
        MemForm::Resinfo => format!("{name}.{ty}.{}d {}, g[{}]", m.dim, dst(), s(0)),
        MemForm::Ldc => format!(
            "ldc{}.offset{}.{}.{mode}{base} {}, {}, {}",
            on(m.flag, ".u"),
            m.off,
            m.type_size,
            dst(),
            s(0),
            s(1)
        ),
        MemForm::LdcK => format!("ldc.{}.k.{mode}{base} c[a1.x], {}, {}", m.size, s(0), s(1)),
        MemForm::GetId => format!("{name}.{ty} {}", dst()),
        MemForm::Res1Src => format!("{} {}, {}", ibo(), dst(), s(0)),
        MemForm::IboLdSt => format!("{} {}, {}{}, {}", ibo(), s(0), s(1), uoff(m.off), s(2)),
        MemForm::IboAtomic => format!("{} {}, {}, {}", ibo(), s(0), s(1), s(2)),
        MemForm::AtomicLocal => format!(
            "{name}.{}.{}d.{ty}.{}.l {}, l[{}], {}",
            if m.typed { "typed" } else { "untyped" },
            m.dim,
            m.type_size,
            dst(),
            s(0),
            s(1)
        ),
        MemForm::AtomicGlobal => format!(
            "{name}.{}.{}d.{ty}.{}.g {}, {}, {}",
            if m.typed { "typed" } else { "untyped" },
            m.dim,
            m.type_size,
            dst(),
            s(0),
            s(1)
        ),
        MemForm::Shfl => {
            let mode = match m.sub {
                1 => "xor",
                2 => "up",
                3 => "down",
                6 => "rup",
                _ => "rdown",
            };
            format!("{name}.{mode}.{ty} {}, {}, {}", dst(), s(0), s(1))
        }
        MemForm::RayIntersection => {
            format!("{name} {}, [{}], {}, {}, {}", dst(), s(0), s(1), s(2), s(3))
        }
    }
}
