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
use fuzz::case_file::{MAX_A6XX_REGISTERS, MAX_GEN_GRFS, MIN_A6XX_REGISTERS, MIN_GEN_GRFS};
use fuzz::oracle::CaseConfig;

/// A configuration pass: the `index`-th candidate, `None` past the last, within `scope`.
pub type ConfigPass = fn(&CaseConfig, usize, Scope) -> Option<Option<CaseConfig>>;

/// Which budgets the configuration passes may touch, and how far down.
#[derive(Clone, Copy, Debug, Default)]
pub struct Scope<'a> {
    /// The target whose budgets may change (`None`: any). A budget the bug's target does not
    /// read only slows the other pipelines down.
    pub target: Option<&'a str>,
    /// How low a Gen budget may go.
    pub floors: Floors,
}

/// How low the reducer takes a Gen GRF budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Floors {
    /// Never under the budget the case's allocation choices are sure to compile at
    /// ([`sure_gen_floor`]), so a compile failure is never the budget's fault.
    #[default]
    Sure,
    /// Down to the smallest budget a case may name ([`MIN_GEN_GRFS`]) whatever the register
    /// pick. Only for a predicate that turns away what fails only for want of registers under
    /// the sure floor ([`under_sure_floor`]): a wrong allocation of a program the allocator
    /// did compile is the allocator's bug at any budget, a failure to compile there may not be.
    Any,
}

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

/// The smallest Gen budget every program compiles at with `c`'s allocation choices.
pub fn sure_gen_floor(c: &CaseConfig) -> u32 {
    if c.gen_pick == Pick::Lowest && c.gen_colour_order == ColourOrder::Ascending {
        MIN_GEN_GRFS
    } else {
        GEN_GRFS_FLOOR
    }
}

/// Whether `c`'s Gen budget is under the one its allocation choices are sure to compile at.
pub fn under_sure_floor(c: &CaseConfig) -> bool {
    c.gen_grfs < sure_gen_floor(c)
}

/// The smallest Gen budget the reducer tries for `c`.
fn gen_floor(c: &CaseConfig, floors: Floors) -> u32 {
    match floors {
        Floors::Sure => sure_gen_floor(c),
        Floors::Any => MIN_GEN_GRFS,
    }
}

