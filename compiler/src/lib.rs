//! gpufuzz's compiler: the IR, the reference interpreter, the middle end and the backends.
#![deny(missing_docs)]

pub mod a6xx;
pub mod bits;
pub mod executed;
pub mod gen;
pub mod heuristics;
pub mod interp;
pub mod ir;
pub mod passes;
pub mod planted;
pub mod profile;
