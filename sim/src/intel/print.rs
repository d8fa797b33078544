//! [`Inst`] in brw's disassembly syntax, column for column (`brw_disassemble_inst` in
//! `src/intel/compiler/brw_disasm.c`, Mesa 25.0.7, Gfx9 and Gfx12 paths), so that a line we
//! print can be compared with the line brw printed for the same bytes. Jump targets print as
//! brw's labels when the caller gives the program's [`Labels`]. What differs by generation is
//! in the instruction (align16, a second payload, an SWSB annotation), not a parameter.
//!
//! brw's quirks are kept, since the point is agreement: the three-source destination's
//! subregister field (dwords on Gen9, 8-byte units on Gen12) is divided by the type size again
//! before printing; an indirect address immediate prints as its unsigned 10-bit field; a
//! three-source 16-bit `W` immediate prints unsigned; "scatterd" is spelled so.

use super::gen::Gen;
use super::inst::{Dst, Inst, RegSrc, Region, Send, Src};
use super::lsc;
use super::opcode::Opcode;
use super::types::{RegFile, Type};
use std::fmt::Write;

/// Jump-target labels of a program: brw numbers every UIP, then JIP target in the order the
/// instructions come (`brw_label_assembly`), and prints `LABELn` at each.
#[derive(Clone, Debug, Default)]
pub struct Labels(Vec<usize>);

impl Labels {
    /// The labels of a decoded program (instructions with their byte offsets).
    pub fn of(program: &[(usize, Inst)]) -> Labels {
        let mut labels = Labels::default();
        for (offset, inst) in program {
            for jump in [inst.uip, inst.jip].into_iter().flatten() {
                let Ok(target) = usize::try_from(*offset as i64 + i64::from(jump)) else {
                    continue;
                };
                if !labels.0.contains(&target) {
                    labels.0.push(target);
                }
            }
        }
        labels
    }

    /// The number of the label at byte `offset`, if there is one.
    pub fn at(&self, offset: usize) -> Option<usize> {
        self.0.iter().position(|&o| o == offset)
    }
}

/// Text with brw's column padding (`pad` counts only what `string` wrote).
struct Out {
    text: String,
    column: usize,
}

impl Out {
    fn s(&mut self, s: &str) {
        self.text.push_str(s);
        self.column += s.len();
    }

    fn pad(&mut self, c: usize) {
        loop {
            self.s(" ");
            if self.column >= c {
                break;
            }
        }
    }

    /// Writes without moving the column (brw's direct `fprintf`s).
    fn raw(&mut self, s: &str) {
        self.text.push_str(s);
    }

    fn newline(&mut self) {
        self.text.push('\n');
        self.column = 0;
    }

    /// brw's `control(..., &space)`: a non-empty item, separated by a space when one is due.
    fn item(&mut self, s: &str, space: &mut bool) {
        if s.is_empty() {
            return;
        }
        if *space {
            self.s(" ");
        }
        self.s(s);
        *space = true;
    }
}

const COND_MOD: [&str; 16] = [
    "", ".z", ".nz", ".g", ".ge", ".l", ".le", ".r", ".o", ".u", "", "", "", "", "", "",
];

const MATH_FUNCTION: [&str; 16] = [
    "",
    "inv",
    "log",
    "exp",
    "sqrt",
    "rsq",
    "sin",
    "cos",
    "",
    "fdiv",
    "pow",
    "intdivmod",
    "intdiv",
    "intmod",
    "invm",
    "rsqrtm",
];

pub(super) const PRED_ALIGN1: [&str; 16] = [
    "", "", ".anyv", ".allv", ".any2h", ".all2h", ".any4h", ".all4h", ".any8h", ".all8h",
    ".any16h", ".all16h", ".any32h", ".all32h", "", "",
];

const PRED_ALIGN16: [&str; 16] = [
    "", "", ".x", ".y", ".z", ".w", ".any4h", ".all4h", "", "", "", "", "", "", "", "",
];

