//! The targets: every way of compiling and running a case that the oracle compares with the
//! interpreter. A target is one object ([`Pipeline`]) that owns everything about itself: how it
//! compiles and runs a case and judges the results, what it shows of its code (`gpufuzz run
//! --emit`, reports), the case knobs it reads and the register budgets the reducer lowers, its
//! backend steps for bisection, its shader-db counters, and whether this machine can run it.
//! The rest of gpufuzz asks the target and never matches its name. A new target is one file
//! (a folder for a large one) and one line in [`all`], the one registry every `--target` flag
//! is checked against ([`select`]).

pub mod a6xx;
pub mod anv;
pub mod gen;
pub mod middle;
pub mod shown;
pub mod spirv_opt;
pub mod steps;
#[cfg(test)]
mod toy;
pub mod vulkan;
pub mod work;

use crate::finding::{Finding, FindingKind};
use crate::oracle::{Case, Coverage, OracleOptions};
use compiler::ir::Program;
pub use shown::Shown;
use sim::dispatch::Results;
pub use steps::{Budget, CheckedStep, OptionalStep, ReachCount, ReachGoal, Step};

/// One target: a way of compiling and running a program, and everything gpufuzz knows about it.
pub trait Pipeline: Sync {
    /// Short name used in findings, `--target` and reports.
    fn name(&self) -> &'static str;

    /// The compiler this target is one configuration of: a bug blamed on one of its backend
    /// steps is one bug on every target of the family (`gen8` and `gen16` are `gen`).
    /// Default: the target's own name.
    fn family(&self) -> &'static str {
        self.name()
    }

    /// One line for `--target` errors and help: what the pipeline compiles for.
    fn description(&self) -> &'static str;

    /// Whether a run without `--target` includes it (opt-in targets, e.g. ones that need a
    /// device, say no and run only when named or with `--target all`).
    fn in_default_set(&self) -> bool {
        true
    }

    /// Whether this machine can run it; the error says what is missing.
    fn available(&self) -> Result<(), String> {
        Ok(())
    }

    /// Opens what it runs on under `opts` before any work (a device named on the command
    /// line); a line to print about it (which device), or the usage error saying what is
    /// missing. Default: nothing to open.
    fn prepare(&self, opts: &OracleOptions) -> Result<Option<String>, String> {
        let _ = opts;
        Ok(None)
    }

    /// Compiles `optimised` (the case's program after the middle end) and runs it; notes
    /// what it exercised in `coverage`.
    fn run(
        &self,
        case: &Case,
        optimised: &Program,
        opts: &OracleOptions,
        coverage: &mut Coverage,
    ) -> Result<Results, Box<Finding>>;

    /// What this pipeline runs on under `opts`, as `(key, value)` pairs recorded with every
    /// finding (`finding.json`'s `environment`), so that triage and repro can re-judge it
    /// where it was found and name both places when it does not reproduce. Default: nothing.
    fn environment(&self, _opts: &OracleOptions) -> Vec<(String, String)> {
        Vec::new()
    }

    /// Why this pipeline cannot judge `case` at all (a known limit of the target, not a
    /// bug), if so; the oracle counts the skip in the run's statistics. Default: never.
    fn skip(&self, _case: &Case, _opts: &OracleOptions, _coverage: &Coverage) -> Option<String> {
        None
    }

    /// The first difference between the interpreter's results and the pipeline's that is a
    /// bug. Default: any differing word.
    fn compare(
        &self,
        case: &Case,
        optimised: &Program,
        opts: &OracleOptions,
        expected: &Results,
        actual: &Results,
    ) -> Option<Finding> {
        let _ = (optimised, opts);
        crate::oracle::compare(self.name(), case, expected, actual)
    }

    /// What it makes of `optimised` for a person (`gpufuzz run --target`): its options, with
    /// `asm` the code itself (disassembly, SPIR-V), what its checks say, and the outputs.
    fn show(
        &self,
        case: &Case,
        opts: &OracleOptions,
        optimised: &Program,
        asm: bool,
    ) -> Result<Shown, String>;

    /// The code a report shows beside the `.ir`, headed by what the target's checks say of it
    /// (they name the instruction); `first_output` is the output slot of the first
    /// difference, for a target that can point at it. Default: nothing.
    fn listing(
        &self,
        case: &Case,
        opts: &OracleOptions,
        optimised: &Program,
        first_output: Option<u32>,
    ) -> Option<String> {
        let _ = (case, opts, optimised, first_output);
        None
    }

    /// The [`CaseConfig`](crate::oracle::CaseConfig) knobs it reads (`--config` keys of
    /// `gpufuzz stats`, the knobs the reducer varies for its findings).
    fn knobs(&self) -> &'static [&'static str] {
        &[]
    }

    /// The register budgets the reducer lowers for its findings.
    fn budgets(&self) -> &'static [Budget] {
        &[]
    }

    /// Its backend steps, in order, for bisection to blame (after the middle end's passes).
    fn steps(&self) -> &'static [Step] {
        &[]
    }

    /// The fixed backend step the check that caught `f` names, if any.
    fn checked_step(&self, f: &Finding) -> Option<CheckedStep> {
        let _ = f;
        None
    }

    /// The optional backend steps bisection blames by switching them off.
    fn optional_steps(&self) -> &'static [OptionalStep] {
        &[]
    }

    /// Whether bisection tries switching the optional steps off before asking
    /// [`checked_step`](Pipeline::checked_step) (when the check alone cannot clear them).
    fn switch_first(&self, f: &Finding) -> bool {
        let _ = f;
        false
    }

    /// The shares of its cases that should reach into its allocators' code, with their goals
    /// (the fuzz summary and `gpufuzz stats --reach` print them).
    fn reach_goals(&self) -> &'static [ReachGoal] {
        &[]
    }

    /// The shader-db style counters `gpufuzz stats` records for it, in report order; `None`:
    /// no statistics.
    fn measurements(&self) -> Option<&'static [&'static str]> {
        None
    }

    /// The counters of `case.program` (already through the middle end) compiled with
    /// `case.config`: [`measurements`](Pipeline::measurements) and any extra named ones.
    fn record(&self, case: &Case) -> Result<Vec<(String, u64)>, String> {
        let _ = case;
        Err(format!("target {} has no statistics", self.name()))
    }
}

