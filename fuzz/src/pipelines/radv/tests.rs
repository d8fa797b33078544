//! The radv target's judgement of what the driver prints, through the real worker client with
//! a stand-in worker (a shell script speaking the protocol, since a module ACO's validator
//! rejects cannot be written on purpose), and the shim's GPU list read from the installed shim.

use super::*;
use vulkan_runner::wire::{write_frame, Request, Response, END_OF_ANSWER};
use vulkan_runner::DeviceInfo;

/// What `validatera` prints before it aborts (`aco_validate.cpp`: `_aco_err` and
/// `validate_ra`'s report), then the start of ACO's print of the program.
const RA_ERROR: &str = "ACO ERROR:
    In file ../src/amd/compiler/aco_validate.cpp:1160
    RA error found at instruction in BB2:
    v1: %41:v[3] = v_add_u32 %38:v[3], %40:v[5]
    Assignment of element 0 of %41 already taken by %12 in BB1:
    v1: %12:v[3] = v_mov_b32 0
BB0
/* logical preds: / linear preds: / kind: top-level, */
";

/// What `validateir` prints (and a release build carries on after).
const IR_ERROR: &str = "ACO ERROR:
    In file ../src/amd/compiler/aco_validate.cpp:88
    Operand and Definition types do not match: v1: %7 = p_parallelcopy %3
";

/// A generated program the SPIR-V emitter takes.
fn program() -> Program {
    let mut bytes = Vec::new();
    (0..)
        .find_map(|i| {
            crate::rng::input_bytes(36, i, 256, 1024, &mut bytes);
            let p = crate::case::decode(&bytes)?.program;
            spirv_emit::emit(&p, &Default::default())
                .is_ok()
                .then_some(p)
        })
        .expect("some program emits")
}

