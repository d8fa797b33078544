//! ir3's machine code, found in turnip's pipeline-cache data.
//!
//! turnip returns ir3's listing as text ("IR3 Assembly") with no instruction words, but it
//! keeps the binary verbatim in what it serialises of the pipeline (`vkGetPipelineCacheData`:
//! ir3's variant is stored as a fixed block of its fields, then the code, then its constant
//! state — `ir3_disk_cache.c`, `store_variant`). The block before the code changes size
//! between Mesa versions, so the code is not found by offset: it is the one window of eight
//! bytes per listed instruction whose `nop` and `end` lines fall on `nop` and `end` words.
//! That needs nothing of the layout (another version's block reads alike) and only two opcode
//! patterns of the ISA, not the decoder under test.

/// How the code was not found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotFound {
    /// The listing has no instruction lines.
    EmptyListing,
    /// No window of the cache data matches the listing.
    NoWindow {
        /// Instruction lines in the listing.
        lines: usize,
        /// Bytes of cache data searched.
        bytes: usize,
    },
    /// More than one window matches (the listing's nops and end do not pin it down).
    Ambiguous {
        /// Byte offsets of the first two matches.
        at: [usize; 2],
    },
}

impl std::fmt::Display for NotFound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotFound::EmptyListing => write!(f, "ir3's listing has no instructions"),
            NotFound::NoWindow { lines, bytes } => write!(
                f,
                "no {lines}-instruction window of the {bytes}-byte pipeline cache matches \
                 ir3's listing"
            ),
            NotFound::Ambiguous { at } => write!(
                f,
                "ir3's code matches the pipeline cache at bytes {} and {}",
                at[0], at[1]
            ),
        }
    }
}

/// What a listing line says of its word, as far as locating needs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Nop,
    End,
    Other,
}

/// A listing line's mnemonic: its first word after the leading `(flag)` groups
/// (`(jp)(nop3) add.u r0.x, …` → `add.u`).
pub fn mnemonic(line: &str) -> &str {
    let mut rest = line.trim();
    while let Some(after) = rest.strip_prefix('(') {
        match after.split_once(')') {
            Some((_, tail)) => rest = tail.trim_start(),
            None => break,
        }
    }
    rest.split_whitespace().next().unwrap_or("")
}

fn shape(line: &str) -> Shape {
    match mnemonic(line) {
        "nop" => Shape::Nop,
        "end" => Shape::End,
        _ => Shape::Other,
    }
}

/// Whether `word` is a category-0 instruction with opcode `opc` (bits 61–63 zero, the opcode
/// at 55–58, its high bit 51 zero: `ir3-cat0.xml`).
fn is_cat0(word: u64, opc: u64) -> bool {
    word >> 61 == 0 && (word >> 55) & 0xf == opc && (word >> 51) & 1 == 0
}

fn fits(word: u64, shape: Shape) -> bool {
    match shape {
        Shape::Nop => is_cat0(word, 0),
        Shape::End => is_cat0(word, 6),
        // A named instruction is never an all-zero word (that is a plain nop).
        Shape::Other => word != 0,
    }
}

fn word_at(data: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&data[at..at + 8]);
    u64::from_le_bytes(b)
}

/// ir3's code for the listing whose instruction lines are `lines` (as ir3 printed them, in
/// order, label lines dropped), found in pipeline-cache data `cache`: one 64-bit word per line.
pub fn find(cache: &[u8], lines: &[&str]) -> Result<Vec<u64>, NotFound> {
    if lines.is_empty() {
        return Err(NotFound::EmptyListing);
    }
    let shapes: Vec<Shape> = lines.iter().map(|l| shape(l)).collect();
    let len = 8 * shapes.len();
    // The most telling lines first: a mismatch at a window's start is the common case.
    let mut order: Vec<usize> = (0..shapes.len()).collect();
    order.sort_by_key(|&i| shapes[i] == Shape::Other);
    let no_window = NotFound::NoWindow {
        lines: lines.len(),
        bytes: cache.len(),
    };
    if cache.len() < len {
        return Err(no_window);
    }
    let mut found = Vec::new();
    for start in 0..=cache.len() - len {
        let window = &cache[start..start + len];
        if order
            .iter()
            .all(|&i| fits(word_at(window, 8 * i), shapes[i]))
        {
            found.push(start);
            if found.len() == 2 {
                break;
            }
        }
    }
    match found[..] {
        [at] => Ok((0..shapes.len())
            .map(|i| word_at(cache, at + 8 * i))
            .collect()),
        [] => Err(no_window),
        [a, b, ..] => Err(NotFound::Ambiguous { at: [a, b] }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOP: u64 = 0;
    const RPT2_NOP: u64 = 2 << 40;
    const END: u64 = 6 << 55;
    const SY_END: u64 = END | 1 << 60;
    const MOV: u64 = 0x2004_4000_0000_0000;

    fn blob(prefix: usize, words: &[u64], suffix: usize) -> Vec<u8> {
        let mut b: Vec<u8> = (0..prefix).map(|i| (i * 7 + 3) as u8).collect();
        words.iter().for_each(|w| b.extend(w.to_le_bytes()));
        b.extend((0..suffix).map(|i| (i * 13 + 1) as u8));
        b
    }

    #[test]
    fn the_code_is_found_at_any_offset_by_its_nops_and_end() {
        let lines = ["mov.f32f32 r0.w, c1.x", "(rpt2)nop", "(sy)end", "nop"];
        let words = [MOV, RPT2_NOP, SY_END, NOP];
        for prefix in [0, 3, 61, 200] {
            let b = blob(prefix, &words, 17);
            assert_eq!(find(&b, &lines), Ok(words.to_vec()), "prefix {prefix}");
        }
    }

    #[test]
    fn a_listing_that_is_not_there_or_is_everywhere_is_said_so() {
        let b = blob(40, &[MOV, END, NOP], 8);
        let e = find(&b, &["mov.u32u32 r0.x, 0", "nop", "end"]).unwrap_err();
        assert_eq!(
            e,
            NotFound::NoWindow {
                lines: 3,
                bytes: b.len()
            }
        );
        assert!(e.to_string().contains("3-instruction window"), "{e}");
        let zeros = vec![0u8; 64];
        assert!(matches!(
            find(&zeros, &["nop"]),
            Err(NotFound::Ambiguous { at: [0, 1] })
        ));
        assert_eq!(find(&zeros, &[]), Err(NotFound::EmptyListing));
        assert!(find(&[0u8; 4], &["nop"]).is_err());
    }

    #[test]
    fn flags_before_the_mnemonic_do_not_hide_it() {
        assert!(shape("(jp)(eogm)nop") == Shape::Nop);
        assert!(shape("(sy)(ss)end") == Shape::End);
        assert!(shape("(nop3) add.u r0.w, r48.x, r0.w") == Shape::Other);
        assert_eq!(
            mnemonic("(ss)(nop2) add.u r0.x, r48.x, (last)r0.x"),
            "add.u"
        );
    }
}
