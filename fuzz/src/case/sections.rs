//! Every target's section of a case ([`super::section`]), in the registry's order
//! (`crate::targets::sections`): stored, drawn, set by name and compared without being known.

use super::section::Section;
use arbitrary::Unstructured;
use std::fmt;

/// Every target's section, in registry order (`crate::targets::sections`).
pub struct Sections(Vec<Box<dyn Section>>);

impl Sections {
    /// Target section `T`. Every section a target reads is registered: a missing one is a
    /// programming error, which the registry's test catches.
    pub fn get<T: Section>(&self) -> &T {
        (self.0.iter())
            .find_map(|s| s.as_any().downcast_ref::<T>())
            .expect("the section is registered in targets::sections")
    }

    /// Target section `T`, to change.
    pub fn get_mut<T: Section>(&mut self) -> &mut T {
        (self.0.iter_mut())
            .find_map(|s| s.as_any_mut().downcast_mut::<T>())
            .expect("the section is registered in targets::sections")
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
    pub fn set(&mut self, key: &str, value: &str) -> Option<Result<(), crate::Error>> {
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
        Sections(crate::targets::sections::all())
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