/// A stand-in worker that opens a fake device and, on the compile request, prints `stderr`
/// and then answers with an empty capture (`abort`: kills itself with SIGABRT instead).
fn fake_worker(stderr: &str, abort: bool) -> Worker {
    let dir = std::env::temp_dir().join(format!("radv-fake-{}-{abort}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let frame = |r: Response| {
        let mut b = Vec::new();
        write_frame(&mut b, &r.encode()).unwrap();
        b
    };
    let info = DeviceInfo {
        name: "AMD Radeon RX 6800 (RADV NAVI21)".into(),
        driver_name: "radv".into(),
        driver_info: "Mesa 25.0.7".into(),
        api_version: "1.4.305".into(),
        ..DeviceInfo::default()
    };
    std::fs::write(dir.join("opened"), frame(Response::Opened(info))).unwrap();
    std::fs::write(
        dir.join("compiled"),
        frame(Response::Compiled(Compiled::default())),
    )
    .unwrap();
    std::fs::write(dir.join("stderr"), stderr).unwrap();
    let open_len = 4 + Request::Open(0).encode().len();
    let answer = if abort {
        "kill -ABRT $$".to_string()
    } else {
        format!("printf '%s\\n' '{END_OF_ANSWER}' >&2; cat compiled; cat >/dev/null")
    };
    // The client sends the compile request only after reading the open answer, so `head`
    // cannot read past the open request.
    let script = format!(
        "cd {dir:?} && head -c {open_len} >/dev/null && printf '%s\\n' '{END_OF_ANSWER}' >&2 && \
         cat opened && head -c 1 >/dev/null && cat stderr >&2 && {answer}"
    );
    let mut o = WorkerOptions::new(WorkerCommand {
        program: "/bin/sh".into(),
        args: vec!["-c".into(), script.into()],
    });
    o.compile_timeout = Duration::from_secs(10);
    Worker::start(o).expect("the stand-in worker opens its device")
}

fn judged_by_fake(stderr: &str, abort: bool) -> Result<Capture, Box<Finding>> {
    let gpu = Gpu("navi21".into());
    let mut w = fake_worker(stderr, abort);
    judged(
        compile_with(&mut w, &program(), &gpu, Wave::W32),
        &gpu,
        Wave::W32,
    )
}

#[test]
fn an_allocation_validator_message_before_an_abort_is_an_ra_check_finding() {
    let f = judged_by_fake(RA_ERROR, true).unwrap_err();
    assert_eq!(f.kind, FindingKind::RaCheck);
    assert_eq!(
        f.class.as_deref(),
        Some("aco RA error found at instruction in BBN")
    );
    assert!(f.detail.contains("aco_validate.cpp:1160"), "{}", f.detail);
    assert!(f.detail.contains("already taken by %12"), "{}", f.detail);
    assert!(f.detail.contains("radv navi21, wave32"), "{}", f.detail);
}

#[test]
fn an_ir_validator_message_of_a_finished_compile_is_a_finding() {
    let f = judged_by_fake(IR_ERROR, false).unwrap_err();
    assert_eq!(f.kind, FindingKind::CompileError);
    assert_eq!(
        f.class.as_deref(),
        Some("aco Operand and Definition types do not match")
    );
    assert!(f.detail.contains("p_parallelcopy %3"), "{}", f.detail);
}

#[test]
fn a_quiet_compile_without_executables_and_a_plain_crash_are_findings_too() {
    let f = judged_by_fake("MESA: warning: nothing wrong\n", false).unwrap_err();
    assert_eq!(f.class.as_deref(), Some("no-executables"));
    let f = judged_by_fake(
        "radv: ../src/amd/vulkan/radv_shader.c:12: f: Assertion `x' failed.\n",
        true,
    )
    .unwrap_err();
    assert_eq!(f.kind, FindingKind::Crash);
    assert!(f.class.as_deref().unwrap().contains("Assertion `x' failed"));
}

#[test]
fn aco_errors_are_cut_from_the_rest_of_stderr() {
    let both = format!("MESA: info: hello\n{IR_ERROR}{RA_ERROR}");
    let errors = aco_errors(&both);
    assert_eq!(errors.len(), 2);
    assert_eq!(errors[0].at, "aco_validate.cpp:88");
    assert!(!errors[0].is_ra());
    assert!(errors[1].is_ra());
    // The program print after the message is not part of it.
    assert!(!errors[1].message.contains("BB0"), "{}", errors[1].message);
    assert!(aco_errors("ACO WARNING: slow\n").is_empty());
}

#[test]
fn knobs_round_trip_through_their_text() {
    for w in [Wave::W64, Wave::W32] {
        assert_eq!(w.to_string().parse::<Wave>().unwrap(), w);
    }
    assert!("16".parse::<Wave>().is_err());
    assert!("Navi 21".parse::<Gpu>().is_err());
}

#[test]
fn the_gpu_list_is_read_from_the_installed_shim() {
    let env = match environment() {
        Ok(env) => env,
        Err(why) => return vulkan_runner::client::unavailable(&format!("radv ({why})")),
    };
    let gpus = shim::gpus(&env.shim).unwrap();
    // Mesa 25.0.7's amdgpu_devices.c, in its order: the first is the shim's default.
    assert_eq!(gpus.first().map(String::as_str), Some("renoir"));
    for g in [
        "vega10",
        "navi10",
        "navi21",
        "navi31",
        "raphael_mendocino",
        "gfx1150",
    ] {
        assert!(gpus.iter().any(|x| x == g), "{g} not in {gpus:?}");
    }
    // Every GPU the shim knows is drawn.
    let drawn: std::collections::HashSet<Gpu> = (0..400u64)
        .map(|i| Gpu::draw(crate::rng::SplitMix64::for_input(i, 7).next_u64()))
        .collect();
    assert_eq!(drawn.len(), gpus.len());
    assert_eq!(
        "pitcairn2".parse::<Gpu>().unwrap_err(),
        format!(
            "unknown radv GPU \"pitcairn2\"; the shim knows: {}",
            gpus.join(", ")
        )
    );
}
