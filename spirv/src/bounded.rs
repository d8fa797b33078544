//! Comparing the inexact float ops within the Vulkan spec's bounds ([`crate::ulp`]), not
//! skipping them.
//!
//! An output slot is *bounded* when the only store that writes it stores (directly, or
//! through `mov` swizzles and `vec` construction) the result of one op of
//! [`ulp::BOUNDED_OPS`] whose operands are exact (nothing inexact feeds them), not under
//! an inexact condition, and not touching a denormal in the interpreter's run on a device
//! that may flush them. Its word is then compared within the op's bound around the exact
//! result of the operands the interpreter computed. A word computed *from* an inexact word
//! (a chain of ops) has no bound stated here and stays uncompared, as does anything in a
//! buffer (buffers are judged whole).
//!
//! The operands come from a probe: the program with, after each such store, stores of its
//! operands and of a "stored" flag into extra output slots (past every slot the program
//! names, so its own wrapping stores cannot reach them), run once by the interpreter; only
//! those extra slots of the probe's results are read. A
//! slot whose store never ran (flag 0) keeps its initial word and is compared exactly.

use crate::inexact::{analysed, InexactWords};
use crate::ulp::{self, Judged};
use crate::EmitOptions;
use compiler::interp::{self, RunOptions};
use compiler::ir::{InstKind, Program, Type};
use sim::dispatch::{Difference, Dispatch, Place, Results};
use std::collections::{HashMap, HashSet};

/// How far past the dispatch's output slots a program's stores may name slots for the probe
/// to be built (its results grow with it).
const MAX_SLOT_REACH: u32 = 1024;

/// How an output slot is compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SlotRule {
    /// Bit for bit.
    Exact,
    /// Within the bound of `op` (probe slots of its operands and of the "stored" flag).
    Bounded {
        /// The op whose result the slot holds.
        op: compiler::ir::AluOp,
        /// The probe's slots holding this component's operands.
        operands: [u32; 3],
        /// The probe's slot that is 1 once the store ran.
        stored: u32,
    },
    /// Not compared, and why.
    Skipped(&'static str),
}

/// The comparison plan of a program on a device: every output slot's rule, buffers exact or
/// skipped whole.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// The words not compared bit for bit (as [`crate::inexact_words_for`] gives them).
    pub inexact: InexactWords,
    /// Per output slot.
    pub slots: Vec<SlotRule>,
    /// The probe program's results (operands of the bounded slots), when any slot is bounded.
    probe: Option<(u32, Results)>,
}

/// The comparison plan of `program` emitted with `options`.
pub fn comparison(program: &Program, options: &EmitOptions) -> Comparison {
    let (floats_exact, extra) = if !options.preserve_nan_inf || options.preserve_denormals {
        (options.floats_exact(), HashSet::new())
    } else {
        match crate::denormals::denormal_insts(program) {
            Some(touching) => (true, touching),
            None => (false, HashSet::new()),
        }
    };
    let (inexact, stores, masks) = analysed(program, floats_exact, &extra);
    let n = program.dispatch.outputs;
    let func = &program.func;
    let mut slots: Vec<SlotRule> = inexact
        .outputs
        .iter()
        .map(|&x| {
            if x {
                SlotRule::Skipped("derives from an inexact op through other ops, memory or control")
            } else {
                SlotRule::Exact
            }
        })
        .collect();
    let comps = |v| u32::from(func.ty(v).comps().max(1));
    if !floats_exact || n == 0 || inexact.is_all() {
        return Comparison {
            inexact,
            slots,
            probe: None,
        };
    }
    // Which stores (and which of their components) write each slot; slots wrap at `n`.
    let mut writers: HashMap<u32, Vec<(usize, u32)>> = HashMap::new();
    for (i, s) in stores.iter().enumerate() {
        for c in 0..comps(s.value) {
            writers.entry((s.slot + c) % n).or_default().push((i, c));
        }
    }
    // The probe's slots start past every slot a store names, so that no original store
    // (which in the probe's wider dispatch no longer wraps) lands on them.
    let mut probe = program.clone();
    let mut next = stores
        .iter()
        .map(|s| s.slot.saturating_add(comps(s.value)))
        .fold(n, u32::max);
    let first_probe_slot = next;
    // A store naming a slot far past the dispatch (it wraps) would make the probe's results
    // that large: such a program is compared as before, without bounds.
    if next > n.saturating_add(MAX_SLOT_REACH) {
        return Comparison {
            inexact,
            slots,
            probe: None,
        };
    }
    let mut planted: HashMap<(usize, compiler::ir::Inst), ([u32; 3], u32)> = HashMap::new();
    for j in 0..n {
        if slots[j as usize] == SlotRule::Exact {
            continue;
        }
        let Some(&[(site, c)]) = writers.get(&j).map(Vec::as_slice) else {
            slots[j as usize] = SlotRule::Skipped("written by more than one store");
            continue;
        };
        let s = stores[site];
        let Some((def, component)) = traced(func, s.value, c) else {
            continue;
        };
        let InstKind::Alu { op, args } = func.insts[def].kind else {
            continue;
        };
        let arity = op.arity();
        let width = u32::from(
            func.ty(func.result(def).expect("an ALU op has a result"))
                .comps(),
        );
        let exact_operands = args[..arity]
            .iter()
            .all(|&a| masks.get(&a).copied().unwrap_or(0) == 0 && comps(a) == width);
        if s.ctl || extra.contains(&def) || !exact_operands {
            continue;
        }
        let (bases, stored) = *planted.entry((site, def)).or_insert_with(|| {
            let mut bases = [0; 3];
            for b in bases.iter_mut().take(arity) {
                *b = next;
                next += width;
            }
            let stored = next;
            next += 1;
            plant_probe(&mut probe, s.inst, &args[..arity], bases, stored);
            (bases, stored)
        });
        slots[j as usize] = SlotRule::Bounded {
            op,
            operands: bases.map(|b| b + component),
            stored,
        };
    }
    probe.dispatch.outputs = next;
    let probe = (next > first_probe_slot)
        .then(|| interp::run(&probe, &RunOptions::default()).ok())
        .flatten()
        .map(|r| (next, r));
    if probe.is_none() {
        for s in &mut slots {
            if matches!(s, SlotRule::Bounded { .. }) {
                *s = SlotRule::Skipped("the probe run for its operands failed");
            }
        }
    }
    Comparison {
        inexact,
        slots,
        probe,
    }
}

