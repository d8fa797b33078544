//! Case-configuration mutations: one knob to another value the backends accept (or one
//! middle-end pass toggled), and the cross-over of two cases' configurations.

use crate::oracle::CaseConfig;
use crate::pipelines::spirv_opt::SpirvOptPasses;
use crate::rng::SplitMix64;
use compiler::passes::pipeline::PASSES;

/// Sets one knob to a different value in its range, or toggles one middle-end pass.
pub fn change(config: &mut CaseConfig, rng: &mut SplitMix64) -> Option<()> {
    let knobs = CaseConfig::KNOBS;
    let k = rng.range(0, knobs.len() as u64) as usize;
    let Some(&key) = knobs.get(k) else {
        let pass = rng.range(0, PASSES.len() as u64 - 1);
        config.disabled_passes ^= 1 << pass;
        return Some(());
    };
    let before = config.knobs();
    for _ in 0..8 {
        let value = value_for(key, rng);
        let mut c = config.clone();
        if c.set(key, &value).is_ok() && c.check().is_ok() && c.knobs() != before {
            *config = c;
            return Some(());
        }
    }
    None
}

/// A value for knob `key` as text: a switch flipped at random, a budget across its range, a
/// heuristic among those the case randomiser draws.
fn value_for(key: &str, rng: &mut SplitMix64) -> String {
    let drawn = CaseConfig::drawn_values(key);
    if let Some(v) = crate::mutate::edit::pick(&drawn, rng) {
        return v.clone();
    }
    let d = CaseConfig::default();
    match key {
        "gen_grfs" => rng
            .range(crate::case_file::MIN_GEN_GRFS.into(), d.gen_grfs.into())
            .to_string(),
        "a6xx_registers" => rng
            .range(8, crate::case_file::MAX_A6XX_REGISTERS.into())
            .to_string(),
        "a6xx_predicates" => ["1", "4"][rng.range(0, 1) as usize].to_string(),
        "vulkan_spirv_opt" => {
            let mut bytes = [0u8; 16];
            rng.fill(&mut bytes);
            let mut u = arbitrary::Unstructured::new(&bytes);
            SpirvOptPasses::draw(&mut u).unwrap_or_default().to_string()
        }
        // The switches.
        _ => (rng.next_u64() & 1 == 1).to_string(),
    }
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
