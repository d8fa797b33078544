//! The worker protocol: length-prefixed frames of little-endian words over the worker's
//! stdin and stdout. A frame is a `u32` byte count and that many bytes; its first word is
//! the message tag. The client sends [`Request`]s and reads one [`Response`] for each.
//!
//! Both ends are this crate, built together into one binary, so the format carries no
//! version; a malformed frame is a bug on one side and is reported as such.

use crate::capture::{Compiled, Executable, StatValue, Statistic};
use crate::job::{
    Binding, DeviceInfo, FloatControls, Image, IntWidths, Job, Output, Resource, RunError,
    Subgroups,
};
use crate::job::{NoStack, Timings};
use crate::root::RerunError;
use std::ffi::OsStr;
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Duration;
use supervisor::stack::{Frame, Stack};

/// A frame larger than this is refused (a corrupted length, not a real job).
const MAX_FRAME: u32 = 1 << 30;

/// The line the worker writes to stderr before each answer, so the client can tell what the
/// driver printed while serving one request from what it printed for the next (a driver's
/// validator that reports without aborting, e.g. ACO's `validateir` in a release build).
pub const END_OF_ANSWER: &str = "\u{1e}vk-worker: end of answer";

/// Why a frame is no message: a bug on one side of the protocol. Each variant's message is its
/// documentation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[allow(missing_docs)]
pub enum WireError {
    #[error("truncated frame: wanted {wanted} bytes, {left} left")]
    Truncated { wanted: usize, left: usize },
    #[error("word count overflows")]
    WordCountOverflows,
    /// `of` is what the tag should have named: `request`, `response`, `error`, `resource`,
    /// `statistic`, `no-stack` or `rerun`.
    #[error("unknown {of} tag {tag}")]
    UnknownTag { of: &'static str, tag: u32 },
    #[error("{count} trailing bytes in frame")]
    TrailingBytes { count: usize },
}

/// What the client asks of the worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Open physical device `n` and answer with its [`DeviceInfo`]; first message only.
    Open(u32),
    /// Run a job, waiting at most `timeout` for the dispatch, and answer with its [`Output`].
    Run {
        /// The job.
        job: Job,
        /// The fence wait's limit.
        timeout: Duration,
    },
    /// Create a job's pipeline with the capture flags, dispatch nothing, and answer with
    /// [`Compiled`] (what the driver reports it built).
    Compile(Job),
}

/// What the worker answers.
#[derive(Clone, Debug, PartialEq)]
pub enum Response {
    /// The device opened.
    Opened(DeviceInfo),
    /// The job finished.
    Finished(Output),
    /// The pipeline of a [`Request::Compile`] was created.
    Compiled(Compiled),
    /// The request failed.
    Error(RunError),
}

/// Writes one frame and flushes.
pub fn write_frame(w: &mut impl Write, payload: &[u8]) -> io::Result<()> {
    let len = u32::try_from(payload.len())
        .ok()
        .filter(|&n| n <= MAX_FRAME)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "frame too large"))?;
    w.write_all(&len.to_le_bytes())?;
    w.write_all(payload)?;
    w.flush()
}

/// Reads one frame; `None` at a clean end of stream.
pub fn read_frame(r: &mut impl Read) -> io::Result<Option<Vec<u8>>> {
    let mut len = [0u8; 4];
    match r.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let len = u32::from_le_bytes(len);
    if len > MAX_FRAME {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("frame of {len} bytes"),
        ));
    }
    let mut payload = vec![0u8; len as usize];
    r.read_exact(&mut payload)?;
    Ok(Some(payload))
}

impl Request {
    /// The frame payload.
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Encoder::default();
        match self {
            Request::Open(n) => {
                e.u32(1);
                e.u32(*n);
            }
            Request::Run { job, timeout } => {
                e.u32(2);
                e.duration(*timeout);
                e.job(job);
            }
            Request::Compile(job) => {
                e.u32(3);
                e.job(job);
            }
        }
        e.0
    }

    /// Parses a frame payload.
    pub fn decode(bytes: &[u8]) -> Result<Request, WireError> {
        let mut d = Decoder(bytes);
        let r = match d.u32()? {
            1 => Request::Open(d.u32()?),
            2 => Request::Run {
                timeout: d.duration()?,
                job: d.job()?,
            },
            3 => Request::Compile(d.job()?),
            t => {
                return Err(WireError::UnknownTag {
                    of: "request",
                    tag: t,
                })
            }
        };
        d.end()?;
        Ok(r)
    }
}

