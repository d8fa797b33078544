//! The verifier: checks every rule a well-formed [`Program`] keeps, and collects every
//! violation (entity, printed instruction, rule, message) instead of stopping at the first.
//! It trusts nothing it checks: out-of-range entity references are reported, never indexed,
//! so a malformed program never makes it panic.
//!
//! # Rules
//!
//! Layout (`layout.rs`):
//! * `list-shape` — every control-flow list starts and ends with a block, and blocks alternate
//!   with `if`s/`loop`s (no two blocks and no two ifs/loops are adjacent);
//! * `unknown-entity` — every block, instruction, value, variable and register referenced
//!   exists (also checked by the other groups for the references they read);
//! * `duplicate-placement` — each block and each instruction is placed at most once;
//! * `result-def` — a placed instruction's result value exists and its `def` points back to the
//!   instruction;
//! * `phi-placement` — phis come first in their block;
//! * `jump-placement` — `break`/`continue` is the last instruction of its block;
//! * `jump-outside-loop` — `break`/`continue` sits inside a loop;
//! * `if-condition` — an `if` condition is a `vec1 1` value;
//! * `barrier-placement` — a `barrier` sits in the body's top-level list, where every
//!   invocation of a workgroup reaches it (Vulkan allows barriers only in uniform control
//!   flow; the top level is the part of it the verifier can see).
//!
//! SSA (`ssa.rs`); dominance and phi-edge rules are checked only when the tree is well formed
//! (no `list-shape` error and no unknown or duplicated block), since the CFG is meaningless
//! otherwise, and uses in unreachable blocks are exempt from dominance:
//! * `undefined-value` — every operand (and `if` condition) is a value defined by a placed
//!   instruction whose result it is;
//! * `not-dominated` — each use is dominated by its definition (in the same block: defined
//!   earlier); a phi source's definition dominates the end of the source's predecessor; an
//!   `if` condition's definition dominates the block before the `if`;
//! * `phi-missing-source` — a phi has a source for every CFG predecessor of its block;
//! * `phi-extra-source` — a phi has no source from a block that is not a predecessor;
//! * `phi-duplicate-source` — a phi has at most one source per predecessor.
//!
//! Types and operands (`types.rs`):
//! * `declaration` — variable types are well formed (vectors of 1–4, arrays of ≥ 1 element,
//!   non-empty structs); register types are data types;
//! * `result-presence` — an instruction that defines a value has a result, one that does not
//!   (stores, jumps) has none;
//! * `operand-slots` — ALU slots past the arity and `vec` slots past the count hold the
//!   reserved value, with no gaps; a `vec` has 1–4 components;
//! * `operand-type` — ALU operands match [`AluOp::srcs`](super::AluOp::srcs) (int/float 32-bit,
//!   bool 1-bit, one component count for all operands; `bcsel`'s two `Any` operands of one
//!   type); `vec` operands are scalars of one bit size; `mov` reads data; phi sources have the
//!   phi's type; uniform/buffer indices are `vec1 32`; stored and output values are 32-bit;
//!   `tex`/`txf` coordinates have the dimensionality's size (1D 1, 2D 2, 3D and cube 3), so do
//!   `ddx`/`ddy`, other texture parameters are `vec1 32`; derefs' parents are
//!   derefs and array indices `vec1 32`; register stores have the register's type;
//! * `result-type` — the result type equals the type derived from the opcode and operands
//!   (ALU per [`AluOp::dst`](super::AluOp::dst), `vec` of the count, `mov` of the swizzle
//!   length, `vec4 32` texture results, 32-bit loads, `deref` for deref instructions, the
//!   register's type for `load_reg`); constants and phis are data;
//! * `swizzle` — `mov` swizzle indices are within the source's component count;
//! * `const-bits` — boolean constant components are 0 or 1, unused components 0;
//! * `resource-range` — buffer, shared array and texture numbers exist in the dispatch;
//!   `store_output` needs at least one output slot; the workgroup size is one of
//!   `sim::dispatch::WORKGROUP_SIZES` and divides the invocations;
//! * `tex-params` — `txf` has no bias, compare, gradients or gather and is not a cube; `tex`
//!   does not have both lod and bias; gradients come as a pair and exclude lod and bias; layers
//!   only on 1D/2D; no compare on 3D; no offsets on cubes, offsets −8..=7 and only for the
//!   coordinates there are; gather (component 0..=3) only on 2D/cube without lod, bias or
//!   gradients; `txs` takes only a dim and a lod;
//! * `deref-use` — deref values are used only as the deref operand of deref instructions and
//!   `load_deref`/`store_deref`, never as data (ALU, phis, stores, …);
//! * `deref-chain` — `deref_array` parents point at arrays, `deref_struct` parents at structs
//!   with the field in range, `deref_cast` types are well formed and no larger (in words)
//!   than the parent's pointee;
//! * `deref-access` — `load_deref`/`store_deref` derefs point at a `vecN`, and the data is
//!   `vecN 32`.
//!
//! Reachability, checked only by [`verify_reachable`] (passes may leave dead code behind for
//! the dead-control-flow cleanup, so [`verify`] allows it; the generator promises none, since
//! code that never runs tests nothing):
//! * `unreachable-block` — every placed block is reached from the entry (this also rules out
//!   code after a `break`/`continue` in the same list, which always holds a block).

