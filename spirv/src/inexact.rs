//! Which result words a Vulkan driver must reproduce bit for bit, and the comparison that
//! checks exactly those.
//!
//! The Vulkan spec makes `OpFAdd`/`OpFSub`/`OpFMul`, conversions, compares, `Floor`/`Ceil`/
//! `Trunc`/`RoundEven`/`Fract` and everything on integers and booleans exact. It gives only
//! ULP or absolute error bounds for `Sqrt`, `InverseSqrt`, `OpFDiv` (our `frcp`), `Exp2`,
//! `Log2`, `Sin`, `Cos`, and lets `Fma` be fused or not (see `docs/semantics.md`). A word
//! whose value derives from such an op — through data flow, through memory (a local
//! variable, register or buffer once written with such a value), or through control flow
//! (written under an `if` whose condition derives from one) — is *inexact* and left out of
//! the comparison; an inexact `break`/`continue` condition makes every word inexact.
//! Without the float controls (`floats_exact` false) every float op counts as inexact;
//! [`inexact_words_for`] refines that for a device that preserves NaNs but may flush
//! denormals: only the float operations that touch a denormal in the interpreter's run
//! ([`crate::denormals`]) count.
//!
//! The analysis is flow-insensitive and iterates to a fixpoint, so it errs on the inexact
//! side: a skipped word is never a missed miscompile of an exact one.

use crate::EmitOptions;
use compiler::ir::{AluOp, Block, CfNode, Function, Inst, InstKind, Program, Value, Var};
use cranelift_entity::packed_option::ReservedValue;
use sim::dispatch::{Difference, Dispatch, Place, Results};
use std::collections::{HashMap, HashSet};

/// Ops whose result the Vulkan spec does not make exact.
pub const INEXACT_OPS: &[AluOp] = &[
    AluOp::Ffma,
    AluOp::Fsqrt,
    AluOp::Frcp,
    AluOp::Frsq,
    AluOp::Fexp2,
    AluOp::Flog2,
    AluOp::Fsin,
    AluOp::Fcos,
];

/// The words left out of the comparison.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InexactWords {
    /// Per output slot (the same for every invocation).
    pub outputs: Vec<bool>,
    /// Per buffer: the whole of every invocation's part.
    pub buffers: Vec<bool>,
}

impl InexactWords {
    /// Whether every word is compared.
    pub fn is_none(&self) -> bool {
        !self.outputs.iter().chain(&self.buffers).any(|&x| x)
    }

    /// Whether no word is compared.
    pub fn is_all(&self) -> bool {
        self.outputs.iter().chain(&self.buffers).all(|&x| x)
    }
}

/// The inexact words of `program`. `floats_exact`: whether the device preserves NaNs,
/// infinities, signed zeros and denormals (see [`crate::EmitOptions::floats_exact`]).
pub fn inexact_words(program: &Program, floats_exact: bool) -> InexactWords {
    analyse(program, floats_exact, &HashSet::new())
}

/// The inexact words of `program` emitted with `options` (the device's float controls):
/// with `preserve_nan_inf` and without `preserve_denormals`, float ops count as inexact only
/// where they touch a denormal in the interpreter's run (one extra interpreter run).
pub fn inexact_words_for(program: &Program, options: &EmitOptions) -> InexactWords {
    if !options.preserve_nan_inf || options.preserve_denormals {
        return inexact_words(program, options.floats_exact());
    }
    match crate::denormals::denormal_insts(program) {
        Some(touching) => analyse(program, true, &touching),
        None => inexact_words(program, false),
    }
}

fn analyse(program: &Program, floats_exact: bool, extra: &HashSet<Inst>) -> InexactWords {
    analysed(program, floats_exact, extra).0
}

/// One `store_output` as the analysis saw it at its fixpoint.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StoreSite {
    pub inst: Inst,
    pub slot: u32,
    pub value: Value,
    /// Under an `if` whose condition is inexact.
    pub ctl: bool,
}

