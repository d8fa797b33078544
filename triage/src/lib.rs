//! gpufuzz's triage: reduce findings, bisect to the first bad pass, bucket, and report.
#![deny(missing_docs)]

pub mod reduce;
pub mod stats;
