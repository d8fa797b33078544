//! Planted bugs: switches that re-introduce known miscompile classes into the real passes,
//! so anyone can measure the fuzzer itself (how long until each is found, how small its
//! repro gets). All are off by default; a normal build never behaves differently.
//!
//! Each switch lives inside the real pass it breaks (`if plants.has(Plant::X) { … }`), not in
//! a special code path, so the fuzzer has to find it the way it would find the real bug.

use std::fmt;

macro_rules! plants {
    ($($variant:ident $name:literal $pass:literal $targets:literal $story:literal;)*) => {
        /// A planted bug.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Plant { $(#[doc = $story] $variant,)* }

        impl Plant {
            /// Every planted bug, in catalog order.
            pub const ALL: &'static [Plant] = &[$(Plant::$variant,)*];

            /// The name `--plant` takes.
            pub fn name(self) -> &'static str {
                match self { $(Plant::$variant => $name,)* }
            }

            /// The pass it lives in.
            pub fn pass(self) -> &'static str {
                match self { $(Plant::$variant => $pass,)* }
            }

            /// The targets that can show it (`all`, `gen8 gen16`, `gen16`, `a6xx`).
            pub fn targets(self) -> &'static str {
                match self { $(Plant::$variant => $targets,)* }
            }

            /// The real bug it mirrors, in one line.
            pub fn story(self) -> &'static str {
                match self { $(Plant::$variant => $story,)* }
            }
        }
    };
}

plants! {
    RemovePhisBackedge "remove-phis-backedge" "opt_remove_phis" "all"
        "treats any back-edge source as ignorable, not only the phi itself (nir/remove_phis)";
    FromSsaSwap "from-ssa-swap" "from_ssa" "all"
        "sequentialises parallel copies naively: the swap / lost-copy problem";
    DceLoopLiveOut "dce-loop-live-out" "opt_dce" "all"
        "deletes a loop whose result is used after it";
    CseSubgroupAcrossBlocks "cse-subgroup-across-blocks" "opt_cse" "middle"
        "lets CSE merge a subgroup operation with an equal one in a dominating block, which other invocations execute (a convergent op treated as pure)";
    AlgebraicNarrowCompareSigned "algebraic-narrow-compare-signed" "opt_algebraic" "middle"
        "narrows a signed compare of two zero-extended values keeping it signed: `ilt (u2u a), (u2u b)` becomes `ilt a, b`, where only `ult a, b` is right (a width-narrowing slip)";
    AlgebraicDropSextPair "algebraic-drop-sext-pair" "opt_algebraic" "middle"
        "drops `i2i (i2i x)` that truncates then sign-extends back to x's width, as if x fit the narrow width (16-bit narrowing assumed, not proved)";
    ZeroSamplesSharedPayload "zero-samples-shared-payload" "opt_zero_samples" "gen8 gen16"
        "trims a payload that a later message still reads (the liveness concern in review)";
    ZeroSamplesSimd16Step "zero-samples-simd16-step" "opt_zero_samples" "gen16"
        "steps mlen by 1 register instead of exec_size/8 (the first version's dispatch_width bug)";
    ZeroSamplesNonzero "zero-samples-nonzero" "opt_zero_samples" "gen8 gen16"
        "trims a trailing parameter that is zero only sometimes (e.g. a uniform)";
    GenSpillSlotReuse "gen-spill-slot-reuse" "gen_ra_spill" "gen8 gen16"
        "reuses a scratch slot while the value in it is still live";
    GenSpillOptimisticOnly "gen-spill-optimistic-only" "gen_ra" "gen8 gen16"
        "considers only optimistically pushed nodes for spilling: 'no registers to spill'";
    GenSimd16Overlap "gen-simd16-overlap" "gen_ra" "gen16"
        "drops the interference between a 2-GRF destination and its sources";
    A6xxMissingSyBackedge "a6xx-missing-sy-backedge" "a6xx_legalize" "a6xx"
        "legalize does not iterate to a fixpoint: no (sy) for a result consumed across a back-edge";
    A6xxNopShort "a6xx-nop-short" "a6xx_legalize" "a6xx"
        "one delay slot too few between an ALU producer and its consumer";
    A6xxPredBackedgeReload "a6xx-pred-backedge-reload" "a6xx_ra_predicates" "a6xx"
        "predicate RA skips the reload at the end of a back-edge block";
    A6xxBraoInvert "a6xx-brao-invert" "a6xx_opt_predicates" "a6xx"
        "inverts braa/brao by flipping the bits without swapping braa and brao";
    A6xxSpillReloadStale "a6xx-spill-reload-stale" "a6xx_ra" "a6xx"
        "reuses a reloaded GPR after the value was redefined in a loop";
    GenSamplerOffsetOrder "gen-sampler-offset-order" "gen_lower" "gen8 gen16"
        "packs texel offsets into the sampler header backwards (u in bits 3:0, r in 11:8), against brw_texture_offset";
    GenSharedBase "gen-shared-base" "gen_lower" "gen8 gen16"
        "places every shared array at word 0 of shared memory: the second array's words alias the first's (a shared-memory offset slip)";
    GenAtomicSignedness "gen-atomic-signedness" "gen_lower" "gen8 gen16"
        "lowers atomic imin/imax as umin/umax: a negative operand counts as a large one (a signedness slip)";
    GenElectFirstChannel "gen-elect-first-channel" "gen_lower" "gen8 gen16"
        "elects the workgroup's first channel whether it is enabled or not: under divergence no invocation, or a disabled one, is elected";
    LowerIbfeLogical "lower-ibfe-logical" "lower_bit_ops" "gen8 gen16 a6xx"
        "brings a signed bit field down with a logical shift: ibitfield_extract loses its sign (a lowering slip)";
    Ir3DecoderCmpsCond "ir3-decoder-cmps-cond" "ir3 decoder" "turnip"
        "OUR decoder reads a compare's condition one off (lt as le, gt as ge): a slip the proof re-runs must blame on us, not on ir3";
    TestHang "test-hang" "opt_dce" "all"
        "TEST ONLY: loops forever on some programs (one in 32 by value count), for the fuzz supervisor's watchdog";
    TestRecurse "test-recurse" "opt_remove_phis" "all"
        "TEST ONLY: recurses without bound on some programs (another one in 32): a stack overflow";
}

