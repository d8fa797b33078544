//! Decoding input bytes into a case. The bytes decide everything — the case configuration
//! (pass toggles, register budgets, the allocators' choices), the generator's configuration
//! (swarm testing) and the program — so a finding reproduces from its input alone. Each draw
//! says how often it departs from the real driver's choice and why. The draws come in three
//! places, in an order fixed for good so that saved inputs keep decoding to the same case: the
//! budgets and switches from the first bytes ([`Arbitrary`]), the allocation choices from a
//! hash of the bytes after them (`vary_heuristics`), and the `vulkan` knobs from the bytes
//! left after the program ([`decode`]).

use super::config::{Case, CaseConfig};
use crate::gen;
use crate::pipelines::anv::Switches as AnvSwitches;
use crate::pipelines::radv::{Gpu as RadvGpu, Wave as RadvWave};
use crate::pipelines::spirv_opt::SpirvOptPasses;
use crate::rng::SplitMix64;
use arbitrary::{Arbitrary, Unstructured};
use compiler::heuristics::{ColourOrder, Pick, SpillChoice, Victim};

/// Half the time `default`, else one of `others` (so every value is drawn in a sizeable share
/// of cases while the tuned choice stays the most common).
fn vary<T: Copy>(r: &mut SplitMix64, default: T, others: &[T]) -> T {
    if r.next_u64() & 1 == 1 {
        others[r.range(0, others.len() as u64 - 1) as usize]
    } else {
        default
    }
}

/// The values of a choice other than its default (the first).
fn others<T: Copy>(all: &[T]) -> &[T] {
    &all[1..]
}

/// `default` then `others`, as text: every value [`vary`] draws.
fn drawn<T: ToString>(default: T, others: &[T]) -> Vec<String> {
    std::iter::once(&default)
        .chain(others)
        .map(T::to_string)
        .collect()
}

/// The values the case randomiser draws for the numeric heuristic knobs besides their
/// defaults.
const LOOP_WEIGHTS: [u32; 3] = [1, 2, 100];
const USE_DEF_WEIGHTS: [u32; 2] = [2, 4];

/// The allocation-choice knobs the case randomiser varies, each with the values it draws
/// besides the default, in draw order: [`CaseConfig::vary_heuristics`] draws them and
/// [`CaseConfig::drawn_values`] lists them from this one table. A knob added here goes last,
/// so the earlier knobs of an input stay what they were before it existed.
macro_rules! heuristic_knobs {
    ($($field:ident from $others:expr),* $(,)?) => {
        impl CaseConfig {
            /// Draws the allocation choices from a hash of `rest` (the input bytes after the
            /// knobs): any choice is correct, and a bug only one of them exposes stays hidden
            /// while the choice never varies. Hashing rather than consuming bytes keeps every
            /// input decoding to the same program and other knobs as before these knobs
            /// existed.
            fn vary_heuristics(&mut self, rest: &[u8]) {
                let hash = rest.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
                    (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
                });
                let r = &mut SplitMix64::for_input(hash, 0x6865_7572);
                let d = CaseConfig::default();
                $(self.$field = vary(r, d.$field, $others);)*
            }

            /// Every value the case randomiser draws for heuristic knob `knob`, the default
            /// first (empty for other knobs).
            pub fn drawn_values(knob: &str) -> Vec<String> {
                let d = CaseConfig::default();
                match knob {
                    $(stringify!($field) => drawn(d.$field, $others),)*
                    _ => Vec::new(),
                }
            }
        }
    };
}

heuristic_knobs! {
    gen_spill_loop_weight from &LOOP_WEIGHTS,
    gen_spill_use_weight from &USE_DEF_WEIGHTS,
    gen_spill_def_weight from &USE_DEF_WEIGHTS,
    gen_spill_choice from others(SpillChoice::ALL),
    gen_pick from others(Pick::ALL),
    a6xx_pred_pick from others(Pick::ALL),
    a6xx_gpr_pick from others(Pick::ALL),
    a6xx_spill_victim from others(Victim::ALL),
    gen_colour_order from others(ColourOrder::ALL),
}

impl CaseConfig {
    /// Draws the anv knobs (platform and brw switches) from a hash of `rest`, apart from the
    /// other knobs' draws so theirs stay what they were.
    fn vary_anv(&mut self, rest: &[u8]) {
        let hash = rest.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
        });
        let r = &mut SplitMix64::for_input(hash, 0x0061_6e76);
        self.anv_platform = crate::pipelines::anv::draw_platform(r.next_u64());
        self.anv_debug = AnvSwitches::draw(r.next_u64());
    }

    /// Draws the radv knobs (GPU and wave size) from a hash of `rest`, apart from the other
    /// knobs' draws so theirs stay what they were.
    fn vary_radv(&mut self, rest: &[u8]) {
        let hash = rest.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
        });
        let r = &mut SplitMix64::for_input(hash, 0x7261_6476);
        self.radv_gpu = RadvGpu::draw(r.next_u64());
        self.radv_wave = RadvWave::draw(r.next_u64());
    }
}

