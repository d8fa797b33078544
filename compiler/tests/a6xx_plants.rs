//! Every a6xx planted bug shows on a hand-written program (a checker error, a simulator hazard
//! or a wrong result), and the same program is clean without the plant.

mod a6xx_common;
use a6xx_common::*;
use compiler::a6xx::Options;
use compiler::planted::{Plant, Plants};

fn assert_plant(src: &str, plant: Plant, opts: Options) {
    let p = parse(src);
    assert!(!shows_bug(&p, &opts), "{plant}: clean without the plant");
    agree(&p, &opts);
    let planted = Options {
        plants: Plants::NONE.with(plant),
        ..opts
    };
    assert!(shows_bug(&p, &planted), "{plant}: shows with the plant");
}

const ALU_CHAIN: &str = "
invocations 64
outputs 1

block_0:
  vec1 32 ssa_0 = load_invocation_id
  vec1 32 ssa_1 = load_const (0x00000003)
  vec1 32 ssa_2 = iadd ssa_0, ssa_1
  vec1 32 ssa_3 = imul ssa_2, ssa_2
  store_output 0, ssa_3
";

#[test]
fn nop_short() {
    assert_plant(ALU_CHAIN, Plant::A6xxNopShort, Options::default());
}

/// `if x < 3 || x >= 10`: the else-branch is taken on `!(a | b)`, a `braa !a, !b`.
const OR_BRANCH: &str = "
invocations 20
outputs 1

block_0:
  vec1 32 ssa_0 = load_invocation_id
  vec1 32 ssa_1 = load_const (0x00000003)
  vec1 32 ssa_2 = load_const (0x0000000a)
  vec1 1 ssa_3 = ilt ssa_0, ssa_1
  vec1 1 ssa_4 = ige ssa_0, ssa_2
  vec1 1 ssa_5 = bor ssa_3, ssa_4
  if ssa_5 {
    block_1:
      vec1 32 ssa_6 = load_const (0x00000001)
  } else {
    block_2:
      vec1 32 ssa_7 = load_const (0x00000002)
  }
  block_3:
    vec1 32 ssa_8 = phi block_1: ssa_6, block_2: ssa_7
    store_output 0, ssa_8
";

#[test]
fn brao_invert() {
    assert_plant(OR_BRANCH, Plant::A6xxBraoInvert, Options::default());
}

#[test]
fn pred_backedge_reload() {
    let opts = Options {
        predicates: 1,
        ..Options::default()
    };
    assert_plant(
        &PRED_BACKEDGE.replace("imov ssa_11", "iadd ssa_11, ssa_1"),
        Plant::A6xxPredBackedgeReload,
        opts,
    );
}

#[test]
fn spill_reload_stale() {
    let opts = Options {
        registers: 4,
        ..Options::default()
    };
    let src = PRED_BACKEDGE
        .replace("imov ssa_11", "iadd ssa_11, ssa_20")
        .replace(
            "block_5: ssa_13\n",
            "block_5: ssa_13\n      vec1 32 ssa_20 = iadd ssa_8, ssa_7\n",
        );
    assert_plant(&src, Plant::A6xxSpillReloadStale, opts);
}

/// A load whose result is dead at the end of the loop body; its register is reused by the
/// header's first value, so the header must wait for the load across the back-edge.
const DEAD_LOAD: &str = "
invocations 64
outputs 1
buffer 4

block_0:
  vec1 32 ssa_0 = load_invocation_id
  vec1 32 ssa_1 = load_const (0x00000000)
  vec1 32 ssa_2 = load_const (0x00000001)
  vec1 32 ssa_3 = load_const (0x00000003)
  vec1 32 ssa_4 = iand ssa_0, ssa_3
  loop {
    block_1:
      vec1 32 ssa_5 = phi block_0: ssa_1, block_3: ssa_9
      vec1 32 ssa_6 = imul ssa_5, ssa_5
      vec1 32 ssa_7 = iadd ssa_6, ssa_2
      vec1 32 ssa_11 = iadd ssa_6, ssa_7
      vec1 1 ssa_8 = ige ssa_11, ssa_4
    if ssa_8 {
      block_2:
        break
    } else {
      block_4:
    }
    block_3:
      vec1 32 ssa_9 = iadd ssa_5, ssa_2
      vec1 32 ssa_10 = load_buffer 0, ssa_5
  }
  block_5:
    store_output 0, ssa_5
";

#[test]
fn missing_sy_backedge() {
    assert_plant(DEAD_LOAD, Plant::A6xxMissingSyBackedge, Options::default());
}
