//! Parsing one instruction line: `[TYPE ssa_N =] OPCODE OPERANDS`.
//!
//! Checks here are the ones the line alone decides: the opcode exists, a result is present
//! exactly when the opcode defines one, the declared type fits what the opcode can produce
//! (as far as it does not depend on operand types), the operand count, constants' component
//! count, swizzle letters, declared variables and registers, and the block layout rules for
//! phis and jumps. Operand types wait for [`super::check`].

use super::super::{
    AluOp, AtomicOp, BitSize, InstData, InstKind, PhiSource, Reg, SubgroupOp, TexDim, TexParams,
    Type, Value, Var,
};
use super::lex::Tok;
use super::parse::{parse_u32, vec_comps, Deferred, InstInfo, PResult, Parser, ValueDef};
use super::Pos;
use cranelift_entity::packed_option::ReservedValue;

/// Texture parameter keywords, in the order they must appear.
const TEX_KEYS: [&str; 9] = [
    "dim", "lod", "bias", "layer", "compare", "ddx", "ddy", "offset", "gather",
];

/// Whether the opcode `op` defines a value; `None` for an unknown opcode.
pub fn defines_value(op: &str) -> Option<bool> {
    match op {
        "store_buffer" | "store_shared" | "store_output" | "store_deref" | "store_reg"
        | "barrier" | "break" | "continue" => Some(false),
        "load_const" | "vec1" | "vec2" | "vec3" | "vec4" | "mov" | "phi" | "load_invocation_id"
        | "load_local_id" | "load_workgroup_id" | "load_uniform" | "load_buffer"
        | "load_shared" | "tex" | "txf" | "txs" | "deref_var" | "deref_array" | "deref_struct"
        | "deref_cast" | "load_deref" | "load_reg" | "atomic_buffer" | "atomic_shared" => {
            Some(true)
        }
        _ if op.starts_with("subgroup_") => SubgroupOp::all()
            .any(|s| s.mnemonic() == op)
            .then_some(true),
        _ => AluOp::from_name(op).map(|_| true),
    }
}

/// What an opcode produces, for checking the declared type at the line.
enum Produces {
    /// Any type (phi).
    Any,
    /// Some data type (derived from operands later).
    Data,
    /// 32-bit data of any width.
    Data32,
    /// Exactly this type.
    Exactly(Type),
}

