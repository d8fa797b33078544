//! The in-process fuzz loop behind `gpufuzz fuzz`: seeded inputs, worker threads, a
//! libFuzzer-style status line, panics caught per input, findings saved atomically.
//!
//! Input `i` of seed `s` is always the same bytes (see [`crate::rng`]), so a run is
//! reproducible from its seed and count whatever `--jobs` is; each saved finding also carries
//! its raw input, which reproduces it alone.

use crate::finding::{Finding, FindingKind, Rejection, Verdict};
use crate::oracle::Judgement;
use crate::{rng, store};
use serde::Serialize;
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
    /// How often to print the status line; none for silence.
    pub status_every: Option<Duration>,
    /// Raw inputs kept per signature (the first few; later hits are only counted).
    pub keep_per_signature: usize,
    /// Extra `gpufuzz` flags a reproduce command needs (e.g. `--plant NAME`).
    pub repro_flags: String,
    /// Stop at the first finding.
    pub stop_on_finding: bool,
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
            keep_per_signature: 3,
            repro_flags: String::new(),
            stop_on_finding: false,
        }
    }
}

/// Counters of a run; `--stats-json` writes them.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FuzzStats {
    /// Inputs judged.
    pub programs: u64,
    /// Inputs rejected, by reason.
    pub rejected: BTreeMap<String, u64>,
    /// Findings by kind (every hit).
    pub findings: BTreeMap<String, u64>,
    /// Hits per signature.
    pub signatures: BTreeMap<String, u64>,
    /// Programs that ran some loop back-edge twice or more in some invocation.
    pub loops_taken_twice: u64,
    /// Programs with a branch that diverged within one group of 8 invocations.
    pub divergent_simd8: u64,
    /// Compiles that spilled registers.
    pub spills: u64,
    /// Compiles that trimmed a SEND payload.
    pub trimmed_sends: u64,
    /// Programs each optional pass changed (the pass-firing table).
    pub pass_fired: BTreeMap<String, u64>,
    /// Programs a pipeline could not judge, by `pipeline: reason` (e.g. lavapipe's
    /// loop-iteration limit).
    pub skipped: BTreeMap<String, u64>,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Inputs per second.
    pub programs_per_second: f64,
    /// Saved findings (folders under OUT/findings).
    pub saved: Vec<String>,
}

impl FuzzStats {
    /// Total findings of all kinds.
    pub fn total_findings(&self) -> u64 {
        self.findings.values().sum()
    }

    fn record(&mut self, j: &Judgement) {
        self.programs += 1;
        let c = &j.coverage;
        self.loops_taken_twice += u64::from(c.loop_back_edge_twice);
        self.divergent_simd8 += u64::from(c.divergent_simd8);
        self.spills += u64::from(c.spills);
        self.trimmed_sends += u64::from(c.trimmed_sends);
        for pass in &c.passes_changed {
            *self.pass_fired.entry((*pass).to_string()).or_default() += 1;
        }
        for why in &c.skipped {
            *self.skipped.entry(why.clone()).or_default() += 1;
        }
        match &j.verdict {
            Verdict::Pass => {}
            Verdict::Rejected(r) => {
                *self.rejected.entry(rejection_name(*r).into()).or_default() += 1
            }
            Verdict::Finding(f) => {
                *self.findings.entry(f.kind.name().into()).or_default() += 1;
                *self.signatures.entry(f.signature()).or_default() += 1;
            }
        }
    }

    /// The libFuzzer-like one-line status.
    pub fn status_line(&self, elapsed: Duration) -> String {
        let secs = elapsed.as_secs_f64().max(1e-9);
        let pct = |n: u64| 100.0 * n as f64 / self.programs.max(1) as f64;
        let rejected: u64 = self.rejected.values().sum();
        let mut s = format!(
            "#{} {:.0}s {:.0} prog/s | findings {}",
            self.programs,
            secs,
            self.programs as f64 / secs,
            self.total_findings()
        );
        for kind in FindingKind::ALL {
            if let Some(n) = self.findings.get(kind.name()) {
                s.push_str(&format!(" {kind}:{n}"));
            }
        }
        s.push_str(&format!(
            " | rejected {:.1}% | loops>=2 {:.0}% divergent {:.0}% spills {} trimmed {}",
            pct(rejected),
            pct(self.loops_taken_twice),
            pct(self.divergent_simd8),
            self.spills,
            self.trimmed_sends
        ));
        let skipped: u64 = self.skipped.values().sum();
        if skipped > 0 {
            s.push_str(&format!(" | skipped {skipped}"));
        }
        s
    }
}

