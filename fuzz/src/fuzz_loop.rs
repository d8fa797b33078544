//! The fuzz loop behind `gpufuzz fuzz`: seeded inputs, worker threads, a libFuzzer-style
//! status line, panics caught per input, findings saved atomically.
//!
//! Input `i` of seed `s` is always the same bytes (see [`crate::rng`]), so a run is
//! reproducible from its seed and count whatever `--jobs` is; each saved finding also carries
//! its raw input, which reproduces it alone.
//!
//! Each thread judges inputs either in this process (fast; a hang, stack overflow or abort
//! stops the run) or through a worker process ([`crate::worker`], `FuzzOptions::worker`) with a
//! wall-clock deadline per input, where a hang or crash becomes a finding and a fresh worker
//! goes on from the next input. With an output folder, `OUT/summary.json` is rewritten every
//! status period and at the end ([`Summary`]): a run killed at any moment can be resumed from
//! its `next_index`, and a run that found nothing still leaves its figures. Nothing is lost
//! silently: a finding that cannot be saved stops the run and is listed in
//! [`FuzzStats::save_errors`].

use crate::counters::merge;
pub use crate::counters::{FuzzStats, Judged, STATUS_WIDTH};
use crate::finding::{Finding, Verdict};
use crate::oracle::Judgement;
use crate::worker::{Worker, WorkerSpec};
use crate::{rng, store};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How to run the loop.
#[derive(Clone, Debug)]
pub struct FuzzOptions {
    /// Seed of the input stream.
    pub seed: u64,
    /// Stop after this many inputs.
    pub runs: Option<u64>,
    /// Stop after this long.
    pub time: Option<Duration>,
    /// Worker threads.
    pub jobs: usize,
    /// Where findings go (`OUT/findings/…`); none keeps them in memory only.
    pub out: Option<PathBuf>,
    /// Input length range in bytes.
    pub min_len: usize,
    /// Input length range in bytes.
    pub max_len: usize,
    /// How often to print the status line (on stderr); none for silence.
    pub status_every: Option<Duration>,
    /// Print [`FuzzStats::status_detail`] under each status line.
    pub status_detail: bool,
    /// Print each finding new to the output folder (`NEW …` and its reproduce command) on
    /// stdout as it is saved.
    pub announce: bool,
    /// Raw inputs kept per signature (the first few; later hits are only counted).
    pub keep_per_signature: usize,
    /// Extra `gpufuzz` flags a reproduce command needs (e.g. `--plant NAME`).
    pub repro_flags: String,
    /// What the targets run on (`Target::environment`), saved with every finding.
    pub environment: std::collections::BTreeMap<String, String>,
    /// Stop at the first finding.
    pub stop_on_finding: bool,
    /// Index of the first input (a resumed run starts where the killed one stopped).
    pub start: u64,
    /// Counters of the earlier part of a resumed run, added to this part's.
    pub earlier: FuzzStats,
    /// Judge through worker processes with a per-input deadline instead of in this process.
    pub worker: Option<WorkerSpec>,
    /// Inputs judged together ([`fuzz_fused`]; a worker process judges a batch with the
    /// oracle's batch judge): consecutive indices from `start`, so the same seed and `fuse`
    /// make the same batches whatever `jobs` is.
    pub fuse: usize,
}

impl Default for FuzzOptions {
    fn default() -> Self {
        FuzzOptions {
            seed: 0,
            runs: None,
            time: Some(Duration::from_secs(60)),
            jobs: 1,
            out: None,
            min_len: 64,
            max_len: 2048,
            status_every: Some(Duration::from_secs(3)),
            status_detail: false,
            announce: false,
            keep_per_signature: 3,
            repro_flags: String::new(),
            environment: Default::default(),
            stop_on_finding: false,
            start: 0,
            earlier: FuzzStats::default(),
            worker: None,
            fuse: 1,
        }
    }
}

/// `OUT/summary.json`: what a run did so far and where to resume it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Summary {
    /// `gpufuzz` version and commit that wrote it ([`crate::VERSION`]).
    pub version: String,
    /// Seed of the input stream.
    pub seed: u64,
    /// Every input below this index has been judged (a resumed run starts here).
    pub next_index: u64,
    /// The run's `--runs` limit, if any (counted from input 0).
    pub runs: Option<u64>,
    /// Seconds of `--time` left, if the run has a time limit.
    pub seconds_left: Option<f64>,
    /// The flags that select plants and targets (`--plant P --target T`).
    pub flags: String,
    /// Worker threads or processes (0 in summaries written before it was recorded); a
    /// resumed run uses as many unless told otherwise.
    #[serde(default)]
    pub jobs: usize,
    /// Inputs judged together (`--fuse`; 0 in summaries written before it was recorded,
    /// which judged one at a time); a resumed run fuses as many unless told otherwise.
    #[serde(default)]
    pub fuse: usize,
    /// Whether the run ended by itself (not killed).
    pub complete: bool,
    /// Hits per signature (every hit, saved or not).
    pub findings_by_signature: BTreeMap<String, u64>,
    /// All counters.
    pub stats: FuzzStats,
}

