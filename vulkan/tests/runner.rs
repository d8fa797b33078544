//! The runner on a real device (lavapipe in CI): a buffer round trip, every texel of a mipped
//! array image read back exactly through `texelFetch` and nearest sampling, a hung shader
//! turned into a timeout with the worker restarted for the next job, a crashing worker
//! reported with its signal, a bad device index and a bad job refused with a reason.

use std::path::Path;
use std::process::Command;
use std::time::Duration;
use vulkan_runner::client::unavailable;
use vulkan_runner::{
    Binding, Image, Job, Resource, RunError, Worker, WorkerCommand, WorkerOptions,
};

fn options() -> WorkerOptions {
    WorkerOptions::new(WorkerCommand {
        program: env!("CARGO_BIN_EXE_vk-worker").into(),
        args: Vec::new(),
    })
}

/// A worker on device 0, or `None` (skipped locally, a failure under CI).
fn worker(options: WorkerOptions) -> Option<Worker> {
    match Worker::start(options) {
        Ok(w) => Some(w),
        Err(RunError::NoVulkan(why)) => {
            unavailable(&format!("a Vulkan device ({why})"));
            None
        }
        Err(e) => panic!("starting the worker: {e}"),
    }
}

/// Assembles a fixture with `spirv-as` (from spirv-tools), or `None` if it is missing.
fn assemble(name: &str) -> Option<Vec<u32>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/shaders")
        .join(name);
    // To stdout: tests run in parallel and assemble the same file, so a shared temporary
    // path raced (one test removed it while another was reading it).
    let output = Command::new("spirv-as")
        .args(["--target-env", "vulkan1.0", "-o", "-"])
        .arg(&src)
        .output();
    let bytes = match output {
        Ok(o) if o.status.success() => o.stdout,
        Ok(o) => panic!(
            "spirv-as {}: {}: {}",
            src.display(),
            o.status,
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => {
            unavailable(&format!("spirv-as from spirv-tools ({e})"));
            return None;
        }
    };
    Some(
        bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
    )
}

fn buffer(binding: u32, words: Vec<u32>) -> Binding {
    Binding {
        binding,
        resource: Resource::Buffer(words),
    }
}

#[test]
fn a_buffer_comes_back_doubled_and_buffers_are_reused_across_sizes() {
    let (Some(spirv), Some(mut w)) = (assemble("double.spvasm"), worker(options())) else {
        return;
    };
    let info = w.info().clone();
    assert!(!info.name.is_empty(), "{info:?}");
    eprintln!("device: {}", info.describe());
    // Growing, then shrinking: the second and third jobs reuse the first one's buffers.
    for groups in [2u32, 64, 1] {
        let n = groups * 4;
        let words: Vec<u32> = (0..n).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
        let job = Job {
            spirv: spirv.clone(),
            workgroups: [groups, 1, 1],
            subgroup_size: None,
            bindings: vec![
                buffer(0, words.clone()),
                buffer(1, vec![0xdead; n as usize]),
            ],
        };
        let out = w.run(&job).expect("the job runs");
        let doubled: Vec<u32> = words.iter().map(|x| x.wrapping_mul(2)).collect();
        assert_eq!(out.buffers, vec![doubled, (0..n).collect::<Vec<_>>()]);
    }
    assert_eq!(w.restarts(), 0);
}

#[test]
fn every_texel_of_a_mipped_array_image_reads_back_exactly() {
    let (Some(spirv), Some(mut w)) = (assemble("image.spvasm"), worker(options())) else {
        return;
    };
    let mut img = Image {
        width: 5,
        height: 3,
        levels: 3,
        layers: 2,
        texels: Vec::new(),
    };
    // Distinct words that include NaN and denormal float patterns, which must not be touched.
    let len = img.words_len();
    img.texels = (0..len as u32)
        .map(|i| match i % 5 {
            0 => 0x7fc0_0000 | i,
            1 => i,
            _ => i.wrapping_mul(0x8525_4d1b) ^ 0xa5a5_0000,
        })
        .collect();
    let job = Job {
        spirv,
        workgroups: [1, 1, 1],
        subgroup_size: None,
        bindings: vec![
            buffer(0, vec![0; len]),
            Binding {
                binding: 1,
                resource: Resource::Image(img.clone()),
            },
            buffer(2, vec![0; len]),
        ],
    };
    let out = w.run(&job).expect("the job runs");
    assert_eq!(out.buffers[0], img.texels, "texelFetch");
    assert_eq!(out.buffers[1], img.texels, "textureLod at texel centres");
}