impl Response {
    /// The frame payload.
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Encoder::default();
        match self {
            Response::Opened(info) => {
                e.u32(1);
                e.u32(info.index);
                e.str(&info.name);
                e.str(&info.driver_name);
                e.str(&info.driver_info);
                e.u32(info.driver_version);
                e.str(&info.api_version);
                let fc = &info.float_controls;
                for flag in [
                    fc.denorm_preserve,
                    fc.denorm_flush_to_zero,
                    fc.signed_zero_inf_nan_preserve,
                    fc.rounding_mode_rte,
                ] {
                    e.u32(u32::from(flag));
                }
                let sg = &info.subgroups;
                for v in [sg.min_size, sg.max_size, sg.operations] {
                    e.u32(v);
                }
                e.u32(u32::from(sg.size_control));
                e.u32(u32::from(sg.maximal_reconvergence));
                e.u32(u32::from(info.ints.int16));
                e.u32(u32::from(info.ints.int64));
            }
            Response::Finished(out) => {
                e.u32(2);
                e.u32(out.buffers.len() as u32);
                out.buffers.iter().for_each(|b| e.words(b));
                e.duration(out.timings.pipeline);
                e.duration(out.timings.dispatch);
            }
            Response::Compiled(c) => {
                e.u32(4);
                e.compiled(c);
            }
            Response::Error(err) => {
                e.u32(3);
                match err {
                    RunError::NoVulkan(m) => {
                        e.u32(0);
                        e.str(m);
                    }
                    RunError::Timeout(t) => {
                        e.u32(1);
                        e.duration(*t);
                    }
                    RunError::DeviceLost(m) => {
                        e.u32(2);
                        e.str(m);
                    }
                    RunError::PipelineCreation(m) => {
                        e.u32(3);
                        e.str(m);
                    }
                    RunError::WorkerCrashed {
                        status,
                        stderr,
                        stack,
                    } => {
                        e.u32(4);
                        e.str(status);
                        e.str(stderr);
                        e.stack(stack);
                    }
                    RunError::Failed(m) => {
                        e.u32(5);
                        e.str(m);
                    }
                    RunError::Unstartable(m) => {
                        e.u32(6);
                        e.str(m);
                    }
                }
            }
        }
        e.0
    }

    /// Parses a frame payload.
    pub fn decode(bytes: &[u8]) -> Result<Response, WireError> {
        let mut d = Decoder(bytes);
        let r = match d.u32()? {
            1 => Response::Opened(DeviceInfo {
                index: d.u32()?,
                name: d.str()?,
                driver_name: d.str()?,
                driver_info: d.str()?,
                driver_version: d.u32()?,
                api_version: d.str()?,
                float_controls: FloatControls {
                    denorm_preserve: d.u32()? != 0,
                    denorm_flush_to_zero: d.u32()? != 0,
                    signed_zero_inf_nan_preserve: d.u32()? != 0,
                    rounding_mode_rte: d.u32()? != 0,
                },
                subgroups: Subgroups {
                    min_size: d.u32()?,
                    max_size: d.u32()?,
                    operations: d.u32()?,
                    size_control: d.u32()? != 0,
                    maximal_reconvergence: d.u32()? != 0,
                },
                ints: IntWidths {
                    int16: d.u32()? != 0,
                    int64: d.u32()? != 0,
                },
            }),
            2 => {
                let n = d.u32()?;
                let buffers = (0..n).map(|_| d.words()).collect::<Result<_, _>>()?;
                let timings = Timings {
                    pipeline: d.duration()?,
                    dispatch: d.duration()?,
                };
                Response::Finished(Output { buffers, timings })
            }
            3 => Response::Error(match d.u32()? {
                0 => RunError::NoVulkan(d.str()?),
                1 => RunError::Timeout(d.duration()?),
                2 => RunError::DeviceLost(d.str()?),
                3 => RunError::PipelineCreation(d.str()?),
                4 => RunError::WorkerCrashed {
                    status: d.str()?,
                    stderr: d.str()?,
                    stack: d.stack()?,
                },
                5 => RunError::Failed(d.str()?),
                6 => RunError::Unstartable(d.str()?),
                t => {
                    return Err(WireError::UnknownTag {
                        of: "error",
                        tag: t,
                    })
                }
            }),
            4 => Response::Compiled(d.compiled()?),
            t => {
                return Err(WireError::UnknownTag {
                    of: "response",
                    tag: t,
                })
            }
        };
        d.end()?;
        Ok(r)
    }
}

