//! Configuration passes: shrink the case's configuration while the bug remains, so the
//! repro needs as little of the compiler as possible. Each pass proposes candidate
//! configurations numbered `0..` (`Some(None)`: nothing at this index).
//!
//! Two kinds of knob: the optional middle-end passes (switched off while the bug remains) and
//! the backend knobs of `CaseConfig` (put back to the real driver's default while the bug
//! remains: whole register files, waves of 64, four predicates, every optimisation on), and
//! for the `vulkan` target the spirv-opt pass list, one pass at a time, down to the passes the
//! bug needs.

use compiler::passes::pipeline::PASSES;
use fuzz::oracle::CaseConfig;

/// A configuration pass: the `index`-th candidate, `None` past the last.
pub type ConfigPass = fn(&CaseConfig, usize) -> Option<Option<CaseConfig>>;

/// The configuration passes, in order.
pub const CONFIG_PASSES: &[(&str, ConfigPass)] = &[
    ("disable-pass", disable_pass),
    ("default-knob", default_knob),
    ("drop-spirv-opt-pass", drop_spirv_opt_pass),
];

/// Puts backend knob `index` back at its default (SIMD8-sized budgets become the whole
/// register file, waves of 128 become 64, one predicate becomes four, …).
fn default_knob(c: &CaseConfig, index: usize) -> Option<Option<CaseConfig>> {
    if index >= CaseConfig::KNOBS.len() {
        return None;
    }
    Some(c.with_default_knob(index))
}

/// Switches optional pass `index` off (if on).
fn disable_pass(c: &CaseConfig, index: usize) -> Option<Option<CaseConfig>> {
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
fn drop_spirv_opt_pass(c: &CaseConfig, index: usize) -> Option<Option<CaseConfig>> {
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
            .map_while(|i| drop_spirv_opt_pass(&c, i))
            .map(|d| d.unwrap().vulkan_spirv_opt.to_string())
            .collect();
        assert_eq!(lists, ["O+merge-blocks", "ccp+merge-blocks", "ccp+O"]);
    }
}