#[test]
fn a_hung_shader_times_out_and_the_next_job_runs_on_a_new_worker() {
    let (Some(hang), Some(double)) = (assemble("hang.spvasm"), assemble("double.spvasm")) else {
        return;
    };
    let mut opts = options();
    opts.dispatch_timeout = Duration::from_millis(300);
    let Some(mut w) = worker(opts) else {
        return;
    };
    let job = Job {
        spirv: hang.clone(),
        workgroups: [4096, 1, 1],
        subgroup_size: None,
        bindings: vec![buffer(0, vec![60_000, 1])],
    };
    match w.run(&job) {
        Err(RunError::Timeout(t)) => assert_eq!(t, Duration::from_millis(300)),
        other => panic!("expected a timeout, got {other:?}"),
    }
    // The same shader with a small trip count finishes: the loop itself is fine.
    let quick = Job {
        workgroups: [2, 1, 1],
        subgroup_size: None,
        bindings: vec![buffer(0, vec![3, 1])],
        ..job
    };
    // (With a generous limit: lavapipe compiles at the first dispatch, slow on a busy machine.)
    let out = w
        .run_within(&quick, Duration::from_secs(20))
        .expect("a short loop finishes");
    assert_eq!(out.buffers[0], vec![3, 1 + 3 * 16 * 128]);
    assert_eq!(w.restarts(), 1);
    let job = Job {
        spirv: double,
        workgroups: [1, 1, 1],
        subgroup_size: None,
        bindings: vec![buffer(0, vec![1, 2, 3, 4]), buffer(1, vec![0; 4])],
    };
    let out = w.run_within(&job, Duration::from_secs(20)).expect("runs");
    assert_eq!(out.buffers[0], vec![2, 4, 6, 8]);
}

/// A worker that dies before it opens its device tested nothing: `Unstartable`, with its
/// signal, its stderr and (gdb permitting) its stack in the message.
#[test]
fn a_worker_dying_at_start_is_unstartable_with_its_signal() {
    // A stand-in worker that crashes on start: the client's crash path, without a driver.
    let mut opts = WorkerOptions::new(WorkerCommand {
        program: "/bin/sh".into(),
        args: vec![
            "-c".into(),
            "echo 'LLVM ERROR: out of luck' >&2; kill -SEGV $$".into(),
        ],
    });
    opts.compile_timeout = Duration::from_secs(10);
    match Worker::start(opts) {
        Err(RunError::Unstartable(why)) => {
            assert!(why.contains("before opening its device"), "{why}");
            assert!(why.contains("signal 11 (SIGSEGV)"), "{why}");
            assert!(why.contains("LLVM ERROR: out of luck"), "{why}");
            // The same request crashes it again under gdb, which says where.
            if !why.contains("under gdb") {
                assert!(why.contains("gdb"), "no stack and no reason: {why}");
                unavailable("gdb");
            }
        }
        Err(e) => panic!("expected an unstartable worker, got {e}"),
        Ok(_) => panic!("expected a crash, the worker started"),
    }
}

