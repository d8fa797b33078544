//! The floor under every real-driver target (`vulkan`, `anv`, `radv`, `naga`, and the next
//! ones): what each of them needs and none of them owns. It knows no target by name.
//!
//! * [`module`] — the SPIR-V module a driver gets: the program (the middle end's output, or the
//!   generator's), the emitter's options for the device, made once per case for all targets;
//! * [`compile_only`] — the compile-only target of a driver over a no-op drm-shim (turnip,
//!   NVK, Asahi), written once; [`words`] — the knob types its drivers' words make;
//! * [`causes`] — the finding classes of a failed run every target shares;
//! * [`knobs`] — the module's section of a case (`vulkan_unoptimised`, `vulkan_spirv_opt`);
//! * [`spirv_opt`] — SPIRV-Tools' optimiser as a step in front of a driver, its crashes
//!   reduced with `spirv-reduce`;
//! * [`workers`] — the worker processes a thread keeps, one per driver environment;
//! * [`mesa`] — which Mesa the drivers come from (`--mesa`, a root, the shims);
//! * [`standalone`] — the repro files driver developers run without gpufuzz (vkrunner, Amber,
//!   `.spvasm`).

pub mod causes;
pub mod compile_only;
#[cfg(test)]
pub mod fake_worker;
pub mod knobs;
pub mod mesa;
pub mod module;
pub mod spirv_opt;
pub mod standalone;
pub mod words;
pub mod workers;