impl Plant {
    /// Whether this plant exists only to test the fuzzer's supervisor (a hang, a crash): not a
    /// miscompile class, left out of `selftest` and of in-process runs.
    pub fn test_only(self) -> bool {
        matches!(self, Plant::TestHang | Plant::TestRecurse)
    }

    /// Whether test plant `self` fires on a function with `values` values: one function in
    /// 32, a different one for each test plant (so both can be on in one run).
    pub fn test_trigger(self, values: usize) -> bool {
        values % 32 == if self == Plant::TestHang { 7 } else { 19 }
    }

    /// Looks a planted bug up by name.
    pub fn from_name(name: &str) -> Option<Plant> {
        Plant::ALL.iter().copied().find(|p| p.name() == name)
    }
}

impl fmt::Display for Plant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of planted bugs.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Plants(u32);

impl Plants {
    /// No bug planted.
    pub const NONE: Plants = Plants(0);

    /// Whether `p` is planted.
    #[inline]
    pub fn has(self, p: Plant) -> bool {
        self.0 & (1 << p as u32) != 0
    }

    /// The set with `p` added.
    pub fn with(self, p: Plant) -> Plants {
        Plants(self.0 | (1 << p as u32))
    }

    /// The set with `p` removed.
    pub fn without(self, p: Plant) -> Plants {
        Plants(self.0 & !(1 << p as u32))
    }

    /// The planted bugs, in catalog order.
    pub fn iter(self) -> impl Iterator<Item = Plant> {
        Plant::ALL.iter().copied().filter(move |&p| self.has(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_names_are_unique_and_round_trip() {
        for &p in Plant::ALL {
            assert_eq!(Plant::from_name(p.name()), Some(p));
        }
        let set = Plants::NONE
            .with(Plant::FromSsaSwap)
            .with(Plant::A6xxNopShort);
        assert_eq!(
            set.iter().collect::<Vec<_>>(),
            [Plant::FromSsaSwap, Plant::A6xxNopShort]
        );
        assert!(!Plants::NONE.has(Plant::FromSsaSwap));
    }
}
