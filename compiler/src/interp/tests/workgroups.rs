//! Workgroups: ids, shared arrays ordered by barriers, and the races the interpreter refuses.

use super::*;
use crate::ir::parse_program;

fn run_text(src: &str) -> Result<Results, InterpError> {
    let p = parse_program(src, "test.ir").expect("parses");
    run(&p, &RunOptions::default())
}

const HEADER: &str = "invocations 8\noutputs 1\nworkgroup 4\nshared 4\n\nblock_0:\n";

/// Every invocation stores its id, waits, and reads the word `k` places on (wrapping in its
/// workgroup's array): each workgroup sees only its own words, all of them.
#[test]
fn a_barrier_publishes_each_invocations_store_to_its_workgroup() {
    for k in 0..4u32 {
        let src = format!(
            "{HEADER}  vec1 32 ssa_0 = load_invocation_id\n  vec1 32 ssa_1 = load_local_id\n  \
             store_shared 0, ssa_1, ssa_0\n  barrier\n  vec1 32 ssa_2 = load_const ({k})\n  \
             vec1 32 ssa_3 = iadd ssa_1, ssa_2\n  vec1 32 ssa_4 = load_shared 0, ssa_3\n  \
             store_output 0, ssa_4\n"
        );
        let r = run_text(&src).unwrap();
        let want: Vec<u32> = (0..8).map(|i| i / 4 * 4 + (i % 4 + k) % 4).collect();
        assert_eq!(r.outputs, want, "k = {k}");
    }
}

#[test]
fn local_and_workgroup_ids_split_the_invocation_id() {
    let src = "invocations 8\noutputs 2\nworkgroup 2\n\nblock_0:\n  \
               vec1 32 ssa_0 = load_local_id\n  vec1 32 ssa_1 = load_workgroup_id\n  \
               store_output 0, ssa_0\n  store_output 1, ssa_1\n";
    let r = run_text(src).unwrap();
    assert_eq!(r.outputs, [0, 0, 1, 0, 0, 1, 1, 1, 0, 2, 1, 2, 0, 3, 1, 3]);
}

/// Reading a neighbour's word without a barrier between its store and the read is a race.
#[test]
fn a_read_of_another_invocations_store_without_a_barrier_is_a_race() {
    let src = format!(
        "{HEADER}  vec1 32 ssa_0 = load_invocation_id\n  vec1 32 ssa_1 = load_local_id\n  \
         store_shared 0, ssa_1, ssa_0\n  vec1 32 ssa_2 = load_const (1)\n  \
         vec1 32 ssa_3 = iadd ssa_1, ssa_2\n  vec1 32 ssa_4 = load_shared 0, ssa_3\n  \
         store_output 0, ssa_4\n"
    );
    match run_text(&src) {
        Err(InterpError::SharedRace {
            invocation, other, ..
        }) => {
            // Invocation 0 reads word 1 after invocation 1 stored it (lockstep order).
            assert_eq!((invocation, other), (0, 1));
        }
        other => panic!("expected a race, got {other:?}"),
    }
}

/// Two invocations storing to one word is a race even when they store the same value; many
/// reading one word is not.
#[test]
fn two_stores_race_and_many_loads_do_not() {
    let store =
        format!("{HEADER}  vec1 32 ssa_0 = load_const (0)\n  store_shared 0, ssa_0, ssa_0\n");
    assert!(matches!(
        run_text(&store),
        Err(InterpError::SharedRace {
            invocation: 1,
            other: 0,
            ..
        })
    ));
    let load = format!(
        "{HEADER}  vec1 32 ssa_0 = load_const (2)\n  vec1 32 ssa_1 = load_shared 0, ssa_0\n  \
         store_output 0, ssa_1\n"
    );
    assert_eq!(run_text(&load).unwrap().outputs, [0; 8]);
    // A store after many reads of the word, before a barrier, races with the readers.
    let late = format!(
        "{HEADER}  vec1 32 ssa_0 = load_const (2)\n  vec1 32 ssa_1 = load_shared 0, ssa_0\n  \
         vec1 32 ssa_2 = load_local_id\n  vec1 1 ssa_3 = ieq ssa_2, ssa_0\n\
         if ssa_3 {{\n  block_1:\n    store_shared 0, ssa_0, ssa_2\n}} else {{\n  block_2:\n}}\n\
         block_3:\n  store_output 0, ssa_1\n"
    );
    assert!(matches!(
        run_text(&late),
        Err(InterpError::SharedRace {
            invocation: 2,
            other: 0,
            ..
        })
    ));
}

/// Workgroups start with zeroed shared arrays: the second workgroup does not see the first's
/// stores.
#[test]
fn each_workgroup_starts_with_zeroed_shared_arrays() {
    let src = format!(
        "{HEADER}  vec1 32 ssa_0 = load_local_id\n  vec1 32 ssa_1 = load_shared 0, ssa_0\n  \
         store_output 0, ssa_1\n  vec1 32 ssa_2 = load_invocation_id\n  \
         vec1 32 ssa_3 = load_const (100)\n  vec1 32 ssa_4 = iadd ssa_2, ssa_3\n  \
         store_shared 0, ssa_0, ssa_4\n"
    );
    assert_eq!(run_text(&src).unwrap().outputs, [0; 8]);
}

#[test]
fn a_barrier_inside_an_if_is_malformed() {
    let src = "invocations 2\noutputs 1\nworkgroup 2\n\nblock_0:\n  \
               vec1 1 ssa_0 = load_const (true)\nif ssa_0 {\n  block_1:\n    barrier\n} \
               else {\n  block_2:\n}\nblock_3:\n";
    let p = parse_program(src, "test.ir").expect("parses");
    let e = crate::ir::verify(&p).unwrap_err().to_string();
    assert!(e.contains("barrier-placement"), "{e}");
    assert!(matches!(
        run(&p, &RunOptions::default()),
        Err(InterpError::Malformed { .. })
    ));
}