mod layout;
mod ssa;
#[cfg(test)]
mod tests;
mod types;

pub use types::deref_type;

use super::{Block, Cfg, DomTree, Function, Inst, Program, Value};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::EntityRef;
use std::fmt;

/// A rule of the verifier (see the module documentation for what each one requires).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[allow(missing_docs)]
pub enum Rule {
    ListShape,
    UnknownEntity,
    DuplicatePlacement,
    ResultDef,
    PhiPlacement,
    JumpPlacement,
    JumpOutsideLoop,
    IfCondition,
    BarrierPlacement,
    UndefinedValue,
    NotDominated,
    PhiMissingSource,
    PhiExtraSource,
    PhiDuplicateSource,
    Declaration,
    ResultPresence,
    OperandSlots,
    OperandType,
    ResultType,
    Swizzle,
    ConstBits,
    ResourceRange,
    TexParams,
    DerefUse,
    DerefChain,
    DerefAccess,
    UnreachableBlock,
}

impl Rule {
    /// The rule's name, as listed in the module documentation.
    pub fn name(self) -> &'static str {
        match self {
            Rule::ListShape => "list-shape",
            Rule::UnknownEntity => "unknown-entity",
            Rule::DuplicatePlacement => "duplicate-placement",
            Rule::ResultDef => "result-def",
            Rule::PhiPlacement => "phi-placement",
            Rule::JumpPlacement => "jump-placement",
            Rule::JumpOutsideLoop => "jump-outside-loop",
            Rule::IfCondition => "if-condition",
            Rule::BarrierPlacement => "barrier-placement",
            Rule::UndefinedValue => "undefined-value",
            Rule::NotDominated => "not-dominated",
            Rule::PhiMissingSource => "phi-missing-source",
            Rule::PhiExtraSource => "phi-extra-source",
            Rule::PhiDuplicateSource => "phi-duplicate-source",
            Rule::Declaration => "declaration",
            Rule::ResultPresence => "result-presence",
            Rule::OperandSlots => "operand-slots",
            Rule::OperandType => "operand-type",
            Rule::ResultType => "result-type",
            Rule::Swizzle => "swizzle",
            Rule::ConstBits => "const-bits",
            Rule::ResourceRange => "resource-range",
            Rule::TexParams => "tex-params",
            Rule::DerefUse => "deref-use",
            Rule::DerefChain => "deref-chain",
            Rule::DerefAccess => "deref-access",
            Rule::UnreachableBlock => "unreachable-block",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a violation was found.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Location {
    /// The program as a whole (declarations, the top-level list).
    Program,
    /// A block (its placement or its phis' edges).
    Block(Block),
    /// An instruction.
    Inst(Inst),
    /// A value (an `if` condition).
    Value(Value),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Program => f.write_str("program"),
            Location::Block(b) => write!(f, "{b}"),
            Location::Inst(i) => write!(f, "{i}"),
            Location::Value(v) => write!(f, "{v}"),
        }
    }
}

/// One violated rule.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VerifierError {
    /// The entity at fault.
    pub location: Location,
    /// The offending instruction, printed (empty when the location is not an instruction).
    pub context: String,
    /// The rule broken.
    pub rule: Rule,
    /// What is wrong, with the facts needed to act.
    pub message: String,
}

impl fmt::Display for VerifierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.location)?;
        if !self.context.is_empty() {
            write!(f, " ({})", self.context)?;
        }
        write!(f, ": [{}] {}", self.rule, self.message)
    }
}

/// Every violation found in a program, in the order found.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct VerifyErrors(pub Vec<VerifierError>);

