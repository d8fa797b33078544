//! Instruction kinds: what an instruction does and which values it reads.
//!
//! An instruction defines at most one value (its result, NIR's destination). The result's
//! type lives on the value; the kind holds the operands.

use super::{AluOp, Block, Reg, Value, Var, VarType};
use cranelift_entity::packed_option::ReservedValue;
pub use sim::semantics::{AtomicOp, SubgroupOp, TexDim};

/// One walk over the operands, instantiated for shared and mutable access (as rustc's
/// visitors are), so the two can never disagree about which fields are operands.
macro_rules! visit_operands {
    ($kind:expr, $f:ident $(, $mut:tt)?) => {
        let reserved = Value::reserved_value();
        match $kind {
            InstKind::Alu { op, args } => {
                for v in &$($mut)? args[..op.arity()] {
                    $f(v);
                }
            }
            InstKind::Subgroup { op, args } => {
                for v in &$($mut)? args[..op.arity()] {
                    $f(v);
                }
            }
            InstKind::Vec { args } => {
                for v in &$($mut)? args[..] {
                    if *v != reserved {
                        $f(v);
                    }
                }
            }
            InstKind::Phi { sources } => {
                for s in &$($mut)? sources[..] {
                    $f(&$($mut)? s.value);
                }
            }
            InstKind::Mov { src: v, .. }
            | InstKind::LoadUniform { index: v }
            | InstKind::LoadBuffer { index: v, .. }
            | InstKind::LoadShared { index: v, .. }
            | InstKind::StoreOutput { value: v, .. }
            | InstKind::StoreReg { value: v, .. }
            | InstKind::DerefStruct { parent: v, .. }
            | InstKind::DerefCast { parent: v, .. }
            | InstKind::LoadDeref { deref: v } => $f(v),
            InstKind::StoreBuffer { index: a, value: b, .. }
            | InstKind::StoreShared { index: a, value: b, .. }
            | InstKind::AtomicBuffer { index: a, value: b, .. }
            | InstKind::AtomicShared { index: a, value: b, .. }
            | InstKind::DerefArray { parent: a, index: b }
            | InstKind::StoreDeref { deref: a, value: b } => {
                $f(a);
                $f(b);
            }
            InstKind::Tex { coord, params, .. } | InstKind::Txf { coord, params, .. } => {
                $f(coord);
                for p in [
                    &$($mut)? params.lod,
                    &$($mut)? params.bias,
                    &$($mut)? params.layer,
                    &$($mut)? params.compare,
                    &$($mut)? params.ddx,
                    &$($mut)? params.ddy,
                ] {
                    if *p != reserved {
                        $f(p);
                    }
                }
            }
            InstKind::Txs { params, .. } => {
                if params.lod != reserved {
                    $f(&$($mut)? params.lod);
                }
            }
            InstKind::Const { .. }
            | InstKind::InvocationId
            | InstKind::LocalId
            | InstKind::WorkgroupId
            | InstKind::Barrier
            | InstKind::DerefVar { .. }
            | InstKind::LoadReg { .. }
            | InstKind::Break
            | InstKind::Continue => {}
        }
    };
}

/// One source of a phi: the value flowing in along the edge from `pred`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct PhiSource {
    /// The predecessor block the edge leaves.
    pub pred: Block,
    /// The value on that edge.
    pub value: Value,
}

/// The shape and optional parameters of a texture instruction. An absent parameter is zero
/// (what the hardware reads for a parameter a message does not send). Their meaning is
/// `sim::semantics::texture_result`; which combinations are allowed is the verifier's
/// `tex-params` rule.
///
/// Absent is stored as `Value::reserved_value()` (what `PackedOption` does inside) so the
/// operand walk can hand out `&mut Value` for present ones; read them through the accessors.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct TexParams {
    /// Level of detail: float for `tex`, integer for `txf`.
    pub lod: Value,
    /// LOD bias (float, `tex` only).
    pub bias: Value,
    /// Array layer: float (rounded to even) for `tex`, integer for `txf` (1D and 2D only).
    pub layer: Value,
    /// Shadow reference (float, `tex` only): the result is the compare result.
    pub compare: Value,
    /// Gradient along x (a float vector with the coordinate's size, `tex` only, with `ddy`).
    pub ddx: Value,
    /// Gradient along y.
    pub ddy: Value,
    /// Dimensionality (2D unless given).
    pub dim: TexDim,
    /// Constant texel offsets, each −8..=7 (all zero: none).
    pub offset: [i8; 3],
    /// Gather component (`tex` only): the result is that component of the 2×2 footprint.
    pub gather: Option<u8>,
}

