//! gpufuzz's engine: the random program generator, the oracle that compares every pipeline
//! with the reference interpreter, and the fuzz loop shared by `gpufuzz fuzz`, the cargo-fuzz
//! targets and the tests.
#![deny(missing_docs)]

pub mod case;
pub mod driver;
pub mod finding;
pub mod gen;
pub mod oracle;
pub mod panics;
pub mod pipelines;
pub mod reach;
pub mod rng;
pub mod store;
pub mod targets;
pub mod worker;
