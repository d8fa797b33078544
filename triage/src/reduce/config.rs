//! Configuration passes: shrink the case's configuration while the bug remains, so the
//! repro needs as little of the compiler as possible. Each pass proposes candidate
//! configurations numbered `0..` (`Some(None)`: nothing at this index).
//!
//! Three kinds of knob: the register budgets (Gen GRFs, a6xx GPRs and predicates), lowered
//! while the bug remains so that a spill bug keeps spilling as the program shrinks (the
//! reducer lowers them first, then again after each round of program passes); the optional
//! middle-end passes (switched off while the bug remains); and the other backend knobs of
//! `CaseConfig` (put back to the real driver's default while the bug remains: waves of 64,
//! generation 9, the allocators' default choices, every optimisation on), and for the
//! `vulkan` target the spirv-opt pass list, one pass at a time, down to the passes the bug
//! needs.

use compiler::heuristics::{ColourOrder, Pick};
use compiler::passes::pipeline::PASSES;
use fuzz::case_file::{MIN_A6XX_REGISTERS, MIN_GEN_GRFS};
use fuzz::oracle::CaseConfig;

/// A configuration pass: the `index`-th candidate, `None` past the last; the target whose
/// budgets may be lowered (`None`: any).
pub type ConfigPass = fn(&CaseConfig, usize, Option<&str>) -> Option<Option<CaseConfig>>;

/// The configuration passes, in order.
pub const CONFIG_PASSES: &[(&str, ConfigPass)] = &[
    ("lower-budget", lower_budget),
    ("disable-pass", disable_pass),
    ("default-knob", default_knob),
    ("drop-spirv-opt-pass", drop_spirv_opt_pass),
];

/// The smallest Gen budget the reducer tries with a register pick other than `lowest`: the
/// generator's (docs/budgets.md). Only `gen_pick=lowest` with the default colouring order
/// (`gen_colour_order=ascending`) is sure to compile down to the
/// allocator's floor ([`MIN_GEN_GRFS`]), and a budget the allocator cannot meet would turn a
/// reduction of a `gen_ra` bug into a repro of no bug.
pub const GEN_GRFS_FLOOR: u32 = 16;

/// The smallest Gen budget the reducer tries for `c`.
fn gen_floor(c: &CaseConfig) -> u32 {
    if c.gen_pick == Pick::Lowest && c.gen_colour_order == ColourOrder::Ascending {
        MIN_GEN_GRFS
    } else {
        GEN_GRFS_FLOOR
    }
}

/// Lowers a register budget of `target`, candidate `index` of: Gen GRFs to the floor, halfway
/// there, one less; a6xx GPRs likewise; a6xx predicates to one. `Some(None)` where a candidate
/// would not lower anything.
fn lower_budget(c: &CaseConfig, index: usize, target: Option<&str>) -> Option<Option<CaseConfig>> {
    let gen = target.is_none_or(|t| t.starts_with("gen"));
    let a6xx = target.is_none_or(|t| t == "a6xx");
    let mut d = c.clone();
    let lowered = match index {
        0..=2 => gen && lower(&mut d.gen_grfs, gen_floor(c), index),
        3..=5 => a6xx && lower(&mut d.a6xx_registers, MIN_A6XX_REGISTERS, index - 3),
        6 => a6xx && std::mem::replace(&mut d.a6xx_predicates, 1) > 1,
        _ => return None,
    };
    Some(lowered.then_some(d))
}

/// Sets `budget` to candidate `k` of: `floor`, halfway to it, one less; whether that lowers it.
fn lower(budget: &mut u32, floor: u32, k: usize) -> bool {
    let now = *budget;
    let to = [
        floor,
        floor + now.saturating_sub(floor) / 2,
        now.saturating_sub(1),
    ][k];
    let lowers = to >= floor && to < now;
    if lowers {
        *budget = to;
    }
    lowers
}

/// Puts backend knob `index` back at its default (SIMD8-sized budgets become the whole
/// register file, waves of 128 become 64, one predicate becomes four, …).
fn default_knob(c: &CaseConfig, index: usize, _: Option<&str>) -> Option<Option<CaseConfig>> {
    if index >= CaseConfig::KNOBS.len() {
        return None;
    }
    Some(c.with_default_knob(index))
}

/// Switches optional pass `index` off (if on).
fn disable_pass(c: &CaseConfig, index: usize, _: Option<&str>) -> Option<Option<CaseConfig>> {
    if index >= PASSES.len() {
        return None;
    }
    let bit = 1u32 << index;
    if c.disabled_passes & bit != 0 {
        return Some(None);
    }
    let mut d = c.clone();
    d.disabled_passes |= bit;
    Some(Some(d))
}

/// Drops pass `index` of the case's spirv-opt list.
fn drop_spirv_opt_pass(
    c: &CaseConfig,
    index: usize,
    _: Option<&str>,
) -> Option<Option<CaseConfig>> {
    let passes = &c.vulkan_spirv_opt.0;
    if index >= passes.len() {
        return None;
    }
    let mut d = c.clone();
    d.vulkan_spirv_opt.0.remove(index);
    Some(Some(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spirv_opt_passes_are_dropped_one_at_a_time() {
        let c = CaseConfig {
            vulkan_spirv_opt: "ccp+O+merge-blocks".parse().unwrap(),
            ..CaseConfig::default()
        };
        let lists: Vec<String> = (0..)
            .map_while(|i| drop_spirv_opt_pass(&c, i, None))
            .map(|d| d.unwrap().vulkan_spirv_opt.to_string())
            .collect();
        assert_eq!(lists, ["O+merge-blocks", "ccp+merge-blocks", "ccp+O"]);
    }
}
