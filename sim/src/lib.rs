//! The two machines gpufuzz compiles for: their ISAs, executors, timing and hazard detection.
//!
//! The simulators are the hardware: nothing here knows about the compiler.
#![deny(missing_docs)]

pub mod a6xx;
pub mod dispatch;
pub mod gen;
pub mod intel;
pub mod semantics;
