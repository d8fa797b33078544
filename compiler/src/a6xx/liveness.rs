//! Shared analysis: bit sets and backward block liveness (live-in = upward-exposed uses ∪
//! (live-out − defs), live-out = ∪ live-in of the successors), iterated to a fixpoint.

/// One fixed-size set of small integers per block, all in one vector: a function's sets cost
/// one allocation, not one per block and per use (gen, kill, live-in, live-out).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitSets {
    /// Words per set.
    words: usize,
    bits: Vec<u64>,
}

impl BitSets {
    /// `sets` empty sets for elements `0..n`.
    pub fn new(sets: usize, n: usize) -> BitSets {
        let words = n.div_ceil(64);
        BitSets {
            words,
            bits: vec![0; sets * words],
        }
    }

    fn set(&self, s: usize) -> &[u64] {
        &self.bits[s * self.words..(s + 1) * self.words]
    }

    fn set_mut(&mut self, s: usize) -> &mut [u64] {
        &mut self.bits[s * self.words..(s + 1) * self.words]
    }

    /// Adds `i` to set `s`.
    pub fn insert(&mut self, s: usize, i: usize) {
        self.set_mut(s)[i / 64] |= 1 << (i % 64);
    }

    /// Whether set `s` holds `i`.
    pub fn contains(&self, s: usize, i: usize) -> bool {
        self.set(s)
            .get(i / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// The elements of set `s`, ascending.
    pub fn iter(&self, s: usize) -> impl Iterator<Item = usize> + '_ {
        crate::bits::members(self.set(s))
    }
}

/// Live-in and live-out sets per block.
pub struct Liveness {
    /// Live at block entry.
    pub live_in: BitSets,
    /// Live at block exit.
    pub live_out: BitSets,
}

/// Solves liveness given per-block upward-exposed uses (`gen`) and definitions (`kill`).
pub fn liveness(succs: &[Vec<usize>], gen: &BitSets, kill: &BitSets) -> Liveness {
    let nb = succs.len();
    debug_assert!(
        gen.words == kill.words
            && gen.bits.len() == nb * gen.words
            && kill.bits.len() == gen.bits.len(),
        "gen and kill sets are per block, over the same elements"
    );
    let mut live_in = gen.clone();
    let mut live_out = BitSets {
        words: gen.words,
        bits: vec![0; gen.bits.len()],
    };
    let mut out = vec![0u64; gen.words];
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..nb).rev() {
            out.fill(0);
            for &s in &succs[b] {
                for (o, &x) in out.iter_mut().zip(live_in.set(s)) {
                    *o |= x;
                }
            }
            let words = out.iter().zip(kill.set(b)).zip(gen.set(b));
            for (old, ((o, k), g)) in live_in.set_mut(b).iter_mut().zip(words) {
                let new = (o & !k) | g;
                if new != *old {
                    *old = new;
                    changed = true;
                }
            }
            live_out.set_mut(b).copy_from_slice(&out);
        }
    }
    Liveness { live_in, live_out }
}