/// `gfx6_sfid` (`brw_disasm.c:351-368`): where two generations share a number the later
/// name wins (13 is "tgm", not Haswell's "cre").
const SFID: [&str; 16] = [
    "null",
    "",
    "sampler",
    "gateway",
    "dp_sampler",
    "render",
    "urb",
    "thread_spawner",
    "rt accel",
    "const",
    "data",
    "pixel interp",
    "dp data 1",
    "tgm",
    "slm",
    "ugm",
];

const WRITEMASK: [&str; 16] = [
    ".", ".x", ".y", ".xy", ".z", ".xz", ".yz", ".xyz", ".w", ".xw", ".yw", ".xyw", ".zw", ".xzw",
    ".yzw", "",
];

/// A send with two payloads: Gen9's `sends`, every Gen12 send.
fn is_split_send(inst: &Inst) -> bool {
    inst.send.as_ref().is_some_and(|s| s.src1.is_some())
}

pub(super) const SYNC_FUNCTION: [&str; 16] = [
    "nop", "", "allrd", "allwr", "", "", "", "", "", "", "", "", "", "fence", "bar", "host",
];

fn reg(out: &mut Out, file: RegFile, nr: u8) -> bool {
    if file != RegFile::Arf {
        out.s(&format!("g{nr}"));
        return true;
    }
    let index = nr & 0xf;
    match nr & 0xf0 {
        0x00 => out.s("null"),
        0x10 => out.s(&format!("a{index}")),
        0x20 => out.s(&format!("acc{index}")),
        0x30 => out.s(&format!("f{index}")),
        0x40 => out.s(&format!("mask{index}")),
        0x70 => out.s(&format!("sr{index}")),
        0x80 => out.s(&format!("cr{index}")),
        0x90 => out.s(&format!("n{index}")),
        0xa0 => {
            out.s("ip");
            return false;
        }
        0xb0 => {
            out.s("tdr0");
            return false;
        }
        0xc0 => out.s(&format!("tm{index}")),
        _ => out.s(&format!("ARF{nr}")),
    }
    true
}

fn hstride_text(h: u8) -> String {
    h.to_string()
}

fn region(out: &mut Out, r: Region) {
    let v = r.vstride.map_or("VxH".to_string(), |v| v.to_string());
    out.s(&format!("<{v},{},{}>", r.width, hstride_text(r.hstride)));
}

fn dest(out: &mut Out, inst: &Inst, d: &Dst) {
    let size = d.ty.size();
    if is_split_send(inst) {
        reg(out, d.file, d.nr);
        if d.subreg != 0 {
            out.s(&format!(".{}", d.subreg / 16));
        }
        out.s("UD");
        return;
    }
    if inst.align16 {
        if !reg(out, d.file, d.nr) {
            return;
        }
        if d.subreg != 0 {
            out.s(&format!(".{}", 16 / size));
        }
        out.s("<1>");
        out.s(WRITEMASK[usize::from(d.writemask)]);
        out.s(d.ty.letters());
        return;
    }
    match d.indirect {
        None => {
            if !reg(out, d.file, d.nr) {
                return;
            }
            if d.subreg != 0 {
                out.s(&format!(".{}", u32::from(d.subreg) / size));
            }
        }
        Some(ia) => {
            out.s("g[a0");
            if ia.a0_subreg != 0 {
                out.s(&format!(".{}", u32::from(ia.a0_subreg) / size));
            }
            if ia.offset != 0 {
                out.s(&format!(" {}", ia.offset as u16 & addr_imm_mask(inst.gen)));
            }
            out.s("]");
        }
    }
    out.s(&format!("<{}>", hstride_text(d.hstride)));
    out.s(d.ty.letters());
}

fn swizzle(out: &mut Out, swz: u8) {
    const CHAN: [&str; 4] = ["x", "y", "z", "w"];
    let c = |i: u8| CHAN[usize::from((swz >> (2 * i)) & 3)];
    let (x, y, z, w) = (c(0), c(1), c(2), c(3));
    if x == y && x == z && x == w {
        out.s(&format!(".{x}"));
    } else if swz != 0b1110_0100 {
        out.s(&format!(".{x}{y}{z}{w}"));
    }
}