/// The op of [`ulp::BOUNDED_OPS`] and its result component that component `c` of `v` is a copy
/// of (through `mov` swizzles and `vec` construction), if it is one.
fn traced(
    func: &compiler::ir::Function,
    mut v: compiler::ir::Value,
    mut c: u32,
) -> Option<(compiler::ir::Inst, u32)> {
    for _ in 0..64 {
        let def = func.def(v)?;
        match &func.insts[def].kind {
            InstKind::Alu { op, .. } => return ulp::BOUNDED_OPS.contains(op).then_some((def, c)),
            InstKind::Mov { src, swizzle } => {
                v = *src;
                c = u32::from(*swizzle.get(c as usize)?);
            }
            InstKind::Vec { args } => {
                v = *args.get(c as usize)?;
                c = 0;
            }
            _ => return None,
        }
    }
    None
}

/// Inserts after `store` stores of `operands` to the slots from `bases` and of a constant 1 to
/// `stored`.
fn plant_probe(
    p: &mut Program,
    store: compiler::ir::Inst,
    operands: &[compiler::ir::Value],
    bases: [u32; 3],
    stored: u32,
) {
    let func = &mut p.func;
    let mut added = Vec::new();
    for (&v, &slot) in operands.iter().zip(&bases) {
        let (i, _) = func.make_inst(InstKind::StoreOutput { slot, value: v }, Type::None);
        added.push(i);
    }
    let (one_inst, one) = func.make_inst(InstKind::Const { bits: [1, 0, 0, 0] }, Type::I32);
    added.push(one_inst);
    let value = one.expect("a constant has a result");
    let (i, _) = func.make_inst(
        InstKind::StoreOutput {
            slot: stored,
            value,
        },
        Type::None,
    );
    added.push(i);
    let block = func
        .blocks
        .values_mut()
        .find(|b| b.insts.contains(&store))
        .expect("a store the analysis walked is placed");
    let at = block.insts.iter().position(|&i| i == store).expect("found") + 1;
    block.insts.splice(at..at, added);
}

