//! What the runner is asked to do and what it answers: a compute job (SPIR-V words, the
//! resources bound in descriptor set 0, the workgroup count), its output (every storage
//! buffer's final words and where the time went), the device it ran on, and how it failed.

use crate::root::RerunError;
use std::fmt;
use std::time::Duration;
use supervisor::stack::Stack;

/// One compute dispatch: a SPIR-V module with an entry point `main` in the GLCompute model,
/// whose descriptor set 0 holds `bindings`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// The SPIR-V module.
    pub spirv: Vec<u32>,
    /// Workgroups dispatched in x, y, z.
    pub workgroups: [u32; 3],
    /// The resources of descriptor set 0.
    pub bindings: Vec<Binding>,
    /// For a module with subgroup operations: the subgroup size its pipeline must run with
    /// (its workgroup size; full subgroups required, so each workgroup is one subgroup).
    pub subgroup_size: Option<u32>,
}

/// One resource at one binding number of descriptor set 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The `Binding` decoration's number.
    pub binding: u32,
    /// What is bound there.
    pub resource: Resource,
}

/// A bound resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resource {
    /// A storage buffer (`STORAGE_BUFFER` descriptor) holding these words at the start;
    /// its final words come back in [`Output::buffers`]. An empty buffer is given one word
    /// (Vulkan has no empty buffers) and comes back empty.
    Buffer(Vec<u32>),
    /// A combined image sampler over a 2D array image.
    Image(Image),
}

/// A `R32G32B32A32_UINT` 2D array image with mipmaps, sampled with nearest filtering (min,
/// mag and mip) and repeat addressing, unnormalized coordinates off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Width of level 0.
    pub width: u32,
    /// Height of level 0.
    pub height: u32,
    /// Mip levels; level `l` is `max(1, width >> l)` by `max(1, height >> l)`.
    pub levels: u32,
    /// Array layers.
    pub layers: u32,
    /// Texel words: level-major, then layer, then row, then column, four words a texel —
    /// exactly [`Image::words_len`] of them.
    pub texels: Vec<u32>,
}

impl Image {
    /// Width and height of mip level `level`.
    pub fn level_size(&self, level: u32) -> (u32, u32) {
        ((self.width >> level).max(1), (self.height >> level).max(1))
    }

    /// The number of words `texels` must hold.
    pub fn words_len(&self) -> usize {
        (0..self.levels)
            .map(|l| {
                let (w, h) = self.level_size(l);
                w as usize * h as usize * 4 * self.layers as usize
            })
            .sum()
    }
}

/// What a finished job leaves behind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Output {
    /// The final words of every [`Resource::Buffer`] binding, in the order of `Job::bindings`.
    pub buffers: Vec<Vec<u32>>,
    /// Where the worker's time went.
    pub timings: Timings,
}

/// Time spent per stage of one job, measured in the process that talks to the driver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timings {
    /// Shader module and compute pipeline creation: the driver's compiler.
    pub pipeline: Duration,
    /// Resource upload, dispatch, fence wait and read-back.
    pub dispatch: Duration,
}

/// The device a runner talks to, for findings and reports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Index among the instance's physical devices (`--vk-device`).
    pub index: u32,
    /// `deviceName`, e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`.
    pub name: String,
    /// `driverName`, e.g. `llvmpipe` (empty below Vulkan 1.2).
    pub driver_name: String,
    /// `driverInfo`, e.g. `Mesa 22.3.6 (LLVM 15.0.6)` (empty below Vulkan 1.2).
    pub driver_info: String,
    /// `driverVersion` as the vendor encodes it.
    pub driver_version: u32,
    /// `apiVersion` as `major.minor.patch`.
    pub api_version: String,
    /// 32-bit float behaviour the driver guarantees.
    pub float_controls: FloatControls,
    /// What the device offers subgroup operations.
    pub subgroups: Subgroups,
    /// Integer widths besides 32 bits the device's shaders take (`shaderInt16`,
    /// `shaderInt64`), enabled when offered.
    pub ints: IntWidths,
}

/// The integer widths a device offers besides 32 bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntWidths {
    /// `shaderInt16`.
    pub int16: bool,
    /// `shaderInt64`.
    pub int64: bool,
}

impl IntWidths {
    /// Why a module of 16-bit (`int16`) and 64-bit (`int64`) integers cannot run here, if it
    /// cannot.
    pub fn refusal(self, int16: bool, int64: bool) -> Option<String> {
        let missing: Vec<&str> = [
            (int16 && !self.int16, "shaderInt16"),
            (int64 && !self.int64, "shaderInt64"),
        ]
        .into_iter()
        .filter_map(|(m, name)| m.then_some(name))
        .collect();
        (!missing.is_empty()).then(|| format!("no {}", missing.join(", no ")))
    }
}

