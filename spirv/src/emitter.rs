//! The state every emitting step shares (the ground floor of the emitter): the builder with
//! the module header, the types and constants made on demand, where the program sits
//! ([`Placement`]), the ids of values, variables and labels, the CFG's edges and the phis
//! waiting for them. `module.rs` makes one and passes it to `flow`, which passes it on to
//! `memory` and `alu`; all of them write through it and none imports another to reach it.

use crate::interface::{Interface, Resource, StorageRole};
use crate::{EmitError, EmitOptions};
use compiler::ir::{BitSize, Block, Function, Program, Reg, Type, Value, Var};
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{self, Word};
use sim::dispatch::Dispatch;
use std::collections::HashMap;

/// The kind of a constant, for the constant cache.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum ConstKind {
    Uint,
    Float,
    Bool,
    /// An integer of 16 or 64 bits.
    Sized(BitSize),
}

/// One emitted edge of the SPIR-V CFG, with the IR block whose end it leaves (what an IR
/// phi's `pred` names), so phis can be filled in once every edge is known.
pub(crate) struct Edge {
    pub to: Word,
    pub from: Word,
    pub pred: EdgePred,
}

/// Whose phi sources an edge carries.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum EdgePred {
    /// The end of this IR block.
    Ir(Block),
    /// A loop's continue block: loop-header phis take the continue block's own phis.
    Continue,
    /// No IR edge (the prologue, a loop header into its body): the target has no phis.
    None,
}

/// An `OpPhi` to insert at the head of the block `home` once all edges are known.
pub(crate) struct PendingPhi {
    pub home: Word,
    pub result: Word,
    pub ty: Word,
    /// The IR phi (its result value) whose sources this phi takes.
    pub phi: Value,
    /// Whether this is a continue block's phi routing `phi`'s back-edge sources.
    pub routed: bool,
}

/// Where one program's invocations and words sit in the module's bindings: alone, at
/// invocation 0 and word 0 of each binding; fused, side by side with the other programs'.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Placement {
    /// The global invocation index of the program's invocation 0.
    pub first_invocation: u32,
    /// Per storage role: its binding and the word where the program's part starts.
    pub storage: Vec<(StorageRole, u32, u32)>,
    /// The binding of each of the program's textures.
    pub textures: Vec<u32>,
}

impl Placement {
    /// A program alone in the module with `interface`.
    pub fn alone(interface: &Interface) -> Placement {
        let mut place = Placement::default();
        for b in &interface.bindings {
            match &b.resource {
                Resource::Storage { role, .. } => place.storage.push((*role, b.binding, 0)),
                Resource::Texture(t) => {
                    let t = t.texture as usize;
                    if place.textures.len() <= t {
                        place.textures.resize(t + 1, u32::MAX);
                    }
                    place.textures[t] = b.binding;
                }
            }
        }
        place
    }

    /// The binding of a storage role and the word where the program's part of it starts.
    pub fn storage(&self, role: StorageRole) -> Option<(u32, u32)> {
        self.storage
            .iter()
            .find(|(r, ..)| *r == role)
            .map(|&(_, binding, offset)| (binding, offset))
    }

    /// The binding of texture `t`.
    pub fn texture(&self, t: u32) -> Option<u32> {
        self.textures
            .get(t as usize)
            .copied()
            .filter(|&b| b != u32::MAX)
    }
}

/// The module-level variables of a program with workgroups (`crate::workgroup`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Workgroup {
    /// The `LocalInvocationIndex` input (`uint`).
    pub local_var: Word,
    /// The `WorkgroupId` input (`uvec3`).
    pub group_var: Word,
    /// Per shared array: its variable and length.
    pub arrays: Vec<(Word, u32)>,
    /// This invocation's local index and workgroup id (x), loaded by the prologue.
    pub local: Word,
    pub group: Word,
}

