//! The two machines gpufuzz compiles for: their ISAs, executors, timing and hazard detection.
//!
//! The simulators are the hardware: nothing here knows about the compiler.
#![deny(missing_docs)]

pub mod a6xx;
pub mod dispatch;
pub mod gen;
pub mod image;
pub mod intel;
/// Real Adreno a6xx/a7xx binaries emitted by Mesa's ir3: decoder, ir3-syntax printer, executor.
pub mod ir3;
pub mod semantics;
