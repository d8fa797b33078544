//! [`Inst`] in the disassembly syntax of brw from Mesa 26 (seen in 26.2.6 captures: the source
//! was not at hand, so every rule below is read off real listings, `sim/src/intel/tests/*26*.lst`).
//! The fields are those of [`super::print`]'s older syntax, spelt and ordered otherwise:
//!
//! ```text
//! (W&~f0.0) sel (16|M16)  (ge)f0.0  r12:d  -r10.1<0>:d  5:w  {Compacted,I@2}
//! ```
//!
//! - a leading `(W)` for NoMask, joined with the predicate as `(W&f0.0)`, `(~f0.0)` when inverted;
//! - the opcode with `.sat`, `.b` (branch control), `math.`/`sync.` and the function, a send's
//!   `.sfid`; the execution size with `|M<first lane>` when the group does not start at 0; a
//!   conditional modifier as `(lt)f0.0` after it;
//! - registers `rN` (ARFs as before), the subregister in elements, then the region: none when
//!   contiguous (`<w·h;w,h>` with `h` 1), `<0>` for a scalar, `<h>` for other contiguous rows,
//!   `<v;w,h>` else; the type after a colon, none for `ud`; immediates in decimal for signed and
//!   16-bit types, hex otherwise, typed the same way;
//! - jumps as `jip:L3 uip:L4`, a lone JIP as `L3`, labels numbered in address order;
//! - options in braces, comma-separated, the SWSB annotation last;
//! - a send: `dst src0 src1[:len] ex_desc desc` (descriptors `0x%08X`, `src1`'s length from
//!   Gfx12.5 on), then a comment `// wr:<mlen>[h]+<ex_mlen>, rd:<rlen>; <message>`. What we print
//!   of the comment stops at the lengths: the message part names what the descriptors (compared
//!   as numbers) hold, and is not written here.
//!
//! brw 26 reads Gfx9's align16 three-source operands oddly (a `<0>` destination region, `<0;0>`
//! for sources 0 and 1, `<0>` for source 2, `.r` when replicated); kept, since the point is
//! agreement.

use super::gen::Gen;
use super::inst::{Dst, Inst, RegSrc, Region, Send, Src};
use super::opcode::Opcode;
use super::print::{PRED_ALIGN1, SYNC_FUNCTION};
use super::types::{RegFile, Type};

/// Jump-target labels numbered as brw 26 numbers them: by address.
#[derive(Clone, Debug, Default)]
pub struct Labels26(Vec<usize>);

impl Labels26 {
    /// The labels of a decoded program (instructions with their byte offsets).
    pub fn of(program: &[(usize, Inst)]) -> Labels26 {
        let mut targets: Vec<usize> = program
            .iter()
            .flat_map(|(offset, inst)| {
                [inst.jip, inst.uip]
                    .into_iter()
                    .flatten()
                    .filter_map(move |j| usize::try_from(*offset as i64 + i64::from(j)).ok())
            })
            .collect();
        targets.sort_unstable();
        targets.dedup();
        Labels26(targets)
    }

    /// The number of the label at byte `offset`, if there is one.
    pub fn at(&self, offset: usize) -> Option<usize> {
        self.0.binary_search(&offset).ok()
    }
}

const COND_MOD: [&str; 16] = [
    "", "eq", "ne", "gt", "ge", "lt", "le", "", "ov", "un", "", "", "", "", "", "",
];

const MATH_FUNCTION: [&str; 16] = [
    "",
    "inv",
    "log",
    "exp",
    "sqt",
    "rsq",
    "sin",
    "cos",
    "",
    "fdiv",
    "pow",
    "intdiv_qr",
    "intdiv_q",
    "intdiv_r",
    "invm",
    "rsqrtm",
];

/// The shared functions' short names (`send.hdc1`).
const SFID: [&str; 16] = [
    "null", "", "smpl", "gtwy", "", "", "urb", "ts", "rtaccel", "hdc_ro", "hdc0", "", "hdc1",
    "tgm", "slm", "ugm",
];

fn reg(file: RegFile, nr: u8) -> String {
    if file != RegFile::Arf {
        return format!("r{nr}");
    }
    let index = nr & 0xf;
    match nr & 0xf0 {
        0x00 => "null".into(),
        0x10 => format!("a{index}"),
        0x20 => format!("acc{index}"),
        0x30 => format!("f{index}"),
        0x40 => format!("mask{index}"),
        0x70 => format!("sr{index}"),
        0x80 => format!("cr{index}"),
        0x90 => format!("n{index}"),
        0xa0 => "ip".into(),
        0xb0 => "tdr0".into(),
        0xc0 => format!("tm{index}"),
        _ => format!("arf{nr}"),
    }
}

