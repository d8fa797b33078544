//! Worker processes: the fuzz loop's guard against inputs that hang or kill the process.
//!
//! A worker is a child process (`gpufuzz fuzz-worker`, see [`serve`]) that reads input indices
//! on stdin, one per line (or a batch, `i n`, with `--fuse`), judges input `i` of the run's
//! seed, and answers with one JSON line per input ([`Reply`]): the input's counters and its
//! finding, if any. The parent ([`Worker`]) waits for each answer at most the per-input
//! deadline (a batch: as many deadlines as inputs). No answer in time: the worker is killed and the
//! input is a `timeout` finding (class `wall-clock`); the worker dies first (a stack overflow,
//! an abort, running out of memory, a signal): a `crash` finding whose class is the signal or
//! exit status and whose detail is the end of the worker's stderr. Either way the next input
//! goes to a fresh worker. Both findings name the target `process`: which pipeline was running
//! is not known from outside; `repro input.bin` shows it.

use crate::cause::Cause;
use crate::counters::{FuzzStats, Judged};
use crate::finding::{Finding, FindingKind, Verdict};
use crate::oracle::Judgement;
use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::io::{BufRead, Write};
use std::process::Command;
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;
pub use supervisor::exit_class;
use supervisor::{LineTail, Supervised};

/// The target named by findings of a worker process that hung or died.
pub const PROCESS: &str = "process";

/// How to start a worker and how long an input may take.
#[derive(Clone, Debug)]
pub struct WorkerSpec {
    /// The program and its arguments (e.g. `gpufuzz fuzz-worker --seed 1 --plant P`).
    pub command: Vec<OsString>,
    /// Wall-clock limit per input.
    pub deadline: Duration,
    /// The run's pinned knobs (`fuzz --case`), which `command` passes on too: the case of an
    /// input whose worker was lost is decoded here with them.
    pub pins: Vec<String>,
}

/// One answer of a worker.
#[derive(Serialize, Deserialize)]
pub struct Reply {
    /// The input judged.
    pub index: u64,
    /// Its counters.
    pub stats: FuzzStats,
    /// Its finding.
    pub finding: Option<Finding>,
    /// The case text of a finding.
    pub program: Option<String>,
}

/// Lines of a dead worker's stderr kept for the crash report.
const STDERR_TAIL: usize = 8;

/// How long a worker whose stdout closed may take to exit before it is killed (a process
/// dumping core on an abort takes a while; one that closed its stdout and lives on is stuck).
const DYING: Duration = Duration::from_secs(10);

/// A running worker: replies are stdout's lines.
type Running = Supervised<String, LineTail<STDERR_TAIL>>;

/// The parent's handle on one worker process (started on first use, restarted after a loss).
pub struct Worker {
    spec: WorkerSpec,
    running: Option<Running>,
}

impl Worker {
    /// A worker to be started by the first [`Worker::judge`].
    pub fn new(spec: WorkerSpec) -> Worker {
        Worker {
            spec,
            running: None,
        }
    }

    /// Judges input `index` (whose bytes are `bytes`) in the worker process.
    pub fn judge(&mut self, index: u64, bytes: &[u8]) -> Judged {
        match self.ask(index) {
            Ok(reply) => Judged {
                stats: reply.stats,
                finding: reply.finding.map(|f| (Box::new(f), reply.program)),
            },
            Err(f) => {
                // Whatever happened, this worker is done: the next input gets a fresh one.
                self.stop();
                lost(*f, bytes, &self.spec.pins)
            }
        }
    }

    /// Judges the consecutive inputs `first..` (whose bytes are `inputs`) together in the
    /// worker process (the oracle's batch judge), within the deadline of as many inputs. If
    /// the worker hangs or dies on the batch, each input is judged again alone, so the one
    /// that does it gets the finding.
    pub fn judge_batch(&mut self, first: u64, inputs: &[Vec<u8>]) -> Vec<Judged> {
        if inputs.len() > 1 {
            let asked = self.ask_batch(first, inputs.len());
            if let Ok(replies) = asked {
                return replies
                    .into_iter()
                    .map(|reply| Judged {
                        stats: reply.stats,
                        finding: reply.finding.map(|f| (Box::new(f), reply.program)),
                    })
                    .collect();
            }
            self.stop();
        }
        (first..)
            .zip(inputs)
            .map(|(i, bytes)| self.judge(i, bytes))
            .collect()
    }

    fn ask(&mut self, index: u64) -> Result<Reply, Box<Finding>> {
        let mut replies = self.ask_batch(index, 1)?;
        Ok(replies.remove(0))
    }