fn modifiers(out: &mut Out, opcode: Opcode, s: &RegSrc) {
    if s.negate {
        out.s(if opcode.is_logic() { "~" } else { "-" });
    }
    if s.abs {
        out.s("(abs)");
    }
}

fn src(out: &mut Out, inst: &Inst, s: &Src) {
    match s {
        Src::Imm { ty, bits } => imm(out, *ty, *bits),
        Src::Reg(r) if is_split_send(inst) => {
            reg(out, r.file, r.nr);
            if r.subreg != 0 {
                out.s(".1");
            }
            out.s("UD");
        }
        Src::Reg(r) if inst.align16 => {
            modifiers(out, inst.opcode, r);
            if !reg(out, r.file, r.nr) {
                return;
            }
            if r.subreg != 0 {
                out.s(&format!(".{}", 16 / r.ty.size()));
            }
            let v = r
                .region
                .vstride
                .map_or("VxH".to_string(), |v| v.to_string());
            out.s(&format!("<{v}>"));
            swizzle(out, r.swizzle.unwrap_or(0b1110_0100));
            out.s(r.ty.letters());
        }
        Src::Reg(r) => {
            modifiers(out, inst.opcode, r);
            match r.indirect {
                None => {
                    if !reg(out, r.file, r.nr) {
                        return;
                    }
                    if r.subreg != 0 {
                        out.s(&format!(".{}", u32::from(r.subreg) / r.ty.size()));
                    }
                }
                Some(ia) => {
                    out.s("g[a0");
                    if ia.a0_subreg != 0 {
                        out.s(&format!(".{}", ia.a0_subreg));
                    }
                    if ia.offset != 0 {
                        out.s(&format!(" {}", ia.offset as u16 & addr_imm_mask(inst.gen)));
                    }
                    out.s("]");
                }
            }
            region(out, r.region);
            out.s(r.ty.letters());
        }
    }
}

/// C's `%-g`: six significant digits, trailing zeros dropped, exponent form outside
/// [1e-4, 1e6).
fn c_g(v: f64) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "inf" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let e = format!("{v:.5e}");
    let (mantissa, exp) = e.split_once('e').expect("exponent form");
    let exp: i32 = exp.parse().expect("exponent");
    let strip = |s: &str| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip(mantissa), exp.abs())
    } else {
        let decimals = (5 - exp).max(0) as usize;
        strip(&format!("{v:.decimals$}"))
    }
}

/// An 8-bit restricted float (VF): sign, 3-bit exponent biased by 3, 4-bit mantissa.
fn vf_to_f32(b: u32) -> f32 {
    let b = b & 0xff;
    if b & 0x7f == 0 {
        return if b & 0x80 != 0 { -0.0 } else { 0.0 };
    }
    let bits = ((b & 0x80) << 24) | ((((b >> 4) & 7) + 124) << 23) | ((b & 0xf) << 19);
    f32::from_bits(bits)
}

fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let frac = f64::from(h & 0x3ff);
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        31 if frac == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        _ => sign * (1.0 + frac / 1024.0) * 2f64.powi(exp - 15),
    }
}

