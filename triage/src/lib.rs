//! gpufuzz's triage: reduce findings, bisect to the first bad pass, bucket, and report.
//!
//! * [`signature`] — a bug's identity (kind, target, first bad pass, class);
//! * [`reduce`] — the reducer (program and configuration);
//! * [`bisect`] — the first bad pass, by pass limit and by re-interpretation;
//! * [`bucket`] — one bucket per signature, with an index that survives re-triage;
//! * [`report`] — markdown and JSON per bucket, and promotion into `corpus/regressions/`;
//! * [`session`] — triage of a whole fuzz output folder;
//! * [`fused`] — a finding only a fused shader shows, reduced as its batch;
//! * [`artifacts`] — libFuzzer's `crash-*` files as finding folders, for triage;
//! * [`selftest`] — the fuzzer measured on planted bugs (time to find, repro size);
//! * [`stats`] — shader-db style statistics of a corpus and their comparison (`report.py`);
//! * [`Error`] — why any of them stopped.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod artifacts;
pub mod bisect;
pub mod bucket;
mod error;
pub mod fused;
pub mod reduce;
pub mod report;
pub mod selftest;
pub mod session;
pub mod signature;
pub mod stats;

pub use error::Error;
