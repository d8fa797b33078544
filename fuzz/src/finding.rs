//! What one fuzz input yields: a pass, a rejection, or a finding with the facts needed to act.

use crate::cause::Cause;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The kinds of miscompile evidence (DESIGN.md, "Oracle and findings").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    /// An output slot or buffer word differs from the interpreter's.
    Mismatch,
    /// The simulator saw a read of a value that had not landed or was never written.
    Hazard,
    /// The allocation checker found a use reading the wrong value.
    RaCheck,
    /// The verifier rejected the IR after a pass.
    Verify,
    /// The compiler returned an error.
    CompileError,
    /// The compiler or a simulator panicked.
    Panic,
    /// The simulator ran out of cycles where the interpreter finished.
    Timeout,
    /// The generator produced a program the verifier rejects.
    GenInvalid,
    /// A worker process died on the input (stack overflow, abort, signal, out of memory).
    Crash,
    /// Our decoder of a driver's machine code disagrees with the driver's own disassembler:
    /// a bug of ours, never of the driver.
    Decoder,
    /// A driver's machine code, run on our executor, disagrees with the interpreter (or
    /// faults, or runs out of its budget), and nothing has yet shown whose the difference is:
    /// kept for investigation, never reported as the driver's bug.
    Unconfirmed,
    /// Nothing was tested: a target's infrastructure failed (its worker cannot start, its
    /// device is gone). Never saved or counted as a finding: the oracle makes it a
    /// [`Verdict::Broken`], and the fuzz loop stops on a run of them.
    Infrastructure,
}

impl FindingKind {
    /// Every kind, in report order.
    pub const ALL: [FindingKind; 12] = [
        FindingKind::Mismatch,
        FindingKind::Hazard,
        FindingKind::RaCheck,
        FindingKind::Verify,
        FindingKind::CompileError,
        FindingKind::Panic,
        FindingKind::Timeout,
        FindingKind::GenInvalid,
        FindingKind::Crash,
        FindingKind::Decoder,
        FindingKind::Unconfirmed,
        FindingKind::Infrastructure,
    ];

    /// The kebab-case name used in file names, JSON and the status line.
    pub fn name(self) -> &'static str {
        match self {
            FindingKind::Mismatch => "mismatch",
            FindingKind::Hazard => "hazard",
            FindingKind::RaCheck => "ra-check",
            FindingKind::Verify => "verify",
            FindingKind::CompileError => "compile-error",
            FindingKind::Panic => "panic",
            FindingKind::Timeout => "timeout",
            FindingKind::GenInvalid => "gen-invalid",
            FindingKind::Crash => "crash",
            FindingKind::Decoder => "decoder",
            FindingKind::Unconfirmed => "unconfirmed",
            FindingKind::Infrastructure => "infrastructure",
        }
    }
}

impl fmt::Display for FindingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One miscompile (or generator/compiler failure), with what is needed to act on it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// What went wrong.
    pub kind: FindingKind,
    /// The pipeline that showed it (`middle`, `gen8`, `gen16`, `a6xx`, or `generator`).
    pub target: String,
    /// The pass named by the evidence (the pass after which verification failed), if known.
    pub pass: Option<String>,
    /// A finer class within the kind: the hazard kind, the panic location, the error variant.
    /// Derived from [`cause`](Finding::cause) ([`Cause::class`]); kept beside it so that the
    /// signature of a `finding.json` written before causes existed still reads.
    pub class: Option<String>,
    /// What caught it and what it saw, typed. `None` for a mismatch, a verifier failure, an
    /// invalid generated program, and in `finding.json` files of versions before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<Cause>,
    /// Human-readable detail: the first differing slot with expected and actual, the
    /// verifier's message, the panic message.
    pub detail: String,
    /// The first difference, for mismatches.
    pub difference: Option<Mismatch>,
}

/// The first differing word of a mismatch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mismatch {
    /// `output` or `buffer N`.
    pub place: MismatchPlace,
    /// Invocation whose word differs.
    pub invocation: u32,
    /// Slot or word index.
    pub index: u32,
    /// The interpreter's value.
    pub expected: u32,
    /// The compiled program's value.
    pub actual: u32,
}

/// Where a mismatching word lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MismatchPlace {
    /// An output slot.
    Output,
    /// A word of this buffer.
    Buffer(u32),
}

impl From<sim::dispatch::Difference> for Mismatch {
    fn from(d: sim::dispatch::Difference) -> Self {
        Mismatch {
            place: match d.place {
                sim::dispatch::Place::Output => MismatchPlace::Output,
                sim::dispatch::Place::Buffer(b) => MismatchPlace::Buffer(b),
            },
            invocation: d.invocation,
            index: d.index,
            expected: d.expected,
            actual: d.actual,
        }
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.place {
            MismatchPlace::Output => write!(f, "output slot {}", self.index)?,
            MismatchPlace::Buffer(b) => write!(f, "buffer {b} word {}", self.index)?,
        }
        write!(
            f,
            " of invocation {}: expected {:#010x}, got {:#010x}",
            self.invocation, self.expected, self.actual
        )
    }
}

impl Finding {
    /// A finding with no pass, class or difference.
    pub fn new(kind: FindingKind, target: &str, detail: impl Into<String>) -> Finding {
        Finding {
            kind,
            target: target.to_string(),
            pass: None,
            class: None,
            cause: None,
            detail: detail.into(),
            difference: None,
        }
    }

    /// A finding with its cause, and the class derived from it.
    pub fn caused(
        kind: FindingKind,
        target: &str,
        detail: impl Into<String>,
        cause: Cause,
    ) -> Self {
        let mut f = Finding::new(kind, target, detail);
        f.set_cause(cause);
        f
    }

    /// Sets the cause, and the class with it.
    pub fn set_cause(&mut self, cause: Cause) {
        self.class = Some(cause.class());
        self.cause = Some(cause);
    }

    /// Whether only a fused shader shows it ([`Cause::Fused`]): it reproduces from its batch
    /// (the programs fused with it), not from its own input.
    pub fn fused(&self) -> bool {
        matches!(self.cause, Some(Cause::Fused { .. }))
    }

    /// The bucket key: (kind, target, pass, class).
    pub fn signature(&self) -> String {
        let mut s = format!("{}:{}", self.kind, self.target);
        for part in [&self.pass, &self.class].into_iter().flatten() {
            s.push(':');
            s.push_str(part);
        }
        s
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.target, self.kind)?;
        if let Some(pass) = &self.pass {
            write!(f, " after {pass}")?;
        }
        if let Some(class) = &self.class {
            write!(f, " ({class})")?;
        }
        write!(f, ": {}", self.detail)
    }
}

/// Why an input was not judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rejection {
    /// The interpreter ran out of fuel.
    OutOfFuel,
    /// The generator could not make a program from these bytes.
    NoProgram,
}

/// The oracle's judgement of one input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// Every pipeline agreed with the interpreter.
    Pass,
    /// Not judged.
    Rejected(Rejection),
    /// Something is wrong.
    Finding(Box<Finding>),
    /// Not tested: a target's infrastructure failed; the text says what broke.
    Broken(String),
}

impl Verdict {
    /// A target's finding as a verdict: an [`FindingKind::Infrastructure`] one tested nothing.
    pub fn of(f: Box<Finding>) -> Verdict {
        if f.kind == FindingKind::Infrastructure {
            Verdict::Broken(f.detail.clone())
        } else {
            Verdict::Finding(f)
        }
    }
}