#[derive(Default)]
struct Encoder(Vec<u8>);

impl Encoder {
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    fn words(&mut self, ws: &[u32]) {
        self.u32(ws.len() as u32);
        self.0.reserve(ws.len() * 4);
        ws.iter().for_each(|&w| self.u32(w));
    }

    fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    fn bytes(&mut self, b: &[u8]) {
        self.u32(b.len() as u32);
        self.0.extend_from_slice(b);
    }

    /// Byte for byte: a path need not be UTF-8.
    fn path(&mut self, p: &Path) {
        self.bytes(p.as_os_str().as_bytes());
    }

    fn u64(&mut self, v: u64) {
        self.u32(v as u32);
        self.u32((v >> 32) as u32);
    }

    /// A stack, or why there is none; a missing name or offset as a flag of 0.
    fn stack(&mut self, stack: &Result<Stack, NoStack>) {
        match stack {
            Err(why) => {
                self.u32(0);
                self.no_stack(why);
            }
            Ok(stack) => {
                self.u32(1);
                self.str(&stack.signal);
                self.u32(stack.frames.len() as u32);
                for f in &stack.frames {
                    for text in [&f.function, &f.library] {
                        self.u32(text.is_some().into());
                        self.str(text.as_deref().unwrap_or(""));
                    }
                    self.u32(f.offset.is_some().into());
                    self.u64(f.offset.unwrap_or(0));
                }
            }
        }
    }

    fn no_stack(&mut self, why: &NoStack) {
        match why {
            NoStack::NotASignal { status } => {
                self.u32(0);
                self.str(status);
            }
            NoStack::CannotFrameRequests { error } => {
                self.u32(1);
                self.str(error);
            }
            NoStack::CannotPlaceWorker { error } => {
                self.u32(2);
                self.str(error);
            }
            NoStack::FreshWorker(rerun) => {
                self.u32(3);
                self.rerun(rerun);
            }
        }
    }

    fn rerun(&mut self, e: &RerunError) {
        match e {
            RerunError::NoGdbInRoot { root } => {
                self.u32(0);
                self.path(root);
            }
            RerunError::CannotWriteInput { file, error } => {
                self.u32(1);
                self.path(file);
                self.str(error);
            }
            RerunError::DidNotCrashAgain => self.u32(2),
            RerunError::NoSystemGdb { error } => {
                self.u32(3);
                self.str(error);
            }
            RerunError::Gdb { error } => {
                self.u32(4);
                self.str(error);
            }
        }
    }

    fn job(&mut self, job: &Job) {
        let e = self;
        e.words(&job.spirv);
        job.workgroups.iter().for_each(|&w| e.u32(w));
        e.u32(job.subgroup_size.unwrap_or(0));
        e.u32(job.bindings.len() as u32);
        for b in &job.bindings {
            e.u32(b.binding);
            match &b.resource {
                Resource::Buffer(words) => {
                    e.u32(0);
                    e.words(words);
                }
                Resource::Image(img) => {
                    e.u32(1);
                    for v in [img.width, img.height, img.levels, img.layers] {
                        e.u32(v);
                    }
                    e.words(&img.texels);
                }
            }
        }
    }