fn imm(out: &mut Out, ty: Type, bits: u64) {
    let ud = bits as u32;
    match ty {
        Type::UQ => out.s(&format!("0x{bits:016x}UQ")),
        Type::Q => out.s(&format!("0x{bits:016x}Q")),
        Type::UD => out.s(&format!("0x{ud:08x}UD")),
        Type::D => out.s(&format!("{}D", ud as i32)),
        Type::UW => out.s(&format!("0x{:04x}UW", ud as u16)),
        Type::W => out.s(&format!("{}W", ud as i16)),
        Type::UV => out.s(&format!("0x{ud:08x}UV")),
        Type::V => out.s(&format!("0x{ud:08x}V")),
        Type::VF => {
            out.s(&format!("0x{ud:x}VF"));
            out.pad(48);
            let f = |i: u32| c_g(f64::from(vf_to_f32(ud >> (8 * i))));
            out.s(&format!(
                "/* [{}F, {}F, {}F, {}F]VF */",
                f(0),
                f(1),
                f(2),
                f(3)
            ));
        }
        Type::F => {
            out.s(&format!("0x{ud:x}F"));
            out.pad(48);
            out.s(&format!(" /* {}F */", c_g(f64::from(f32::from_bits(ud)))));
        }
        Type::DF => {
            out.s(&format!("0x{bits:016x}DF"));
            out.pad(48);
            out.s(&format!("/* {}DF */", c_g(f64::from_bits(bits))));
        }
        Type::HF => {
            out.s(&format!("0x{:04x}HF", ud as u16));
            out.pad(48);
            out.s(&format!("/* {}HF */", c_g(f16_to_f64(ud as u16))));
        }
        Type::UB | Type::B => out.s(&format!("*** invalid immediate type {ty:?} ")),
    }
}

fn three_src_dest(out: &mut Out, align16: bool, d: &Dst) {
    if !reg(out, d.file, d.nr) {
        return;
    }
    // brw divides the subregister field (dwords in align16, 8-byte units in Gen12's align1)
    // by the type size (see the module comment).
    let field = u32::from(d.subreg) / if align16 { 4 } else { 8 };
    let shown = field / d.ty.size();
    if shown != 0 {
        out.s(&format!(".{shown}"));
    }
    out.s("<1>");
    if align16 {
        out.s(WRITEMASK[usize::from(d.writemask)]);
    }
    out.s(d.ty.letters());
}

fn three_src_src(out: &mut Out, align16: bool, s: &Src) {
    let r = match s {
        Src::Reg(r) => r,
        // Gen12's 16-bit immediates; brw prints the W one unsigned and others not at all.
        Src::Imm { ty, bits } => {
            let v = *bits as u16;
            match ty {
                Type::W => out.s(&format!("{v}W")),
                Type::UW => out.s(&format!("0x{v:04x}UW")),
                Type::HF => out.s(&format!("0x{v:04x}HF")),
                _ => {}
            }
            return;
        }
    };
    let scalar = r.region.vstride == Some(0) && r.region.width == 1 && r.region.hstride == 0;
    let subreg = u32::from(r.subreg) / r.ty.size();
    if r.negate {
        out.s("-");
    }
    if r.abs {
        out.s("(abs)");
    }
    if !reg(out, r.file, r.nr) {
        return;
    }
    if subreg != 0 || scalar {
        out.s(&format!(".{subreg}"));
    }
    region(out, r.region);
    if align16 && !scalar {
        swizzle(out, r.swizzle.unwrap_or(0b1110_0100));
    }
    out.s(r.ty.letters());
}

fn label(out: &mut Out, labels: Option<&Labels>, offset: usize, jump: i32) {
    let target = usize::try_from(offset as i64 + i64::from(jump)).ok();
    if let Some(n) = labels.zip(target).and_then(|(l, t)| l.at(t)) {
        out.s(&format!(" LABEL{n}"));
    }
}

/// The message line after the sfid: what the descriptor asks for, then its lengths (or, for
/// LSC, the surface).
fn message(out: &mut Out, send: &Send, gen: Gen) {
    let mut space = false;
    out.item(SFID[usize::from(send.sfid)], &mut space);
    out.s(" MsgDesc:");
    match send.desc {
        None => out.s(" indirect"),
        Some(desc) => {
            describe(out, send, gen, desc, &mut space);
            if space {
                out.s(" ");
            }
        }
    }
    if send.ex_bso {
        out.s(&format!(" src1_len = {} ex_bso", send.src1_len));
    }
    if send.is_lsc() {
        out.s(&lsc::surface(
            send.desc.unwrap_or(0),
            send.ex_desc.unwrap_or(0),
        ));
    } else {
        message_lengths(out, send, gen);
    }
}

