//! The client side: a [`Worker`] owns one worker process, sends it jobs and waits for each
//! answer with a deadline. A worker that misses the deadline, reports a fence timeout or a
//! lost device, or dies, is killed and reaped, and the next job starts a fresh one — so a
//! hung shader (which lavapipe cannot cancel: it keeps running on the driver's threads) or a
//! crash inside the driver's compiler costs one job, never the fuzz run.
//!
//! The worker is a process rather than a thread because neither a hang nor a segfault in a
//! driver can be contained inside our own process. Which executable serves as the worker is
//! the caller's choice ([`WorkerCommand`]): `gpufuzz vk-worker` in the gpufuzz binary (its
//! own `current_exe`), this crate's `vk-worker` binary in its tests.

use crate::capture::Compiled;
use crate::job::{DeviceInfo, Job, NoStack, Output, RunError};
use crate::wire::{read_frame, write_frame, Request, Response, END_OF_ANSWER};
use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;
use std::sync::mpsc::RecvTimeoutError;
use std::thread;
use std::time::Duration;
use supervisor::stack::Stack;
use supervisor::{StderrSink, Supervised};

/// How much of the worker's stderr is kept per request: its first [`STDERR_HEAD`] bytes (a
/// validator's message comes first, before e.g. ACO's print of the whole program) and its last
/// bytes up to this total.
const STDERR_KEEP: usize = 256 << 10;
const STDERR_HEAD: usize = 64 << 10;

/// How many times a worker start is tried before the failure is reported (pauses of 50, 200
/// and 800 ms between).
pub const START_ATTEMPTS: u32 = 4;

/// The program (and arguments) that serves the worker protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerCommand {
    /// The executable.
    pub program: PathBuf,
    /// Its arguments (e.g. `vk-worker`).
    pub args: Vec<OsString>,
}

/// How to run jobs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerOptions {
    /// The worker executable.
    pub command: WorkerCommand,
    /// Physical device index.
    pub device: u32,
    /// An ICD manifest to use instead of the loader's default (`VK_ICD_FILENAMES`).
    pub icd: Option<PathBuf>,
    /// How long a dispatch may run (the worker's fence wait).
    pub dispatch_timeout: Duration,
    /// How long opening the device and creating a pipeline may take on top of the dispatch
    /// before the worker is presumed hung (in the driver's compiler) and killed.
    pub compile_timeout: Duration,
    /// Extra environment of the worker process (a driver's debug switches, a preloaded
    /// kernel shim), in the order set.
    pub env: Vec<(OsString, OsString)>,
    /// A system root the worker runs in (`chroot`, see [`crate::root`]): the ICD and every
    /// path in `env` are then paths inside it.
    pub root: Option<PathBuf>,
}

impl WorkerOptions {
    /// Default limits for `command` on device 0.
    pub fn new(command: WorkerCommand) -> WorkerOptions {
        WorkerOptions {
            command,
            device: 0,
            icd: None,
            dispatch_timeout: Duration::from_secs(2),
            compile_timeout: Duration::from_secs(20),
            env: Vec::new(),
            root: None,
        }
    }
}

/// A worker process that runs jobs, restarted as needed.
pub struct Worker {
    options: WorkerOptions,
    live: Option<Live>,
    info: Option<DeviceInfo>,
    restarts: u64,
    /// What the worker printed on stderr while serving the last request answered.
    answer_stderr: String,
}

/// A running worker process: its answers are frames, its stderr cut per answer.
type Live = Supervised<Vec<u8>, StderrLog>;

/// What gdb may take on top of the worker's own limits: starting, and reading the symbols of
/// the driver's libraries (LLVM's are large).
const GDB_START: Duration = Duration::from_secs(60);

/// How long a worker whose stdout closed may take to exit before it is killed.
const DYING: Duration = Duration::from_secs(1);