/// Lowers a register budget of `target`, candidate `index` of: Gen GRFs to the floor, halfway
/// there, one less; a6xx GPRs likewise; a6xx predicates to one. `Some(None)` where a candidate
/// would not lower anything.
fn lower_budget(c: &CaseConfig, index: usize, scope: Scope) -> Option<Option<CaseConfig>> {
    let gen = scope.target.is_none_or(|t| t.starts_with("gen"));
    let a6xx = scope.target.is_none_or(|t| t == "a6xx");
    let mut d = c.clone();
    let lowered = match index {
        0..=2 => gen && lower(&mut d.gen_grfs, gen_floor(c, scope.floors), index),
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

/// How far from the current budget [`other_allocations`] looks, either way.
const SIDEWAYS: u32 = 12;

/// The configurations that differ from `c` in one allocation setting of `target` only, for
/// the reducer's sideways step: every Gen GRF budget within [`SIDEWAYS`] of the current one,
/// every a6xx GPR budget likewise and the other predicate count (1 or 4), then every other
/// value of each allocation-choice knob the fuzzer varies
/// ([`CaseConfig::drawn_values`]). Never a Gen budget under the floor `scope` allows.
pub fn other_allocations(c: &CaseConfig, scope: Scope) -> Vec<CaseConfig> {
    let gen = scope.target.is_none_or(|t| t.starts_with("gen"));
    let a6xx = scope.target.is_none_or(|t| t == "a6xx");
    let mut out = Vec::new();
    let mut each = |range: std::ops::RangeInclusive<u32>, set: fn(&mut CaseConfig, u32)| {
        for v in range {
            let mut d = c.clone();
            set(&mut d, v);
            out.push(d);
        }
    };
    if gen {
        let low = c.gen_grfs.saturating_sub(SIDEWAYS);
        each(low..=(c.gen_grfs + SIDEWAYS).min(MAX_GEN_GRFS), |d, v| {
            d.gen_grfs = v
        });
    }
    if a6xx {
        let low = c
            .a6xx_registers
            .saturating_sub(SIDEWAYS)
            .max(MIN_A6XX_REGISTERS);
        let high = (c.a6xx_registers + SIDEWAYS).min(MAX_A6XX_REGISTERS);
        each(low..=high, |d, v| d.a6xx_registers = v);
        let mut d = c.clone();
        d.a6xx_predicates = if c.a6xx_predicates == 1 { 4 } else { 1 };
        out.push(d);
    }
    for knob in CaseConfig::KNOBS {
        let ours = (gen && knob.starts_with("gen_")) || (a6xx && knob.starts_with("a6xx_"));
        for value in CaseConfig::drawn_values(knob).iter().filter(|_| ours) {
            let mut d = c.clone();
            d.set(knob, value).expect("drawn values parse");
            out.push(d);
        }
    }
    out.retain(|d| d != c && d.gen_grfs >= gen_floor(d, scope.floors));
    out
}

/// Puts backend knob `index` back at its default (SIMD8-sized budgets become the whole
/// register file, waves of 128 become 64, one predicate becomes four, …).
fn default_knob(c: &CaseConfig, index: usize, _: Scope) -> Option<Option<CaseConfig>> {
    if index >= CaseConfig::KNOBS.len() {
        return None;
    }
    Some(c.with_default_knob(index))
}

/// Switches optional pass `index` off (if on).
fn disable_pass(c: &CaseConfig, index: usize, _: Scope) -> Option<Option<CaseConfig>> {
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
fn drop_spirv_opt_pass(c: &CaseConfig, index: usize, _: Scope) -> Option<Option<CaseConfig>> {
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
    fn other_allocations_change_one_setting_of_the_target_and_respect_the_floor() {
        let c = CaseConfig {
            gen_grfs: 12,
            ..CaseConfig::default()
        };
        let gen8 = Scope {
            target: Some("gen8"),
            floors: Floors::Sure,
        };
        let gen = other_allocations(&c, gen8);
        let budgets: Vec<u32> = gen
            .iter()
            .map(|d| d.gen_grfs)
            .filter(|&g| g != 12)
            .collect();
        assert_eq!(
            budgets,
            (MIN_GEN_GRFS..=24).filter(|&g| g != 12).collect::<Vec<_>>()
        );
        for d in &gen {
            let changed = d
                .knobs()
                .iter()
                .zip(c.knobs())
                .filter(|(a, b)| **a != *b)
                .count();
            assert_eq!(changed, 1, "{d:?}");
            assert!(!under_sure_floor(d), "{d:?}");
            assert_eq!(
                (d.a6xx_registers, d.a6xx_predicates),
                (c.a6xx_registers, c.a6xx_predicates)
            );
        }
        // Another register pick is only tried at a budget it is sure to compile at.
        assert!(gen.iter().all(|d| d.gen_pick == Pick::Lowest));
        let roomy = CaseConfig {
            gen_grfs: 30,
            ..c.clone()
        };
        let gen16 = Scope {
            target: Some("gen16"),
            ..gen8
        };
        assert!(other_allocations(&roomy, gen16)
            .iter()
            .any(|d| d.gen_pick != Pick::Lowest && d.gen_grfs == 30));
        let a6xx = other_allocations(
            &c,
            Scope {
                target: Some("a6xx"),
                ..gen8
            },
        );
        assert!(a6xx
            .iter()
            .all(|d| d.gen_grfs == 12 && d.gen_pick == c.gen_pick));
        assert!(a6xx.iter().any(|d| d.a6xx_predicates == 1));
    }

    #[test]
    fn any_floor_lowers_a_gen_budget_under_the_sure_floor_of_its_pick() {
        let c = CaseConfig {
            gen_grfs: 20,
            gen_pick: Pick::Rotating,
            ..CaseConfig::default()
        };
        let scope = |floors| Scope {
            target: Some("gen16"),
            floors,
        };
        let lowest = |floors| {
            lower_budget(&c, 0, scope(floors))
                .flatten()
                .map(|d| d.gen_grfs)
        };
        assert_eq!(lowest(Floors::Sure), Some(GEN_GRFS_FLOOR));
        assert_eq!(lowest(Floors::Any), Some(MIN_GEN_GRFS));
        let sideways = other_allocations(&c, scope(Floors::Any));
        assert!(sideways.iter().any(under_sure_floor));
        assert!(sideways.iter().all(|d| d.gen_grfs >= MIN_GEN_GRFS));
        assert!(!other_allocations(&c, scope(Floors::Sure))
            .iter()
            .any(under_sure_floor));
        // a6xx budgets go down to the case file's smallest, scratch and one register.
        let a6xx = CaseConfig {
            a6xx_registers: 8,
            ..c
        };
        let d = lower_budget(&a6xx, 3, Scope::default())
            .flatten()
            .expect("lowers");
        assert_eq!(d.a6xx_registers, MIN_A6XX_REGISTERS);
        assert_eq!(MIN_A6XX_REGISTERS, 4);
    }

    #[test]
    fn spirv_opt_passes_are_dropped_one_at_a_time() {
        let c = CaseConfig {
            vulkan_spirv_opt: "ccp+O+merge-blocks".parse().unwrap(),
            ..CaseConfig::default()
        };
        let lists: Vec<String> = (0..)
            .map_while(|i| drop_spirv_opt_pass(&c, i, Scope::default()))
            .map(|d| d.unwrap().vulkan_spirv_opt.to_string())
            .collect();
        assert_eq!(lists, ["O+merge-blocks", "ccp+merge-blocks", "ccp+O"]);
    }
}