/// What the descriptor asks the shared function for (`brw_disasm.c:2170-2540`).
fn describe(out: &mut Out, send: &Send, gen: Gen, desc: u32, space: &mut bool) {
    let bti = desc & 0xff;
    let msg_control = (desc >> 8) & 0x3f;
    let msg_type = (desc >> 14) & 0x1f;
    match send.sfid {
        2 => {
            let simd = ((desc >> 17) & 3) | (((desc >> 29) & 1) << 2);
            match sampler_message(gen, desc) {
                Ok(name) => out.item(name, space),
                Err(v) => out.raw(&format!("*** invalid sampler message value {v} ")),
            }
            let simd_name = if gen.is_xe2() {
                XE2_SAMPLER_SIMD[simd as usize]
            } else {
                SIMD[simd as usize]
            };
            match simd_name {
                Some(s) => out.item(s, space),
                None => out.raw(&format!("*** invalid sampler simd mode value {simd} ")),
            }
            if (desc >> 30) & 1 != 0 {
                out.s(" HP");
            }
            out.s(&format!(
                " Surface = {} Sampler = {}",
                bti,
                (desc >> 8) & 0xf
            ));
        }
        4 | 9 => out.s(&format!(
            " (bti {bti}, msg_ctrl {msg_control}, msg_type {})",
            (desc >> 14) & 0x1f
        )),
        7 => {}
        3 => {
            const GATEWAY: [&str; 8] = [
                "open",
                "close",
                "forward msg",
                "get timestamp",
                "barrier msg",
                "update state",
                "mmio read/write",
                "",
            ];
            out.s(&format!(" ({})", GATEWAY[(desc & 7) as usize]));
        }
        10 => {
            const DC0: [&str; 16] = [
                "DC OWORD block read",
                "DC unaligned OWORD block read",
                "DC OWORD dual block read",
                "DC DWORD scattered read",
                "DC byte scattered read",
                "DC untyped surface read",
                "DC untyped atomic",
                "DC mfence",
                "DC OWORD block write",
                "",
                "DC OWORD dual block write",
                "DC DWORD scatterd write",
                "DC byte scattered write",
                "DC untyped surface write",
                "",
                "",
            ];
            out.s(" (");
            *space = false;
            out.item(DC0[(msg_type & 0xf) as usize], space);
            out.s(&format!(", bti {bti}, "));
            match msg_type & 0xf {
                6 => out.item(AOP[(msg_control & 0xf) as usize], space),
                0 | 8 => out.s(&format!(
                    "owords = {}, aligned = {}",
                    OWORDS[(msg_control & 7) as usize],
                    (msg_control >> 3) & 3
                )),
                _ => out.s(&format!("{msg_control}")),
            }
            out.s(")");
        }
        12 => {
            out.s(" (");
            *space = false;
            out.item(dc1_name(msg_type), space);
            out.s(&format!(", Surface = {bti}, "));
            match msg_type {
                2 | 6 | 11 => {
                    out.s(&format!(
                        "SIMD{},",
                        if msg_control & 0x10 != 0 { 8 } else { 16 }
                    ));
                    out.item(AOP[(msg_control & 0xf) as usize], space);
                }
                3 | 7 | 12 | 0x12 | 0x13 => out.item(AOP[(msg_control & 0xf) as usize], space),
                1 | 9 | 5 | 13 | 0x19 | 0x11 => {
                    const SIMD: [&str; 4] = ["4x2", "16", "8", ""];
                    out.s(&format!(
                        "SIMD{}, Mask = 0x{:x}",
                        SIMD[(msg_control >> 4) as usize],
                        msg_control & 0xf
                    ));
                }
                0x1b | 0x1d | 0x1e => {
                    out.s(&format!(
                        "SIMD{},",
                        if msg_control & 0x10 != 0 { 8 } else { 16 }
                    ));
                    const AOP_FLOAT: [&str; 16] = [
                        "", "fmax", "fmin", "fcmpwr", "fadd", "", "", "", "", "", "", "", "", "",
                        "", "",
                    ];
                    out.item(AOP_FLOAT[(msg_control & 0xf) as usize], space);
                }
                0x14 | 0x15 => out.s(&format!(
                    "owords = {}, aligned = {}",
                    OWORDS[(msg_control & 7) as usize],
                    (msg_control >> 3) & 3
                )),
                _ => out.s(&format!("0x{msg_control:x}")),
            }
            out.s(")");
        }
        13..=15 => out.s(&lsc::describe(desc, send.ex_desc, gen.is_xe2())),
        sfid => out.s(&format!("unsupported shared function ID {sfid}")),
    }
}

