//! The knob table: every backend knob of [`CaseConfig`] by name, each target section's among them, as `--case KEY=VALUE` sets it
//! and the `; case:` header of a saved program lists it (the middle end's pass toggles go by
//! `--disable-pass`). A knob added to the configuration is added to the table below, and
//! every command and header knows it.

use super::config::CaseConfig;
use crate::targets::knob_values::KnobValues;
use compiler::heuristics::{ColourOrder, Pick, SpillChoice, Victim};

impl KnobValues for bool {
    fn values() -> String {
        "true|false".into()
    }
}

impl KnobValues for u32 {
    fn values() -> String {
        "a number".into()
    }
}

impl KnobValues for u8 {
    fn values() -> String {
        "a number".into()
    }
}

/// The heuristics' choices: their names, the default first.
macro_rules! choice_values {
    ($($ty:ty),*) => {$(
        impl KnobValues for $ty {
            fn values() -> String {
                let names: Vec<&str> = <$ty>::ALL.iter().map(|v| v.name()).collect();
                names.join("|")
            }
        }
    )*};
}

choice_values!(SpillChoice, Pick, Victim, ColourOrder);

/// The backend knobs of [`CaseConfig`] by name, as `--case KEY=VALUE` sets them (the middle
/// end's pass toggles go by `--disable-pass`): the floor's own, then every target section's.
macro_rules! case_knobs {
    ($($field:ident: $ty:ty),* $(,)?) => {
        impl CaseConfig {
            /// The floor's own knob names, in header order.
            const OWN: &'static [&'static str] = &[$(stringify!($field)),*];

            /// Every knob name `--case` takes, in header order.
            pub fn keys() -> &'static [&'static str] {
                static KEYS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
                KEYS.get_or_init(|| {
                    let sections = CaseConfig::default().sections;
                    Self::OWN.iter().copied().chain(sections.keys()).collect()
                })
            }

            /// Sets knob `key` from text; an error names the key or the bad value.
            pub fn set(&mut self, key: &str, value: &str) -> Result<(), crate::Error> {
                match key {
                    $(stringify!($field) => {
                        self.$field = value
                            .parse::<$ty>()
                            .map_err(|e| crate::Error::KnobValue(e.to_string()))?;
                        Ok(())
                    })*
                    _ => self.sections.set(key, value).unwrap_or_else(|| {
                        Err(crate::Error::UnknownKnob { key: key.to_string() })
                    }),
                }
            }

            /// The values knob `key` takes ([`KnobValues`]), `None` for no such knob.
            pub fn values_of(key: &str) -> Option<String> {
                match key {
                    $(stringify!($field) => Some(<$ty as KnobValues>::values()),)*
                    _ => CaseConfig::default().sections.values_of(key),
                }
            }

            /// Every knob with its value as text, in header order (the `; case:` header of a
            /// saved program).
            pub fn knobs(&self) -> Vec<(&'static str, String)> {
                let mut knobs = vec![$((stringify!($field), self.$field.to_string())),*];
                knobs.extend(self.sections.knobs());
                knobs
            }

            /// The knobs that differ from the default, as `KEY=VALUE`.
            pub fn non_default(&self) -> Vec<String> {
                let d = CaseConfig::default().knobs();
                (self.knobs().into_iter().zip(d))
                    .filter(|(now, default)| now != default)
                    .map(|((k, v), _)| format!("{k}={v}"))
                    .collect()
            }

            /// The same configuration with knob `index` (of [`CaseConfig::keys`]) back at its
            /// default, if it differs (the reducer's way of shrinking a configuration toward
            /// the real driver's).
            pub fn with_default_knob(&self, index: usize) -> Option<CaseConfig> {
                let d = CaseConfig::default();
                let mut c = self.clone();
                let mut i = 0;
                $(
                    if i == index {
                        if c.$field == d.$field { return None; }
                        c.$field = d.$field;
                        return Some(c);
                    }
                    i += 1;
                )*
                let key = Self::keys().get(index)?;
                let _ = i;
                if c.sections.value(key) == d.sections.value(key) {
                    return None;
                }
                c.sections.reset(key).then_some(c)
            }
        }
    };
}

case_knobs! {
    gen9: bool,
    gen_grfs: u32,
    gen_zero_samples: bool,
    a6xx_wave128: bool,
    a6xx_predicates: u8,
    a6xx_registers: u32,
    a6xx_opt_predicates: bool,
    gen_spill_loop_weight: u32,
    gen_spill_use_weight: u32,
    gen_spill_def_weight: u32,
    gen_spill_choice: SpillChoice,
    gen_pick: Pick,
    a6xx_pred_pick: Pick,
    a6xx_gpr_pick: Pick,
    a6xx_spill_victim: Victim,
    gen_colour_order: ColourOrder,
}
