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

/// Memory of every kind, a texture result consumed on the loop back-edge, a dynamically
/// indexed local array; high register pressure so the starved runs spill.
const MEMORY: &str = "
invocations 70
outputs 4
uniforms 0x00000002 0x3f000000 0x00000005
buffer 6
texture 8x8 levels 2 layers 2
var_0: vec1[5]

block_0:
  vec1 32 ssa_0 = load_invocation_id
  vec1 32 ssa_1 = load_const (0x00000000)
  vec1 32 ssa_2 = load_const (0x00000001)
  vec1 32 ssa_3 = load_uniform ssa_0
  vec2 32 ssa_4 = load_uniform ssa_2
  vec2 32 ssa_5 = load_buffer 0, ssa_0
  vec1 32 ssa_30 = mov ssa_5.x
  vec1 32 ssa_31 = mov ssa_4.y
  vec1 32 ssa_32 = mov ssa_4.x
  vec4 32 ssa_33 = mov ssa_5.xyxy
  vec1 32 ssa_6 = iadd ssa_30, ssa_3
  store_buffer 0, ssa_2, ssa_6
  vec1 32 ssa_7 = i2f ssa_0
  vec1 32 ssa_8 = fmul ssa_7, ssa_31
  vec2 32 ssa_9 = vec2 ssa_8, ssa_31
  deref ssa_10 = deref_var var_0
  deref ssa_11 = deref_array ssa_10[ssa_0]
  store_deref ssa_11, ssa_6
  vec1 32 ssa_12 = iand ssa_0, ssa_2
  vec1 32 ssa_13 = iadd ssa_12, ssa_2
  loop {
    block_1:
      vec1 32 ssa_14 = phi block_0: ssa_1, block_3: ssa_19
      vec4 32 ssa_15 = phi block_0: ssa_33, block_3: ssa_18
      vec1 1 ssa_16 = ige ssa_14, ssa_13
      if ssa_16 {
        block_2:
          break
      } else {
        block_4:
      }
      block_3:
        vec2 32 ssa_17 = vec2 ssa_14, ssa_0
        vec4 32 ssa_18 = txf 0, ssa_17, lod ssa_2, layer ssa_2
        vec1 32 ssa_19 = iadd ssa_14, ssa_2
        deref ssa_20 = deref_array ssa_10[ssa_19]
        vec1 32 ssa_21 = load_deref ssa_20
        vec1 32 ssa_34 = mov ssa_18.x
        store_deref ssa_20, ssa_34
  }
  block_5:
    vec4 32 ssa_22 = tex 0, ssa_9, lod ssa_8, layer ssa_2
    vec4 32 ssa_23 = fadd ssa_22, ssa_15
    deref ssa_24 = deref_array ssa_10[ssa_3]
    vec1 32 ssa_25 = load_deref ssa_24
    vec1 32 ssa_35 = mov ssa_23.x
    vec1 32 ssa_36 = mov ssa_23.w
    vec4 32 ssa_26 = vec4 ssa_35, ssa_36, ssa_25, ssa_32
    store_output 0, ssa_26
";

#[test]
fn memory_textures_and_local_arrays() {
    let runs = agree_grid(MEMORY);
    assert!(runs
        .iter()
        .any(|(o, s)| o.registers <= 8 && s.spills > 0 && s.fills > 0));
}

#[test]
fn loop_needs_predicate_reloads() {
    let prog = PRED_BACKEDGE.replace("imov ssa_11", "iadd ssa_11, ssa_1");
    let runs = agree_grid(&prog);
    assert!(runs
        .iter()
        .any(|(o, s)| o.predicates == 1 && s.pred_reloads > 0));
    assert!(runs.iter().any(|(o, s)| o.registers == 4 && s.spills > 0));
}

#[test]
fn executed_reloads_and_spills_are_counted_from_the_profile() {
    use compiler::a6xx::{compile, Options};
    let p = parse(&PRED_BACKEDGE.replace("imov ssa_11", "iadd ssa_11, ssa_1"));
    let opts = Options {
        predicates: 1,
        registers: 4,
        ..Options::default()
    };
    let c = compile(&p, &opts).expect("compiles");
    let r = sim::a6xx::run(&c.program, &p.dispatch, &c.sim_config());
    let e = c.executed(&r);
    // `ssa_4` is defined before the loop and read by a branch in it; with one predicate
    // register the loop's exit test evicts it, so it is reloaded inside the loop, once per
    // iteration of the (one) wave.
    assert!(c.stats.pred_reloads > 0, "{}", c.program);
    assert!(
        e.pred_reloads > u64::from(c.stats.pred_reloads),
        "{e:?}\n{}",
        c.program
    );
    assert_eq!(
        e.loop_pred_reloads, 1,
        "one predicate is reloaded in the loop"
    );
    // No locals: every stp/ldp executed is spill code, and each moves 4 bytes per fiber.
    assert!(e.spills > 0 && e.fills > 0, "{e:?}");
    assert_eq!(e.spills, r.stats.stp);
    assert_eq!(e.fills, r.stats.ldp);
    assert_eq!(e.spill_bytes, 4 * (e.spills + e.fills));
}

/// A program whose spill slots need more private memory than every program is given: `n`
/// values computed in a chain, all live until a sum reads them in order.
fn all_live_until_summed(n: usize) -> String {
    let mut s = String::from("invocations 64\noutputs 1\n\nblock_0:\n");
    s += "  vec1 32 ssa_0 = load_invocation_id\n  vec1 32 ssa_1 = load_const (0x00000007)\n";
    // ssa_2 ..= ssa_{n+1}: the chain.
    for k in 2..n + 2 {
        s += &format!("  vec1 32 ssa_{k} = iadd ssa_{}, ssa_1\n", k - 1);
    }
    // The sum, first value first, so that every value is live when the chain ends.
    let mut sum = 2;
    for k in 3..n + 2 {
        let next = n + k;
        s += &format!("  vec1 32 ssa_{next} = ixor ssa_{sum}, ssa_{k}\n");
        sum = next;
    }
    s + &format!("  store_output 0, ssa_{sum}\n")
}

#[test]
fn spill_slots_past_the_default_private_memory_get_what_they_need() {
    use compiler::a6xx::{compile, lower::PRIVATE_WORDS, Options};
    let p = parse(&all_live_until_summed(1200));
    let opts = Options {
        registers: 8,
        ..Options::default()
    };
    let stats = agree(&p, &opts).expect("compiles at 8 GPRs");
    assert!(stats.private_words > PRIVATE_WORDS, "{stats:?}");
    // Beyond what any fiber can be given, it is still an error.
    let p = parse(&all_live_until_summed(33_000));
    assert!(
        matches!(
            compile(&p, &opts),
            Err(compiler::a6xx::CompileError::PrivateMemory { .. })
        ),
        "33,000 live values fit private memory"
    );
}