/// The inexact words, the output stores, and per value the mask of inexact components (the
/// state [`crate::bounded`] needs to find words a single inexact op feeds).
pub(crate) fn analysed(
    program: &Program,
    floats_exact: bool,
    extra: &HashSet<Inst>,
) -> (InexactWords, Vec<StoreSite>, HashMap<Value, u8>) {
    let d = &program.dispatch;
    let mut t = Taint {
        func: &program.func,
        floats_exact,
        extra,
        values: HashMap::new(),
        vars: HashSet::new(),
        regs: HashSet::new(),
        buffers: vec![false; d.buffers.len()],
        shared: vec![false; d.shared.len()],
        outputs: vec![false; d.outputs as usize],
        all: false,
        changed: true,
        stores: None,
    };
    while t.changed && !t.all {
        t.changed = false;
        t.walk(&program.func.body, false);
    }
    // One more walk at the fixpoint, noting every output store.
    t.stores = Some(Vec::new());
    t.walk(&program.func.body, false);
    let stores = t.stores.take().unwrap_or_default();
    if t.all {
        t.outputs
            .iter_mut()
            .chain(&mut t.buffers)
            .for_each(|x| *x = true);
    }
    let words = InexactWords {
        outputs: t.outputs,
        buffers: t.buffers,
    };
    (words, stores, t.values)
}

struct Taint<'a> {
    func: &'a Function,
    floats_exact: bool,
    /// Instructions inexact on this device for this program (they touch denormals).
    extra: &'a HashSet<Inst>,
    /// Per value, a bit per inexact component (bit 0 for a deref).
    values: HashMap<Value, u8>,
    vars: HashSet<Var>,
    regs: HashSet<compiler::ir::Reg>,
    buffers: Vec<bool>,
    /// Per shared array: written with an inexact value (by any invocation of a workgroup).
    shared: Vec<bool>,
    outputs: Vec<bool>,
    all: bool,
    changed: bool,
    /// Collects the output stores when set (the last walk).
    stores: Option<Vec<StoreSite>>,
}

/// Marks memory `n` of `memory` inexact when `inexact`; whether that changed it.
fn taint(memory: &mut [bool], n: u32, inexact: bool) -> bool {
    match memory.get_mut(n as usize) {
        Some(m) if inexact && !*m => {
            *m = true;
            true
        }
        _ => false,
    }
}

