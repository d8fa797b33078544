//! Subgroup operations: known answers over two workgroups of 4, in uniform control flow and
//! under divergence (an `if`, and a loop whose lanes `continue` — they wait at the latch, so
//! every lane still in the loop starts the next iteration together).

use super::*;
use crate::ir::parse_program;
use cranelift_entity::packed_option::ReservedValue;

fn run_text(src: &str) -> Result<Results, InterpError> {
    let p = parse_program(src, "test.ir").expect("parses");
    crate::ir::verify(&p).expect("verifies");
    run(&p, &RunOptions::default())
}

/// Two workgroups of 4; `ssa_4` is `3 * local + workgroup` (0 3 6 9 and 1 4 7 10), `ssa_0`
/// the local id; `body` stores something to output 0.
fn program(body: &str) -> String {
    format!(
        "invocations 8\noutputs 1\nworkgroup 4\n\nblock_0:\n  \
         vec1 32 ssa_0 = load_local_id\n  vec1 32 ssa_1 = load_workgroup_id\n  \
         vec1 32 ssa_2 = load_const (0x00000003)\n  vec1 32 ssa_3 = imul ssa_0, ssa_2\n  \
         vec1 32 ssa_4 = iadd ssa_3, ssa_1\n{body}"
    )
}

/// `ssa_5 = OP ssa_4`, stored.
fn uniform(op: &str) -> Vec<u32> {
    let body = format!("  vec1 32 ssa_5 = {op} ssa_4\n  store_output 0, ssa_5\n");
    run_text(&program(&body)).unwrap().outputs
}

#[test]
fn reductions_and_scans_in_uniform_control_flow() {
    assert_eq!(
        uniform("subgroup_reduce add"),
        [18, 18, 18, 18, 22, 22, 22, 22]
    );
    assert_eq!(uniform("subgroup_reduce umin"), [0, 0, 0, 0, 1, 1, 1, 1]);
    assert_eq!(
        uniform("subgroup_reduce umax"),
        [9, 9, 9, 9, 10, 10, 10, 10]
    );
    assert_eq!(uniform("subgroup_reduce xor"), [12, 12, 12, 12, 8, 8, 8, 8]);
    assert_eq!(uniform("subgroup_scan add"), [0, 3, 9, 18, 1, 5, 12, 22]);
    assert_eq!(uniform("subgroup_exscan add"), [0, 0, 3, 9, 0, 1, 5, 12]);
    assert_eq!(uniform("subgroup_scan or"), [0, 3, 7, 15, 1, 5, 7, 15]);
    assert_eq!(
        uniform("subgroup_broadcast_first"),
        [0, 0, 0, 0, 1, 1, 1, 1]
    );
}

#[test]
fn ballot_elect_and_shuffle() {
    // Odd values: local 1 and 3 of workgroup 0 (3, 9), local 0 and 2 of workgroup 1 (1, 7).
    let ballot =
        "  vec1 32 ssa_5 = load_const (0x00000001)\n  vec1 32 ssa_6 = iand ssa_4, ssa_5\n  \
                  vec1 1 ssa_7 = i2b ssa_6\n  vec1 32 ssa_8 = subgroup_ballot ssa_7\n  \
                  store_output 0, ssa_8\n";
    let r = run_text(&program(ballot)).unwrap();
    assert_eq!(
        r.outputs,
        [0b1010, 0b1010, 0b1010, 0b1010, 0b0101, 0b0101, 0b0101, 0b0101]
    );
    let elect = "  vec1 1 ssa_5 = subgroup_elect\n  vec1 32 ssa_6 = b2i ssa_5\n  \
                 store_output 0, ssa_6\n";
    let r = run_text(&program(elect)).unwrap();
    assert_eq!(r.outputs, [1, 0, 0, 0, 1, 0, 0, 0]);
    // Each reads the next invocation's value, round the workgroup.
    let shuffle = "  vec1 32 ssa_5 = load_const (0x00000001)\n  vec1 32 ssa_6 = iadd ssa_0, ssa_5\n  \
                   vec1 32 ssa_7 = iand ssa_6, ssa_2\n  vec1 32 ssa_8 = subgroup_shuffle ssa_4, ssa_7\n  \
                   store_output 0, ssa_8\n";
    let r = run_text(&program(shuffle)).unwrap();
    assert_eq!(r.outputs, [3, 6, 9, 0, 4, 7, 10, 1]);
}