impl<'a> Arbitrary<'a> for CaseConfig {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let d = CaseConfig::default();
        // One case in four runs with some passes off: the passes after a disabled one see
        // shapes the full pipeline would have cleaned up. The Gen budget is starved (16–32
        // GRFs) two cases in three, a6xx's GPRs half the time, and a6xx gets one predicate
        // register two cases in three (and folds predicates into branches, without which
        // nothing is reloaded, five in six), so that spill code and predicate reloads *run* in
        // a large share of cases, not just compile (`crate::reach` measures the shares).
        let mut c = CaseConfig {
            disabled_passes: if u.ratio(1, 4)? { u.arbitrary()? } else { 0 },
            gen9: !u.ratio(1, 3)?,
            // 16 GRFs at least: every program compiles down to the register floor (10,
            // docs/budgets.md) when select takes the lowest free base, but the randomised
            // `gen_pick` heuristics fragment multi-GRF placement and need more room.
            gen_grfs: if u.ratio(2, 3)? {
                u.int_in_range(16..=32)?
            } else {
                d.gen_grfs
            },
            gen_zero_samples: !u.ratio(1, 4)?,
            a6xx_wave128: u.ratio(1, 4)?,
            a6xx_predicates: if u.ratio(2, 3)? { 1 } else { 4 },
            a6xx_registers: if u.ratio(1, 2)? {
                u.int_in_range(8..=48)?
            } else {
                d.a6xx_registers
            },
            a6xx_opt_predicates: !u.ratio(1, 6)?,
            vulkan_unoptimised: d.vulkan_unoptimised,
            ..d
        };
        if let Some(rest) = u.peek_bytes(u.len()) {
            c.vary_heuristics(rest);
            c.vary_anv(rest);
            c.vary_radv(rest);
        }
        Ok(c)
    }
}

/// Decodes an input into a case. Never fails for lack of bytes (missing bytes read as
/// defaults); `None` only if the generator itself gave up.
pub fn decode(bytes: &[u8]) -> Option<Case> {
    let mut u = Unstructured::new(bytes);
    let config = CaseConfig::arbitrary(&mut u).unwrap_or_default();
    // Half the cases use the tuned defaults, half a swarm configuration drawn from the input.
    let gen_config = match u.ratio(1, 2) {
        Ok(true) => gen::Config::arbitrary(&mut u).unwrap_or_default(),
        _ => gen::Config::default(),
    };
    let program = gen::generate(&mut u, &gen_config).ok()?;
    let mut config = config;
    // One case in four with bytes left puts spirv-opt before the driver (only the `vulkan`
    // target reads it); out of bytes, `ratio` would always say yes.
    if u.len() >= 4 && u.ratio(1, 4).unwrap_or(false) {
        config.vulkan_spirv_opt = SpirvOptPasses::draw(&mut u).unwrap_or_default();
    }
    // One case in four gives the driver the generator's program, unoptimised by us.
    if u.len() >= 4 && u.ratio(1, 4).unwrap_or(false) {
        config.vulkan_unoptimised = true;
    }
    Some(Case { config, program })
}

#[cfg(test)]
mod tests {
    use super::CaseConfig;
    use compiler::heuristics::{ColourOrder, Pick, SpillChoice, Victim};

    /// The heuristic table lists what the randomiser draws: every value of a choice (its
    /// default first), the default and the listed weights of a numeric knob.
    #[test]
    fn drawn_values_are_the_table_s() {
        fn text<T: ToString>(xs: &[T]) -> Vec<String> {
            xs.iter().map(T::to_string).collect()
        }
        let d = CaseConfig::default();
        let weights = |default: u32, others: &[u32]| text(&[&[default][..], others].concat());
        let expected = [
            (
                "gen_spill_loop_weight",
                weights(d.gen_spill_loop_weight, &[1, 2, 100]),
            ),
            (
                "gen_spill_use_weight",
                weights(d.gen_spill_use_weight, &[2, 4]),
            ),
            (
                "gen_spill_def_weight",
                weights(d.gen_spill_def_weight, &[2, 4]),
            ),
            ("gen_spill_choice", text(SpillChoice::ALL)),
            ("gen_pick", text(Pick::ALL)),
            ("a6xx_pred_pick", text(Pick::ALL)),
            ("a6xx_gpr_pick", text(Pick::ALL)),
            ("a6xx_spill_victim", text(Victim::ALL)),
            ("gen_colour_order", text(ColourOrder::ALL)),
            ("gen_grfs", Vec::new()),
        ];
        for (knob, values) in expected {
            assert_eq!(CaseConfig::drawn_values(knob), values, "{knob}");
        }
    }

    #[test]
    fn about_one_generated_case_in_five_gets_a_pass_list() {
        let mut buf = Vec::new();
        let mut with = 0;
        for i in 0..400 {
            crate::rng::input_bytes(5, i, 64, 2048, &mut buf);
            if let Some(case) = super::decode(&buf) {
                with += usize::from(!case.config.vulkan_spirv_opt.is_empty());
            }
        }
        assert!((30..=140).contains(&with), "{with} of 400");
    }
}
