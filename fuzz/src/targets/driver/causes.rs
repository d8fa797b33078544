//! The finding classes every real-driver target shares: what a failed run of its worker is.
//! A target's own classes (ACO's validators, naga's steps, brw's validator) are in its
//! folder's `causes.rs`.

use crate::cause::Cause;
use crate::finding::{Finding, FindingKind};
use crate::targets::caused;
use spirv_emit::EmitError;
use vulkan_runner::{crash_class, RunError};

/// `target`'s finding for a program our SPIR-V emitter failed on (our bug, class `emit`; a
/// construct it does not map is a skip before this, never a finding).
pub fn emit_failed(target: &str, e: &EmitError) -> Box<Finding> {
    caused(
        target,
        FindingKind::CompileError,
        e.to_string(),
        Cause::named("emit"),
    )
}

/// What a target asks of its driver, which decides how a dead worker is counted: a driver
/// that runs the shader dies in the dispatch as often as in the compile (`panic`), one that
/// only compiles dies in the compiler (`crash`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Asks {
    /// Compile and run (lavapipe).
    Run,
    /// Compile only (a driver over a drm-shim).
    Compile,
}

/// A failed run's kind and class: `timeout`, the crash's own class (its assertion, or the
/// signal and faulting frame), `pipeline` (the driver refused it), and the worker's own
/// failures.
pub fn of_run_error(e: &RunError, asks: Asks) -> (FindingKind, String) {
    let died = match asks {
        Asks::Run => FindingKind::Panic,
        Asks::Compile => FindingKind::Crash,
    };
    match (e, asks) {
        (RunError::Timeout(_), _) => (FindingKind::Timeout, "timeout".into()),
        (
            RunError::WorkerCrashed {
                status,
                stderr,
                stack,
            },
            _,
        ) => (died, crash_class(status, stderr, stack)),
        (RunError::PipelineCreation(_), _) => (FindingKind::CompileError, "pipeline".into()),
        (RunError::DeviceLost(_), Asks::Run) => (FindingKind::Panic, "device-lost".into()),
        // The device was there when the run started (the target's `available`): it went.
        (RunError::NoVulkan(_) | RunError::Unstartable(_), _) => {
            (FindingKind::Infrastructure, "worker".into())
        }
        (RunError::DeviceLost(_) | RunError::Failed(_), _) => {
            (FindingKind::CompileError, "runner".into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The classes the four targets gave these failures before they shared this table.
    #[test]
    fn classes_are_as_each_target_had_them() {
        let lost = RunError::DeviceLost("x".into());
        assert_eq!(
            of_run_error(&lost, Asks::Run),
            (FindingKind::Panic, "device-lost".into())
        );
        assert_eq!(of_run_error(&lost, Asks::Compile).1, "runner");
        let none = RunError::NoVulkan("x".into());
        assert_eq!(
            of_run_error(&none, Asks::Run).0,
            FindingKind::Infrastructure
        );
        let gone = RunError::Unstartable("x".into());
        assert_eq!(
            of_run_error(&gone, Asks::Compile).0,
            FindingKind::Infrastructure
        );
        let refused = RunError::PipelineCreation("x".into());
        assert_eq!(of_run_error(&refused, Asks::Compile).1, "pipeline");
        assert_eq!(
            of_run_error(&RunError::Failed("x".into()), Asks::Run).1,
            "runner"
        );
    }
}