impl Summary {
    /// Reads `OUT/summary.json`.
    pub fn read(out: &std::path::Path) -> Result<Summary, String> {
        let path = out.join("summary.json");
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// Inputs in a row that may test nothing (a target's infrastructure failed: its worker
/// cannot start, its device is gone) before the run stops: a failure that lasts that long is
/// not transient (a worker start is already retried, `vulkan_runner::START_ATTEMPTS`).
pub const BROKEN_IN_A_ROW: u64 = 5;

/// Shared state of one run's threads.
struct Run<'a> {
    opts: &'a FuzzOptions,
    start: Instant,
    next: AtomicU64,
    stop: AtomicBool,
    stats: Mutex<FuzzStats>,
    kept: Mutex<BTreeMap<String, usize>>,
    /// Per thread: the input it is judging, or `u64::MAX` when between inputs.
    current: Vec<AtomicU64>,
    /// Inputs in a row that tested nothing, and the lowest of them (where a resumed run
    /// starts again when the run stops for them).
    broken: Mutex<(u64, u64)>,
}

impl Run<'_> {
    fn out_of_time(&self) -> bool {
        self.opts.time.is_some_and(|t| self.start.elapsed() >= t)
    }

    /// Every input below this index has been judged.
    fn watermark(&self) -> u64 {
        let next = self.next.load(Ordering::SeqCst);
        let busy = self.current.iter().map(|c| c.load(Ordering::SeqCst));
        busy.fold(next, u64::min)
    }

    fn summary(&self, complete: bool) -> Summary {
        let mut stats = self.stats.lock().unwrap().clone();
        merge(&mut stats, self.opts.earlier.clone());
        stats.saved.extend(self.opts.earlier.saved.iter().cloned());
        let elapsed = self.start.elapsed();
        stats.seconds = self.opts.earlier.seconds + elapsed.as_secs_f64();
        stats.programs_per_second = stats.programs as f64 / stats.seconds.max(1e-9);
        stats.environment = self.opts.environment.clone();
        let next_index = if complete {
            self.watermark().min(self.opts.runs.unwrap_or(u64::MAX))
        } else {
            self.watermark()
        };
        // Stopped because the targets stopped working: the inputs that tested nothing are
        // judged again when the run is resumed.
        let next_index = match stats.stopped {
            Some(_) => next_index.min(self.broken.lock().unwrap().1),
            None => next_index,
        };
        Summary {
            version: crate::VERSION.to_string(),
            seed: self.opts.seed,
            next_index,
            runs: self.opts.runs,
            seconds_left: self
                .opts
                .time
                .map(|t| t.saturating_sub(elapsed).as_secs_f64()),
            flags: self.opts.repro_flags.clone(),
            jobs: self.opts.jobs,
            fuse: self.opts.fuse,
            complete,
            findings_by_signature: stats.signatures.clone(),
            stats,
        }
    }

    /// The summary to leave when the deadline has passed with inputs still being judged: the
    /// run is over, those inputs abandoned (counted, never judged), and a resumed run starts
    /// after the last input taken. If they finish after all, the final checkpoint replaces it.
    fn summary_at_deadline(&self) -> Summary {
        let busy = self
            .current
            .iter()
            .filter(|c| c.load(Ordering::SeqCst) != u64::MAX);
        let mut summary = self.summary(true);
        summary.stats.abandoned += busy.count() as u64;
        summary.next_index = self
            .next
            .load(Ordering::SeqCst)
            .min(self.opts.runs.unwrap_or(u64::MAX));
        summary
    }

    /// Rewrites `OUT/summary.json` (atomically); an error stops the run.
    fn checkpoint(&self, complete: bool) {
        self.write_summary(&self.summary(complete));
    }

    fn write_summary(&self, summary: &Summary) {
        let Some(out) = &self.opts.out else { return };
        let written = serde_json::to_string_pretty(&summary)
            .map_err(std::io::Error::other)
            .and_then(|json| store::write_atomically(&out.join("summary.json"), json.as_bytes()));
        if let Err(e) = written {
            self.fail(format!("{}: {e}", out.join("summary.json").display()));
        }
    }

