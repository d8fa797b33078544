//! The radv target's judgement of what the driver prints, through the real worker client with
//! a stand-in worker (a shell script speaking the protocol, since a module ACO's validator
//! rejects cannot be written on purpose), and the shim's GPU list read from the installed shim.

use super::*;
use crate::targets::driver::fake_worker::{fake_worker, program, Answer};

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

fn judged_by_fake(stderr: &str, answer: Answer) -> Result<Capture, Box<Finding>> {
    judged_on("navi21", stderr, answer)
}

fn judged_on(gpu: &str, stderr: &str, answer: Answer) -> Result<Capture, Box<Finding>> {
    let gpu: Gpu = gpu.parse().expect("a GPU of the table");
    let (mut w, dir) = fake_worker(stderr, answer);
    let verdict = judged(
        compile_with(&mut w, &program(), &gpu, Wave::W32),
        &gpu,
        Wave::W32,
    );
    drop(w);
    let _ = std::fs::remove_dir_all(dir);
    verdict
}

#[test]
fn an_allocation_validator_message_before_an_abort_is_an_ra_check_finding() {
    let f = judged_by_fake(RA_ERROR, Answer::Abort).unwrap_err();
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
    let f = judged_by_fake(IR_ERROR, Answer::Empty).unwrap_err();
    assert_eq!(f.kind, FindingKind::CompileError);
    assert_eq!(
        f.class.as_deref(),
        Some("aco Operand and Definition types do not match")
    );
    assert!(f.detail.contains("p_parallelcopy %3"), "{}", f.detail);
}

/// What `validateir` prints for the v_cndmask_b32 that ACO 25.0.7 gives two SGPRs on GFX6-9
/// (`docs/found-bugs/aco-gfx9-cndmask-two-sgprs.md`; seen on vega10).
const CNDMASK_ERROR: &str = "ACO ERROR:
    In file ../src/amd/compiler/aco_validate.cpp:70
    Too many SGPRs/literals:  v1: (SzInfNaNPreserve)%35 = v_cndmask_b32 1.0, %34, %33
";

#[test]
fn the_known_gfx6_to_9_cndmask_bug_is_its_own_bucket_only_on_those_generations() {
    let e = &aco_errors(CNDMASK_ERROR)[0];
    assert_eq!(e.opcode().as_deref(), Some("v_cndmask_b32"));
    assert_eq!(e.head(), "Too many SGPRs/literals");
    for (gpu, gfx, known) in [
        ("pitcairn", GfxLevel::Gfx6, true),
        ("vega10", GfxLevel::Gfx9, true),
        ("renoir", GfxLevel::Gfx9, true),
        ("navi10", GfxLevel::Gfx10, false),
        ("navi31", GfxLevel::Gfx11, false),
    ] {
        let f = judged_on(gpu, CNDMASK_ERROR, Answer::Empty).unwrap_err();
        let Some(AcoValidator { gfx: g, opcode, .. }) = f.cause.as_ref().and_then(AcoValidator::of)
        else {
            panic!("{f:?}")
        };
        assert_eq!((g, opcode.as_deref()), (Some(gfx), Some("v_cndmask_b32")));
        let class = f.class.as_deref().unwrap();
        if known {
            assert_eq!(class, "known-aco-gfx6-9-cndmask-two-sgprs", "{gpu}");
            assert!(f.detail.contains("known: ACO's"), "{}", f.detail);
        } else {
            // On GFX10+ the same words would be a new bug: ACO's own bucket.
            assert_eq!(class, "aco Too many SGPRs/literals", "{gpu}");
        }
    }
    // Another instruction with too many scalar operands on GFX9 is not the known bug.
    let other = CNDMASK_ERROR.replace("v_cndmask_b32", "v_fma_f32");
    let f = judged_on("vega10", &other, Answer::Empty).unwrap_err();
    assert_eq!(f.class.as_deref(), Some("aco Too many SGPRs/literals"));
}

