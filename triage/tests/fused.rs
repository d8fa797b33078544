//! Program fusion on the `vulkan` target (lavapipe in CI): a fused shader of generated
//! programs reproduces each program's own results (the interpreter's, on every word the Vulkan
//! spec makes exact, and the program's results run alone), and a planted bug that makes some
//! programs of fused batches wrong is attributed to exactly those programs, as judging each
//! alone finds them.
//!
//! Without a device these tests fail under CI and print why they skip otherwise.

use compiler::planted::{Plant, Plants};
use fuzz::finding::Verdict;
use fuzz::oracle::{self, OracleOptions};
use fuzz::rng;
use fuzz::targets::driver::spirv_opt::SpirvOptPasses;
use fuzz::targets::vulkan::fused::execute_fused;
use fuzz::targets::{driver, vulkan};

mod common;
use common::have_device;

/// Oracle options judging only `vulkan`, with this test binary's gpufuzz as the worker and a
/// dispatch limit no loaded machine misses (a timeout would be the machine's, not fusion's).
fn vulkan_only() -> OracleOptions {
    let mut opts = common::on_device("vulkan");
    opts.vulkan.dispatch_timeout = std::time::Duration::from_secs(60);
    opts
}

fn input(seed: u64, i: u64) -> Vec<u8> {
    let mut buf = Vec::new();
    rng::input_bytes(seed, i, 64, 2048, &mut buf);
    buf
}

#[test]
fn a_fused_shader_of_programs_reproduces_each_programs_own_results() {
    let opts = vulkan_only();
    if !have_device(&opts) {
        return;
    }
    let info = vulkan::device(&opts.vulkan).unwrap();
    let emit = driver::module::emit_options(&info);
    // Programs every judge takes (the interpreter runs them, the emitter maps them, lavapipe's
    // loop limit is far), known driver bugs aside.
    let mut programs = Vec::new();
    let mut i = 0;
    while programs.len() < 24 {
        let Some(case) = oracle::decode(&input(0xf05e, i)) else {
            i += 1;
            continue;
        };
        i += 1;
        let p = case.program;
        let Ok((expected, stats)) =
            compiler::interp::Interpreter::new().run_with_stats(&p, &Default::default())
        else {
            continue;
        };
        let imod = p.func.insts_in_order().iter().any(|&(_, k)| {
            matches!(
                p.func.insts[k].kind,
                compiler::ir::InstKind::Alu {
                    op: compiler::ir::AluOp::Imod | compiler::ir::AluOp::Fsub,
                    ..
                }
            )
        });
        // A program with workgroups is emitted alone (its workgroups are the shader's).
        if imod
            || p.dispatch.has_workgroups()
            || stats.loop_passes >= vulkan::LLVMPIPE_LOOP_PASSES
            || spirv_emit::emit(&p, &emit).is_err()
        {
            continue;
        }
        programs.push((p, expected));
    }
    let refs: Vec<&compiler::ir::Program> = programs.iter().map(|(p, _)| p).collect();
    let dispatches: Vec<_> = refs.iter().map(|p| &p.dispatch).collect();
    let groups = spirv_emit::fuse::groups(&dispatches, 8, emit.local_size);
    assert!(
        groups.iter().filter(|g| g.len() > 1).count() >= 2,
        "{groups:?}"
    );
    let mut compared = 0;
    for group in groups {
        let done = execute_fused(&refs[group.clone()], &opts.vulkan)
            .unwrap_or_else(|e| panic!("programs {group:?} fused: {e:?}"));
        for (k, fused) in group.clone().zip(&done.results) {
            let (p, expected) = &programs[k];
            let plan = spirv_emit::comparison(p, &emit);
            if let Some((d, _)) = plan.first_difference(expected, fused, &p.dispatch) {
                panic!(
                    "program {k} of {group:?} fused differs from the interpreter: {d:?}\n{}",
                    compiler::ir::text::print_program(p)
                );
            }
            let alone = vulkan::execute(p, &SpirvOptPasses::default(), &opts.vulkan)
                .unwrap_or_else(|e| panic!("program {k} alone: {e:?}"));
            assert!(
                plan.first_difference(&alone.results, fused, &p.dispatch)
                    .is_none(),
                "program {k}: fused and alone differ on an exact word"
            );
            compared += 1;
        }
    }
    assert_eq!(compared, programs.len());
}

#[test]
fn a_planted_bug_in_some_programs_of_a_batch_is_attributed_to_those_programs() {
    let mut opts = vulkan_only();
    if !have_device(&opts) {
        return;
    }
    opts.plants = Plants::NONE.with(Plant::from_name("dce-loop-live-out").unwrap());
    let inputs: Vec<Vec<u8>> = (0..64).map(|i| input(0, i)).collect();
    let found = |v: &Verdict| match v {
        Verdict::Finding(f) => Some(f.signature()),
        _ => None,
    };
    let alone: Vec<_> = inputs
        .iter()
        .map(|b| found(&oracle::judge_bytes(b, &opts).verdict))
        .collect();
    let planted = alone.iter().flatten().count();
    assert!(
        planted >= 2,
        "the plant shows in only {planted} of 64 programs"
    );
    let mut fused = Vec::new();
    for batch in inputs.chunks(8) {
        let refs: Vec<&[u8]> = batch.iter().map(Vec::as_slice).collect();
        fused.extend(
            oracle::judge_batch(&refs, &opts)
                .iter()
                .map(|j| found(&j.verdict)),
        );
    }
    assert_eq!(
        fused, alone,
        "fused and alone judge different programs wrong"
    );
}
