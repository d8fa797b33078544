//! The pipelines the oracle compares with the interpreter. Each compiles a case its own way,
//! runs it, and returns the results (or a finding: a verifier failure after a pass, a compiler
//! error, a hazard, an allocation-checker error, a timeout). A new target registers here and
//! nowhere else.

pub mod middle;

use crate::finding::Finding;
use crate::oracle::{Case, Coverage, OracleOptions};
use compiler::ir::Program;
use sim::dispatch::Results;

/// One way of compiling and running a program.
pub trait Pipeline: Sync {
    /// Short name used in findings, `--targets` and reports.
    fn name(&self) -> &'static str;

    /// Compiles `optimised` (the case's program after the middle end) and runs it; notes
    /// what it exercised in `coverage`.
    fn run(
        &self,
        case: &Case,
        optimised: &Program,
        opts: &OracleOptions,
        coverage: &mut Coverage,
    ) -> Result<Results, Box<Finding>>;
}

/// Every registered pipeline, in the order the oracle runs them.
pub fn all() -> &'static [&'static dyn Pipeline] {
    &[&middle::Middle]
}
