//! Shared analysis: bit sets and backward block liveness (live-in = upward-exposed uses ∪
//! (live-out − defs), live-out = ∪ live-in of the successors), iterated to a fixpoint.

/// A fixed-size set of small integers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BitSet(Vec<u64>);

impl BitSet {
    /// An empty set for elements `0..n`.
    pub fn new(n: usize) -> BitSet {
        BitSet(vec![0; n.div_ceil(64)])
    }

    /// Adds `i`.
    pub fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    /// Removes `i`.
    pub fn remove(&mut self, i: usize) {
        self.0[i / 64] &= !(1 << (i % 64));
    }

    /// Whether `i` is in.
    pub fn contains(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// `self |= other`; whether anything changed.
    pub fn union_with(&mut self, other: &BitSet) -> bool {
        let mut changed = false;
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            let n = *a | b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }

    /// The elements, ascending (a set bit at a time, not all 64 positions of a word).
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(k, &w)| {
            let mut rest = w;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let b = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    k * 64 + b
                })
            })
        })
    }

    /// Removes every element.
    pub fn clear(&mut self) {
        self.0.fill(0);
    }
}

/// Live-in and live-out sets per block.
pub struct Liveness {
    /// Live at block entry.
    pub live_in: Vec<BitSet>,
    /// Live at block exit.
    pub live_out: Vec<BitSet>,
}

/// Solves liveness given per-block upward-exposed uses (`gen`) and definitions (`kill`).
pub fn liveness(succs: &[Vec<usize>], gen: &[BitSet], kill: &[BitSet], n: usize) -> Liveness {
    let nb = succs.len();
    debug_assert!(
        gen.iter().chain(kill).all(|s| s.0.len() == n.div_ceil(64)),
        "gen and kill sets are for {n} elements"
    );
    let mut live_in = gen.to_vec();
    let mut live_out = vec![BitSet::new(n); nb];
    let mut changed = true;
    // Sets are updated in place, word by word: a fresh live-out and live-in per block and pass
    // were two allocations each.
    while changed {
        changed = false;
        for b in (0..nb).rev() {
            let mut out = std::mem::take(&mut live_out[b]);
            out.clear();
            for &s in &succs[b] {
                out.union_with(&live_in[s]);
            }
            let words = out.0.iter().zip(&kill[b].0).zip(&gen[b].0);
            for (old, ((o, k), g)) in live_in[b].0.iter_mut().zip(words) {
                let new = (o & !k) | g;
                if new != *old {
                    *old = new;
                    changed = true;
                }
            }
            live_out[b] = out;
        }
    }
    Liveness { live_in, live_out }
}
