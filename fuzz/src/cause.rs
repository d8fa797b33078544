//! Why a finding is one, typed: the check or step that caught it and what it saw, with the
//! facts of the error (the allocation checker's instruction and registers, the hazard's
//! thread and instruction, the compile error's budget). A finding's bucketing class is
//! derived from its cause here and nowhere else; blame (`Target::checked_step`,
//! `Target::switch_first`) matches on the cause itself, never on the class's text.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// What caught a finding, and what it saw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "kebab-case")]
pub enum Cause {
    /// Out-of-SSA, the step from the middle end's SSA to registers, returned an error.
    FromSsa,
    /// The middle end's pass pipeline stopped on something other than a verifier complaint:
    /// the variant of its `PipelineError` (`InvalidInput`, `UnknownPass`, `FromSsa`).
    Middle {
        /// The error's variant.
        error: String,
    },
    /// The interpreter could not run the program the middle end produced.
    Interpreter,
    /// One of our backends returned an error.
    Backend {
        /// The error, with its facts.
        error: BackendError,
    },
    /// The allocation checker found a use reading the wrong value.
    AllocationCheck {
        /// The checker's complaint, with its facts.
        error: CheckError,
    },
    /// A simulator refused the emitted program (it breaks a machine rule).
    Refused,
    /// A simulator stopped on a machine fault no hazard explains.
    Fault,
    /// A simulator saw a hazard while running the program (the first one).
    Hazard {
        /// Where and what.
        hazard: Hazard,
    },
    /// Something panicked, at this source location.
    Panic {
        /// `file:line:column` of the panic.
        location: String,
    },
    /// The instruction budget ran out where the interpreter finished.
    Timeout,
    /// The worker process gave no verdict in time and was killed.
    WallClock,
    /// The worker process died.
    Died {
        /// How (`signal 11 (SIGSEGV)`, `exit status 3`).
        status: String,
    },
    /// A target outside our compiler (a driver) and its own classes, in order (`pipeline`,
    /// `device-lost`, `spirv-opt`, a known bug's class).
    Target {
        /// The target's classes.
        classes: Vec<String>,
    },
    /// Seen only in a fused shader (several programs compiled as one, `--fuse N`): the case
    /// passes alone. Its own bucket, apart from the same failure of a program alone.
    Fused {
        /// What the fused run's finding was caught by, if anything typed caught it (a wrong
        /// value has no cause).
        cause: Option<Box<Cause>>,
    },
    /// A driver target's own check caught it (radv's ACO validators, a step of naga): the
    /// facts the target typed in its `causes.rs`, carried as written, under the target's own
    /// word for what caught it (`by`). Untagged, so it reads the findings every target wrote.
    #[serde(untagged)]
    Own(Own),
}

/// A driver target's own cause ([`Cause::Own`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Own {
    /// What caught it, in the target's words (`aco-validator`, `naga`).
    pub by: String,
    /// The class the target derived from its facts (absent from findings written before it
    /// was kept: their class is the finding's own).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub class: String,
    /// The known bug it is (its class), if one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known: Option<String>,
    /// The target's typed facts.
    #[serde(flatten)]
    pub facts: serde_json::Map<String, serde_json::Value>,
}

/// An error of one of our backends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BackendError {
    /// The Gen backend's.
    Gen(compiler::gen::CompileError),
    /// The a6xx backend's.
    A6xx(compiler::a6xx::CompileError),
}

/// An allocation checker's complaint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckError {
    /// The Gen backend's checker.
    Gen(compiler::gen::CheckError),
    /// The a6xx backend's checker.
    A6xx(compiler::a6xx::CheckError),
}

/// A hazard a simulator saw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Hazard {
    /// The Gen EU simulator's.
    Gen(sim::gen::Hazard),
    /// The a6xx simulator's.
    A6xx(sim::a6xx::Hazard),
}