/// The worker's stderr cut at its [`END_OF_ANSWER`] marks: one text per answered request, and
/// what it printed since the last answer (a crash's report).
#[derive(Default)]
struct StderrLog {
    /// Bytes since the last mark, the middle left out beyond [`STDERR_KEEP`].
    current: Vec<u8>,
    /// Bytes left out of the middle of `current`.
    elided: usize,
    /// The stderr of answered requests not yet taken, oldest first.
    answers: VecDeque<String>,
}

impl StderrSink for StderrLog {
    fn push(&mut self, bytes: &[u8]) {
        let mark = END_OF_ANSWER.as_bytes();
        let mut from = self.current.len().saturating_sub(mark.len());
        self.current.extend_from_slice(bytes);
        while let Some(i) = find(&self.current[from..], mark) {
            let at = from + i;
            let mut end = at + mark.len();
            if self.current.get(end) == Some(&b'\n') {
                end += 1;
            }
            let text = self.text(&self.current[..at]);
            self.answers.push_back(text);
            // Nobody took them: a client that does not ask keeps only the latest few.
            if self.answers.len() > 16 {
                self.answers.pop_front();
            }
            self.current.drain(..end);
            self.elided = 0;
            from = 0;
        }
        if self.current.len() > STDERR_KEEP {
            let excess = self.current.len() - STDERR_KEEP;
            self.current.drain(STDERR_HEAD..STDERR_HEAD + excess);
            self.elided += excess;
        }
    }
}

