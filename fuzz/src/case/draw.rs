//! Decoding input bytes into a case. The bytes decide everything — the case configuration
//! (pass toggles, register budgets, the allocators' choices), the generator's configuration
//! (swarm testing) and the program — so a finding reproduces from its input alone. Each draw
//! says how often it departs from the real driver's choice and why. The draws come in three
//! places, in an order fixed for good so that saved inputs keep decoding to the same case: the
//! budgets and switches from the first bytes (the `byte_knobs!` table, [`Arbitrary`]), the
//! allocation choices from a hash of the bytes after them (the `heuristic_knobs!` table,
//! `vary_heuristics`; anv's and radv's knobs from their own streams of that hash), and the
//! `vulkan` knobs from the bytes left after the program ([`decode`]).

use super::config::{Case, CaseConfig};
use crate::generator;
use crate::rng::{fnv1a, SplitMix64};
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
                let r = &mut SplitMix64::for_input(fnv1a(rest), 0x6865_7572);
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

/// The knobs drawn from the input's first bytes, each with how often it departs from the real
/// driver's default and what it takes then (else the default), in draw order — fixed for good:
/// a row added here goes last, so saved inputs keep decoding the same. [`Arbitrary`] for
/// [`CaseConfig`] is this table's one draw function.
macro_rules! byte_knobs {
    ($u:ident; $($field:ident: $num:literal in $den:literal => $value:expr,)*) => {
        impl<'a> Arbitrary<'a> for CaseConfig {
            fn arbitrary($u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
                let mut c = CaseConfig::default();
                $(if $u.ratio($num, $den)? {
                    c.$field = $value;
                })*
                if let Some(rest) = $u.peek_bytes($u.len()) {
                    c.vary_heuristics(rest);
                    c.sections.draw_from_hash(rest);
                }
                Ok(c)
            }
        }
    };
}

byte_knobs! { u;
    // Some passes off: the passes after a disabled one see shapes the full pipeline would
    // have cleaned up.
    disabled_passes: 1 in 4 => u.arbitrary()?,
    // Gen8 a third of the time (the default is Gen9).
    gen9: 1 in 3 => false,
    // The Gen budget starved two cases in three, so that spill code *runs* in a large share
    // of cases, not just compiles (`crate::reach` measures the shares). 16 GRFs at least:
    // every program compiles down to the register floor (10, docs/budgets.md) when select
    // takes the lowest free base, but the randomised `gen_pick` heuristics fragment
    // multi-GRF placement and need more room.
    gen_grfs: 2 in 3 => u.int_in_range(16..=32)?,
    // `opt_zero_samples` off one case in four.
    gen_zero_samples: 1 in 4 => false,
    // Wave128 one case in four.
    a6xx_wave128: 1 in 4 => true,
    // One predicate register two cases in three, so predicates are reloaded.
    a6xx_predicates: 2 in 3 => 1,
    // a6xx's GPRs starved half the time, for the same reason as Gen's GRFs.
    a6xx_registers: 1 in 2 => u.int_in_range(8..=48)?,
    // Predicates folded into branches five cases in six: without it nothing is reloaded.
    a6xx_opt_predicates: 1 in 6 => false,
}

/// Decodes an input into a case. Never fails for lack of bytes (missing bytes read as
/// defaults); `None` only if the generator itself gave up.
pub fn decode(bytes: &[u8]) -> Option<Case> {
    let mut u = Unstructured::new(bytes);
    let config = CaseConfig::arbitrary(&mut u).unwrap_or_default();
    // Half the cases use the tuned defaults, half a swarm configuration drawn from the input.
    let swarm = match u.ratio(1, 2) {
        Ok(true) => generator::Config::arbitrary(&mut u).unwrap_or_default(),
        _ => generator::Config::default(),
    };
    let program = generator::generate(&mut u, &swarm).ok()?;
    let mut config = config;
    // The targets' draws after the program (the `vulkan` section's).
    config.sections.draw_from_tail(&mut u);
    Some(Case { config, program })
}

#[cfg(test)]
mod tests {
    use super::CaseConfig;
    use crate::targets::driver::knobs::ModuleKnobs;
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

    /// The `byte_knobs!` table draws exactly what the hand-written draws it replaced did
    /// (kept here as the reference), so saved inputs decode to the same cases.
    #[test]
    fn the_byte_knob_table_draws_as_before() {
        use arbitrary::{Arbitrary, Unstructured};
        fn before(u: &mut Unstructured) -> arbitrary::Result<CaseConfig> {
            let d = CaseConfig::default();
            Ok(CaseConfig {
                disabled_passes: if u.ratio(1, 4)? { u.arbitrary()? } else { 0 },
                gen9: !u.ratio(1, 3)?,
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
                ..d
            })
        }
        let mut buf = Vec::new();
        for i in 0..2000 {
            crate::rng::input_bytes(7, i, 0, 64, &mut buf);
            let (mut u1, mut u2) = (Unstructured::new(&buf), Unstructured::new(&buf));
            let now = CaseConfig::arbitrary(&mut u1).unwrap_or_default();
            let mut was = before(&mut u2).unwrap_or_default();
            if let Some(rest) = u2.peek_bytes(u2.len()) {
                was.vary_heuristics(rest);
                was.sections.draw_from_hash(rest);
            }
            assert_eq!(now, was, "input {i}");
            assert_eq!(u1.len(), u2.len(), "input {i}: bytes left");
        }
    }

    #[test]
    fn about_one_generated_case_in_five_gets_a_pass_list() {
        let mut buf = Vec::new();
        let mut with = 0;
        for i in 0..400 {
            crate::rng::input_bytes(5, i, 64, 2048, &mut buf);
            if let Some(case) = super::decode(&buf) {
                let vulkan = case.config.sections.get::<ModuleKnobs>();
                with += usize::from(!vulkan.spirv_opt.is_empty());
            }
        }
        assert!((30..=140).contains(&with), "{with} of 400");
    }
}