impl Taint<'_> {
    fn walk(&mut self, list: &[CfNode], ctl: bool) {
        for (i, node) in list.iter().enumerate() {
            match node {
                CfNode::Block(b) => self.block(*b, ctl),
                CfNode::If(n) => {
                    let inner = ctl || self.mask(n.cond) & 1 != 0;
                    self.walk(&n.then_list, inner);
                    self.walk(&n.else_list, inner);
                    if inner {
                        if let Some(CfNode::Block(merge)) = list.get(i + 1) {
                            self.taint_phis(*merge);
                        }
                    }
                }
                CfNode::Loop(n) => self.walk(&n.body, ctl),
            }
        }
    }

    fn taint_phis(&mut self, block: Block) {
        let func = self.func;
        for &inst in &func.blocks[block].insts {
            if let (InstKind::Phi { .. }, Some(v)) = (&func.insts[inst].kind, func.result(inst)) {
                self.mark(v, u8::MAX);
            }
        }
    }

    fn mask(&self, v: Value) -> u8 {
        self.values.get(&v).copied().unwrap_or(0)
    }

    /// Every component of `v` (bit 0 for a deref).
    fn full(&self, v: Value) -> u8 {
        match self.func.ty(v).comps() {
            0 => 1,
            n => (1u8 << n) - 1,
        }
    }

    fn mark(&mut self, v: Value, mask: u8) {
        let mask = mask & self.full(v);
        let old = self.mask(v);
        if old | mask != old {
            self.values.insert(v, old | mask);
            self.changed = true;
        }
    }

    fn any_arg(&self, kind: &InstKind) -> bool {
        let mut any = false;
        kind.visit_args(|a| any |= self.mask(a) != 0);
        any
    }

    /// The inexact components of an instruction's result.
    fn result_mask(&mut self, inst: Inst, kind: &InstKind, ctl: bool) -> u8 {
        let func = self.func;
        let args = self.any_arg(kind);
        let all = |x: bool| if x { u8::MAX } else { 0 };
        match kind {
            InstKind::Alu { op, args: a } => {
                if self.op_is_inexact(*op) || self.extra.contains(&inst) {
                    return u8::MAX;
                }
                a[..op.arity()].iter().fold(0, |m, &x| m | self.mask(x))
            }
            InstKind::Vec { args: a } => a
                .iter()
                .take_while(|&&x| x != Value::reserved_value())
                .enumerate()
                .fold(0, |m, (c, &x)| m | ((self.mask(x) & 1) << c)),
            InstKind::Mov { src, swizzle } => {
                let m = self.mask(*src);
                (0..4).fold(0, |acc, c| acc | (((m >> swizzle[c]) & 1) << c))
            }
            InstKind::Phi { sources } => sources.iter().fold(0, |m, s| m | self.mask(s.value)),
            InstKind::Tex { .. } => all(args || !self.floats_exact || self.extra.contains(&inst)),
            InstKind::LoadDeref { deref } => {
                all(args || root_var(func, *deref).is_none_or(|v| self.vars.contains(&v)))
            }
            InstKind::LoadReg { reg } => all(self.regs.contains(reg)),
            InstKind::LoadBuffer { buffer, .. } => {
                all(args || self.buffers.get(*buffer as usize).copied().unwrap_or(true))
            }
            InstKind::StoreBuffer { buffer, .. } => {
                self.changed |= taint(&mut self.buffers, *buffer, args || ctl);
                0
            }
            InstKind::AtomicBuffer { buffer, .. } => {
                self.changed |= taint(&mut self.buffers, *buffer, args || ctl);
                all(args || self.buffers.get(*buffer as usize).copied().unwrap_or(true))
            }
            InstKind::LoadShared { shared, .. } => {
                all(args || self.shared.get(*shared as usize).copied().unwrap_or(true))
            }
            InstKind::StoreShared { shared, .. } => {
                self.changed |= taint(&mut self.shared, *shared, args || ctl);
                0
            }
            InstKind::AtomicShared { shared, .. } => {
                self.changed |= taint(&mut self.shared, *shared, args || ctl);
                all(args || self.shared.get(*shared as usize).copied().unwrap_or(true))
            }
            InstKind::StoreOutput { slot, value } => {
                if let Some(stores) = &mut self.stores {
                    stores.push(StoreSite {
                        inst,
                        slot: *slot,
                        value: *value,
                        ctl,
                    });
                }
                let n = self.outputs.len() as u32;
                let m = if ctl { u8::MAX } else { self.mask(*value) };
                for c in 0..u32::from(func.ty(*value).comps()) {
                    if n > 0 && m >> c & 1 != 0 {
                        let s = (slot.wrapping_add(c) % n) as usize;
                        self.changed |= !self.outputs[s];
                        self.outputs[s] = true;
                    }
                }
                0
            }
            InstKind::StoreDeref { deref, .. } => {
                if args || ctl {
                    match root_var(func, *deref) {
                        Some(v) => self.changed |= self.vars.insert(v),
                        None => self.all = true,
                    }
                }
                0
            }
            InstKind::StoreReg { reg, .. } => {
                if args || ctl {
                    self.changed |= self.regs.insert(*reg);
                }
                0
            }
            InstKind::Break | InstKind::Continue => {
                self.all |= ctl;
                0
            }
            // Other invocations' operands, and under an inexact branch which invocations
            // take part.
            InstKind::Subgroup { .. } => all(args || ctl),
            _ => all(args),
        }
    }

    fn block(&mut self, block: Block, ctl: bool) {
        let func = self.func;
        for &inst in &func.blocks[block].insts {
            let mask = self.result_mask(inst, &func.insts[inst].kind, ctl);
            if let (true, Some(v)) = (mask != 0, func.result(inst)) {
                self.mark(v, mask);
            }
        }
    }

    fn op_is_inexact(&self, op: AluOp) -> bool {
        use compiler::ir::alu::Kind;
        INEXACT_OPS.contains(&op)
            || (!self.floats_exact && (op.dst() == Kind::Float || op.srcs().contains(&Kind::Float)))
    }
}