/// Everything the emitting steps share.
pub(crate) struct Emitter<'a> {
    pub b: Builder,
    pub func: &'a Function,
    pub dispatch: &'a Dispatch,
    /// Where the program being emitted finds its invocations and words.
    pub place: Placement,
    pub glsl: Word,
    consts: HashMap<(ConstKind, u8, u64), Word>,
    undefs: HashMap<Word, Word>,
    /// The SPIR-V id of each emitted IR value.
    pub vals: HashMap<Value, Word>,
    /// Deref values: the variable and the id of the word offset.
    pub derefs: HashMap<Value, (Var, Word)>,
    /// The invocation id (`uint`).
    pub invocation: Word,
    /// What the program's subgroup operations need, when it has any (`crate::subgroup`).
    pub subgroups: Option<crate::interface::SubgroupNeeds>,
    /// Function-storage variables: one flat `uint[words + 1]` per IR variable (the last word
    /// is a sink for stores past the end), one per register.
    pub vars: HashMap<Var, Word>,
    pub regs: HashMap<Reg, Word>,
    /// Storage-buffer and texture variables by binding number.
    pub binding_vars: Vec<Word>,
    /// The label holding each IR block's instructions.
    pub labels: HashMap<Block, Word>,
    /// Where a block's phis go (its own label, or its loop's header).
    pub phi_home: HashMap<Block, Word>,
    pub edges: Vec<Edge>,
    pub phis: Vec<PendingPhi>,
    /// The built-ins and shared arrays, when the dispatch has workgroups.
    pub workgroup: Option<Workgroup>,
}

impl<'a> Emitter<'a> {
    /// `uint` or a `uvecN`.
    pub fn uvec(&mut self, n: u8) -> Word {
        self.ivec(BitSize::B32, n)
    }

    /// A signed integer of `bits` (16, 32 or 64), or a vector of them: only where a tool reads
    /// an operation from the type (`crate::alu`'s `i2i`).
    pub fn svec(&mut self, bits: BitSize, n: u8) -> Word {
        let s = self.b.type_int(bits.bits(), 1);
        self.vector(s, n)
    }

    /// An unsigned integer of `bits` (16, 32 or 64), or a vector of them.
    pub fn ivec(&mut self, bits: BitSize, n: u8) -> Word {
        let u = self.b.type_int(bits.bits(), 0);
        self.vector(u, n)
    }

    /// `float` or a `vecN`.
    pub fn fvec(&mut self, n: u8) -> Word {
        let f = self.b.type_float(32, None);
        self.vector(f, n)
    }

    /// `bool` or a `bvecN`.
    pub fn bvec(&mut self, n: u8) -> Word {
        let b = self.b.type_bool();
        self.vector(b, n)
    }

    fn vector(&mut self, scalar: Word, n: u8) -> Word {
        if n == 1 {
            scalar
        } else {
            self.b.type_vector(scalar, u32::from(n))
        }
    }

    /// The SPIR-V type of an IR data type (32-bit data is `uint`, booleans `bool`).
    pub fn data_type(&mut self, t: Type) -> Result<Word, EmitError> {
        match t {
            Type::Data {
                bits: bits @ (BitSize::B16 | BitSize::B32 | BitSize::B64),
                comps,
            } => Ok(self.ivec(bits, comps)),
            Type::Data {
                bits: BitSize::B1,
                comps,
            } => Ok(self.bvec(comps)),
            t => Err(EmitError::Unsupported(format!("a value of type {t}"))),
        }
    }

    fn constant(&mut self, kind: ConstKind, n: u8, bits: u64) -> Word {
        if let Some(&id) = self.consts.get(&(kind, n, bits)) {
            return id;
        }
        let id = if n > 1 {
            let scalar = self.constant(kind, 1, bits);
            let ty = match kind {
                ConstKind::Uint => self.uvec(n),
                ConstKind::Float => self.fvec(n),
                ConstKind::Bool => self.bvec(n),
                ConstKind::Sized(w) => self.ivec(w, n),
            };
            self.b.constant_composite(ty, vec![scalar; n as usize])
        } else {
            match kind {
                ConstKind::Uint => {
                    let t = self.uvec(1);
                    self.b.constant_bit32(t, bits as u32)
                }
                ConstKind::Float => {
                    let t = self.fvec(1);
                    self.b.constant_bit32(t, bits as u32)
                }
                ConstKind::Sized(BitSize::B64) => {
                    let t = self.ivec(BitSize::B64, 1);
                    self.b.constant_bit64(t, bits)
                }
                ConstKind::Sized(w) => {
                    // One literal word, the high bits 0 (an unsigned type).
                    let t = self.ivec(w, 1);
                    self.b.constant_bit32(t, (bits & w.mask()) as u32)
                }
                ConstKind::Bool => {
                    let t = self.bvec(1);
                    if bits != 0 {
                        self.b.constant_true(t)
                    } else {
                        self.b.constant_false(t)
                    }
                }
            }
        };
        self.consts.insert((kind, n, bits), id);
        id
    }

