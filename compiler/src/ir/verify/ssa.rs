//! SSA rules: operands are defined by placed instructions that dominate their uses, and phis
//! have exactly one source per CFG predecessor, each available at the end of that edge.

use super::{Location, Rule, Verifier};
use crate::ir::{Block, Inst, InstData, InstKind, PhiSource, Type, Value};
use cranelift_entity::packed_option::ReservedValue;
use cranelift_entity::EntityRef;

/// The most value operands an instruction other than a phi has (`tex`: a coordinate and six
/// parameters).
const MAX_ARGS: usize = 7;

impl Verifier<'_> {
    /// The definition of `v` as (block, index) if `v` is defined by a placed instruction
    /// whose result it is; otherwise reports why not (at `loc`) and returns none.
    fn placed_def(&mut self, loc: Location, v: Value) -> Option<(Block, usize)> {
        let site = self.def_at.get(v.index()).copied().unwrap_or_default();
        match site.block.expand() {
            Some(block) => Some((block, site.index as usize)),
            None => {
                self.report_unplaced_def(loc, v);
                None
            }
        }
    }

    /// Reports (at `loc`) why the layout walk did not find `v`'s definition placed.
    #[cold]
    fn report_unplaced_def(&mut self, loc: Location, v: Value) {
        let func = self.func;
        let Some(vd) = func.values.get(v) else {
            self.report(
                loc,
                Rule::UnknownEntity,
                format!("operand {v} does not exist"),
            );
            return;
        };
        let Some(def) = vd.def.expand() else {
            self.report(loc, Rule::UndefinedValue, format!("{v} has no definition"));
            return;
        };
        let Some(def_data) = func.insts.get(def) else {
            let m = format!("{v} is defined by {def}, which does not exist");
            self.report(loc, Rule::UnknownEntity, m);
            return;
        };
        if def_data.result.expand() != Some(v) {
            let m = format!("{v} says it is defined by {def}, whose result it is not");
            self.report(loc, Rule::UndefinedValue, m);
            return;
        }
        // What is left: `def` is not placed (a placed one, being `v`'s definition with `v`
        // as its result, has its site recorded).
        let m = format!("{v} is defined by {def}, which is not placed in any block");
        self.report(loc, Rule::UndefinedValue, m);
    }

    /// Checks that every operand of `inst` (`data`, at `index` in `block`) is defined and,
    /// outside phis, dominated by its definition; checks phi sources against the predecessors.
    pub(super) fn check_operands(
        &mut self,
        block: Block,
        inst: Inst,
        data: &InstData,
        index: usize,
    ) {
        let kind = &data.kind;
        if let InstKind::Phi { sources } = kind {
            self.check_phi(block, inst, sources);
            return;
        }
        let loc = Location::Inst(inst);
        // Gathered first, so that the checks below run in one loop here rather than in a
        // closure called (not inlined) from every arm of the operand walk.
        let mut args = [Value::reserved_value(); MAX_ARGS];
        let mut n = 0;
        kind.visit_args(|v| {
            args[n] = v;
            n += 1;
        });
        // Decided once per instruction: dominance is checked only in a well-formed tree, and
        // uses in unreachable blocks are exempt.
        let check_dom = self.tree_ok && self.cfg.is_reachable(block);
        for &v in &args[..n] {
            let Some((def_block, def_index)) = self.placed_def(loc, v) else {
                continue;
            };
            if !check_dom {
                continue;
            }
            if !self
                .dom
                .def_dominates_use((def_block, def_index), (block, index))
            {
                let m = format!("{v} (defined in {def_block}) does not dominate this use");
                self.inst_err(inst, Rule::NotDominated, m);
            }
        }
    }

    fn check_phi(&mut self, block: Block, inst: Inst, sources: &[PhiSource]) {
        let func = self.func;
        for (k, s) in sources.iter().enumerate() {
            let def = self.placed_def(Location::Inst(inst), s.value);
            if !self.tree_ok {
                continue;
            }
            if sources[..k].iter().any(|t| t.pred == s.pred) {
                let m = format!("more than one source from {}", s.pred);
                self.inst_err(inst, Rule::PhiDuplicateSource, m);
                continue;
            }
            if !self.cfg.preds(block).contains(&s.pred) {
                let what = if s.pred.index() < func.blocks.len() {
                    "is not a predecessor of"
                } else {
                    "does not exist, so is not a predecessor of"
                };
                let m = format!("source from {}, which {what} {block}", s.pred);
                self.inst_err(inst, Rule::PhiExtraSource, m);
                continue;
            }
            if let Some((def_block, _)) = def {
                if self.cfg.is_reachable(s.pred) && !self.dom.dominates(def_block, s.pred) {
                    let m = format!(
                        "source {} (defined in {def_block}) is not available at the end of {}",
                        s.value, s.pred
                    );
                    self.inst_err(inst, Rule::NotDominated, m);
                }
            }
        }
        if !self.tree_ok {
            return;
        }
        for k in 0..self.cfg.preds(block).len() {
            let pred = self.cfg.preds(block)[k];
            if !sources.iter().any(|s| s.pred == pred) {
                let m = format!("no source for predecessor {pred} of {block}");
                self.inst_err(inst, Rule::PhiMissingSource, m);
            }
        }
    }

    /// Checks `if` conditions: defined, `vec1 1`, and available at the end of the block
    /// before the `if`.
    pub(super) fn check_if_conds(&mut self) {
        for k in 0..self.if_conds.len() {
            let (prev, cond) = self.if_conds[k];
            let loc = Location::Value(cond);
            if let Some(vd) = self.func.values.get(cond).filter(|vd| vd.ty != Type::B1) {
                let m = format!("if condition {cond} is {}, not vec1 1", vd.ty);
                self.report(loc, Rule::IfCondition, m);
            }
            let Some((def_block, _)) = self.placed_def(loc, cond) else {
                continue;
            };
            if let Some(prev) = prev {
                if self.tree_ok
                    && self.cfg.is_reachable(prev)
                    && !self.dom.dominates(def_block, prev)
                {
                    let m = format!(
                        "if condition {cond} (defined in {def_block}) is not available at the end of {prev}"
                    );
                    self.report(loc, Rule::NotDominated, m);
                }
            }
        }
    }
}