/// A device's subgroup support, as far as a job with subgroup operations needs it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Subgroups {
    /// Smallest subgroup size a pipeline may require (`minSubgroupSize`).
    pub min_size: u32,
    /// Largest (`maxSubgroupSize`).
    pub max_size: u32,
    /// `supportedOperations` in compute shaders (`VkSubgroupFeatureFlags` bits; 0 when
    /// compute shaders have none).
    pub operations: u32,
    /// A compute pipeline can require a subgroup size with full subgroups
    /// (`subgroupSizeControl`, `computeFullSubgroups`, compute in
    /// `requiredSubgroupSizeStages`), enabled on the device.
    pub size_control: bool,
    /// `shaderMaximalReconvergence`, enabled on the device.
    pub maximal_reconvergence: bool,
}

impl Subgroups {
    /// Why a compute pipeline cannot require subgroup size `size` with full subgroups here.
    pub fn size_refusal(&self, size: u32) -> Option<String> {
        if !self.size_control {
            return Some("no subgroup size control for compute shaders".into());
        }
        (!(self.min_size..=self.max_size).contains(&size)).then(|| {
            format!(
                "a subgroup size of {size}: the device offers {}..={}",
                self.min_size, self.max_size
            )
        })
    }

    /// Why a module needing subgroup operations `ops` (`VkSubgroupFeatureFlags`) at subgroup
    /// size `size` (full subgroups, maximal reconvergence) cannot run here, if it cannot.
    pub fn refusal(&self, size: u32, ops: u32) -> Option<String> {
        if let Some(why) = self.size_refusal(size) {
            return Some(why);
        }
        let missing = ops & !self.operations;
        if missing != 0 {
            return Some(format!(
                "subgroup operations {missing:#x} (VkSubgroupFeatureFlags) in compute shaders"
            ));
        }
        (!self.maximal_reconvergence).then(|| "no shaderMaximalReconvergence".into())
    }
}

impl DeviceInfo {
    /// One line naming device and driver, for findings and reports.
    pub fn describe(&self) -> String {
        let driver = if self.driver_info.is_empty() {
            format!("driver version {:#x}", self.driver_version)
        } else {
            format!("{} {}", self.driver_name, self.driver_info)
        };
        format!(
            "{} [{}] (Vulkan {}, device {})",
            self.name, driver, self.api_version, self.index
        )
    }
}

/// The 32-bit part of `VkPhysicalDeviceFloatControlsProperties`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FloatControls {
    /// Shaders may ask for denormals to be preserved (`DenormPreserve 32`).
    pub denorm_preserve: bool,
    /// Shaders may ask for denormals to be flushed (`DenormFlushToZero 32`).
    pub denorm_flush_to_zero: bool,
    /// `SignedZeroInfNanPreserve 32` is supported.
    pub signed_zero_inf_nan_preserve: bool,
    /// `RoundingModeRTE 32` is supported.
    pub rounding_mode_rte: bool,
}

/// Why a job produced no output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// No Vulkan loader, no device, or no such device; the text says what to install or pick.
    NoVulkan(String),
    /// The job did not finish within its time limit (the worker was killed).
    Timeout(Duration),
    /// The driver reported `VK_ERROR_DEVICE_LOST`.
    DeviceLost(String),
    /// The driver refused the shader module or compute pipeline.
    PipelineCreation(String),
    /// The worker process died: `status` says how (`signal 11 (SIGSEGV)`, `exit status 101`),
    /// `stderr` holds what it printed since its last answer (the middle left out when long),
    /// `stack` where it crashed — the request run again under gdb — or why that is not known.
    WorkerCrashed {
        /// How the process ended.
        status: String,
        /// Its standard error since its last answer.
        stderr: String,
        /// Its stack when the same requests crash a fresh worker under gdb.
        stack: Result<Stack, NoStack>,
    },
    /// The job is malformed (wrong texel count, zero workgroups) or another Vulkan call
    /// failed; the text names the call.
    Failed(String),
    /// No worker could be started (its executable or its system root gone, the spawn
    /// refused), or it died before opening its device: nothing was tested, by no fault of
    /// the driver's compiler. Retried a few times before it is reported.
    Unstartable(String),
}

