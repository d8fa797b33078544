//! Where and how the `vulkan` target runs: the device, ICD and time limit the command line
//! names, as the oracle's options carry them.

use std::path::PathBuf;
use std::time::Duration;
use vulkan_runner::{RunError, WorkerCommand, WorkerOptions};

/// Where and how the `vulkan` target runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VulkanOptions {
    /// Physical device index (`--vk-device`).
    pub device: u32,
    /// ICD manifest instead of the loader's default (`--vk-icd`, sets `VK_ICD_FILENAMES`).
    pub icd: Option<PathBuf>,
    /// How long a dispatch may run before it is a timeout finding (`--vk-timeout-ms`).
    pub dispatch_timeout: Duration,
    /// The worker executable and arguments; `None` runs this executable as `… vk-worker`.
    pub worker: Option<WorkerCommand>,
}

impl Default for VulkanOptions {
    fn default() -> Self {
        VulkanOptions {
            device: 0,
            icd: None,
            dispatch_timeout: Duration::from_secs(2),
            worker: None,
        }
    }
}

impl VulkanOptions {
    /// The worker process these options ask for.
    pub fn worker_options(&self) -> Result<WorkerOptions, RunError> {
        let command = match &self.worker {
            Some(c) => c.clone(),
            None => WorkerCommand {
                program: crate::exe::worker_program(),
                args: vec!["vk-worker".into()],
            },
        };
        let mut w = WorkerOptions::new(command);
        w.device = self.device;
        w.icd = self.icd.clone();
        // No ICD named: the Mesa under test's lavapipe, or the loader's default for the
        // system's.
        let mesa = crate::targets::driver::mesa::current();
        if self.icd.is_none() && !mesa.is_system() {
            let env = mesa
                .driver(
                    "vulkan.env",
                    "GPUFUZZ_VULKAN",
                    crate::targets::driver::mesa::SCRIPTS,
                )
                .map_err(RunError::NoVulkan)?;
            w.icd = Some(env.icd);
            w.root = env.root;
        }
        w.dispatch_timeout = self.dispatch_timeout;
        Ok(w)
    }
}
