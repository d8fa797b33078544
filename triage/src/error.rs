//! Why a triage operation stopped (reducing a case or a batch, triaging a folder, promoting a
//! bucket, importing libFuzzer's artifacts, collecting or reading statistics), typed so that a
//! caller decides by kind and the text is made only when it is printed. Each message is the
//! one these operations always printed: `gpufuzz` shows it after `error: `, and
//! `gpufuzz triage` records a finding's in `bugs/index.json` as why it was not triaged.
//!
//! The `fuzz` crate's errors arrive typed as [`Error::Fuzz`] (those of its APIs still said as
//! text as [`Error::FuzzText`]); the `compiler` crate still says
//! some errors as text, which arrive as [`Error::Compiler`], their message unchanged.

use compiler::interp::InterpError;
use compiler::ir::text::ParseError;
use compiler::ir::verify::VerifyErrors;
use compiler::passes::pipeline::PipelineError;
use fuzz::finding::{Finding, Rejection};
use std::io;
use std::path::PathBuf;

use crate::reduce::ReduceError;

/// Why a triage operation stopped.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An error of the `fuzz` crate (a case that does not read, a target that cannot judge).
    #[error(transparent)]
    Fuzz(#[from] fuzz::Error),
    /// A message of the `fuzz` crate's APIs that still say their errors as text (the
    /// targets' own), unchanged.
    #[error("{0}")]
    FuzzText(String),
    /// A message of the `compiler` crate, which says these errors as text.
    #[error("{0}")]
    Compiler(String),
    /// A file or folder that cannot be read, written or created.
    #[error("{}: {error}", .path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        #[source]
        error: io::Error,
    },
    /// As [`Error::Io`], in a message that is the system's alone: the way `--promote` and a
    /// finding's line of `triage` have always said it (the finding's line is prefixed with its
    /// folder already).
    #[error("{error}")]
    IoUnnamed {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        #[source]
        error: io::Error,
    },

    /// A stats corpus folder without programs.
    #[error("{}: no .ir files", .dir.display())]
    NoIrFiles {
        /// The folder.
        dir: PathBuf,
    },
    /// A program's text that does not parse; the message names the file and line.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// A program that parses but does not verify.
    #[error("{}: invalid program:\n{errors}", .path.display())]
    InvalidProgram {
        /// Its file.
        path: PathBuf,
        /// Every violation.
        errors: VerifyErrors,
    },
    /// A stats file whose JSON does not read as one.
    #[error("{}: {error}", .path.display())]
    StatsJson {
        /// The file.
        path: PathBuf,
        /// What serde said.
        #[source]
        error: serde_json::Error,
    },
    /// A stats file that does not encode as JSON.
    #[error("{0}")]
    StatsEncode(serde_json::Error),

    /// `--target` names a target without statistics.
    #[error(
        "target {target:?} has no statistics (targets with statistics: {})",
        .with_statistics.join(", ")
    )]
    NoStatistics {
        /// The name given.
        target: String,
        /// The targets that have statistics.
        with_statistics: Vec<&'static str>,
    },
    /// A `--config` setting without `=`.
    #[error("--config {setting:?}: expected KEY=VALUE")]
    ConfigNotKeyValue {
        /// The setting as given.
        setting: String,
    },
    /// A `--config` pass toggle whose value is neither on nor off.
    #[error("--config {setting:?}: {value:?} is not on or off")]
    ConfigNotOnOff {
        /// The setting as given.
        setting: String,
        /// Its value.
        value: String,
    },
    /// A `--config` key the target does not take.
    #[error(
        "--config {setting:?}: unknown key {key:?} for target {target} (keys: {})",
        .keys.join(", ")
    )]
    ConfigUnknownKey {
        /// The setting as given.
        setting: String,
        /// Its key.
        key: String,
        /// The target.
        target: &'static str,
        /// Every key the target takes.
        keys: Vec<&'static str>,
    },
    /// A `--config` knob whose value the case configuration refuses.
    #[error("--config {setting:?}: {error}")]
    ConfigKnob {
        /// The setting as given.
        setting: String,
        /// Why, in the case configuration's words.
        error: fuzz::Error,
    },
    /// The middle end failed on a program.
    #[error("middle end: {0}")]
    MiddleEnd(#[from] PipelineError),

    /// The case to reduce shows no finding.
    #[error("the input shows no finding")]
    NoFinding,
    /// The reducer refused the case.
    #[error(transparent)]
    Reduce(#[from] ReduceError),
    /// The reduced case no longer fails under the full oracle options.
    #[error("the reduced case passes")]
    ReducedCasePasses,

    /// A batch whose fused shader shows no finding.
    #[error("the batch shows no finding")]
    BatchShowsNoFinding,
    /// A batch one of whose programs is wrong alone: that program is reduced by itself.
    #[error("program {program} of the batch is wrong alone ({finding}): reduce it on its own")]
    WrongAlone {
        /// Its place in the batch.
        program: usize,
        /// Its own finding.
        finding: Box<Finding>,
    },
    /// A program of a batch whose reduction found the batch no longer showing the finding.
    #[error(
        "program {program} of the batch: {} (is the bug flaky?)",
        ReduceError::NotInteresting
    )]
    BatchProgramNotInteresting {
        /// Its place in the batch.
        program: usize,
    },
    /// The reduced batch lost the finding.
    #[error("the reduced batch no longer shows the finding")]
    ReducedBatchLost,

    /// A saved finding only a fused shader shows: a bucket holds one program, not a batch.
    #[error(
        "not triaged: only a fused shader shows it; `gpufuzz repro {shown}` judges its batch \
         and `gpufuzz reduce {shown} -o DIR` reduces it",
        shown = .batch.display()
    )]
    OnlyFused {
        /// The finding's `batch/` folder.
        batch: PathBuf,
    },
    /// The driver a finding was found on does not open here.
    #[error("cannot open the driver it was found on: {0}")]
    DriverWontOpen(String),
    /// A `--case` of a finding's reproduce command that the case configuration refuses.
    #[error("its command's --case {pin}: {error}")]
    RecordedPin {
        /// The `KEY=VALUE`.
        pin: String,
        /// Why, in the case configuration's words.
        error: fuzz::Error,
    },
    /// A finding's `finding.json` whose `finding` does not read as one.
    #[error("{0}")]
    FindingRecord(serde_json::Error),
    /// A finding that did not reproduce here, recorded on another driver.
    #[error("{error}: {why}")]
    FoundOnAnotherDriver {
        /// Why it did not reproduce.
        error: Box<Error>,
        /// Which driver it was found on and which one is here.
        why: String,
    },
    /// `--promote` names no bucket of the folder.
    #[error("no bucket {name:?} in {}", .bugs.display())]
    NoBucket {
        /// The name given.
        name: String,
        /// The folder of buckets.
        bugs: PathBuf,
    },
    /// The interpreter cannot run a bucket's repro to record its expected outputs.
    #[error("{0}")]
    Interp(#[from] InterpError),

    /// A libFuzzer artifact that reproduces but cannot be saved as a finding folder.
    #[error("{}: could not save: {error}", .path.display())]
    NotSaved {
        /// The artifact.
        path: PathBuf,
        /// What the system said.
        #[source]
        error: io::Error,
    },
    /// A libFuzzer artifact that passes in this process.
    #[error("passes here (planted bugs not given with --plant?)")]
    PassesHere,
    /// A libFuzzer artifact the oracle does not judge in this process.
    #[error("rejected here: {0:?}")]
    RejectedHere(Rejection),
    /// A target's infrastructure failed on the artifact here: nothing was tested.
    #[error("not tested here: {0}")]
    BrokenHere(String),
}