/// Why a dead worker's stack is not known. Each variant's message is its documentation; an
/// I/O error is kept as its text, for this crosses the wire in a [`RunError`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[allow(missing_docs)]
pub enum NoStack {
    #[error("it ended with {status}, not a signal")]
    NotASignal { status: String },
    /// The requests to replay could not be framed.
    #[error("{error}")]
    CannotFrameRequests { error: String },
    /// The worker executable could not be copied into the root.
    #[error("{error}")]
    CannotPlaceWorker { error: String },
    #[error("a fresh worker under gdb: {0}")]
    FreshWorker(RerunError),
}

/// What a crashed worker's finding is bucketed by: the driver's assertion when it printed one,
/// else where it crashed (the signal and faulting frame), else how it died.
pub fn crash_class(status: &str, stderr: &str, stack: &Result<Stack, NoStack>) -> String {
    match (assertion(stderr), stack) {
        (Some(assertion), _) => assertion,
        (None, Ok(stack)) => format!("worker {}", stack.signature()),
        (None, Err(_)) => format!("worker {status}"),
    }
}

/// The text of an assertion in a crashed worker's stderr (`... Assertion `x' failed.`),
/// without the process name before it.
pub fn assertion(stderr: &str) -> Option<String> {
    let line = stderr
        .lines()
        .rev()
        .find(|l| l.contains("Assertion") || l.contains("assert"))?
        .trim();
    let text = line.split_once(": ").map_or(line, |(_, rest)| rest);
    Some(text.chars().take(200).collect())
}

/// How much of a dead worker's stderr its error's text shows.
const SHOWN_STDERR: usize = 4096;

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::NoVulkan(m) => write!(f, "no Vulkan device: {m}"),
            RunError::Timeout(t) => write!(f, "did not finish within {} ms", t.as_millis()),
            RunError::DeviceLost(m) => write!(f, "device lost: {m}"),
            RunError::PipelineCreation(m) => write!(f, "pipeline creation failed: {m}"),
            RunError::WorkerCrashed {
                status,
                stderr,
                stack,
            } => {
                write!(f, "the Vulkan worker died ({status})")?;
                match stack {
                    Ok(stack) => write!(f, "; under gdb: {stack}")?,
                    Err(why) => write!(f, "; no stack: {why}")?,
                }
                let stderr = stderr.trim();
                if !stderr.is_empty() {
                    // The last lines say why (an assertion, a signal's backtrace); the
                    // whole text stays in the error for whoever needs it.
                    let from = stderr.len().saturating_sub(SHOWN_STDERR);
                    let from = (from..stderr.len())
                        .find(|&i| stderr.is_char_boundary(i))
                        .unwrap_or(0);
                    write!(f, "; its stderr ends with: {}", &stderr[from..])?;
                }
                Ok(())
            }
            RunError::Failed(m) => write!(f, "{m}"),
            RunError::Unstartable(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for RunError {}

#[cfg(test)]
mod tests {
    use super::*;
    use supervisor::stack::Frame;

    #[test]
    fn a_crash_is_bucketed_by_its_assertion_else_where_it_crashed_else_how_it_died() {
        let stack = Ok(Stack {
            signal: "SIGSEGV".into(),
            frames: vec![Frame {
                function: None,
                library: Some("libvulkan_intel.so".into()),
                offset: Some(0x1234),
            }],
        });
        let stderr = "MESA: warning: something\nvk-worker: ../src/intel/compiler/brw_fs.cpp:123: void f(): Assertion `x < y' failed.\n";
        let segv = "signal 11 (SIGSEGV)";
        assert_eq!(
            crash_class(segv, stderr, &stack),
            "../src/intel/compiler/brw_fs.cpp:123: void f(): Assertion `x < y' failed."
        );
        // A warning is not the crash's text: the place is.
        let warning = "MESA: warning: something\n";
        assert_eq!(
            crash_class(segv, warning, &stack),
            "worker SIGSEGV at libvulkan_intel.so+0x1234"
        );
        assert_eq!(
            crash_class(
                segv,
                warning,
                &Err(NoStack::FreshWorker(RerunError::DidNotCrashAgain))
            ),
            "worker signal 11 (SIGSEGV)"
        );
    }

    #[test]
    fn a_missing_stack_says_why_as_it_did_when_the_reason_was_text() {
        let why = NoStack::FreshWorker(RerunError::NoSystemGdb {
            error: "cannot start gdb (gdb): No such file or directory (os error 2)".into(),
        });
        assert_eq!(
            why.to_string(),
            "a fresh worker under gdb: cannot start gdb (gdb): No such file or directory \
             (os error 2) (apt-get install gdb)"
        );
        let why = NoStack::NotASignal {
            status: "exit status 101".into(),
        };
        assert_eq!(
            why.to_string(),
            "it ended with exit status 101, not a signal"
        );
    }
}
