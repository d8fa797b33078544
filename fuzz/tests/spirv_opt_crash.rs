//! A spirv-opt crash as triage writes it up reproduces with SPIRV-Tools alone: the saved
//! `.spirv-opt.sh` (the exact command) crashes spirv-opt on the saved module, and
//! spirv-reduce's reduction still crashes it under the saved interestingness test.
//!
//! The program is the `loop-peeling` SIGSEGV (docs/found-bugs/spirv-opt-loop-peeling-sigsegv.md):
//! live in SPIRV-Tools 2023.1 and 2026.4, so this runs on whichever the chosen Mesa has. When a
//! release fixes it, this test fails: move the write-up's row to "fixed" and pick another crash.
//! Needs SPIRV-Tools (the system's, or the chosen Mesa's root's).

use fuzz::targets::driver::spirv_opt::{self, Scratch};
use fuzz::targets::driver::standalone;
use std::process::Stdio;
use vulkan_runner::client::unavailable;

/// Triage's 4-instruction reduction of the first finding of a 120 s `vulkan` run (seed 7), as
/// written up.
const LOOP_PEELING: &str = include_str!("../../docs/found-bugs/spirv-opt-loop-peeling-sigsegv.ir");

/// `sh -c script` run by the SPIRV-Tools gpufuzz uses (inside the Mesa's root when it has
/// one): its status as a shell reports it.
fn shell(script: &str) -> i32 {
    let status = spirv_opt::tool("sh", &["-c".into(), script.into()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("sh runs");
    status.code().expect("sh exits")
}

#[test]
fn a_spirv_opt_crash_reproduces_from_the_saved_command_alone() {
    if !spirv_opt::installed() {
        return unavailable("spirv-opt (package spirv-tools, or scripts/mesa-sid.sh)");
    }
    // Emitted as for a device that preserves every float (the module differs from lavapipe's
    // only in its execution modes): SPIRV-Tools alone is under test here.
    let case = fuzz::case::text::parse_case(LOOP_PEELING, "loop_peeling.ir").unwrap();
    let module = spirv_emit::emit(&case.program, &spirv_emit::EmitOptions::default()).unwrap();
    let fails = match standalone::spirv_opt_fails(
        module.words,
        &fuzz::targets::driver::knobs::ModuleKnobs::of(&case).spirv_opt,
    ) {
        Some(Ok(f)) => f,
        Some(Err(e)) => panic!("{e}"),
        None => panic!(
            "{} no longer crashes on loop-peeling: the bug is fixed there (see the module doc)",
            spirv_opt::version().unwrap_or("spirv-opt")
        ),
    };
    assert!(fails.failure.crashed(), "{}", fails.failure);
    // Run again under gdb, it says where it crashed: its bucket.
    match &fails.failure.stack {
        Ok(stack) => {
            assert_eq!(stack.signal, "SIGSEGV");
            assert!(fails.failure.class().starts_with("spirv-opt SIGSEGV at "));
        }
        Err(why) if why.contains("apt-get install gdb") => unavailable("gdb"),
        Err(why) => panic!("no stack: {why}"),
    }
    let scratch = Scratch::new().unwrap();
    let dir = scratch.outside("");
    let files = fails.write(&dir, "bug").unwrap();
    assert!(files.iter().all(|f| f.starts_with(&dir)));
    let at = scratch.inside("");
    // The saved command, run where the files are, fails as gpufuzz saw.
    let status = shell(&format!("cd {at} && ./bug.spirv-opt.sh"));
    assert_eq!(status, fails.failure.shell_status(), "bug.spirv-opt.sh");
    // spirv-reduce made a smaller module that its test, and so the same command, still finds
    // crashing.
    let (reduced, _) = fails.reduced.as_ref().expect("spirv-reduce reduced it");
    assert!(reduced.words.len() < fails.before.len());
    assert_eq!(
        shell(&format!("cd {at} && ./bug.interesting.sh bug.reduced.spv")),
        0,
        "the reduction is interesting"
    );
    // The test is not trivially true: a module spirv-opt handles is not interesting.
    let fine = spirv_emit::emit(
        &compiler::ir::text::parse_program(
            "invocations 1\noutputs 1\n\nblock_0:\n  vec1 32 ssa_0 = load_const (0x00000001)\n  \
             store_output 0, ssa_0\n",
            "fine.ir",
        )
        .unwrap(),
        &spirv_emit::EmitOptions::default(),
    )
    .unwrap();
    std::fs::write(
        scratch.outside("fine.spv"),
        spirv_emit::binary::to_bytes(&fine.words),
    )
    .unwrap();
    assert_ne!(
        shell(&format!("cd {at} && ./bug.interesting.sh fine.spv")),
        0,
        "a module spirv-opt optimises is not interesting"
    );
}