impl Cause {
    /// A driver target's own cause: `facts` (a struct of its `causes.rs`) under its word `by`,
    /// with the class it derived and the known bug it is.
    pub fn own(by: &str, facts: &impl Serialize, class: String, known: Option<String>) -> Cause {
        let facts = match serde_json::to_value(facts) {
            Ok(serde_json::Value::Object(map)) => map,
            // A cause's facts are a struct; anything else is kept under one name.
            Ok(other) => serde_json::Map::from_iter([("facts".to_string(), other)]),
            Err(e) => serde_json::Map::from_iter([("facts".to_string(), e.to_string().into())]),
        };
        Cause::Own(Own {
            by: by.into(),
            class,
            known,
            facts,
        })
    }

    /// The facts of a driver target's own cause `by`, read back as its type `T`.
    pub fn own_facts<T: DeserializeOwned>(&self, by: &str) -> Option<T> {
        match self {
            Cause::Own(own) if own.by == by => {
                serde_json::from_value(serde_json::Value::Object(own.facts.clone())).ok()
            }
            _ => None,
        }
    }

    /// A target's own class as a cause.
    pub fn named(class: impl Into<String>) -> Cause {
        Cause::Target {
            classes: vec![class.into()],
        }
    }

    /// A target's own classes as a cause.
    pub fn target(classes: &[&str]) -> Cause {
        Cause::Target {
            classes: classes.iter().map(|c| c.to_string()).collect(),
        }
    }

    /// Whether a backend says the program or its configuration asks for more than it
    /// supports (a register budget below the minimum or the reservations, private memory
    /// exceeded): a limit, not a failure.
    pub fn beyond_backend_limits(&self) -> bool {
        use compiler::{a6xx, gen};
        matches!(
            self,
            Cause::Backend {
                error: BackendError::Gen(gen::CompileError::BudgetTooSmall(_))
                    | BackendError::A6xx(
                        a6xx::CompileError::NoRegisters { .. }
                            | a6xx::CompileError::PrivateMemory { .. }
                    )
            }
        )
    }

    /// The bucketing class: what separates one bug from another of the same kind and
    /// target, without the numbers that differ from one occurrence to the next.
    pub fn class(&self) -> String {
        match self {
            Cause::FromSsa => "from_ssa".into(),
            Cause::Middle { error } => error.clone(),
            Cause::Interpreter => "interp-error".into(),
            Cause::Backend { error } => match error {
                BackendError::Gen(e) => variants(e),
                BackendError::A6xx(e) => variants(e),
            },
            Cause::AllocationCheck { error } => match error {
                // A wrong value that came back from a spill slot is spill code's bug, not
                // colouring's; a wrong predicate the predicate allocator's, not the GPR
                // allocator's: each its own bucket (and blame).
                CheckError::Gen(compiler::gen::CheckError::IncorrectValue {
                    filled: true, ..
                }) => "IncorrectValue filled".into(),
                CheckError::A6xx(compiler::a6xx::CheckError::IncorrectValue { reg, .. })
                    if reg.is_pred() =>
                {
                    "IncorrectValue predicate".into()
                }
                CheckError::Gen(e) => variants(e),
                CheckError::A6xx(e) => variants(e),
            },
            Cause::Refused => "invalid".into(),
            Cause::Fault => "fault".into(),
            Cause::Hazard { hazard } => match hazard {
                Hazard::Gen(h) => variants(&h.kind),
                Hazard::A6xx(h) => variants(&h.kind),
            },
            Cause::Panic { location } => location.clone(),
            Cause::Timeout => "timeout".into(),
            Cause::WallClock => "wall-clock".into(),
            Cause::Died { status } => status.clone(),
            Cause::Own(own) => own.known.clone().unwrap_or_else(|| own.class.clone()),
            Cause::Target { classes } => classes.join(" "),
            Cause::Fused { cause: None } => "fused".into(),
            Cause::Fused { cause: Some(c) } => format!("fused {}", c.class()),
        }
    }

