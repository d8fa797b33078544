//! Why a fuzz-crate operation stopped (reading a case or its knobs, finding the Mesa a real
//! driver runs on, writing a standalone reproducer, judging on a target), typed so that a
//! caller decides by kind and the text is made only when it is printed. Each message is the
//! one these operations always said as a `String`: `gpufuzz` shows it after `error: `, and
//! the fuzz loop records a target's as why a case was not judged.
//!
//! Other crates that still say their errors as text (`spirv_emit`, the compiler's passes)
//! arrive in a variant that keeps their message unchanged.

use crate::case::text::{Allowed, CASE_PREFIX};
use compiler::ir::text::ParseError;
use compiler::ir::verify::VerifyErrors;

/// Why a fuzz-crate operation stopped.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    // --- The case floor: a case's text, its header and its knobs (`case/`).
    /// `--case KEY=VALUE` names no knob.
    #[error(
        "unknown --case key {key:?}; known: {}",
        crate::case::config::CaseConfig::keys().join(", ")
    )]
    UnknownKnob {
        /// The key given.
        key: String,
    },
    /// A knob's value that does not parse as the knob's type, in that type's words (the
    /// types are the standard library's, the compiler's heuristics' and the targets' own).
    #[error("{0}")]
    KnobValue(String),
    /// A bounded knob ([`crate::case::text::BOUNDED_KNOBS`]) outside its range.
    #[error("{key}={value} is outside {allowed} ({why})")]
    KnobOutOfRange {
        /// The knob.
        key: &'static str,
        /// Its value.
        value: u32,
        /// What it may be.
        allowed: Allowed,
        /// Why the bound is there.
        why: &'static str,
    },
    /// A bounded knob that is none of the values it may be.
    #[error("{key}={value} must be {allowed} ({why})")]
    KnobNotOneOf {
        /// The knob.
        key: &'static str,
        /// Its value.
        value: u32,
        /// What it may be.
        allowed: Allowed,
        /// Why.
        why: &'static str,
    },
    /// A `KEY=VALUE` setting without `=`; the message lists the knobs at their defaults.
    #[error(
        "{setting:?}: expected KEY=VALUE; the knobs, at their defaults: {}",
        crate::case::text::default_knobs().join(" ")
    )]
    NotKeyValue {
        /// The setting as given.
        setting: String,
    },
    /// A middle-end pass name that is none.
    #[error("unknown pass {name:?}; passes: {}", crate::case::text::pass_names())]
    UnknownPass {
        /// The name given.
        name: String,
    },
    /// A `; case:` header's knob without `=`.
    #[error("{file}:{line}: {knob:?}: expected KEY=VALUE")]
    HeaderNotKeyValue {
        /// The case's file.
        file: String,
        /// The header's line, from 1.
        line: usize,
        /// The knob as written.
        knob: String,
    },
    /// A `; case:` header's knob that does not set.
    #[error("{file}:{line}: {knob}: {error}")]
    HeaderKnob {
        /// The case's file.
        file: String,
        /// The header's line, from 1.
        line: usize,
        /// The knob as written (`KEY=VALUE`).
        knob: String,
        /// Why it does not set.
        error: Box<Error>,
    },
    /// A `; disable:` header's pass that is none.
    #[error("{file}:{line}: {error}")]
    HeaderPass {
        /// The case's file.
        file: String,
        /// The header's line, from 1.
        line: usize,
        /// Why ([`Error::UnknownPass`]).
        error: Box<Error>,
    },
    /// A header whose knobs together are out of bounds.
    #[error("{file}: {CASE_PREFIX} {error}")]
    HeaderOutOfBounds {
        /// The case's file.
        file: String,
        /// Which knob and why.
        error: Box<Error>,
    },
    /// A case's program that does not parse; the message names the file and line.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// A case's program that parses but does not verify.
    #[error("{file}: invalid program:\n{errors}")]
    InvalidProgram {
        /// The case's file.
        file: String,
        /// Every violation.
        errors: VerifyErrors,
    },
    /// An input that looks like a case file but is not UTF-8.
    #[error("{name}: {error}")]
    NotUtf8 {
        /// The input's name.
        name: String,
        /// Where.
        error: std::str::Utf8Error,
    },
    /// Raw bytes the generator makes no program of.
    #[error("{name}: the generator makes no program of these bytes")]
    NoProgram {
        /// The input's name.
        name: String,
    },
    /// Raw bytes whose decoding panicked the generator.
    #[error("{name}: the generator panicked decoding it at {location}: {message}")]
    GeneratorPanicked {
        /// The input's name.
        name: String,
        /// Where it panicked.
        location: String,
        /// The panic's message.
        message: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::config::CaseConfig;
    use crate::case::text::{default_knobs, pass_names};

    /// Each message as the `String` errors these replaced spelt it, `format!` for `format!`.
    #[test]
    fn messages_are_the_ones_always_said() {
        let (file, n, kv) = ("a.ir", 3, "gen_grfs=x");
        let inner = || Box::new(Error::KnobValue("bad".into()));
        let bytes = vec![0xff_u8];
        let utf8 = || std::str::from_utf8(&bytes).unwrap_err();
        let cases: Vec<(Error, String)> = vec![
            (
                Error::UnknownKnob { key: "k".into() },
                format!(
                    "unknown --case key {:?}; known: {}",
                    "k",
                    CaseConfig::keys().join(", ")
                ),
            ),
            (Error::KnobValue("bad".into()), "bad".into()),
            (
                Error::KnobOutOfRange {
                    key: "gen_grfs",
                    value: 0,
                    allowed: Allowed::Range(10, 125),
                    why: "w",
                },
                format!("{}={} is outside {} ({})", "gen_grfs", 0, "10..=125", "w"),
            ),
            (
                Error::KnobNotOneOf {
                    key: "a6xx_predicates",
                    value: 0,
                    allowed: Allowed::OneOf(&[1, 4]),
                    why: "w",
                },
                format!("{}={} must be {} ({})", "a6xx_predicates", 0, "1|4", "w"),
            ),
            (
                Error::NotKeyValue {
                    setting: "gen9".into(),
                },
                format!(
                    "{:?}: expected KEY=VALUE; the knobs, at their defaults: {}",
                    "gen9",
                    default_knobs().join(" ")
                ),
            ),
            (
                Error::UnknownPass { name: "p".into() },
                format!("unknown pass {:?}; passes: {}", "p", pass_names()),
            ),
            (
                Error::HeaderNotKeyValue {
                    file: file.into(),
                    line: n,
                    knob: "gen9".into(),
                },
                format!(
                    "{file}:{}: {}",
                    n,
                    format_args!("{:?}: expected KEY=VALUE", "gen9")
                ),
            ),
            (
                Error::HeaderKnob {
                    file: file.into(),
                    line: n,
                    knob: kv.into(),
                    error: inner(),
                },
                format!("{file}:{}: {}", n, format_args!("{kv}: {}", "bad")),
            ),
            (
                Error::HeaderPass {
                    file: file.into(),
                    line: n,
                    error: inner(),
                },
                format!("{file}:{}: {}", n, "bad"),
            ),
            (
                Error::HeaderOutOfBounds {
                    file: file.into(),
                    error: inner(),
                },
                format!("{file}: {CASE_PREFIX} {}", "bad"),
            ),
            (
                Error::InvalidProgram {
                    file: file.into(),
                    errors: VerifyErrors::default(),
                },
                format!("{file}: invalid program:\n{}", VerifyErrors::default()),
            ),
            (
                Error::NotUtf8 {
                    name: file.into(),
                    error: utf8(),
                },
                format!("{file}: {}", utf8()),
            ),
            (
                Error::NoProgram { name: file.into() },
                format!("{file}: the generator makes no program of these bytes"),
            ),
            (
                Error::GeneratorPanicked {
                    name: file.into(),
                    location: "x.rs:1".into(),
                    message: "boom".into(),
                },
                format!(
                    "{file}: the generator panicked decoding it at {}: {}",
                    "x.rs:1", "boom"
                ),
            ),
        ];
        for (error, old) in cases {
            assert_eq!(error.to_string(), old, "{error:?}");
        }
    }
}