/// The variable a deref chain starts at.
fn root_var(func: &Function, mut d: Value) -> Option<Var> {
    for _ in 0..256 {
        match func.def_kind(d)? {
            InstKind::DerefVar { var } => return Some(*var),
            InstKind::DerefArray { parent, .. }
            | InstKind::DerefStruct { parent, .. }
            | InstKind::DerefCast { parent, .. } => d = *parent,
            _ => return None,
        }
    }
    None
}

/// The first exact word where `actual` differs from `expected` (the interpreter's results):
/// [`Results::first_difference`] skipping the words in `inexact`.
pub fn compare(
    expected: &Results,
    actual: &Results,
    dispatch: &Dispatch,
    inexact: &InexactWords,
) -> Option<Difference> {
    expected.first_difference_in(actual, dispatch, |place, index| {
        let skipped = match place {
            Place::Output => inexact.outputs.get(index as usize),
            Place::Buffer(b) => inexact.buffers.get(b as usize),
        };
        !skipped.copied().unwrap_or(false)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use compiler::ir::text::parse_program;

    const HEADER: &str =
        "invocations 2\noutputs 4\nuniforms 0x3f800000\nbuffer 2\nbuffer 2\n\nblock_0:\n  \
        vec1 32 ssa_0 = load_const (0x00000000)\n  \
        vec1 32 ssa_1 = load_uniform ssa_0\n  \
        vec1 32 ssa_2 = fsin ssa_1\n  \
        vec1 32 ssa_3 = fadd ssa_1, ssa_1\n";

    fn words(body: &str) -> InexactWords {
        let p = parse_program(&format!("{HEADER}{body}"), "test").unwrap();
        inexact_words(&p, true)
    }

    #[test]
    fn data_flow_from_an_inexact_op_is_inexact_and_the_rest_exact() {
        let w = words(
            "  vec1 32 ssa_4 = fadd ssa_2, ssa_3\n  store_output 0, ssa_4\n  \
             store_output 1, ssa_3\n  vec2 32 ssa_5 = vec2 ssa_3, ssa_2\n  \
             store_output 2, ssa_5\n",
        );
        // Per component: only the vec2's second slot.
        assert_eq!(w.outputs, [true, false, false, true]);
        assert_eq!(w.buffers, [false, false]);
        let w = words(
            "  vec2 32 ssa_4 = vec2 ssa_3, ssa_2\n  vec2 32 ssa_5 = mov ssa_4.yx\n  \
             store_output 0, ssa_5\n  vec2 32 ssa_6 = iadd ssa_5, ssa_5\n  \
             store_output 2, ssa_6\n",
        );
        assert_eq!(w.outputs, [true, false, true, false]);
    }

    /// Shared arrays and atomics carry it too: a word another invocation wrote with an inexact
    /// value, or an atomic's old word of a buffer once written with one.
    #[test]
    fn shared_arrays_and_atomics_carry_inexactness() {
        let src = "invocations 2\noutputs 3\nworkgroup 2\nbuffer 1\nshared 2\nshared 2\n\n\
                   block_0:\n  vec1 32 ssa_0 = load_const (0x3f800000)\n  \
                   vec1 32 ssa_1 = fsqrt ssa_0\n  vec1 32 ssa_2 = load_local_id\n  \
                   store_shared 0, ssa_2, ssa_1\n  barrier\n  \
                   vec1 32 ssa_3 = load_shared 0, ssa_2\n  store_output 0, ssa_3\n  \
                   vec1 32 ssa_4 = atomic_shared add 1, ssa_2, ssa_2\n  store_output 1, ssa_4\n  \
                   vec1 32 ssa_5 = atomic_buffer xchg 0, ssa_2, ssa_1\n  \
                   vec1 32 ssa_6 = atomic_buffer add 0, ssa_2, ssa_2\n  store_output 2, ssa_6\n";
        let p = parse_program(src, "test").unwrap();
        let w = inexact_words(&p, true);
        assert_eq!(w.outputs, [true, false, true]);
        assert_eq!(w.buffers, [true]);
    }

    #[test]
    fn memory_carries_inexactness_to_later_loads() {
        let w = words(
            "  store_buffer 0, ssa_0, ssa_2\n  vec1 32 ssa_4 = load_buffer 0, ssa_0\n  \
             store_output 0, ssa_4\n  store_buffer 1, ssa_0, ssa_3\n",
        );
        assert_eq!(w.outputs, [true, false, false, false]);
        assert_eq!(w.buffers, [true, false]);
    }

    #[test]
    fn an_inexact_condition_makes_what_it_decides_inexact() {
        let w = words(
            "  vec1 1 ssa_4 = flt ssa_2, ssa_3\nif ssa_4 {\n  block_1:\n    \
             store_output 0, ssa_3\n} else {\n  block_2:\n}\nblock_3:\n  \
             vec1 32 ssa_5 = phi block_1: ssa_0, block_2: ssa_3\n  \
             store_output 1, ssa_5\n  store_output 2, ssa_3\n",
        );
        assert_eq!(w.outputs, [true, true, false, false]);
    }

    #[test]
    fn an_inexact_break_makes_everything_inexact() {
        let w = words(
            "  vec1 1 ssa_4 = flt ssa_2, ssa_3\nloop {\n  block_1:\n  if ssa_4 {\n    \
             block_2:\n      break\n  } else {\n    block_3:\n  }\n  block_4:\n}\nblock_5:\n  \
             store_output 0, ssa_3\n",
        );
        assert!(w.is_all());
    }

    #[test]
    fn without_float_controls_every_float_result_is_inexact() {
        let p = parse_program(
            &format!("{HEADER}  store_output 1, ssa_3\n  store_output 2, ssa_0\n"),
            "t",
        )
        .unwrap();
        assert_eq!(
            inexact_words(&p, false).outputs,
            [false, true, false, false]
        );
        assert_eq!(inexact_words(&p, true).outputs, [false; 4]);
    }

    #[test]
    fn the_comparison_skips_exactly_the_inexact_words() {
        let d = Dispatch {
            invocations: 2,
            outputs: 2,
            buffers: vec![1],
            ..Dispatch::default()
        };
        let expected = Results {
            outputs: vec![1, 2, 3, 4],
            buffers: vec![vec![5, 6]],
        };
        let mut actual = expected.clone();
        actual.outputs[2] = 9; // invocation 1, slot 0
        actual.buffers[0][1] = 9;
        let skip_slot_0 = InexactWords {
            outputs: vec![true, false],
            buffers: vec![false],
        };
        let d0 = compare(&expected, &actual, &d, &skip_slot_0).unwrap();
        assert_eq!(
            (d0.place, d0.invocation, d0.index),
            (Place::Buffer(0), 1, 0)
        );
        let skip_all = InexactWords {
            outputs: vec![true, true],
            buffers: vec![true],
        };
        assert_eq!(compare(&expected, &actual, &d, &skip_all), None);
        let none = InexactWords {
            outputs: vec![false; 2],
            buffers: vec![false],
        };
        let d1 = compare(&expected, &actual, &d, &none).unwrap();
        assert_eq!(
            (d1.place, d1.invocation, d1.index, d1.actual),
            (Place::Output, 1, 0, 9)
        );
    }
}