/// brw prints an indirect address immediate as its unsigned field: 10 bits, 11 on Xe2.
fn addr_imm_mask(gen: Gen) -> u16 {
    if gen.is_xe2() {
        0x7ff
    } else {
        0x3ff
    }
}

/// The sampler message's name (`gfx5_sampler_msg_type`, `xe2_sampler_msg_type`,
/// `brw_disasm.c:487-546`; Xe2 adds descriptor bit 31 as the type's bit 5), or the value brw
/// calls invalid.
fn sampler_message(gen: Gen, desc: u32) -> Result<&'static str, u32> {
    let xe2 = gen.is_xe2();
    let t = if xe2 {
        ((desc >> 31) << 5) | ((desc >> 12) & 0x1f)
    } else {
        (desc >> 12) & 0x1f
    };
    Ok(match t {
        0 => "sample",
        1 => "sample_b",
        2 => "sample_l",
        3 => "sample_c",
        4 => "sample_d",
        5 => "sample_b_c",
        6 => "sample_l_c",
        7 => "ld",
        8 => "gather4",
        9 => "lod",
        10 => "resinfo",
        11 => "sampleinfo",
        13 if xe2 => "gather4_l",
        14 if xe2 => "gather4_b",
        15 if xe2 => "gather4_i",
        16 => "gather4_c",
        17 => "gather4_po",
        18 if xe2 => "sample_mlod",
        18 => "gather4_po_c",
        19 if xe2 => "sample_c_mlod",
        20 => "sample_d_c",
        21 if xe2 => "gather4_i_c",
        23 if xe2 => "gather4_l_c",
        24 => "sample_lz",
        25 => "sample_c_lz",
        26 => "ld_lz",
        28 => "ld2dms_w",
        29 => "ld_mcs",
        30 => "ld2dms",
        31 => "ld2dss",
        45 if xe2 => "gather4_po_l",
        46 if xe2 => "gather4_po_b",
        55 if xe2 => "gather4_po_l_c",
        _ => return Err(t),
    })
}

/// `gfx5_sampler_simd_mode` and `xe2_sampler_simd_mode` (`brw_disasm.c:548-562`).
const SIMD: [Option<&str>; 8] = [
    Some("SIMD4x2"),
    Some("SIMD8"),
    Some("SIMD16"),
    Some("SIMD32/64"),
    None,
    Some("SIMD8H"),
    Some("SIMD16H"),
    None,
];

const XE2_SAMPLER_SIMD: [Option<&str>; 8] = [
    None,
    Some("SIMD16"),
    Some("SIMD32"),
    None,
    None,
    Some("SIMD16H"),
    Some("SIMD32H"),
    None,
];

fn message_lengths(out: &mut Out, send: &Send, gen: Gen) {
    if let Some(m) = send.mlen() {
        out.s(&format!(" mlen {m}"));
    }
    if let (Some(d), true) = (send.ex_desc, send.src1.is_some()) {
        // Xe2 widened the field to bits 10:6 (in units of two registers, as brw prints it).
        let ex = (d >> 6) & if gen.is_xe2() { 0x1f } else { 0xf };
        out.s(&format!(" ex_mlen {ex}"));
    }
    if let Some(r) = send.rlen() {
        out.s(&format!(" rlen {r}"));
    }
}

