//! The pipelines the oracle compares with the interpreter. Each compiles a case its own way,
//! runs it, and returns the results (or a finding: a verifier failure after a pass, a compiler
//! error, a hazard, an allocation-checker error, a timeout). A new target registers here and
//! nowhere else: [`all`] is the one registry of targets every `--target` flag is checked
//! against ([`select`]), with each target's description, whether it is in the default set and
//! whether this machine can run it.

pub mod a6xx;
pub mod anv;
pub mod gen;
pub mod middle;
pub mod spirv_opt;
pub mod vulkan;
pub mod work;

use crate::finding::{Finding, FindingKind};
use crate::oracle::{Case, Coverage, OracleOptions};
use compiler::ir::Program;
use sim::dispatch::Results;

/// One way of compiling and running a program.
pub trait Pipeline: Sync {
    /// Short name used in findings, `--target` and reports.
    fn name(&self) -> &'static str;

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
