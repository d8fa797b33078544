//! gpufuzz's engine: the random program generator, the oracle that compares every target
//! with the reference interpreter, and the fuzz loop shared by `gpufuzz fuzz`, the cargo-fuzz
//! targets and the tests.
#![deny(missing_docs)]

pub mod case;
pub mod cause;
pub mod counters;
pub mod error;
pub mod exe;
pub mod finding;
pub mod fuzz_loop;
pub mod generator;
pub mod libfuzzer;
pub mod mutate;
pub mod oracle;
pub mod panics;
pub mod reach;
pub mod rng;
pub mod store;
pub mod targets;
pub mod worker;

pub use error::Error;

/// gpufuzz's version and the git commit it was built from (`0.1.0 (1a2b3c4d5e6f)`), recorded
/// in every `finding.json`, summary and bug report (`build.rs`: `GPUFUZZ_COMMIT` at build
/// time, else git, else `unknown`).
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("GPUFUZZ_COMMIT"), ")");