impl Comparison {
    /// The first word where `actual` is wrong: an exact word that differs, or a bounded one
    /// outside its op's bound (with the bound's text, starting with the op's name).
    pub fn first_difference(
        &self,
        expected: &Results,
        actual: &Results,
        dispatch: &Dispatch,
    ) -> Option<(Difference, Option<String>)> {
        if let Some(d) = crate::compare(expected, actual, dispatch, &self.inexact) {
            return Some((d, None));
        }
        let (width, probe) = self.probe.as_ref()?;
        let n = dispatch.outputs as usize;
        for i in 0..dispatch.invocations as usize {
            for (j, rule) in self.slots.iter().enumerate() {
                let SlotRule::Bounded {
                    op,
                    operands,
                    stored,
                } = rule
                else {
                    continue;
                };
                let (e, a) = (expected.outputs[i * n + j], actual.outputs[i * n + j]);
                let at = |s: u32| probe.outputs[i * *width as usize + s as usize];
                let why = if at(*stored) == 0 {
                    (e != a).then(|| format!("{} slot whose store did not run", op.name()))
                } else {
                    match ulp::check(*op, operands.map(at), a) {
                        Judged::Outside(why) => Some(why),
                        Judged::Within | Judged::NotCompared(_) => None,
                    }
                };
                if let Some(why) = why {
                    let d = Difference {
                        place: Place::Output,
                        invocation: i as u32,
                        index: j as u32,
                        expected: e,
                        actual: a,
                    };
                    return Some((d, Some(why)));
                }
            }
        }
        None
    }

    /// Output words compared bit for bit, within a bound, and not at all.
    pub fn counts(&self, dispatch: &Dispatch) -> (u64, u64, u64) {
        let inv = u64::from(dispatch.invocations);
        let mut c = (0, 0, 0);
        for s in &self.slots {
            match s {
                SlotRule::Exact => c.0 += inv,
                SlotRule::Bounded { .. } => c.1 += inv,
                SlotRule::Skipped(_) => c.2 += inv,
            }
        }
        c
    }

    /// One line per reason output slots are not compared, with their slots.
    pub fn skipped(&self) -> Vec<String> {
        let mut by: Vec<(&str, Vec<usize>)> = Vec::new();
        for (j, s) in self.slots.iter().enumerate() {
            if let SlotRule::Skipped(why) = s {
                match by.iter_mut().find(|(w, _)| w == why) {
                    Some((_, v)) => v.push(j),
                    None => by.push((why, vec![j])),
                }
            }
        }
        by.into_iter()
            .map(|(why, v)| format!("output slots {v:?}: {why}"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use compiler::ir::text::parse_program;

    const PROGRAM: &str = "invocations 2\noutputs 3\nuniforms 0x40800000 0x3f800000\n\n\
        block_0:\n  vec1 32 ssa_0 = load_invocation_id\n  vec1 32 ssa_1 = load_uniform ssa_0\n  \
        vec1 32 ssa_2 = frsq ssa_1\n  store_output 0, ssa_2\n  \
        vec1 32 ssa_3 = fadd ssa_2, ssa_2\n  store_output 1, ssa_3\n  \
        vec1 32 ssa_4 = fadd ssa_1, ssa_1\n  store_output 2, ssa_4\n";

    fn plan() -> (Program, Comparison, Results) {
        let p = parse_program(PROGRAM, "t.ir").unwrap();
        let c = comparison(&p, &EmitOptions::default());
        let r = interp::run(&p, &RunOptions::default()).unwrap();
        (p, c, r)
    }

    #[test]
    fn a_word_one_inexact_op_makes_is_bounded_and_a_chain_is_skipped() {
        let (p, c, _) = plan();
        assert!(matches!(
            c.slots[0],
            SlotRule::Bounded {
                op: compiler::ir::AluOp::Frsq,
                ..
            }
        ));
        assert!(matches!(c.slots[1], SlotRule::Skipped(_)));
        assert_eq!(c.slots[2], SlotRule::Exact);
        assert_eq!(c.counts(&p.dispatch), (2, 2, 2));
    }

    #[test]
    fn a_bounded_word_passes_within_its_bound_and_fails_outside() {
        let (p, c, expected) = plan();
        // Invocation 0: rsq(4) = 0.5; invocation 1: rsq(1) = 1.
        assert_eq!(expected.outputs[0], 0.5f32.to_bits());
        let mut actual = expected.clone();
        actual.outputs[0] += 2;
        assert_eq!(c.first_difference(&expected, &actual, &p.dispatch), None);
        actual.outputs[0] += 1;
        let (d, why) = c.first_difference(&expected, &actual, &p.dispatch).unwrap();
        assert_eq!((d.invocation, d.index), (0, 0));
        assert!(why.unwrap().contains("frsq"));
        // The skipped chain never counts; the exact word always does.
        let mut actual = expected.clone();
        actual.outputs[1] ^= 1;
        assert_eq!(c.first_difference(&expected, &actual, &p.dispatch), None);
        actual.outputs[5] ^= 1;
        let (d, why) = c.first_difference(&expected, &actual, &p.dispatch).unwrap();
        assert_eq!((d.invocation, d.index, why), (1, 2, None));
    }
}