    /// A `uint` constant splatted to `n` components.
    pub fn cu(&mut self, bits: u32, n: u8) -> Word {
        self.constant(ConstKind::Uint, n, bits.into())
    }

    /// An unsigned constant of `width` (its low bits of `x`) splatted to `n` components.
    pub fn ci(&mut self, width: BitSize, x: u64, n: u8) -> Word {
        match width {
            BitSize::B32 => self.cu(x as u32, n),
            w => self.constant(ConstKind::Sized(w), n, x & w.mask()),
        }
    }

    /// A `float` constant splatted to `n` components.
    pub fn cf(&mut self, x: f32, n: u8) -> Word {
        self.constant(ConstKind::Float, n, x.to_bits().into())
    }

    /// A constant vector of individual `uint` or `bool` components.
    pub fn const_vector(&mut self, t: Type, bits: &[u32]) -> Result<Word, EmitError> {
        let kind = match t.bits() {
            Some(BitSize::B32) => ConstKind::Uint,
            Some(BitSize::B1) => ConstKind::Bool,
            Some(BitSize::B16) => ConstKind::Sized(BitSize::B16),
            Some(BitSize::B64) | None => {
                return Err(EmitError::Unsupported(format!("a constant of type {t}")))
            }
        };
        let parts: Vec<Word> = bits
            .iter()
            .map(|&v| {
                let v = match kind {
                    ConstKind::Bool => v & 1,
                    ConstKind::Sized(w) => v & w.mask() as u32,
                    _ => v,
                };
                self.constant(kind, 1, v.into())
            })
            .collect();
        if parts.len() == 1 {
            return Ok(parts[0]);
        }
        let ty = self.data_type(t)?;
        Ok(self.b.constant_composite(ty, parts))
    }

    /// A (global) `OpUndef` of a type.
    pub fn undef(&mut self, ty: Word) -> Word {
        if let Some(&id) = self.undefs.get(&ty) {
            return id;
        }
        let id = self.b.undef(ty, None);
        self.undefs.insert(ty, id);
        id
    }

    /// The id of an emitted IR value.
    pub fn val(&self, v: Value) -> Result<Word, EmitError> {
        self.vals
            .get(&v)
            .copied()
            .ok_or_else(|| EmitError::Unsupported(format!("{v} used where it is not emitted")))
    }

    /// The label holding an IR block's instructions (allocated on first use).
    pub fn label(&mut self, block: Block) -> Word {
        if let Some(&l) = self.labels.get(&block) {
            return l;
        }
        let l = self.b.id();
        self.labels.insert(block, l);
        l
    }

    /// Where branches into an IR block go: its phis' home.
    pub fn entry_label(&mut self, block: Block) -> Word {
        match self.phi_home.get(&block) {
            Some(&l) => l,
            None => self.label(block),
        }
    }

    /// Ends the current block with a branch and records the edge.
    pub fn branch(&mut self, from: Word, to: Word, pred: EdgePred) -> Result<(), EmitError> {
        self.b.branch(to)?;
        self.edges.push(Edge { to, from, pred });
        Ok(())
    }

    /// Component `c` of a vector value (the value itself for a scalar).
    pub fn component(&mut self, id: Word, t: Type, c: u32) -> Result<Word, EmitError> {
        if t.comps() == 1 {
            return Ok(id);
        }
        let scalar = self.data_type(t.with_comps(1))?;
        Ok(self.b.composite_extract(scalar, None, id, [c])?)
    }

    /// Component 0 of an optional IR value as a scalar, or the `uint` constant 0.
    pub fn scalar_or_zero(&mut self, v: Option<Value>) -> Result<Word, EmitError> {
        match v {
            Some(v) => {
                let id = self.val(v)?;
                self.component(id, self.func.ty(v), 0)
            }
            None => Ok(self.cu(0, 1)),
        }
    }

