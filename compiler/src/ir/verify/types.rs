//! Type and operand rules: per-instruction operand types, derived result types, resources,
//! texture parameters, deref chains and registers; plus [`deref_type`], which interpreter
//! and passes share.

use super::{exists, Location, Rule, Verifier};
use crate::ir::alu::Kind;
use crate::ir::{
    BitSize, Function, Inst, InstData, InstKind, SubgroupOp, TexDim, TexParams, Type, Value,
    VarType,
};
use cranelift_entity::packed_option::ReservedValue;

/// Operand names for messages (no formatting on the hot path: the verifier runs after every
/// pass that changed something).
const OPERAND: [&str; 4] = ["operand 0", "operand 1", "operand 2", "operand 3"];

/// Longest deref chain followed (deeper ones, or cycles in malformed programs, give none).
const MAX_DEREF_CHAIN: u32 = 256;

/// The type `value` (a deref) points at: the variable's type narrowed by each array, struct
/// and cast step of its chain. None if `value` is not a deref or its chain is malformed.
pub fn deref_type(func: &Function, value: Value) -> Option<VarType> {
    deref_pointee(func, value).cloned()
}

/// [`deref_type`] without the clone.
pub fn deref_pointee(func: &Function, value: Value) -> Option<&VarType> {
    pointee(func, value, MAX_DEREF_CHAIN)
}

fn pointee(func: &Function, v: Value, fuel: u32) -> Option<&VarType> {
    let vd = func.values.get(v).filter(|vd| vd.ty == Type::Deref)?;
    let def = vd.def.expand()?;
    let data = func
        .insts
        .get(def)
        .filter(|d| d.result.expand() == Some(v))?;
    let fuel = fuel.checked_sub(1)?;
    match &data.kind {
        InstKind::DerefVar { var } => func.vars.get(*var),
        InstKind::DerefArray { parent, .. } => match pointee(func, *parent, fuel)? {
            VarType::Array(elem, _) => Some(elem),
            _ => None,
        },
        InstKind::DerefStruct { parent, field } => match pointee(func, *parent, fuel)? {
            VarType::Struct(fields) => fields.get(*field as usize),
            _ => None,
        },
        InstKind::DerefCast { parent, ty } => pointee(func, *parent, fuel).map(|_| ty),
        _ => None,
    }
}

/// Why a variable type is malformed, if it is.
fn var_type_problem(t: &VarType) -> Option<String> {
    match t {
        VarType::Vector(n) if !(1..=4).contains(n) => Some(format!("vec{n} has {n} components")),
        VarType::Vector(_) => None,
        VarType::Array(_, 0) => Some(format!("{t} has no elements")),
        VarType::Array(elem, _) => var_type_problem(elem),
        VarType::Struct(fields) if fields.is_empty() => Some("struct has no fields".into()),
        VarType::Struct(fields) => fields.iter().find_map(var_type_problem),
    }
}

