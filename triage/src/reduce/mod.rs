//! The reducer: shrinks a case (program and configuration) while it stays interesting, by
//! IR-aware passes applied to a fixpoint (in the manner of spirv-reduce and wasm-shrink).
//!
//! A [`Reducer`] is a `Default` builder; "interesting" is the caller's [`IsInteresting`]
//! predicate — triage uses "shows the same signature" ([`crate::signature::shows`]), not
//! "fails somehow". The reducer first checks that the input is interesting and that an empty
//! program is not (else the predicate is too loose to reduce with); every candidate is
//! verified before it is run; candidates are deduplicated by a hash of their text and
//! configuration, so none runs twice; the run is bounded by a wall-clock limit and a
//! candidate count (fuel and cycle budgets bound each run, in the oracle). There is no
//! randomness: passes propose candidates in a fixed order, so a reduction is reproducible.
//!
//! Register budgets are lowered first ([`config::CONFIG_PASSES`]' `lower-budget`: a spill
//! bug must keep spilling as the program shrinks). Then program passes ([`passes::PASSES`])
//! run to a fixpoint, then the configuration passes (budgets again, optional passes off,
//! other knobs to their defaults), then the program passes again if the configuration
//! changed; at the end of it a sideways step retries every shrinking edit under other
//! allocation settings (a few registers more or fewer, the allocators' other choices), since
//! an allocation bug needs one exact register assignment and every edit moves registers, and
//! when none is left widens a group of values ([`widen`]: one vector for several pressure
//! values). Descents in several pass orders start from the input, or from a checkpoint of
//! the first once a reduction has grown expensive ([`RESTART_RUNS`]); the smallest result
//! wins.

pub mod config;
pub mod edit;
pub mod passes;
pub mod resources;
pub mod widen;

use compiler::ir::{text, verify, CfNode, Function, Program};
use fuzz::oracle::Case;
use passes::Candidate;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

/// The predicate a reduction keeps.
pub trait IsInteresting {
    /// Whether `case` still shows the behaviour being reduced.
    fn is_interesting(&mut self, case: &Case) -> bool;
}

impl<F: FnMut(&Case) -> bool> IsInteresting for F {
    fn is_interesting(&mut self, case: &Case) -> bool {
        self(case)
    }
}

/// Reducer settings (a builder: `Reducer::default().time_limit(..)`).
#[derive(Clone, Debug)]
pub struct Reducer {
    /// Give up improving after this long (the best case so far is returned).
    pub time_limit: Duration,
    /// Give up after this many candidate runs.
    pub max_runs: usize,
    /// Print progress to stderr every couple of seconds.
    pub progress: bool,
    /// Print every attempt to stderr (pass, size, verdict).
    pub log_attempts: bool,
    /// Also shrink the configuration.
    pub shrink_config: bool,
    /// The target whose register budgets are lowered (`None`: every backend's). A budget the
    /// bug's target does not read only slows the other pipelines down.
    pub budget_target: Option<String>,
    /// How low Gen budgets go ([`config::Floors`]).
    pub floors: config::Floors,
}

impl Default for Reducer {
    fn default() -> Self {
        Reducer {
            time_limit: Duration::from_secs(30),
            max_runs: 20_000,
            progress: false,
            log_attempts: false,
            shrink_config: true,
            budget_target: None,
            floors: config::Floors::Sure,
        }
    }
}

/// Per-pass counters of a reduction.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct PassStats {
    /// The pass.
    pub name: &'static str,
    /// Candidates run through the predicate.
    pub runs: usize,
    /// Candidates kept.
    pub accepted: usize,
}

/// The outcome of a reduction.
#[derive(Clone, Debug)]
pub struct Reduced {
    /// The smallest interesting case found.
    pub case: Case,
    /// Instructions before.
    pub before: usize,
    /// Instructions after.
    pub after: usize,
    /// Candidates run through the predicate.
    pub runs: usize,
    /// Candidates kept.
    pub accepted: usize,
    /// Candidates the verifier rejected (never run).
    pub invalid: usize,
    /// Candidates skipped as already seen.
    pub duplicates: usize,
    /// Per pass.
    pub passes: Vec<PassStats>,
    /// Wall-clock time spent.
    pub elapsed: Duration,
    /// Whether a limit stopped it before a fixpoint.
    pub truncated: bool,
}

