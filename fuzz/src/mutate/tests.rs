//! The mutator's contract on the checked-in seeds, and each kind's effect from a fixed seed:
//! mutants verify, differ from their parent and, where the mutation only adds code that
//! writes outputs of its own, compute what the parent computed in the parent's outputs.

use super::*;
use crate::case::CaseConfig;
use compiler::interp::{Interpreter, RunOptions};
use compiler::ir::{CfNode, InstKind, Program};
use std::path::Path;

fn seeds() -> Vec<(String, Case)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/diff");
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let bytes = std::fs::read(e.path()).ok()?;
            Some((
                e.file_name().to_string_lossy().into_owned(),
                read_input(&bytes)?,
            ))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn regression(name: &str) -> Case {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/regressions")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    case_file::parse_case(&text, name).unwrap()
}

/// Output words per invocation, the first `slots` of each.
fn outputs(p: &Program, slots: u32) -> Vec<Vec<u32>> {
    let run = RunOptions {
        fuel: 2_000_000,
        ..RunOptions::default()
    };
    let results = Interpreter::new().run_with_stats(p, &run).unwrap().0;
    results
        .outputs
        .chunks(p.dispatch.outputs as usize)
        .map(|inv| inv[..slots as usize].to_vec())
        .collect()
}

fn count(list: &[CfNode], f: &impl Fn(&CfNode) -> bool) -> usize {
    list.iter()
        .map(|n| {
            usize::from(f(n))
                + match n {
                    CfNode::Block(_) => 0,
                    CfNode::If(i) => count(&i.then_list, f) + count(&i.else_list, f),
                    CfNode::Loop(l) => count(&l.body, f),
                }
        })
        .sum()
}

fn loops(p: &Program) -> usize {
    count(&p.func.body, &|n| matches!(n, CfNode::Loop(_)))
}

fn insts(p: &Program, f: impl Fn(&InstKind) -> bool) -> usize {
    let func = &p.func;
    func.insts_in_order()
        .iter()
        .filter(|(_, i)| f(&func.insts[*i].kind))
        .count()
}

#[test]
fn every_mutation_of_every_seed_verifies_and_differs() {
    let seeds = seeds();
    assert!(seeds.len() > 80, "{} seeds decode", seeds.len());
    for &kind in Kind::ALL {
        let mut applied = 0;
        for (name, case) in &seeds {
            for s in 0..3 {
                let rng = &mut SplitMix64::for_input(s, 0);
                // `apply` verifies; a mutant the verifier refuses fails its debug assertion.
                let Some(m) = apply(case, kind, rng) else {
                    continue;
                };
                applied += 1;
                assert_ne!(
                    encode(&m),
                    encode(case),
                    "{kind:?} on {name} changed nothing"
                );
                let again = read_input(&encode(&m)).expect("a mutant reads back");
                assert_eq!(encode(&again), encode(&m), "{kind:?} on {name}");
            }
        }
        // Each kind applies to a real share of the seeds (loops and textures are common).
        assert!(
            applied > seeds.len() / 2,
            "{kind:?} applied {applied} times"
        );
    }
}

#[test]
fn mutate_input_hands_libfuzzer_a_case_file_or_its_own_bytes() {
    let (_, case) = &seeds()[0];
    let raw = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../corpus/diff")
            .join(&seeds()[0].0),
    )
    .unwrap();
    let mut structural = 0;
    for seed in 0..20 {
        let mut data = raw.clone();
        data.resize(1 << 16, 0);
        let n = mutate_input(&mut data, raw.len(), 1 << 16, seed, |_, size, _| size);
        if case_file::looks_like_text(&data[..n]) {
            structural += 1;
            let m = read_input(&data[..n]).expect("the mutant parses");
            assert_ne!(encode(&m), encode(case));
        } else {
            assert_eq!(
                &data[..n],
                &raw[..],
                "the byte mutator's answer is passed on"
            );
        }
    }
    assert!(
        (5..=15).contains(&structural),
        "{structural} of 20 structural"
    );
    // A mutant that does not fit falls back to the byte mutator.
    let mut data = raw.clone();
    let n = mutate_input(&mut data, raw.len(), raw.len(), 1, |_, _, _| 7);
    assert!(n == 7 || !case_file::looks_like_text(&data[..n]));
}

#[test]
fn branch_inverted_keeps_the_results_and_swapped_moves_the_sides() {
    let case = regression("nested_loop_break_continue.ir");
    let before = outputs(&case.program, case.program.dispatch.outputs);
    let mut inverted = 0;
    for s in 0..8 {
        let m = apply(&case, Kind::Branch, &mut SplitMix64::for_input(s, 1)).unwrap();
        let bnots = insts(
            &m.program,
            |k| matches!(k, InstKind::Alu { op, .. } if *op == compiler::ir::AluOp::Bnot),
        );
        if bnots == 1 {
            inverted += 1;
            assert_eq!(outputs(&m.program, m.program.dispatch.outputs), before);
        }
    }
    assert!((1..8).contains(&inverted), "{inverted} of 8 inverted");
}

