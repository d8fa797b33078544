//! naga's steps, as a finding's cause names them: a file of its own that imports nothing, so
//! that the cause floor (`crate::cause`) can carry naga's class without importing the target.

use serde::{Deserialize, Serialize};

/// The step of naga that failed, or what is wrong with the module it wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Step {
    /// `front::spv`: SPIR-V in, refusing a module `spirv-val` accepts.
    FrontEnd,
    /// `valid::Validator`, rejecting the front end's module.
    Validator,
    /// `back::spv`: SPIR-V out.
    SpvOut,
    /// The module naga wrote is invalid (the driver refused it, and so does `spirv-val`).
    OutputInvalid,
    /// The module naga wrote computes another value than the interpreter (ours, run alone
    /// on the same device, does not).
    Mismatch,
}

impl Step {
    /// Its name in classes and reports.
    pub fn name(self) -> &'static str {
        match self {
            Step::FrontEnd => "front end",
            Step::Validator => "validator",
            Step::SpvOut => "spv-out",
            Step::OutputInvalid => "spv-out invalid",
            Step::Mismatch => "mismatch",
        }
    }
}