impl VerifyErrors {
    /// Whether some violation broke `rule`.
    pub fn has(&self, rule: Rule) -> bool {
        self.0.iter().any(|e| e.rule == rule)
    }
}

impl fmt::Display for VerifyErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0.len();
        write!(f, "{n} verifier error{}", if n == 1 { "" } else { "s" })?;
        for e in &self.0 {
            write!(f, "\n  {e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifyErrors {}

/// The verifier's buffers, kept per thread between runs (it runs after every pass that
/// changed something, so allocating them each time showed in the fuzz loop).
#[derive(Default)]
struct Scratch {
    cfg: Cfg,
    dom: DomTree,
    seen_inst: Vec<bool>,
    seen_block: Vec<bool>,
    def_at: Vec<DefSite>,
    placed_blocks: Vec<Block>,
    if_conds: Vec<(Option<Block>, Value)>,
}

/// Where a value's definition sits: block and index (no block when the layout walk did not
/// find it placed as the value's definition).
#[derive(Copy, Clone, Default)]
struct DefSite {
    block: PackedOption<Block>,
    index: u32,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

/// Checks every rule listed in the module documentation.
pub fn verify(p: &Program) -> Result<(), VerifyErrors> {
    // Borrowed in place (taking the buffers out and putting them back cost a default
    // `Scratch` built and dropped per run); a nested run would start from empty buffers.
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut s) => verify_with(p, &mut s),
        Err(_) => verify_with(p, &mut Scratch::default()),
    })
}

/// [`verify`], and `unreachable-block` besides: no placed block is dead. For programs that
/// promise to run all their code (the generator's), not for the output of every pass.
pub fn verify_reachable(p: &Program) -> Result<(), VerifyErrors> {
    let mut errors = verify(p).err().unwrap_or_default();
    // The CFG of a malformed tree never panics but means nothing: reported above already.
    if !errors.has(Rule::ListShape) && !errors.has(Rule::UnknownEntity) {
        let cfg = Cfg::compute(&p.func);
        for b in p.func.blocks.keys() {
            if cfg.is_placed(b) && !cfg.is_reachable(b) {
                errors.0.push(VerifierError {
                    location: Location::Block(b),
                    context: String::new(),
                    rule: Rule::UnreachableBlock,
                    message: format!("the entry never reaches {b}"),
                });
            }
        }
    }
    if errors.0.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn verify_with(p: &Program, s: &mut Scratch) -> Result<(), VerifyErrors> {
    let func = &p.func;
    s.cfg.recompute(func);
    // The dominator tree is a function of the edges and the entry alone; most passes leave
    // both alone, so the tree of the previous run (kept with this CFG) still holds.
    if !s.cfg.edges_unchanged() {
        s.dom.recompute(&s.cfg);
    }
    // Sized up front, and indexed only by entities checked to exist.
    s.seen_inst.clear();
    s.seen_inst.resize(func.insts.len(), false);
    s.seen_block.clear();
    s.seen_block.resize(func.blocks.len(), false);
    s.def_at.clear();
    s.def_at.resize(func.values.len(), DefSite::default());
    s.placed_blocks.clear();
    s.if_conds.clear();
    let mut v = Verifier {
        p,
        func,
        errors: Vec::new(),
        cfg: &s.cfg,
        dom: &s.dom,
        tree_ok: true,
        insts_clean: true,
        seen_inst: std::mem::take(&mut s.seen_inst),
        seen_block: std::mem::take(&mut s.seen_block),
        def_at: std::mem::take(&mut s.def_at),
        placed_blocks: std::mem::take(&mut s.placed_blocks),
        if_conds: std::mem::take(&mut s.if_conds),
    };
    v.check_declarations();
    v.check_layout();
    // The placed instructions, first placements only, in the order the walk met them: the
    // placed blocks' lists again (cheaper than recording every instruction in the walk),
    // skipping missing and repeated instructions when the walk found any.
    if !v.insts_clean {
        v.seen_inst.fill(false);
    }
    for k in 0..v.placed_blocks.len() {
        let block = v.placed_blocks[k];
        for (index, &inst) in func.blocks[block].insts.iter().enumerate() {
            if !v.insts_clean && !v.first_placement(inst) {
                continue;
            }
            // Looked up once for both checks.
            let data = &func.insts[inst];
            v.check_operands(block, inst, data, index);
            v.check_inst(inst, data);
        }
    }
    v.check_if_conds();
    s.seen_inst = v.seen_inst;
    s.seen_block = v.seen_block;
    s.def_at = v.def_at;
    s.placed_blocks = v.placed_blocks;
    s.if_conds = v.if_conds;
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(VerifyErrors(v.errors))
    }
}

