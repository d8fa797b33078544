//! The SPIR-V emitter on every program shape the fuzzer makes: each `corpus/regressions/*.ir`
//! and 300 generated programs emit modules `spirv-val` accepts — straight from the generator
//! (what `--target vulkan` can hand the driver unoptimised), after the middle end, and in
//! register form after out-of-SSA (phis become `load_reg`/`store_reg`).

use compiler::ir::{text, Program};
use compiler::passes::pipeline::{run_pipeline, to_registers, PassConfig, PipelineOptions};
use fuzz::{oracle, rng};
use spirv_emit::validate::spirv_val;
use spirv_emit::{emit, EmitError, EmitOptions};
use std::path::Path;

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

/// Emits and validates every form of `p`; returns how many were emitted. On failure the
/// program is written to `target/spirv-failures/NAME.ir` first.
fn check(name: &str, p: &Program) -> usize {
    let mut emitted = 0;
    for (form, p) in forms(p) {
        let failure = match emit(&p, &EmitOptions::default()) {
            Ok(m) => match spirv_val(&m.words) {
                Ok(()) => None,
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

#[test]
fn regressions_emit_valid_modules() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/regressions");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ir"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for path in files {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read_to_string(&path).unwrap();
        let program = text::parse_program(&src, &name).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(check(&name, &program), 3, "{name}: a form was not emitted");
    }
}

#[test]
fn generated_programs_emit_valid_modules() {
    let mut buf = Vec::new();
    let mut emitted = 0;
    for i in 0..300 {
        rng::input_bytes(0x5b1e, i, 16, 2048, &mut buf);
        let Some(case) = oracle::decode(&buf) else {
            continue;
        };
        emitted += check(&format!("seed-0x5b1e-{i}"), &case.program);
    }
    assert!(emitted >= 880, "only {emitted} of 900 forms emitted");
}
