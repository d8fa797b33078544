//! Buckets: one per [`Signature`], kept in `DIR/bugs/index.json` so a later triage of the
//! same folder counts new hits of a known bug instead of reporting it again, and never
//! re-triages a finding it has already seen.

use crate::signature::Signature;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};

/// One bucket.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Bucket {
    /// File-name stem of its report (`bugs/<id>.md`, `.json`, `.ir`).
    pub id: String,
    /// The bug.
    pub signature: Signature,
    /// Findings triaged into it (folder names under `findings/`).
    pub findings: Vec<String>,
    /// Instructions in its smallest repro.
    pub smallest: usize,
}

impl Bucket {
    /// Hits: findings triaged into it.
    pub fn hits(&self) -> usize {
        self.findings.len()
    }
}

/// The index of a folder's buckets.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Index {
    /// Buckets by signature key.
    pub buckets: BTreeMap<String, Bucket>,
    /// Finding folders already triaged (including ones that did not reproduce).
    pub processed: BTreeSet<String>,
    /// Finding folders that did not reproduce, with the reason.
    pub unreproduced: BTreeMap<String, String>,
}

/// What adding a hit did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Added {
    /// A new bucket.
    New,
    /// A known bucket, and this repro is smaller than its best.
    Smaller,
    /// A known bucket; the existing repro stays.
    Counted,
}

impl Index {
    /// The index file of a triage output folder.
    pub fn path(bugs: &Path) -> PathBuf {
        bugs.join("index.json")
    }

    /// Loads the index (an empty one if there is none yet).
    pub fn load(bugs: &Path) -> io::Result<Index> {
        match std::fs::read_to_string(Self::path(bugs)) {
            Ok(s) => serde_json::from_str(&s).map_err(io::Error::other),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Index::default()),
            Err(e) => Err(e),
        }
    }

    /// Saves the index atomically.
    pub fn save(&self, bugs: &Path) -> io::Result<()> {
        let json = serde_json::to_string_pretty(self).map_err(io::Error::other)?;
        fuzz::store::write_atomically(&Self::path(bugs), json.as_bytes())
    }

    /// Files `finding` (a folder name) under `sig`, whose repro has `size` instructions.
    pub fn add(&mut self, sig: &Signature, finding: &str, size: usize) -> (Added, &Bucket) {
        let key = sig.key();
        let taken: BTreeSet<String> = self.buckets.values().map(|b| b.id.clone()).collect();
        let added = match self.buckets.get_mut(&key) {
            Some(b) => {
                if !b.findings.iter().any(|f| f == finding) {
                    b.findings.push(finding.to_string());
                }
                if size < b.smallest {
                    b.smallest = size;
                    Added::Smaller
                } else {
                    Added::Counted
                }
            }
            None => {
                let mut id = sig.slug();
                let stem = id.clone();
                let mut n = 2;
                while taken.contains(&id) {
                    id = format!("{stem}-{n}");
                    n += 1;
                }
                self.buckets.insert(
                    key.clone(),
                    Bucket {
                        id,
                        signature: sig.clone(),
                        findings: vec![finding.to_string()],
                        smallest: size,
                    },
                );
                Added::New
            }
        };
        (added, &self.buckets[&key])
    }

    /// The bucket with this id or key.
    pub fn find(&self, name: &str) -> Option<&Bucket> {
        self.buckets
            .get(name)
            .or_else(|| self.buckets.values().find(|b| b.id == name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fuzz::finding::FindingKind;

    fn sig(pass: &str) -> Signature {
        Signature {
            kind: FindingKind::Mismatch,
            target: "middle".into(),
            first_bad_pass: Some(pass.into()),
            class: None,
        }
    }

    #[test]
    fn same_signature_counts_other_signature_opens_a_bucket() {
        let mut ix = Index::default();
        assert_eq!(ix.add(&sig("opt_dce"), "a", 10).0, Added::New);
        assert_eq!(ix.add(&sig("opt_dce"), "b", 12).0, Added::Counted);
        assert_eq!(ix.add(&sig("opt_dce"), "c", 5).0, Added::Smaller);
        assert_eq!(ix.add(&sig("from_ssa"), "d", 5).0, Added::New);
        assert_eq!(ix.buckets.len(), 2);
        assert_eq!(ix.find("middle-opt_dce").unwrap().hits(), 3);
    }

    #[test]
    fn one_blamed_pass_is_one_bucket_however_and_wherever_it_shows() {
        let on = |kind, target: &str, pass: Option<&str>, class: Option<&str>| Signature {
            kind,
            target: target.into(),
            first_bad_pass: pass.map(Into::into),
            class: class.map(Into::into),
        };
        let zs = Some("opt_zero_samples");
        let wrong = on(FindingKind::RaCheck, "gen8", zs, Some("IncorrectValue"));
        let invalid = on(FindingKind::CompileError, "gen16", zs, Some("Invalid"));
        assert_eq!(wrong, invalid);
        assert_eq!(wrong.key(), "gen:opt_zero_samples");
        // A middle-end pass is the middle end's bug on every target.
        let middle = on(FindingKind::Mismatch, "middle", Some("opt_dce"), None);
        let a6xx = on(
            FindingKind::Timeout,
            "a6xx",
            Some("opt_dce"),
            Some("timeout"),
        );
        assert_eq!(middle, a6xx);
        assert_eq!(a6xx.key(), "middle:opt_dce");
        // The same backend step name on two backends, or no blame: the finding's own key.
        let legalize = on(FindingKind::Hazard, "a6xx", Some("a6xx_legalize"), None);
        assert_ne!(legalize, wrong);
        let hang = on(FindingKind::Timeout, "process", None, Some("wall-clock"));
        assert_eq!(hang.key(), "timeout:process:wall-clock");
    }
}
