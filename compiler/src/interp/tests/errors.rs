//! Fuel and malformed programs: every failure is an [`InterpError`], never a panic.

use super::*;
use crate::ir::{Inst, VarType};
use cranelift_entity::EntityRef;

#[test]
fn an_unbounded_loop_runs_out_of_fuel() {
    let mut b = Builder::new();
    let one = b.iconst(1);
    b.begin_loop();
    b.alu(AluOp::Iadd, &[one, one]);
    b.end_loop();
    let p = prog(b.finish(), 2, 0);
    let opts = RunOptions {
        fuel: 1000,
        ..RunOptions::default()
    };
    assert_eq!(
        run(&p, &opts),
        Err(InterpError::OutOfFuel { invocation: 0 })
    );
}

#[test]
fn an_empty_loop_runs_out_of_fuel_too() {
    let mut b = Builder::new();
    b.begin_loop();
    b.end_loop();
    let p = prog(b.finish(), 1, 0);
    let opts = RunOptions {
        fuel: 50,
        ..RunOptions::default()
    };
    assert_eq!(
        run(&p, &opts),
        Err(InterpError::OutOfFuel { invocation: 0 })
    );
}

#[test]
fn fuel_is_exact_and_total_fuel_spans_invocations() {
    let mut b = Builder::new();
    for k in 0..10 {
        b.iconst(k);
    }
    let p = prog(b.finish(), 4, 0);
    let opts = |fuel, total_fuel| RunOptions { fuel, total_fuel };
    assert!(run(&p, &opts(10, u64::MAX)).is_ok());
    assert_eq!(
        run(&p, &opts(9, u64::MAX)),
        Err(InterpError::OutOfFuel { invocation: 0 })
    );
    assert!(run(&p, &opts(10, 40)).is_ok());
    assert_eq!(
        run(&p, &opts(10, 35)),
        Err(InterpError::OutOfTotalFuel { invocation: 3 })
    );
}

/// Invocations run eight at a time, so invocation 5 fails (reading a value it never
/// defined) long before invocation 2 runs out of fuel; in id order 2 fails first, and that
/// is what the run reports.
#[test]
fn the_first_invocation_in_order_to_fail_is_reported() {
    let mut b = Builder::new();
    let id = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let two = b.iconst(2);
    let five = b.iconst(5);
    let not5 = b.alu(AluOp::Ine, &[id, five]);
    b.begin_if(not5);
    let x = b.iconst(7);
    b.end_if();
    let y = b.alu(AluOp::Iadd, &[x, x]);
    let not2 = b.alu(AluOp::Ine, &[id, two]);
    b.begin_loop();
    b.begin_if(not2);
    b.brk();
    b.begin_else();
    b.end_if();
    b.end_loop();
    b.ins(InstKind::StoreOutput { slot: 0, value: y }, Type::None);
    let p = prog(b.finish(), 8, 1);
    let opts = RunOptions {
        fuel: 500,
        ..RunOptions::default()
    };
    assert_eq!(
        run(&p, &opts),
        Err(InterpError::OutOfFuel { invocation: 2 })
    );
    let mut first_two = p.clone();
    first_two.dispatch.invocations = 2;
    assert!(run(&first_two, &opts).is_ok(), "invocations 0 and 1 finish");
}

#[test]
fn reading_a_value_defined_on_the_other_side_is_an_error() {
    let mut b = Builder::new();
    let id = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let c = b.alu(AluOp::I2b, &[id]);
    b.begin_if(c);
    let x = b.iconst(5);
    b.end_if();
    b.ins(InstKind::StoreOutput { slot: 0, value: x }, Type::None);
    let p = prog(b.finish(), 2, 1);
    let err = run(&p, &RunOptions::default()).unwrap_err();
    assert!(
        matches!(err, InterpError::UndefinedValue { invocation: 0, value, .. } if value == x),
        "{err}"
    );
    let mut p = p;
    p.dispatch.invocations = 0;
    assert!(
        run(&p, &RunOptions::default()).is_ok(),
        "nothing runs, nothing fails"
    );
}

#[test]
fn a_phi_without_a_source_for_the_edge_taken_is_an_error() {
    let mut b = Builder::new();
    let t = b.bconst(true);
    let bt = b.begin_if(t);
    let one = b.iconst(1);
    b.begin_else();
    let merge = b.end_if();
    let (m, _) = b.phi(Type::I32, vec![src(bt, one)]);
    b.ins(InstKind::StoreOutput { slot: 0, value: m }, Type::None);
    let mut p = prog(b.finish(), 1, 1);
    assert_eq!(run(&p, &RunOptions::default()).unwrap().outputs, vec![1]);
    // Flip the condition: the else side has no source.
    if let Some(InstKind::Const { bits }) = p.func.def(t).map(|i| &mut p.func.insts[i].kind) {
        bits[0] = 0;
    }
    let err = run(&p, &RunOptions::default()).unwrap_err();
    assert!(
        matches!(err, InterpError::NoPhiSource { block, pred: Some(_), .. } if block == merge),
        "{err}"
    );
}

