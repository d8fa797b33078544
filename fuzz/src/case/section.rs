//! A target's own knobs as a case carries them: a *section* that the case floor stores, draws,
//! names, sets and compares without knowing what is in it. A driver target declares its
//! section in its `knobs.rs` — a struct, its knob table ([`knob_section!`]) and its draws
//! ([`Section`]) — and `crate::targets::sections` lists every section, in header order. A case
//! holds them all (`super::sections::Sections`); the target reads its own back from there.

use arbitrary::Unstructured;
use std::any::Any;

/// A section's knob table, by name: what `--case KEY=VALUE` sets and the `; case:` header
/// lists. Written by [`knob_section!`] from the section's fields.
pub trait Knobs {
    /// The knob names, in header order (each begins with its target's name: `anv_platform`).
    fn keys(&self) -> &'static [&'static str];
    /// Knob `key`'s value as text; `None` for a key not this section's.
    fn get(&self, key: &str) -> Option<String>;
    /// Sets knob `key` from text (the error names the bad value); `None` for a key not this
    /// section's.
    fn set(&mut self, key: &str, value: &str) -> Option<Result<(), crate::Error>>;
    /// What knob `key` takes (`a|b|c`, or a sentence), for `--case help`.
    fn values_of(&self, key: &str) -> Option<String>;
}

/// A target's section: its knobs, and how an input draws them. Each draw has a fixed place in
/// decoding, so that inputs saved before a section existed decode to the same program and
/// other knobs: `draw_from_hash` when the first-byte knobs are drawn (from a hash of the
/// bytes after them, with the section's own salt; nothing is consumed), `draw_from_tail` after
/// the program (from the bytes the generator left, consumed in registry order).
pub trait Section: Knobs + Boxed + Send + Sync + 'static {
    /// Draws from a hash of `rest`, the input bytes after the first-byte knobs.
    fn draw_from_hash(&mut self, _rest: &[u8]) {}
    /// Draws from the bytes left after the program.
    fn draw_from_tail(&mut self, _tail: &mut Unstructured) {}
}

/// What the floor needs of a section's type to hold it in a box: written once, below, for every
/// section.
pub trait Boxed {
    /// A copy.
    fn boxed_clone(&self) -> Box<dyn Section>;
    /// The section at its defaults.
    fn fresh(&self) -> Box<dyn Section>;
    /// For `Sections::get`.
    fn as_any(&self) -> &dyn Any;
    /// For `Sections::get_mut`.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T: Section + Clone + Default> Boxed for T {
    fn boxed_clone(&self) -> Box<dyn Section> {
        Box::new(self.clone())
    }
    fn fresh(&self) -> Box<dyn Section> {
        Box::new(T::default())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// Writes a section's [`Knobs`] from its fields: `knob_section!(AnvKnobs { "anv_platform" =>
/// platform: Platform, … })`. Each field's type parses from and prints as the knob's text
/// (`FromStr`, `Display`) and says what it takes (`KnobValues`).
macro_rules! knob_section {
    ($ty:ty { $($key:literal => $field:ident: $fty:ty),* $(,)? }) => {
        impl $crate::case::section::Knobs for $ty {
            fn keys(&self) -> &'static [&'static str] {
                &[$($key),*]
            }
            fn get(&self, key: &str) -> Option<String> {
                match key {
                    $($key => Some(self.$field.to_string()),)*
                    _ => None,
                }
            }
            fn set(&mut self, key: &str, value: &str) -> Option<Result<(), $crate::Error>> {
                match key {
                    $($key => Some(
                        value
                            .parse::<$fty>()
                            .map(|v| self.$field = v)
                            .map_err(|e| $crate::Error::KnobValue(e.to_string())),
                    ),)*
                    _ => None,
                }
            }
            fn values_of(&self, key: &str) -> Option<String> {
                match key {
                    $($key => Some(
                        <$fty as $crate::targets::knob_values::KnobValues>::values(),
                    ),)*
                    _ => None,
                }
            }
        }
    };
}
pub(crate) use knob_section;