/// Under `if local >= 1` only locals 1..=3 take part; local 0's output keeps its 0.
fn divergent(op: &str) -> Result<Results, InterpError> {
    let body = format!(
        "  vec1 32 ssa_5 = load_const (0x00000001)\n  vec1 1 ssa_6 = uge ssa_0, ssa_5\n\
         if ssa_6 {{\n  block_1:\n    vec1 32 ssa_7 = {op}\n    store_output 0, ssa_7\n\
         }} else {{\n  block_2:\n}}\nblock_3:\n"
    );
    run_text(&program(&body))
}

#[test]
fn divergent_operations_see_the_invocations_that_took_the_branch() {
    let r = divergent("subgroup_reduce add ssa_4").unwrap();
    assert_eq!(r.outputs, [0, 18, 18, 18, 0, 21, 21, 21]);
    let r = divergent("subgroup_exscan add ssa_4").unwrap();
    assert_eq!(r.outputs, [0, 0, 3, 9, 0, 0, 4, 11]);
    let r = divergent("subgroup_broadcast_first ssa_4").unwrap();
    assert_eq!(r.outputs, [0, 3, 3, 3, 0, 4, 4, 4]);
}

#[test]
fn a_shuffle_of_an_inactive_invocation_is_an_error() {
    // Local 0 (the source every reader names) did not take the branch.
    let e = divergent("subgroup_shuffle ssa_4, ssa_1").unwrap_err();
    assert!(
        matches!(
            e,
            InterpError::InactiveShuffle {
                invocation: 1,
                named: 0,
                ..
            }
        ),
        "{e}"
    );
}

/// `loop { n = reduce add 1 (the lanes here); acc += n; if i >= 2 break; i += 1;
/// if local odd continue }`: the odd lanes wait at the latch for the even ones, so each of
/// the three header passes counts all 4 lanes of the workgroup.
#[test]
fn lanes_that_continue_meet_the_others_at_the_next_iteration() {
    let mut b = Builder::new();
    let b0 = b.current_block();
    let zero = b.iconst(0);
    let one = b.iconst(1);
    let two = b.iconst(2);
    let local = b.ins(InstKind::LocalId, Type::I32).unwrap();
    b.begin_loop();
    let (i, i_phi) = b.phi(Type::I32, vec![src(b0, zero)]);
    let (acc, acc_phi) = b.phi(Type::I32, vec![src(b0, zero)]);
    let reduce = InstKind::Subgroup {
        op: crate::ir::SubgroupOp::Reduce(crate::ir::AtomicOp::Add),
        args: [one, Value::reserved_value()],
    };
    let n = b.ins(reduce, Type::I32).unwrap();
    let acc2 = b.alu(AluOp::Iadd, &[acc, n]);
    let done = b.alu(AluOp::Uge, &[i, two]);
    b.begin_if(done);
    b.brk();
    b.begin_else();
    b.end_if();
    let i1 = b.alu(AluOp::Iadd, &[i, one]);
    let low = b.alu(AluOp::Iand, &[local, one]);
    let odd = b.alu(AluOp::I2b, &[low]);
    let cont = b.begin_if(odd);
    b.cont();
    b.begin_else();
    let fall = b.end_if();
    let tail = b.end_loop();
    let _ = tail;
    for pred in [cont, fall] {
        b.add_phi_source(i_phi, pred, i1);
        b.add_phi_source(acc_phi, pred, acc2);
    }
    b.ins(
        InstKind::StoreOutput {
            slot: 0,
            value: acc2,
        },
        Type::None,
    );
    let mut p = prog(b.finish(), 8, 1);
    p.dispatch.workgroup = 4;
    crate::ir::verify(&p).expect("verifies");
    let r = run(&p, &RunOptions::default()).unwrap();
    assert_eq!(r.outputs, [12; 8]);
}
