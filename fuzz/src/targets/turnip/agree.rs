//! Our ir3 decoder (`sim::ir3`) checked against ir3's own listing, instruction by
//! instruction: the words come from turnip's pipeline cache ([`super::binary`]), the text is
//! what turnip returns as "IR3 Assembly". A difference is ours (a `decoder` finding), never
//! the driver's; a word we do not decode yet is counted by its reason, not judged.

use super::binary::{self, NotFound};
use crate::targets::driver::compile_only::{Capture, Disagreement};
use sim::ir3::{self, Gen, Instr, Undecodable};

/// The internal representation turnip names ir3's listing by.
pub const REPRESENTATION: &str = "IR3 Assembly";

/// One compile's ir3 code beside its listing.
pub struct Code {
    /// One word per listing line.
    pub words: Vec<u64>,
    /// Our decoding of each word.
    pub decoded: Vec<Result<Instr, Undecodable>>,
    /// ir3's listing as turnip returned it.
    pub text: String,
    /// Its instruction lines.
    pub listing: ir3::Listing,
}

/// Why a compile's code was not checked.
#[derive(Debug)]
pub enum Unchecked {
    /// turnip returned no "IR3 Assembly".
    NoListing,
    /// The words were not found in the pipeline cache.
    NotFound(NotFound),
}

impl std::fmt::Display for Unchecked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unchecked::NoListing => write!(f, "turnip returned no {REPRESENTATION}"),
            Unchecked::NotFound(e) => e.fmt(f),
        }
    }
}

/// The first line where ours and ir3's differ, with both texts.
#[derive(Debug, PartialEq, Eq)]
pub struct Difference {
    /// The instruction's index.
    pub index: usize,
    /// Its word.
    pub word: u64,
    /// ir3's text.
    pub theirs: String,
    /// Ours.
    pub ours: String,
}

impl Code {
    /// The code of `capture` (its first executable with a listing), decoded for `gen`.
    pub fn of(capture: &Capture, gen: Gen) -> Result<Code, Unchecked> {
        let text = (capture.executables.iter())
            .find_map(|x| x.representation(REPRESENTATION))
            .ok_or(Unchecked::NoListing)?;
        let listing = ir3::parse_listing(text);
        let lines: Vec<&str> = listing.instrs.iter().map(String::as_str).collect();
        let words = binary::find(&capture.pipeline_cache, &lines).map_err(Unchecked::NotFound)?;
        let decoded = ir3::decode_program(gen, &words);
        Ok(Code {
            words,
            decoded,
            listing,
            text: text.to_string(),
        })
    }

    /// The first instruction we decode and print otherwise than ir3 did (an instruction we
    /// cannot decode is not one: it is counted apart), or a label ir3 placed where our branch
    /// targets say none is.
    pub fn first_difference(&self) -> Option<Difference> {
        let ours = ir3::program_text(&self.decoded);
        for (i, (theirs, d)) in self.listing.instrs.iter().zip(&self.decoded).enumerate() {
            if d.is_ok() && !same_text(theirs, &ours[i]) {
                return Some(Difference {
                    index: i,
                    word: self.words[i],
                    theirs: theirs.clone(),
                    ours: ours[i].clone(),
                });
            }
        }
        let every_decoded = self.decoded.iter().all(Result::is_ok);
        let targets = ir3::branch_targets(&self.decoded);
        let mut labels = self.listing.labels.clone();
        labels.sort_unstable();
        labels.dedup();
        if every_decoded && targets != labels {
            let at = (targets.iter().chain(&labels))
                .find(|t| targets.contains(t) != labels.contains(t))
                .copied()
                .unwrap_or_default();
            return Some(Difference {
                index: at,
                word: self.words.get(at).copied().unwrap_or_default(),
                theirs: format!("labels at {labels:?}"),
                ours: format!("branch targets at {targets:?}"),
            });
        }
        None
    }

    /// Why each word we do not decode was not, one entry per word.
    pub fn undecoded(&self) -> impl Iterator<Item = &Undecodable> {
        self.decoded.iter().filter_map(|d| d.as_ref().err())
    }

    /// `--emit asm`'s table: each word, ir3's text, and ours where it differs.
    pub fn annotated(&self) -> String {
        let ours = ir3::program_text(&self.decoded);
        // Read here, not in `of`: only a listing shown needs it, not every fuzzed compile.
        let mut out = match &ir3::parse_header(&self.text) {
            Ok(h) => {
                let ids: Vec<String> = (h.inputs.iter())
                    .map(|i| format!("{} in {}", i.sysval, i.reg))
                    .collect();
                let regions: Vec<String> = (h.offsets.iter())
                    .map(|(name, at, n)| {
                        format!(
                            "{name} at c{}.{} ({n} vec4)",
                            at / 4,
                            XYZW[*at as usize % 4]
                        )
                    })
                    .collect();
                format!(
                    "// -- dispatch (ir3's header): {}; consts: {}; {} immediate block(s), {} UBO range(s); {} full, {} half registers, constlen {}\n",
                    ids.join(", "),
                    if regions.is_empty() { "none".into() } else { regions.join(", ") },
                    h.immediates.len(),
                    h.ubo_ranges.len(),
                    h.full_regs,
                    h.half_regs,
                    h.constlen
                )
            }
            Err(e) => format!("// -- dispatch: {e}\n"),
        };
        out += "// -- ir3's words (from the pipeline cache), ir3's text, ours where it differs\n";
        for (i, theirs) in self.listing.instrs.iter().enumerate() {
            let mark = if same_text(theirs, &ours[i]) {
                String::new()
            } else {
                format!("    // ours: {}", ours[i])
            };
            out += &format!("{i:4} {:016x} {theirs}{mark}\n", self.words[i]);
        }
        out
    }
}

const XYZW: [char; 4] = ['x', 'y', 'z', 'w'];

/// Texts compared as ir3 spaces them loosely: runs of whitespace are one space.
fn same_text(a: &str, b: &str) -> bool {
    a.split_whitespace().eq(b.split_whitespace())
}

/// A difference as a finding's detail and bucket (the mnemonic ir3 printed).
pub fn disagreement(d: &Difference) -> Disagreement {
    Disagreement {
        detail: format!(
            "our ir3 decoder disagrees with ir3 at instruction {} [{:016x}]: ir3 {:?} vs ours {:?}",
            d.index, d.word, d.theirs, d.ours
        ),
        class: binary::mnemonic(&d.theirs).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_runs_do_not_differ_and_the_bucket_is_the_mnemonic() {
        assert!(same_text(
            "(nop3) add.u r0.w,  r48.x, r0.w",
            "(nop3) add.u r0.w, r48.x, r0.w"
        ));
        assert!(!same_text(
            "add.u r0.w, r48.x, r0.w",
            "add.s r0.w, r48.x, r0.w"
        ));
        let d = Difference {
            index: 3,
            word: 0x42,
            theirs: "(ss)(nop2) add.u r0.x, r48.x, (last)r0.x".into(),
            ours: "(ss)(nop2) add.u r0.x, r48.x, r0.x".into(),
        };
        let g = disagreement(&d);
        assert_eq!(g.class, "add.u");
        assert!(
            g.detail.contains("instruction 3 [0000000000000042]"),
            "{}",
            g.detail
        );
    }
}
