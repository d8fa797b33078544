//! Backend choices with more than one correct answer, as values a case can vary.
//!
//! A register allocator decides which value to spill, which register to give, which predicate
//! to evict. Any answer is correct; a backend bug that only one answer exposes hides as long
//! as the answer never changes. The fuzzer therefore draws these per case (recorded in the
//! case configuration, so every repro carries them) and the defaults are the backends' tuned
//! behaviour. Each allocator consults its struct at its few decision points only.

use std::fmt;
use std::str::FromStr;

/// Declares a choice enum with its text names (for `--case KEY=VALUE` and headers).
macro_rules! choice {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident = $text:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
        pub enum $name { $($(#[$vm])* $v),* }

        impl $name {
            /// Every value, the default first.
            pub const ALL: &'static [$name] = &[$($name::$v),*];

            /// The text name.
            pub fn name(self) -> &'static str {
                match self { $($name::$v => $text),* }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        impl FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                $name::ALL.iter().copied().find(|v| v.name() == s).ok_or_else(|| {
                    let names: Vec<_> = $name::ALL.iter().map(|v| v.name()).collect();
                    format!("unknown value {s:?}; known: {}", names.join(", "))
                })
            }
        }
    };
}

choice! {
    /// Which register (or base) to take among the free ones.
    Pick {
        /// The lowest free one (Mesa's default).
        #[default]
        Lowest = "lowest",
        /// The highest free one.
        Highest = "highest",
        /// The first free one at or after the one past the last pick, wrapping around.
        Rotating = "rotating",
    }
}

choice! {
    /// Which Gen register to spill when colouring fails.
    SpillChoice {
        /// Most pressure on neighbours per unit of spill cost (Mesa's benefit/cost).
        #[default]
        Ratio = "ratio",
        /// The least spill cost (most pressure among equals).
        Cheapest = "cheapest",
        /// The longest live interval (Chaitin's classic).
        Longest = "longest",
    }
}

choice! {
    /// Which a6xx interval to spill when linear scan runs out of registers.
    Victim {
        /// The active or new interval that ends furthest away (Poletto & Sarkar).
        #[default]
        Furthest = "furthest",
        /// Always the new interval.
        Newest = "newest",
    }
}

choice! {
    /// In which order Gen simplify removes the trivially colourable nodes (so which nodes
    /// select colours first and which bases they take). Either order keeps Briggs' guarantee.
    ColourOrder {
        /// Sweeping virtual registers upwards (Mesa's order).
        #[default]
        Ascending = "ascending",
        /// Sweeping downwards.
        Descending = "descending",
    }
}

/// The Gen allocator's choices.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct GenHeuristics {
    /// Spill cost factor per loop level (Mesa: 10).
    pub loop_weight: u32,
    /// Spill cost per GRF read.
    pub use_weight: u32,
    /// Spill cost per GRF written.
    pub def_weight: u32,
    /// Which register to spill.
    pub spill: SpillChoice,
    /// Which free base a node gets.
    pub pick: Pick,
    /// Simplify's sweep order.
    pub order: ColourOrder,
}

impl Default for GenHeuristics {
    fn default() -> Self {
        GenHeuristics {
            loop_weight: 10,
            use_weight: 1,
            def_weight: 1,
            spill: SpillChoice::Ratio,
            pick: Pick::Lowest,
            order: ColourOrder::Ascending,
        }
    }
}

/// The a6xx allocators' choices.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct A6xxHeuristics {
    /// Which free (or evictable) predicate register a predicate gets.
    pub pred_pick: Pick,
    /// Which free GPR an interval gets.
    pub gpr_pick: Pick,
    /// Which interval to spill.
    pub victim: Victim,
}

/// A cursor applying a [`Pick`] over candidate positions `0..n`.
#[derive(Clone, Debug, Default)]
pub struct Picker {
    pick: Pick,
    next: usize,
}

impl Picker {
    /// A picker following `pick`, rotating from 0.
    pub fn new(pick: Pick) -> Picker {
        Picker { pick, next: 0 }
    }

    /// The first position in `0..n` that `ok` accepts in the pick's order; a rotating
    /// picker's next search starts one past `width` positions after the one found.
    pub fn find(&mut self, n: usize, width: usize, ok: impl Fn(usize) -> bool) -> Option<usize> {
        if n == 0 {
            return None;
        }
        let found = match self.pick {
            Pick::Lowest => (0..n).find(|&i| ok(i)),
            Pick::Highest => (0..n).rev().find(|&i| ok(i)),
            Pick::Rotating => {
                let start = self.next % n;
                (start..n).chain(0..start).find(|&i| ok(i))
            }
        };
        if let Some(i) = found {
            self.next = i + width;
        }
        found
    }

    /// [`Picker::find`] over the set bits of `fits`, all below `n` (at most 128).
    pub fn find_in_mask(&mut self, fits: u128, n: usize, width: usize) -> Option<usize> {
        if fits == 0 || n == 0 {
            return None;
        }
        let found = match self.pick {
            Pick::Lowest => fits.trailing_zeros() as usize,
            Pick::Highest => 127 - fits.leading_zeros() as usize,
            Pick::Rotating => {
                let after = fits & (u128::MAX << (self.next % n));
                if after != 0 {
                    after.trailing_zeros() as usize
                } else {
                    fits.trailing_zeros() as usize
                }
            }
        };
        self.next = found + width;
        Some(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_reject_typos() {
        for &p in Pick::ALL {
            assert_eq!(p.name().parse::<Pick>(), Ok(p));
        }
        for &s in SpillChoice::ALL {
            assert_eq!(s.to_string().parse::<SpillChoice>(), Ok(s));
        }
        let e = "lowst".parse::<Pick>().unwrap_err();
        assert!(e.contains("lowest, highest, rotating"), "{e}");
    }

    #[test]
    fn pickers_search_in_their_order() {
        let free = [false, true, true, false, true];
        let mut lowest = Picker::new(Pick::Lowest);
        assert_eq!(lowest.find(5, 1, |i| free[i]), Some(1));
        assert_eq!(lowest.find(5, 1, |i| free[i]), Some(1));
        let mut highest = Picker::new(Pick::Highest);
        assert_eq!(highest.find(5, 1, |i| free[i]), Some(4));
        let mut rot = Picker::new(Pick::Rotating);
        assert_eq!(rot.find(5, 1, |i| free[i]), Some(1));
        assert_eq!(rot.find(5, 1, |i| free[i]), Some(2));
        assert_eq!(rot.find(5, 1, |i| free[i]), Some(4));
        assert_eq!(rot.find(5, 1, |i| free[i]), Some(1), "wraps around");
        assert_eq!(rot.find(5, 1, |_| false), None);
    }

    #[test]
    fn mask_pickers_agree_with_slice_pickers() {
        let masks = [0b10110u128, 1 << 127 | 1, 0, u128::MAX >> 3, 0b1000_0100];
        for &pick in Pick::ALL {
            for width in [1, 2, 4] {
                let (mut a, mut b) = (Picker::new(pick), Picker::new(pick));
                for round in 0..12 {
                    let m = masks[round % masks.len()];
                    let n = 128 - m.leading_zeros() as usize;
                    let n = if m == 0 { 5 } else { n };
                    let want = a.find(n, width, |i| m >> i & 1 == 1);
                    assert_eq!(b.find_in_mask(m, n, width), want, "{pick} round {round}");
                }
            }
        }
    }
}
