//! The `middle` target's counters: the middle end's numbers, available without any backend. Instructions
//! are those placed in blocks (phis, `break`/`continue` included), as the reducer and the
//! pass table count them; `executed` is the interpreter's count over all invocations.

use compiler::interp::{self, RunOptions};
use compiler::ir::{CfNode, InstKind, Program};

/// What the `middle` target records, in report order.
pub const MEASUREMENTS: &[&str] = &[
    "instructions",
    "executed",
    "loops",
    "alu",
    "phis",
    "ifs",
    "memory",
];

/// `if` and loop nodes of a control-flow list.
fn count_cf(list: &[CfNode], ifs: &mut u64, loops: &mut u64) {
    for node in list {
        match node {
            CfNode::Block(_) => {}
            CfNode::If(n) => {
                *ifs += 1;
                count_cf(&n.then_list, ifs, loops);
                count_cf(&n.else_list, ifs, loops);
            }
            CfNode::Loop(n) => {
                *loops += 1;
                count_cf(&n.body, ifs, loops);
            }
        }
    }
}

/// Loop nodes of a program.
pub fn loops(p: &Program) -> u64 {
    let (mut ifs, mut loops) = (0, 0);
    count_cf(&p.func.body, &mut ifs, &mut loops);
    loops
}

/// Interpreter fuel per invocation for the `executed` count: four times what `gpufuzz stats`
/// gives a corpus program, as the optimised program may run longer.
const FUEL: u64 = 4 * 200_000;

/// The counters of an optimised program.
pub fn record(p: &Program) -> Result<Vec<(String, u64)>, String> {
    let f = &p.func;
    let (mut alu, mut phis, mut memory) = (0u64, 0u64, 0u64);
    let placed = f.insts_in_order();
    for &(_, inst) in &placed {
        match &f.insts[inst].kind {
            InstKind::Alu { .. } => alu += 1,
            InstKind::Phi { .. } => phis += 1,
            InstKind::LoadUniform { .. }
            | InstKind::LoadBuffer { .. }
            | InstKind::StoreBuffer { .. }
            | InstKind::LoadShared { .. }
            | InstKind::StoreShared { .. }
            | InstKind::AtomicBuffer { .. }
            | InstKind::AtomicShared { .. }
            | InstKind::StoreOutput { .. }
            | InstKind::Tex { .. }
            | InstKind::Txf { .. }
            | InstKind::Txs { .. }
            | InstKind::LoadDeref { .. }
            | InstKind::StoreDeref { .. } => memory += 1,
            _ => {}
        }
    }
    let (mut ifs, mut loops) = (0, 0);
    count_cf(&f.body, &mut ifs, &mut loops);
    let run = RunOptions {
        fuel: FUEL,
        ..RunOptions::default()
    };
    let (_, stats) = interp::run_with_stats(p, &run).map_err(|e| format!("interpreter: {e}"))?;
    let rec = [
        ("instructions", placed.len() as u64),
        ("executed", stats.executed_insts),
        ("loops", loops),
        ("alu", alu),
        ("phis", phis),
        ("ifs", ifs),
        ("memory", memory),
    ];
    Ok(rec.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}