#[test]
fn malformed_programs_are_errors() {
    let opts = RunOptions::default();
    let malformed = |p: &Program| matches!(run(p, &opts), Err(InterpError::Malformed { .. }));

    // break outside a loop
    let mut b = Builder::new();
    b.brk();
    assert!(malformed(&prog(b.finish(), 1, 0)));

    // load_deref of a value that is not a deref
    let mut b = Builder::new();
    let one = b.iconst(1);
    b.ins(InstKind::LoadDeref { deref: one }, Type::I32);
    assert!(malformed(&prog(b.finish(), 1, 0)));

    // a block naming an instruction that does not exist
    let mut b = Builder::new();
    b.iconst(1);
    let mut f = b.finish();
    let entry = crate::ir::first_block(&f.body).unwrap();
    f.blocks[entry].insts.push(Inst::new(1000));
    assert!(malformed(&prog(f, 1, 0)));

    // a phi below a non-phi
    let mut b = Builder::new();
    let b0 = b.current_block();
    let one = b.iconst(1);
    let mut f = b.finish();
    let sources = vec![src(b0, one)];
    let (phi, _) = f.make_inst(InstKind::Phi { sources }, Type::I32);
    f.blocks[b0].insts.push(phi);
    assert!(malformed(&prog(f, 1, 0)));

    // an operand that is not a value, a buffer that does not exist
    let mut b = Builder::new();
    let one = b.iconst(1);
    let mut f = b.finish();
    let (bad, _) = f.make_inst(
        InstKind::LoadBuffer {
            buffer: 3,
            index: one,
        },
        Type::I32,
    );
    f.blocks[b0].insts.push(bad);
    assert!(malformed(&prog(f.clone(), 1, 0)));
    f.insts[bad].kind = InstKind::StoreOutput {
        slot: 0,
        value: crate::ir::Value::new(77),
    };
    assert!(malformed(&prog(f, 1, 0)));
}

#[test]
fn deref_misuse_while_running_is_an_error() {
    let mut b = Builder::new();
    let v = b.var(VarType::Vector(4));
    let d = b.ins(InstKind::DerefVar { var: v }, Type::Deref).unwrap();
    let zero = b.iconst(0);
    b.ins(
        InstKind::DerefArray {
            parent: d,
            index: zero,
        },
        Type::Deref,
    );
    let p = prog(b.finish(), 1, 0);
    let err = run(&p, &RunOptions::default()).unwrap_err();
    assert!(
        matches!(err, InterpError::DerefMisuse { invocation: 0, .. }),
        "{err}"
    );
}

#[test]
fn impossible_dispatches_are_errors() {
    let mut p = prog(Builder::new().finish(), 1, 0);
    p.dispatch.textures = vec![sim::semantics::TextureDesc {
        width: 4,
        height: 4,
        levels: 0,
        layers: 1,
    }];
    assert!(matches!(
        run(&p, &RunOptions::default()),
        Err(InterpError::BadDispatch { .. })
    ));
    let mut p = prog(Builder::new().finish(), u32::MAX, 2);
    p.dispatch.outputs = 2;
    assert!(matches!(
        run(&p, &RunOptions::default()),
        Err(InterpError::BadDispatch { .. })
    ));
}

/// Rewiring any operand of a program with loops, phis, derefs and memory to any other value
/// gives results or an error, never a panic.
#[test]
fn rewired_operands_never_panic() {
    let mut b = Builder::new();
    let b0 = b.current_block();
    let arr = b.var(VarType::Array(Box::new(VarType::Vector(2)), 3));
    let id = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let one = b.iconst(1);
    let four = b.iconst(4);
    let da = b.ins(InstKind::DerefVar { var: arr }, Type::Deref).unwrap();
    b.begin_loop();
    let (i, i_phi) = b.phi(Type::I32, vec![src(b0, id)]);
    let e = b
        .ins(
            InstKind::DerefArray {
                parent: da,
                index: i,
            },
            Type::Deref,
        )
        .unwrap();
    let v = b.vec(&[i, four]);
    b.ins(InstKind::StoreDeref { deref: e, value: v }, Type::None);
    let l = b
        .ins(
            InstKind::LoadBuffer {
                buffer: 0,
                index: i,
            },
            Type::vec32(2),
        )
        .unwrap();
    let s = b.alu(AluOp::Udiv, &[l, v]);
    b.ins(
        InstKind::StoreBuffer {
            buffer: 0,
            index: i,
            value: s,
        },
        Type::None,
    );
    let i1 = b.alu(AluOp::Iadd, &[i, one]);
    let c = b.alu(AluOp::Ige, &[i1, four]);
    b.begin_if(c);
    b.brk();
    b.begin_else();
    let latch = b.end_if();
    b.add_phi_source(i_phi, latch, i1);
    b.end_loop();
    let ld = b
        .ins(InstKind::LoadDeref { deref: e }, Type::vec32(2))
        .unwrap();
    let t = b.ins(
        InstKind::Txf {
            texture: 0,
            coord: ld,
            params: Default::default(),
        },
        Type::vec32(4),
    );
    b.ins(
        InstKind::StoreOutput {
            slot: 1,
            value: t.unwrap(),
        },
        Type::None,
    );
    let mut p = prog(b.finish(), 3, 3);
    p.dispatch.buffers = vec![5];
    p.dispatch.textures = vec![sim::semantics::TextureDesc {
        width: 4,
        height: 2,
        levels: 2,
        layers: 1,
    }];
    let opts = RunOptions {
        fuel: 200,
        ..RunOptions::default()
    };
    assert!(run(&p, &opts).is_ok());
    let mut it = Interpreter::new();
    let values: Vec<_> = p.func.values.keys().collect();
    let insts: Vec<_> = p.func.insts.keys().collect();
    for &inst in &insts {
        let mut operands = 0;
        p.func.insts[inst].kind.visit_args(|_| operands += 1);
        for k in 0..operands {
            for &w in &values {
                let mut q = p.clone();
                let mut n = 0;
                q.func.insts[inst].kind.visit_args_mut(|a| {
                    if n == k {
                        *a = w;
                    }
                    n += 1;
                });
                let _ = it.run_with_stats(&q, &opts);
            }
        }
    }
}