/// The type suffix: nothing for `ud`, brw 26's default.
fn ty(t: Type) -> String {
    if t == Type::UD {
        String::new()
    } else {
        format!(":{}", t.letters().to_ascii_lowercase())
    }
}

/// The subregister: in elements of the type, but in bytes on the address register (`a0.8`
/// is its third dword) and, on Xe2, on the flag registers (`f0.2:uw` is `f0`'s second word:
/// read off Jay's Xe2 listings, where every flag operand with a subregister is so printed).
///
/// A state register's subregister is not printed: 26.2.6 lists the dispatch mask, `sr0`'s
/// third dword (brw's `brw_dmask_reg`), as `sr0<0>` (tgl, dg2).
fn subreg(gen: Gen, file: RegFile, nr: u8, bytes: u8, t: Type) -> String {
    let address = file == RegFile::Arf && nr & 0xf0 == 0x10;
    let flag = file == RegFile::Arf && nr & 0xf0 == 0x30 && gen.is_xe2();
    if file == RegFile::Arf && nr & 0xf0 == 0x70 {
        return String::new();
    }
    let shown = if address || flag {
        u32::from(bytes)
    } else {
        u32::from(bytes) / t.size()
    };
    if shown == 0 {
        String::new()
    } else {
        format!(".{shown}")
    }
}

fn is_null(file: RegFile, nr: u8) -> bool {
    file == RegFile::Arf && nr & 0xf0 == 0
}

/// A region by the stride between consecutive elements when there is one: none for 1, `<0>`
/// for a scalar, `<s>` else; `<v;w,h>` when rows do not follow on.
fn region(r: Region) -> String {
    let stride = match r.vstride {
        None => None,
        // One element per row: rows are the elements.
        Some(v) if r.width == 1 => Some(u32::from(v)),
        Some(v) if u32::from(v) == u32::from(r.width) * u32::from(r.hstride) => {
            Some(u32::from(r.hstride))
        }
        Some(_) => None,
    };
    match (stride, r.vstride) {
        (Some(1), _) => String::new(),
        (Some(s), _) => format!("<{s}>"),
        (None, Some(v)) => format!("<{v};{},{}>", r.width, r.hstride),
        (None, None) => format!("<VxH;{},{}>", r.width, r.hstride),
    }
}

fn indirect_reg(a0_subreg: u8, offset: i16) -> String {
    if offset == 0 {
        format!("r[a0.{a0_subreg}]")
    } else {
        format!("r[a0.{a0_subreg} + {offset}]")
    }
}

fn dest(inst: &Inst, d: &Dst) -> String {
    let name = match d.indirect {
        None => format!(
            "{}{}",
            reg(d.file, d.nr),
            subreg(inst.gen, d.file, d.nr, d.subreg, d.ty)
        ),
        Some(ia) => indirect_reg(ia.a0_subreg, ia.offset),
    };
    let stride = if inst.align16 && inst.is_3src() {
        "<0>".to_string()
    } else if d.hstride == 1 {
        String::new()
    } else {
        format!("<{}>", d.hstride)
    };
    format!("{name}{stride}{}", ty(d.ty))
}

/// Source modifiers: brw 26 writes `-` for negation on logic ops too, where it means `not`.
fn modifiers(s: &RegSrc) -> String {
    let mut m = String::new();
    if s.negate {
        m.push('-');
    }
    if s.abs {
        m.push_str("(abs)");
    }
    m
}

fn imm(t: Type, bits: u64) -> String {
    let ud = bits as u32;
    let value = match t {
        Type::UQ | Type::Q | Type::DF => format!("0x{bits:016x}"),
        Type::D => format!("{}", ud as i32),
        Type::UW => format!("{}", ud as u16),
        Type::W => format!("{}", ud as i16),
        Type::UB => format!("{}", ud as u8),
        Type::B => format!("{}", ud as u8 as i8),
        Type::HF => format!("0x{:04x}", ud as u16),
        Type::UD | Type::F | Type::V | Type::UV | Type::VF => format!("0x{ud:08x}"),
    };
    format!("{value}{}", ty(t))
}

