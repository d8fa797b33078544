//! Known ACO bugs, as rules over a validator's complaint and the GPU's generation: the check,
//! the head of its message, the opcode of the instruction it quotes and the generations that
//! have the bug. A finding a rule recognises gets the bug's own bucket (its class, and the
//! summary in its detail), so that the thousands of cases hitting a known bug are counted and
//! reported as that bug and a new bug on the same GPUs still gets a bucket of its own.

use super::causes::AcoCheck;
use super::gfx::GfxLevel;
use std::ops::RangeInclusive;

/// One known ACO bug.
pub struct KnownAcoBug {
    /// Its bucketing class (`known-aco-<what>`).
    pub class: &'static str,
    /// One line for reports: what ACO does wrong, where it was seen.
    pub summary: &'static str,
    /// The validator that catches it.
    pub check: AcoCheck,
    /// The head of that validator's message.
    pub message: &'static str,
    /// The opcode of the instruction the message quotes.
    pub opcode: &'static str,
    /// The generations that have it.
    pub gfx: RangeInclusive<GfxLevel>,
}

/// Every known ACO bug.
pub const KNOWN_BUGS: &[KnownAcoBug] = &[KnownAcoBug {
    class: "known-aco-gfx6-9-cndmask-two-sgprs",
    summary: "ACO's denormal-preserving scaling of sqrt/rsq/rcp/log2 (emit_scaled_op) emits a \
              v_cndmask_b32 reading two SGPRs, one more than the GFX6-9 constant bus allows \
              (Mesa 25.0.7; docs/found-bugs/aco-gfx9-cndmask-two-sgprs.md)",
    check: AcoCheck::Ir,
    message: "Too many SGPRs/literals",
    opcode: "v_cndmask_b32",
    gfx: GfxLevel::Gfx6..=GfxLevel::Gfx9,
}];

/// The known bug a validator's complaint on a GPU of generation `gfx` is, if one.
pub fn explaining(
    check: AcoCheck,
    message: &str,
    opcode: Option<&str>,
    gfx: Option<GfxLevel>,
) -> Option<&'static KnownAcoBug> {
    KNOWN_BUGS.iter().find(|bug| {
        bug.check == check
            && bug.message == message
            && opcode == Some(bug.opcode)
            && gfx.is_some_and(|g| bug.gfx.contains(&g))
    })
}

/// The known bug called `class`.
pub fn by_class(class: &str) -> Option<&'static KnownAcoBug> {
    KNOWN_BUGS.iter().find(|b| b.class == class)
}
