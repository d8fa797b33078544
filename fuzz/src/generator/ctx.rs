//! The generator's state and its small helpers: random choices that default sensibly when the
//! bytes run out, emitting instructions (each one enters the pool and costs budget), and
//! finding or making a value of any type — so every row can always produce valid code.

use super::config::{Config, Rate};
use super::pool::{Entry, Flavor, Pool};
use arbitrary::{Result, Unstructured};
use compiler::ir::alu::Kind;
use compiler::ir::{AluOp, AtomicOp, BitSize, Builder, Inst, InstKind, Type, Value, Var, VarType};
use sim::dispatch::Dispatch;

/// A loop-carried phi and how its back-edge sources are chosen.
#[derive(Copy, Clone, Debug)]
pub enum Carry {
    /// The phi itself on every back-edge (`bar = phi(foo, bar)`).
    Itself,
    /// The phi at this index of the same loop (swapped pair).
    Swap(usize),
    /// The pre-header value again (all sources equal).
    Same,
    /// A value in scope at the back-edge, preferably a long-latency one.
    Fresh,
}

/// A header phi of a loop being built.
#[derive(Copy, Clone, Debug)]
pub struct CarriedPhi {
    /// The phi instruction.
    pub inst: Inst,
    /// Its value.
    pub value: Value,
    /// Its type.
    pub ty: Type,
    /// Its source on the entry edge.
    pub pre: Value,
    /// How back-edge sources are chosen.
    pub carry: Carry,
}

/// A loop being built.
#[derive(Clone, Debug, Default)]
pub struct LoopFrame {
    /// The counter's phi.
    pub counter_phi: Option<Inst>,
    /// `iadd counter, 1`, defined in the header.
    pub counter_next: Option<Value>,
    /// The other header phis.
    pub carried: Vec<CarriedPhi>,
    /// Loop-invariant compares defined in the pre-header and kept out of the pool: each is
    /// the condition of at most one branch in the body (see `Config::hoisted_cond_rate`).
    pub hoisted: Vec<Value>,
}

/// A local variable and its type.
#[derive(Clone, Debug)]
pub struct VarInfo {
    /// The variable.
    pub var: Var,
    /// Its type.
    pub ty: VarType,
}

/// The shared arrays' plan while the program is built (`super::workgroup`).
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Words each invocation owns per array (a power of two).
    pub per: u32,
    /// Barriers placed so far.
    pub phase: u32,
    /// `load_local_id` (from the prologue).
    pub local: Value,
    /// The operation every invocation applies to the atomic array (array 2) in this phase,
    /// when the dispatch has one.
    pub atomic: Option<AtomicOp>,
    /// Whether shared statements may be subgroup operations (`Config::subgroup_rate`).
    pub subgroups: bool,
}

/// Everything the generator carries while building one program.
pub struct Gen<'c, 'u, 'b> {
    /// The fuzz input.
    pub u: &'u mut Unstructured<'b>,
    /// The (clamped) knobs.
    pub cfg: &'c Config,
    /// The function being built.
    pub b: Builder,
    /// The dispatch the program runs in.
    pub dispatch: Dispatch,
    /// Values in scope.
    pub pool: Pool,
    /// Instructions left for statements; every statement costs at least one.
    pub budget: u32,
    /// Current nesting of ifs and loops.
    pub depth: u32,
    /// Loops being built, innermost last.
    pub loops: Vec<LoopFrame>,
    /// The shared arrays' plan, when the dispatch has workgroups.
    pub shared: Option<Plan>,
    /// The subgroup operations emitted so far, for repeating one with the same operands
    /// further down (`super::workgroup`).
    pub subgroup_ops: Vec<InstKind>,
    /// Whether statements may be chains of 16- and 64-bit integers (`Config::sized_int_rate`).
    pub sized_ints: bool,
    /// Local variables (created first, then filled).
    pub vars: Vec<VarInfo>,
    /// Next output slot for observations (rotates over slots 1..).
    pub next_slot: u32,
    /// Reused scratch for pool searches.
    pub scratch: Vec<usize>,
}

