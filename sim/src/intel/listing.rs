//! brw's disassembly listing with `INTEL_DEBUG=hex` (what anv returns as the "GEN Assembly"
//! internal representation), read back into instructions — bytes and brw's text — and checked
//! against our decoder: every instruction's bytes must decode, and our printed form must say
//! what brw's says, field by field (whitespace-separated tokens, so column padding does not
//! matter). A disagreement is a bug of our decoder, never of brw.
//!
//! Listing shape (`brw_disassemble` in `brw_eu.c`, Mesa 25.0.7): header lines (anv's push
//! constant ranges), then per instruction the bytes as hex pairs (8 for compacted, 16 for
//! native) followed by brw's text; a send continues on a second, indented line; `LABELn:`
//! lines (after an empty line) mark jump targets. Mesa 26's brw prints no header, keeps a send
//! on one line (its message in a `//` comment) and names labels `Ln:`; which syntax a listing is
//! in is the caller's to say ([`Syntax`], from the Mesa version), so that a listing in the
//! other one is a disagreement rather than a guess.

use super::decode::{decode_as, decode_program_as, DecodeError};
use super::gen::Gen;
use super::print::{print, Labels};
use super::print26::{print26, Labels26};
use std::fmt;

/// One instruction of a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    /// Byte offset in the program.
    pub offset: usize,
    /// Its bytes (8 or 16).
    pub bytes: Vec<u8>,
    /// brw's text, lines joined with `\n`, without the hex column.
    pub text: String,
}

/// A parsed listing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    /// The lines before the first instruction (anv's push-constant header), trimmed, empty
    /// lines dropped.
    pub header: Vec<String>,
    /// The instructions in order.
    pub insts: Vec<Listed>,
}

impl Listing {
    /// The program's bytes, in order.
    pub fn bytes(&self) -> Vec<u8> {
        self.insts
            .iter()
            .flat_map(|i| i.bytes.iter().copied())
            .collect()
    }
}

/// Why a listing could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListingError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for ListingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "listing line {}: {}", self.line, self.reason)
    }
}

impl std::error::Error for ListingError {}

/// The disassembly syntax of a brw version.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Syntax {
    /// Mesa 22.3 and 25.0: `add(16) g6<1>D g3<8,8,1>D g1<0,1,0>D { align1 1H compacted };`
    /// ([`super::print`]).
    #[default]
    Brw25,
    /// Mesa 26: `add (16) r6:d r3:d r1<0>:d {Compacted}` ([`super::print26`]).
    Brw26,
}

/// A jump-target line: `LABEL3:` (brw 25) or `L3:` (brw 26).
fn is_label(line: &str) -> bool {
    let Some(name) = line.strip_suffix(':') else {
        return false;
    };
    let digits = name
        .strip_prefix("LABEL")
        .or_else(|| name.strip_prefix('L'))
        .unwrap_or_default();
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Whether brw 25 continues this instruction on the next line: a send (`send(`, `sends(`,
/// `sendc(`, `sendsc(`, perhaps predicated). brw 26 writes `send.<sfid> (` on one line.
fn continues(text: &str) -> bool {
    text.split_whitespace().take(2).any(|w| {
        ["send(", "sends(", "sendc(", "sendsc("]
            .iter()
            .any(|p| w.starts_with(p))
    })
}

/// The hex bytes at the start of `line` and the rest, if it starts with at least 8 of them.
fn hex_prefix(line: &str) -> Option<(Vec<u8>, &str)> {
    let mut bytes = Vec::new();
    let mut rest = line;
    while bytes.len() < 16 {
        let b = rest.as_bytes();
        if b.len() >= 3
            && b[0].is_ascii_hexdigit()
            && b[1].is_ascii_hexdigit()
            && b[2] == b' '
            && b[..2].iter().all(|c| !c.is_ascii_uppercase())
        {
            bytes.push(u8::from_str_radix(&rest[..2], 16).ok()?);
            rest = &rest[3..];
        } else {
            break;
        }
    }
    (bytes.len() == 8 || bytes.len() == 16).then_some((bytes, rest))
}

/// Parses a listing made with `INTEL_DEBUG=hex`.
pub fn parse(text: &str) -> Result<Listing, ListingError> {
    let mut listing = Listing::default();
    let mut offset = 0;
    let mut continuing = false;
    for (i, line) in text.lines().enumerate() {
        let err = |reason: String| ListingError {
            line: i + 1,
            reason,
        };
        if let Some((bytes, rest)) = hex_prefix(line) {
            let compacted = (bytes[3] >> 5) & 1 == 1;
            if compacted != (bytes.len() == 8) {
                return Err(err(format!(
                    "{} bytes but the compaction bit says {}",
                    bytes.len(),
                    if compacted { "compacted" } else { "native" }
                )));
            }
            let text = rest.trim().to_string();
            continuing = continues(&text);
            listing.insts.push(Listed {
                offset,
                bytes: bytes.clone(),
                text,
            });
            offset += bytes.len();
            continue;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        if is_label(trimmed) {
            continuing = false;
            continue;
        }
        match listing.insts.last_mut() {
            None => listing.header.push(trimmed.to_string()),
            Some(last) if continuing => {
                last.text.push('\n');
                last.text.push_str(trimmed);
                continuing = false;
            }
            // brw appends validator errors after a group of instructions; keep them with the
            // instruction they follow so a comparison shows them.
            Some(last) => {
                last.text.push('\n');
                last.text.push_str(trimmed);
            }
        }
    }
    if listing.insts.is_empty() && !text.trim().is_empty() {
        return Err(ListingError {
            line: 1,
            reason: "no instruction with hex bytes (was INTEL_DEBUG=hex set?)".into(),
        });
    }
    Ok(listing)
}

/// One instruction where our decoder and brw disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// Byte offset.
    pub offset: usize,
    /// The bytes.
    pub bytes: Vec<u8>,
    /// brw's text.
    pub brw: String,
    /// Ours (or why it did not decode).
    pub ours: String,
    /// The first differing field: (brw's token, ours).
    pub field: (String, String),
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex: Vec<String> = self.bytes.iter().map(|b| format!("{b:02x}")).collect();
        write!(
            f,
            "at {:#x} [{}]: brw {:?} vs ours {:?} (brw: {} | ours: {})",
            self.offset,
            hex.join(" "),
            self.field.0,
            self.field.1,
            self.brw.replace('\n', " "),
            self.ours.replace('\n', " ")
        )
    }
}

/// How far our decoder agrees with brw over a listing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Agreement {
    /// Instructions compared.
    pub instructions: usize,
    /// Of them, compacted.
    pub compacted: usize,
    /// Instructions that did not agree, in order.
    pub disagreements: Vec<Disagreement>,
}