/// A source; `position` is its index, which Gfx12's three-source encoding reads differently.
fn src(inst: &Inst, s: &Src, position: usize) -> String {
    let r = match s {
        Src::Imm { ty, bits } => return imm(*ty, *bits),
        Src::Reg(r) => r,
    };
    if is_null(r.file, r.nr) && r.indirect.is_none() {
        // A null source is printed bare (a null destination keeps its type).
        return "null".into();
    }
    let name = match r.indirect {
        None => format!(
            "{}{}",
            reg(r.file, r.nr),
            subreg(inst.gen, r.file, r.nr, r.subreg, r.ty)
        ),
        Some(ia) => indirect_reg(ia.a0_subreg, ia.offset),
    };
    let scalar = r.region.vstride == Some(0) && r.region.width == 1 && r.region.hstride == 0;
    let shape = if inst.is_3src() && inst.align16 {
        let rows = if position == 2 { "<0>" } else { "<0;0>" };
        let replicated = if scalar { ".r" } else { "" };
        format!("{rows}{replicated}")
    } else if inst.is_3src() && position == 2 {
        // Gfx12's third source has a horizontal stride only.
        format!("<{}>", r.region.hstride)
    } else {
        match (region(r.region), r.region.vstride) {
            // Gfx12's first two three-source operands have a vertical and a horizontal
            // stride and no width: what is neither contiguous nor scalar prints `<v;h>`
            // (`-r111<4;2>:d`, the 64-bit halves brw's int64 lowering reads on lnl).
            (shown, Some(v)) if inst.is_3src() && shown.starts_with('<') && shown != "<0>" => {
                format!("<{v};{}>", r.region.hstride)
            }
            (shown, _) => shown,
        }
    };
    format!("{}{name}{shape}{}", modifiers(r), ty(r.ty))
}

fn jump(labels: Option<&Labels26>, offset: usize, jump: i32) -> String {
    let target = usize::try_from(offset as i64 + i64::from(jump)).ok();
    match labels.zip(target).and_then(|(l, t)| l.at(t)) {
        Some(n) => format!("L{n}"),
        None => format!("{jump}"),
    }
}

/// A send's second payload, with its length from Gfx12.5 on.
fn send_src1(inst: &Inst, send: &Send) -> String {
    let (file, nr) = send.src1.unwrap_or((RegFile::Arf, 0));
    let name = reg(file, nr);
    if !(inst.gen.is_xehp() || inst.gen.is_xe2()) {
        return name;
    }
    match ex_len(inst.gen, send) {
        Some(n) => format!("{name}:{n}"),
        None => name,
    }
}

/// The second payload's length: from the instruction with `ex_bso`, else the extended
/// descriptor's field (5 bits on Xe2), unknown when that comes from `a0`.
fn ex_len(gen: Gen, send: &Send) -> Option<u32> {
    if ex_bso(gen, send) {
        return Some(u32::from(send.src1_len));
    }
    send.ex_desc
        .map(|d| (d >> 6) & if gen.is_xe2() { 0x1f } else { 0xf })
}

/// Whether brw 26 says `ExBSO`: the bit on Gfx12.5 (read with an `a0` extended descriptor);
/// on Xe2 every UGM/TGM message, whose second payload's length is then the instruction's,
/// and an SLM message only with instruction bit 39 set (bit 15 of its immediate extended
/// descriptor). Measured, not read in brw's source: of 31 SLM sends captured from brw and
/// Jay 26.2.6 on lnl, the 28 with the bit say `ExBSO` and the 3 without do not.
fn ex_bso(gen: Gen, send: &Send) -> bool {
    const SFID_SLM: u8 = 14;
    let xe2 = gen.is_xe2() && send.is_lsc();
    let slm_bit = send.ex_desc.is_some_and(|d| d >> 15 & 1 == 1);
    send.ex_bso || (xe2 && (send.sfid != SFID_SLM || slm_bit))
}

/// The comment's lengths: `wr:<mlen>[h]+<ex_mlen>, rd:<rlen>;`.
fn lengths(inst: &Inst, send: &Send) -> String {
    let mlen = send
        .mlen()
        .map_or_else(|| "a0.0".to_string(), |m| m.to_string());
    let header = match send.desc {
        Some(d) if !send.is_lsc() && d & (1 << 19) != 0 => "h",
        _ => "",
    };
    let ex = match (send.ex_desc, ex_len(inst.gen, send)) {
        // brw names the register when the length is not in the instruction.
        (None, Some(0) | None) => format!("a0.{}", 2 * send.ex_desc_a0_subreg),
        (_, Some(n)) => n.to_string(),
        (Some(_), None) => String::new(),
    };
    let rlen = send
        .rlen()
        .map_or_else(|| "?".to_string(), |r| r.to_string());
    format!("// wr:{mlen}{header}+{ex}, rd:{rlen};")
}

