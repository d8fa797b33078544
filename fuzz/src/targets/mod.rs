//! The targets: every way of compiling and running a case that the oracle compares with the
//! interpreter. A target is one object ([`Target`]) that owns everything about itself: how it
//! compiles and runs a case and judges the results, what it shows of its code (`gpufuzz run
//! --emit`, reports), the case knobs it reads and the register budgets the reducer lowers, its
//! backend steps for bisection, its shader-db counters, and whether this machine can run it.
//! The rest of gpufuzz asks the target and never matches its name. A new target is one file
//! (a folder for a large one) and one line in [`all`], the one registry every `--target` flag
//! is checked against ([`select`]).

pub mod a6xx;
pub mod anv;
pub mod asahi;
pub mod driver;
#[cfg(any(test, feature = "toys"))]
mod fused_toy;
pub mod gen;
pub mod knob_values;
pub mod middle;
pub mod naga;
pub mod nvk;
pub mod radv;
pub mod sections;
pub mod shown;
pub mod steps;
mod target;
#[cfg(test)]
mod toy;
pub mod turnip;
pub mod vulkan;
pub mod work;

pub use shown::Shown;
pub use steps::{Budget, CheckedStep, OptionalStep, ReachCount, ReachGoal, Step, LOWER_BIT_OPS};
pub use target::{caused, compare, FusedOutcome, Target};

/// Every registered pipeline, in the order the oracle runs them.
pub fn all() -> &'static [&'static dyn Target] {
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
        &radv::Radv,
        &naga::Naga,
        &driver::compile_only::CompileOnly(&turnip::Turnip),
        &driver::compile_only::CompileOnly(&nvk::Nvk),
        &driver::compile_only::CompileOnly(&asahi::Asahi),
        #[cfg(test)]
        &toy::Reversed,
        #[cfg(any(test, feature = "toys"))]
        &fused_toy::FusedToy,
    ]
}

/// The registered pipeline called `name`.
pub fn by_name(name: &str) -> Option<&'static dyn Target> {
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