/// Why nothing could be reduced.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReduceError {
    /// The input itself is not interesting.
    #[error("the input does not show the behaviour to keep")]
    NotInteresting,
    /// An empty program is interesting too: the predicate cannot tell programs apart.
    #[error("an empty program is interesting too: the predicate is too loose")]
    EmptyIsInteresting,
}

/// A program with the same dispatch and an empty body.
pub fn empty_program(p: &Program) -> Program {
    let mut func = Function::default();
    let b = func.blocks.push(Default::default());
    func.body = vec![CfNode::Block(b)];
    Program {
        dispatch: p.dispatch.clone(),
        func,
    }
}

/// The dedup key of a candidate.
fn case_hash(case: &Case) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text::print_program(&case.program).hash(&mut h);
    format!("{:?}", case.config).hash(&mut h);
    h.finish()
}

/// A case's size: the instructions of its program.
fn size(c: &Case) -> usize {
    c.program.func.inst_count()
}

/// The name the sideways step ([`Run::edit_at_other_allocation`]) counts its runs under.
const EDIT_AT_OTHER_ALLOCATION: &str = "edit-at-other-allocation";

/// The name the widening step ([`Run::widen`]) counts its runs under.
const WIDEN: &str = "widen";

struct Run<'a> {
    r: &'a Reducer,
    start: Instant,
    /// The program passes' order in this descent (names from [`passes::ORDERS`]).
    order: &'static [&'static str],
    best: Case,
    /// Candidates met in this descent (a revisit is rejected: program passes must not cycle).
    seen: HashSet<u64>,
    /// Verdicts of every candidate run so far, in any descent. An interesting one met again
    /// by a configuration pass (a budget lowered, then put back to its default when the bug
    /// turns out not to need it) is kept without a run.
    verdicts: HashMap<u64, bool>,
    out: Reduced,
    last_report: Instant,
    /// In the first descent, every best case at most half the size of the one before it
    /// (the input first): where later descents may start ([`CHECKPOINT`]).
    trail: Option<Vec<Case>>,
}

/// Once the reduction has run [`RESTART_RUNS`] candidates, a further descent starts from the
/// first case of the first descent's trail at most this many times the size that descent
/// ended at, not from the input: the cuts from a large input down to a few dozen instructions
/// were most of the time of an expensive reduction, and every order would make them again.
const CHECKPOINT: usize = 8;

/// Runs after which descents start from the checkpoint ([`CHECKPOINT`]) rather than the
/// input. A count, not a time, so a reduction stays reproducible; under it, restarting from
/// the input is cheap and finds smaller minima (gen-simd16-overlap seed 3: 10 instructions
/// from the checkpoint, 5 from the input, after 2,278 runs of a first descent; the slowest
/// reduction, gen-spill-slot-reuse seed 1, had run 8,038).
const RESTART_RUNS: usize = 5_000;

/// What one attempt did.
enum Step {
    Kept,
    Rejected,
    Stop,
}

