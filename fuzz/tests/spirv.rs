//! The SPIR-V emitter on every program shape the fuzzer makes: each `corpus/regressions/*.ir`
//! and 300 generated programs emit modules `spirv-val` accepts — straight from the generator
//! (what `--target vulkan` can hand the driver unoptimised), after the middle end, and in
//! register form after out-of-SSA (phis become `load_reg`/`store_reg`).
//!
//! On a Vulkan device (lavapipe in CI) the regressions, a program per semantic guard and
//! generated programs run and agree with the interpreter on every exact word.

use compiler::ir::{text, Program};
use compiler::passes::pipeline::{run_pipeline, to_registers, PassConfig, PipelineOptions};
use fuzz::{oracle, rng};
use spirv_emit::{emit, EmitError, EmitOptions};
use std::path::Path;
use std::time::Duration;
use vulkan_runner::client::unavailable;
use vulkan_runner::device::Device;
use vulkan_runner::RunError;

/// The three forms of a program the emitter must take.
fn forms(p: &Program) -> Vec<(&'static str, Program)> {
    let mut optimised = p.clone();
    let mut opts = PipelineOptions {
        verify: true,
        ..Default::default()
    };
    run_pipeline(&mut optimised, &mut opts).expect("the middle end runs");
    let mut registers = optimised.clone();
    to_registers(&mut registers, true, &PassConfig::default()).expect("out-of-SSA runs");
    vec![
        ("raw", p.clone()),
        ("optimised", optimised),
        ("registers", registers),
    ]
}

/// `spirv-val` of the newest SPIRV-Tools installed (the chosen Mesa's, `--mesa`'s default:
/// the sid root's 2026.4 where `scripts/mesa-sid.sh` made one, as in CI), which knows every
/// execution mode the emitter writes.
fn newest_spirv_val(words: &[u32]) -> Result<(), spirv_emit::validate::ValidateError> {
    spirv_emit::validate::spirv_val_by(
        fuzz::targets::driver::spirv_opt::tool("spirv-val", &[]),
        words,
    )
}

/// Emits and validates every form of `p`; returns how many were emitted. On failure the
/// program is written to `target/spirv-failures/NAME.ir` first.
fn check(name: &str, p: &Program) -> usize {
    let mut emitted = 0;
    for (form, p) in forms(p) {
        let failure = match emit(&p, &EmitOptions::default()) {
            Ok(m) => match newest_spirv_val(&m.words) {
                Ok(()) => None,
                Err(e) if e.predates_maximal_reconvergence() => {
                    eprintln!("{name} ({form}): not validated: {e}");
                    None
                }
                Err(e) => Some(format!(
                    "{e}\n{}",
                    spirv_emit::disassemble(&m.words).unwrap_or_default()
                )),
            },
            Err(e @ EmitError::Unsupported(_)) => {
                eprintln!("{name} ({form}): {e}");
                None
            }
            Err(e) => Some(e.to_string()),
        };
        if let Some(msg) = failure {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/spirv-failures");
            std::fs::create_dir_all(&dir).unwrap();
            let file = dir.join(format!("{name}-{form}.ir"));
            std::fs::write(&file, text::print_program(&p)).unwrap();
            panic!("{name} ({form}, saved to {}): {msg}", file.display());
        }
        emitted += 1;
    }
    emitted
}

fn regressions() -> Vec<(String, Program)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/regressions");
    let files = text::ir_files(&dir).unwrap();
    assert!(!files.is_empty());
    files
        .iter()
        .map(|path| {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let src = std::fs::read_to_string(path).unwrap();
            let program = text::parse_program(&src, &name).unwrap_or_else(|e| panic!("{e}"));
            (name, program)
        })
        .collect()
}

#[test]
fn regressions_emit_valid_modules() {
    for (name, program) in regressions() {
        assert_eq!(check(&name, &program), 3, "{name}: a form was not emitted");
    }
}

