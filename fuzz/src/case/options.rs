//! How the oracle runs: fuel, the targets, the planted bugs, bisection's pass limit and the
//! `vulkan` target's device.

use crate::targets::vulkan::options::VulkanOptions;
use compiler::planted::Plants;

/// How the oracle runs.
#[derive(Clone, Debug)]
pub struct OracleOptions {
    /// Interpreter fuel per invocation; running out rejects the input.
    pub fuel: u64,
    /// Only these pipelines (by name, checked by [`crate::targets::select`]); empty means
    /// the default set.
    pub targets: Vec<String>,
    /// Planted bugs switched on in every pipeline.
    pub plants: Plants,
    /// Run only the first N optional middle-end pass runs (bisection).
    pub pass_limit: Option<usize>,
    /// Device, ICD and time limit of the `vulkan` target.
    pub vulkan: VulkanOptions,
    /// Knobs set on every case decoded from fuzz input bytes, as `KEY=VALUE` (`fuzz --case`),
    /// checked by whoever makes the options.
    pub pins: Vec<String>,
    /// `gpufuzz run --trace`: a target that executes a driver's code (turnip) prints each
    /// instruction the first differing invocation executed.
    pub trace: bool,
}

impl Default for OracleOptions {
    fn default() -> Self {
        OracleOptions {
            fuel: 200_000,
            targets: Vec::new(),
            plants: Plants::NONE,
            pass_limit: None,
            vulkan: Default::default(),
            pins: Vec::new(),
            trace: false,
        }
    }
}