    fn compiled(&mut self, c: &Compiled) {
        self.duration(c.pipeline);
        self.bytes(&c.pipeline_cache);
        self.u32(c.executables.len() as u32);
        for x in &c.executables {
            self.str(&x.name);
            self.str(&x.description);
            self.u32(x.subgroup_size);
            self.u32(x.statistics.len() as u32);
            for s in &x.statistics {
                self.str(&s.name);
                let (tag, bits) = match s.value {
                    StatValue::Bool(b) => (0, u64::from(b)),
                    StatValue::Int(v) => (1, v as u64),
                    StatValue::Uint(v) => (2, v),
                    StatValue::Float(v) => (3, v.to_bits()),
                };
                self.u32(tag);
                self.u64(bits);
            }
            self.u32(x.representations.len() as u32);
            for (name, text) in &x.representations {
                self.str(name);
                self.str(text);
            }
        }
    }

    fn duration(&mut self, t: Duration) {
        let nanos = u64::try_from(t.as_nanos()).unwrap_or(u64::MAX);
        self.u32(nanos as u32);
        self.u32((nanos >> 32) as u32);
    }
}

struct Decoder<'a>(&'a [u8]);

impl Decoder<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], WireError> {
        if self.0.len() < n {
            return Err(WireError::Truncated {
                wanted: n,
                left: self.0.len(),
            });
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn u32(&mut self) -> Result<u32, WireError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn words(&mut self) -> Result<Vec<u32>, WireError> {
        let n = self.u32()? as usize;
        let bytes = self.take(n.checked_mul(4).ok_or(WireError::WordCountOverflows)?)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }

    fn str(&mut self) -> Result<String, WireError> {
        let n = self.u32()? as usize;
        Ok(String::from_utf8_lossy(self.take(n)?).into_owned())
    }

    fn bytes(&mut self) -> Result<Vec<u8>, WireError> {
        let n = self.u32()? as usize;
        Ok(self.take(n)?.to_vec())
    }

    fn path(&mut self) -> Result<PathBuf, WireError> {
        let n = self.u32()? as usize;
        Ok(OsStr::from_bytes(self.take(n)?).into())
    }

    fn u64(&mut self) -> Result<u64, WireError> {
        let lo = u64::from(self.u32()?);
        Ok(lo | (u64::from(self.u32()?) << 32))
    }

    fn stack(&mut self) -> Result<Result<Stack, NoStack>, WireError> {
        if self.u32()? == 0 {
            return Ok(Err(self.no_stack()?));
        }
        let signal = self.str()?;
        let n = self.u32()?;
        let mut frames = Vec::new();
        for _ in 0..n {
            let mut text = || -> Result<Option<String>, WireError> {
                let present = self.u32()? != 0;
                let text = self.str()?;
                Ok(present.then_some(text))
            };
            let (function, library) = (text()?, text()?);
            let present = self.u32()? != 0;
            let offset = self.u64()?;
            frames.push(Frame {
                function,
                library,
                offset: present.then_some(offset),
            });
        }
        Ok(Ok(Stack { signal, frames }))
    }

    fn no_stack(&mut self) -> Result<NoStack, WireError> {
        Ok(match self.u32()? {
            0 => NoStack::NotASignal {
                status: self.str()?,
            },
            1 => NoStack::CannotFrameRequests { error: self.str()? },
            2 => NoStack::CannotPlaceWorker { error: self.str()? },
            3 => NoStack::FreshWorker(self.rerun()?),
            t => {
                return Err(WireError::UnknownTag {
                    of: "no-stack",
                    tag: t,
                })
            }
        })
    }

    fn rerun(&mut self) -> Result<RerunError, WireError> {
        Ok(match self.u32()? {
            0 => RerunError::NoGdbInRoot { root: self.path()? },
            1 => RerunError::CannotWriteInput {
                file: self.path()?,
                error: self.str()?,
            },
            2 => RerunError::DidNotCrashAgain,
            3 => RerunError::NoSystemGdb { error: self.str()? },
            4 => RerunError::Gdb { error: self.str()? },
            t => {
                return Err(WireError::UnknownTag {
                    of: "rerun",
                    tag: t,
                })
            }
        })
    }

    fn job(&mut self) -> Result<Job, WireError> {
        let d = self;
        let spirv = d.words()?;
        let workgroups = [d.u32()?, d.u32()?, d.u32()?];
        let subgroup_size = Some(d.u32()?).filter(|&s| s != 0);
        let n = d.u32()?;
        let mut bindings = Vec::new();
        for _ in 0..n {
            let binding = d.u32()?;
            let resource = match d.u32()? {
                0 => Resource::Buffer(d.words()?),
                1 => Resource::Image(Image {
                    width: d.u32()?,
                    height: d.u32()?,
                    levels: d.u32()?,
                    layers: d.u32()?,
                    texels: d.words()?,
                }),
                t => {
                    return Err(WireError::UnknownTag {
                        of: "resource",
                        tag: t,
                    })
                }
            };
            bindings.push(Binding { binding, resource });
        }
        Ok(Job {
            spirv,
            workgroups,
            bindings,
            subgroup_size,
        })
    }

    fn compiled(&mut self) -> Result<Compiled, WireError> {
        let pipeline = self.duration()?;
        let pipeline_cache = self.bytes()?;
        let n = self.u32()?;
        let mut executables = Vec::new();
        for _ in 0..n {
            let name = self.str()?;
            let description = self.str()?;
            let subgroup_size = self.u32()?;
            let mut statistics = Vec::new();
            for _ in 0..self.u32()? {
                let name = self.str()?;
                let tag = self.u32()?;
                let bits = self.u64()?;
                let value = match tag {
                    0 => StatValue::Bool(bits != 0),
                    1 => StatValue::Int(bits as i64),
                    2 => StatValue::Uint(bits),
                    3 => StatValue::Float(f64::from_bits(bits)),
                    t => {
                        return Err(WireError::UnknownTag {
                            of: "statistic",
                            tag: t,
                        })
                    }
                };
                statistics.push(Statistic { name, value });
            }
            let mut representations = Vec::new();
            for _ in 0..self.u32()? {
                representations.push((self.str()?, self.str()?));
            }
            executables.push(Executable {
                name,
                description,
                subgroup_size,
                statistics,
                representations,
            });
        }
        Ok(Compiled {
            executables,
            pipeline,
            pipeline_cache,
            stderr: String::new(),
        })
    }

    fn duration(&mut self) -> Result<Duration, WireError> {
        let lo = u64::from(self.u32()?);
        let hi = u64::from(self.u32()?);
        Ok(Duration::from_nanos(lo | (hi << 32)))
    }

    fn end(&self) -> Result<(), WireError> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(WireError::TrailingBytes {
                count: self.0.len(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_responses_survive_a_frame() {
        let job = Job {
            spirv: vec![0x0723_0203, 1, 2, 3],
            workgroups: [4, 1, 1],
            subgroup_size: Some(8),
            bindings: vec![
                Binding {
                    binding: 0,
                    resource: Resource::Buffer(vec![7, 8, 9]),
                },
                Binding {
                    binding: 3,
                    resource: Resource::Image(Image {
                        width: 1,
                        height: 1,
                        levels: 1,
                        layers: 2,
                        texels: (0..8).collect(),
                    }),
                },
            ],
        };
        let run = Request::Run {
            job,
            timeout: Duration::from_millis(1500),
        };
        for r in [Request::Open(2), run] {
            let mut pipe = Vec::new();
            write_frame(&mut pipe, &r.encode()).unwrap();
            let frame = read_frame(&mut pipe.as_slice()).unwrap().unwrap();
            assert_eq!(Request::decode(&frame).unwrap(), r);
        }
        let responses = [
            Response::Opened(DeviceInfo {
                index: 1,
                name: "llvmpipe".into(),
                driver_info: "Mesa 22.3.6".into(),
                float_controls: FloatControls {
                    denorm_preserve: true,
                    ..FloatControls::default()
                },
                subgroups: Subgroups {
                    min_size: 8,
                    max_size: 16,
                    operations: 0x1d,
                    size_control: true,
                    maximal_reconvergence: true,
                },
                ints: IntWidths {
                    int16: false,
                    int64: true,
                },
                ..DeviceInfo::default()
            }),
            Response::Finished(Output {
                buffers: vec![vec![1, 2], vec![]],
                timings: Timings {
                    pipeline: Duration::from_micros(1500),
                    dispatch: Duration::from_secs(5_000_000_000),
                },
            }),
            Response::Error(RunError::WorkerCrashed {
                status: "signal 11".into(),
                stderr: "LLVM ERROR".into(),
                stack: Err(NoStack::FreshWorker(RerunError::NoGdbInRoot {
                    root: "/r".into(),
                })),
            }),
            Response::Error(RunError::WorkerCrashed {
                status: "signal 6 (SIGABRT)".into(),
                stderr: String::new(),
                stack: Ok(Stack {
                    signal: "SIGABRT".into(),
                    frames: vec![
                        Frame {
                            function: Some("raise".into()),
                            library: Some("libc.so.6".into()),
                            offset: Some(0x3d1a2),
                        },
                        Frame {
                            function: None,
                            library: None,
                            offset: None,
                        },
                    ],
                }),
            }),
            Response::Error(RunError::Timeout(Duration::from_millis(250))),
            Response::Compiled(Compiled {
                executables: vec![Executable {
                    name: "compute".into(),
                    subgroup_size: 128,
                    statistics: vec![Statistic {
                        name: "Instruction Count".into(),
                        value: StatValue::Uint(41),
                    }],
                    representations: vec![("IR3 Assembly".into(), "end\n".into())],
                    ..Executable::default()
                }],
                pipeline: Duration::from_micros(900),
                pipeline_cache: vec![0, 1, 0xff, 3],
                stderr: String::new(),
            }),
        ];
        for r in responses {
            assert_eq!(Response::decode(&r.encode()).unwrap(), r);
        }
        let rerun = [
            RerunError::NoGdbInRoot {
                root: PathBuf::from(OsStr::from_bytes(b"/r\xff")),
            },
            RerunError::CannotWriteInput {
                file: "/tmp/in".into(),
                error: "No space left on device (os error 28)".into(),
            },
            RerunError::DidNotCrashAgain,
            RerunError::NoSystemGdb {
                error: "cannot start gdb (gdb): No such file".into(),
            },
            RerunError::Gdb {
                error: "gdb did not finish within 1s".into(),
            },
        ];
        let no_stack = [
            NoStack::NotASignal {
                status: "exit status 3".into(),
            },
            NoStack::CannotFrameRequests {
                error: "frame too large".into(),
            },
            NoStack::CannotPlaceWorker {
                error: "Permission denied (os error 13)".into(),
            },
        ];
        for why in no_stack
            .into_iter()
            .chain(rerun.into_iter().map(NoStack::FreshWorker))
        {
            let r = Response::Error(RunError::WorkerCrashed {
                status: String::new(),
                stderr: String::new(),
                stack: Err(why),
            });
            assert_eq!(Response::decode(&r.encode()).unwrap(), r);
        }
    }

    #[test]
    fn malformed_frames_are_errors_not_panics() {
        assert_eq!(
            Request::decode(&[]),
            Err(WireError::Truncated { wanted: 4, left: 0 })
        );
        let unknown = Request::decode(&[9, 0, 0, 0]).unwrap_err();
        assert_eq!(
            unknown,
            WireError::UnknownTag {
                of: "request",
                tag: 9
            }
        );
        assert_eq!(unknown.to_string(), "unknown request tag 9");
        let mut truncated = Request::Open(1).encode();
        truncated.pop();
        assert_eq!(
            Request::decode(&truncated).unwrap_err().to_string(),
            "truncated frame: wanted 4 bytes, 3 left"
        );
        let mut trailing = Request::Open(1).encode();
        trailing.push(0);
        assert_eq!(
            Request::decode(&trailing).unwrap_err().to_string(),
            "1 trailing bytes in frame"
        );
        // A word count far beyond the frame.
        assert!(Response::decode(&[2, 0, 0, 0, 1, 0, 0, 0, 255, 255, 255, 255]).is_err());
        assert!(read_frame(&mut [0xff, 0xff, 0xff, 0xff].as_slice()).is_err());
        assert_eq!(read_frame(&mut [].as_slice()).unwrap(), None);
    }
}
