//! Configuration passes: shrink the case's configuration while the bug remains, so the
//! repro needs as little of the compiler as possible. Each pass proposes candidate
//! configurations numbered `0..` (`Some(None)`: nothing at this index).
//!
//! Today the one knob is the set of optional middle-end passes; later knobs (SIMD16 → SIMD8,
//! wave 128 → 64, bigger register budgets) get one entry each here when `CaseConfig` grows
//! them.

use compiler::passes::pipeline::PASSES;
use fuzz::oracle::CaseConfig;

/// A configuration pass: the `index`-th candidate, `None` past the last.
pub type ConfigPass = fn(&CaseConfig, usize) -> Option<Option<CaseConfig>>;

/// The configuration passes, in order.
pub const CONFIG_PASSES: &[(&str, ConfigPass)] = &[("disable-pass", disable_pass)];

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