impl Agreement {
    /// Instructions that agreed.
    pub fn agreed(&self) -> usize {
        self.instructions - self.disagreements.len()
    }

    /// Adds another listing's counts.
    pub fn add(&mut self, other: Agreement) {
        self.instructions += other.instructions;
        self.compacted += other.compacted;
        self.disagreements.extend(other.disagreements);
    }
}

/// The whitespace-separated fields of a line, the trailing `;` and brw's `/* */` float
/// comments included (they are part of what brw says). In brw 26's syntax a send's comment is
/// kept up to its lengths (`// wr:2+2, rd:0;`): the message named after them is brw's reading
/// of the descriptors, which are compared as numbers (see [`super::print26`]).
fn fields(syntax: Syntax, text: &str) -> Vec<&str> {
    let mut fields: Vec<&str> = text.split_whitespace().collect();
    if syntax == Syntax::Brw26 {
        if let Some(comment) = fields.iter().position(|f| *f == "//") {
            if let Some(end) = fields[comment..].iter().position(|f| f.ends_with(';')) {
                fields.truncate(comment + end + 1);
            }
        }
    }
    fields
}

/// Decodes the listing's bytes as Gen9 and compares our printing with brw 25's, instruction
/// by instruction.
pub fn check(listing: &Listing) -> Agreement {
    check_as(Gen::Gfx9, listing)
}

/// Decodes the listing's bytes in `gen`'s encoding and compares our printing with brw 25's.
pub fn check_as(gen: Gen, listing: &Listing) -> Agreement {
    check_in(gen, Syntax::Brw25, listing)
}

/// Decodes the listing's bytes in `gen`'s encoding and compares our printing in `syntax` with
/// brw's.
pub fn check_in(gen: Gen, syntax: Syntax, listing: &Listing) -> Agreement {
    let bytes = listing.bytes();
    let mut agreement = Agreement {
        instructions: listing.insts.len(),
        compacted: listing.insts.iter().filter(|i| i.bytes.len() == 8).count(),
        disagreements: Vec::new(),
    };
    let program = match decode_program_as(gen, &bytes) {
        Ok(p) => p,
        // Decode what we can one by one so every instruction gets a verdict.
        Err(DecodeError { .. }) => {
            let mut decoded = Vec::new();
            for l in &listing.insts {
                match decode_as(gen, &l.bytes) {
                    Ok(inst) => decoded.push((l.offset, inst)),
                    Err(why) => agreement.disagreements.push(Disagreement {
                        offset: l.offset,
                        bytes: l.bytes.clone(),
                        brw: l.text.clone(),
                        ours: format!("decode error: {why}"),
                        field: (String::new(), "decode error".into()),
                    }),
                }
            }
            decoded
        }
    };
    compare_decoded(syntax, listing, &program, agreement)
}

fn compare_decoded(
    syntax: Syntax,
    listing: &Listing,
    program: &[(usize, super::inst::Inst)],
    mut agreement: Agreement,
) -> Agreement {
    let labels = Labels::of(program);
    let labels26 = Labels26::of(program);
    for (offset, inst) in program {
        let Some(l) = listing.insts.iter().find(|l| l.offset == *offset) else {
            continue;
        };
        let ours = match syntax {
            Syntax::Brw25 => print(inst, *offset, Some(&labels)),
            Syntax::Brw26 => print26(inst, *offset, Some(&labels26)),
        };
        let (a, b) = (fields(syntax, &l.text), fields(syntax, &ours));
        if a != b {
            let i = a
                .iter()
                .zip(&b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            agreement.disagreements.push(Disagreement {
                offset: *offset,
                bytes: l.bytes.clone(),
                brw: l.text.clone(),
                ours: ours.trim_end().to_string(),
                field: (
                    a.get(i).map_or("<end>".into(), |s| s.to_string()),
                    b.get(i).map_or("<end>".into(), |s| s.to_string()),
                ),
            });
        }
    }
    agreement.disagreements.sort_by_key(|d| d.offset);
    agreement
}