#[test]
fn generated_programs_emit_valid_modules() {
    let mut buf = Vec::new();
    let mut emitted = 0;
    // `SPIRV_VALID_PROGRAMS=3000` for a measurement (each program in three forms).
    let count = std::env::var("SPIRV_VALID_PROGRAMS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300u64);
    for i in 0..count {
        rng::input_bytes(0x5b1e, i, 16, 2048, &mut buf);
        let Some(case) = oracle::decode(&buf) else {
            continue;
        };
        emitted += check(&format!("seed-0x5b1e-{i}"), &case.program);
    }
    let forms = 3 * count as usize;
    assert!(
        emitted * 100 >= forms * 97,
        "only {emitted} of {forms} forms emitted"
    );
}

/// Bit fields past the word, the empty field, every bit search's "no bit" case and the
/// carries and high words at the ends of the range, each against the interpreter on a
/// device: the emitter's clamps keep `OpBitField[SU]Extract` in range, and the rest map
/// one to one.
#[test]
fn bit_ops_give_our_result_on_a_device() {
    let Some(mut device) = device() else { return };
    let triples: [[u32; 3]; 8] = [
        [0xabcd_1234, 8, 8],
        [0xabcd_1234, 28, 9],
        [0xabcd_1234, 40, 3],
        [0xffff_ffff, 3, 0],
        [0x8000_0000, 0, 32],
        [0, u32::MAX, u32::MAX],
        [u32::MAX, 31, 33],
        [0x0000_f00d, 33, 1],
    ];
    let uniforms: Vec<String> = triples
        .iter()
        .flatten()
        .map(|w| format!("{w:#x}"))
        .collect();
    let ops = [
        "ubitfield_extract ssa_3, ssa_4, ssa_5",
        "ibitfield_extract ssa_3, ssa_4, ssa_5",
        "bit_count ssa_3",
        "bitfield_reverse ssa_3",
        "find_lsb ssa_3",
        "ufind_msb ssa_3",
        "ifind_msb ssa_3",
        "umul_high ssa_3, ssa_4",
        "imul_high ssa_3, ssa_5",
        "uadd_carry ssa_3, ssa_4",
        "usub_borrow ssa_4, ssa_5",
    ];
    let mut text = format!(
        "invocations 8\noutputs {}\nuniforms {}\n\nblock_0:\n  \
         vec1 32 ssa_0 = load_invocation_id\n  vec1 32 ssa_1 = load_const (3)\n  \
         vec1 32 ssa_2 = imul ssa_0, ssa_1\n  vec1 32 ssa_3 = load_uniform ssa_2\n  \
         vec1 32 ssa_6 = load_const (1)\n  vec1 32 ssa_7 = iadd ssa_2, ssa_6\n  \
         vec1 32 ssa_4 = load_uniform ssa_7\n  vec1 32 ssa_8 = iadd ssa_7, ssa_6\n  \
         vec1 32 ssa_5 = load_uniform ssa_8\n",
        ops.len(),
        uniforms.join(" ")
    );
    for (k, op) in ops.iter().enumerate() {
        text += &format!(
            "  vec1 32 ssa_{} = {op}\n  store_output {k}, ssa_{}\n",
            20 + k,
            20 + k
        );
    }
    let p = text::parse_program(&text, "bit_ops").unwrap_or_else(|e| panic!("{e}\n{text}"));
    if let Some(d) = differs_on_device(&mut device, &p) {
        panic!("the device differs from the interpreter: {d}\n{text}");
    }
}

/// Device 0, or `None` (skipped locally, a failure under CI).
fn device() -> Option<Device> {
    match Device::open(0) {
        Ok(d) => Some(d),
        Err(RunError::NoVulkan(why)) => {
            unavailable(&format!("a Vulkan device ({why})"));
            None
        }
        Err(e) => panic!("opening device 0: {e}"),
    }
}

/// Emits `p`, runs it on `device` and returns the first exact word that differs from the
/// interpreter's results, as text.
fn differs_on_device(device: &mut Device, p: &Program) -> Option<String> {
    let expected = compiler::interp::run(p, &Default::default()).expect("the interpreter runs");
    let fc = &device.info().float_controls;
    let options = EmitOptions {
        preserve_nan_inf: fc.signed_zero_inf_nan_preserve,
        preserve_denormals: fc.denorm_preserve,
        round_to_nearest_even: fc.rounding_mode_rte,
        ..EmitOptions::default()
    };
    if device.info().driver_info.starts_with("Mesa 22.") && p.sized_ints().1 {
        // lavapipe 22.3.6 computes a 64-bit remainder wrongly, fixed by 25.0.7 on the same
        // LLVM (docs/found-bugs/lavapipe-22-int64-mod.md): not judged there.
        eprintln!("not run: 64-bit integers on Mesa 22");
        return None;
    }
    let m = emit(p, &options).expect("the program emits");
    if let Some(needs) = m.interface.subgroups {
        if let Some(why) = device
            .info()
            .subgroups
            .refusal(needs.size, needs.operations)
        {
            eprintln!("not run: the device lacks subgroups: {why}");
            return None;
        }
    }
    let job = fuzz::targets::driver::module::job(&m);
    let out = device
        .run(&job, Duration::from_secs(5))
        .unwrap_or_else(|e| panic!("running the job: {e}"));
    let actual = m
        .interface
        .results(&p.dispatch, &out.buffers)
        .expect("the read-back words fit the interface");
    // Exact words bit for bit, the words one inexact op makes within its Vulkan bound.
    let plan = spirv_emit::comparison(p, &options);
    plan.first_difference(&expected, &actual, &p.dispatch)
        .map(|(d, bound)| format!("{d:?} {}", bound.unwrap_or_default()))
}

/// The share of output words derived from float ops that the `vulkan` target compares, before
/// the precision bounds (only words nothing inexact feeds) and after (also the words one
/// inexact op makes), over generated programs in every form, for lavapipe's float controls
/// (NaNs preserved, denormals maybe flushed) and for a device that preserves both.
#[test]
fn the_precision_bounds_compare_float_words_that_were_skipped() {
    let mut buf = Vec::new();
    for (device, options) in [
        (
            "lavapipe-like",
            EmitOptions {
                preserve_denormals: false,
                ..EmitOptions::default()
            },
        ),
        ("preserving", EmitOptions::default()),
    ] {
        let (mut float_words, mut exact, mut bounded) = (0u64, 0u64, 0u64);
        // Bounded words are rare where denormals may flush (a few dozen in 150,000 float
        // words), so the sample is large enough to hold some.
        for i in 0..1000 {
            rng::input_bytes(0xf10a7, i, 16, 2048, &mut buf);
            let Some(case) = oracle::decode(&buf) else {
                continue;
            };
            if compiler::interp::run(&case.program, &Default::default()).is_err() {
                continue;
            }
            for (_, p) in forms(&case.program) {
                let inv = u64::from(p.dispatch.invocations);
                // Float-derived: inexact when every float op counts as inexact.
                let floats = spirv_emit::inexact_words(&p, false);
                let plan = spirv_emit::comparison(&p, &options);
                for (j, &is_float) in floats.outputs.iter().enumerate() {
                    if !is_float {
                        continue;
                    }
                    float_words += inv;
                    match plan.slots[j] {
                        spirv_emit::SlotRule::Exact => exact += inv,
                        spirv_emit::SlotRule::Bounded { .. } => bounded += inv,
                        spirv_emit::SlotRule::Skipped(_) => {}
                    }
                }
            }
        }
        let share = |n: u64| 100.0 * n as f64 / float_words.max(1) as f64;
        eprintln!(
            "{device}: {float_words} float-derived output words; compared before {exact} \
             ({:.1}%), after {} ({:.1}%)",
            share(exact),
            exact + bounded,
            share(exact + bounded)
        );
        assert!(bounded > 0, "{device}: no word compared within a bound");
    }
}

#[test]
fn regressions_agree_with_the_interpreter_on_a_device() {
    let Some(mut device) = device() else { return };
    for (name, program) in regressions() {
        for (form, p) in forms(&program) {
            if let Some(d) = differs_on_device(&mut device, &p) {
                panic!("{name} ({form}) on {}: {d}", device.info().describe());
            }
        }
    }
}

/// One program per guard: each output is an op on uniforms (so no compiler can fold it)
/// where SPIR-V alone would be undefined or would differ from our rule.
const GUARDS: &str = "
invocations 2
outputs 30
uniforms 0x00000000 0x80000000 0xffffffff 0x00000021 0x7f800001 0x4f800000 0xcf800000 0x80000000 0x00000007 0x3f800000 0xff800001 0x00800000

block_0:
  vec1 32 ssa_0 = load_const (0x00000000)
  vec1 32 ssa_1 = load_const (0x00000001)
  vec1 32 ssa_2 = load_const (0x00000002)
  vec1 32 ssa_3 = load_const (0x00000003)
  vec1 32 ssa_4 = load_const (0x00000004)
  vec1 32 ssa_5 = load_const (0x00000005)
  vec1 32 ssa_6 = load_const (0x00000006)
  vec1 32 ssa_7 = load_const (0x00000007)
  vec1 32 ssa_8 = load_const (0x00000008)
  vec1 32 ssa_9 = load_const (0x00000009)
  vec1 32 ssa_10 = load_const (0x0000000a)
  vec1 32 ssa_11 = load_const (0x0000000b)
  vec1 32 ssa_20 = load_uniform ssa_0
  vec1 32 ssa_21 = load_uniform ssa_1
  vec1 32 ssa_22 = load_uniform ssa_2
  vec1 32 ssa_23 = load_uniform ssa_3
  vec1 32 ssa_24 = load_uniform ssa_4
  vec1 32 ssa_25 = load_uniform ssa_5
  vec1 32 ssa_26 = load_uniform ssa_6
  vec1 32 ssa_27 = load_uniform ssa_7
  vec1 32 ssa_28 = load_uniform ssa_8
  vec1 32 ssa_29 = load_uniform ssa_9
  vec1 32 ssa_30 = load_uniform ssa_10
  vec1 32 ssa_31 = load_uniform ssa_11
  vec1 32 ssa_40 = udiv ssa_28, ssa_20
  store_output 0, ssa_40
  vec1 32 ssa_41 = umod ssa_28, ssa_20
  store_output 1, ssa_41
  vec1 32 ssa_42 = idiv ssa_28, ssa_20
  store_output 2, ssa_42
  vec1 32 ssa_43 = irem ssa_28, ssa_20
  store_output 3, ssa_43
  vec1 32 ssa_44 = imod ssa_28, ssa_20
  store_output 4, ssa_44
  vec1 32 ssa_45 = idiv ssa_21, ssa_22
  store_output 5, ssa_45
  vec1 32 ssa_46 = irem ssa_21, ssa_22
  store_output 6, ssa_46
  vec1 32 ssa_47 = imod ssa_21, ssa_22
  store_output 7, ssa_47
  vec1 32 ssa_48 = ishl ssa_28, ssa_23
  store_output 8, ssa_48
  vec1 32 ssa_49 = ishr ssa_21, ssa_23
  store_output 9, ssa_49
  vec1 32 ssa_50 = ushr ssa_21, ssa_23
  store_output 10, ssa_50
  vec1 32 ssa_51 = f2i ssa_25
  store_output 11, ssa_51
  vec1 32 ssa_52 = f2i ssa_26
  store_output 12, ssa_52
  vec1 32 ssa_53 = f2i ssa_24
  store_output 13, ssa_53
  vec1 32 ssa_54 = f2u ssa_25
  store_output 14, ssa_54
  vec1 32 ssa_55 = f2u ssa_26
  store_output 15, ssa_55
  vec1 32 ssa_56 = f2u ssa_24
  store_output 16, ssa_56
  vec1 32 ssa_57 = fmin ssa_24, ssa_29
  store_output 17, ssa_57
  vec1 32 ssa_58 = fmax ssa_29, ssa_24
  store_output 18, ssa_58
  vec1 32 ssa_59 = fmin ssa_20, ssa_27
  store_output 19, ssa_59
  vec1 32 ssa_60 = fmax ssa_27, ssa_20
  store_output 20, ssa_60
  vec1 32 ssa_61 = fmin ssa_24, ssa_30
  store_output 21, ssa_61
  vec1 32 ssa_62 = fadd ssa_24, ssa_29
  store_output 22, ssa_62
  vec1 32 ssa_63 = iabs ssa_21
  store_output 23, ssa_63
  vec1 32 ssa_64 = fneg ssa_30
  store_output 24, ssa_64
  vec1 32 ssa_65 = fabs ssa_30
  store_output 25, ssa_65
  vec1 32 ssa_66 = fmul ssa_31, ssa_31
  store_output 26, ssa_66
  vec1 32 ssa_67 = fsub ssa_24, ssa_24
  store_output 27, ssa_67
  vec1 1 ssa_68 = fne ssa_24, ssa_24
  vec1 32 ssa_69 = b2i ssa_68
  store_output 28, ssa_69
  vec1 1 ssa_70 = flt ssa_24, ssa_29
  vec1 32 ssa_71 = b2f ssa_70
  store_output 29, ssa_71
";

#[test]
fn every_guard_gives_our_result_on_a_device() {
    let p = text::parse_program(GUARDS, "guards").unwrap_or_else(|e| panic!("{e}"));
    let expected = compiler::interp::run(&p, &Default::default()).unwrap();
    // The answers docs/semantics.md promises, so the test checks the interpreter too.
    let want: [u32; 30] = [
        u32::MAX,
        7,
        u32::MAX,
        7,
        7, // by zero
        0x8000_0000,
        0,
        0, // INT_MIN / -1
        14,
        0xc000_0000,
        0x4000_0000, // shifts by 33
        i32::MAX as u32,
        i32::MIN as u32,
        0,
        u32::MAX,
        0,
        0, // f2i, f2u
        0x3f80_0000,
        0x3f80_0000,
        0x8000_0000,
        0,
        0x7fc0_0000, // fmin, fmax
        0x7fc0_0000,
        0x8000_0000,
        0x7f80_0001,
        0x7f80_0001, // NaN, iabs, fneg, fabs
        0,
        0x7fc0_0000,
        1,
        0, // denormal product flushes to +0? no: 2^-252 underflows to 0
    ];
    assert_eq!(&expected.outputs[..30], &want);
    assert!(spirv_emit::inexact_words(&p, true).is_none());
    let Some(mut device) = device() else { return };
    if let Some(d) = differs_on_device(&mut device, &p) {
        panic!("on {}: {d}", device.info().describe());
    }
}

/// Signed pairs whose remainders Vulkan leaves undefined as `OpSRem`/`OpSMod` (a negative
/// operand, without `maintenance8`), with the edges: zero, -1, `INT_MIN`, `INT_MAX`.
const SIGNED_PAIRS: [(i32, i32); 16] = [
    (-7, 3),
    (7, -3),
    (-7, -3),
    (7, 3),
    (-6, 3),
    (6, -3),
    (1, -3),
    (-21, 27),
    (i32::MIN, -1),
    (i32::MIN, 3),
    (i32::MIN, i32::MIN),
    (i32::MAX, i32::MIN),
    (-5, 0),
    (0, -5),
    (i32::MIN, i32::MAX),
    (-1, i32::MIN),
];

/// One invocation per pair of [`SIGNED_PAIRS`]: `irem` and `imod` of it, and a `txf` at the
/// pair as (x, y) of a 5×3 texture, whose wrapping divides negative coordinates too.
fn signed_remainders_program() -> Program {
    let uniforms: Vec<String> = SIGNED_PAIRS
        .iter()
        .flat_map(|&(a, b)| [a, b])
        .map(|x| format!("0x{:08x}", x as u32))
        .collect();
    let src = format!(
        "invocations {}\noutputs 6\nuniforms {}\ntexture 5x3 levels 1 layers 1\n\nblock_0:\n  \
         vec1 32 ssa_0 = load_invocation_id\n  \
         vec1 32 ssa_1 = load_const (0x00000002)\n  \
         vec1 32 ssa_2 = imul ssa_0, ssa_1\n  \
         vec1 32 ssa_3 = load_const (0x00000001)\n  \
         vec1 32 ssa_4 = iadd ssa_2, ssa_3\n  \
         vec1 32 ssa_5 = load_uniform ssa_2\n  \
         vec1 32 ssa_6 = load_uniform ssa_4\n  \
         vec1 32 ssa_7 = irem ssa_5, ssa_6\n  \
         store_output 0, ssa_7\n  \
         vec1 32 ssa_8 = imod ssa_5, ssa_6\n  \
         store_output 1, ssa_8\n  \
         vec2 32 ssa_9 = vec2 ssa_5, ssa_6\n  \
         vec4 32 ssa_10 = txf 0, ssa_9\n  \
         store_output 2, ssa_10\n",
        SIGNED_PAIRS.len(),
        uniforms.join(" "),
    );
    text::parse_program(&src, "signed-remainders").unwrap_or_else(|e| panic!("{e}"))
}

/// `irem`/`imod` and texel wrapping of negative operands: the module has no `OpSRem`/`OpSMod`
/// (undefined there in Vulkan without `maintenance8`), the interpreter gives the answers
/// `sim::semantics` defines, and a device agrees. Before the guard the emitter wrote both
/// instructions raw, and lavapipe's `OpSMod` kept the dividend's sign.
#[test]
fn signed_remainders_of_negative_operands_are_computed_from_magnitudes() {
    let p = signed_remainders_program();
    let expected = compiler::interp::run(&p, &Default::default()).unwrap();
    for (i, &(a, b)) in SIGNED_PAIRS.iter().enumerate() {
        let (a, b) = (a as u32, b as u32);
        let got = &expected.outputs[i * 6..i * 6 + 2];
        let want = [sim::semantics::irem(a, b), sim::semantics::imod(a, b)];
        assert_eq!(got, want, "pair {i}");
    }
    assert_eq!(expected.outputs[..2], [(-1i32) as u32, 2], "-7 rem/mod 3");
    for (form, p) in forms(&p) {
        let m = emit(&p, &EmitOptions::default()).unwrap();
        let text = spirv_emit::disassemble(&m.words).unwrap();
        assert!(
            !text.contains("OpSRem") && !text.contains("OpSMod"),
            "{form}:\n{text}"
        );
    }
    assert_eq!(check("signed-remainders", &p), 3);
    let Some(mut device) = device() else { return };
    for (form, p) in forms(&p) {
        if let Some(d) = differs_on_device(&mut device, &p) {
            panic!("{form} on {}: {d}", device.info().describe());
        }
    }
}

#[test]
fn generated_programs_agree_with_the_interpreter_on_a_device() {
    let Some(mut device) = device() else { return };
    let mut buf = Vec::new();
    let mut run = 0;
    let seed = std::env::var("SPIRV_DEVICE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x7a5e);
    let count = std::env::var("SPIRV_DEVICE_PROGRAMS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(120);
    for i in 0..count {
        rng::input_bytes(seed, i, 16, 2048, &mut buf);
        let Some(case) = oracle::decode(&buf) else {
            continue;
        };
        if compiler::interp::run(&case.program, &Default::default()).is_err() {
            continue;
        }
        for (form, p) in forms(&case.program) {
            // Shapes the emitter does not map: the Vulkan pipeline skips these programs.
            if matches!(
                emit(&p, &EmitOptions::default()),
                Err(EmitError::Unsupported(_))
            ) {
                continue;
            }
            if let Some(d) = differs_on_device(&mut device, &p) {
                let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/spirv-failures");
                std::fs::create_dir_all(&dir).unwrap();
                let file = dir.join(format!("device-{seed}-{i}-{form}.ir"));
                std::fs::write(&file, text::print_program(&p)).unwrap();
                panic!("{} ({form}): {d}", file.display());
            }
            run += 1;
        }
    }
    assert!(run >= count * 2, "only {run} programs ran");
}

/// Control-flow and memory shapes the generator makes rarely: an `if` whose sides both jump
/// (an unreachable merge block), a loop that never goes round (an unreachable continue
/// block), breaks out of nested `if`s into a merge with several predecessors, vector and
/// boolean phis, and a local struct reached through a dynamic index and a cast.
const SHAPES: &[(&str, &str)] = &[
    (
        "both_sides_jump",
        "invocations 4\noutputs 1\n\nblock_0:\n  vec1 32 ssa_0 = load_invocation_id\n  \
         vec1 32 ssa_1 = load_const (0x00000001)\n  vec1 32 ssa_2 = load_const (0x00000000)\n\
         loop {\n  block_1:\n    vec1 32 ssa_3 = phi block_0: ssa_2, block_3: ssa_5, block_4: ssa_5\n    \
         vec1 32 ssa_5 = iadd ssa_3, ssa_1\n    vec1 1 ssa_4 = uge ssa_3, ssa_0\n  \
         if ssa_4 {\n    block_2:\n      break\n  } else {\n    block_3:\n      continue\n  }\n  \
         block_4:\n    vec1 32 ssa_6 = iadd ssa_3, ssa_3\n}\nblock_5:\n  store_output 0, ssa_3\n",
    ),
    (
        "never_goes_round",
        "invocations 2\noutputs 1\n\nblock_0:\n  vec1 32 ssa_0 = load_invocation_id\n\
         loop {\n  block_1:\n    vec1 32 ssa_1 = iadd ssa_0, ssa_0\n    break\n}\n\
         block_2:\n  store_output 0, ssa_1\n",
    ),
    (
        "breaks_from_nested_ifs",
        "invocations 6\noutputs 2\n\nblock_0:\n  vec1 32 ssa_0 = load_invocation_id\n  \
         vec1 32 ssa_1 = load_const (0x00000001)\n  vec1 32 ssa_2 = load_const (0x00000003)\n  \
         vec2 32 ssa_9 = load_const (0x00000007, 0x00000009)\n\
         loop {\n  block_1:\n    vec1 32 ssa_3 = phi block_0: ssa_0, block_7: ssa_4\n    \
         vec2 32 ssa_10 = phi block_0: ssa_9, block_7: ssa_11\n    \
         vec1 32 ssa_4 = iadd ssa_3, ssa_1\n    vec2 32 ssa_11 = mov ssa_10.yx\n    \
         vec1 1 ssa_5 = uge ssa_3, ssa_2\n  if ssa_5 {\n    block_2:\n      \
         vec1 1 ssa_6 = ieq ssa_3, ssa_2\n    if ssa_6 {\n      block_3:\n        break\n    \
         } else {\n      block_4:\n        break\n    }\n    block_5:\n  } else {\n    \
         block_6:\n  }\n  block_7:\n}\nblock_8:\n  \
         vec1 1 ssa_7 = phi block_3: ssa_6, block_4: ssa_6\n  \
         vec1 32 ssa_8 = b2i ssa_7\n  store_output 0, ssa_8\n  store_output 1, ssa_10\n",
    ),
    (
        "local_struct_dynamic_index_and_cast",
        "invocations 5\noutputs 3\nvar_0: struct { vec1[3], vec2[4] }\n\nblock_0:\n  \
         vec1 32 ssa_0 = load_invocation_id\n  deref ssa_1 = deref_var var_0\n  \
         deref ssa_2 = deref_struct ssa_1.1\n  deref ssa_3 = deref_array ssa_2[ssa_0]\n  \
         vec2 32 ssa_4 = vec2 ssa_0, ssa_0\n  store_deref ssa_3, ssa_4\n  \
         deref ssa_5 = deref_cast (vec3) ssa_1\n  vec3 32 ssa_6 = load_deref ssa_5\n  \
         store_output 0, ssa_6\n  deref ssa_7 = deref_struct ssa_1.0\n  \
         deref ssa_8 = deref_array ssa_7[ssa_0]\n  vec1 32 ssa_9 = load_deref ssa_8\n  \
         store_output 2, ssa_9\n",
    ),
    (
        "texture_shapes",
        "invocations 12\noutputs 28\ntexture 8x4 levels 3 layers 2\ntexture 5x7 levels 2 layers 6\n\n\
         block_0:\n  vec1 32 ssa_0 = load_invocation_id\n  vec1 32 ssa_1 = u2f ssa_0\n  \
         vec1 32 ssa_2 = load_const (0x3e051eb8)\n  vec1 32 ssa_3 = fmul ssa_1, ssa_2\n  \
         vec1 32 ssa_4 = load_const (0xbecccccd)\n  vec1 32 ssa_5 = fadd ssa_3, ssa_4\n  \
         vec1 32 ssa_6 = load_const (0x3e570a3d)\n  vec1 32 ssa_7 = fmul ssa_1, ssa_6\n  \
         vec1 32 ssa_8 = load_const (0x3e99999a)\n  vec1 32 ssa_9 = fmul ssa_1, ssa_8\n  \
         vec3 32 ssa_10 = vec3 ssa_5, ssa_7, ssa_9\n  vec2 32 ssa_11 = vec2 ssa_5, ssa_7\n  \
         vec1 32 ssa_12 = load_const (0xfffffffd)\n  vec1 32 ssa_13 = iadd ssa_0, ssa_12\n  \
         vec1 32 ssa_14 = load_const (0x00000002)\n  vec1 32 ssa_15 = ushr ssa_0, ssa_14\n  \
         vec1 32 ssa_16 = load_const (0x41000000)\n  vec1 32 ssa_17 = fmul ssa_1, ssa_16\n  \
         vec4 32 ssa_18 = txf 0, ssa_13, dim 1d, lod ssa_15, layer ssa_0, offset (-3)\n  \
         store_output 0, ssa_18\n  \
         vec4 32 ssa_19 = tex 1, ssa_10, dim 3d, lod ssa_1, offset (1, -8, 7)\n  \
         store_output 4, ssa_19\n  \
         vec4 32 ssa_20 = tex 0, ssa_11, bias ssa_9, layer ssa_1, compare ssa_17, offset (2, -1)\n  \
         vec2 32 ssa_21 = mov ssa_20.xw\n  store_output 8, ssa_21\n  \
         vec4 32 ssa_22 = txs 1, dim 3d, lod ssa_15\n  store_output 10, ssa_22\n  \
         vec4 32 ssa_23 = txs 0, dim 1d, lod ssa_13\n  vec2 32 ssa_24 = mov ssa_23.xw\n  \
         store_output 14, ssa_24\n  \
         vec4 32 ssa_25 = tex 0, ssa_11, layer ssa_1, offset (-2, 3), gather 2\n  \
         store_output 16, ssa_25\n  \
         vec4 32 ssa_26 = tex 1, ssa_11, compare ssa_17, gather 0\n  store_output 20, ssa_26\n  \
         vec2 32 ssa_27 = vec2 ssa_9, ssa_3\n  \
         vec4 32 ssa_28 = tex 0, ssa_11, layer ssa_1, ddx ssa_27, ddy ssa_11, offset (1, 0)\n  \
         store_output 24, ssa_28\n",
    ),
];

#[test]
fn rare_shapes_emit_valid_modules_and_agree_on_a_device() {
    let programs: Vec<(&str, Program)> = SHAPES
        .iter()
        .map(|(name, src)| {
            let p = text::parse_program(src, name).unwrap_or_else(|e| panic!("{name}: {e}"));
            compiler::interp::run(&p, &Default::default())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            (*name, p)
        })
        .collect();
    for (name, p) in &programs {
        assert_eq!(check(name, p), 3, "{name}: a form was not emitted");
    }
    let Some(mut device) = device() else { return };
    for (name, p) in &programs {
        for (form, p) in forms(p) {
            if let Some(d) = differs_on_device(&mut device, &p) {
                panic!("{name} ({form}): {d}");
            }
        }
    }
}

/// The instruction names in the first column of `docs/spirv.md`'s table of Vulkan's rules
/// (between its heading and the next one), each with whether its row says "not emitted".
/// Core instructions are written `OpName`, GLSL.std.450 ones by their name.
fn rules_table() -> Vec<(String, bool)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/spirv.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let start = doc
        .find("\n## Vulkan's rules for every instruction")
        .expect("docs/spirv.md has the rules table");
    let section = &doc[start + 1..];
    let end = section[1..].find("\n## ").map_or(section.len(), |i| i + 1);
    let mut rows = Vec::new();
    for line in section[..end].lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split(" | ").collect();
        let not_emitted = cells.last().is_some_and(|c| c.contains("not emitted"));
        // The first cell: `OpA` `OpB` … (names in backquotes, nothing else counts).
        let first = cells[0].trim_start_matches('|');
        for name in first.split('`').skip(1).step_by(2) {
            rows.push((name.to_string(), not_emitted));
        }
    }
    rows
}

/// Every module the emitter can be asked for here: the regressions, the guard and rare-shape
/// programs, 300 generated programs, each in its three forms and with and without the float
/// controls, and fused modules of generated programs.
fn emitted_instructions() -> std::collections::BTreeSet<String> {
    let mut programs: Vec<Program> = regressions().into_iter().map(|(_, p)| p).collect();
    programs.push(text::parse_program(GUARDS, "guards").unwrap());
    programs.push(signed_remainders_program());
    for (name, src) in SHAPES {
        programs.push(text::parse_program(src, name).unwrap());
    }
    let mut buf = Vec::new();
    for i in 0..300 {
        rng::input_bytes(0x5b1e, i, 16, 2048, &mut buf);
        if let Some(case) = oracle::decode(&buf) {
            programs.push(case.program);
        }
    }
    let plain = EmitOptions {
        preserve_nan_inf: false,
        preserve_denormals: false,
        round_to_nearest_even: false,
        ..EmitOptions::default()
    };
    let mut names = std::collections::BTreeSet::new();
    let mut add = |words: &[u32]| names.extend(spirv_emit::instruction_names(words).unwrap());
    for p in &programs {
        for (_, p) in forms(p) {
            for options in [EmitOptions::default(), plain] {
                if let Ok(m) = emit(&p, &options) {
                    add(&m.words);
                }
            }
        }
    }
    // Programs with workgroups are emitted alone (they cannot share a shader's workgroups).
    let fusable: Vec<&Program> = programs
        .iter()
        .filter(|p| !p.dispatch.has_workgroups())
        .collect();
    for group in fusable.chunks(8) {
        let group: Vec<&Program> = group.to_vec();
        if let Ok(m) = spirv_emit::emit_fused(&group, &EmitOptions::default()) {
            add(&m.words);
        }
    }
    names
}

/// `docs/spirv.md` states Vulkan's rule for every instruction the emitter writes: each name
/// found in the emitted modules has a row, and each row's names are emitted unless the row
/// says "not emitted" (so a guard that stops writing an instruction updates the table).
#[test]
fn every_instruction_the_emitter_writes_has_a_row_in_the_rules_table() {
    let emitted = emitted_instructions();
    let rows = rules_table();
    assert!(emitted.len() > 40, "only {emitted:?}");
    let missing: Vec<&String> = emitted
        .iter()
        .filter(|name| !rows.iter().any(|(row, _)| row == *name))
        .collect();
    assert!(
        missing.is_empty(),
        "emitted without a row in docs/spirv.md's rules table: {missing:?}"
    );
    let stale: Vec<&String> = rows
        .iter()
        .filter(|(name, not_emitted)| !not_emitted && !emitted.contains(name))
        .map(|(name, _)| name)
        .collect();
    assert!(
        stale.is_empty(),
        "rows for instructions the emitter never wrote here (mark them \"not emitted\"): {stale:?}"
    );
    let wrongly_marked: Vec<&String> = rows
        .iter()
        .filter(|(name, not_emitted)| *not_emitted && emitted.contains(name))
        .map(|(name, _)| name)
        .collect();
    assert!(
        wrongly_marked.is_empty(),
        "marked \"not emitted\" but emitted: {wrongly_marked:?}"
    );
}

/// Prints the emitted instruction names (`-- --ignored --nocapture`), to write the table from.
#[test]
#[ignore]
fn print_emitted_instructions() {
    for name in emitted_instructions() {
        println!("{name}");
    }
}
