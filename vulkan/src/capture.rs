//! Compile-only jobs: create the compute pipeline with `VK_KHR_pipeline_executable_properties`'
//! capture flags and return what the driver says it built — per executable (anv: one per SIMD
//! width it kept) its name, subgroup size, statistics and internal representations (anv's
//! "Final NIR" and "GEN Assembly"). Nothing is dispatched, so a driver running on a no-op
//! kernel shim (Mesa's drm-shim) is exercised exactly as far as its compiler goes.

use crate::device::Device;
use crate::job::{Job, RunError};
use ash::vk;
use std::ffi::CStr;
use std::time::{Duration, Instant};

/// What the driver reports about one compiled pipeline.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Compiled {
    /// The pipeline's executables, in the driver's order.
    pub executables: Vec<Executable>,
    /// Shader module and pipeline creation, measured in the worker.
    pub pipeline: Duration,
    /// `vkGetPipelineCacheData` of a cache that holds this pipeline alone: the driver's own
    /// serialisation of what it built, where turnip keeps ir3's machine code verbatim (the
    /// executables' texts carry no instruction words).
    pub pipeline_cache: Vec<u8>,
    /// What the worker printed on stderr while compiling (a driver's own validators print
    /// there: ACO's `validateir`). Filled by the client from the worker's stderr, not sent.
    pub stderr: String,
}

/// One executable of a pipeline (`VkPipelineExecutablePropertiesKHR` and what hangs off it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Executable {
    /// Its name, e.g. `SIMD16 CS`.
    pub name: String,
    /// The driver's description, e.g. `SIMD16 compute shader`.
    pub description: String,
    /// The subgroup size it runs with.
    pub subgroup_size: u32,
    /// The driver's statistics, in its order.
    pub statistics: Vec<Statistic>,
    /// The internal representations (name, text), e.g. ("GEN Assembly", the listing).
    pub representations: Vec<(String, String)>,
}

/// One `VkPipelineExecutableStatisticKHR`.
#[derive(Clone, Debug, PartialEq)]
pub struct Statistic {
    /// Its name, e.g. `Instruction Count`.
    pub name: String,
    /// Its value.
    pub value: StatValue,
}

/// A statistic's value in the format the driver chose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StatValue {
    /// `BOOL32`.
    Bool(bool),
    /// `INT64`.
    Int(i64),
    /// `UINT64`.
    Uint(u64),
    /// `FLOAT64`.
    Float(f64),
}

impl std::fmt::Display for StatValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StatValue::Bool(b) => write!(f, "{b}"),
            StatValue::Int(v) => write!(f, "{v}"),
            StatValue::Uint(v) => write!(f, "{v}"),
            StatValue::Float(v) => write!(f, "{v}"),
        }
    }
}

impl Executable {
    /// The internal representation called `name`, if the driver returned one.
    pub fn representation(&self, name: &str) -> Option<&str> {
        self.representations
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.as_str())
    }

    /// The statistic called `name`, if the driver returned one.
    pub fn statistic(&self, name: &str) -> Option<StatValue> {
        self.statistics
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.value)
    }
}

fn text(chars: &[std::ffi::c_char]) -> String {
    // SAFETY: `c_char` and `u8` have the same size and alignment.
    let bytes = unsafe { std::slice::from_raw_parts(chars.as_ptr().cast::<u8>(), chars.len()) };
    CStr::from_bytes_until_nul(bytes)
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default()
}

impl Device {
    /// Creates `job`'s pipeline with the capture flags and returns what the driver reports
    /// about it; the job's resources are only declared, never bound or dispatched.
    pub fn compile(&mut self, job: &Job) -> Result<Compiled, RunError> {
        let Some(props) = self.executable_properties() else {
            return Err(RunError::Failed(
                "the device lacks VK_KHR_pipeline_executable_properties".into(),
            ));
        };
        let props = props.clone();
        let started = Instant::now();
        let flags = vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR
            | vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR;
        let (pipeline, objects) = self.create_pipeline_only(job, flags)?;
        let pipeline_time = started.elapsed();
        let captured = read_executables(&props, pipeline);
        let cache = self.pipeline_cache_data(&objects);
        self.destroy_objects(objects);
        Ok(Compiled {
            executables: captured?,
            pipeline: pipeline_time,
            pipeline_cache: cache?,
            stderr: String::new(),
        })
    }
}

fn read_executables(
    props: &ash::khr::pipeline_executable_properties::Device,
    pipeline: vk::Pipeline,
) -> Result<Vec<Executable>, RunError> {
    let failed = |call: &str, e: vk::Result| RunError::Failed(format!("{call}: {e}"));
    let info = vk::PipelineInfoKHR::default().pipeline(pipeline);
    // SAFETY (this function): `pipeline` is a live pipeline created with the capture flags
    // on the device `props` was loaded for; every out-array is sized by the driver's count.
    unsafe {
        let listed = props
            .get_pipeline_executable_properties(&info)
            .map_err(|e| failed("vkGetPipelineExecutablePropertiesKHR", e))?;
        let mut out = Vec::with_capacity(listed.len());
        for (index, p) in listed.iter().enumerate() {
            let exe = vk::PipelineExecutableInfoKHR::default()
                .pipeline(pipeline)
                .executable_index(index as u32);
            let statistics = props
                .get_pipeline_executable_statistics(&exe)
                .map_err(|e| failed("vkGetPipelineExecutableStatisticsKHR", e))?
                .iter()
                .map(|s| Statistic {
                    name: text(&s.name),
                    value: match s.format {
                        vk::PipelineExecutableStatisticFormatKHR::BOOL32 => {
                            StatValue::Bool(s.value.b32 != 0)
                        }
                        vk::PipelineExecutableStatisticFormatKHR::INT64 => {
                            StatValue::Int(s.value.i64)
                        }
                        vk::PipelineExecutableStatisticFormatKHR::FLOAT64 => {
                            StatValue::Float(s.value.f64)
                        }
                        _ => StatValue::Uint(s.value.u64),
                    },
                })
                .collect();
            // ash's wrapper asks only for the sizes; the texts need a second call with
            // buffers of those sizes.
            let mut reps = props
                .get_pipeline_executable_internal_representations(&exe)
                .map_err(|e| failed("vkGetPipelineExecutableInternalRepresentationsKHR", e))?;
            let mut buffers: Vec<Vec<u8>> = reps.iter().map(|r| vec![0u8; r.data_size]).collect();
            for (r, b) in reps.iter_mut().zip(&mut buffers) {
                r.p_data = b.as_mut_ptr().cast();
            }
            let mut count = reps.len() as u32;
            let r = (props
                .fp()
                .get_pipeline_executable_internal_representations_khr)(
                props.device(),
                &exe,
                &mut count,
                reps.as_mut_ptr(),
            );
            if r != vk::Result::SUCCESS {
                return Err(failed(
                    "vkGetPipelineExecutableInternalRepresentationsKHR",
                    r,
                ));
            }
            let representations = reps
                .iter()
                .zip(&buffers)
                .map(|(r, b)| {
                    let body = CStr::from_bytes_until_nul(b)
                        .map(|c| c.to_string_lossy().into_owned())
                        .unwrap_or_else(|_| String::from_utf8_lossy(b).into_owned());
                    (text(&r.name), body)
                })
                .collect();
            out.push(Executable {
                name: text(&p.name),
                description: text(&p.description),
                subgroup_size: p.subgroup_size,
                statistics,
                representations,
            });
        }
        Ok(out)
    }
}