/// Every registered pipeline, in the order the oracle runs them.
pub fn all() -> &'static [&'static dyn Pipeline] {
    &[
        &middle::Middle,
        &gen::Gen {
            width: sim::gen::ExecSize::S8,
        },
        &gen::Gen {
            width: sim::gen::ExecSize::S16,
        },
        &a6xx::A6xx,
        &vulkan::Vulkan,
        &anv::Anv,
        #[cfg(test)]
        &toy::Reversed,
    ]
}

/// The registered pipeline called `name`.
pub fn by_name(name: &str) -> Option<&'static dyn Pipeline> {
    all().iter().copied().find(|p| p.name() == name)
}

/// Every target name with its description, one per line (for errors and help).
pub fn describe_all() -> String {
    all()
        .iter()
        .map(|p| {
            let opt_in = if p.in_default_set() { "" } else { " (opt-in)" };
            format!("  {:<8} {}{opt_in}", p.name(), p.description())
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Checks `--target` names against the registry: every name must be a registered target (or
/// `all`, which adds every target, the opt-in ones included) and available on this machine.
/// Returns the names to run, in registry order; an empty list of names selects the default set.
pub fn select(names: &[String]) -> Result<Vec<&'static str>, String> {
    for n in names {
        if n != "all" && by_name(n).is_none() {
            return Err(format!(
                "unknown target {n:?}; targets are (or `all`):\n{}",
                describe_all()
            ));
        }
    }
    let everything = names.iter().any(|n| n == "all");
    let mut chosen = Vec::new();
    for p in all() {
        let named = names.iter().any(|n| n == p.name());
        let wanted = named || everything || (names.is_empty() && p.in_default_set());
        if !wanted {
            continue;
        }
        match p.available() {
            Ok(()) => chosen.push(p.name()),
            // A target the user named must run; `all` and the default set skip what the
            // machine lacks, and say so.
            Err(why) if named => {
                return Err(format!("target {} is not available: {why}", p.name()))
            }
            Err(why) => eprintln!("note: target {} skipped: {why}", p.name()),
        }
    }
    Ok(chosen)
}

/// A bucketing class from a value's `Debug` form: its variant names, without the numbers
/// and fields that differ from one occurrence to the next (`ReadTooEarly(Slots { needed: 3,
/// had: 1 })` → `ReadTooEarly Slots`).
pub fn class_of(value: &impl std::fmt::Debug) -> String {
    let debug = format!("{value:?}");
    let head = debug.split('{').next().unwrap_or_default();
    head.split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty() && !w.chars().all(|c| c.is_ascii_digit()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A finding of `target` with its bucketing class.
pub fn classified(target: &str, kind: FindingKind, detail: String, class: String) -> Box<Finding> {
    let mut f = Finding::new(kind, target, detail);
    f.class = Some(class);
    Box::new(f)
}
