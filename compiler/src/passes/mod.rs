//! The middle end: NIR-style optimisation passes, SSA construction for local variables,
//! out-of-SSA, and the pass pipeline that runs them with verification and bisection.
//!
//! Every pass is one free function `verb(func: &mut Function) -> bool` returning whether it
//! changed anything, registered in [`pipeline::PASSES`]. In pipeline order:
//!
//! * [`lower_vars_to_ssa`] — constant-indexed local variables become SSA values and phis;
//! * [`opt_remove_phis`] — phis whose sources are one value (ignoring the phi itself);
//! * [`opt_copy_prop`] — identity movs and vecs, movs of movs and of vecs;
//! * [`opt_constant_folding`] — ALU, mov and vec of constants (via `AluOp::eval`), constant
//!   `bcsel`;
//! * [`opt_algebraic`] — identities exact under our semantics (no float rewrites that change
//!   NaN payloads or signed zeros);
//! * [`opt_cse`] — value numbering of pure instructions over the dominator tree;
//! * [`opt_dead_cf`] — `if`s with constant conditions;
//! * [`opt_dce`] — dead instructions, dead loops, empty ifs;
//! * [`opt_shrink_vectors`] — unused components of vector values;
//! * [`lower_bit_ops`] — bit-field, bit-count and wide-arithmetic ops as basic integer ops
//!   (run by our own backends, not part of the pipeline);
//! * [`from_ssa`] — phis become register copies (the "to register form" step backends ask for).

pub mod config;
pub mod from_ssa;
pub mod lower_bit_ops;
pub mod lower_vars_to_ssa;
pub mod opt_algebraic;
pub mod opt_constant_folding;
pub mod opt_copy_prop;
pub mod opt_cse;
pub mod opt_dce;
pub mod opt_dead_cf;
pub mod opt_remove_phis;
pub mod opt_shrink_vectors;
pub mod pipeline;

pub use from_ssa::from_ssa;
pub use lower_vars_to_ssa::lower_vars_to_ssa;
pub use opt_algebraic::algebraic;
pub use opt_constant_folding::fold_constants;
pub use opt_copy_prop::copy_prop;
pub use opt_cse::cse;
pub use opt_dce::dce;
pub use opt_dead_cf::remove_dead_cf;
pub use opt_remove_phis::remove_phis;
pub use opt_shrink_vectors::shrink_vectors;
pub use pipeline::{
    run_pipeline, to_registers, PassRun, PipelineError, PipelineOptions, PipelineReport,
};

#[cfg(test)]
mod tests;
