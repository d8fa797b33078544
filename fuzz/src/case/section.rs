//! A target's own knobs as a case carries them: a *section* that the case floor stores, draws,
//! names, sets and compares without knowing what is in it. A driver target declares its
//! section in its `knobs.rs` — a struct, its knob table ([`knob_section!`]) and its draws
//! ([`Section`]) — and `crate::pipelines::sections` lists every section, in header order. The
//! target reads its own back with [`Sections::get`].

use arbitrary::Unstructured;
use std::any::Any;
use std::fmt;

/// A section's knob table, by name: what `--case KEY=VALUE` sets and the `; case:` header
/// lists. Written by [`knob_section!`] from the section's fields.
pub trait Knobs {
    /// The knob names, in header order (each begins with its target's name: `anv_platform`).
    fn keys(&self) -> &'static [&'static str];
    /// Knob `key`'s value as text; `None` for a key not this section's.
    fn get(&self, key: &str) -> Option<String>;
    /// Sets knob `key` from text (the error names the bad value); `None` for a key not this
    /// section's.
    fn set(&mut self, key: &str, value: &str) -> Option<Result<(), String>>;
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
    /// For [`Sections::get`].
    fn as_any(&self) -> &dyn Any;
    /// For [`Sections::get_mut`].
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
            fn set(&mut self, key: &str, value: &str) -> Option<Result<(), String>> {
                match key {
                    $($key => Some(
                        value
                            .parse::<$fty>()
                            .map(|v| self.$field = v)
                            .map_err(|e| e.to_string()),
                    ),)*
                    _ => None,
                }
            }
            fn values_of(&self, key: &str) -> Option<String> {
                match key {
                    $($key => Some(
                        <$fty as $crate::pipelines::knob_values::KnobValues>::values(),
                    ),)*
                    _ => None,
                }
            }
        }
    };
}
pub(crate) use knob_section;

/// Every target's section, in registry order (`crate::pipelines::sections`).
pub struct Sections(Vec<Box<dyn Section>>);

impl Sections {
    /// Target section `T`. Every section a target reads is registered: a missing one is a
    /// programming error, which the registry's test catches.
    pub fn get<T: Section>(&self) -> &T {
        (self.0.iter())
            .find_map(|s| s.as_any().downcast_ref::<T>())
            .expect("the section is registered in pipelines::sections")
    }

    /// Target section `T`, to change.
    pub fn get_mut<T: Section>(&mut self) -> &mut T {
        (self.0.iter_mut())
            .find_map(|s| s.as_any_mut().downcast_mut::<T>())
            .expect("the section is registered in pipelines::sections")
    }

    /// Every section's knob names, in header order.
    pub fn keys(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.0.iter().flat_map(|s| s.keys().iter().copied())
    }

    /// Knob `key`'s value as text, if a section has it.
    pub fn value(&self, key: &str) -> Option<String> {
        self.0.iter().find_map(|s| s.get(key))
    }

    /// Sets knob `key`; `None` when no section has it.
    pub fn set(&mut self, key: &str, value: &str) -> Option<Result<(), String>> {
        self.0.iter_mut().find_map(|s| s.set(key, value))
    }

    /// What knob `key` takes, if a section has it.
    pub fn values_of(&self, key: &str) -> Option<String> {
        self.0.iter().find_map(|s| s.values_of(key))
    }

    /// Knob `key` back at its default; `false` when no section has it.
    pub fn reset(&mut self, key: &str) -> bool {
        for s in &mut self.0 {
            if let Some(default) = s.fresh().get(key) {
                return s.set(key, &default).is_some_and(|r| r.is_ok());
            }
        }
        false
    }

    /// Every section's knobs with their values as text, in header order.
    pub fn knobs(&self) -> Vec<(&'static str, String)> {
        (self.0.iter())
            .flat_map(|s| {
                s.keys()
                    .iter()
                    .map(move |&k| (k, s.get(k).unwrap_or_default()))
            })
            .collect()
    }

    /// Every section's hash draw ([`Section::draw_from_hash`]).
    pub fn draw_from_hash(&mut self, rest: &[u8]) {
        for s in &mut self.0 {
            s.draw_from_hash(rest);
        }
    }

    /// Every section's draw after the program, in registry order.
    pub fn draw_from_tail(&mut self, tail: &mut Unstructured) {
        for s in &mut self.0 {
            s.draw_from_tail(tail);
        }
    }
}

impl Default for Sections {
    /// Every registered section at its defaults.
    fn default() -> Self {
        Sections(crate::pipelines::sections::all())
    }
}

impl Clone for Sections {
    fn clone(&self) -> Self {
        Sections(self.0.iter().map(|s| s.boxed_clone()).collect())
    }
}

impl PartialEq for Sections {
    /// Equal when every knob reads the same (a knob's text is its value: it parses back).
    fn eq(&self, other: &Self) -> bool {
        self.knobs() == other.knobs()
    }
}

impl Eq for Sections {}

impl fmt::Debug for Sections {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.knobs()).finish()
    }
}