    /// Counts input `index`'s outcome toward the inputs in a row that tested nothing
    /// (`broken`: what broke, when it did); stops the run at [`BROKEN_IN_A_ROW`].
    fn note(&self, index: u64, broken: Option<&str>) {
        let mut streak = self.broken.lock().unwrap();
        let Some(why) = broken else {
            *streak = (0, u64::MAX);
            return;
        };
        *streak = (streak.0 + 1, streak.1.min(index));
        if streak.0 < BROKEN_IN_A_ROW || self.stop.load(Ordering::SeqCst) {
            return;
        }
        let stopped = format!(
            "{} inputs in a row tested nothing, the last because: {why}",
            streak.0
        );
        eprintln!("error: {stopped}; stopping");
        self.stats.lock().unwrap().stopped = Some(stopped);
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Records an error that loses data and stops the run.
    fn fail(&self, error: String) {
        eprintln!("error: {error}; stopping");
        self.stats.lock().unwrap().save_errors.push(error);
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Runs the loop with `judge` as the oracle (in this process, or in worker processes when
/// `opts.worker` is set) and returns the final counters, the earlier part of a resumed run
/// included.
pub fn fuzz(opts: &FuzzOptions, judge: &(dyn Fn(&[u8]) -> Judgement + Sync)) -> FuzzStats {
    fuzz_fused(opts, &|inputs| {
        inputs.iter().map(|bytes| judge(bytes)).collect()
    })
}

/// [`fuzz`] with a judge of `opts.fuse` inputs at a time (one judgement per input, in order;
/// e.g. [`crate::oracle::judge_batch`]).
pub fn fuzz_fused(
    opts: &FuzzOptions,
    judge: &(dyn Fn(&[&[u8]]) -> Vec<Judgement> + Sync),
) -> FuzzStats {
    crate::panics::install_quiet_hook();
    let jobs = opts.jobs.max(1);
    let run = Run {
        opts,
        start: Instant::now(),
        next: AtomicU64::new(opts.start),
        stop: AtomicBool::new(false),
        stats: Mutex::new(FuzzStats::default()),
        kept: Mutex::new(kept_on_disk(opts)),
        current: (0..jobs).map(|_| AtomicU64::new(u64::MAX)).collect(),
        broken: Mutex::new((0, u64::MAX)),
    };
    let run = &run;
    run.checkpoint(false);

    std::thread::scope(|s| {
        for thread in 0..jobs {
            s.spawn(move || {
                let mut worker = opts.worker.clone().map(Worker::new);
                let batch = opts.fuse.max(1) as u64;
                let mut local = FuzzStats::default();
                let mut last_flush = Instant::now();
                loop {
                    if run.stop.load(Ordering::Relaxed) || run.out_of_time() {
                        break;
                    }
                    // Mark the inputs busy before taking them, so the watermark never passes
                    // them.
                    run.current[thread].store(run.next.load(Ordering::SeqCst), Ordering::SeqCst);
                    let first = run.next.fetch_add(batch, Ordering::SeqCst);
                    run.current[thread].store(first, Ordering::SeqCst);
                    let end = (first + batch).min(opts.runs.unwrap_or(u64::MAX));
                    if first >= end {
                        break;
                    }
                    let inputs: Vec<Vec<u8>> = (first..end)
                        .map(|i| {
                            let mut buf = Vec::with_capacity(opts.max_len);
                            rng::input_bytes(opts.seed, i, opts.min_len, opts.max_len, &mut buf);
                            buf
                        })
                        .collect();
                    let mut findings = Vec::new();
                    let judging = Instant::now();
                    // Each input's share of the batch's time, once the batch is judged.
                    let share = |n: u64| judging.elapsed().as_secs_f64() / n.max(1) as f64;
                    match &mut worker {
                        None => {
                            let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
                            let judged = judge(&refs);
                            let each = share(judged.len() as u64);
                            for (i, j) in (first..end).zip(judged) {
                                local.record(&j);
                                match j.verdict {
                                    Verdict::Finding(f) => findings.push((i, f, j.program_text)),
                                    Verdict::Broken(why) => {
                                        local.untested_seconds += each;
                                        run.note(i, Some(&why));
                                    }
                                    _ => run.note(i, None),
                                }
                            }
                        }
                        Some(w) => {
                            let batch = w.judge_batch(first, &inputs);
                            let each = share(batch.len() as u64);
                            for (i, judged) in (first..end).zip(batch) {
                                let broken = judged.stats.broken.keys().next();
                                if broken.is_some() {
                                    local.untested_seconds += each;
                                }
                                run.note(i, broken.map(String::as_str));
                                merge(&mut local, judged.stats);
                                if let Some((f, program)) = judged.finding {
                                    findings.push((i, f, program));
                                }
                            }
                        }
                    }
                    for (i, f, program) in findings {
                        // Counted before it is announced, so the summary never lags a report.
                        merge(&mut run.stats.lock().unwrap(), std::mem::take(&mut local));
                        let batch = f.fused().then_some(store::Batch {
                            first_index: first,
                            inputs: &inputs,
                        });
                        let buf = &inputs[(i - first) as usize];
                        save(run, &f, buf, program.as_deref(), i, batch);
                        if opts.stop_on_finding {
                            run.stop.store(true, Ordering::Relaxed);
                        }
                    }
                    run.current[thread].store(u64::MAX, Ordering::SeqCst);
                    if last_flush.elapsed() > Duration::from_millis(200) {
                        merge(&mut run.stats.lock().unwrap(), std::mem::take(&mut local));
                        last_flush = Instant::now();
                    }
                }
                run.current[thread].store(u64::MAX, Ordering::SeqCst);
                merge(&mut run.stats.lock().unwrap(), local);
            });
        }
        s.spawn(move || {
            let mut last_status = Instant::now();
            let mut last_checkpoint = Instant::now();
            let every = opts.status_every.unwrap_or(Duration::from_secs(3));
            while !run.stop.load(Ordering::Relaxed)
                && !finished(&run.next, opts)
                && !run.out_of_time()
            {
                std::thread::sleep(Duration::from_millis(50));
                if opts.status_every.is_some() && last_status.elapsed() >= every {
                    // Over the whole run, the earlier part of a resumed one included.
                    print_status(&run.summary(false).stats, opts);
                    last_status = Instant::now();
                }
                if last_checkpoint.elapsed() >= every {
                    run.checkpoint(false);
                    last_checkpoint = Instant::now();
                }
            }
            // Past the deadline with inputs still running: leave the summary that abandons
            // them, in case they do not finish before the caller gives up on them.
            if run.out_of_time() && !run.stop.load(Ordering::Relaxed) {
                run.write_summary(&run.summary_at_deadline());
            }
        });
    });

    run.checkpoint(true);
    let stats = run.summary(true).stats;
    if opts.status_every.is_some() {
        print_status(&stats, opts);
    }
    stats
}

/// The status line (and its detail when asked for) on stderr: progress, not results.
fn print_status(stats: &FuzzStats, opts: &FuzzOptions) {
    eprintln!(
        "{}",
        stats.status_line(Duration::from_secs_f64(stats.seconds))
    );
    if opts.status_detail {
        eprintln!("{}", stats.status_detail());
    }
}

/// Findings already saved per signature under `OUT/findings` by the earlier part of a resumed
/// run, so `keep_per_signature` holds across the restart (a fresh run counts from zero).
fn kept_on_disk(opts: &FuzzOptions) -> BTreeMap<String, usize> {
    let mut kept = BTreeMap::new();
    let Some(out) = opts.out.as_ref().filter(|_| opts.start > 0) else {
        return kept;
    };
    let Ok(dirs) = std::fs::read_dir(out.join("findings")) else {
        return kept;
    };
    for d in dirs.flatten() {
        let record = std::fs::read_to_string(d.path().join("finding.json")).ok();
        let sig = record
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v["signature"].as_str().map(String::from));
        if let Some(sig) = sig {
            *kept.entry(sig).or_default() += 1;
        }
    }
    kept
}

fn finished(next: &AtomicU64, opts: &FuzzOptions) -> bool {
    opts.runs.is_some_and(|r| next.load(Ordering::Relaxed) >= r)
}

fn save(
    run: &Run,
    f: &Finding,
    input: &[u8],
    program: Option<&str>,
    index: u64,
    batch: Option<store::Batch>,
) {
    let opts = run.opts;
    let sig = f.signature();
    let first = {
        let mut kept = run.kept.lock().unwrap();
        let n = kept.entry(sig.clone()).or_default();
        *n += 1;
        if *n > opts.keep_per_signature {
            return;
        }
        *n == 1
    };
    let Some(out) = &opts.out else { return };
    let provenance = store::Provenance {
        flags: &opts.repro_flags,
        environment: &opts.environment,
        seed: opts.seed,
    };
    let saved = store::save_finding(out, f, input, program, &provenance, index, batch);
    match saved {
        Ok(dir) => {
            // A result, not progress: on stdout, so `gpufuzz fuzz > log` keeps it.
            if first && opts.announce {
                println!(
                    "NEW {f}\n    reproduce: {}",
                    store::repro_command(&dir, &opts.repro_flags)
                );
            }
            run.stats
                .lock()
                .unwrap()
                .saved
                .push(dir.display().to_string());
        }
        Err(e) => run.fail(format!(
            "could not save finding {sig} (input {index} of seed {}) under {}: {e}",
            opts.seed,
            out.display()
        )),
    }
}