const OWORDS: [&str; 8] = ["1-low", "1-high", "2", "4", "8", "", "", ""];

const AOP: [&str; 16] = [
    "", "and", "or", "xor", "mov", "inc", "dec", "add", "sub", "revsub", "imax", "imin", "umax",
    "umin", "cmpwr", "predec",
];

fn dc1_name(msg_type: u32) -> &'static str {
    match msg_type {
        1 => "untyped surface read",
        2 => "DC untyped atomic op",
        3 => "DC untyped 4x2 atomic op",
        4 => "DC media block read",
        5 => "DC typed surface read",
        6 => "DC typed atomic",
        7 => "DC typed 4x2 atomic op",
        9 => "DC untyped surface write",
        10 => "DC media block write",
        11 => "DC atomic counter op",
        12 => "DC 4x2 atomic counter op",
        13 => "DC typed surface write",
        0x10 => "DC A64 scattered read",
        0x11 => "DC A64 untyped surface read",
        0x12 => "DC A64 untyped atomic op",
        0x14 => "DC A64 oword block read",
        0x15 => "DC A64 oword block write",
        0x19 => "DC A64 untyped surface write",
        0x1a => "DC A64 scattered write",
        0x1b => "DC untyped atomic float op",
        0x1d => "DC A64 untyped atomic float op",
        _ => "",
    }
}