impl Parser<'_> {
    /// Parses an instruction line into the current block.
    pub(super) fn instruction(&mut self) -> PResult<()> {
        let start = self.peek();
        let Some(block) = self.cur else {
            return self.err(
                start.pos,
                format!(
                    "expected a block label, found {}: instructions belong to a block",
                    start.tok
                ),
            );
        };
        let mut result = None;
        if let Tok::Word(w) = start.tok {
            if vec_comps(w).is_some() || w == "deref" {
                let (ty, tpos) = if w == "deref" {
                    self.bump();
                    (Type::Deref, start.pos)
                } else {
                    self.data_type()?
                };
                let (n, vpos) = self.entity("ssa_", "a value `ssa_N`")?;
                self.expect('=')?;
                result = Some((ty, tpos, n, vpos));
            }
        }
        let (op, op_pos) = self.word("an opcode")?;
        let Some(defines) = defines_value(op) else {
            return self.err(op_pos, format!("unknown opcode `{op}`"));
        };
        match (defines, result) {
            (true, None) => {
                return self.err(
                    op_pos,
                    format!("`{op}` defines a value: expected `TYPE ssa_N = {op} ...`"),
                )
            }
            (false, Some((_, tpos, ..))) => {
                return self.err(tpos, format!("`{op}` defines no value"))
            }
            _ => {}
        }
        if let Some(jump) = self.cur_jump {
            return self.err(
                start.pos,
                format!("instruction after `{jump}` in {block}: a jump ends its block"),
            );
        }
        if op == "phi" && self.cur_nonphi {
            return self.err(
                op_pos,
                "phi after a non-phi instruction: phis come first in their block",
            );
        }
        if (op == "break" || op == "continue") && self.loop_depth == 0 {
            return self.err(op_pos, format!("`{op}` outside a loop"));
        }
        let ty = result.map_or(Type::None, |r| r.0);
        let mut info = InstInfo {
            inst: self.func.insts.next_key(),
            ty_pos: result.map_or(op_pos, |r| r.1),
            ops: Vec::new(),
            blocks: Vec::new(),
            extra: op_pos,
        };
        let (kind, produces) = self.operands(op, ty, &mut info)?;
        self.eol()?;
        let ok = match produces {
            Produces::Any => true,
            Produces::Data => matches!(ty, Type::Data { .. }),
            Produces::Data32 => ty.bits() == Some(BitSize::B32),
            Produces::Exactly(t) => ty == t || t == Type::None,
        };
        if !ok {
            let what = match produces {
                Produces::Exactly(t) => t.to_string(),
                Produces::Data32 => "32-bit data".to_string(),
                _ => "data".to_string(),
            };
            return self.err(
                info.ty_pos,
                format!("type mismatch: `{op}` produces {what}, but the result is declared {ty}"),
            );
        }
        let value = match result {
            Some((ty, _, n, vpos)) => {
                let idx = n as usize;
                if let Some(Some(first)) = self.values.get(idx) {
                    return self.err(
                        vpos,
                        format!(
                            "ssa_{n} defined twice (first at {}:{})",
                            first.pos.line, first.pos.col
                        ),
                    );
                }
                if self.values.len() <= idx {
                    self.values.resize_with(idx + 1, || None);
                }
                self.values[idx] = Some(ValueDef {
                    ty,
                    inst: info.inst,
                    pos: vpos,
                });
                Some(Value::from_u32(n))
            }
            None => None,
        };
        match op {
            "phi" => {}
            "break" | "continue" => {
                self.cur_jump = Some(if op == "break" { "break" } else { "continue" });
                self.cur_nonphi = true;
            }
            _ => self.cur_nonphi = true,
        }
        let inst = self.func.insts.push(InstData {
            kind,
            result: value.into(),
        });
        if let Some(insts) = self.block_insts.get_mut(block.as_u32() as usize) {
            insts.push(inst);
        }
        self.deferred.push(Deferred::Inst(info));
        Ok(())
    }

    fn value(&mut self, info: &mut InstInfo) -> PResult<Value> {
        let (n, pos) = self.entity("ssa_", "a value `ssa_N`")?;
        info.ops.push(pos);
        Ok(Value::from_u32(n))
    }

    fn comma(&mut self, op: &str, n: usize, k: usize) -> PResult<()> {
        if self.eat(',') {
            Ok(())
        } else if self.at_eol() {
            let pos = self.peek().pos;
            self.err(pos, format!("`{op}` takes {n} operands, found {k}"))
        } else {
            self.expected("`,`")
        }
    }

    fn values(&mut self, op: &str, n: usize, info: &mut InstInfo) -> PResult<Vec<Value>> {
        let mut out = Vec::with_capacity(n);
        for k in 0..n {
            if k > 0 {
                self.comma(op, n, k)?;
            }
            if k == 0 && self.at_eol() {
                let pos = self.peek().pos;
                return self.err(pos, format!("`{op}` takes {n} operands, found 0"));
            }
            out.push(self.value(info)?);
        }
        if self.peek().tok == Tok::Punct(',') {
            let pos = self.peek().pos;
            return self.err(pos, format!("`{op}` takes {n} operands, found more"));
        }
        Ok(out)
    }

    /// `, KEYWORD ARG` texture parameters, each at most once, in the order of [`TEX_KEYS`].
    fn tex_params(&mut self, info: &mut InstInfo) -> PResult<TexParams> {
        let mut params = TexParams::default();
        let mut next = 0;
        let keys = TEX_KEYS.join(", ");
        while self.eat(',') {
            let (w, pos) = self.word(&format!("one of {keys}"))?;
            let Some(k) = TEX_KEYS.iter().position(|&p| p == w) else {
                return self.err(pos, format!("expected one of {keys}, found `{w}`"));
            };
            if k < next {
                return self.err(
                    pos,
                    format!("`{w}` out of place: parameters go in the order {keys}, each once"),
                );
            }
            next = k + 1;
            match w {
                "dim" => {
                    let (d, dpos) = self.word("a dimensionality (1d, 2d, 3d, cube)")?;
                    params.dim = match TexDim::from_name(d) {
                        Some(d) => d,
                        None => return self.err(dpos, format!("unknown dimensionality `{d}`")),
                    };
                }
                "offset" => {
                    self.expect('(')?;
                    let mut n = 0;
                    loop {
                        let pos = self.peek().pos;
                        let neg = self.eat('-');
                        let (v, _) = self.number("an offset")?;
                        let v = if neg { -(v.min(9) as i64) } else { v as i64 };
                        if !(-8..=7).contains(&v) || n == 3 {
                            return self.err(pos, "offsets are 1 to 3 integers in -8..=7");
                        }
                        params.offset[n] = v as i8;
                        n += 1;
                        if !self.eat(',') {
                            break;
                        }
                    }
                    self.expect(')')?;
                }
                "gather" => {
                    let (c, cpos) = self.number("a component 0..=3")?;
                    if c > 3 {
                        return self.err(cpos, "gather component over 3");
                    }
                    params.gather = Some(c as u8);
                }
                _ => {
                    let v = self.value(info)?;
                    match w {
                        "lod" => params.lod = v,
                        "bias" => params.bias = v,
                        "layer" => params.layer = v,
                        "compare" => params.compare = v,
                        "ddx" => params.ddx = v,
                        _ => params.ddy = v,
                    }
                }
            }
        }
        Ok(params)
    }

    fn index_number(&mut self, what: &str) -> PResult<u32> {
        Ok(self.number(what)?.0)
    }

    fn operands(
        &mut self,
        op: &str,
        ty: Type,
        info: &mut InstInfo,
    ) -> PResult<(InstKind, Produces)> {
        let reserved = Value::reserved_value();
        let data32 = Produces::Data32;
        Ok(match op {
            "load_const" => (self.constant(ty, info.ty_pos)?, Produces::Data),
            "vec1" | "vec2" | "vec3" | "vec4" => {
                let n = vec_comps(op).unwrap_or(1);
                let vals = self.values(op, n as usize, info)?;
                let mut args = [reserved; 4];
                args[..vals.len()].copy_from_slice(&vals);
                let produces = match ty {
                    Type::Data { bits, .. } => Produces::Exactly(Type::Data { bits, comps: n }),
                    _ => Produces::Data,
                };
                (InstKind::Vec { args }, produces)
            }
            "mov" => {
                let src = self.value(info)?;
                self.expect('.')?;
                let (w, pos) = self.word("a swizzle (`xyzw`)")?;
                info.extra = pos;
                if w.len() > 4 || !w.bytes().all(|b| b"xyzw".contains(&b)) {
                    return self.err(pos, format!("malformed swizzle `.{w}`: 1–4 of x, y, z, w"));
                }
                let mut swizzle = [0; 4];
                for (s, b) in swizzle.iter_mut().zip(w.bytes()) {
                    *s = b"xyzw".iter().position(|&c| c == b).unwrap_or(0) as u8;
                }
                let produces = match ty {
                    Type::Data { bits, .. } => Produces::Exactly(Type::Data {
                        bits,
                        comps: w.len() as u8,
                    }),
                    _ => Produces::Data,
                };
                (InstKind::Mov { src, swizzle }, produces)
            }
            "phi" => {
                let mut sources = Vec::new();
                while !self.at_eol() {
                    if !sources.is_empty() {
                        self.expect(',')?;
                    }
                    let (b, bpos) = self.entity("block_", "a predecessor `block_N`")?;
                    info.blocks.push(bpos);
                    self.expect(':')?;
                    let value = self.value(info)?;
                    sources.push(PhiSource {
                        pred: super::super::Block::from_u32(b),
                        value,
                    });
                }
                (InstKind::Phi { sources }, Produces::Any)
            }
            "load_invocation_id" => (InstKind::InvocationId, Produces::Exactly(Type::I32)),
            "load_local_id" => (InstKind::LocalId, Produces::Exactly(Type::I32)),
            "load_workgroup_id" => (InstKind::WorkgroupId, Produces::Exactly(Type::I32)),
            "barrier" => (InstKind::Barrier, Produces::Exactly(Type::None)),
            "load_shared" => {
                let shared = self.index_number("a shared array number")?;
                self.expect(',')?;
                let index = self.value(info)?;
                (InstKind::LoadShared { shared, index }, data32)
            }
            "store_shared" => {
                let shared = self.index_number("a shared array number")?;
                self.expect(',')?;
                let v = self.values(op, 2, info)?;
                let kind = InstKind::StoreShared {
                    shared,
                    index: v[0],
                    value: v[1],
                };
                (kind, Produces::Exactly(Type::None))
            }
            _ if op.starts_with("subgroup_") => {
                let combining = if SubgroupOp::takes_combining(op) {
                    let (w, pos) = self.word("a combining operation (`add`, `umin`, …)")?;
                    match AtomicOp::from_name(w).filter(|c| c.commutes()) {
                        Some(c) => Some(c),
                        None => {
                            let names: Vec<_> = AtomicOp::ALL
                                .iter()
                                .filter(|o| o.commutes())
                                .map(|o| o.name())
                                .collect();
                            return self.err(
                                pos,
                                format!(
                                    "unknown combining operation `{w}` of `{op}`: one of {}",
                                    names.join(", ")
                                ),
                            );
                        }
                    }
                } else {
                    None
                };
                let Some(sop) = SubgroupOp::from_text(op, combining) else {
                    let pos = self.peek().pos;
                    return self.err(pos, format!("unknown opcode `{op}`"));
                };
                let mut args = [Value::reserved_value(); 2];
                if sop.arity() > 0 {
                    let v = self.values(op, sop.arity(), info)?;
                    args[..v.len()].copy_from_slice(&v);
                }
                let ty = if sop == SubgroupOp::Elect {
                    Type::B1
                } else {
                    Type::I32
                };
                (InstKind::Subgroup { op: sop, args }, Produces::Exactly(ty))
            }
            "atomic_buffer" | "atomic_shared" => {
                let (w, pos) = self.word("an atomic operation (`add`, `umin`, …)")?;
                let Some(aop) = AtomicOp::from_name(w) else {
                    let names: Vec<_> = AtomicOp::ALL.iter().map(|o| o.name()).collect();
                    return self.err(
                        pos,
                        format!(
                            "unknown atomic operation `{w}`: one of {}",
                            names.join(", ")
                        ),
                    );
                };
                let array = if op == "atomic_buffer" {
                    self.index_number("a buffer number")?
                } else {
                    self.index_number("a shared array number")?
                };
                self.expect(',')?;
                let v = self.values(op, 2, info)?;
                let (index, value) = (v[0], v[1]);
                let kind = if op == "atomic_buffer" {
                    InstKind::AtomicBuffer {
                        buffer: array,
                        op: aop,
                        index,
                        value,
                    }
                } else {
                    InstKind::AtomicShared {
                        shared: array,
                        op: aop,
                        index,
                        value,
                    }
                };
                (kind, Produces::Exactly(Type::I32))
            }
            "load_uniform" => (
                InstKind::LoadUniform {
                    index: self.value(info)?,
                },
                data32,
            ),
            "load_buffer" => {
                let buffer = self.index_number("a buffer number")?;
                self.expect(',')?;
                let index = self.value(info)?;
                (InstKind::LoadBuffer { buffer, index }, data32)
            }
            "store_buffer" => {
                let buffer = self.index_number("a buffer number")?;
                self.expect(',')?;
                let v = self.values(op, 2, info)?;
                let kind = InstKind::StoreBuffer {
                    buffer,
                    index: v[0],
                    value: v[1],
                };
                (kind, Produces::Exactly(Type::None))
            }
            "store_output" => {
                let slot = self.index_number("an output slot")?;
                self.expect(',')?;
                let value = self.value(info)?;
                let kind = InstKind::StoreOutput { slot, value };
                (kind, Produces::Exactly(Type::None))
            }
            "tex" | "txf" => {
                let texture = self.index_number("a texture number")?;
                self.expect(',')?;
                let coord = self.value(info)?;
                let params = self.tex_params(info)?;
                let kind = if op == "tex" {
                    InstKind::Tex {
                        texture,
                        coord,
                        params,
                    }
                } else {
                    InstKind::Txf {
                        texture,
                        coord,
                        params,
                    }
                };
                (kind, Produces::Exactly(Type::vec32(4)))
            }
            "txs" => {
                let texture = self.index_number("a texture number")?;
                let params = self.tex_params(info)?;
                (
                    InstKind::Txs { texture, params },
                    Produces::Exactly(Type::vec32(4)),
                )
            }
            "deref_var" => {
                let (n, pos) = self.entity("var_", "a variable `var_N`")?;
                if n as usize >= self.func.vars.len() {
                    let declared = self.func.vars.len();
                    return self.err(
                        pos,
                        format!("undeclared variable var_{n} ({declared} declared)"),
                    );
                }
                let kind = InstKind::DerefVar {
                    var: Var::from_u32(n),
                };
                (kind, Produces::Exactly(Type::Deref))
            }
            "deref_array" => {
                let parent = self.value(info)?;
                self.expect('[')?;
                let index = self.value(info)?;
                self.expect(']')?;
                (
                    InstKind::DerefArray { parent, index },
                    Produces::Exactly(Type::Deref),
                )
            }
            "deref_struct" => {
                let parent = self.value(info)?;
                self.expect('.')?;
                let (field, pos) = self.number("a field number")?;
                info.extra = pos;
                (
                    InstKind::DerefStruct { parent, field },
                    Produces::Exactly(Type::Deref),
                )
            }
            "deref_cast" => {
                self.expect('(')?;
                let cast = self.var_type(0)?;
                self.expect(')')?;
                let parent = self.value(info)?;
                let kind = InstKind::DerefCast { parent, ty: cast };
                (kind, Produces::Exactly(Type::Deref))
            }
            "load_deref" => (
                InstKind::LoadDeref {
                    deref: self.value(info)?,
                },
                data32,
            ),
            "store_deref" => {
                let v = self.values(op, 2, info)?;
                let kind = InstKind::StoreDeref {
                    deref: v[0],
                    value: v[1],
                };
                (kind, Produces::Exactly(Type::None))
            }
            "load_reg" => {
                let (reg, rty) = self.reg()?;
                (InstKind::LoadReg { reg }, Produces::Exactly(rty))
            }
            "store_reg" => {
                let (reg, _) = self.reg()?;
                self.expect(',')?;
                let value = self.value(info)?;
                (
                    InstKind::StoreReg { reg, value },
                    Produces::Exactly(Type::None),
                )
            }
            "break" => (InstKind::Break, Produces::Exactly(Type::None)),
            "continue" => (InstKind::Continue, Produces::Exactly(Type::None)),
            _ => {
                let Some(alu) = AluOp::from_name(op) else {
                    return self.err(info.ty_pos, format!("unknown opcode `{op}`"));
                };
                let vals = self.values(op, alu.arity(), info)?;
                let mut args = [reserved; 4];
                args[..vals.len()].copy_from_slice(&vals);
                (InstKind::Alu { op: alu, args }, Produces::Data)
            }
        })
    }

    fn reg(&mut self) -> PResult<(Reg, Type)> {
        let (n, pos) = self.entity("reg_", "a register `reg_N`")?;
        let reg = Reg::from_u32(n);
        match self.func.regs.get(reg) {
            Some(&ty) => Ok((reg, ty)),
            None => {
                let declared = self.func.regs.len();
                self.err(
                    pos,
                    format!("undeclared register {reg} ({declared} declared)"),
                )
            }
        }
    }

    /// `(c0, c1, ...)`: one component per declared component, `true`/`false` for booleans.
    fn constant(&mut self, ty: Type, ty_pos: Pos) -> PResult<InstKind> {
        self.expect('(')?;
        let mut bits = [0u32; 4];
        let mut n = 0usize;
        let is_bool = ty.bits() == Some(BitSize::B1);
        loop {
            let t = self.peek();
            let w = match t.tok {
                Tok::Word(w) => w,
                _ => return self.expected("a constant component"),
            };
            let word = match w {
                "true" | "false" if !is_bool => {
                    return self.err(
                        t.pos,
                        format!("type mismatch: boolean `{w}` in a constant declared {ty}"),
                    )
                }
                "true" => 1,
                "false" => 0,
                _ if w.starts_with(|c: char| c.is_ascii_digit()) => match parse_u32(w) {
                    Ok(x) => x,
                    Err(m) => return self.err(t.pos, m),
                },
                _ => return self.expected("a constant component (a number, `true` or `false`)"),
            };
            self.bump();
            if n < 4 {
                bits[n] = word;
            }
            n += 1;
            if self.eat(')') {
                break;
            }
            if !self.eat(',') {
                return self.expected("`,` or `)`");
            }
        }
        if n != ty.comps() as usize {
            return self.err(
                ty_pos,
                format!("type mismatch: the constant has {n} components, but it is declared {ty}"),
            );
        }
        match ty.bits() {
            Some(BitSize::B16) if bits.iter().any(|&b| b > 0xffff) => {
                return self.err(
                    ty_pos,
                    format!("a component of this {ty} constant does not fit 16 bits"),
                );
            }
            Some(BitSize::B64) => {
                return self.err(
                    ty_pos,
                    "a 64-bit constant: 64-bit values are computed from 32-bit ones (`u2u`, `ishl`)",
                );
            }
            _ => {}
        }
        Ok(InstKind::Const { bits })
    }
}
