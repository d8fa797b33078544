//! Knob types made of a driver's own words, for the compile-only targets: one of a fixed list
//! (a GPU the shim can be: [`OneOf`]) and a set of debug switches ([`SetOf`]). The lists are
//! the targets' (their `knobs.rs`), fixed in the source so an input decodes the same on every
//! machine; the switch words are checked against the driver's library when it is opened.

use crate::targets::knob_values::KnobValues;
use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

/// A list of words, the first the default, and the knob that takes them.
pub trait Words: 'static {
    /// The knob's name, for errors.
    const KNOB: &'static str;
    /// The words, the default (or, for a set, the first switch) first.
    const WORDS: &'static [&'static str];
}

/// One of `L`'s words.
pub struct OneOf<L: Words>(usize, PhantomData<L>);

impl<L: Words> OneOf<L> {
    /// Its word.
    pub fn word(&self) -> &'static str {
        L::WORDS[self.0]
    }

    /// Each word as often, from a hash.
    pub fn draw(hash: u64) -> Self {
        OneOf((hash % L::WORDS.len() as u64) as usize, PhantomData)
    }
}

/// A set of `L`'s words.
pub struct SetOf<L: Words>(u64, PhantomData<L>);

impl<L: Words> SetOf<L> {
    /// Its words, in the list's order.
    pub fn words(&self) -> Vec<&'static str> {
        (L::WORDS.iter().enumerate())
            .filter(|(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, w)| *w)
            .collect()
    }

    /// None half the time; else one word, each as often, and each other word one time in
    /// eight besides (so pairs are drawn too).
    pub fn draw(hash: u64) -> Self {
        if hash.is_multiple_of(2) {
            return SetOf(0, PhantomData);
        }
        let n = L::WORDS.len() as u64;
        let mut bits = 1 << ((hash >> 1) % n);
        for i in 0..n.min(16) {
            if (hash >> (8 + 3 * i)) & 7 == 0 {
                bits |= 1 << i;
            }
        }
        SetOf(bits, PhantomData)
    }
}

impl<L: Words> Default for OneOf<L> {
    fn default() -> Self {
        OneOf(0, PhantomData)
    }
}

impl<L: Words> Default for SetOf<L> {
    fn default() -> Self {
        SetOf(0, PhantomData)
    }
}

impl<L: Words> Clone for OneOf<L> {
    fn clone(&self) -> Self {
        OneOf(self.0, PhantomData)
    }
}

impl<L: Words> Clone for SetOf<L> {
    fn clone(&self) -> Self {
        SetOf(self.0, PhantomData)
    }
}

impl<L: Words> PartialEq for OneOf<L> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl<L: Words> PartialEq for SetOf<L> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl<L: Words> Eq for OneOf<L> {}
impl<L: Words> Eq for SetOf<L> {}

impl<L: Words> fmt::Debug for OneOf<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

impl<L: Words> fmt::Debug for SetOf<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl<L: Words> fmt::Display for OneOf<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

impl<L: Words> fmt::Display for SetOf<L> {
    /// `none`, or the words joined by `+`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.words() {
            w if w.is_empty() => f.write_str("none"),
            w => f.write_str(&w.join("+")),
        }
    }
}

impl<L: Words> FromStr for OneOf<L> {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        (L::WORDS.iter().position(|w| *w == s))
            .map(|i| OneOf(i, PhantomData))
            .ok_or_else(|| format!("unknown {} {s:?}; known: {}", L::KNOB, L::WORDS.join(", ")))
    }
}

impl<L: Words> FromStr for SetOf<L> {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let mut bits = 0;
        if s != "none" {
            for w in s.split('+') {
                let i = L::WORDS.iter().position(|k| *k == w).ok_or_else(|| {
                    format!(
                        "unknown {} word {w:?}; words: {} (joined by +), or none",
                        L::KNOB,
                        L::WORDS.join(", ")
                    )
                })?;
                bits |= 1 << i;
            }
        }
        Ok(SetOf(bits, PhantomData))
    }
}

impl<L: Words> KnobValues for OneOf<L> {
    fn values() -> String {
        L::WORDS.join("|")
    }
}

impl<L: Words> KnobValues for SetOf<L> {
    fn values() -> String {
        format!("none, or {} joined by `+`", L::WORDS.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fruit;
    impl Words for Fruit {
        const KNOB: &'static str = "fruit";
        const WORDS: &'static [&'static str] = &["apple", "pear", "plum"];
    }

    #[test]
    fn words_round_trip_and_every_one_is_drawn() {
        let mut seen = [0; 3];
        for h in 0..2000u64 {
            let h = h.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let set = SetOf::<Fruit>::draw(h);
            assert_eq!(set.to_string().parse::<SetOf<Fruit>>().unwrap(), set);
            for w in set.words() {
                seen[Fruit::WORDS.iter().position(|k| *k == w).unwrap()] += 1;
            }
            let one = OneOf::<Fruit>::draw(h);
            assert_eq!(one.to_string().parse::<OneOf<Fruit>>().unwrap(), one);
        }
        assert!(seen.iter().all(|&n| n > 200), "{seen:?}");
        assert_eq!(SetOf::<Fruit>::default().to_string(), "none");
        assert!("kiwi"
            .parse::<SetOf<Fruit>>()
            .unwrap_err()
            .contains("apple, pear, plum"));
        assert!("kiwi".parse::<OneOf<Fruit>>().is_err());
    }
}
