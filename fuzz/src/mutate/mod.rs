//! Structure-aware mutation: a case in, a case with one semantic change out.
//!
//! Bytes-level mutation of a structured decoder mostly yields unrelated programs: one flipped
//! byte early in an input re-draws everything after it. These mutations work on the decoded
//! case instead (as wasm-mutate and spirv-fuzz's transformations do), so a mutant is its
//! parent plus one change: a branch turned around, a stretch wrapped in a loop, a phi web
//! at a loop header, values live across a loop, a sampler message duplicated with another
//! payload, one case knob changed; [`crossover`] mixes two cases' configurations.
//!
//! The generator cannot be run backwards, so a mutant is written as a case file (the text
//! format with its `; case:` header, [`crate::case_file`]), which the `diff` target, `repro`
//! and `triage` read like raw bytes: a corpus under the mutator holds raw inputs (the seeds)
//! and case files (everything mutated). Every mutant is verified before it is handed out; a
//! mutation that does not apply to a case (no loop to wrap, no texture to copy) says so
//! with `None`.
//!
//! `fuzz_targets/diff_mutate.rs` plugs [`mutate_input`] and [`crossover_input`] into
//! libFuzzer (`fuzz_mutator!`, `fuzz_crossover!`); everything here is plain Rust, tested on
//! stable.

mod control;
pub mod edit;
mod knob;
mod texture;
mod values;

use crate::case::text as case_file;
use crate::case::Case;
use crate::rng::SplitMix64;
use compiler::ir::verify;

/// A kind of mutation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Swap an `if`'s sides, negating the condition half the time.
    Branch,
    /// Run a stretch of code 2–3 times in a new counted loop.
    WrapInLoop,
    /// Rotating phis at a loop header (the swap problem).
    PhiWeb,
    /// Values live across a loop.
    Pressure,
    /// A copy of a sampler message with another payload.
    DuplicateTexture,
    /// One case knob or pass toggle changed.
    Knob,
}

impl Kind {
    /// Every kind.
    pub const ALL: &'static [Kind] = &[
        Kind::Branch,
        Kind::WrapInLoop,
        Kind::PhiWeb,
        Kind::Pressure,
        Kind::DuplicateTexture,
        Kind::Knob,
    ];
}

/// Mutates a copy of `case` by `kind`; `None` if the kind does not apply to it. The mutant
/// passes the verifier (a mutation that broke it would be a bug here, reported as `None` in
/// release builds and caught by the tests).
pub fn apply(case: &Case, kind: Kind, rng: &mut SplitMix64) -> Option<Case> {
    let mut m = case.clone();
    match kind {
        Kind::Branch => control::branch(&mut m.program, rng)?,
        Kind::WrapInLoop => control::wrap_in_loop(&mut m.program, rng)?,
        Kind::PhiWeb => values::phi_web(&mut m.program, rng)?,
        Kind::Pressure => values::pressure(&mut m.program, rng)?,
        Kind::DuplicateTexture => texture::duplicate(&mut m.program, rng)?,
        Kind::Knob => knob::change(&mut m.config, rng)?,
    }
    if let Err(e) = verify::verify(&m.program) {
        debug_assert!(false, "{kind:?} broke the program: {e}");
        return None;
    }
    Some(m)
}

/// One mutation of a kind drawn at random among those that apply.
pub fn mutate(case: &Case, rng: &mut SplitMix64) -> Option<(Kind, Case)> {
    let start = rng.range(0, Kind::ALL.len() as u64 - 1) as usize;
    (0..Kind::ALL.len())
        .map(|k| Kind::ALL[(start + k) % Kind::ALL.len()])
        .find_map(|kind| apply(case, kind, rng).map(|m| (kind, m)))
}

/// `a`'s program under a configuration mixed knob by knob from `a`'s and `b`'s.
pub fn crossover(a: &Case, b: &Case, rng: &mut SplitMix64) -> Case {
    Case {
        config: knob::cross(&a.config, &b.config, rng),
        program: a.program.clone(),
    }
}

/// Reads an input as the `diff` target does ([`case_file::read_input`]); `None` for one that
/// gives no case.
pub fn read_input(bytes: &[u8]) -> Option<Case> {
    case_file::read_input(bytes, "input").ok()
}

/// The bytes of a case: its case file.
pub fn encode(case: &Case) -> Vec<u8> {
    case_file::print_case(case).into_bytes()
}

/// libFuzzer's custom mutator: rewrites `data[..size]` in place into a mutant of at most
/// `max_size` bytes and returns its size. Raw inputs go half the time to `bytes_mutate`
/// (libFuzzer's own byte mutations, which keep exploring the generator's choices) and half
/// the time to a structural mutation; case files always get a structural one (a flipped
/// byte in a case file mostly makes it unparsable). A mutant that would not fit, or an
/// input no mutation applies to, falls back to `bytes_mutate`.
pub fn mutate_input(
    data: &mut [u8],
    size: usize,
    max_size: usize,
    seed: u32,
    bytes_mutate: impl FnOnce(&mut [u8], usize, usize) -> usize,
) -> usize {
    let rng = &mut SplitMix64::for_input(u64::from(seed), size as u64);
    let input = &data[..size];
    let text = case_file::looks_like_text(input);
    let structural = text || rng.next_u64() & 1 == 1;
    if structural {
        let mutant = read_input(input).and_then(|case| mutate(&case, rng));
        if let Some((_, m)) = mutant {
            let bytes = encode(&m);
            if bytes.len() <= max_size.min(data.len()) {
                data[..bytes.len()].copy_from_slice(&bytes);
                return bytes.len();
            }
        }
    }
    bytes_mutate(data, size, max_size)
}

/// libFuzzer's custom cross-over: writes a mix of `a` and `b` (see [`crossover`]) into `out`
/// and returns its size (0: none, e.g. an input that does not decode or a mix that does not
/// fit).
pub fn crossover_input(a: &[u8], b: &[u8], out: &mut [u8], seed: u32) -> usize {
    let rng = &mut SplitMix64::for_input(u64::from(seed), 0x6372_6f73);
    let (Some(x), Some(y)) = (read_input(a), read_input(b)) else {
        return 0;
    };
    let bytes = encode(&crossover(&x, &y, rng));
    if bytes.len() > out.len() {
        return 0;
    }
    out[..bytes.len()].copy_from_slice(&bytes);
    bytes.len()
}

#[cfg(test)]
mod tests;
