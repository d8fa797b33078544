//! Tests of the CFG, loop nest and dominator tree on programs with known answers.

use super::*;
use crate::ir::{BlockData, Builder, IfNode, Inst, LoopNode, Type, Value};

fn b(n: u32) -> Block {
    Block::from_u32(n)
}

fn blocks(ns: &[u32]) -> Vec<Block> {
    ns.iter().map(|&n| b(n)).collect()
}

/// ```text
/// block_0
/// loop {                    ; L1
///   block_1                 ; header
///   if c { block_2: break } else { block_3 }
///   block_4
///   loop {                  ; L2
///     block_5               ; header
///     if c { block_6: continue } else { block_7 }
///     block_8: break
///   }
///   block_9
/// }
/// block_10
/// ```
fn nested_loops() -> Function {
    let mut bld = Builder::new();
    let c = bld.bconst(true);
    bld.begin_loop();
    bld.begin_if(c);
    bld.brk();
    bld.begin_else();
    bld.end_if();
    bld.begin_loop();
    bld.begin_if(c);
    bld.cont();
    bld.begin_else();
    bld.end_if();
    bld.brk();
    bld.end_loop();
    bld.end_loop();
    bld.finish()
}

#[test]
fn nested_loop_edges() {
    let f = nested_loops();
    let cfg = Cfg::compute(&f);
    assert_eq!(cfg.entry(), Some(b(0)));
    let succs: [&[u32]; 11] = [
        &[1],
        &[2, 3],
        &[10],
        &[4],
        &[5],
        &[6, 7],
        &[5],
        &[8],
        &[9],
        &[1],
        &[],
    ];
    for (n, s) in succs.iter().enumerate() {
        assert_eq!(cfg.succs(b(n as u32)), blocks(s), "succs of block_{n}");
    }
    assert_eq!(cfg.preds(b(1)), blocks(&[0, 9]));
    assert_eq!(cfg.preds(b(5)), blocks(&[4, 6]));
    assert_eq!(cfg.preds(b(10)), blocks(&[2]));
    assert_eq!(cfg.preds(b(9)), blocks(&[8]));
    assert_eq!(cfg.preds(b(0)), blocks(&[]));
    assert_eq!(cfg.rpo(), blocks(&[0, 1, 2, 10, 3, 4, 5, 6, 7, 8, 9]));
    assert!(cfg.is_back_edge(b(6), b(5)));
    assert!(cfg.is_back_edge(b(9), b(1)));
    assert!(!cfg.is_back_edge(b(0), b(1)));
    assert!(!cfg.is_back_edge(b(4), b(5)));
    assert!(!cfg.is_back_edge(b(8), b(9)));
}

#[test]
fn nested_loop_nest() {
    let f = nested_loops();
    let cfg = Cfg::compute(&f);
    let depths = [0, 1, 1, 1, 1, 2, 2, 2, 2, 1, 0];
    for (n, &d) in depths.iter().enumerate() {
        assert_eq!(cfg.loop_depth(b(n as u32)), d, "depth of block_{n}");
    }
    assert!(cfg.is_loop_header(b(1)) && cfg.is_loop_header(b(5)));
    assert!(!cfg.is_loop_header(b(0)) && !cfg.is_loop_header(b(6)));
    assert_eq!(cfg.loop_header_of(b(6)), Some(b(5)));
    assert_eq!(cfg.loop_header_of(b(9)), Some(b(1)));
    assert_eq!(cfg.loop_header_of(b(10)), None);
    assert_eq!(cfg.parent_loop(b(5)), Some(b(1)));
    assert_eq!(cfg.parent_loop(b(1)), None);
    assert_eq!(cfg.loop_exit(b(1)), Some(b(10)));
    assert_eq!(cfg.loop_exit(b(5)), Some(b(9)));
    assert!(cfg.is_in_loop(b(7), b(1)));
    assert!(!cfg.is_in_loop(b(9), b(5)));
}

#[test]
fn nested_loop_dominators() {
    let f = nested_loops();
    let cfg = Cfg::compute(&f);
    let dt = DomTree::compute(&cfg);
    let idoms = [
        None,
        Some(0),
        Some(1),
        Some(1),
        Some(3),
        Some(4),
        Some(5),
        Some(5),
    ];
    for (n, d) in idoms.iter().enumerate() {
        assert_eq!(dt.idom(b(n as u32)), d.map(b), "idom of block_{n}");
    }
    assert_eq!(dt.idom(b(8)), Some(b(7)));
    assert_eq!(dt.idom(b(9)), Some(b(8)));
    assert_eq!(dt.idom(b(10)), Some(b(2)));
    assert_eq!(dt.children(b(1)), blocks(&[2, 3]));
    assert_eq!(dt.children(b(5)), blocks(&[6, 7]));
    for n in 0..11 {
        assert!(dt.dominates(b(0), b(n)), "entry dominates block_{n}");
        assert!(dt.dominates(b(n), b(n)));
        assert!(!dt.strictly_dominates(b(n), b(n)));
    }
    assert!(dt.dominates(b(1), b(9)));
    assert!(dt.dominates(b(4), b(8)));
    assert!(
        !dt.dominates(b(6), b(8)),
        "the continue branch does not dominate the merge"
    );
    assert!(
        !dt.dominates(b(3), b(10)),
        "the break is in the then-branch"
    );
    assert!(!dt.dominates(b(9), b(1)));
    assert!(dt.def_dominates_use((b(5), 0), (b(5), 1)));
    assert!(!dt.def_dominates_use((b(5), 1), (b(5), 1)));
    assert!(!dt.def_dominates_use((b(6), 0), (b(7), 0)));
    assert!(dt.def_dominates_use((b(1), 3), (b(8), 0)));
}