impl Error {
    /// For `map_err`: an I/O error about `path`.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> Error {
        let path = path.into();
        move |error| Error::Io { path, error }
    }

    /// For `map_err`: an I/O error about `path` whose message does not name it.
    pub fn io_unnamed(path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> Error {
        let path = path.into();
        move |error| Error::IoUnnamed { path, error }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Each message as the `String` errors these replaced spelt it, `format!` for `format!`.
    #[test]
    fn messages_are_the_ones_always_printed() {
        let path = Path::new("out/bugs");
        let io = || io::Error::other("denied");
        let json = || serde_json::from_str::<u8>("x").unwrap_err();
        let (kv, key, value) = ("opt_cse=maybe", "opt_cse", "maybe");
        let cases: Vec<(Error, String)> = vec![
            (
                Error::Fuzz(fuzz::Error::UnknownPass { name: "x".into() }),
                fuzz::Error::UnknownPass { name: "x".into() }.to_string(),
            ),
            (Error::FuzzText("as said".into()), "as said".into()),
            (Error::Compiler("as said".into()), "as said".into()),
            (
                Error::io(path)(io()),
                format!("{}: {}", path.display(), io()),
            ),
            (Error::io_unnamed(path)(io()), io().to_string()),
            (
                Error::NoIrFiles { dir: path.into() },
                format!("{}: no .ir files", path.display()),
            ),
            (
                Error::InvalidProgram {
                    path: path.into(),
                    errors: VerifyErrors::default(),
                },
                format!(
                    "{}: invalid program:\n{}",
                    path.display(),
                    VerifyErrors::default()
                ),
            ),
            (
                Error::StatsJson {
                    path: path.into(),
                    error: json(),
                },
                format!("{}: {}", path.display(), json()),
            ),
            (Error::StatsEncode(json()), json().to_string()),
            (
                Error::NoStatistics {
                    target: "gen12".into(),
                    with_statistics: vec!["middle", "a6xx"],
                },
                format!(
                    "target {:?} has no statistics (targets with statistics: {})",
                    "gen12",
                    ["middle", "a6xx"].join(", ")
                ),
            ),
            (
                Error::ConfigNotKeyValue { setting: kv.into() },
                format!("--config {kv:?}: expected KEY=VALUE"),
            ),
            (
                Error::ConfigNotOnOff {
                    setting: kv.into(),
                    value: value.into(),
                },
                format!(
                    "--config {kv:?}: {}",
                    format_args!("{value:?} is not on or off")
                ),
            ),
            (
                Error::ConfigUnknownKey {
                    setting: kv.into(),
                    key: key.into(),
                    target: "middle",
                    keys: vec!["a", "b"],
                },
                format!(
                    "--config {kv:?}: {}",
                    format_args!(
                        "unknown key {key:?} for target {} (keys: {})",
                        "middle",
                        ["a", "b"].join(", ")
                    )
                ),
            ),
            (
                Error::ConfigKnob {
                    setting: kv.into(),
                    error: fuzz::Error::KnobValue("bad".into()),
                },
                format!("--config {kv:?}: {}", "bad"),
            ),
            (Error::NoFinding, "the input shows no finding".into()),
            (
                Error::Reduce(ReduceError::EmptyIsInteresting),
                ReduceError::EmptyIsInteresting.to_string(),
            ),
            (Error::ReducedCasePasses, "the reduced case passes".into()),
            (
                Error::BatchShowsNoFinding,
                "the batch shows no finding".into(),
            ),
            (
                Error::BatchProgramNotInteresting { program: 2 },
                format!(
                    "program {} of the batch: {} (is the bug flaky?)",
                    2,
                    ReduceError::NotInteresting
                ),
            ),
            (
                Error::ReducedBatchLost,
                "the reduced batch no longer shows the finding".into(),
            ),
            (
                Error::OnlyFused {
                    batch: path.join("batch"),
                },
                format!(
                    "not triaged: only a fused shader shows it; `gpufuzz repro {0}` judges its \
                     batch and `gpufuzz reduce {0} -o DIR` reduces it",
                    path.join("batch").display()
                ),
            ),
            (
                Error::DriverWontOpen("no ICD".into()),
                format!("cannot open the driver it was found on: {}", "no ICD"),
            ),
            (
                Error::RecordedPin {
                    pin: kv.into(),
                    error: fuzz::Error::KnobValue("bad".into()),
                },
                format!("its command's --case {kv}: {}", "bad"),
            ),
            (Error::FindingRecord(json()), json().to_string()),
            (
                Error::FoundOnAnotherDriver {
                    error: Box::new(Error::NoFinding),
                    why: "found on radv".into(),
                },
                format!("{}: {}", Error::NoFinding, "found on radv"),
            ),
            (
                Error::NoBucket {
                    name: "b7".into(),
                    bugs: path.into(),
                },
                format!("no bucket {:?} in {}", "b7", path.display()),
            ),
            (
                Error::NotSaved {
                    path: path.into(),
                    error: io(),
                },
                format!("{}: could not save: {}", path.display(), io()),
            ),
            (
                Error::PassesHere,
                "passes here (planted bugs not given with --plant?)".into(),
            ),
            (
                Error::RejectedHere(Rejection::OutOfFuel),
                format!("rejected here: {:?}", Rejection::OutOfFuel),
            ),
        ];
        for (error, old) in cases {
            assert_eq!(error.to_string(), old, "{error:?}");
        }
    }
}
