//! A bug's identity. When bisection names the guilty pass, the bug *is* that pass, on its
//! side of the compiler: `middle:opt_dce` (a middle-end pass, whichever target showed it),
//! `gen:opt_zero_samples` (a Gen backend step, gen8 and gen16 alike), `a6xx:a6xx_legalize`.
//! One root cause then makes one bucket however it shows (a wrong value on one program, a
//! compile error on another, on several targets). When no pass can be blamed the oracle's
//! finding signature (kind, target, class) is the identity. Two findings with equal
//! [`Signature`]s (equal keys) are one bug; the reducer keeps a candidate only if it shows the
//! same signature.

use crate::bisect;
use fuzz::finding::{Finding, FindingKind};
use fuzz::oracle::finding_of;
use fuzz::oracle::{Case, OracleOptions};
use fuzz::targets::{self, middle};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A finding with its blame; compared, hashed and ordered by its [`key`](Signature::key).
#[derive(Clone, Debug, Serialize, Deserialize)]
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
    /// The key text: `SIDE:PASS` for a blamed bug (`middle:from_ssa`, `gen:gen_ra_spill`),
    /// else `KIND:TARGET[:CLASS]` (`timeout:process:wall-clock`).
    pub fn key(&self) -> String {
        if let Some(pass) = &self.first_bad_pass {
            return format!("{}:{pass}", side(pass, &self.target));
        }
        let mut s = format!("{}:{}", self.kind, self.target);
        if let Some(class) = &self.class {
            s.push(':');
            s.push_str(class);
        }
        s
    }

    /// The finding's own signature, kind:target[:class] (the oracle's, before any blame).
    pub fn finding_key(&self) -> String {
        let mut s = format!("{}:{}", self.kind, self.target);
        if let Some(class) = &self.class {
            s.push(':');
            s.push_str(class);
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

/// The side of the compiler `pass` belongs to: `middle` for the middle end's passes (and
/// out-of-SSA), else the family of `target` ([`fuzz::targets::Target::family`]: `gen`
/// for gen8 and gen16).
pub fn side(pass: &str, target: &str) -> String {
    let in_middle_end = pass == bisect::FROM_SSA
        || compiler::passes::pipeline::PASSES
            .iter()
            .any(|(name, _)| *name == pass);
    if in_middle_end {
        middle::NAME.into()
    } else {
        targets::by_name(target)
            .map_or(target, |t| t.family())
            .into()
    }
}

impl PartialEq for Signature {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Signature {}

impl std::hash::Hash for Signature {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}

impl PartialOrd for Signature {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Signature {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
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

/// Whether `case` shows exactly `want`: bisection names the same pass on the same side, or,
/// for a bug no pass is blamed for, the same kind, target and class. Not merely "some
/// failure".
pub fn shows(case: &Case, opts: &OracleOptions, want: &Signature) -> bool {
    shown(case, opts, want).is_some()
}

/// The finding by which `case` shows `want` ([`shows`]), if it does.
pub fn shown(case: &Case, opts: &OracleOptions, want: &Signature) -> Option<Finding> {
    let f = finding_of(case, opts)?;
    if want.first_bad_pass.is_none() && !want.matches_finding(&f) {
        return None;
    }
    let sig = Signature {
        kind: f.kind,
        target: f.target.clone(),
        first_bad_pass: bisect::first_bad_pass(case, opts, &f),
        class: f.class.clone(),
    };
    (sig == *want).then_some(f)
}