impl Verifier<'_> {
    /// Variable and register declarations.
    pub(super) fn check_declarations(&mut self) {
        let d = &self.p.dispatch;
        if !d.whole_workgroups() {
            let m = format!(
                "a workgroup of {} with {} invocations: workgroups have 1, 2, 4 or 8 \
                 invocations and the dispatch is whole workgroups",
                d.workgroup, d.invocations
            );
            self.report(Location::Program, Rule::ResourceRange, m);
        }
        for (var, ty) in self.func.vars.iter() {
            if let Some(problem) = var_type_problem(ty) {
                let m = format!("{var}: {ty}: {problem}");
                self.report(Location::Program, Rule::Declaration, m);
            }
        }
        for (reg, &ty) in self.func.regs.iter() {
            if !(1..=4).contains(&ty.comps()) {
                let m = format!("{reg} has type {ty}, not a data type of 1-4 components");
                self.report(Location::Program, Rule::Declaration, m);
            } else if ty.bits() == Some(BitSize::B64) && ty.comps() != 1 {
                let m = format!("{reg} has type {ty}: 64-bit values are scalars");
                self.report(Location::Program, Rule::Declaration, m);
            }
        }
    }

    /// The type of an existing value (missing ones are reported by the SSA checks).
    fn vty(&self, v: Value) -> Option<Type> {
        self.func.values.get(v).map(|vd| vd.ty)
    }

    /// Checks `v` is data; returns its bit size and component count. Inlined (it runs for
    /// almost every operand); the reports are out of line.
    #[inline]
    fn data(&mut self, inst: Inst, v: Value, what: &str) -> Option<(BitSize, u8)> {
        match self.vty(v)? {
            Type::Data { bits, comps } => Some((bits, comps)),
            ty => {
                self.not_data(inst, v, ty, what);
                None
            }
        }
    }

    #[cold]
    fn not_data(&mut self, inst: Inst, v: Value, ty: Type, what: &str) {
        if ty == Type::Deref {
            let m = format!("{what} {v} is a deref, used as data");
            self.inst_err(inst, Rule::DerefUse, m);
        } else {
            let m = format!("{what} {v} has no type");
            self.inst_err(inst, Rule::OperandType, m);
        }
    }

    /// Checks `v` is data of exactly type `want`.
    fn expect(&mut self, inst: Inst, v: Value, want: Type, what: &str) {
        if let Some((bits, comps)) = self.data(inst, v, what) {
            let ty = Type::Data { bits, comps };
            if ty != want {
                let m = format!("{what} {v} is {ty}, not {want}");
                self.inst_err(inst, Rule::OperandType, m);
            }
        }
    }

    /// Checks `v` is 32-bit data; returns its component count.
    fn expect_32(&mut self, inst: Inst, v: Value, what: &str) -> Option<u8> {
        let (bits, comps) = self.data(inst, v, what)?;
        if bits != BitSize::B32 {
            let ty = Type::Data { bits, comps };
            self.inst_err(
                inst,
                Rule::OperandType,
                format!("{what} {v} is {ty}, not 32-bit"),
            );
        }
        Some(comps)
    }

    /// Checks `v` is a deref; returns what it points at if its chain is sound (a broken
    /// chain is reported where it breaks).
    fn expect_deref(&mut self, inst: Inst, v: Value, what: &str) -> Option<&VarType> {
        let ty = self.vty(v)?;
        if ty != Type::Deref {
            let m = format!("{what} {v} is {ty}, not a deref");
            self.inst_err(inst, Rule::OperandType, m);
            return None;
        }
        deref_pointee(self.func, v)
    }

    fn check_resource(&mut self, inst: Inst, what: &str, n: u32, count: usize) {
        if n as usize >= count {
            let m = format!("{what} {n} does not exist (the dispatch has {count})");
            self.inst_err(inst, Rule::ResourceRange, m);
        }
    }

    /// Checks the operands and result type of one placed instruction.
    pub(super) fn check_inst(&mut self, inst: Inst, data: &InstData) {
        let result = data.result.expand();
        let rty = result.and_then(|v| self.vty(v));
        match (data.kind.defines_value(), result) {
            (true, None) => {
                let m = format!("{} defines a value but has no result", data.kind.name());
                self.inst_err(inst, Rule::ResultPresence, m);
            }
            (false, Some(v)) => {
                let m = format!("{} defines no value but has result {v}", data.kind.name());
                self.inst_err(inst, Rule::ResultPresence, m);
            }
            _ => {}
        }
        if let Some(Type::Data { bits, comps }) = rty {
            if !(1..=4).contains(&comps) {
                let m = format!("result has {comps} components");
                self.inst_err(inst, Rule::ResultType, m);
            } else if bits == BitSize::B64 && comps != 1 {
                let m = format!("result is vec{comps} 64: 64-bit values are scalars");
                self.inst_err(inst, Rule::ResultType, m);
            }
        }
        let derived = self.derive(inst, &data.kind, rty);
        if let (Some(want), Some(have)) = (derived, rty) {
            if want != have {
                let m = format!("result is {have}, but {} yields {want}", data.kind.name());
                self.inst_err(inst, Rule::ResultType, m);
            }
        }
    }

    /// Checks the operands of `kind`; returns the result type they imply, when they imply
    /// one (none when the operands are too broken to say, or the kind defines no value).
    fn derive(&mut self, inst: Inst, kind: &InstKind, rty: Option<Type>) -> Option<Type> {
        let dispatch = &self.p.dispatch;
        match kind {
            InstKind::Const { bits } => self.check_const(inst, bits, rty),
            InstKind::Alu { op, args } => self.check_alu(inst, *op, args, rty),
            InstKind::Vec { args } => self.check_vec(inst, args),
            InstKind::Mov { src, swizzle } => {
                let (bits, sc) = self.data(inst, *src, "source")?;
                let rc = rty.map_or(0, Type::comps).min(4);
                for &s in &swizzle[..rc as usize] {
                    if s >= sc {
                        let m = format!("swizzle reads component {s} of a {sc}-component value");
                        self.inst_err(inst, Rule::Swizzle, m);
                    }
                }
                Some(Type::Data { bits, comps: rc })
            }
            InstKind::Phi { sources } => {
                match rty {
                    Some(Type::Deref) => {
                        let m = "phi of derefs".to_string();
                        self.inst_err(inst, Rule::DerefUse, m);
                    }
                    Some(Type::None) => {
                        self.inst_err(inst, Rule::ResultType, "phi has no type".into());
                    }
                    Some(ty @ Type::Data { .. }) => {
                        for s in sources {
                            self.expect(inst, s.value, ty, "phi source");
                        }
                    }
                    None => {}
                }
                None
            }
            InstKind::InvocationId | InstKind::LocalId | InstKind::WorkgroupId => Some(Type::I32),
            InstKind::Barrier => None,
            InstKind::LoadShared { shared, index } => {
                self.check_resource(inst, "shared array", *shared, dispatch.shared.len());
                self.expect(inst, *index, Type::I32, "index");
                self.loaded_32(rty)
            }
            InstKind::StoreShared {
                shared,
                index,
                value,
            } => {
                self.check_resource(inst, "shared array", *shared, dispatch.shared.len());
                self.expect(inst, *index, Type::I32, "index");
                self.expect_32(inst, *value, "stored value");
                None
            }
            InstKind::AtomicShared {
                shared: n,
                index,
                value,
                ..
            }
            | InstKind::AtomicBuffer {
                buffer: n,
                index,
                value,
                ..
            } => {
                let (what, len) = match kind {
                    InstKind::AtomicShared { .. } => ("shared array", dispatch.shared.len()),
                    _ => ("buffer", dispatch.buffers.len()),
                };
                self.check_resource(inst, what, *n, len);
                self.expect(inst, *index, Type::I32, "index");
                self.expect(inst, *value, Type::I32, "operand");
                Some(Type::I32)
            }
            InstKind::Subgroup { op, args } => {
                let (first, result) = match op {
                    SubgroupOp::Ballot => (Type::B1, Type::I32),
                    SubgroupOp::Elect => (Type::None, Type::B1),
                    _ => (Type::I32, Type::I32),
                };
                let what = ["operand", "source invocation"];
                for (k, &v) in args[..op.arity()].iter().enumerate() {
                    let ty = if k == 0 { first } else { Type::I32 };
                    self.expect(inst, v, ty, what[k]);
                }
                Some(result)
            }
            InstKind::LoadUniform { index } => {
                self.expect(inst, *index, Type::I32, "index");
                self.loaded_32(rty)
            }
            InstKind::LoadBuffer { buffer, index } => {
                self.check_resource(inst, "buffer", *buffer, dispatch.buffers.len());
                self.expect(inst, *index, Type::I32, "index");
                self.loaded_32(rty)
            }
            InstKind::StoreBuffer {
                buffer,
                index,
                value,
            } => {
                self.check_resource(inst, "buffer", *buffer, dispatch.buffers.len());
                self.expect(inst, *index, Type::I32, "index");
                self.expect_32(inst, *value, "stored value");
                None
            }
            InstKind::StoreOutput { value, .. } => {
                if dispatch.outputs == 0 {
                    let m = "store_output, but the dispatch has no output slots".to_string();
                    self.inst_err(inst, Rule::ResourceRange, m);
                }
                self.expect_32(inst, *value, "output value");
                None
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
                let is_txf = matches!(kind, InstKind::Txf { .. });
                self.check_resource(inst, "texture", *texture, dispatch.textures.len());
                let coords = Type::vec32(params.dim.coords() as u8);
                self.expect(inst, *coord, coords, "coordinate");
                for (name, p) in params.named() {
                    if p != Value::reserved_value() {
                        let ty = if name.starts_with("dd") {
                            coords
                        } else {
                            Type::I32
                        };
                        self.expect(inst, p, ty, name);
                    }
                }
                if let Some(m) = tex_shape_problem(params, is_txf) {
                    self.inst_err(inst, Rule::TexParams, m);
                }
                Some(Type::vec32(4))
            }
            InstKind::Txs { texture, params } => {
                self.check_resource(inst, "texture", *texture, dispatch.textures.len());
                if let Some(lod) = params.lod() {
                    self.expect(inst, lod, Type::I32, "lod");
                }
                let only_lod = TexParams {
                    lod: params.lod,
                    dim: params.dim,
                    ..TexParams::default()
                };
                if *params != only_lod {
                    let m = "txs takes only a dim and a lod".to_string();
                    self.inst_err(inst, Rule::TexParams, m);
                }
                Some(Type::vec32(4))
            }
            InstKind::DerefVar { var } => {
                if !exists(self.func.vars.len(), *var) {
                    let m = format!("{var} does not exist");
                    self.inst_err(inst, Rule::UnknownEntity, m);
                }
                Some(Type::Deref)
            }
            InstKind::DerefArray { parent, index } => {
                self.expect(inst, *index, Type::I32, "index");
                match self.expect_deref(inst, *parent, "parent") {
                    Some(VarType::Array(..)) | None => {}
                    Some(t) => {
                        let m = format!("deref_array of {parent}, which points at {t}");
                        self.inst_err(inst, Rule::DerefChain, m);
                    }
                }
                Some(Type::Deref)
            }
            InstKind::DerefStruct { parent, field } => {
                let m = match self.expect_deref(inst, *parent, "parent") {
                    Some(VarType::Struct(fields)) if (*field as usize) < fields.len() => None,
                    Some(t @ VarType::Struct(_)) => Some(format!("field {field} of {t}")),
                    Some(t) => Some(format!("deref_struct of {parent}, which points at {t}")),
                    None => None,
                };
                if let Some(m) = m {
                    self.inst_err(inst, Rule::DerefChain, m);
                }
                Some(Type::Deref)
            }
            InstKind::DerefCast { parent, ty } => {
                let mut problem = var_type_problem(ty);
                if let Some(t) = self.expect_deref(inst, *parent, "parent") {
                    if problem.is_none() && ty.words() > t.words() {
                        problem = Some(format!("cast of {t} to the larger {ty}"));
                    }
                }
                if let Some(m) = problem {
                    self.inst_err(inst, Rule::DerefChain, m);
                }
                Some(Type::Deref)
            }
            InstKind::LoadDeref { deref } => {
                let n = self.deref_vector(inst, *deref)?;
                Some(Type::vec32(n))
            }
            InstKind::StoreDeref { deref, value } => {
                let n = self.deref_vector(inst, *deref);
                if let (Some(n), Some((bits, comps))) = (n, self.data(inst, *value, "value")) {
                    let ty = Type::Data { bits, comps };
                    if ty != Type::vec32(n) {
                        let m = format!("storing {ty} through a deref of vec{n}");
                        self.inst_err(inst, Rule::DerefAccess, m);
                    }
                }
                None
            }
            InstKind::LoadReg { reg } => {
                let ty = self.func.regs.get(*reg).copied();
                if ty.is_none() {
                    let m = format!("{reg} does not exist");
                    self.inst_err(inst, Rule::UnknownEntity, m);
                }
                ty
            }
            InstKind::StoreReg { reg, value } => {
                match self.func.regs.get(*reg).copied() {
                    Some(ty) => self.expect(inst, *value, ty, "stored value"),
                    None => {
                        let m = format!("{reg} does not exist");
                        self.inst_err(inst, Rule::UnknownEntity, m);
                    }
                }
                None
            }
            InstKind::Break | InstKind::Continue => None,
        }
    }

    /// A load's result: 32-bit, with the component count it has.
    fn loaded_32(&self, rty: Option<Type>) -> Option<Type> {
        Some(Type::vec32(rty?.comps().clamp(1, 4)))
    }

    /// Checks `deref` points at a vector; returns its component count.
    fn deref_vector(&mut self, inst: Inst, deref: Value) -> Option<u8> {
        match self.expect_deref(inst, deref, "deref")? {
            VarType::Vector(n @ 1..=4) => Some(*n),
            // A vector of no or too many components is a `declaration` or `deref-chain` error
            // where it was declared or cast; here it has no access type to derive.
            VarType::Vector(_) => None,
            t => {
                let m = format!("{deref} points at {t}, not a vector");
                self.inst_err(inst, Rule::DerefAccess, m);
                None
            }
        }
    }

    fn check_const(&mut self, inst: Inst, bits: &[u32; 4], rty: Option<Type>) -> Option<Type> {
        let Some(Type::Data { bits: size, comps }) = rty else {
            if let Some(ty) = rty {
                self.inst_err(inst, Rule::ResultType, format!("constant of type {ty}"));
            }
            return None;
        };
        let used = (comps as usize).min(4);
        if bits[used..].iter().any(|&b| b != 0) {
            let m = format!("unused components are not zero: {bits:08x?}");
            self.inst_err(inst, Rule::ConstBits, m);
        }
        if size == BitSize::B1 && bits[..used].iter().any(|&b| b > 1) {
            let m = format!("boolean components are not 0 or 1: {bits:08x?}");
            self.inst_err(inst, Rule::ConstBits, m);
        }
        if size == BitSize::B16 && bits[..used].iter().any(|&b| b > 0xffff) {
            let m = format!("16-bit components do not fit 16 bits: {bits:08x?}");
            self.inst_err(inst, Rule::ConstBits, m);
        }
        if size == BitSize::B64 {
            // A constant's components are words (what the passes fold and compare); a
            // 64-bit one is built from 32-bit constants (`u2u`, shifts) instead.
            let m = "a 64-bit constant: 64-bit values are computed, not loaded".to_string();
            self.inst_err(inst, Rule::ResultType, m);
        }
        rty
    }

    fn check_alu(
        &mut self,
        inst: Inst,
        op: crate::ir::AluOp,
        args: &[Value; 4],
        rty: Option<Type>,
    ) -> Option<Type> {
        let srcs = op.srcs();
        let n = srcs.len();
        if args[n..].iter().any(|&a| a != Value::reserved_value()) {
            let m = format!("{op} takes {n} operands; slots past them must be empty");
            self.inst_err(inst, Rule::OperandSlots, m);
        }
        let (int, _) = self.func.alu_widths(op, args, rty.unwrap_or(Type::None));
        let mut comps0 = None;
        let mut any_ty = None;
        // Indexed: zipping the kinds, values and names cost more than the checks.
        for i in 0..n {
            let (kind, v, what) = (srcs[i], args[i], OPERAND[i]);
            let Some((bits, comps)) = self.data(inst, v, what) else {
                continue;
            };
            let ty = Type::Data { bits, comps };
            match *comps0.get_or_insert(comps) {
                c if c != comps => {
                    let m = format!("{what} {v} has {comps} components, operand 0 has {c}");
                    self.inst_err(inst, Rule::OperandType, m);
                }
                _ => {}
            }
            if let Some(want) = op.operand_bits(kind, int).filter(|&w| w != bits) {
                let want = Type::Data { bits: want, comps };
                let m = format!("{what} {v} of {op} is {ty}, not {want}");
                self.inst_err(inst, Rule::OperandType, m);
            }
            if kind == Kind::Any {
                match any_ty {
                    None => any_ty = Some(ty),
                    Some(t) if t != ty => {
                        let m = format!("{what} {v} of {op} is {ty}, the other is {t}");
                        self.inst_err(inst, Rule::OperandType, m);
                    }
                    Some(_) => {}
                }
            }
        }
        let comps = comps0?.clamp(1, 4);
        match op.result_bits(int, rty.and_then(Type::bits)) {
            Some(bits) => Some(Type::Data { bits, comps }),
            None => any_ty,
        }
    }

    fn check_vec(&mut self, inst: Inst, args: &[Value; 4]) -> Option<Type> {
        let reserved = Value::reserved_value();
        let n = args.iter().take_while(|&&a| a != reserved).count();
        if n == 0 || args[n..].iter().any(|&a| a != reserved) {
            let m = "vec operands must fill slots 0..n (1 <= n <= 4) with no gaps".to_string();
            self.inst_err(inst, Rule::OperandSlots, m);
        }
        let mut bits0 = None;
        for (i, &v) in args[..n].iter().enumerate() {
            let what = OPERAND[i];
            let Some((bits, comps)) = self.data(inst, v, what) else {
                continue;
            };
            if comps != 1 {
                let m = format!("{what} {v} has {comps} components, not 1");
                self.inst_err(inst, Rule::OperandType, m);
            }
            match *bits0.get_or_insert(bits) {
                b if b != bits => {
                    let m = format!("{what} {v} has another bit size than operand 0");
                    self.inst_err(inst, Rule::OperandType, m);
                }
                _ => {}
            }
        }
        let bits = bits0?;
        Some(Type::Data {
            bits,
            comps: n as u8,
        })
    }
}

