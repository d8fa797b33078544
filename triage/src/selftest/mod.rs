//! Selftest: the fuzzer measured the way Magma measures fuzzers — by bugs planted on purpose.
//!
//! Each planted bug ([`compiler::planted`]) is switched on alone, and the in-process fuzz loop
//! ([`fuzz::fuzz_loop::fuzz`], one core, the oracle `gpufuzz fuzz` uses) runs from fixed seeds
//! until the first finding or the budget. The finding is reduced while it keeps its signature
//! ([`crate::session::reduce_case`]) and bisected, and checked to be the planted bug:
//!
//! * it shows on one of the plant's targets (middle-end plants: the `middle` pipeline);
//! * bisection blames the planted pass — a backend plant's included, which takes the middle
//!   end's output being right after every pass and the backend step named by its checker or
//!   its switch ([`crate::bisect`]);
//! * the reduced case passes with the plant switched off.
//!
//! The scorecard ([`table`]) adds, per plant over the seeds: the buckets its findings land in
//! (one bug must be one bucket), the blamed pass, and reduced sizes and times.
//!
//! A plant whose targets are not registered pipelines (yet) is reported as "target not
//! available" and picked up as soon as its pipeline registers. A baseline run with nothing
//! planted, on every pipeline and with the same budget per seed, shows the oracle has no false
//! positives there. [`table`] summarises the runs per bug.

pub mod table;

use crate::reduce::Reducer;
use crate::session;
use crate::signature::{self, Signature};
use compiler::ir::text;
use compiler::planted::{Plant, Plants};
use fuzz::finding::Verdict;
use fuzz::fuzz_loop::{self, FuzzOptions};
use fuzz::oracle::{self, Case, OracleOptions};
use serde::Serialize;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How to run a selftest.
#[derive(Clone, Debug)]
pub struct SelftestOptions {
    /// Fuzzing time per seed and bug.
    pub budget: Duration,
    /// Also stop a hunt after this many programs (tests use it for determinism).
    pub max_programs: Option<u64>,
    /// The fixed seeds.
    pub seeds: Vec<u64>,
    /// The bugs to plant, one at a time.
    pub plants: Vec<Plant>,
    /// Also run with nothing planted.
    pub baseline: bool,
    /// Time limit of each reduction.
    pub reduce_time: Duration,
    /// Print a line per hunt, and the fuzz loop's status line during long hunts.
    pub progress: bool,
}

impl Default for SelftestOptions {
    fn default() -> Self {
        SelftestOptions {
            budget: Duration::from_secs(60),
            max_programs: None,
            seeds: (1..=5).collect(),
            plants: Plant::ALL
                .iter()
                .copied()
                .filter(|p| !p.test_only())
                .collect(),
            baseline: true,
            reduce_time: Duration::from_secs(20),
            progress: false,
        }
    }
}

/// One hunt: one bug (or none), one seed.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SeedRun {
    /// The seed of the input stream.
    pub seed: u64,
    /// Whether a finding showed within the budget.
    pub found: bool,
    /// Seconds to the first finding (or the whole hunt when nothing was found).
    pub seconds: f64,
    /// Programs judged up to and including the first finding (or in the whole hunt).
    pub programs: u64,
    /// The first finding, as the oracle printed it.
    pub finding: Option<String>,
    /// Its signature key (kind, target, first bad pass, class).
    pub signature: Option<String>,
    /// The first bad pass bisection names for the reduced case.
    pub first_bad_pass: Option<String>,
    /// Whether the finding is the planted bug (see the module doc); `None` with no plant.
    pub points_at_plant: Option<bool>,
    /// Why not, when it is not.
    pub mismatch: Option<String>,
    /// IR instructions of the program that first showed the finding.
    pub original_size: Option<usize>,
    /// IR instructions after reduction.
    pub reduced_size: Option<usize>,
    /// Seconds spent reducing and bisecting.
    pub reduce_seconds: Option<f64>,
    /// The reduced program in the text format.
    pub reduced_program: Option<String>,
    /// The command that finds it again.
    pub reproduce: Option<String>,
    /// What went wrong in reduction, if anything.
    pub error: Option<String>,
}