impl StderrLog {
    /// `bytes` as text, with a note where the middle was left out.
    fn text(&self, bytes: &[u8]) -> String {
        if self.elided == 0 || bytes.len() <= STDERR_HEAD {
            return String::from_utf8_lossy(bytes).into_owned();
        }
        format!(
            "{}\n[... {} bytes of stderr left out ...]\n{}",
            String::from_utf8_lossy(&bytes[..STDERR_HEAD]),
            self.elided,
            String::from_utf8_lossy(&bytes[STDERR_HEAD..])
        )
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

impl Worker {
    /// Starts a worker and opens the device; the error says what is missing.
    pub fn start(options: WorkerOptions) -> Result<Worker, RunError> {
        let mut w = Worker {
            options,
            live: None,
            info: None,
            restarts: 0,
            answer_stderr: String::new(),
        };
        w.ensure_live()?;
        Ok(w)
    }

    /// The device the worker opened.
    pub fn info(&self) -> &DeviceInfo {
        self.info
            .as_ref()
            .expect("a started worker has opened its device")
    }

    /// The options it runs with.
    pub fn options(&self) -> &WorkerOptions {
        &self.options
    }

    /// Worker processes started after the first (one per timeout, crash or lost device).
    pub fn restarts(&self) -> u64 {
        self.restarts
    }

    /// Runs one job. A timeout, lost device or crash ends this worker process; the next
    /// call starts another.
    pub fn run(&mut self, job: &Job) -> Result<Output, RunError> {
        self.run_within(job, self.options.dispatch_timeout)
    }

    /// Runs one job with another dispatch time limit than the options' (a retry).
    pub fn run_within(
        &mut self,
        job: &Job,
        dispatch_timeout: Duration,
    ) -> Result<Output, RunError> {
        self.ensure_live()?;
        let request = Request::Run {
            job: job.clone(),
            timeout: dispatch_timeout,
        };
        let limit = dispatch_timeout + self.options.compile_timeout;
        match self.exchange(&request, limit)? {
            Response::Finished(out) => Ok(out),
            Response::Error(e) => {
                if matches!(e, RunError::Timeout(_) | RunError::DeviceLost(_)) {
                    self.kill();
                }
                Err(e)
            }
            Response::Opened(_) | Response::Compiled(_) => {
                self.kill();
                Err(RunError::Failed(
                    "the worker answered a job with something else than its output".into(),
                ))
            }
        }
    }

    /// Creates `job`'s pipeline with the capture flags and returns what the driver reports
    /// it built; nothing runs. A compile that outlives `compile_timeout` (a hang in the
    /// driver's compiler) or a crash ends this worker process; the next call starts another.
    pub fn compile(&mut self, job: &Job) -> Result<Compiled, RunError> {
        self.ensure_live()?;
        let request = Request::Compile(job.clone());
        match self.exchange(&request, self.options.compile_timeout)? {
            Response::Compiled(mut c) => {
                c.stderr = std::mem::take(&mut self.answer_stderr);
                Ok(c)
            }
            Response::Error(e) => Err(e),
            Response::Opened(_) | Response::Finished(_) => {
                self.kill();
                Err(RunError::Failed(
                    "the worker answered a compile with something else than its executables".into(),
                ))
            }
        }
    }

    /// Starts the worker process and opens the device, unless it is running.
    fn ensure_live(&mut self) -> Result<(), RunError> {
        if self.live.is_some() {
            return Ok(());
        }
        if self.info.is_some() {
            self.restarts += 1;
        }
        self.live = Some(self.spawn_retrying()?);
        let opened = self.exchange(
            &Request::Open(self.options.device),
            self.options.compile_timeout,
        );
        // Dead before it answered: nothing reached a compiler.
        let opened = opened.map_err(|e| match e {
            crashed @ RunError::WorkerCrashed { .. } => RunError::Unstartable(format!(
                "{} before opening its device: {crashed}",
                self.options.command.program.display()
            )),
            e => e,
        });
        match opened {
            Ok(Response::Opened(info)) => {
                self.info = Some(info);
                Ok(())
            }
            Ok(Response::Error(e)) => {
                self.kill();
                Err(e)
            }
            Ok(Response::Finished(_) | Response::Compiled(_)) => {
                self.kill();
                Err(RunError::Failed(
                    "the worker answered Open with a job's output".into(),
                ))
            }
            Err(e) => Err(e),
        }
    }

    /// The worker's environment: the options' on top of the ICD and the shader cache's.
    fn environment(&self) -> Vec<(OsString, OsString)> {
        // Every program is really compiled: Mesa's on-disk shader cache would skip the
        // compiler for a shader it has seen.
        let mut env: Vec<(OsString, OsString)> =
            vec![("MESA_SHADER_CACHE_DISABLE".into(), "true".into())];
        if let Some(icd) = &self.options.icd {
            env.push(("VK_ICD_FILENAMES".into(), icd.into()));
        }
        env.extend(self.options.env.iter().cloned());
        env
    }

    /// [`Self::spawn`], tried [`START_ATTEMPTS`] times with a growing pause between (a
    /// transient failure, such as a busy system, passes; a persistent one is reported).
    fn spawn_retrying(&self) -> Result<Live, RunError> {
        let mut pause = Duration::from_millis(50);
        for _ in 1..START_ATTEMPTS {
            match self.spawn() {
                Err(RunError::Unstartable(_)) => thread::sleep(pause),
                started => return started,
            }
            pause *= 4;
        }
        self.spawn()
    }

    fn spawn(&self) -> Result<Live, RunError> {
        let c = &self.options.command;
        let failed = |e: &dyn std::fmt::Display| {
            RunError::Unstartable(format!(
                "cannot start the Vulkan worker {}: {e}",
                c.program.display()
            ))
        };
        let env = self.environment();
        let mut cmd = match &self.options.root {
            None => {
                let mut cmd = Command::new(&c.program);
                cmd.args(&c.args).envs(env.iter().map(|(k, v)| (k, v)));
                cmd
            }
            Some(root) => {
                crate::root::check(root).map_err(|e| failed(&e))?;
                let inside = crate::root::place(root, &c.program).map_err(|e| failed(&e))?;
                crate::root::command(root, &inside, &c.args, &env)
            }
        };
        Supervised::spawn(&mut cmd, read_frame).map_err(|e| failed(&e))
    }

    /// Sends `request` and waits up to `limit` for the answer; kills the worker on a missed
    /// deadline, a broken pipe or a garbled answer.
    fn exchange(&mut self, request: &Request, limit: Duration) -> Result<Response, RunError> {
        let live = self.live.as_mut().expect("exchange needs a live worker");
        let sent = write_frame(live.stdin(), &request.encode());
        let answer = match sent {
            Ok(()) => live.recv(limit).map(Ok),
            // The worker is gone; its stdout's end says so (an answer to a request it could
            // not read counts as gone too).
            Err(_) => live.recv(Duration::from_secs(5)).map(Err),
        };
        match answer {
            Ok(Ok(frame)) => match Response::decode(&frame) {
                Ok(r) => {
                    self.answer_stderr = self.take_answer_stderr();
                    Ok(r)
                }
                Err(e) => {
                    self.kill();
                    Err(RunError::Failed(format!(
                        "garbled answer from the worker: {e}"
                    )))
                }
            },
            Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => Err(self.died(request)),
            Err(RecvTimeoutError::Timeout) => {
                self.kill();
                Err(RunError::Timeout(limit))
            }
        }
    }

    /// What the worker printed while serving the request just answered: the text before its
    /// mark, which it wrote before the answer (waited for briefly: another thread reads it).
    fn take_answer_stderr(&mut self) -> String {
        let Some(live) = self.live.as_ref() else {
            return String::new();
        };
        for _ in 0..1000 {
            let mut l = live.stderr();
            if let Some(text) = l.answers.pop_front() {
                return text;
            }
            drop(l);
            thread::sleep(Duration::from_millis(1));
        }
        String::new()
    }

    /// The crash report of a worker whose stdout closed while it served `request`: how it
    /// ended, its last words, and — for a signal — the stack of the same requests crashing a
    /// fresh worker under gdb.
    fn died(&mut self, request: &Request) -> RunError {
        let Some(live) = self.live.take() else {
            return RunError::Failed("no worker".into());
        };
        let death = live.reap(DYING);
        let stack = if death.status.starts_with("signal ") {
            self.stack(request)
        } else {
            Err(NoStack::NotASignal {
                status: death.status.clone(),
            })
        };
        RunError::WorkerCrashed {
            status: death.status,
            stderr: death.stderr.text(&death.stderr.current),
            stack,
        }
    }

    /// Where `request` (after opening the device) crashes a fresh worker under gdb, or why
    /// that is not known.
    fn stack(&self, request: &Request) -> Result<Stack, NoStack> {
        let framing = |e: std::io::Error| NoStack::CannotFrameRequests {
            error: e.to_string(),
        };
        let mut frames = Vec::new();
        if !matches!(request, Request::Open(_)) {
            let open = Request::Open(self.options.device).encode();
            write_frame(&mut frames, &open).map_err(framing)?;
        }
        write_frame(&mut frames, &request.encode()).map_err(framing)?;
        let c = &self.options.command;
        let root = self.options.root.as_deref();
        let program = match root {
            None => c.program.clone(),
            Some(root) => {
                crate::root::place(root, &c.program).map_err(|e| NoStack::CannotPlaceWorker {
                    error: e.to_string(),
                })?
            }
        };
        let limit = self.options.compile_timeout * 2 + self.options.dispatch_timeout + GDB_START;
        crate::root::crash_stack(root, &program, &c.args, &self.environment(), &frames, limit)
            .map_err(NoStack::FreshWorker)
    }

    /// Kills and reaps the worker process, if any.
    fn kill(&mut self) {
        if let Some(live) = self.live.take() {
            live.kill();
        }
    }
}

/// For tests that need a Vulkan device or tool: under CI (`CI` set to anything but `false`
/// or `0`) a missing one fails the test; locally the test prints why it is skipped and
/// returns. Never a silent pass.
pub fn unavailable(what: &str) {
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
    if ci {
        panic!("CI needs {what}");
    }
    eprintln!("SKIPPED (not under CI): {what}");
}
