//! A supervised child process, the one place gpufuzz spawns, watches, kills and reaps the
//! processes it cannot trust: the fuzz loop's worker (`fuzz::worker`, inputs that hang or
//! crash) and the Vulkan worker (`vulkan_runner::client`, drivers that hang or crash).
//!
//! [`Supervised::spawn`] starts the command with piped stdio and two reader threads: one
//! turns stdout into the caller's messages (lines, frames) and hands them over a channel, so
//! [`Supervised::recv`] can wait for an answer with a deadline; the other feeds every byte of
//! stderr to the caller's [`StderrSink`] (a [`LineTail`], or a log cut per answer), so a
//! crash report has the child's last words. A child that misses its deadline is
//! [`kill`](Supervised::kill)ed and reaped; one that went away is
//! [`reap`](Supervised::reap)ed into a [`Death`]: its exit status as text ([`exit_class`]) and
//! its stderr sink. Dropping a [`Supervised`] kills and reaps it, so no child outlives its
//! handle. The protocols on the pipes are the callers'; this crate depends on nothing.

pub mod stack;

use std::io::{self, BufReader, Read};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// What a child writes on stderr goes here, chunk by chunk, from the stderr reader thread.
pub trait StderrSink: Default + Send + 'static {
    /// The next bytes read (never empty).
    fn push(&mut self, bytes: &[u8]);
}

/// A running child process with its stdin, its stdout as messages of type `M` and its stderr
/// collected into an `L`.
pub struct Supervised<M, L> {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<M>,
    stderr: Arc<Mutex<L>>,
    stderr_reader: JoinHandle<()>,
}

/// A child that is gone, reaped: how it ended and what it wrote on stderr.
pub struct Death<L> {
    /// `signal 11 (SIGSEGV)`, `exit status 3`, or why no status could be had.
    pub status: String,
    /// Its stderr, drained up to the end (unless that took longer than the drain limit).
    pub stderr: L,
}

/// How long [`Supervised::reap`] waits for the stderr reader to reach the end of what a dead
/// child wrote (the pipe closes when it exits; this bounds a pipe a grandchild still holds).
const STDERR_DRAIN: Duration = Duration::from_millis(50);

impl<M: Send + 'static, L: StderrSink> Supervised<M, L> {
    /// Starts `command` with piped stdin, stdout and stderr. `read` runs on its own thread and
    /// turns stdout into messages, one per call, until it returns `Ok(None)` (end of stream)
    /// or an error; then the channel closes and [`Supervised::recv`] says
    /// [`RecvTimeoutError::Disconnected`].
    pub fn spawn<R>(command: &mut Command, mut read: R) -> io::Result<Self>
    where
        R: FnMut(&mut BufReader<ChildStdout>) -> io::Result<Option<M>> + Send + 'static,
    {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut err = child.stderr.take().expect("stderr is piped");
        let (tx, messages) = mpsc::channel();
        thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Ok(Some(message)) = read(&mut r) {
                if tx.send(message).is_err() {
                    return;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(L::default()));
        let sink = Arc::clone(&stderr);
        let stderr_reader = thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n @ 1..) = err.read(&mut chunk) {
                lock(&sink).push(&chunk[..n]);
            }
        });
        Ok(Supervised {
            child,
            stdin,
            messages,
            stderr,
            stderr_reader,
        })
    }

    /// The child's stdin, to send it a request.
    pub fn stdin(&mut self) -> &mut ChildStdin {
        &mut self.stdin
    }

    /// The next message, waiting at most `limit`: `Timeout` when none came in time (the
    /// child is still running; [`Supervised::kill`] it), `Disconnected` when its stdout ended
    /// (it died or is dying; [`Supervised::reap`] it).
    pub fn recv(&self, limit: Duration) -> Result<M, RecvTimeoutError> {
        self.messages.recv_timeout(limit)
    }

    /// The stderr collected so far (the reader thread keeps adding to it).
    pub fn stderr(&self) -> MutexGuard<'_, L> {
        lock(&self.stderr)
    }

    /// Kills the child and reaps it; returns how it ended.
    pub fn kill(mut self) -> String {
        end(&mut self.child)
    }

    /// Reaps a child that went away (its stdout closed or its stdin broke): its exit status
    /// if it ends within `grace` (killed and reaped after that, and said so), and its stderr
    /// once the reader has drained it.
    pub fn reap(mut self, grace: Duration) -> Death<L> {
        let status = match wait_within(&mut self.child, grace) {
            Some(Ok(s)) => exit_class(&s),
            Some(Err(e)) => format!("wait failed: {e}"),
            None => format!("{} after {grace:?} without exiting", end(&mut self.child)),
        };
        let drained = Instant::now();
        while !self.stderr_reader.is_finished() && drained.elapsed() < STDERR_DRAIN {
            thread::sleep(Duration::from_millis(1));
        }
        let stderr = std::mem::take(&mut *lock(&self.stderr));
        Death { status, stderr }
    }
}

