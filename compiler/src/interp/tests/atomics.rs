//! Atomics: what each operation leaves, which shared atomics may share a word without a
//! barrier (commutative, results unused, one operation) and which race.

use super::*;
use crate::ir::parse_program;

fn run_text(src: &str) -> Result<Results, InterpError> {
    let p = parse_program(src, "test.ir").expect("parses");
    crate::ir::verify(&p).expect("verifies");
    run(&p, &RunOptions::default())
}

/// Every invocation of two workgroups of 4 applies `op` with `f(local id)` to word 0 of the
/// shared array (result unused), waits, and reads the word.
fn all_to_one_word(op: &str, operand: &str) -> String {
    format!(
        "invocations 8\noutputs 1\nworkgroup 4\nshared 2\n\nblock_0:\n  \
         vec1 32 ssa_0 = load_local_id\n  vec1 32 ssa_1 = load_const ({operand})\n  \
         vec1 32 ssa_2 = ishl ssa_1, ssa_0\n  vec1 32 ssa_3 = load_const (0)\n  \
         vec1 32 ssa_4 = atomic_shared {op} 0, ssa_3, ssa_2\n  barrier\n  \
         vec1 32 ssa_5 = load_shared 0, ssa_3\n  store_output 0, ssa_5\n"
    )
}

/// The operands are `operand << local id`; the word starts at 0.
#[test]
fn unordered_atomics_on_one_word_leave_the_combined_value() {
    let cases = [
        ("add", "1", 1 + 2 + 4 + 8),
        ("or", "1", 0b1111),
        ("xor", "3", 3 ^ 6 ^ 12 ^ 24),
        ("and", "3", 0),
        ("umax", "0x10000000", 0x8000_0000),
        ("umin", "1", 0),
        ("imax", "0x10000000", 0x4000_0000),
        ("imin", "0x10000000", 0x8000_0000),
    ];
    for (op, operand, want) in cases {
        let r = run_text(&all_to_one_word(op, operand)).unwrap();
        assert_eq!(r.outputs, [want; 8], "{op}");
    }
}

/// An exchange from several invocations shows their order in the word: a race.
#[test]
fn unordered_exchanges_race() {
    let e = run_text(&all_to_one_word("xchg", "1")).unwrap_err();
    assert!(
        matches!(
            e,
            InterpError::SharedRace {
                invocation: 1,
                other: 0,
                ..
            }
        ),
        "{e}"
    );
}

/// Using the old value of a word others add to shows the order: a race, as is mixing two
/// operations on one word.
#[test]
fn a_used_result_or_a_second_operation_on_the_word_races() {
    let used = all_to_one_word("add", "1").replace(
        "store_output 0, ssa_5",
        "vec1 32 ssa_6 = iadd ssa_5, ssa_4\n  store_output 0, ssa_6",
    );
    assert!(matches!(
        run_text(&used),
        Err(InterpError::SharedRace {
            invocation: 1,
            other: 0,
            ..
        })
    ));
    let mixed = all_to_one_word("add", "1").replace(
        "  barrier\n",
        "  vec1 32 ssa_9 = atomic_shared or 0, ssa_3, ssa_2\n  barrier\n",
    );
    assert!(matches!(
        run_text(&mixed),
        Err(InterpError::SharedRace {
            invocation: 0,
            other: 1,
            ..
        })
    ));
    // A plain load of the word before the barrier sees an order too.
    let load = all_to_one_word("add", "1").replace(
        "  barrier\n",
        "  vec1 32 ssa_9 = load_shared 0, ssa_3\n  store_output 0, ssa_9\n  barrier\n",
    );
    assert!(matches!(
        run_text(&load),
        Err(InterpError::SharedRace {
            invocation: 0,
            other: 1,
            ..
        })
    ));
}

/// On its own word an invocation may use what an atomic returns: the old word.
#[test]
fn an_atomic_on_an_own_word_returns_the_old_word() {
    let src = "invocations 4\noutputs 2\nworkgroup 4\nshared 4\n\nblock_0:\n  \
               vec1 32 ssa_0 = load_local_id\n  vec1 32 ssa_1 = load_const (5)\n  \
               store_shared 0, ssa_0, ssa_1\n  \
               vec1 32 ssa_2 = atomic_shared xchg 0, ssa_0, ssa_0\n  \
               vec1 32 ssa_3 = atomic_shared add 0, ssa_0, ssa_1\n  \
               store_output 0, ssa_2\n  store_output 1, ssa_3\n";
    let r = run_text(src).unwrap();
    assert_eq!(r.outputs, [5, 0, 5, 1, 5, 2, 5, 3]);
}

/// A buffer atomic returns the invocation's old word and leaves `op(old, value)` there.
#[test]
fn a_buffer_atomic_returns_the_old_word_and_stores_the_new() {
    let src = "invocations 2\noutputs 1\nbuffer 2\n\nblock_0:\n  \
               vec1 32 ssa_0 = load_const (1)\n  vec1 32 ssa_1 = load_const (0xff)\n  \
               vec1 32 ssa_2 = atomic_buffer and 0, ssa_0, ssa_1\n  store_output 0, ssa_2\n";
    let r = run_text(src).unwrap();
    for i in 0..2u32 {
        let old = sim::semantics::buffer_word(0, i, 1);
        assert_eq!(r.outputs[i as usize], old);
        assert_eq!(r.buffers[0][(i * 2 + 1) as usize], old & 0xff);
    }
}

#[test]
fn atomics_round_trip_through_text_and_name_bad_operations() {
    let src = all_to_one_word("umax", "1");
    let p = parse_program(&src, "t.ir").unwrap();
    let printed = crate::ir::print_program(&p);
    assert!(
        printed.contains("atomic_shared umax 0, ssa_3, ssa_2"),
        "{printed}"
    );
    assert_eq!(parse_program(&printed, "t.ir").unwrap(), p);
    let bad = src.replace("umax", "umul");
    let e = parse_program(&bad, "bad.ir").unwrap_err().to_string();
    assert!(e.contains("unknown atomic operation `umul`"), "{e}");
    assert!(e.contains("bad.ir:11:33"), "{e}");
}
