//! The Gen backend on corpus-style programs: every width, generation and `opt_zero_samples`
//! setting, with a generous and a starved GRF budget, as written and after the middle end (both
//! out of SSA), against the reference interpreter — no mismatch, no simulator hazard, a clean allocation checker.

mod gen_common;
use gen_common::*;

fn both_forms(
    src: &str,
    starved: u32,
) -> (
    Vec<compiler::gen::CompileStats>,
    Vec<compiler::gen::CompileStats>,
) {
    let p = parse(src);
    assert_clean(&p, 125);
    let s = assert_clean(&p, starved);
    let r = optimised(&p);
    assert_clean(&r, 125);
    let rs = assert_clean(&r, starved);
    (s, rs)
}

#[test]
fn corpus_regressions() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/regressions");
    let mut n = 0;
    for path in compiler::ir::text::ir_files(std::path::Path::new(dir)).expect("corpus") {
        let src = std::fs::read_to_string(&path).expect("read");
        let p = compiler::ir::parse_program(&src, &path.display().to_string()).expect("parses");
        // What the backend refuses (16- and 64-bit integers) it must refuse, not compile.
        if let Some(why) = compiler::gen::refuses(&p) {
            let o = compiler::gen::Options::default();
            let err = compiler::gen::compile(&p, &o).err();
            assert_eq!(
                err,
                Some(compiler::gen::CompileError::Unsupported(why.into()))
            );
            continue;
        }
        both_forms(&src, 10);
        n += 1;
    }
    assert!(n > 0);
}

fn program(name: &str) -> String {
    let path = format!(
        "{}/tests/gen_programs/{name}.ir",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path).expect("test program")
}

#[test]
fn swapped_phis_in_a_loop() {
    both_forms(&program("swapped_phis"), 6);
}

#[test]
fn uniforms_buffers_outputs_textures() {
    both_forms(&program("memory"), 24);
}

#[test]
fn dynamic_local_arrays() {
    both_forms(&program("local_array"), 8);
}

#[test]
fn starved_budgets_spill_and_stay_correct() {
    let p = parse(&program("pressure_loop"));
    for grfs in [5, 6, 8] {
        let stats = assert_clean(&p, grfs);
        assert!(
            stats.iter().all(|s| s.spills > 0 && s.fills > 0),
            "{grfs}: {stats:?}"
        );
    }
    let (s, r) = both_forms(&program("nested_loop_break_continue_local"), 5);
    assert!(s.iter().chain(&r).any(|s| s.spills > 0));
}

#[test]
fn every_program_fits_the_register_floor_and_floor_ir_sits_exactly_at_it() {
    use compiler::gen::{compile, CompileError, MIN_GRFS};
    let p = out_of_ssa(&parse(&program("floor")));
    let stats = assert_clean(&p, MIN_GRFS);
    assert!(
        stats.iter().all(|s| s.spills > 0 && s.fills > 0),
        "{stats:?}"
    );
    for o in grid(MIN_GRFS - 1) {
        assert!(
            matches!(compile(&p, &o), Err(CompileError::NoRegisterToSpill { .. })),
            "{o:?}: floor.ir fits below the floor, so it no longer tests it"
        );
    }
    for name in ["memory", "pressure_loop", "local_array", "swapped_phis"] {
        assert_clean(&parse(&program(name)), MIN_GRFS);
    }
}

#[test]
fn a_starved_budget_spills_several_registers_per_round() {
    use compiler::gen::{dce, lower, ra};
    use compiler::heuristics::GenHeuristics;
    use compiler::planted::Plants;
    let p = optimised(&parse(&program("pressure_loop")));
    for (width, grfs) in [(sim::gen::ExecSize::S8, 5), (sim::gen::ExecSize::S16, 10)] {
        let mut v = lower::lower(
            &p.func,
            &p.dispatch,
            width,
            sim::gen::Gen::Gen9,
            Plants::NONE,
        )
        .expect("lowers");
        dce::eliminate_dead_code(&mut v);
        let a =
            ra::allocate(&mut v, grfs, &GenHeuristics::default(), Plants::NONE).expect("allocates");
        assert!(
            a.rounds >= 2 && a.spilled > a.rounds - 1,
            "{width:?}: {} registers spilled in {} spilling rounds",
            a.spilled,
            a.rounds - 1
        );
    }
    // The allocation those rounds make is correct.
    assert_clean(&p, 5);
}

#[test]
fn txf_lod_zero_loses_one_parameter_per_simd_width() {
    use compiler::gen::{compile, Options};
    use sim::gen::{ExecSize, Gen, Op};
    let p = parse(&program("txf_lod0"));
    for (width, per) in [(ExecSize::S8, 1u8), (ExecSize::S16, 2)] {
        for (gen, trims) in [(Gen::Gen9, true), (Gen::Gen7, false)] {
            for ozs in [false, true] {
                let o = Options {
                    width,
                    gen,
                    opt_zero_samples: ozs,
                    ..Options::default()
                };
                let c = compile(&p, &o).expect("compiles");
                let mlen = c
                    .program
                    .insts
                    .iter()
                    .find_map(|i| match i.op {
                        Op::Send(d) if matches!(d.msg, sim::gen::Message::Sampler { .. }) => {
                            Some(d.mlen)
                        }
                        _ => None,
                    })
                    .expect("a sampler message");
                let cut = (ozs && trims) as u8;
                assert_eq!(mlen, (3 - cut) * per, "{o:?}");
                assert_eq!(c.stats.trimmed_sends, cut as u32);
            }
        }
    }
    assert_clean(&p, 125);
}

#[test]
fn a_payload_a_second_message_reads_is_not_trimmed() {
    use compiler::gen::compile;
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../corpus/regressions/txf_constant_zero_lod.ir"
    );
    let p = parse(&std::fs::read_to_string(dir).expect("corpus"));
    for o in grid(125) {
        let c = compile(&p, &o).expect("compiles");
        assert_eq!(c.stats.trimmed_sends, 0, "{o:?}");
    }
    assert_clean(&p, 125);
}

#[test]
fn executed_spills_and_fills_are_counted_from_the_profile() {
    let p = optimised(&parse(&program("pressure_loop")));
    for o in grid(6) {
        let c = compiler::gen::compile(&p, &o).expect("compiles");
        let run = sim::gen::run(&c.program, &p.dispatch, &c.sim_config()).expect("runs");
        let e = c.executed(&run);
        // Spill code runs inside the loop, so more often than it was compiled.
        assert!(e.spilled_and_filled(), "{o:?}: {e:?}");
        assert!(e.fills > u64::from(c.stats.fills), "{o:?}: {e:?}");
        // No locals: every scratch block read executed is a fill or a pre-fill; the block
        // writes are spill stores plus the thread start's zeroing and the EOT write.
        assert_eq!(e.fills + e.prefills, run.stats.scratch_reads, "{o:?}");
        assert!(e.spills > 0 && e.spills < run.stats.scratch_writes, "{o:?}");
        let sends = compiler::executed::gen_sends(&c.program, &run.profile);
        assert_eq!(sends.values().sum::<u64>(), run.stats.sends, "{o:?}");
    }
}