/// Every hunt of one bug (or of the baseline).
#[derive(Clone, Debug, Serialize)]
pub struct PlantRun {
    /// The plant's name, or `none` for the baseline.
    pub plant: String,
    /// The pass it lives in (empty for the baseline).
    pub pass: String,
    /// The pipelines fuzzed (empty: all).
    pub targets: Vec<String>,
    /// Whether those pipelines are registered; unavailable plants are not fuzzed.
    pub available: bool,
    /// One per seed.
    pub runs: Vec<SeedRun>,
}

/// The whole selftest.
#[derive(Clone, Debug, Serialize)]
pub struct Selftest {
    /// Fuzzing budget per seed, in seconds.
    pub budget_secs: f64,
    /// The seeds.
    pub seeds: Vec<u64>,
    /// One per planted bug, in catalog order.
    pub plants: Vec<PlantRun>,
    /// The run with nothing planted.
    pub baseline: Option<PlantRun>,
}

/// The registered pipeline names.
pub fn registered() -> Vec<&'static str> {
    fuzz::targets::all().iter().map(|p| p.name()).collect()
}

/// Whether `plant` lives in the middle end (its catalog targets are `all`).
pub fn is_middle_end(plant: Plant) -> bool {
    plant.targets() == "all"
}

/// The pipelines to fuzz for `plant`: `middle` for middle-end bugs (the cheapest pipeline
/// that shows them, and the one that runs out-of-SSA), else the plant's registered targets.
/// `Err` with the missing targets when none is registered.
pub fn targets_of(plant: Plant) -> Result<Vec<String>, Vec<String>> {
    let have = registered();
    let wanted: Vec<&str> = if is_middle_end(plant) {
        vec![fuzz::targets::middle::NAME]
    } else {
        plant.targets().split_whitespace().collect()
    };
    let found: Vec<String> = wanted
        .iter()
        .filter(|t| have.contains(t))
        .map(|t| t.to_string())
        .collect();
    if found.is_empty() {
        Err(wanted.iter().map(|t| t.to_string()).collect())
    } else {
        Ok(found)
    }
}

/// The oracle options a hunt for `plant` uses (all targets, nothing planted for `None`).
pub fn oracle_options(plant: Option<Plant>) -> OracleOptions {
    let Some(plant) = plant else {
        return OracleOptions::default();
    };
    OracleOptions {
        plants: Plants::NONE.with(plant),
        targets: targets_of(plant).unwrap_or_default(),
        ..OracleOptions::default()
    }
}

/// The first finding of a hunt.
struct First {
    programs: u64,
    elapsed: Duration,
    input: Vec<u8>,
}

/// Fuzzes seed `seed` until the first finding or the budget; the hunt's counters and the
/// first finding's input.
fn hunt(seed: u64, opts: &OracleOptions, so: &SelftestOptions) -> (u64, Duration, Option<First>) {
    let fo = FuzzOptions {
        seed,
        runs: so.max_programs,
        time: Some(so.budget),
        jobs: 1,
        out: None,
        status_every: so.progress.then_some(Duration::from_secs(10)),
        keep_per_signature: 1,
        stop_on_finding: true,
        ..FuzzOptions::default()
    };
    let first: Mutex<Option<First>> = Mutex::new(None);
    let judged = std::sync::atomic::AtomicU64::new(0);
    let start = Instant::now();
    let stats = fuzz_loop::fuzz(&fo, &|bytes| {
        let j = oracle::judge_bytes(bytes, opts);
        let n = judged.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if let Verdict::Finding(_) = &j.verdict {
            let mut first = first.lock().unwrap();
            if first.is_none() {
                *first = Some(First {
                    programs: n,
                    elapsed: start.elapsed(),
                    input: bytes.to_vec(),
                });
            }
        }
        j
    });
    (stats.programs, start.elapsed(), first.into_inner().unwrap())
}

/// Why the reduction's signature does not point at `plant`, if it does not.
fn not_the_plant(
    plant: Plant,
    sig: &Signature,
    reduced: &Case,
    opts: &OracleOptions,
) -> Option<String> {
    let targets = targets_of(plant).unwrap_or_default();
    if !targets.contains(&sig.target) {
        return Some(format!(
            "shows on {}, not on {}",
            sig.target,
            targets.join(" ")
        ));
    }
    if sig.first_bad_pass.as_deref() != Some(plant.pass()) {
        return Some(format!(
            "first bad pass {}, not {}",
            sig.first_bad_pass.as_deref().unwrap_or("none"),
            plant.pass()
        ));
    }
    let clean = OracleOptions {
        plants: Plants::NONE,
        ..opts.clone()
    };
    fuzz::oracle::finding_of(reduced, &clean)
        .map(|f| format!("the reduced case fails without the plant too: {f}"))
}