/// Why a `tex`/`txf` shape is not allowed, if it is not (the `tex-params` rule).
fn tex_shape_problem(p: &TexParams, is_txf: bool) -> Option<String> {
    let dim = p.dim;
    let n = dim.coords() as usize;
    let problem = if is_txf && p.bias().is_some() {
        "txf with a bias"
    } else if is_txf && (p.compare().is_some() || p.ddx().is_some() || p.ddy().is_some()) {
        "txf with a compare or gradients"
    } else if is_txf && (dim == TexDim::Cube || p.gather.is_some()) {
        "txf of a cube or with gather"
    } else if p.lod().is_some() && p.bias().is_some() {
        "tex with both lod and bias"
    } else if p.ddx().is_some() != p.ddy().is_some() {
        "ddx without ddy or ddy without ddx"
    } else if p.grad().is_some() && (p.lod().is_some() || p.bias().is_some()) {
        "gradients with a lod or bias"
    } else if p.layer().is_some() && !dim.arrayable() {
        "a layer on a 3D or cube texture"
    } else if p.compare().is_some() && dim == TexDim::D3 {
        "compare on a 3D texture"
    } else if p.has_offset() && dim == TexDim::Cube {
        "offsets on a cube texture"
    } else if p.offset[n..].iter().any(|&o| o != 0) {
        "more offsets than coordinates"
    } else if p.offset.iter().any(|o| !(-8..=7).contains(o)) {
        "offset outside -8..=7"
    } else if p.gather.is_some_and(|c| c > 3) {
        "gather component over 3"
    } else if p.gather.is_some()
        && (!matches!(dim, TexDim::D2 | TexDim::Cube)
            || p.lod().is_some()
            || p.bias().is_some()
            || p.grad().is_some())
    {
        "gather of a 1D or 3D texture, or with a lod, bias or gradients"
    } else {
        return None;
    };
    Some(problem.to_string())
}
