//! Runs SPIR-V compute jobs on a Vulkan device, isolated in a worker process.
//!
//! - [`job`]: what a job is (SPIR-V, storage buffers, sampled images, workgroups), what it
//!   returns, how it fails, which device ran it.
//! - [`client`]: [`Worker`], the caller's handle: starts the worker process, enforces the
//!   time limit, restarts it after a hang or a crash.
//! - [`wire`]: the framed protocol between the two processes.
//! - [`serve`]: the worker's loop, the body of the `vk-worker` binary (and of `gpufuzz
//!   vk-worker`).
//! - [`capture`]: compile-only jobs: the pipeline's executables, statistics and internal
//!   representations (`VK_KHR_pipeline_executable_properties`).
//! - [`device`]: the Vulkan calls (ash, loader opened at run time), inside the worker.
//! - [`root`]: workers (and tools) run inside another system's root, for a newer Mesa.
//!
//! Nothing here knows about gpufuzz's IR: the crate takes words and gives words back.
#![deny(missing_docs)]

pub mod capture;
pub mod client;
pub mod device;
pub mod job;
pub mod root;
pub mod serve;
pub mod wire;

pub use capture::{Compiled, Executable, StatValue, Statistic};
pub use client::{Worker, WorkerCommand, WorkerOptions};
pub use job::{
    crash_class, Binding, DeviceInfo, FloatControls, Image, IntWidths, Job, NoStack, Output,
    Resource, RunError, Subgroups, Timings,
};
pub use root::{RerunError, RootError};
pub use wire::WireError;