/// The state of one run of the verifier.
struct Verifier<'a> {
    p: &'a Program,
    func: &'a Function,
    errors: Vec<VerifierError>,
    /// Borrowed from the scratch (moving them out and back copied and dropped two large
    /// structs per run).
    cfg: &'a Cfg,
    dom: &'a DomTree,
    /// Whether the tree is well formed enough for the CFG to mean anything.
    tree_ok: bool,
    /// Whether every instruction the walk met exists and is placed once (so the placed
    /// blocks' lists are exactly the placed instructions).
    insts_clean: bool,
    /// By instruction index: placed (by the walk; then by the checks' pass when the layout
    /// is not clean).
    seen_inst: Vec<bool>,
    /// By block index: placed.
    seen_block: Vec<bool>,
    /// For each value: where its defining instruction sits, when the layout walk found that
    /// instruction placed with the value as its result and the value's `def` pointing back
    /// at it (everything [`Verifier::placed_def`] checks). An instruction placed more than
    /// once (reported) counts at its last placement, a block placed more than once at its
    /// first (reported, and dominance is not checked then).
    def_at: Vec<DefSite>,
    /// Blocks placed (once, existing), in the order walked.
    placed_blocks: Vec<Block>,
    /// `if` conditions with the block before the `if`.
    if_conds: Vec<(Option<Block>, Value)>,
}

impl Verifier<'_> {
    fn report(&mut self, location: Location, rule: Rule, message: String) {
        let context = match location {
            Location::Inst(i) => print_inst(self.func, i),
            _ => String::new(),
        };
        self.errors.push(VerifierError {
            location,
            context,
            rule,
            message,
        });
    }

    fn inst_err(&mut self, inst: Inst, rule: Rule, message: String) {
        self.report(Location::Inst(inst), rule, message);
    }

    /// Whether `inst` exists and is met here for the first time (marks it met).
    fn first_placement(&mut self, inst: Inst) -> bool {
        match self.seen_inst.get_mut(inst.index()) {
            Some(seen) => !std::mem::replace(seen, true),
            None => false,
        }
    }
}

/// Prints an instruction for error context (a stand-in for the text printer, to be swapped
/// for it): `vec1 32 ssa_3 = iadd ssa_1, ssa_2`. Never panics on malformed instructions.
pub fn print_inst(func: &Function, inst: Inst) -> String {
    use super::InstKind as K;
    use std::fmt::Write;
    let Some(data) = func.insts.get(inst) else {
        return format!("{inst} (does not exist)");
    };
    let mut s = String::new();
    if let Some(v) = data.result.expand() {
        match func.values.get(v) {
            Some(vd) => _ = write!(s, "{} {v} = ", vd.ty),
            None => _ = write!(s, "{v} (does not exist) = "),
        }
    }
    s.push_str(data.kind.name());
    let imm = match &data.kind {
        K::LoadBuffer { buffer, .. } | K::StoreBuffer { buffer, .. } => Some(buffer.to_string()),
        K::StoreOutput { slot, .. } => Some(slot.to_string()),
        K::Tex { texture, .. } | K::Txf { texture, .. } | K::Txs { texture, .. } => {
            Some(texture.to_string())
        }
        K::DerefVar { var } => Some(var.to_string()),
        K::DerefStruct { field, .. } => Some(format!(".{field}")),
        K::DerefCast { ty, .. } => Some(format!("({ty})")),
        K::LoadReg { reg } | K::StoreReg { reg, .. } => Some(reg.to_string()),
        K::Mov { swizzle, .. } => Some(format!("swizzle {swizzle:?}")),
        K::Const { bits } => Some(format!("{bits:08x?}")),
        _ => None,
    };
    let mut sep = " ";
    if let Some(imm) = imm {
        s.push(' ');
        s.push_str(&imm);
        sep = ", ";
    }
    if let K::Phi { sources } = &data.kind {
        for src in sources {
            _ = write!(s, "{sep}{}: {}", src.pred, src.value);
            sep = ", ";
        }
    } else {
        data.kind.visit_args(|v| {
            _ = write!(s, "{sep}{v}");
            sep = ", ";
        });
    }
    s
}

/// Whether `e` names an entity `map` holds.
fn exists<K: EntityRef>(len: usize, e: K) -> bool {
    e.index() < len
}