impl Run<'_> {
    fn attempt(
        &mut self,
        pass: usize,
        name: &'static str,
        cand: Case,
        pred: &mut dyn IsInteresting,
    ) -> Step {
        if self.start.elapsed() > self.r.time_limit || self.out.runs >= self.r.max_runs {
            self.out.truncated = true;
            return Step::Stop;
        }
        // Deduplicated before verifying: a pass can propose the same invalid candidate again
        // after every kept one, and verifying it each time is most of the work.
        let hash = case_hash(&cand);
        if !self.seen.insert(hash) {
            self.out.duplicates += 1;
            // Only for configuration passes (a budget lowered, then put back to its default
            // when the bug does not need it), whose rounds are bounded; a program pass meeting
            // an earlier state again would go round in circles. Never the best itself.
            let config_pass = pass >= passes::PASSES.len();
            if config_pass
                && self.verdicts.get(&hash) == Some(&true)
                && hash != case_hash(&self.best)
            {
                self.record(&cand);
                self.best = cand;
                return Step::Kept;
            }
            return Step::Rejected;
        }
        // Only valid candidates have verdicts.
        let verified = match self.verdicts.contains_key(&hash) {
            true => Ok(()),
            false => verify::verify(&cand.program),
        };
        if let Err(e) = verified {
            if self.r.log_attempts {
                let first = e.to_string();
                eprintln!("reduce: try {name}: invalid: {first}");
            }
            self.out.invalid += 1;
            return Step::Rejected;
        }
        let size = cand.program.func.inst_count();
        let keep = match self.verdicts.get(&hash) {
            // Run by an earlier descent: its verdict stands (the predicate is deterministic).
            Some(&keep) => keep,
            None => {
                self.out.runs += 1;
                self.out.passes[pass].runs += 1;
                let keep = pred.is_interesting(&cand);
                self.verdicts.insert(hash, keep);
                keep
            }
        };
        if self.r.log_attempts {
            eprintln!(
                "reduce: try {name}: {size} insts -> {}",
                if keep { "kept" } else { "no" }
            );
        }
        if self.r.progress && self.last_report.elapsed() > Duration::from_secs(2) {
            eprintln!(
                "reduce: {} instructions ({name}), {} runs, {} kept, {:.1}s",
                self.best.program.func.inst_count(),
                self.out.runs,
                self.out.accepted,
                self.start.elapsed().as_secs_f64()
            );
            self.last_report = Instant::now();
        }
        if keep {
            self.record(&cand);
            self.best = cand;
            self.out.accepted += 1;
            self.out.passes[pass].accepted += 1;
            Step::Kept
        } else {
            Step::Rejected
        }
    }

    /// Adds a newly kept case to the trail if it halves the last one's size.
    fn record(&mut self, cand: &Case) {
        if let Some(trail) = &mut self.trail {
            if trail.last().is_none_or(|last| 2 * size(cand) <= size(last)) {
                trail.push(cand.clone());
            }
        }
    }

    /// Program passes to a fixpoint; returns whether anything was kept, `None` on a limit.
    fn program_fixpoint(&mut self, pred: &mut dyn IsInteresting) -> Option<bool> {
        let mut any = false;
        loop {
            let mut changed = false;
            for &name in self.order {
                if changed && passes::LATE.contains(&name) {
                    continue;
                }
                let (k, pass) = passes::by_name(name).expect("ORDERS names only PASSES");
                let mut index = 0;
                while let Some(candidate) = pass(&self.best.program, index) {
                    let Candidate::Try(q) = candidate else {
                        index += 1;
                        continue;
                    };
                    let cand = Case {
                        config: self.best.config.clone(),
                        program: *q,
                    };
                    match self.attempt(k, name, cand, pred) {
                        Step::Kept => changed = true,
                        Step::Rejected => index += 1,
                        Step::Stop => return None,
                    }
                }
            }
            if !changed {
                return Some(any);
            }
            any = true;
        }
    }

    /// Every single edit of the program passes that lost the bug is tried again under the
    /// other allocation settings ([`config::other_allocations`]: budgets a few registers
    /// either way, the allocators' other choices): an allocation bug needs one exact
    /// assignment, an edit moves every register, and the same bug often shows again a few
    /// registers away. Returns whether an edit was kept (at most one), `None` on a limit.
    fn edit_at_other_allocation(&mut self, pred: &mut dyn IsInteresting) -> Option<bool> {
        let settings = config::other_allocations(&self.best.config, self.r.scope());
        if settings.is_empty() {
            return Some(false);
        }
        let k = passes::PASSES.len() + config::CONFIG_PASSES.len();
        for &name in self.order {
            let (_, pass) = passes::by_name(name).expect("ORDERS names only PASSES");
            let mut index = 0;
            while let Some(candidate) = pass(&self.best.program, index) {
                index += 1;
                let Candidate::Try(q) = candidate else {
                    continue;
                };
                // Only edits that shrink the program: forty runs each buy no sideways moves.
                if q.func.inst_count() >= self.best.program.func.inst_count()
                    || verify::verify(&q).is_err()
                {
                    continue;
                }
                for config in &settings {
                    let cand = Case {
                        config: config.clone(),
                        program: (*q).clone(),
                    };
                    match self.attempt(k, EDIT_AT_OTHER_ALLOCATION, cand, pred) {
                        Step::Kept => return Some(true),
                        Step::Rejected => {}
                        Step::Stop => return None,
                    }
                }
            }
        }
        Some(false)
    }

    /// Each group of values [`widen::widen`] proposes, made wide, then the program passes and
    /// `lower-budget`; the first that ends smaller than the program was is kept (returns
    /// true), any other is undone. `None` on a limit (the best case met stays).
    fn widen(&mut self, pred: &mut dyn IsInteresting) -> Option<bool> {
        let k = passes::PASSES.len() + config::CONFIG_PASSES.len() + 1;
        let before = self.best.clone();
        let mut index = 0;
        while let Some(candidate) = widen::widen(&before.program, index) {
            index += 1;
            let Candidate::Try(q) = candidate else {
                continue;
            };
            let cand = Case {
                config: before.config.clone(),
                program: *q,
            };
            match self.attempt(k, WIDEN, cand, pred) {
                Step::Kept => {}
                Step::Rejected => continue,
                Step::Stop => return None,
            }
            let limited =
                self.program_fixpoint(pred).is_none() || self.config_fixpoint(pred, 0..1).is_none();
            if size(&self.best) < size(&before) {
                return if limited { None } else { Some(true) };
            }
            self.best = before.clone();
            if limited {
                return None;
            }
        }
        Some(false)
    }

    /// Configuration passes `which` (indices into [`config::CONFIG_PASSES`]), each to a
    /// fixpoint; returns whether anything was kept.
    fn config_fixpoint(
        &mut self,
        pred: &mut dyn IsInteresting,
        which: std::ops::Range<usize>,
    ) -> Option<bool> {
        let mut any = false;
        let base = passes::PASSES.len();
        for (k, &(name, pass)) in config::CONFIG_PASSES.iter().enumerate() {
            if !which.contains(&k) {
                continue;
            }
            let mut index = 0;
            while let Some(c) = pass(&self.best.config, index, self.r.scope()) {
                let Some(config) = c else {
                    index += 1;
                    continue;
                };
                let cand = Case {
                    config,
                    program: self.best.program.clone(),
                };
                match self.attempt(base + k, name, cand, pred) {
                    Step::Kept => any = true,
                    Step::Rejected => index += 1,
                    Step::Stop => return None,
                }
            }
        }
        Some(any)
    }
}

