//! Corpus programs through the a6xx backend: each must agree with the interpreter under
//! predicates 4 and 1, generous and starved GPR budgets, waves of 64 and 128, with and
//! without `opt_predicates`, with no hazards and a clean allocation checker.

mod a6xx_common;
use a6xx_common::*;

const STRAIGHT: &str = "
invocations 70
outputs 4
uniforms 0x00000003 0x3f800000 0x40490fdb

block_0:
  vec1 32 ssa_0 = load_invocation_id
  vec1 32 ssa_1 = load_const (0x00000005)
  vec1 32 ssa_2 = iadd ssa_0, ssa_1
  vec1 32 ssa_3 = imul ssa_2, ssa_2
  vec1 32 ssa_4 = i2f ssa_3
  vec1 32 ssa_5 = load_const (0x00000001)
  vec1 32 ssa_6 = load_uniform ssa_5
  vec1 32 ssa_7 = fsub ssa_4, ssa_6
  vec1 32 ssa_8 = ffract ssa_7
  vec1 32 ssa_9 = fsqrt ssa_4
  vec1 32 ssa_10 = fmul ssa_9, ssa_8
  vec1 32 ssa_11 = udiv ssa_3, ssa_1
  vec1 1 ssa_12 = ilt ssa_0, ssa_1
  vec1 32 ssa_13 = bcsel ssa_12, ssa_11, ssa_3
  vec1 32 ssa_14 = ishl ssa_13, ssa_0
  vec1 32 ssa_15 = b2f ssa_12
  vec2 32 ssa_16 = vec2 ssa_14, ssa_15
  store_output 0, ssa_16
  vec2 32 ssa_17 = vec2 ssa_10, ssa_7
  store_output 2, ssa_17
";

#[test]
fn straight_line() {
    agree_grid(STRAIGHT);
}

const IF_ELSE: &str = "
invocations 100
outputs 2

block_0:
  vec1 32 ssa_0 = load_invocation_id
  vec1 32 ssa_1 = load_const (0x00000003)
  vec1 32 ssa_2 = umod ssa_0, ssa_1
  vec1 32 ssa_3 = load_const (0x00000000)
  vec1 1 ssa_4 = ieq ssa_2, ssa_3
  if ssa_4 {
    block_1:
      vec1 32 ssa_5 = iadd ssa_0, ssa_1
      vec1 32 ssa_6 = imul ssa_5, ssa_5
  } else {
    block_2:
      vec1 32 ssa_7 = isub ssa_0, ssa_1
      vec1 1 ssa_8 = ilt ssa_7, ssa_3
      if ssa_8 {
        block_3:
          vec1 32 ssa_9 = ineg ssa_7
      } else {
        block_4:
          vec1 32 ssa_10 = ishl ssa_7, ssa_1
      }
      block_5:
        vec1 32 ssa_11 = phi block_3: ssa_9, block_4: ssa_10
  }
  block_6:
    vec1 32 ssa_12 = phi block_1: ssa_6, block_5: ssa_11
    vec1 32 ssa_13 = phi block_1: ssa_1, block_5: ssa_2
    vec2 32 ssa_14 = vec2 ssa_12, ssa_13
    store_output 0, ssa_14
";

#[test]
fn if_else_with_phis() {
    agree_grid(IF_ELSE);
}

/// Nested loops with break and continue, trip counts depending on the invocation.
const LOOPS: &str = "
invocations 90
outputs 2

block_0:
  vec1 32 ssa_0 = load_invocation_id
  vec1 32 ssa_1 = load_const (0x00000000)
  vec1 32 ssa_2 = load_const (0x00000001)
  vec1 32 ssa_3 = load_const (0x00000007)
  vec1 32 ssa_4 = iand ssa_0, ssa_3
  loop {
    block_1:
      vec1 32 ssa_5 = phi block_0: ssa_1, block_9: ssa_20, block_4: ssa_12
      vec1 32 ssa_6 = phi block_0: ssa_1, block_9: ssa_19, block_4: ssa_13
      vec1 1 ssa_7 = ige ssa_5, ssa_4
      if ssa_7 {
        block_2:
          break
      } else {
        block_3:
      }
      block_11:
        vec1 32 ssa_10 = iand ssa_5, ssa_2
        vec1 1 ssa_11 = ieq ssa_10, ssa_2
      if ssa_11 {
        block_4:
          vec1 32 ssa_12 = iadd ssa_5, ssa_2
          vec1 32 ssa_13 = iadd ssa_6, ssa_0
          continue
      } else {
        block_5:
      }
      block_6:
      loop {
        block_7:
          vec1 32 ssa_14 = phi block_6: ssa_1, block_8: ssa_16
          vec1 32 ssa_15 = phi block_6: ssa_6, block_8: ssa_17
          vec1 1 ssa_18 = ilt ssa_14, ssa_5
          if ssa_18 {
            block_12:
          } else {
            block_13:
              break
          }
          block_8:
            vec1 32 ssa_16 = iadd ssa_14, ssa_2
            vec1 32 ssa_17 = iadd ssa_15, ssa_14
      }
      block_9:
        vec1 32 ssa_19 = phi block_13: ssa_15
        vec1 32 ssa_20 = iadd ssa_5, ssa_2
  }
  block_10:
    vec1 32 ssa_21 = phi block_2: ssa_6
    vec2 32 ssa_22 = vec2 ssa_21, ssa_5
    store_output 0, ssa_22
";

#[test]
fn nested_loops_break_continue() {
    agree_grid(LOOPS);
}

/// Swapped phis in a loop: the parallel copies at the back-edge form a cycle.
const SWAP: &str = "
invocations 64
outputs 3

block_0:
  vec1 32 ssa_0 = load_invocation_id
  vec1 32 ssa_1 = load_const (0x00000000)
  vec1 32 ssa_2 = load_const (0x00000001)
  vec1 32 ssa_3 = load_const (0x00000064)
  vec1 32 ssa_4 = iand ssa_0, ssa_2
  vec1 32 ssa_5 = iadd ssa_4, ssa_2
  vec1 32 ssa_50 = iadd ssa_5, ssa_5
  loop {
    block_1:
      vec1 32 ssa_6 = phi block_0: ssa_0, block_3: ssa_7
      vec1 32 ssa_7 = phi block_0: ssa_3, block_3: ssa_6
      vec1 32 ssa_8 = phi block_0: ssa_1, block_3: ssa_9
      vec1 1 ssa_10 = ige ssa_8, ssa_50
      if ssa_10 {
        block_2:
          break
      } else {
        block_4:
      }
      block_3:
        vec1 32 ssa_9 = iadd ssa_8, ssa_2
  }
  block_5:
    vec1 32 ssa_11 = phi block_2: ssa_6
    vec1 32 ssa_12 = phi block_2: ssa_7
    vec3 32 ssa_13 = vec3 ssa_11, ssa_12, ssa_8
    store_output 0, ssa_13
";

#[test]
fn swapped_phis_in_a_loop() {
    agree_grid(SWAP);
}

#[test]
#[ignore]
fn show() {
    let p = parse(SWAP);
    for regs in [192, 10] {
        let o = compiler::a6xx::Options { registers: regs, predicates: 1, ..Default::default() };
        let (r, s, dis) = run_with(&p, &o);
        println!("{s:?}\n{:?}\n{dis}", r.stats);
    }
}
