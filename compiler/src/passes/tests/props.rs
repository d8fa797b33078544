//! Property tests: every pass alone, the whole pipeline (with random toggles) and out-of-SSA
//! keep the interpreter's results and the verifier's approval over generated programs.

use super::gen::{program, Rng};
use crate::interp::{run, RunOptions};
use crate::ir::{print_program, verify, Program};
use crate::passes::pipeline::{run_pipeline, PassConfig, PipelineOptions, PASSES};
use crate::passes::to_registers;
use sim::dispatch::Results;

const PROGRAMS: u64 = 2000;

fn results(p: &Program) -> Option<Results> {
    run(p, &RunOptions::default()).ok()
}

#[track_caller]
fn same(what: &str, before: &Program, after: &Program, expected: &Results) {
    if let Err(e) = verify(after) {
        panic!(
            "{what}: verifier: {e}\n--- before\n{}\n--- after\n{}",
            print_program(before),
            print_program(after)
        );
    }
    let got = run(after, &RunOptions::default());
    if got.as_ref() != Ok(expected) {
        panic!(
            "{what}: results differ ({:?})\n--- before\n{}\n--- after\n{}",
            got.as_ref()
                .map(|r| r.first_difference(expected, &after.dispatch)),
            print_program(before),
            print_program(after)
        );
    }
}

#[test]
fn generated_programs_are_valid() {
    let mut ran = 0;
    for seed in 0..200 {
        let p = program(seed);
        verify(&p).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", print_program(&p)));
        ran += usize::from(results(&p).is_some());
    }
    assert!(ran > 190, "only {ran} programs ran");
}

#[test]
fn every_pass_alone_preserves_results() {
    let lower = PASSES[0].1;
    for seed in 0..PROGRAMS {
        let p0 = program(seed);
        let Some(expected) = results(&p0) else {
            continue;
        };
        let mut p1 = p0.clone();
        lower(&mut p1.func, &PassConfig::default());
        same(
            &format!("seed {seed} lower_vars_to_ssa"),
            &p0,
            &p1,
            &expected,
        );
        for start in [&p0, &p1] {
            for &(name, f) in PASSES {
                let mut q = start.clone();
                f(&mut q.func, &PassConfig::default());
                same(&format!("seed {seed} {name}"), start, &q, &expected);
            }
            let mut q = start.clone();
            to_registers(&mut q, false, &Default::default()).unwrap();
            same(&format!("seed {seed} from_ssa"), start, &q, &expected);
        }
    }
}

/// The pipeline skips a pass whose last run changed nothing when nothing changed since:
/// that needs every pass reporting no change to leave the function exactly as it was, on
/// input programs, lowered ones, ones part way through and settled ones.
#[test]
fn a_pass_reporting_no_change_changes_nothing() {
    for seed in 0..PROGRAMS {
        let p0 = program(seed);
        let mut starts = vec![p0.clone()];
        let mut p = p0;
        for &(_, f) in PASSES {
            f(&mut p.func, &PassConfig::default());
            starts.push(p.clone());
        }
        run_pipeline(&mut p, &mut PipelineOptions::default()).unwrap();
        starts.push(p);
        for start in &starts {
            for &(name, f) in PASSES {
                let mut q = start.clone();
                if !f(&mut q.func, &PassConfig::default()) {
                    assert!(
                        q.func == start.func,
                        "seed {seed}: {name} reported no change but changed\n{}",
                        print_program(start)
                    );
                }
            }
        }
    }
}

#[test]
fn pipeline_with_random_toggles_preserves_results() {
    let mut rng = Rng::new(7);
    for seed in 0..PROGRAMS {
        let p0 = program(seed);
        let Some(expected) = results(&p0) else {
            continue;
        };
        let disabled = PASSES
            .iter()
            .filter(|_| rng.chance(1, 5))
            .map(|(n, _)| n.to_string())
            .collect();
        let mut p = p0.clone();
        let r = run_pipeline(
            &mut p,
            &mut PipelineOptions {
                verify: true,
                disabled,
                ..Default::default()
            },
        );
        if let Err(e) = r {
            panic!("seed {seed}: {e}\n{}", print_program(&p0));
        }
        same(&format!("seed {seed} pipeline"), &p0, &p, &expected);
        let mut q = p.clone();
        to_registers(&mut q, true, &Default::default()).unwrap();
        same(
            &format!("seed {seed} pipeline + from_ssa"),
            &p,
            &q,
            &expected,
        );
    }
}

/// Numbers for the report: `cargo test -p compiler --release pipeline_stats -- --ignored
/// --nocapture`.
#[test]
#[ignore]
fn pipeline_stats() {
    use crate::ir::InstKind;
    let count = |p: &Program, f: &dyn Fn(&InstKind) -> bool| {
        p.func
            .insts_in_order()
            .iter()
            .filter(|(_, i)| f(&p.func.insts[*i].kind))
            .count()
    };
    let (mut ran, mut before, mut after, mut loops0, mut loops1, mut regs) = (0, 0, 0, 0, 0, 0);
    let mut fired = std::collections::BTreeMap::<&str, usize>::new();
    let mut runs = 0;
    let t = std::time::Instant::now();
    for seed in 0..PROGRAMS {
        let p0 = program(seed);
        if results(&p0).is_none() {
            continue;
        }
        ran += 1;
        let mut p = p0.clone();
        let r = run_pipeline(&mut p, &mut PipelineOptions::default()).unwrap();
        runs += r.runs.len();
        for run in &r.runs {
            *fired.entry(run.name).or_default() += usize::from(run.changed);
        }
        before += p0.func.inst_count();
        after += p.func.inst_count();
        loops0 += super::loops(&p0.func.body);
        loops1 += super::loops(&p.func.body);
        let _ = count(&p, &|k| matches!(k, InstKind::Phi { .. }));
        to_registers(&mut p, false, &Default::default()).unwrap();
        regs += p.func.regs.len();
    }
    println!(
        "{ran} programs in {:?}; insts {before} -> {after}; loops {loops0} -> {loops1}; \
         {runs} pass runs; {regs} registers after from_ssa",
        t.elapsed()
    );
    for (name, n) in fired {
        println!("  {name:24} fired in {n} runs");
    }
}
