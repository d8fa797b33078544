//! The printer: a header of declarations, a blank line, then the body NIR-style.
//!
//! Two spaces per nesting level: block labels at the level of their list, their
//! instructions one level deeper. The else-branch is always printed (its list holds at least
//! one block). 32-bit constants print as `0x%08x` words, with a `/* float */` comment only
//! when every component reads as a "nice" float (see [`nice_float`]); boolean constants as
//! `true`/`false` (a bit pattern other than 0 or 1 prints as a hex word, which the parser
//! also accepts).

use super::super::{BitSize, CfNode, Function, Inst, InstKind, Program, Type, Value};
use cranelift_entity::packed_option::ReservedValue;
use std::fmt::{self, Write};

/// The whole program in the text format (ends with a line end).
pub fn print_program(p: &Program) -> String {
    let mut out = String::new();
    let d = &p.dispatch;
    let _ = writeln!(out, "invocations {}", d.invocations);
    let _ = writeln!(out, "outputs {}", d.outputs);
    if d.workgroup != 1 {
        let _ = writeln!(out, "workgroup {}", d.workgroup);
    }
    if !d.uniforms.is_empty() {
        out.push_str("uniforms");
        for w in &d.uniforms {
            let _ = write!(out, " 0x{w:08x}");
        }
        out.push('\n');
    }
    for len in &d.buffers {
        let _ = writeln!(out, "buffer {len}");
    }
    for len in &d.shared {
        let _ = writeln!(out, "shared {len}");
    }
    for t in &d.textures {
        let _ = writeln!(
            out,
            "texture {}x{} levels {} layers {}",
            t.width, t.height, t.levels, t.layers
        );
    }
    let f = &p.func;
    for (var, ty) in f.vars.iter() {
        let _ = writeln!(out, "{var}: {ty}");
    }
    for (reg, ty) in f.regs.iter() {
        let _ = writeln!(out, "{reg}: {ty}");
    }
    out.push('\n');
    print_list(&mut out, f, &f.body, 0);
    out
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print_program(self))
    }
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

fn print_list(out: &mut String, f: &Function, list: &[CfNode], depth: usize) {
    for node in list {
        match node {
            CfNode::Block(b) => {
                indent(out, depth);
                let _ = writeln!(out, "{b}:");
                let insts = f.blocks.get(*b).map_or(&[][..], |d| &d.insts[..]);
                for &inst in insts {
                    indent(out, depth + 1);
                    out.push_str(&print_inst(f, inst));
                    out.push('\n');
                }
            }
            CfNode::If(n) => {
                indent(out, depth);
                let _ = writeln!(out, "if {} {{", n.cond);
                print_list(out, f, &n.then_list, depth + 1);
                indent(out, depth);
                out.push_str("} else {\n");
                print_list(out, f, &n.else_list, depth + 1);
                indent(out, depth);
                out.push_str("}\n");
            }
            CfNode::Loop(n) => {
                indent(out, depth);
                out.push_str("loop {\n");
                print_list(out, f, &n.body, depth + 1);
                indent(out, depth);
                out.push_str("}\n");
            }
        }
    }
}

/// Whether a 32-bit pattern reads as a float worth a `/* x */` comment: a normal float of
/// magnitude in [2^-16, 2^24] whose shortest decimal form has at most 10 characters. Small
/// integers (denormal patterns), zero and NaN-like patterns never qualify.
pub fn nice_float(bits: u32) -> Option<String> {
    let x = f32::from_bits(bits);
    let mag = x.abs();
    if !x.is_normal() || !(1.0 / 65536.0..=16_777_216.0).contains(&mag) {
        return None;
    }
    let s = format!("{x:?}");
    (s.len() <= 10).then_some(s)
}

