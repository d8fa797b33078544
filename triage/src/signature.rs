//! A bug's identity: the oracle's finding signature (kind, target, class) plus the first bad
//! pass that bisection names. Two findings with equal [`Signature`]s are one bug (one
//! bucket); the reducer keeps a candidate only if it shows the same signature.

use crate::bisect;
use fuzz::finding::{Finding, FindingKind, Verdict};
use fuzz::oracle::{self, Case, OracleOptions};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The bucket key: (kind, target, first bad pass, class).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Signature {
    /// What went wrong.
    pub kind: FindingKind,
    /// The pipeline that showed it.
    pub target: String,
    /// The pass bisection (or the verifier) names; `None` when no pass could be blamed.
    pub first_bad_pass: Option<String>,
    /// The finding's finer class (hazard kind, panic location, error variant).
    pub class: Option<String>,
}

impl Signature {
    /// The key text, e.g. `mismatch:middle:from_ssa`.
    pub fn key(&self) -> String {
        let mut s = format!("{}:{}", self.kind, self.target);
        for part in [&self.first_bad_pass, &self.class].into_iter().flatten() {
            s.push(':');
            s.push_str(part);
        }
        s
    }

    /// A file-name-safe form of the key.
    pub fn slug(&self) -> String {
        self.key()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '-'
                }
            })
            .collect::<String>()
            .chars()
            .take(80)
            .collect()
    }

    /// Whether `f` has this signature's kind, target and class (the pass is checked apart).
    pub fn matches_finding(&self, f: &Finding) -> bool {
        f.kind == self.kind && f.target == self.target && f.class == self.class
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// Judges a case; the finding, if any.
pub fn finding_of(case: &Case, opts: &OracleOptions) -> Option<Finding> {
    match oracle::judge(case, opts).verdict {
        Verdict::Finding(f) => Some(*f),
        _ => None,
    }
}

/// The signature a case shows (judging it, then bisecting), with its finding.
pub fn signature_of(case: &Case, opts: &OracleOptions) -> Option<(Signature, Finding)> {
    let f = finding_of(case, opts)?;
    let first_bad_pass = bisect::first_bad_pass(case, opts, &f);
    let sig = Signature {
        kind: f.kind,
        target: f.target.clone(),
        first_bad_pass,
        class: f.class.clone(),
    };
    Some((sig, f))
}

/// Whether `case` shows exactly `want`: the same kind, target and class, and bisection names
/// the same first bad pass. Not merely "some failure".
pub fn shows(case: &Case, opts: &OracleOptions, want: &Signature) -> bool {
    let Some(f) = finding_of(case, opts) else {
        return false;
    };
    want.matches_finding(&f) && bisect::first_bad_pass(case, opts, &f) == want.first_bad_pass
}