#[test]
fn a_missing_device_and_a_malformed_job_are_refused_with_reasons() {
    let mut opts = options();
    opts.device = 99;
    match Worker::start(opts) {
        Err(RunError::NoVulkan(why)) => {
            assert!(why.contains("99") || why.contains("apt-get"), "{why}");
        }
        Err(e) => panic!("expected NoVulkan, got {e}"),
        Ok(_) => panic!("device 99 opened"),
    }
    let (Some(spirv), Some(mut w)) = (assemble("double.spvasm"), worker(options())) else {
        return;
    };
    let bad = Job {
        spirv,
        workgroups: [1, 1, 1],
        subgroup_size: None,
        bindings: vec![Binding {
            binding: 1,
            resource: Resource::Image(Image {
                width: 2,
                height: 2,
                levels: 1,
                layers: 1,
                texels: vec![0; 3],
            }),
        }],
    };
    match w.run(&bad) {
        Err(RunError::Failed(why)) => assert!(why.contains("3 texel words"), "{why}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    let garbage = Job {
        spirv: vec![0x0723_0203, 0x0001_0000, 0, 5, 0],
        workgroups: [1, 1, 1],
        subgroup_size: None,
        bindings: Vec::new(),
    };
    // A module with no entry point: the driver refuses it or crashes; either is reported.
    let e = w.run(&garbage).expect_err("no entry point");
    eprintln!("garbage module: {e}");
}

#[test]
fn lavapipe_stops_a_shader_after_65535_loop_iterations() {
    let (Some(spirv), Some(mut w)) = (assemble("limiter.spvasm"), worker(options())) else {
        return;
    };
    let job = |n: u32| Job {
        spirv: spirv.clone(),
        workgroups: [1, 1, 1],
        subgroup_size: None,
        bindings: vec![buffer(0, vec![n, 0])],
    };
    let small = w.run(&job(200)).expect("runs").buffers[0][1];
    assert_eq!(small, 200 * 200, "below the limit every iteration runs");
    let big = w.run(&job(1000)).expect("runs").buffers[0][1];
    eprintln!("1000² atomics on {}: {big}", w.info().describe());
    // Mesa 22.3.6's gallivm limits loops; 25.0.7's lavapipe (bookworm-backports) runs all
    // 10^6 iterations.
    if w.info().driver_name == "llvmpipe" && w.info().driver_info.starts_with("Mesa 22.") {
        // The limit counts back-edges of all loops together, outer ones included.
        assert!((64_000..=65_535).contains(&big), "{big}");
    } else {
        assert_eq!(big, 1_000_000);
    }
}

/// OpSMod on the device for `(a, b)` pairs.
fn smod_on_device(w: &mut Worker, spirv: &[u32], pairs: &[(i32, i32)]) -> Vec<i32> {
    let words = pairs
        .iter()
        .flat_map(|&(a, b)| [a as u32, b as u32])
        .collect();
    let job = Job {
        spirv: spirv.to_vec(),
        workgroups: [pairs.len() as u32, 1, 1],
        subgroup_size: None,
        bindings: vec![buffer(0, words), buffer(1, vec![0; pairs.len()])],
    };
    let out = w.run(&job).expect("runs");
    out.buffers[1].iter().map(|&x| x as i32).collect()
}

#[test]
fn lavapipe_gives_opsmod_the_sign_of_the_dividend() {
    // The bug gpufuzz's `vulkan` target found first (docs/found-bugs/): Mesa's gallivm
    // lowers NIR `imod` like `irem`, so OpSMod of operands with different signs keeps the
    // dividend's sign. Pinned here so a driver that fixes it (or a new one that has it)
    // shows up.
    let (Some(spirv), Some(mut w)) = (assemble("smod.spvasm"), worker(options())) else {
        return;
    };
    let pairs: [(i32, i32); 6] = [(1, -3), (-1, 3), (7, -2), (-7, -2), (6, -3), (5, 3)];
    // The remainder with the divisor's sign, as the SPIR-V spec defines OpSMod.
    let spec: Vec<i32> = pairs
        .iter()
        .map(|&(a, b)| {
            let r = a % b;
            if r != 0 && (r < 0) != (b < 0) {
                r + b
            } else {
                r
            }
        })
        .collect();
    assert_eq!(spec, vec![-2, 2, -1, -1, 0, 2]);
    let got = smod_on_device(&mut w, &spirv, &pairs);
    let info = w.info();
    eprintln!("OpSMod on {}: {got:?}, spec {spec:?}", info.describe());
    // Checked on Mesa 22.3.6 (bookworm) and 25.0.7 (bookworm-backports, installed by
    // scripts/mesa-backports.sh): both still have it.
    let checked = ["Mesa 22.3.6", "Mesa 25.0.7"];
    if info.driver_name == "llvmpipe" && checked.iter().any(|v| info.driver_info.starts_with(v)) {
        let srem: Vec<i32> = pairs.iter().map(|&(a, b)| a % b).collect();
        assert_eq!(
            got,
            srem,
            "{} behaves differently than when this was written",
            info.describe()
        );
    } else {
        assert_eq!(got, spec, "{}", info.describe());
    }
}

/// A worker whose executable appears only after the first start attempts failed starts on a
/// later attempt; one that never appears is `Unstartable` after every attempt.
#[test]
fn a_start_that_fails_is_retried_and_a_lasting_failure_is_unstartable() {
    let dir = std::env::temp_dir().join(format!("gpufuzz-late-worker-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let late = dir.join("vk-worker");
    let mut opts = options();
    opts.command.program = dir.join("never-there");
    match Worker::start(opts.clone()) {
        Err(RunError::Unstartable(why)) => assert!(why.contains("never-there"), "{why}"),
        Err(e) => panic!("a missing worker: {e}"),
        Ok(_) => panic!("a missing worker started"),
    }
    opts.command.program = late.clone();
    let placed = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(120));
        std::fs::copy(env!("CARGO_BIN_EXE_vk-worker"), &late).unwrap();
    });
    let started = worker(opts);
    placed.join().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    if let Some(w) = started {
        assert_eq!(w.restarts(), 0);
    }
}
