//! Compile-only jobs on anv over Mesa's drm-shim (scripts/mesa.sh prepares both): the pipeline
//! of a fixture compiles on a simulated Skylake and comes back with its executables, brw's
//! statistics and a "GEN Assembly" listing carrying each instruction's bytes.

use std::path::Path;
use std::process::Command;
use vulkan_runner::client::unavailable;
use vulkan_runner::{Binding, Job, Resource, RunError, Worker, WorkerCommand, WorkerOptions};

/// The anv environment scripts/mesa.sh wrote, or `None` (skipped locally, a failure in CI).
fn anv_options(platform: &str) -> Option<WorkerOptions> {
    let cache = std::env::var_os("GPUFUZZ_CACHE")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/gpufuzz")))?;
    let env_file = cache.join("mesa-25.0.7/anv.env");
    let Ok(text) = std::fs::read_to_string(&env_file) else {
        unavailable(&format!(
            "anv on drm-shim ({} missing: run scripts/mesa.sh)",
            env_file.display()
        ));
        return None;
    };
    let get = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
            .map(str::to_string)
    };
    let mut o = WorkerOptions::new(WorkerCommand {
        program: env!("CARGO_BIN_EXE_vk-worker").into(),
        args: Vec::new(),
    });
    o.icd = get("GPUFUZZ_ANV_ICD").map(Into::into);
    o.env = vec![
        ("LD_PRELOAD".into(), get("GPUFUZZ_ANV_SHIM")?.into()),
        ("INTEL_STUB_GPU_PLATFORM".into(), platform.into()),
        ("INTEL_DEBUG".into(), "hex".into()),
    ];
    Some(o)
}

fn assemble(name: &str) -> Vec<u32> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/shaders")
        .join(name);
    let output = Command::new("spirv-as")
        .args(["--target-env", "vulkan1.0", "-o", "-"])
        .arg(&src)
        .output()
        .expect("spirv-as (spirv-tools) runs");
    assert!(output.status.success(), "spirv-as {}", src.display());
    let bytes = output.stdout;
    bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

#[test]
fn a_pipeline_compiles_on_simulated_skylake_with_its_machine_code_captured() {
    let Some(options) = anv_options("skl") else {
        return;
    };
    let mut w = match Worker::start(options) {
        Ok(w) => w,
        Err(RunError::NoVulkan(why)) => panic!("anv on drm-shim did not open: {why}"),
        Err(e) => panic!("starting the worker: {e}"),
    };
    assert!(w.info().name.contains("Intel"), "{:?}", w.info());
    let job = Job {
        spirv: assemble("double.spvasm"),
        workgroups: [1, 1, 1],
        subgroup_size: None,
        // Every binding the shader uses: one it uses but the layout lacks is undefined
        // behaviour: anv then gave it an arbitrary binding-table index (`Surface = 150` or
        // `99` in about one compile of 40, 0 otherwise) and this test failed as if flaky.
        bindings: [0, 1]
            .map(|binding| Binding {
                binding,
                resource: Resource::Buffer(vec![0; 64]),
            })
            .into(),
    };
    let compiled = w.compile(&job).expect("the pipeline compiles");
    let x = &compiled.executables[0];
    assert!(matches!(x.subgroup_size, 8 | 16 | 32), "{x:?}");
    assert!(
        x.statistic("Instruction Count").is_some(),
        "{:?}",
        x.statistics
    );
    assert!(x.representation("Final NIR").is_some());
    let asm = x
        .representation("GEN Assembly")
        .expect("a GEN Assembly listing");
    // INTEL_DEBUG=hex: instruction lines start with their bytes, and SSBO access is a send.
    assert!(asm.lines().any(|l| l.starts_with("01 ")), "{asm}");
    assert!(asm.contains("send"), "{asm}");
    // The same module again is answered from anv's in-memory cache with the same code.
    let again = w.compile(&job).expect("the pipeline compiles again");
    assert_eq!(
        again.executables[0].representation("GEN Assembly"),
        Some(asm)
    );
}