    /// The known bug this finding is (its class), if a target's rules recognised one: its
    /// own bucket, counted and reported as that bug so that it hides no new one.
    pub fn known(&self) -> Option<&str> {
        match self {
            Cause::Own(own) => own.known.as_deref(),
            Cause::Target { classes } => classes
                .iter()
                .find(|c| c.starts_with("known-"))
                .map(String::as_str),
            Cause::Fused { cause: Some(c) } => c.known(),
            _ => None,
        }
    }
}

/// A typed error's variant names, outermost first, without its fields and numbers
/// (`ReadTooEarly(Slots { needed: 3, had: 1 })` → `ReadTooEarly Slots`): the variants are
/// the bug, the numbers the occurrence. Read off the `Debug` form, which for these
/// `derive(Debug)` enums is exactly their variant structure.
fn variants(value: &impl std::fmt::Debug) -> String {
    let debug = format!("{value:?}");
    let head = debug.split('{').next().unwrap_or_default();
    head.split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty() && !w.chars().all(|c| c.is_ascii_digit()))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::{Finding, FindingKind};
    use compiler::gen::checker::Holding;
    use compiler::gen::{CheckError as GenCheck, CompileError as GenCompile};
    use sim::a6xx::{HazardKind, Missing};

    fn gen_check(filled: bool) -> Cause {
        Cause::AllocationCheck {
            error: CheckError::Gen(GenCheck::IncorrectValue {
                inst: 7,
                grf: 12,
                expected: Holding::Value { vreg: 3, grf: 0 },
                found: Holding::Unwritten,
                filled,
                expected_at: Some(2),
                found_at: None,
            }),
        }
    }

    fn a6xx_hazard(kind: HazardKind) -> Cause {
        Cause::Hazard {
            hazard: Hazard::A6xx(sim::a6xx::Hazard {
                kind,
                reg: None,
                producer: Some(4),
                consumer: 5,
                wave: 0,
            }),
        }
    }

    /// The classes are the buckets of earlier versions, to the letter: the variants without
    /// their numbers, and the checks' own refinements.
    #[test]
    fn classes_are_the_variants_without_their_numbers() {
        let slots = Missing::Slots { needed: 3, had: 1 };
        assert_eq!(
            a6xx_hazard(HazardKind::ReadTooEarly(slots)).class(),
            "ReadTooEarly Slots"
        );
        assert_eq!(
            a6xx_hazard(HazardKind::PrivateOutOfRange { address: 9 }).class(),
            "PrivateOutOfRange"
        );
        assert_eq!(gen_check(true).class(), "IncorrectValue filled");
        assert_eq!(gen_check(false).class(), "IncorrectValue");
        let budget = Cause::Backend {
            error: BackendError::Gen(GenCompile::BudgetTooSmall(1)),
        };
        assert_eq!(budget.class(), "BudgetTooSmall");
        assert!(budget.beyond_backend_limits());
        let spill = Cause::Backend {
            error: BackendError::Gen(GenCompile::NoRegisterToSpill { grfs: 16 }),
        };
        assert_eq!(spill.class(), "NoRegisterToSpill");
        assert!(!spill.beyond_backend_limits());
        assert_eq!(
            Cause::target(&["spirv-opt", "known-x"]).class(),
            "spirv-opt known-x"
        );
        assert_eq!(Cause::Timeout.class(), "timeout");
        assert_eq!(Cause::Fused { cause: None }.class(), "fused");
        let fused_timeout = Cause::Fused {
            cause: Some(Box::new(Cause::Timeout)),
        };
        assert_eq!(fused_timeout.class(), "fused timeout");
        // A driver target's own cause buckets by the class it derived, or its known bug.
        assert_eq!(own(None).class(), "aco Too many SGPRs/literals");
        assert_eq!(own(Some("known-x")).class(), "known-x");
        assert_eq!(own(Some("known-x")).known(), Some("known-x"));
        assert_eq!(own(None).known(), None);
    }

    /// Facts as a target's `causes.rs` types them.
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Facts {
        message: String,
        opcode: Option<String>,
    }

    fn own(known: Option<&str>) -> Cause {
        let facts = Facts {
            message: "Too many SGPRs/literals".into(),
            opcode: Some("v_cndmask_b32".into()),
        };
        Cause::own(
            "aco-validator",
            &facts,
            format!("aco {}", facts.message),
            known.map(Into::into),
        )
    }

    /// A target's cause is written under its own word and read back as its own type.
    #[test]
    fn a_targets_own_cause_keeps_its_word_and_its_facts() {
        let cause = own(Some("known-x"));
        let json = serde_json::to_string(&cause).unwrap();
        assert!(json.starts_with(r#"{"by":"aco-validator""#), "{json}");
        let back: Cause = serde_json::from_str(&json).unwrap();
        assert_eq!(back, cause);
        let facts: Facts = back.own_facts("aco-validator").unwrap();
        assert_eq!(facts.opcode.as_deref(), Some("v_cndmask_b32"));
        assert_eq!(back.own_facts::<Facts>("naga"), None);
        // A finding radv wrote before its cause moved into its folder reads the same.
        let old = r#"{"by":"aco-validator","check":"ir","gfx":"gfx9",
            "message":"Too many SGPRs/literals","opcode":"v_cndmask_b32"}"#;
        let back: Cause = serde_json::from_str(old).unwrap();
        assert_eq!(
            back.own_facts::<Facts>("aco-validator"),
            Some(Facts {
                message: "Too many SGPRs/literals".into(),
                opcode: Some("v_cndmask_b32".into()),
            })
        );
        // Our own causes are still read by their tags, not as a target's.
        let timeout: Cause = serde_json::from_str(r#"{"by":"timeout"}"#).unwrap();
        assert_eq!(timeout, Cause::Timeout);
    }

    /// A finding's cause goes into `finding.json` with its facts and comes back the same.
    #[test]
    fn causes_round_trip_through_json() {
        for cause in [
            gen_check(true),
            a6xx_hazard(HazardKind::WriteAfterRead(Missing::Sy)),
            Cause::Backend {
                error: BackendError::A6xx(compiler::a6xx::CompileError::PrivateMemory {
                    what: "local variables".into(),
                    words: 70,
                    available: 64,
                }),
            },
            Cause::Panic {
                location: "compiler/src/gen/ra.rs:10:5".into(),
            },
            Cause::Died {
                status: "signal 11 (SIGSEGV)".into(),
            },
            Cause::FromSsa,
            own(None),
            own(Some("known-x")),
        ] {
            let f = Finding::caused(FindingKind::RaCheck, "gen8", "detail", cause.clone());
            let json = serde_json::to_string(&f).unwrap();
            let back: Finding = serde_json::from_str(&json).unwrap();
            assert_eq!(back, f, "{json}");
            assert_eq!(back.cause, Some(cause));
        }
        let json = serde_json::to_string(&gen_check(true)).unwrap();
        assert!(json.contains(r#""by":"allocation-check""#), "{json}");
        assert!(json.contains(r#""filled":true"#), "{json}");
    }

    /// A `finding.json` written before causes existed still loads, with its class (so its
    /// signature) as it was.
    #[test]
    fn findings_without_a_cause_still_load() {
        let old = r#"{"kind":"ra-check","target":"gen8","pass":null,
            "class":"IncorrectValue filled","detail":"d","difference":null}"#;
        let f: Finding = serde_json::from_str(old).unwrap();
        assert_eq!(f.cause, None);
        assert_eq!(f.signature(), "ra-check:gen8:IncorrectValue filled");
        // A radv finding of the session before the typed ACO cause: a target's named class.
        let old = r#"{"kind":"compile-error","target":"radv","pass":null,
            "class":"aco Too many SGPRs/literals","detail":"d","difference":null,
            "cause":{"by":"target","classes":["aco Too many SGPRs/literals"]}}"#;
        let f: Finding = serde_json::from_str(old).unwrap();
        assert_eq!(f.cause, Some(Cause::named("aco Too many SGPRs/literals")));
        assert_eq!(
            f.signature(),
            "compile-error:radv:aco Too many SGPRs/literals"
        );
    }
}
