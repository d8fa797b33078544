//! Each planted Gen bug misbehaves on some hand-written program (mismatch, hazard, checker
//! error or compile error) while the same program is clean without it.

mod gen_common;
use compiler::gen::{CompileError, Options};
use compiler::planted::{Plant, Plants};
use gen_common::*;
use sim::gen::{ExecSize, Gen};

/// A test program out of SSA, as the backend takes it.
fn program(name: &str) -> compiler::ir::Program {
    let path = format!(
        "{}/tests/gen_programs/{name}.ir",
        env!("CARGO_MANIFEST_DIR")
    );
    out_of_ssa(&parse(
        &std::fs::read_to_string(path).expect("test program"),
    ))
}

fn corpus(name: &str) -> compiler::ir::Program {
    let path = format!(
        "{}/../corpus/regressions/{name}.ir",
        env!("CARGO_MANIFEST_DIR")
    );
    out_of_ssa(&parse(
        &std::fs::read_to_string(path).expect("corpus program"),
    ))
}

fn opts(width: ExecSize, grfs: u32, plant: Option<Plant>) -> Options {
    Options {
        width,
        gen: Gen::Gen9,
        grfs,
        opt_zero_samples: true,
        heuristics: Default::default(),
        plants: plant.map_or(Plants::NONE, |p| Plants::NONE.with(p)),
    }
}

fn clean(p: &compiler::ir::Program, o: &Options) -> bool {
    matches!(run(p, o), Outcome::Clean(_))
}

/// Some (width, budget) makes `plant` misbehave on `p` where the unplanted compile is clean.
fn shows(plant: Plant, p: &compiler::ir::Program, widths: &[ExecSize], budgets: &[u32]) -> bool {
    widths.iter().any(|&w| {
        budgets.iter().any(|&g| {
            let base = opts(w, g, None);
            clean(p, &base) && !clean(p, &opts(w, g, Some(plant)))
        })
    })
}

#[test]
fn zero_samples_shared_payload() {
    let p = corpus("txf_constant_zero_lod");
    for w in [ExecSize::S8, ExecSize::S16] {
        assert!(clean(&p, &opts(w, 125, None)));
        let bad = run(&p, &opts(w, 125, Some(Plant::ZeroSamplesSharedPayload)));
        assert!(matches!(bad, Outcome::Bad(_)), "{w:?}: {bad:?}");
    }
}

#[test]
fn zero_samples_simd16_step() {
    let p = program("txf_lod0");
    let plant = Some(Plant::ZeroSamplesSimd16Step);
    assert!(
        clean(&p, &opts(ExecSize::S8, 125, plant)),
        "SIMD8 is not affected"
    );
    assert!(clean(&p, &opts(ExecSize::S16, 125, None)));
    let err = compiler::gen::compile(&p, &opts(ExecSize::S16, 125, plant)).err();
    assert!(matches!(err, Some(CompileError::Invalid(_))), "{err:?}");
}

#[test]
fn zero_samples_nonzero() {
    let p = program("txf_uniform_lod");
    for w in [ExecSize::S8, ExecSize::S16] {
        assert!(clean(&p, &opts(w, 125, None)));
        let bad = run(&p, &opts(w, 125, Some(Plant::ZeroSamplesNonzero)));
        assert!(
            matches!(bad, Outcome::Bad(ref s) if s.starts_with("mismatch")),
            "{bad:?}"
        );
    }
}

#[test]
fn spill_slot_reuse() {
    let p = program("pressure_loop");
    assert!(shows(
        Plant::GenSpillSlotReuse,
        &p,
        &[ExecSize::S8, ExecSize::S16],
        &[5, 6, 7, 8, 10, 12]
    ));
}

#[test]
fn spill_optimistic_only() {
    let ps = [program("pressure_loop"), program("memory")];
    let found = ps.iter().any(|p| {
        (5..20).any(|g| {
            clean(p, &opts(ExecSize::S8, g, None))
                && matches!(
                    compiler::gen::compile(
                        p,
                        &opts(ExecSize::S8, g, Some(Plant::GenSpillOptimisticOnly))
                    ),
                    Err(CompileError::NoRegisterToSpill { .. })
                )
        })
    });
    assert!(found);
}

#[test]
fn simd16_overlap() {
    let ps = [
        program("pressure_loop"),
        program("memory"),
        corpus("nested_loop_break_continue"),
    ];
    let budgets: Vec<u32> = (10..40).collect();
    assert!(ps
        .iter()
        .any(|p| shows(Plant::GenSimd16Overlap, p, &[ExecSize::S16], &budgets)));
    let p = &ps[0];
    assert!(
        clean(p, &opts(ExecSize::S8, 6, Some(Plant::GenSimd16Overlap))),
        "SIMD8 is not affected"
    );
}

#[test]
fn gen_sampler_offset_order() {
    let p = program("sample_3d_offset");
    for w in [ExecSize::S8, ExecSize::S16] {
        assert!(clean(&p, &opts(w, 125, None)));
        let bad = run(&p, &opts(w, 125, Some(Plant::GenSamplerOffsetOrder)));
        assert!(matches!(bad, Outcome::Bad(_)), "{w:?}: {bad:?}");
    }
}
