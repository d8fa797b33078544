//! A module's words as the bytes of a `.spv` file and back (SPIR-V's words, little-endian, as
//! SPIRV-Tools reads and writes them on this machine).

/// `words` as the bytes of a `.spv` file.
pub fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The words of a `.spv` file's `bytes`, if it holds a whole, non-zero number of them.
pub fn from_bytes(bytes: &[u8]) -> Option<Vec<u32>> {
    if bytes.is_empty() || !bytes.len().is_multiple_of(4) {
        return None;
    }
    Some(
        bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_through_bytes_and_a_partial_word_is_refused() {
        let words = [0x0723_0203, 0x0001_0300, 7];
        let bytes = to_bytes(&words);
        assert_eq!(&bytes[..4], &[0x03, 0x02, 0x23, 0x07]);
        assert_eq!(from_bytes(&bytes).unwrap(), words);
        assert_eq!(from_bytes(&bytes[..5]), None);
        assert_eq!(from_bytes(&[]), None);
    }
}
