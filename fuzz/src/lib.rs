//! gpufuzz's fuzzing library: the random program generator ([`gen`]), and (to come) the
//! oracle, the finding kinds and the in-process fuzz loop shared by the libFuzzer targets,
//! the tests and the CLI.

#![deny(missing_docs)]

pub mod gen;