impl Default for TexParams {
    fn default() -> Self {
        let none = Value::reserved_value();
        TexParams {
            lod: none,
            bias: none,
            layer: none,
            compare: none,
            ddx: none,
            ddy: none,
            dim: TexDim::D2,
            offset: [0; 3],
            gather: None,
        }
    }
}

impl TexParams {
    /// The lod, if given.
    pub fn lod(&self) -> Option<Value> {
        present(self.lod)
    }

    /// The bias, if given.
    pub fn bias(&self) -> Option<Value> {
        present(self.bias)
    }

    /// The layer, if given.
    pub fn layer(&self) -> Option<Value> {
        present(self.layer)
    }

    /// The shadow reference, if given.
    pub fn compare(&self) -> Option<Value> {
        present(self.compare)
    }

    /// The x gradient, if given.
    pub fn ddx(&self) -> Option<Value> {
        present(self.ddx)
    }

    /// The y gradient, if given.
    pub fn ddy(&self) -> Option<Value> {
        present(self.ddy)
    }

    /// The gradients `(ddx, ddy)`, if both are given.
    pub fn grad(&self) -> Option<(Value, Value)> {
        present(self.ddx).zip(present(self.ddy))
    }

    /// Whether any texel offset is nonzero.
    pub fn has_offset(&self) -> bool {
        self.offset != [0; 3]
    }

