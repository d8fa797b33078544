//! Bit sets stored as `u64` words, as both backends' liveness keeps them.

/// The members of the set whose words are `words`, ascending: a set bit at a time, not all 64
/// positions of every word.
pub fn members(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(w, &bits)| {
        let mut rest = bits;
        std::iter::from_fn(move || {
            (rest != 0).then(|| {
                let b = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                w * 64 + b
            })
        })
    })
}