/// One instruction, as printed in the body (without indentation or line end). Also what
/// error messages and reports quote.
pub fn print_inst(f: &Function, inst: Inst) -> String {
    let mut s = String::new();
    let Some(data) = f.insts.get(inst) else {
        return format!("<no {inst}>");
    };
    let result = data.result.expand();
    let ty = result.map_or(Type::None, |v| ty_of(f, v));
    if let Some(v) = result {
        let _ = write!(s, "{ty} {v} = ");
    }
    s.push_str(data.kind.name());
    match &data.kind {
        InstKind::Const { bits } => {
            let n = (ty.comps().clamp(1, 4)) as usize;
            let words = &bits[..n];
            s.push_str(" (");
            if ty.bits() == Some(BitSize::B1) {
                for (i, &w) in words.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    let _ = match w {
                        0 => write!(s, "{sep}false"),
                        1 => write!(s, "{sep}true"),
                        w => write!(s, "{sep}0x{w:08x}"),
                    };
                }
            } else {
                let floats: Option<Vec<String>> = words
                    .iter()
                    .map(|&w| nice_float(w).filter(|_| ty.bits() == Some(BitSize::B32)))
                    .collect();
                let digits = if ty.bits() == Some(BitSize::B16) {
                    4
                } else {
                    8
                };
                for (i, &w) in words.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    let _ = write!(s, "{sep}0x{w:0digits$x}");
                    if let Some(fl) = &floats {
                        let _ = write!(s, " /* {} */", fl[i]);
                    }
                }
            }
            s.push(')');
        }
        InstKind::Alu { op, args } => list(&mut s, &args[..op.arity()]),
        InstKind::Subgroup { op, args } => {
            if let Some(c) = op.combining() {
                let _ = write!(s, " {}", c.name());
            }
            list(&mut s, &args[..op.arity()]);
        }
        InstKind::Vec { args } => {
            let present: Vec<Value> = args.iter().copied().filter(|v| *v != reserved()).collect();
            list(&mut s, &present);
        }
        InstKind::Mov { src, swizzle } => {
            let _ = write!(s, " {src}.");
            let n = ty.comps().clamp(1, 4) as usize;
            for &c in &swizzle[..n] {
                s.push(*b"xyzw".get(c as usize).unwrap_or(&b'?') as char);
            }
        }
        InstKind::Phi { sources } => {
            for (i, src) in sources.iter().enumerate() {
                let sep = if i == 0 { " " } else { ", " };
                let _ = write!(s, "{sep}{}: {}", src.pred, src.value);
            }
        }
        InstKind::InvocationId
        | InstKind::LocalId
        | InstKind::WorkgroupId
        | InstKind::Barrier
        | InstKind::Break
        | InstKind::Continue => {}
        InstKind::LoadUniform { index } => {
            let _ = write!(s, " {index}");
        }
        InstKind::LoadBuffer {
            buffer: array,
            index,
        }
        | InstKind::LoadShared {
            shared: array,
            index,
        } => {
            let _ = write!(s, " {array}, {index}");
        }
        InstKind::StoreBuffer {
            buffer: array,
            index,
            value,
        }
        | InstKind::StoreShared {
            shared: array,
            index,
            value,
        } => {
            let _ = write!(s, " {array}, {index}, {value}");
        }
        InstKind::AtomicBuffer {
            buffer: array,
            op,
            index,
            value,
        }
        | InstKind::AtomicShared {
            shared: array,
            op,
            index,
            value,
        } => {
            let _ = write!(s, " {} {array}, {index}, {value}", op.name());
        }
        InstKind::StoreOutput { slot, value } => {
            let _ = write!(s, " {slot}, {value}");
        }
        InstKind::Tex {
            texture,
            coord,
            params,
        }
        | InstKind::Txf {
            texture,
            coord,
            params,
        } => {
            let _ = write!(s, " {texture}, {coord}");
            tex_params(&mut s, params);
        }
        InstKind::Txs { texture, params } => {
            let _ = write!(s, " {texture}");
            tex_params(&mut s, params);
        }
        InstKind::DerefVar { var } => {
            let _ = write!(s, " {var}");
        }
        InstKind::DerefArray { parent, index } => {
            let _ = write!(s, " {parent}[{index}]");
        }
        InstKind::DerefStruct { parent, field } => {
            let _ = write!(s, " {parent}.{field}");
        }
        InstKind::DerefCast { parent, ty } => {
            let _ = write!(s, " ({ty}) {parent}");
        }
        InstKind::LoadDeref { deref } => {
            let _ = write!(s, " {deref}");
        }
        InstKind::StoreDeref { deref, value } => {
            let _ = write!(s, " {deref}, {value}");
        }
        InstKind::LoadReg { reg } => {
            let _ = write!(s, " {reg}");
        }
        InstKind::StoreReg { reg, value } => {
            let _ = write!(s, " {reg}, {value}");
        }
    }
    s
}

fn reserved() -> Value {
    use cranelift_entity::packed_option::ReservedValue;
    Value::reserved_value()
}

fn ty_of(f: &Function, v: Value) -> Type {
    f.values.get(v).map_or(Type::None, |d| d.ty)
}

fn list(s: &mut String, values: &[Value]) {
    for (i, v) in values.iter().enumerate() {
        let sep = if i == 0 { " " } else { ", " };
        let _ = write!(s, "{sep}{v}");
    }
}

/// `, dim D, lod V, ..., offset (a, b, c), gather N`: the parameters that are not defaults, in
/// the parser's order.
fn tex_params(s: &mut String, params: &crate::ir::TexParams) {
    if params.dim != crate::ir::TexDim::D2 {
        let _ = write!(s, ", dim {}", params.dim.name());
    }
    for (name, v) in params.named() {
        if v != Value::reserved_value() {
            let _ = write!(s, ", {name} {v}");
        }
    }
    if params.has_offset() {
        let n = params.dim.coords() as usize;
        let o: Vec<String> = params.offset[..n].iter().map(|x| x.to_string()).collect();
        let _ = write!(s, ", offset ({})", o.join(", "));
    }
    if let Some(c) = params.gather {
        let _ = write!(s, ", gather {c}");
    }
}
