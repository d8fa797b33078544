//! naga's own finding causes: the step of naga that failed, or what is wrong with the module
//! it wrote, with naga's error, carried by the finding under the word `naga`
//! ([`crate::cause::Cause::own`]). The class is the step and the error's variant path; a known
//! naga bug (`super::known`) is bucketed as that bug.

use crate::cause::Cause;
use serde::{Deserialize, Serialize};

/// The step of naga that failed, or what is wrong with the module it wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Step {
    /// `front::spv`: SPIR-V in, refusing a module `spirv-val` accepts.
    FrontEnd,
    /// `valid::Validator`, rejecting the front end's module.
    Validator,
    /// `back::spv`: SPIR-V out.
    SpvOut,
    /// The module naga wrote is invalid (the driver refused it, and so does `spirv-val`).
    OutputInvalid,
    /// The module naga wrote computes another value than the interpreter (ours, run alone
    /// on the same device, does not).
    Mismatch,
}

impl Step {
    /// Its name in classes and reports.
    pub fn name(self) -> &'static str {
        match self {
            Step::FrontEnd => "front end",
            Step::Validator => "validator",
            Step::SpvOut => "spv-out",
            Step::OutputInvalid => "spv-out invalid",
            Step::Mismatch => "mismatch",
        }
    }
}

/// A step of naga failed, or the module it wrote computes another value than the interpreter
/// while ours, run alone, does not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NagaCause {
    /// The step.
    pub step: Step,
    /// What went wrong: the error's variant path (`Function InvalidCall`), `spirv-val`'s
    /// words for an invalid output, the inexact op whose bound a mismatch is outside of
    /// (`outside-bound-fsqrt`); empty for a plain mismatch.
    pub error: String,
}

impl NagaCause {
    /// The word a finding's cause carries it under.
    pub const BY: &'static str = "naga";

    /// The finding's cause: these facts, bucketed by step and error or as the known bug.
    pub fn cause(step: Step, error: impl Into<String>, known: Option<&str>) -> Cause {
        let facts = NagaCause {
            step,
            error: error.into(),
        };
        let class = format!("naga {} {}", step.name(), facts.error);
        Cause::own(
            Self::BY,
            &facts,
            class.trim_end().into(),
            known.map(Into::into),
        )
    }

    /// The facts of a finding's cause, if naga's step caught it.
    pub fn of(cause: &Cause) -> Option<NagaCause> {
        cause.own_facts(Self::BY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The classes of the buckets naga's findings had before their cause moved here, to the
    /// letter, and the facts read back from a `finding.json` of then.
    #[test]
    fn classes_and_findings_are_as_before() {
        let front = NagaCause::cause(Step::FrontEnd, "InvalidId", None);
        assert_eq!(front.class(), "naga front end InvalidId");
        assert_eq!(
            NagaCause::cause(Step::Mismatch, "", None).class(),
            "naga mismatch"
        );
        assert_eq!(
            NagaCause::cause(Step::Mismatch, "", Some("known-n")).class(),
            "known-n"
        );
        let old = r#"{"by":"naga","step":"validator","error":"Function","known":"known-n"}"#;
        let cause: Cause = serde_json::from_str(old).unwrap();
        assert_eq!(
            NagaCause::of(&cause),
            Some(NagaCause {
                step: Step::Validator,
                error: "Function".into()
            })
        );
        assert_eq!(cause.known(), Some("known-n"));
    }
}