#[test]
fn a_crash_a_fresh_worker_does_not_repeat_is_counted_not_reported() {
    let shim = "radv/amdgpu: Failed to allocate a buffer:\n   size      : 8388608 bytes\n   domains   : 4\n";
    let capture = judged_by_fake(shim, Answer::CrashOnce).expect("the fresh worker compiled");
    let why = capture.rejudged.expect("noted");
    assert!(why.contains("ran out of buffer space"), "{why}");
    assert_eq!(capture.executables.len(), 1);
    // A crash that comes back in the fresh worker is the finding.
    let f = judged_by_fake(shim, Answer::Abort).unwrap_err();
    assert_eq!(f.kind, FindingKind::Crash);
}

#[test]
fn a_quiet_compile_without_executables_and_a_plain_crash_are_findings_too() {
    let f = judged_by_fake("MESA: warning: nothing wrong\n", Answer::Empty).unwrap_err();
    assert_eq!(f.class.as_deref(), Some("no-executables"));
    let f = judged_by_fake(
        "radv: ../src/amd/vulkan/radv_shader.c:12: f: Assertion `x' failed.\n",
        Answer::Abort,
    )
    .unwrap_err();
    assert_eq!(f.kind, FindingKind::Crash);
    assert!(
        f.class.as_deref().unwrap().contains("Assertion `x' failed"),
        "{f:?}"
    );
}

#[test]
fn aco_errors_are_cut_from_the_rest_of_stderr() {
    let both = format!("MESA: info: hello\n{IR_ERROR}{RA_ERROR}");
    let errors = aco_errors(&both);
    assert_eq!(errors.len(), 2);
    assert_eq!(errors[0].at, "aco_validate.cpp:88");
    assert_eq!(errors[0].check(), AcoCheck::Ir);
    assert_eq!(errors[1].check(), AcoCheck::Ra);
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
fn the_drawn_gpus_are_a_fixed_table_and_the_shim_says_which_it_lacks() {
    let env = match environment() {
        Ok(env) => env,
        Err(why) => return vulkan_runner::client::unavailable(&format!("radv ({why})")),
    };
    let gpus = shim::gpus(&env.shim_file().unwrap()).unwrap();
    // The shim's amdgpu_devices.c, in its order: the first is the shim's default. Each
    // release adds and drops GPUs (26.2.6 has gfx1201 and strix1, no longer gfx1150).
    assert_eq!(gpus.first().map(String::as_str), Some("renoir"));
    let added: &[&str] = match crate::targets::driver::mesa::current().name.as_str() {
        "26.2.6" => &["gfx1201", "strix1"],
        "25.0.7" | "system" => &["gfx1150"],
        _ => &[],
    };
    let always = ["vega10", "navi10", "navi21", "navi31", "raphael_mendocino"];
    for &g in always.iter().chain(added) {
        assert!(gpus.iter().any(|x| x == g), "{g} not in {gpus:?}");
    }
    // Every GPU of the table is drawn, whatever the machine has.
    let drawn: std::collections::HashSet<Gpu> = (0..400u64)
        .map(|i| Gpu::draw(crate::rng::SplitMix64::for_input(i, 7).next_u64()))
        .collect();
    assert_eq!(drawn.len(), GPUS.len());
    // The newest shim is the table; an older one lacks some, which its runs skip.
    let missing: Vec<&str> = GPUS
        .into_iter()
        .filter(|g| !gpus.iter().any(|x| x == g))
        .collect();
    match crate::targets::driver::mesa::current().name.as_str() {
        "26.2.6" => assert_eq!(gpus, GPUS),
        "25.0.7" | "22.3.6" | "system" => assert_eq!(
            missing,
            [
                "navi33",
                "strix1",
                "gfx1201",
                "vega20",
                "rembrandt",
                "phoenix"
            ]
        ),
        _ => {}
    }
    for g in missing {
        let why = unsupported(&g.parse::<Gpu>().unwrap()).expect("not in this shim");
        assert!(why.contains("amdgpu shim"), "{why}");
    }
    assert_eq!(unsupported(&"navi21".parse::<Gpu>().unwrap()), None);
    // A name of no table is refused when read, the same on every machine.
    let e = "pitcairn2".parse::<Gpu>().unwrap_err();
    assert!(
        e.starts_with("unknown radv GPU \"pitcairn2\"; gpufuzz knows: renoir, "),
        "{e}"
    );
    assert!(e.ends_with("phoenix, gfx1150"), "{e}");
}