impl Gen<'_, '_, '_> {
    /// `true` with probability `num/den`; `false` once the bytes run out, so empty inputs
    /// take the plain path.
    pub fn chance(&mut self, r: Rate) -> Result<bool> {
        let (num, den) = r;
        if num == 0 || den == 0 {
            return Ok(false);
        }
        Ok(self.u.int_in_range(1..=den)? > den - num)
    }

    /// A number in a range (its start once the bytes run out).
    pub fn range(&mut self, r: &std::ops::RangeInclusive<u32>) -> Result<u32> {
        self.u.int_in_range(*r.start()..=*r.end())
    }

    /// An index below `n` (n ≥ 1).
    pub fn index(&mut self, n: usize) -> Result<usize> {
        debug_assert!(n > 0, "index into an empty choice");
        self.u.int_in_range(0..=n - 1)
    }

    /// One of `xs` (non-empty).
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> Result<T> {
        let i = self.index(xs.len())?;
        Ok(xs[i])
    }

    /// Appends a value-defining instruction, puts the value in scope, spends budget.
    pub fn emit(&mut self, kind: InstKind, ty: Type, flavor: Flavor) -> Value {
        let slow = match &kind {
            InstKind::Alu { op, .. } => op.is_transcendental(),
            InstKind::Tex { .. } | InstKind::Txf { .. } | InstKind::Txs { .. } => true,
            _ => false,
        };
        let v = self
            .b
            .ins(kind, ty)
            .expect("a typed instruction has a value");
        self.budget = self.budget.saturating_sub(1);
        self.pool.push(Entry {
            v,
            ty,
            flavor,
            slow,
        });
        v
    }

    /// Appends a value-defining instruction whose value stays out of scope (an atomic whose
    /// result must not be read), spending budget.
    pub fn emit_unread(&mut self, kind: InstKind, ty: Type) {
        self.b.ins(kind, ty);
        self.budget = self.budget.saturating_sub(1);
    }

    /// Appends an instruction without a result (a store), spending budget.
    pub fn emit_effect(&mut self, kind: InstKind) {
        self.b.ins(kind, Type::None);
        self.budget = self.budget.saturating_sub(1);
    }

    /// An ALU op, its result in scope.
    pub fn alu(&mut self, op: AluOp, args: &[Value]) -> Value {
        let v = self.b.alu(op, args);
        self.budget = self.budget.saturating_sub(1);
        let flavor = match op.dst() {
            Kind::Int => Flavor::Int,
            Kind::Float => Flavor::Float,
            Kind::Bool => Flavor::Bool,
            Kind::Any => self.flavor_of(args[1]),
        };
        let ty = self.b.func().ty(v);
        self.pool.push(Entry {
            v,
            ty,
            flavor,
            slow: op.is_transcendental(),
        });
        v
    }

    /// `op` (a conversion) of `v` into integers of `bits`, in scope.
    pub fn convert(&mut self, op: AluOp, v: Value, bits: BitSize) -> Value {
        let v = self.b.convert(op, v, bits);
        self.budget = self.budget.saturating_sub(1);
        let ty = self.b.func().ty(v);
        self.pool.push(Entry {
            v,
            ty,
            flavor: Flavor::Int,
            slow: false,
        });
        v
    }

    /// The constant `x` as an integer of `bits` (16 or 64: `u2u` of a fresh 32-bit one, the IR
    /// having no 64-bit constants).
    pub fn sized_const(&mut self, x: u32, bits: BitSize) -> Value {
        let k = self.iconst(x);
        self.convert(AluOp::U2u, k, bits)
    }

    /// The flavor recorded for `v` (Int if it is no longer in scope).
    pub fn flavor_of(&self, v: Value) -> Flavor {
        self.pool
            .entries()
            .iter()
            .rev()
            .find(|e| e.v == v)
            .map_or(Flavor::Int, |e| e.flavor)
    }

    /// A 32-bit constant of the given flavor: interesting values first.
    pub fn constant(&mut self, flavor: Flavor) -> Result<Value> {
        let word = match flavor {
            Flavor::Bool => {
                let b = self.u.arbitrary::<bool>()?;
                let v = self.b.bconst(b);
                self.budget = self.budget.saturating_sub(1);
                self.pool.push(Entry {
                    v,
                    ty: Type::B1,
                    flavor,
                    slow: false,
                });
                return Ok(v);
            }
            Flavor::Int => {
                const INTS: [u32; 14] = [
                    1,
                    0,
                    2,
                    3,
                    7,
                    8,
                    15,
                    16,
                    31,
                    32,
                    0x7fff_ffff,
                    0x8000_0000,
                    0xffff_ffff,
                    0xffff_fff9,
                ];
                if self.u.int_in_range(0..=3)? == 3 {
                    self.u.arbitrary::<u32>()?
                } else {
                    self.pick(&INTS)?
                }
            }
            Flavor::Float => {
                const FLOATS: [f32; 12] = [
                    1.0,
                    0.5,
                    0.0,
                    -0.0,
                    -2.0,
                    3.25,
                    0.1,
                    1e-3,
                    65536.0,
                    -1.0e9,
                    f32::INFINITY,
                    f32::NAN,
                ];
                if self.u.int_in_range(0..=4)? == 4 {
                    (self.u.int_in_range(-1000i32..=1000)? as f32 / 16.0).to_bits()
                } else {
                    self.pick(&FLOATS)?.to_bits()
                }
            }
        };
        Ok(self.emit(
            InstKind::Const {
                bits: [word, 0, 0, 0],
            },
            Type::I32,
            flavor,
        ))
    }

    /// A value of type `ty` in scope, preferring `flavor` and (by `old_operand_rate`) old
    /// values; made on the spot if none exists.
    pub fn get(&mut self, ty: Type, flavor: Flavor) -> Result<Value> {
        let mut idx = std::mem::take(&mut self.scratch);
        idx.clear();
        idx.extend_from_slice(self.pool.matching(ty));
        let found = if idx.is_empty() {
            None
        } else {
            if self.u.int_in_range(0..=3)? != 0 {
                let entries = self.pool.entries();
                if idx.iter().any(|&i| entries[i].flavor == flavor) {
                    idx.retain(|&i| entries[i].flavor == flavor);
                }
            }
            let n = idx.len();
            let k = if self.chance(self.cfg.old_operand_rate)? {
                self.index(n.div_ceil(2))?
            } else if self.u.arbitrary::<bool>()? {
                n - 1 - self.index(n.min(4))?
            } else {
                self.index(n)?
            };
            Some(self.pool.entries()[idx[k]].v)
        };
        self.scratch = idx;
        match found {
            Some(v) => Ok(v),
            None => self.make(ty, flavor),
        }
    }

    /// Makes a value of type `ty` from scalars in scope or constants.
    fn make(&mut self, ty: Type, flavor: Flavor) -> Result<Value> {
        let comps = ty.comps().max(1);
        match ty.bits() {
            Some(bits) if bits.is_wide() => {
                let w = self.get(Type::vec32(comps), Flavor::Int)?;
                let op = self.pick(&[AluOp::U2u, AluOp::I2i])?;
                Ok(self.convert(op, w, bits))
            }
            Some(BitSize::B1) => {
                let x = self.get(Type::vec32(comps), Flavor::Int)?;
                let y = self.get(Type::vec32(comps), Flavor::Int)?;
                let op = self.pick(&[AluOp::Ult, AluOp::Ine, AluOp::Ilt, AluOp::Ieq])?;
                Ok(self.alu(op, &[x, y]))
            }
            _ if comps == 1 => self.constant(flavor),
            _ => {
                // A swizzle of a wider vector in scope, or a vec of scalars.
                for wider in (comps + 1)..=4 {
                    let t = Type::vec32(wider);
                    if let Some(&i) = self.pool.matching(t).last() {
                        let e = self.pool.entries()[i];
                        let (src, fl) = (e.v, e.flavor);
                        let mut sw = [0u8; 4];
                        for s in sw.iter_mut().take(comps as usize) {
                            *s = self.u.int_in_range(0..=wider - 1)?;
                        }
                        let kind = InstKind::Mov { src, swizzle: sw };
                        return Ok(self.emit(kind, ty, fl));
                    }
                }
                let mut args = Vec::with_capacity(comps as usize);
                for _ in 0..comps {
                    args.push(self.get(Type::I32, flavor)?);
                }
                let v = self.b.vec(&args);
                self.budget = self.budget.saturating_sub(1);
                self.pool.push(Entry {
                    v,
                    ty,
                    flavor,
                    slow: false,
                });
                Ok(v)
            }
        }
    }

    /// A scalar 32-bit integer in scope (or made).
    pub fn int(&mut self) -> Result<Value> {
        self.get(Type::I32, Flavor::Int)
    }

    /// A scalar boolean in scope (or made).
    pub fn bool(&mut self) -> Result<Value> {
        self.get(Type::B1, Flavor::Bool)
    }

    /// A word index: a constant (sometimes past the end, to wrap) or a value in scope.
    pub fn word_index(&mut self, len: u32) -> Result<Value> {
        if self.chance(self.cfg.dynamic_index_rate)? {
            let x = self.int()?;
            if self.u.arbitrary::<bool>()? {
                return Ok(x);
            }
            // Mostly in range, but still data-dependent.
            let m = self.iconst(len.next_power_of_two().saturating_sub(1).max(1));
            Ok(self.alu(AluOp::Iand, &[x, m]))
        } else {
            let k = self.u.int_in_range(0..=len.saturating_mul(2).max(1) - 1)?;
            Ok(self.iconst(k))
        }
    }

    /// An integer constant, emitted fresh.
    pub fn iconst(&mut self, x: u32) -> Value {
        self.emit(
            InstKind::Const { bits: [x, 0, 0, 0] },
            Type::I32,
            Flavor::Int,
        )
    }

    /// A vector width: mostly scalars, sometimes vec2–vec4.
    pub fn comps(&mut self) -> Result<u8> {
        Ok(match self.u.int_in_range(0..=7)? {
            0..=3 => 1,
            4 | 5 => 2,
            6 => 3,
            _ => 4,
        })
    }

    /// A 32-bit vector type of random width.
    pub fn vec_ty(&mut self) -> Result<Type> {
        Ok(Type::vec32(self.comps()?))
    }

    /// Any data type: mostly 32-bit, sometimes boolean.
    pub fn any_ty(&mut self) -> Result<(Type, Flavor)> {
        let c = self.comps()?;
        Ok(match self.u.int_in_range(0..=5)? {
            0..=2 => (Type::vec32(c), Flavor::Int),
            3 | 4 => (Type::vec32(c), Flavor::Float),
            _ => (Type::vec1(c), Flavor::Bool),
        })
    }

    /// The type of a merge or loop-carried phi: [`Gen::any_ty`]'s, or in a program with 16-
    /// and 64-bit integers a quarter of the time one of theirs (`vecC 16`, `vec1 64`).
    pub fn phi_ty(&mut self) -> Result<(Type, Flavor)> {
        if self.sized_ints && self.chance((1, 4))? {
            let ty = if self.u.arbitrary::<bool>()? {
                Type::int(BitSize::B64, 1)
            } else {
                Type::int(BitSize::B16, self.comps()?)
            };
            return Ok((ty, Flavor::Int));
        }
        self.any_ty()
    }

    /// Whether any statement budget is left.
    pub fn has_budget(&self) -> bool {
        self.budget > 0
    }
}
