//! Configuration passes: shrink the case's configuration while the bug remains, so the
//! repro needs as little of the compiler as possible. Each pass proposes candidate
//! configurations numbered `0..` (`Some(None)`: nothing at this index).
//!
//! Three kinds of knob: the register budgets the targets declare (`Target::budgets`: Gen
//! GRFs, a6xx GPRs and predicates), lowered
//! while the bug remains so that a spill bug keeps spilling as the program shrinks (the
//! reducer lowers them first, then again after each round of program passes); the optional
//! middle-end passes (switched off while the bug remains); and the other backend knobs of
//! `CaseConfig` (put back to the real driver's default while the bug remains: waves of 64,
//! generation 9, the allocators' default choices, every optimisation on), and for the
//! `vulkan` target the spirv-opt pass list, one pass at a time, down to the passes the bug
//! needs.

use compiler::passes::pipeline::PASSES;
use fuzz::oracle::CaseConfig;
use fuzz::targets::driver::knobs::ModuleKnobs;
use fuzz::targets::{self, Budget};

/// A configuration pass: the `index`-th candidate, `None` past the last, within `scope`.
pub type ConfigPass = fn(&CaseConfig, usize, Scope) -> Option<Option<CaseConfig>>;

/// Which budgets the configuration passes may touch, and how far down.
#[derive(Clone, Copy, Debug, Default)]
pub struct Scope<'a> {
    /// The target whose budgets may change (`None`: any). A budget the bug's target does not
    /// read only slows the other pipelines down.
    pub target: Option<&'a str>,
    /// How low a budget may go.
    pub floors: Floors,
}

/// How low the reducer takes a register budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Floors {
    /// Never under the budget the case's allocation choices are sure to compile at
    /// ([`Budget::sure_floor`]), so a compile failure is never the budget's fault.
    #[default]
    Sure,
    /// Down to the smallest budget a case may name ([`Budget::lowest`]) whatever the register
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

/// Every registered target's register budgets, each once, in registry order, with whether
/// `scope` lets it change.
fn budgets(scope: Scope) -> Vec<(Budget, bool)> {
    let mut out: Vec<(Budget, bool)> = Vec::new();
    for t in targets::all() {
        let ours = scope.target.is_none_or(|name| name == t.name());
        for b in t.budgets() {
            match out.iter_mut().find(|(o, _)| o.knob == b.knob) {
                Some((_, in_scope)) => *in_scope |= ours,
                None => out.push((*b, ours)),
            }
        }
    }
    out
}

/// Whether `c` sets a budget of `target` under the one its allocation choices are sure to
/// compile at.
pub fn under_sure_floor(target: &str, c: &CaseConfig) -> bool {
    targets::by_name(target).is_some_and(|t| t.budgets().iter().any(|b| b.under_sure_floor(c)))
}

/// The smallest value the reducer tries for budget `b` of `c`.
fn floor(b: &Budget, c: &CaseConfig, floors: Floors) -> u32 {
    match floors {
        Floors::Sure => (b.sure_floor)(c),
        Floors::Any => b.lowest,
    }
}

/// How many candidates [`lower_budget`] makes of a budget: to the floor, halfway there, one
/// less; a budget of a few fixed choices only the first.
fn lowerings(b: &Budget) -> usize {
    if b.choices.is_some() {
        1
    } else {
        3
    }
}

/// Lowers a register budget of the scope's target, candidate `index` of every registered
/// budget's candidates in turn ([`lowerings`]). `Some(None)` where a candidate would not lower
/// anything or its budget is out of scope.
fn lower_budget(c: &CaseConfig, index: usize, scope: Scope) -> Option<Option<CaseConfig>> {
    let mut k = index;
    for (b, in_scope) in budgets(scope) {
        let n = lowerings(&b);
        if k >= n {
            k -= n;
            continue;
        }
        let mut d = c.clone();
        let mut v = (b.get)(c);
        let lowered = in_scope && lower(&mut v, floor(&b, c, scope.floors), k);
        (b.set)(&mut d, v);
        return Some(lowered.then_some(d));
    }
    None
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
/// the reducer's sideways step: every value of each of its budgets within [`SIDEWAYS`] of the
/// current one (a budget of fixed choices: each other choice), then every other value of each
/// allocation-choice knob of the target the fuzzer varies ([`CaseConfig::drawn_values`]).
/// Never a budget under the floor `scope` allows.
pub fn other_allocations(c: &CaseConfig, scope: Scope) -> Vec<CaseConfig> {
    let all = budgets(scope);
    let mut out = Vec::new();
    for (b, _) in all.iter().filter(|(_, in_scope)| *in_scope) {
        let now = (b.get)(c);
        let values: Vec<u32> = match b.choices {
            Some(choices) => choices.iter().copied().filter(|&v| v != now).collect(),
            None => {
                let low = now.saturating_sub(SIDEWAYS).max(b.lowest);
                (low..=(now + SIDEWAYS).min(b.highest)).collect()
            }
        };
        for v in values {
            let mut d = c.clone();
            (b.set)(&mut d, v);
            out.push(d);
        }
    }
    let read = |knob: &str| {
        targets::all()
            .iter()
            .filter(|t| scope.target.is_none_or(|name| name == t.name()))
            .any(|t| t.knobs().contains(&knob))
    };
    for &knob in CaseConfig::keys().iter().filter(|k| read(k)) {
        for value in CaseConfig::drawn_values(knob) {
            let mut d = c.clone();
            d.set(knob, &value).expect("drawn values parse");
            out.push(d);
        }
    }
    out.retain(|d| {
        d != c
            && all
                .iter()
                .all(|(b, _)| (b.get)(d) >= floor(b, d, scope.floors))
    });
    out
}

/// Puts backend knob `index` back at its default (SIMD8-sized budgets become the whole
/// register file, waves of 128 become 64, one predicate becomes four, …).
fn default_knob(c: &CaseConfig, index: usize, _: Scope) -> Option<Option<CaseConfig>> {
    if index >= CaseConfig::keys().len() {
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
    if index >= c.sections.get::<ModuleKnobs>().spirv_opt.0.len() {
        return None;
    }
    let mut d = c.clone();
    d.sections
        .get_mut::<ModuleKnobs>()
        .spirv_opt
        .0
        .remove(index);
    Some(Some(d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use compiler::heuristics::Pick;
    use fuzz::case::text::{MIN_A6XX_REGISTERS, MIN_GEN_GRFS};
    use fuzz::targets::gen::GEN_GRFS_FLOOR;

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
            assert!(!under_sure_floor("gen8", d), "{d:?}");
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
        let under = |d: &CaseConfig| under_sure_floor("gen16", d);
        assert!(sideways.iter().any(under));
        assert!(sideways.iter().all(|d| d.gen_grfs >= MIN_GEN_GRFS));
        assert!(!other_allocations(&c, scope(Floors::Sure)).iter().any(under));
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
        let mut c = CaseConfig::default();
        c.set("vulkan_spirv_opt", "ccp+O+merge-blocks").unwrap();
        let lists: Vec<String> = (0..)
            .map_while(|i| drop_spirv_opt_pass(&c, i, Scope::default()))
            .map(|d| {
                d.unwrap()
                    .sections
                    .get::<ModuleKnobs>()
                    .spirv_opt
                    .to_string()
            })
            .collect();
        assert_eq!(lists, ["O+merge-blocks", "ccp+merge-blocks", "ccp+O"]);
    }
}