    /// Asks for inputs `first..first + count` and waits for every answer, at most `count`
    /// deadlines in all.
    fn ask_batch(&mut self, first: u64, count: usize) -> Result<Vec<Reply>, Box<Finding>> {
        if self.running.is_none() {
            self.running = Some(self.start()?);
        }
        let r = self.running.as_mut().expect("started above");
        let request = if count == 1 {
            format!("{first}")
        } else {
            format!("{first} {count}")
        };
        if writeln!(r.stdin(), "{request}")
            .and_then(|_| r.stdin().flush())
            .is_err()
        {
            return Err(Box::new(self.died()));
        }
        let deadline = self.spec.deadline * count as u32;
        let until = std::time::Instant::now() + deadline;
        let mut replies = Vec::with_capacity(count);
        while replies.len() < count {
            let left = until.saturating_duration_since(std::time::Instant::now());
            let r = self.running.as_mut().expect("started above");
            match r.recv(left) {
                Ok(line) => {
                    let reply: Reply = serde_json::from_str(&line).map_err(|e| {
                        Box::new(Finding::new(
                            FindingKind::Crash,
                            PROCESS,
                            format!("unreadable answer from the worker: {e}: {line}"),
                        ))
                    })?;
                    replies.push(reply);
                }
                Err(RecvTimeoutError::Timeout) => {
                    let mut f = Finding::new(
                        FindingKind::Timeout,
                        PROCESS,
                        format!(
                            "no verdict within {:.1}s of wall-clock time (the worker was killed)",
                            deadline.as_secs_f64()
                        ),
                    );
                    f.set_cause(Cause::WallClock);
                    return Err(Box::new(f));
                }
                Err(RecvTimeoutError::Disconnected) => return Err(Box::new(self.died())),
            }
        }
        Ok(replies)
    }

    fn start(&self) -> Result<Running, Box<Finding>> {
        let (program, args) = self
            .spec
            .command
            .split_first()
            .ok_or_else(|| Finding::new(FindingKind::Crash, PROCESS, "no worker command"))?;
        Supervised::spawn(Command::new(program).args(args), |r| {
            let mut line = String::new();
            Ok((r.read_line(&mut line)? > 0).then(|| line.trim_end_matches(['\n', '\r']).into()))
        })
        .map_err(|e| {
            Box::new(Finding::new(
                FindingKind::Crash,
                PROCESS,
                format!("cannot start a worker: {e}"),
            ))
        })
    }

    /// The finding for a worker that went away: its exit status and last words.
    fn died(&mut self) -> Finding {
        let Some(r) = self.running.take() else {
            return Finding::new(FindingKind::Crash, PROCESS, "the worker is gone");
        };
        let death = r.reap(DYING);
        Finding::caused(
            FindingKind::Crash,
            PROCESS,
            format!(
                "the worker died ({}): {}",
                death.status,
                death.stderr.lines().join(" | ")
            ),
            Cause::Died {
                status: death.status,
            },
        )
    }

    fn stop(&mut self) {
        if let Some(r) = self.running.take() {
            r.kill();
        }
    }
}

/// The counters and finding of an input that lost its worker; the case text comes from
/// decoding the bytes here (the generator is not what hung).
fn lost(f: Finding, bytes: &[u8], pins: &[String]) -> Judged {
    let program = crate::panics::catch(|| crate::oracle::decode_pinned(bytes, pins))
        .ok()
        .flatten()
        .map(|case| crate::case::text::print_case(&case));
    let mut stats = FuzzStats {
        programs: 1,
        ..FuzzStats::default()
    };
    stats.findings.insert(f.kind.name().into(), 1);
    stats.signatures.insert(f.signature(), 1);
    Judged {
        stats,
        finding: Some((Box::new(f), program)),
    }
}

/// The worker's side: answers every line read from stdin — an index `i`, or `i n` for the
/// batch of inputs `i..i + n` judged together — with one [`Reply`] line per input on stdout,
/// until stdin closes.
pub fn serve(
    seed: u64,
    min_len: usize,
    max_len: usize,
    judge: &dyn Fn(&[&[u8]]) -> Vec<Judgement>,
) -> std::io::Result<()> {
    crate::panics::install_quiet_hook();
    exit_with_parent();
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line?;
        let mut words = line.split_whitespace().map(str::parse::<u64>);
        let (Some(Ok(first)), count) = (words.next(), words.next().unwrap_or(Ok(1))) else {
            continue;
        };
        let Ok(count) = count else { continue };
        let inputs: Vec<Vec<u8>> = (first..first + count)
            .map(|i| {
                let mut buf = Vec::with_capacity(max_len);
                crate::rng::input_bytes(seed, i, min_len, max_len, &mut buf);
                buf
            })
            .collect();
        let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
        for (index, j) in (first..).zip(judge(&refs)) {
            let mut stats = FuzzStats::default();
            stats.record(&j);
            let (finding, program) = match j.verdict {
                Verdict::Finding(f) => (Some(*f), j.program_text),
                _ => (None, None),
            };
            let reply = Reply {
                index,
                stats,
                finding,
                program,
            };
            let json = serde_json::to_string(&reply).map_err(std::io::Error::other)?;
            writeln!(stdout, "{json}")?;
        }
        stdout.flush()?;
    }
    Ok(())
}

/// Ends this worker when its parent goes away (a `kill -9` of the whole run): a worker stuck in
/// a hanging input would otherwise spin forever as an orphan.
fn exit_with_parent() {
    #[cfg(unix)]
    {
        let parent = std::os::unix::process::parent_id();
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(500));
            if std::os::unix::process::parent_id() != parent {
                std::process::exit(3);
            }
        });
    }
}