/// The reproduce command of a hunt's first finding.
fn reproduce(seed: u64, programs: u64, plant: Option<Plant>, opts: &OracleOptions) -> String {
    let mut s = format!("gpufuzz fuzz --seed {seed} --runs {programs} --jobs 1");
    if let Some(p) = plant {
        s.push_str(&format!(" --plant {p}"));
    }
    for t in &opts.targets {
        s.push_str(&format!(" --target {t}"));
    }
    s
}

/// One hunt and, on a finding, its reduction and the check.
pub fn run_seed(plant: Option<Plant>, seed: u64, so: &SelftestOptions) -> SeedRun {
    let opts = oracle_options(plant);
    let (programs, elapsed, first) = hunt(seed, &opts, so);
    let mut run = SeedRun {
        seed,
        seconds: elapsed.as_secs_f64(),
        programs,
        ..SeedRun::default()
    };
    let Some(first) = first else { return run };
    run.found = true;
    run.seconds = first.elapsed.as_secs_f64();
    run.programs = first.programs;
    run.reproduce = Some(reproduce(seed, first.programs, plant, &opts));
    let Some(case) = oracle::decode(&first.input) else {
        run.error = Some("the finding's input decodes to no program".into());
        return run;
    };
    run.original_size = Some(case.program.func.inst_count());
    run.finding = fuzz::oracle::finding_of(&case, &opts).map(|f| f.to_string());
    let reducer = Reducer::default().time_limit(so.reduce_time);
    let start = Instant::now();
    let outcome = session::reduce_case(case.clone(), &opts, &reducer);
    run.reduce_seconds = Some(start.elapsed().as_secs_f64());
    let (sig, reduced) = match outcome {
        Ok(r) => {
            run.reduced_size = Some(r.reduced.after);
            run.reduced_program = Some(text::print_program(&r.reduced.case.program));
            run.first_bad_pass = r.bisection.first_bad_pass;
            run.signature = Some(r.signature.key());
            (Some(r.signature), r.reduced.case)
        }
        Err(e) => {
            run.error = Some(e.to_string());
            let sig = signature::signature_of(&case, &opts).map(|(s, _)| s);
            run.first_bad_pass = sig.as_ref().and_then(|s| s.first_bad_pass.clone());
            run.signature = sig.as_ref().map(Signature::key);
            (sig, case)
        }
    };
    if let Some(plant) = plant {
        run.mismatch = match &sig {
            Some(sig) => not_the_plant(plant, sig, &reduced, &opts),
            None => Some("the finding does not reproduce".into()),
        };
        run.points_at_plant = Some(run.mismatch.is_none());
    }
    run
}

/// Every seed for one bug (or the baseline).
pub fn run_plant(plant: Option<Plant>, so: &SelftestOptions) -> PlantRun {
    let name = plant.map_or("none".to_string(), |p| p.name().to_string());
    let (available, targets) = match plant.map(targets_of) {
        None => (true, Vec::new()),
        Some(Ok(t)) => (true, t),
        Some(Err(t)) => (false, t),
    };
    let mut out = PlantRun {
        plant: name.clone(),
        pass: plant.map_or(String::new(), |p| p.pass().to_string()),
        targets,
        available,
        runs: Vec::new(),
    };
    if !available {
        if so.progress {
            eprintln!(
                "selftest: {name}: target not available ({} not registered)",
                out.targets.join(" ")
            );
        }
        return out;
    }
    for &seed in &so.seeds {
        let run = run_seed(plant, seed, so);
        if so.progress {
            eprintln!("selftest: {name} seed {seed}: {}", table::describe(&run));
        }
        out.runs.push(run);
    }
    out
}

/// The whole selftest: every bug asked for, then the baseline.
pub fn run(so: &SelftestOptions) -> Selftest {
    let plants = so.plants.iter().map(|&p| run_plant(Some(p), so)).collect();
    let baseline = so.baseline.then(|| run_plant(None, so));
    Selftest {
        budget_secs: so.budget.as_secs_f64(),
        seeds: so.seeds.clone(),
        plants,
        baseline,
    }
}
