//! What a knob of the case configuration takes, said by the knob's own type — the targets'
//! types among them (a radv GPU, an anv platform) — for `--case help`. Here, beside the
//! targets, so that a target says it without importing the case floor.

/// The values a knob's type takes, as `--case help` lists them (a knob's bound, where it has
/// one, is said instead: `BOUNDED_KNOBS`).
pub trait KnobValues {
    /// `a|b|c`, or a sentence.
    fn values() -> String;
}