    /// Decorates float arithmetic result `r` `NoContraction` and returns it. Without it a
    /// driver may fuse a multiply into the add it feeds or re-associate ("Evaluation of
    /// Expressions" in Vulkan's SPIR-V environment), and every float op the emitter writes
    /// stands for one separately rounded step of our semantics — the IR's own `fadd`/`fmul`
    /// and the texel arithmetic alike (a gather's `u * w - 0.5` fused would pick another
    /// texel at a boundary).
    pub fn no_contraction(&mut self, r: Word) -> Word {
        self.b.decorate(r, spirv::Decoration::NoContraction, []);
        r
    }

    /// Declares the `Int16` / `Int64` capabilities for a module whose programs have 16-bit
    /// (`b16`) or 64-bit (`b64`) integers (the device's `shaderInt16` / `shaderInt64`).
    pub fn declare_int_widths(&mut self, (b16, b64): (bool, bool)) {
        if b16 {
            self.b.capability(spirv::Capability::Int16);
        }
        if b64 {
            self.b.capability(spirv::Capability::Int64);
        }
    }

    /// Calls a GLSL.std.450 instruction.
    pub fn glsl(
        &mut self,
        ty: Word,
        inst: spirv::GlslStd450Op,
        args: &[Word],
    ) -> Result<Word, EmitError> {
        let ops = args.iter().map(|&a| Operand::IdRef(a));
        Ok(self.b.ext_inst(ty, None, self.glsl, inst as u32, ops)?)
    }
}

impl<'a> Emitter<'a> {
    /// An emitter with the module header (capabilities, float controls, memory model) written,
    /// about to emit `program` at `place`.
    pub fn new(program: &'a Program, place: Placement, options: &EmitOptions) -> Emitter<'a> {
        let mut b = Builder::new();
        b.set_version(1, 3);
        b.capability(spirv::Capability::Shader);
        if options.preserve_nan_inf || options.preserve_denormals || options.round_to_nearest_even {
            b.extension("SPV_KHR_float_controls");
        }
        if options.preserve_nan_inf {
            b.capability(spirv::Capability::SignedZeroInfNanPreserve);
        }
        if options.preserve_denormals {
            b.capability(spirv::Capability::DenormPreserve);
        }
        if options.round_to_nearest_even {
            b.capability(spirv::Capability::RoundingModeRTE);
        }
        let glsl = b.ext_inst_import("GLSL.std.450");
        b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
        Emitter {
            b,
            func: &program.func,
            dispatch: &program.dispatch,
            place,
            glsl,
            consts: HashMap::new(),
            undefs: HashMap::new(),
            vals: HashMap::new(),
            derefs: HashMap::new(),
            invocation: 0,
            subgroups: None,
            vars: HashMap::new(),
            regs: HashMap::new(),
            binding_vars: Vec::new(),
            labels: HashMap::new(),
            phi_home: HashMap::new(),
            edges: Vec::new(),
            phis: Vec::new(),
            workgroup: None,
        }
    }

    /// Forgets the last program's values and blocks (types, constants and bindings stay) and
    /// turns to `program` at `place`.
    pub fn start(&mut self, program: &'a Program, place: Placement) {
        self.func = &program.func;
        self.dispatch = &program.dispatch;
        self.place = place;
        self.vals.clear();
        self.derefs.clear();
        self.vars.clear();
        self.regs.clear();
        self.labels.clear();
        self.phi_home.clear();
        self.edges.clear();
        self.phis.clear();
    }
}

/// The 2D-array `uint` image type the textures use.
pub(crate) fn image_type(b: &mut Builder) -> Word {
    let u = b.type_int(32, 0);
    b.type_image(
        u,
        spirv::Dim::Dim2D,
        0,
        1,
        0,
        1,
        spirv::ImageFormat::Unknown,
        None,
    )
}

/// The combined image sampler type over [`image_type`].
pub(crate) fn sampled_image_type(b: &mut Builder) -> Word {
    let image = image_type(b);
    b.type_sampled_image(image)
}

/// The result value of an instruction that must have one.
pub(crate) fn need(result: Option<Value>, what: &str) -> Result<Value, EmitError> {
    result.ok_or_else(|| EmitError::Invalid(format!("a {what} without a result")))
}