impl<M, L> Drop for Supervised<M, L> {
    fn drop(&mut self) {
        // A no-op for a child already reaped.
        end(&mut self.child);
    }
}

/// Kills `child` (if it still runs) and reaps it: how it ended.
fn end(child: &mut Child) -> String {
    let _ = child.kill();
    match child.wait() {
        Ok(s) => format!("killed ({})", exit_class(&s)),
        Err(e) => format!("killed (wait failed: {e})"),
    }
}

/// The exit status of `child` if it ends within `limit`.
fn wait_within(child: &mut Child, limit: Duration) -> Option<io::Result<ExitStatus>> {
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(s)) => return Some(Ok(s)),
            Ok(None) if start.elapsed() < limit => thread::sleep(Duration::from_millis(5)),
            Ok(None) => return None,
            Err(e) => return Some(Err(e)),
        }
    }
}

/// A lock that survives a reader thread that panicked while holding it (the data is a log).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// `signal 6 (SIGABRT)` or `exit status 101`: the class of a crash.
pub fn exit_class(status: &ExitStatus) -> String {
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(status);
    #[cfg(not(unix))]
    let signal = None;
    ending(signal, status.code())
}

/// [`exit_class`] of a process that a signal (`signal`) or its own exit (`code`) ended.
pub fn ending(signal: Option<i32>, code: Option<i32>) -> String {
    if let Some(sig) = signal {
        let name = match sig {
            4 => " (SIGILL)",
            6 => " (SIGABRT)",
            7 => " (SIGBUS)",
            8 => " (SIGFPE)",
            9 => " (SIGKILL)",
            11 => " (SIGSEGV)",
            _ => "",
        };
        return format!("signal {sig}{name}");
    }
    match code {
        Some(c) => format!("exit status {c}"),
        None => "unknown exit".into(),
    }
}

/// A [`StderrSink`] keeping the last `N` lines (without their line ends; invalid UTF-8
/// replaced), for a crash report's last words.
#[derive(Default)]
pub struct LineTail<const N: usize> {
    lines: std::collections::VecDeque<String>,
    /// The start of a line not ended yet.
    partial: Vec<u8>,
}

impl<const N: usize> LineTail<N> {
    /// The kept lines, oldest first, with an unfinished last line at the end.
    pub fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self.lines.iter().cloned().collect();
        if !self.partial.is_empty() {
            if lines.len() == N {
                lines.remove(0);
            }
            lines.push(String::from_utf8_lossy(&self.partial).into_owned());
        }
        lines
    }
}

impl<const N: usize> StderrSink for LineTail<N> {
    fn push(&mut self, bytes: &[u8]) {
        for piece in bytes.split_inclusive(|&b| b == b'\n') {
            self.partial.extend_from_slice(piece);
            if self.partial.last() != Some(&b'\n') {
                continue;
            }
            self.partial.pop();
            if self.partial.last() == Some(&b'\r') {
                self.partial.pop();
            }
            if self.lines.len() == N {
                self.lines.pop_front();
            }
            self.lines
                .push_back(String::from_utf8_lossy(&self.partial).into_owned());
            self.partial.clear();
        }
    }
}