/// A descriptor: the immediate, or the `a0` word it is read from (brw 26 counts the
/// extended descriptor's dword field in words).
fn descriptor(d: Option<u32>, a0_word: u8) -> String {
    match d {
        Some(d) => format!("0x{d:08X}"),
        None => format!("a0.{a0_word}"),
    }
}

fn options(inst: &Inst) -> String {
    let mut items: Vec<String> = Vec::new();
    let mut push = |on: bool, s: &str| {
        if on {
            items.push(s.to_string());
        }
    };
    push(
        inst.acc_wr_or_branch && !inst.opcode.has_branch_ctrl(),
        "AccWrEn",
    );
    push(inst.thread_control == 1, "Atomic");
    push(inst.thread_control == 2, "Switch");
    push(inst.debug, "Breakpoint");
    push(inst.align16, "Align16");
    push(inst.compacted, "Compacted");
    push(inst.no_dd_check, "NoDDChk");
    push(inst.no_dd_clear, "NoDDClr");
    if let Some(s) = &inst.send {
        push(s.eot, "EOT");
        push(ex_bso(inst.gen, s), "ExBSO");
    }
    if let Some(swsb) = &inst.swsb {
        items.extend(swsb.text().split_whitespace().map(str::to_string));
    }
    if items.is_empty() {
        String::new()
    } else {
        format!("{{{}}}", items.join(","))
    }
}

/// `inst` at byte `offset` as brw 26 prints it (without the hex column), on one line.
pub fn print26(inst: &Inst, offset: usize, labels: Option<&Labels26>) -> String {
    let op = inst.opcode;
    let mut words: Vec<String> = Vec::new();
    let flag = format!("f{}.{}", inst.flag.reg, inst.flag.subreg);
    match (inst.no_mask, inst.predicate) {
        (false, None) => {}
        (true, None) => words.push("(W)".into()),
        (w, Some(p)) => words.push(format!(
            "({}{}{flag}{})",
            if w { "W&" } else { "" },
            if p.invert { "~" } else { "" },
            PRED_ALIGN1[usize::from(p.control)]
        )),
    }
    let mut name = op.name().to_string();
    if let Some(f) = inst.math_function {
        name = format!("math.{}", MATH_FUNCTION[usize::from(f)]);
    } else if let Some(f) = inst.sync_function {
        name = format!("sync.{}", SYNC_FUNCTION[usize::from(f)]);
    } else if let Some(s) = &inst.send {
        name = format!("{name}.{}", SFID[usize::from(s.sfid)]);
    }
    if !op.is_send() && inst.saturate {
        name.push_str(".sat");
    }
    if op.has_branch_ctrl() && inst.acc_wr_or_branch {
        name.push_str(".b");
    }
    words.push(name);
    // Gfx9's `nop` is printed bare, Xe2's with its execution size.
    if op == Opcode::NOP && !inst.gen.is_gfx12() {
        return words.join(" ");
    }
    let group = inst.group();
    words.push(if group == 0 {
        format!("({})", inst.exec_size)
    } else {
        format!("({}|M{group})", inst.exec_size)
    });
    if inst.cond_modifier != 0 && inst.math_function.is_none() && !op.is_send() {
        words.push(format!(
            "({}){flag}",
            COND_MOD[usize::from(inst.cond_modifier)]
        ));
    }
    match (inst.jip, inst.uip) {
        (Some(j), Some(u)) => {
            words.push(format!("jip:{}", jump(labels, offset, j)));
            words.push(format!("uip:{}", jump(labels, offset, u)));
        }
        (Some(j), None) => words.push(jump(labels, offset, j)),
        _ => {}
    }
    if let Some(send) = &inst.send {
        let d = inst
            .dst
            .as_ref()
            .map_or("null".into(), |d| reg(d.file, d.nr));
        let s0 = match &inst.src[0] {
            Some(Src::Reg(r)) => reg(r.file, r.nr),
            _ => "null".into(),
        };
        words.extend([d, s0, send_src1(inst, send)]);
        words.push(descriptor(send.ex_desc, 2 * send.ex_desc_a0_subreg));
        words.push(descriptor(send.desc, 0));
        words.push(options(inst));
        // The thread spawner's messages get no comment.
        if send.sfid != 7 {
            words.push(lengths(inst, send));
        }
    } else {
        if let Some(d) = &inst.dst {
            words.push(dest(inst, d));
        }
        let sources = usize::from(op.sources());
        for (i, s) in inst.src.iter().take(sources).enumerate() {
            if let Some(s) = s {
                words.push(src(inst, s, i));
            }
        }
        words.push(options(inst));
    }
    words.retain(|w| !w.is_empty());
    words.join(" ")
}
