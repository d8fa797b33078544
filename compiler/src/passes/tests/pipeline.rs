//! The pass manager: default pipeline on the seed, bisection limit, toggles, verification.

use super::loops;
use crate::ir::{parse_program, print_program, Program};
use crate::passes::pipeline::*;
use crate::passes::*;

/// The seed's L4D2 loop, in the text format.
const SEED: &str = "
invocations 4
outputs 1
uniforms 0x00000003

block_0:
  vec1 32 ssa_0 = load_const (0x00000000)
  vec1 32 ssa_1 = load_const (0x00000001)
  vec1 32 ssa_2 = load_const (0x0000000b)
  vec1 32 ssa_3 = load_const (0x00000016)
  vec1 32 ssa_4 = load_invocation_id
loop {
  block_1:
    vec1 32 ssa_5 = phi block_0: ssa_0, block_4: ssa_9
    vec1 32 ssa_6 = phi block_0: ssa_2, block_4: ssa_6
    vec1 32 ssa_7 = phi block_0: ssa_3, block_4: ssa_7
    vec1 32 ssa_8 = load_uniform ssa_0
    vec1 1 ssa_10 = ige ssa_5, ssa_8
  if ssa_10 {
    block_2:
      break
  } else {
    block_3:
  }
  block_4:
    vec1 32 ssa_9 = iadd ssa_5, ssa_1
}
block_5:
  vec1 32 ssa_11 = iadd ssa_6, ssa_4
  store_output 0, ssa_11
";

fn seed() -> Program {
    parse_program(SEED, "seed.ir").unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn default_pipeline_deletes_the_seed_loop() {
    let mut p = seed();
    let report = run_pipeline(
        &mut p,
        &mut PipelineOptions {
            verify: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(loops(&p.func.body), 0, "{}", print_program(&p));
    assert!(report.fired("opt_remove_phis") >= 1);
    assert!(report.fired("opt_dce") >= 1);
    let last = report.runs.len() - OPT_LOOP.len();
    assert!(
        report.runs[last..].iter().all(|r| !r.changed),
        "the last round changes nothing"
    );
    // load_invocation_id, the constant 11, the add and the store.
    assert_eq!(p.func.inst_count(), 4, "{}", print_program(&p));
}

#[test]
fn limit_counts_pass_runs() {
    let full = {
        let mut p = seed();
        run_pipeline(&mut p, &mut PipelineOptions::default()).unwrap()
    };
    for n in [0, 1, 2, 5, full.runs.len()] {
        let mut p = seed();
        let r = run_pipeline(
            &mut p,
            &mut PipelineOptions {
                limit: Some(n),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(r.runs.len(), n.min(full.runs.len()));
        assert_eq!(r.runs[..], full.runs[..r.runs.len()]);
        assert_eq!(r.limit_hit, n < full.runs.len());
        if n == 0 {
            assert_eq!(p, seed());
        }
    }
}

#[test]
fn disabled_passes_do_not_run() {
    let mut p = seed();
    let mut names = Vec::new();
    let mut hook = |name: &str, _: &Program| names.push(name.to_string());
    let r = run_pipeline(
        &mut p,
        &mut PipelineOptions {
            disabled: vec!["opt_dce".into()],
            after_pass: Some(&mut hook),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(loops(&p.func.body), 1);
    assert_eq!(r.fired("opt_dce"), 0);
    assert!(!names.iter().any(|n| n == "opt_dce"));
    assert_eq!(names.len(), r.runs.len());
    let bad = run_pipeline(
        &mut seed(),
        &mut PipelineOptions {
            disabled: vec!["opt_nonsense".into()],
            ..Default::default()
        },
    );
    assert_eq!(bad, Err(PipelineError::UnknownPass("opt_nonsense".into())));
}

#[test]
fn an_invalid_input_is_rejected_before_any_pass_runs() {
    let mut p = seed();
    // Break the program: an if condition nothing defines.
    let crate::ir::CfNode::Loop(l) = &mut p.func.body[1] else {
        panic!("loop expected");
    };
    let crate::ir::CfNode::If(n) = &mut l.body[1] else {
        panic!("if expected");
    };
    n.cond = crate::ir::Value::from_u32(99);
    let err = run_pipeline(
        &mut p,
        &mut PipelineOptions {
            verify: true,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(matches!(err, PipelineError::InvalidInput(_)), "{err}");
}

#[test]
fn to_registers_leaves_no_phi() {
    let mut p = seed();
    assert_eq!(to_registers(&mut p, true, &Default::default()), Ok(true));
    assert_eq!(super::phis(&p.func), 0);
    assert_eq!(p.func.regs.len(), 3);
    let _ = from_ssa(&mut p.func);
}