fn rejection_name(r: Rejection) -> &'static str {
    match r {
        Rejection::OutOfFuel => "out-of-fuel",
        Rejection::NoProgram => "no-program",
    }
}

/// Runs the loop with `judge` as the oracle and returns the final counters.
pub fn fuzz(opts: &FuzzOptions, judge: &(dyn Fn(&[u8]) -> Judgement + Sync)) -> FuzzStats {
    crate::panics::install_quiet_hook();
    let start = Instant::now();
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let stats = Mutex::new(FuzzStats::default());
    let kept: Mutex<BTreeMap<String, usize>> = Mutex::new(BTreeMap::new());
    let out_of_time = || opts.time.is_some_and(|t| start.elapsed() >= t);
    let (next, stop, stats_ref, kept, out_of_time) = (&next, &stop, &stats, &kept, &out_of_time);

    std::thread::scope(|s| {
        for _ in 0..opts.jobs.max(1) {
            s.spawn(move || {
                let mut buf = Vec::with_capacity(opts.max_len);
                let mut local = FuzzStats::default();
                let mut last_flush = Instant::now();
                loop {
                    if stop.load(Ordering::Relaxed) || out_of_time() {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if opts.runs.is_some_and(|r| i >= r) {
                        break;
                    }
                    rng::input_bytes(opts.seed, i, opts.min_len, opts.max_len, &mut buf);
                    let j = judge(&buf);
                    local.record(&j);
                    if let Verdict::Finding(f) = &j.verdict {
                        save(
                            opts,
                            kept,
                            stats_ref,
                            f.as_ref(),
                            &buf,
                            j.program_text.as_deref(),
                            i,
                        );
                        if opts.stop_on_finding {
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                    if last_flush.elapsed() > Duration::from_millis(200) {
                        merge(&mut stats_ref.lock().unwrap(), std::mem::take(&mut local));
                        last_flush = Instant::now();
                    }
                }
                merge(&mut stats_ref.lock().unwrap(), local);
            });
        }
        if let Some(every) = opts.status_every {
            s.spawn(move || {
                let mut last = Instant::now();
                while !stop.load(Ordering::Relaxed) && !finished(next, opts) && !out_of_time() {
                    std::thread::sleep(Duration::from_millis(50));
                    if last.elapsed() >= every {
                        eprintln!("{}", stats_ref.lock().unwrap().status_line(start.elapsed()));
                        last = Instant::now();
                    }
                }
            });
        }
    });

    let mut stats = stats.into_inner().unwrap();
    stats.seconds = start.elapsed().as_secs_f64();
    stats.programs_per_second = stats.programs as f64 / stats.seconds.max(1e-9);
    if opts.status_every.is_some() {
        eprintln!("{}", stats.status_line(start.elapsed()));
    }
    stats
}

fn finished(next: &AtomicU64, opts: &FuzzOptions) -> bool {
    opts.runs.is_some_and(|r| next.load(Ordering::Relaxed) >= r)
}

fn merge(into: &mut FuzzStats, from: FuzzStats) {
    into.programs += from.programs;
    into.loops_taken_twice += from.loops_taken_twice;
    into.divergent_simd8 += from.divergent_simd8;
    into.spills += from.spills;
    into.trimmed_sends += from.trimmed_sends;
    for (maps_into, maps_from) in [
        (&mut into.rejected, from.rejected),
        (&mut into.findings, from.findings),
        (&mut into.signatures, from.signatures),
        (&mut into.pass_fired, from.pass_fired),
        (&mut into.skipped, from.skipped),
    ] {
        for (k, v) in maps_from {
            *maps_into.entry(k).or_default() += v;
        }
    }
}

fn save(
    opts: &FuzzOptions,
    kept: &Mutex<BTreeMap<String, usize>>,
    stats: &Mutex<FuzzStats>,
    f: &Finding,
    input: &[u8],
    program: Option<&str>,
    index: u64,
) {
    let sig = f.signature();
    let first = {
        let mut kept = kept.lock().unwrap();
        let n = kept.entry(sig.clone()).or_default();
        *n += 1;
        if *n > opts.keep_per_signature {
            return;
        }
        *n == 1
    };
    let Some(out) = &opts.out else { return };
    match store::save_finding(out, f, input, program, &opts.repro_flags, opts.seed, index) {
        Ok(dir) => {
            if first && opts.status_every.is_some() {
                eprintln!(
                    "NEW {f}\n    reproduce: {}",
                    store::repro_command(&dir, &opts.repro_flags)
                );
            }
            stats.lock().unwrap().saved.push(dir.display().to_string());
        }
        Err(e) => eprintln!("error: could not save finding {sig}: {e}"),
    }
}