impl Reducer {
    /// Sets the wall-clock limit.
    pub fn time_limit(mut self, t: Duration) -> Self {
        self.time_limit = t;
        self
    }

    /// Lowers only the register budgets of `target` (a finding's pipeline).
    pub fn budgets_of(mut self, target: &str) -> Self {
        self.budget_target = Some(target.to_string());
        self
    }

    /// Lets Gen budgets go under the floor the case's allocation choices are sure to compile
    /// at ([`config::Floors::Any`]): the predicate must turn away what fails there only for
    /// want of registers.
    pub fn floors(mut self, floors: config::Floors) -> Self {
        self.floors = floors;
        self
    }

    /// The budgets the configuration passes may change.
    fn scope(&self) -> config::Scope<'_> {
        config::Scope {
            target: self.budget_target.as_deref(),
            floors: self.floors,
        }
    }

    /// Turns progress lines on or off.
    pub fn progress(mut self, on: bool) -> Self {
        self.progress = on;
        self
    }

    /// One greedy descent from `run.best` in `run.order`; returns whether a limit stopped it.
    fn descend(&self, run: &mut Run, pred: &mut dyn IsInteresting) -> bool {
        // Budgets down first (a smaller program must still spill), then the program to a
        // fixpoint and the budgets again, while they go down; then every configuration pass
        // (which also puts the budgets the bug does not need back to their defaults), and
        // the program again while the configuration shrinks.
        let budgets = 0..1;
        let others = 1..config::CONFIG_PASSES.len();
        if self.shrink_config && run.config_fixpoint(pred, budgets.clone()).is_none() {
            return true;
        }
        for _ in 0..6 {
            if run.program_fixpoint(pred).is_none() {
                return true;
            }
            if !self.shrink_config || run.config_fixpoint(pred, budgets.clone()) != Some(true) {
                break;
            }
        }
        for _ in 0..3 {
            if !self.shrink_config {
                break;
            }
            match run.config_fixpoint(pred, budgets.start..others.end) {
                Some(true) => {
                    if run.program_fixpoint(pred).is_none() {
                        return true;
                    }
                }
                Some(false) => break,
                None => return true,
            }
        }
        false
    }

    /// At the end of a descent, edits that need another allocation setting
    /// ([`Run::edit_at_other_allocation`]), each followed by the program passes and the
    /// budgets again, while one is kept; returns whether a limit stopped it. Sideways steps can
    /// grow the program before a later pass shrinks it: the smallest case met is kept.
    ///
    /// When no such edit is left, a group of values made wider ([`Run::widen`]) may take the
    /// place of several pressure values; then the edits again.
    fn sideways(&self, run: &mut Run, pred: &mut dyn IsInteresting) -> bool {
        let mut smallest = run.best.clone();
        let mut limited = false;
        while self.shrink_config && !limited {
            let step = match run.edit_at_other_allocation(pred) {
                Some(true) => {
                    // Then `lower-budget` (configuration pass 0) again.
                    limited = run.program_fixpoint(pred).is_none()
                        || run.config_fixpoint(pred, 0..1).is_none();
                    Some(true)
                }
                Some(false) => run.widen(pred),
                None => None,
            };
            if size(&run.best) < size(&smallest) {
                smallest = run.best.clone();
            }
            match step {
                Some(true) => {}
                Some(false) => break,
                None => limited = true,
            }
        }
        run.best = smallest;
        limited
    }

    /// Shrinks `case` while `pred` holds.
    pub fn reduce(&self, case: Case, pred: &mut dyn IsInteresting) -> Result<Reduced, ReduceError> {
        let start = Instant::now();
        if !pred.is_interesting(&case) {
            return Err(ReduceError::NotInteresting);
        }
        let empty = Case {
            config: case.config.clone(),
            program: empty_program(&case.program),
        };
        if pred.is_interesting(&empty) {
            return Err(ReduceError::EmptyIsInteresting);
        }
        let before = case.program.func.inst_count();
        let names = passes::PASSES
            .iter()
            .map(|p| p.0)
            .chain(config::CONFIG_PASSES.iter().map(|p| p.0))
            .chain([EDIT_AT_OTHER_ALLOCATION, WIDEN]);
        let mut run = Run {
            r: self,
            start,
            order: passes::ORDERS[0],
            seen: HashSet::new(),
            verdicts: HashMap::from([(case_hash(&case), true), (case_hash(&empty), false)]),
            best: case.clone(),
            out: Reduced {
                case: empty,
                before,
                after: before,
                runs: 0,
                accepted: 0,
                invalid: 0,
                duplicates: 0,
                passes: names
                    .map(|name| PassStats {
                        name,
                        ..PassStats::default()
                    })
                    .collect(),
                elapsed: Duration::ZERO,
                truncated: false,
            },
            last_report: Instant::now(),
            trail: Some(vec![case.clone()]),
        };
        // Greedy descents stop in local minima that depend on the order of the passes; each
        // further order starts again from the input, or after many runs from a checkpoint of
        // the first ([`RESTART_RUNS`]), reusing every verdict so far, while time remains, and
        // the smallest result wins.
        let mut smallest: Option<Case> = None;
        let mut checkpoint = case.clone();
        for &order in passes::ORDERS {
            run.order = order;
            let from = if run.out.runs < RESTART_RUNS {
                case.clone()
            } else {
                checkpoint.clone()
            };
            run.best = from.clone();
            run.seen = HashSet::from([case_hash(&from)]);
            let limited = self.descend(&mut run, pred) || self.sideways(&mut run, pred);
            if let Some(trail) = run.trail.take() {
                let end = size(&run.best);
                if let Some(c) = trail.into_iter().find(|c| size(c) <= CHECKPOINT * end) {
                    checkpoint = c;
                }
            }
            if self.progress {
                eprintln!(
                    "reduce: descent in order {} from {} ended at {} instructions, {} runs, \
                     {:.1}s",
                    passes::ORDERS.iter().position(|o| *o == order).unwrap_or(0),
                    size(&from),
                    size(&run.best),
                    run.out.runs,
                    start.elapsed().as_secs_f64()
                );
            }
            if smallest.as_ref().is_none_or(|s| size(&run.best) < size(s)) {
                smallest = Some(run.best.clone());
            }
            if limited {
                break;
            }
        }
        if let Some(best) = smallest {
            run.best = best;
        }
        let mut out = run.out;
        out.after = run.best.program.func.inst_count();
        out.case = run.best;
        out.elapsed = start.elapsed();
        Ok(out)
    }
}