/// `inst` at byte `offset` as brw prints it (without the hex column), every line ending in
/// `\n`; a send takes two lines.
pub fn print(inst: &Inst, offset: usize, labels: Option<&Labels>) -> String {
    let mut out = Out {
        text: String::new(),
        column: 0,
    };
    let op = inst.opcode;
    if let Some(p) = inst.predicate {
        out.s("(");
        out.s(if p.invert { "-" } else { "+" });
        out.s(&format!("f{}.{}", inst.flag.reg, inst.flag.subreg));
        let table = if inst.align16 {
            &PRED_ALIGN16
        } else {
            &PRED_ALIGN1
        };
        out.s(table[usize::from(p.control)]);
        out.s(") ");
    }
    out.s(op.name());
    if !op.is_send() && inst.saturate {
        out.s(".sat");
    }
    if inst.debug {
        out.s(".breakpoint");
    }
    if let Some(f) = inst.math_function {
        out.s(" ");
        out.s(MATH_FUNCTION[usize::from(f)]);
    } else if let Some(f) = inst.sync_function {
        out.s(" ");
        out.s(SYNC_FUNCTION[usize::from(f)]);
    } else if !op.is_send() {
        out.s(COND_MOD[usize::from(inst.cond_modifier)]);
        if inst.cond_modifier != 0
            && !matches!(op, Opcode::SEL | Opcode::CSEL | Opcode::IF | Opcode::WHILE)
        {
            out.s(&format!(".f{}.{}", inst.flag.reg, inst.flag.subreg));
        }
    }
    if op != Opcode::NOP {
        out.s(&format!("({})", inst.exec_size));
    }
    if let (Some(jip), Some(uip)) = (inst.jip, inst.uip) {
        out.pad(16);
        out.s("JIP: ");
        label(&mut out, labels, offset, jip);
        out.pad(38);
        out.s("UIP: ");
        label(&mut out, labels, offset, uip);
    } else if let Some(jip) = inst.jip {
        out.pad(16);
        out.s("JIP: ");
        label(&mut out, labels, offset, jip);
    } else if op.sources() == 3 {
        if let Some(d) = &inst.dst {
            out.pad(16);
            three_src_dest(&mut out, inst.align16, d);
        }
        for (i, s) in inst.src.iter().enumerate() {
            if let Some(s) = s {
                out.pad(32 + 16 * i);
                three_src_src(&mut out, inst.align16, s);
            }
        }
    } else {
        if let Some(d) = &inst.dst {
            out.pad(16);
            dest(&mut out, inst, d);
        }
        if let Some(s) = &inst.src[0] {
            out.pad(32);
            src(&mut out, inst, s);
        }
        if op.sources() > 1 {
            if let Some(s) = &inst.src[1] {
                out.pad(48);
                src(&mut out, inst, s);
            }
        }
    }
    if let Some(send) = &inst.send {
        if let Some((file, nr)) = send.src1 {
            // The split send's src1 was not printed above: it is not a region.
            out.pad(48);
            reg(&mut out, file, nr);
            out.s("UD");
            out.pad(64);
            match send.desc {
                Some(d) => out.raw(&format!("0x{d:08x}")),
                None => out.s("a0<0>UD"),
            }
            out.pad(80);
            match send.ex_desc {
                Some(d) => out.raw(&format!("0x{d:08x}")),
                None => {
                    out.s("a0");
                    if send.ex_desc_a0_subreg != 0 {
                        out.s(&format!(".{}", send.ex_desc_a0_subreg));
                    }
                    out.s("<0>UD");
                }
            }
        } else {
            out.pad(48);
            if let Some(s) = &inst.src[1] {
                // The descriptor from a0.0.
                src(&mut out, inst, s);
                out.pad(64);
            }
            // The whole upper dword, EOT included.
            let upper = send.desc.unwrap_or(0) | (u32::from(send.eot) << 31);
            out.raw(&format!("0x{upper:08x}"));
        }
        out.newline();
        out.pad(16);
        out.raw("            ");
        message(&mut out, send, inst.gen);
    }
    out.pad(64);
    if op != Opcode::NOP {
        out.s("{");
        let mut space = true;
        out.item(if inst.align16 { "align16" } else { "align1" }, &mut space);
        out.item(if inst.no_mask { "WE_all" } else { "" }, &mut space);
        let dep = match (inst.no_dd_clear, inst.no_dd_check) {
            (false, false) => "",
            (true, false) => "NoDDClr",
            (false, true) => "NoDDChk",
            (true, true) => "NoDDClr,NoDDChk",
        };
        out.item(dep, &mut space);
        out.s(&qtr(inst));
        if let Some(swsb) = &inst.swsb {
            out.s(&swsb.text());
        }
        out.item(if inst.compacted { "compacted" } else { "" }, &mut space);
        out.item(
            ["", "atomic", "switch", ""][usize::from(inst.thread_control)],
            &mut space,
        );
        let bit28 = if op.has_branch_ctrl() {
            "BranchCtrl"
        } else {
            "AccWrEnable"
        };
        out.item(if inst.acc_wr_or_branch { bit28 } else { "" }, &mut space);
        if let Some(s) = &inst.send {
            out.item(if s.eot { "EOT" } else { "" }, &mut space);
        }
        if space {
            out.s(" ");
        }
        out.s("}");
    }
    out.s(";");
    out.newline();
    out.text
}

fn qtr(inst: &Inst) -> String {
    let q = inst.qtr_control;
    if inst.exec_size < 8 || inst.nib_control {
        format!(" {}N", q * 2 + u8::from(inst.nib_control) + 1)
    } else if inst.exec_size == 8 {
        format!(" {}Q", q + 1)
    } else if inst.exec_size == 16 {
        if q < 2 { " 1H" } else { " 2H" }.to_string()
    } else {
        String::new()
    }
}

impl std::fmt::Display for Inst {
    /// brw's syntax without labels (jump targets print as `JIP: ` alone, as brw does
    /// without a label table).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = print(self, 0, None);
        f.write_str(text.trim_end_matches('\n'))
    }
}

/// A whole program in brw's syntax with labels (`LABELn:` lines before jump targets).
pub fn print_program(program: &[(usize, Inst)]) -> String {
    let labels = Labels::of(program);
    let mut out = String::new();
    for (offset, inst) in program {
        if let Some(n) = labels.at(*offset) {
            let _ = write!(out, "\nLABEL{n}:\n");
        }
        out += &print(inst, *offset, Some(&labels));
    }
    out
}