    /// The value parameters in text order with their names (absent ones included).
    pub fn named(&self) -> [(&'static str, Value); 6] {
        [
            ("lod", self.lod),
            ("bias", self.bias),
            ("layer", self.layer),
            ("compare", self.compare),
            ("ddx", self.ddx),
            ("ddy", self.ddy),
        ]
    }
}

fn present(v: Value) -> Option<Value> {
    (v != Value::reserved_value()).then_some(v)
}

/// What an instruction does.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum InstKind {
    /// A constant; the result type says how many components of `bits` are used.
    Const {
        /// Component bit patterns (bools are 0 or 1); unused components are 0.
        bits: [u32; 4],
    },
    /// A component-wise ALU operation; `args[..op.arity()]` are the operands.
    Alu {
        /// The opcode.
        op: AluOp,
        /// Operands; slots past the arity hold `Value::reserved_value()`.
        args: [Value; 4],
    },
    /// Builds a vector from scalars: `args[..comps]`.
    Vec {
        /// One scalar per result component; slots past the count are reserved values.
        args: [Value; 4],
    },
    /// Copies components of `src` selected by `swizzle[..comps]` (component extraction,
    /// shuffles, plain copies).
    Mov {
        /// The source vector.
        src: Value,
        /// Source component index for each result component.
        swizzle: [u8; 4],
    },
    /// A phi at the head of a block: one source per CFG predecessor.
    Phi {
        /// The sources, in the order they were written.
        sources: Vec<PhiSource>,
    },
    /// The invocation id (`vec1 32`).
    InvocationId,
    /// The invocation's index in its workgroup, `id % workgroup` (`vec1 32`).
    LocalId,
    /// The invocation's workgroup, `id / workgroup` (`vec1 32`).
    WorkgroupId,
    /// Reads consecutive uniform words starting at `index` (wrapping at the uniform count).
    LoadUniform {
        /// Word index (32-bit integer).
        index: Value,
    },
    /// Reads consecutive words of this invocation's part of `buffer`, starting at `index`.
    LoadBuffer {
        /// Buffer number (a declaration index).
        buffer: u32,
        /// Word index (32-bit integer), wrapping at the buffer length.
        index: Value,
    },
    /// Writes the components of `value` to consecutive words of `buffer`.
    StoreBuffer {
        /// Buffer number.
        buffer: u32,
        /// Word index, wrapping at the buffer length.
        index: Value,
        /// The data (32-bit, 1–4 components).
        value: Value,
    },
    /// Reads consecutive words of the workgroup's shared array `shared`, starting at `index`.
    LoadShared {
        /// Shared array number (a declaration index).
        shared: u32,
        /// Word index (32-bit integer), wrapping at the array length.
        index: Value,
    },
    /// Writes the components of `value` to consecutive words of the workgroup's shared array.
    StoreShared {
        /// Shared array number.
        shared: u32,
        /// Word index, wrapping at the array length.
        index: Value,
        /// The data (32-bit, 1–4 components).
        value: Value,
    },
    /// An atomic on one word of this invocation's part of `buffer`: the result (`vec1 32`) is
    /// the old word, and `op(old, value)` is stored.
    AtomicBuffer {
        /// Buffer number.
        buffer: u32,
        /// The operation.
        op: AtomicOp,
        /// Word index, wrapping at the buffer length.
        index: Value,
        /// The operand (`vec1 32`).
        value: Value,
    },
    /// An atomic on one word of the workgroup's shared array `shared`, as [`Self::AtomicBuffer`].
    /// Invocations may apply commutative ones to one word between two barriers as long as none
    /// uses its result (`docs/semantics.md`, "Workgroups").
    AtomicShared {
        /// Shared array number.
        shared: u32,
        /// The operation.
        op: AtomicOp,
        /// Word index, wrapping at the array length.
        index: Value,
        /// The operand (`vec1 32`).
        value: Value,
    },
    /// A subgroup operation over the invocations of the workgroup that execute it together
    /// (`sim::semantics::SubgroupOp`; the result is `vec1 32`, `vec1 1` for `elect`).
    Subgroup {
        /// The operation.
        op: SubgroupOp,
        /// Operands: `args[..op.arity()]` (a `vec1 32` value or, for `ballot`, a `vec1 1`;
        /// `shuffle`'s second is the source's local id); the rest are reserved values.
        args: [Value; 2],
    },
    /// A workgroup control and memory barrier (GLSL `barrier()`): no invocation of the
    /// workgroup goes on until all have arrived, and the shared-memory accesses before it
    /// happen before those after it. Only in the body's top-level list (uniform control flow).
    Barrier,
    /// Writes the components of `value` to this invocation's output slots from `slot` on.
    StoreOutput {
        /// First output slot (wrapping at the output count).
        slot: u32,
        /// The data (32-bit, 1–4 components).
        value: Value,
    },
    /// Samples a texture with float coordinates (nearest texel); result `vec4 32` floats.
    Tex {
        /// Texture number.
        texture: u32,
        /// Float coordinates, as many as the dimensionality has (`vec2 32` (u, v) for 2D).
        coord: Value,
        /// Optional lod, bias and layer.
        params: TexParams,
    },
    /// Fetches a texel with integer coordinates; result `vec4 32` (the texel's float bits).
    Txf {
        /// Texture number.
        texture: u32,
        /// Integer coordinates, as many as the dimensionality has (no cube).
        coord: Value,
        /// Optional lod and layer (bias is never set).
        params: TexParams,
    },
    /// Queries the size of a texture level; result `vec4 32` integers (see
    /// `sim::semantics::texture_result`). Only `params.dim` and `params.lod` are used.
    Txs {
        /// Texture number.
        texture: u32,
        /// Dimensionality and the integer lod.
        params: TexParams,
    },
    /// The root of a deref chain: a whole local variable.
    DerefVar {
        /// The variable.
        var: Var,
    },
    /// An element of the array `parent` points at; `index` wraps at the array length.
    DerefArray {
        /// A deref of an array.
        parent: Value,
        /// Element index (32-bit integer).
        index: Value,
    },
    /// Field `field` of the struct `parent` points at.
    DerefStruct {
        /// A deref of a struct.
        parent: Value,
        /// Field number.
        field: u32,
    },
    /// Reinterprets the storage `parent` points at as `ty` (no larger than the parent's type).
    DerefCast {
        /// Any deref.
        parent: Value,
        /// The new pointee type.
        ty: VarType,
    },
    /// Loads the vector a deref points at.
    LoadDeref {
        /// A deref of a vector type.
        deref: Value,
    },
    /// Stores `value` where a deref points.
    StoreDeref {
        /// A deref of a vector type with `value`'s component count.
        deref: Value,
        /// The data.
        value: Value,
    },
    /// Reads a register (register-form IR, after out-of-SSA).
    LoadReg {
        /// The register.
        reg: Reg,
    },
    /// Writes a register.
    StoreReg {
        /// The register.
        reg: Reg,
        /// The data, of the register's type.
        value: Value,
    },
    /// Leaves the innermost loop. Last instruction of its block.
    Break,
    /// Starts the next iteration of the innermost loop. Last instruction of its block.
    Continue,
}