#[test]
fn wrap_in_loop_adds_a_counted_loop_that_runs_its_stretch_again() {
    let case = regression("if_else_merge_phis.ir");
    let m = apply(&case, Kind::WrapInLoop, &mut SplitMix64::for_input(7, 0)).unwrap();
    assert_eq!(loops(&m.program), loops(&case.program) + 1);
    let run = RunOptions::default();
    let stats = Interpreter::new()
        .run_with_stats(&m.program, &run)
        .unwrap()
        .1;
    assert!(
        stats.loops_taken_twice > 0,
        "the new loop ran its body again"
    );
}

/// Mutations that only add code writing outputs of their own leave the parent's outputs as
/// they were, and add slots.
fn keeps_parent_outputs(kind: Kind, file: &str, seed: u64) -> Program {
    let case = regression(file);
    let slots = case.program.dispatch.outputs;
    let m = apply(&case, kind, &mut SplitMix64::for_input(seed, 0)).unwrap();
    assert!(
        m.program.dispatch.outputs > slots,
        "{kind:?} observes what it adds"
    );
    assert_eq!(
        outputs(&m.program, slots),
        outputs(&case.program, slots),
        "{kind:?}"
    );
    m.program
}

#[test]
fn phi_web_adds_rotating_header_phis() {
    let case = regression("nested_loop_break_continue.ir");
    let phis = |p: &Program| insts(p, |k| matches!(k, InstKind::Phi { .. }));
    let m = keeps_parent_outputs(Kind::PhiWeb, "nested_loop_break_continue.ir", 3);
    assert!((2..=4).contains(&(phis(&m) - phis(&case.program))));
}

#[test]
fn pressure_keeps_eight_or_more_values_live_across_a_loop() {
    let case = regression("nested_loop_break_continue.ir");
    let ids = |p: &Program| insts(p, |k| matches!(k, InstKind::InvocationId));
    let m = keeps_parent_outputs(Kind::Pressure, "nested_loop_break_continue.ir", 5);
    assert_eq!(ids(&m), ids(&case.program) + 1);
    assert!(m.func.inst_count() >= case.program.func.inst_count() + 8 * 3);
}

#[test]
fn duplicate_texture_adds_a_second_message() {
    let case = regression("txf_constant_zero_lod.ir");
    let sends = |p: &Program| {
        insts(p, |k| {
            matches!(k, InstKind::Tex { .. } | InstKind::Txf { .. })
        })
    };
    let m = keeps_parent_outputs(Kind::DuplicateTexture, "txf_constant_zero_lod.ir", 2);
    assert_eq!(sends(&m), sends(&case.program) + 1);
}

#[test]
fn knob_changes_one_knob_or_one_pass() {
    let case = regression("if_else_merge_phis.ir");
    let mut changed = std::collections::BTreeSet::new();
    for s in 0..400 {
        let m = apply(&case, Kind::Knob, &mut SplitMix64::for_input(s, 0)).unwrap();
        assert_eq!(m.program, case.program);
        let knobs = m.config.non_default().len() + m.config.disabled_pass_names().len();
        assert_eq!(knobs, 1, "{:?}", m.config.non_default());
        for kv in m.config.non_default() {
            changed.insert(kv.split('=').next().unwrap_or_default().to_string());
        }
    }
    // Every knob is reached, a knob added later included.
    let all: std::collections::BTreeSet<String> =
        CaseConfig::keys().iter().map(|k| k.to_string()).collect();
    assert_eq!(changed, all);
}

#[test]
fn crossover_mixes_configurations_and_keeps_the_first_program() {
    let seeds = seeds();
    let (a, b) = (&seeds[0].1, &seeds[1].1);
    let mut from_b = 0;
    for s in 0..10 {
        let c = crossover(a, b, &mut SplitMix64::for_input(s, 0));
        assert_eq!(c.program, a.program);
        assert!(c.config.check().is_ok());
        from_b += usize::from(c.config != a.config);
    }
    assert!(from_b > 0);
}

#[test]
fn mutants_of_the_seeds_pass_the_oracle_with_nothing_planted() {
    // A mutant that a correct compiler miscompiles, or that the interpreter refuses, would
    // be a false finding under libFuzzer; out of fuel (a loop wrapped around a long one) is
    // a rejection, not a finding.
    let opts = crate::oracle::OracleOptions::default();
    for (name, case) in seeds().iter().step_by(3) {
        for &kind in Kind::ALL {
            let Some(m) = apply(case, kind, &mut SplitMix64::for_input(11, 0)) else {
                continue;
            };
            let j = crate::oracle::judge(&m, &opts);
            if let crate::finding::Verdict::Finding(f) = j.verdict {
                panic!("{kind:?} on {name}: {f}\n{}", encode(&m).escape_ascii());
            }
        }
    }
}