#[test]
fn loop_without_break_leaves_the_rest_unreachable() {
    let mut bld = Builder::new();
    bld.begin_loop();
    bld.end_loop();
    let f = bld.finish();
    let cfg = Cfg::compute(&f);
    assert_eq!(cfg.succs(b(1)), blocks(&[1]));
    assert!(cfg.is_back_edge(b(1), b(1)));
    assert!(!cfg.is_reachable(b(2)));
    assert_eq!(cfg.preds(b(2)), blocks(&[]));
    assert_eq!(cfg.loop_exit(b(1)), Some(b(2)));
    assert_eq!(cfg.rpo(), blocks(&[0, 1]));
    let dt = DomTree::compute(&cfg);
    assert_eq!(dt.idom(b(1)), Some(b(0)));
    assert_eq!(dt.idom(b(2)), None);
    assert!(!dt.dominates(b(0), b(2)));
    assert!(!dt.dominates(b(2), b(2)));
    assert!(!dt.def_dominates_use((b(2), 0), (b(2), 1)));
}

#[test]
fn code_after_break_is_unreachable() {
    let mut bld = Builder::new();
    let c = bld.bconst(false);
    bld.begin_loop();
    bld.brk();
    bld.begin_if(c);
    bld.begin_else();
    bld.end_if();
    bld.end_loop();
    let f = bld.finish();
    let cfg = Cfg::compute(&f);
    assert_eq!(cfg.succs(b(1)), blocks(&[5]));
    assert_eq!(cfg.succs(b(2)), blocks(&[4]));
    assert_eq!(cfg.succs(b(4)), blocks(&[1]));
    assert_eq!(cfg.preds(b(1)), blocks(&[0, 4]));
    assert_eq!(cfg.rpo(), blocks(&[0, 1, 5]));
    let dt = DomTree::compute(&cfg);
    assert_eq!(dt.idom(b(1)), Some(b(0)));
    assert_eq!(dt.idom(b(5)), Some(b(1)));
    for n in 2..5 {
        assert!(!cfg.is_reachable(b(n)) && !dt.dominates(b(0), b(n)));
    }
    assert!(cfg.is_back_edge(b(4), b(1)));
}

#[test]
fn malformed_trees_do_not_panic() {
    let mut f = Function::default();
    let b0 = f.blocks.push(BlockData::default());
    let (i, _) = f.make_inst(InstKind::InvocationId, Type::I32);
    f.blocks[b0].insts.extend([i, Inst::from_u32(77)]);
    f.body = vec![
        CfNode::Loop(Box::new(LoopNode { body: vec![] })),
        CfNode::Block(b0),
        CfNode::Block(b0),
        CfNode::If(Box::new(IfNode {
            cond: Value::from_u32(9),
            then_list: vec![CfNode::Block(b(40))],
            else_list: vec![],
        })),
        CfNode::If(Box::new(IfNode {
            cond: Value::from_u32(9),
            then_list: vec![],
            else_list: vec![CfNode::Block(b(u32::MAX - 1))],
        })),
    ];
    let cfg = Cfg::compute(&f);
    assert_eq!(cfg.entry(), None);
    assert!(cfg.rpo().is_empty());
    assert_eq!(cfg.succs(b(40)), blocks(&[]));
    let dt = DomTree::compute(&cfg);
    assert!(!dt.dominates(b0, b0));
    assert!(!dt.def_dominates_use((b0, 0), (b0, 1)));
}

#[test]
fn recompute_reuses_and_matches() {
    let f = nested_loops();
    let mut cfg = Cfg::compute(&Function::default());
    cfg.recompute(&f);
    let fresh = Cfg::compute(&f);
    assert_eq!(cfg.rpo(), fresh.rpo());
    let mut dt = DomTree::default();
    dt.recompute(&cfg);
    dt.recompute(&cfg);
    assert_eq!(dt.idom(b(9)), Some(b(8)));
}

/// Recomputing on another function, and back, gives what a fresh computation gives; the
/// edges are reported unchanged only when they are.
#[test]
fn recompute_across_functions_keeps_nothing_stale() {
    let loops = nested_loops();
    let mut bld = Builder::new();
    bld.begin_loop();
    bld.end_loop();
    let endless = bld.finish();
    let mut cfg = Cfg::default();
    for (f, unchanged) in [
        (&loops, false),
        (&loops, true),
        (&endless, false),
        (&loops, false),
        (&Function::default(), false),
        (&endless, false),
        (&endless, true),
    ] {
        cfg.recompute(f);
        assert_eq!(cfg.edges_unchanged(), unchanged);
        let fresh = Cfg::compute(f);
        assert_eq!(cfg.rpo(), fresh.rpo());
        for k in 0..f.blocks.len() {
            let blk = b(k as u32);
            assert_eq!(cfg.succs(blk), fresh.succs(blk));
            assert_eq!(cfg.preds(blk), fresh.preds(blk));
            assert_eq!(cfg.rpo_index(blk), fresh.rpo_index(blk));
        }
    }
}
