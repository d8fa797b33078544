//! radv's own finding causes: what one of ACO's validators (`ACO_DEBUG=validateir,validatera`)
//! printed, typed — the check, the simulated GPU's generation, the message's head and the
//! opcode it quotes — and carried by the finding under the word `aco-validator`
//! ([`crate::cause::Cause::own`]). The class is the message's head; a known ACO bug
//! (`super::known`) is bucketed as that bug.

use super::gfx::GfxLevel;
use crate::cause::Cause;
use serde::{Deserialize, Serialize};

/// Which of ACO's validators complained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AcoCheck {
    /// The IR validator (after every pass).
    Ir,
    /// The register-assignment validator (after allocation, spilling included).
    Ra,
}

/// One of ACO's validators printed an error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AcoValidator {
    /// Which validator.
    pub check: AcoCheck,
    /// The simulated GPU's generation, whose rules the validator checks (`None` for a GPU
    /// Mesa 25.0 does not name).
    pub gfx: Option<GfxLevel>,
    /// The message's head, numbers blanked (`Too many SGPRs/literals`).
    pub message: String,
    /// The opcode of the instruction the message quotes (`v_cndmask_b32`), if it quotes one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opcode: Option<String>,
}

impl AcoValidator {
    /// The word a finding's cause carries it under.
    pub const BY: &'static str = "aco-validator";

    /// The finding's cause: these facts, bucketed by the message's head or as the known bug.
    pub fn cause(&self, known: Option<&str>) -> Cause {
        let class = format!("aco {}", self.message);
        Cause::own(Self::BY, self, class, known.map(Into::into))
    }

    /// The facts of a finding's cause, if one of ACO's validators caught it.
    pub fn of(cause: &Cause) -> Option<AcoValidator> {
        cause.own_facts(Self::BY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ir(message: &str) -> AcoValidator {
        AcoValidator {
            check: AcoCheck::Ir,
            gfx: Some(GfxLevel::Gfx9),
            message: message.into(),
            opcode: Some("v_cndmask_b32".into()),
        }
    }

    /// The classes of the buckets radv's findings had before their cause moved here, to the
    /// letter, and the facts read back from a `finding.json` of then.
    #[test]
    fn classes_and_findings_are_as_before() {
        let v = ir("Too many SGPRs/literals");
        assert_eq!(v.cause(None).class(), "aco Too many SGPRs/literals");
        assert_eq!(v.cause(Some("known-x")).class(), "known-x");
        assert_eq!(v.cause(Some("known-x")).known(), Some("known-x"));
        let old = r#"{"by":"aco-validator","check":"ir","gfx":"gfx9",
            "message":"Too many SGPRs/literals","opcode":"v_cndmask_b32","known":"known-x"}"#;
        let cause: Cause = serde_json::from_str(old).unwrap();
        assert_eq!(AcoValidator::of(&cause), Some(v));
        assert_eq!(cause.known(), Some("known-x"));
    }
}
