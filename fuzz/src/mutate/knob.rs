//! Case-configuration mutations: one knob to another value the backends accept (or one
//! middle-end pass toggled), and the cross-over of two cases' configurations.

use super::edit;
use crate::case::text::{Allowed, BOUNDED_KNOBS};
use crate::case::CaseConfig;
use crate::rng::SplitMix64;
use arbitrary::Arbitrary;
use compiler::passes::pipeline::PASSES;

/// Sets one knob to a different value in its range, or toggles one middle-end pass. A knob
/// whose other values are rare (`anv_backend=jay`, drawn on lnl only) may not move in a few
/// draws; another knob is tried then.
pub fn change(config: &mut CaseConfig, rng: &mut SplitMix64) -> Option<()> {
    let knobs = CaseConfig::keys();
    for _ in 0..8 {
        let k = rng.range(0, knobs.len() as u64) as usize;
        let Some(&key) = knobs.get(k) else {
            let pass = rng.range(0, PASSES.len() as u64 - 1);
            config.disabled_passes ^= 1 << pass;
            return Some(());
        };
        let before = config.knobs();
        for _ in 0..16 {
            let Some(value) = value_for(key, rng) else {
                continue;
            };
            let mut c = config.clone();
            if c.set(key, &value).is_ok() && c.check().is_ok() && c.knobs() != before {
                *config = c;
                return Some(());
            }
        }
    }
    None
}

/// A value for knob `key` as text: a bounded knob across its bound, a heuristic among the
/// values the case randomiser draws, a switch flipped at random, any other knob as the case
/// randomiser draws it (so a knob added later is mutated without a change here).
fn value_for(key: &str, rng: &mut SplitMix64) -> Option<String> {
    if let Some((_, allowed, _)) = BOUNDED_KNOBS.iter().find(|(k, ..)| *k == key) {
        return Some(match *allowed {
            Allowed::Range(lo, hi) => rng.range(lo.into(), hi.into()).to_string(),
            Allowed::OneOf(values) => edit::pick(values, rng)?.to_string(),
        });
    }
    if let Some(v) = edit::pick(&CaseConfig::drawn_values(key), rng) {
        return Some(v.clone());
    }
    let mut bytes = [0u8; 64];
    rng.fill(&mut bytes);
    let mut u = arbitrary::Unstructured::new(&bytes);
    let mut sections = CaseConfig::default().sections;
    if sections.value(key).is_some() {
        // A target's own knob, drawn as its section draws it (from a hash, or as if after the
        // program).
        sections.draw_from_hash(&bytes);
        sections.draw_from_tail(&mut u);
        return sections.value(key);
    }
    let default = CaseConfig::default()
        .knobs()
        .into_iter()
        .find(|(k, _)| *k == key)?
        .1;
    if default == "true" || default == "false" {
        return Some((rng.next_u64() & 1 == 1).to_string());
    }
    let drawn = CaseConfig::arbitrary(&mut u).ok()?;
    Some(drawn.knobs().into_iter().find(|(k, _)| *k == key)?.1)
}

/// Each knob (and each pass toggle) from `a` or `b` at random.
pub fn cross(a: &CaseConfig, b: &CaseConfig, rng: &mut SplitMix64) -> CaseConfig {
    let mut c = a.clone();
    for (key, value) in b.knobs() {
        if rng.next_u64() & 1 == 1 {
            let _ = c.set(key, &value);
        }
    }
    let mask = rng.next_u64() as u32;
    c.disabled_passes = (a.disabled_passes & !mask) | (b.disabled_passes & mask);
    if c.check().is_err() {
        return a.clone();
    }
    c
}
