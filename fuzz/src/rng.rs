//! A small deterministic PRNG (SplitMix64) for making fuzz inputs from a seed: iteration `i`
//! of seed `s` always gets the same bytes, whatever the number of worker threads.

/// SplitMix64: tiny, fast, and good enough to fill fuzz inputs.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator for iteration `index` of the run seeded `seed`.
    pub fn for_input(seed: u64, index: u64) -> Self {
        let mut g = SplitMix64(seed ^ 0x6a09_e667_f3bc_c909);
        let mixed = g.next_u64() ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        SplitMix64(mixed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// Fills `out` with random bytes.
    pub fn fill(&mut self, out: &mut [u8]) {
        for chunk in out.chunks_mut(8) {
            let bytes = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
    }
}

/// The fuzz input for iteration `index` of the run seeded `seed`, written into `buf`
/// (whose capacity is reused): between `min_len` and `max_len` random bytes.
pub fn input_bytes(seed: u64, index: u64, min_len: usize, max_len: usize, buf: &mut Vec<u8>) {
    let mut g = SplitMix64::for_input(seed, index);
    let len = g.range(min_len as u64, max_len.max(min_len) as u64) as usize;
    buf.clear();
    buf.resize(len, 0);
    g.fill(buf);
}

/// The FNV-1a hash of `bytes`: the seed of the draws made from a hash of an input's rest.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_reproducible_and_distinct() {
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        input_bytes(7, 3, 16, 64, &mut a);
        input_bytes(7, 3, 16, 64, &mut b);
        input_bytes(7, 4, 16, 64, &mut c);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!((16..=64).contains(&a.len()));
    }
}
