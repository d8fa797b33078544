//! gpufuzz's compiler: the IR, the reference interpreter, the middle end and the backends.
#![deny(missing_docs)]

pub mod gen;
pub mod ir;
pub mod planted;