impl InstKind {
    /// Calls `f` with every value operand, phi sources included. Inlined: the verifier calls
    /// it for every placed instruction, and the call cost more than the walk.
    #[inline]
    pub fn visit_args(&self, mut f: impl FnMut(Value)) {
        let mut g = |v: &Value| f(*v);
        visit_operands!(self, g);
    }

    /// Calls `f` with a mutable reference to every value operand, phi sources included.
    pub fn visit_args_mut(&mut self, mut f: impl FnMut(&mut Value)) {
        visit_operands!(self, f, mut);
    }

    /// Whether the instruction ends its block's straight-line code (`break`, `continue`).
    pub fn is_jump(&self) -> bool {
        matches!(self, InstKind::Break | InstKind::Continue)
    }

    /// Whether removing the instruction (when its result is unused) could change what a
    /// program does: stores, atomics, barriers and jumps.
    pub fn has_side_effects(&self) -> bool {
        matches!(
            self,
            InstKind::StoreBuffer { .. }
                | InstKind::StoreShared { .. }
                | InstKind::AtomicBuffer { .. }
                | InstKind::AtomicShared { .. }
                | InstKind::Barrier
                | InstKind::StoreOutput { .. }
                | InstKind::StoreDeref { .. }
                | InstKind::StoreReg { .. }
                | InstKind::Break
                | InstKind::Continue
        )
    }

    /// Whether the result depends on which invocations execute the instruction together, so
    /// it must stay where it is in the control flow: not merged with another (CSE), moved
    /// into or out of a branch, or duplicated onto paths. Subgroup operations.
    pub fn is_convergent(&self) -> bool {
        matches!(self, InstKind::Subgroup { .. })
    }

    /// Whether an instruction of this kind defines a value (all but stores, barriers and
    /// jumps).
    pub fn defines_value(&self) -> bool {
        !matches!(
            self,
            InstKind::StoreBuffer { .. }
                | InstKind::StoreShared { .. }
                | InstKind::StoreOutput { .. }
                | InstKind::StoreDeref { .. }
                | InstKind::StoreReg { .. }
                | InstKind::Barrier
                | InstKind::Break
                | InstKind::Continue
        )
    }

    /// The text-format name of the instruction.
    pub fn name(&self) -> &'static str {
        match self {
            InstKind::Const { .. } => "load_const",
            InstKind::Alu { op, .. } => op.name(),
            InstKind::Vec { args } => match args
                .iter()
                .filter(|v| **v != Value::reserved_value())
                .count()
            {
                2 => "vec2",
                3 => "vec3",
                4 => "vec4",
                _ => "vec1",
            },
            InstKind::Mov { .. } => "mov",
            InstKind::Phi { .. } => "phi",
            InstKind::InvocationId => "load_invocation_id",
            InstKind::LocalId => "load_local_id",
            InstKind::WorkgroupId => "load_workgroup_id",
            InstKind::LoadShared { .. } => "load_shared",
            InstKind::StoreShared { .. } => "store_shared",
            InstKind::AtomicBuffer { .. } => "atomic_buffer",
            InstKind::AtomicShared { .. } => "atomic_shared",
            InstKind::Subgroup { op, .. } => op.mnemonic(),
            InstKind::Barrier => "barrier",
            InstKind::LoadUniform { .. } => "load_uniform",
            InstKind::LoadBuffer { .. } => "load_buffer",
            InstKind::StoreBuffer { .. } => "store_buffer",
            InstKind::StoreOutput { .. } => "store_output",
            InstKind::Tex { .. } => "tex",
            InstKind::Txf { .. } => "txf",
            InstKind::Txs { .. } => "txs",
            InstKind::DerefVar { .. } => "deref_var",
            InstKind::DerefArray { .. } => "deref_array",
            InstKind::DerefStruct { .. } => "deref_struct",
            InstKind::DerefCast { .. } => "deref_cast",
            InstKind::LoadDeref { .. } => "load_deref",
            InstKind::StoreDeref { .. } => "store_deref",
            InstKind::LoadReg { .. } => "load_reg",
            InstKind::StoreReg { .. } => "store_reg",
            InstKind::Break => "break",
            InstKind::Continue => "continue",
        }
    }
}
