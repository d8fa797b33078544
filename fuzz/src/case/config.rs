//! The case — a program and how to compile it — and its configuration: every knob of how a
//! case compiles, one field each, with the real driver's choice as its default; a target's own knobs are its section
//! ([`super::section`]). How a knob is drawn is [`super::draw`]'s; how it is named on the command
//! line and in a `; case:` header is [`super::knobs`]'.

use super::sections::Sections;
use compiler::heuristics::{A6xxHeuristics, ColourOrder, GenHeuristics, Pick, SpillChoice, Victim};
use compiler::ir::Program;

/// Per-input choices of how to compile, decoded from the input's first bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseConfig {
    /// Optional middle-end passes switched off (bit `i` = pass `i` of the pipeline table).
    pub disabled_passes: u32,
    /// Gen: generation 9 (sampler `ld` order u, v, lod) rather than 7 (u, lod, v).
    pub gen9: bool,
    /// Gen: GRFs for allocation at SIMD8 (125 is the whole file; doubled for SIMD16 when
    /// starved).
    pub gen_grfs: u32,
    /// Gen: trim trailing zero sampler parameters (`opt_zero_samples`).
    pub gen_zero_samples: bool,
    /// a6xx: waves of 128 fibers instead of 64.
    pub a6xx_wave128: bool,
    /// a6xx: predicate registers (4, or 1 as before a6xx).
    pub a6xx_predicates: u8,
    /// a6xx: scalar GPR budget (192 is the whole file; small budgets force spills).
    pub a6xx_registers: u32,
    /// a6xx: fold predicates into branches (`opt_predicates`).
    pub a6xx_opt_predicates: bool,
    /// Gen RA: spill cost factor per loop level.
    pub gen_spill_loop_weight: u32,
    /// Gen RA: spill cost per GRF read.
    pub gen_spill_use_weight: u32,
    /// Gen RA: spill cost per GRF written.
    pub gen_spill_def_weight: u32,
    /// Gen RA: which register to spill (`ratio`, `cheapest`, `longest`).
    pub gen_spill_choice: SpillChoice,
    /// Gen RA: which free base a node gets (`lowest`, `highest`, `rotating`).
    pub gen_pick: Pick,
    /// Gen RA: simplify's sweep order (`ascending`, `descending`).
    pub gen_colour_order: ColourOrder,
    /// a6xx predicate RA: which predicate register a predicate gets.
    pub a6xx_pred_pick: Pick,
    /// a6xx GPR RA: which free register an interval gets.
    pub a6xx_gpr_pick: Pick,
    /// a6xx GPR RA: which interval to spill (`furthest`, `newest`).
    pub a6xx_spill_victim: Victim,
    /// Every target's own knobs, one section each (`crate::targets::sections`), drawn and
    /// named by the target.
    pub sections: Sections,
}

impl Default for CaseConfig {
    /// The configuration real drivers use: every pass on, whole register files.
    fn default() -> Self {
        let (g, a) = (GenHeuristics::default(), A6xxHeuristics::default());
        CaseConfig {
            disabled_passes: 0,
            gen9: true,
            gen_grfs: 125,
            gen_zero_samples: true,
            a6xx_wave128: false,
            a6xx_predicates: 4,
            a6xx_registers: 192,
            a6xx_opt_predicates: true,
            gen_spill_loop_weight: g.loop_weight,
            gen_spill_use_weight: g.use_weight,
            gen_spill_def_weight: g.def_weight,
            gen_spill_choice: g.spill,
            gen_pick: g.pick,
            gen_colour_order: g.order,
            a6xx_pred_pick: a.pred_pick,
            a6xx_gpr_pick: a.gpr_pick,
            a6xx_spill_victim: a.victim,
            sections: Sections::default(),
        }
    }
}

impl CaseConfig {
    /// The Gen allocator's choices.
    pub fn gen_heuristics(&self) -> GenHeuristics {
        GenHeuristics {
            loop_weight: self.gen_spill_loop_weight,
            use_weight: self.gen_spill_use_weight,
            def_weight: self.gen_spill_def_weight,
            spill: self.gen_spill_choice,
            pick: self.gen_pick,
            order: self.gen_colour_order,
        }
    }

    /// The a6xx allocators' choices.
    pub fn a6xx_heuristics(&self) -> A6xxHeuristics {
        A6xxHeuristics {
            pred_pick: self.a6xx_pred_pick,
            gpr_pick: self.a6xx_gpr_pick,
            victim: self.a6xx_spill_victim,
        }
    }
}

/// One decoded input.
#[derive(Clone, Debug)]
pub struct Case {
    /// How to compile.
    pub config: CaseConfig,
    /// What to compile.
    pub program: Program,
}
