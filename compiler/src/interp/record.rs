//! Every value an invocation computed, as the interpreter computed it: for triage, which holds
//! a compiled program's intermediate values against them (the `anv` target's tracer names the
//! IR value a machine register carried). A recording run ([`super::run_recording`]) is the
//! plain run with one more step per op, chosen by a const generic, so the fuzz loop's runs
//! carry none of it.
//!
//! Recorded: each value an instruction, a phi or a load writes, per component, each time it
//! is written (a value in a loop body once per pass). Not recorded: derefs (places, not data),
//! what stores write (the value stored is recorded where it was computed) and branch
//! conditions' outcomes beyond the boolean values themselves.

use crate::ir::Value;

/// One component of one value, as one invocation computed it once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seen {
    /// The value.
    pub value: Value,
    /// Its component.
    pub component: u8,
    /// The word.
    pub word: u32,
}

/// What a recording run saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recorded {
    /// Per invocation, the values it computed, in the order it computed them.
    pub invocations: Vec<Vec<Seen>>,
}

impl Recorded {
    /// The values (with component) invocation `invocation` ever held as `word`, each once, in
    /// the order first computed.
    pub fn named(&self, invocation: u32, word: u32) -> Vec<(Value, u8)> {
        let mut out: Vec<(Value, u8)> = Vec::new();
        let seen = self.invocations.get(invocation as usize);
        for s in seen.into_iter().flatten().filter(|s| s.word == word) {
            if !out.contains(&(s.value, s.component)) {
                out.push((s.value, s.component));
            }
        }
        out
    }

    /// The words invocation `invocation` held in `value`'s component `component`, in order.
    pub fn words(&self, invocation: u32, value: Value, component: u8) -> Vec<u32> {
        let seen = self.invocations.get(invocation as usize);
        (seen.into_iter().flatten())
            .filter(|s| s.value == value && s.component == component)
            .map(|s| s.word)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{run, run_recording, RunOptions};
    use crate::ir::text::parse_program;
    use crate::ir::Value;

    fn program(name: &str) -> crate::ir::Program {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../corpus/regressions")
            .join(name);
        parse_program(&std::fs::read_to_string(path).unwrap(), name).unwrap()
    }

    #[test]
    fn a_recording_run_sees_each_value_each_time_it_is_computed_and_answers_as_a_plain_run() {
        // trivial_backedge_phi.ir: the loop counts ssa_7 = 0, 1, 2, 3 through its phi, with
        // ssa_10 = ssa_7 + 1 on each pass that does not break; ssa_2 = id + 7.
        let p = program("trivial_backedge_phi.ir");
        let opts = RunOptions::default();
        let (results, recorded) = run_recording(&p, &opts).unwrap();
        assert_eq!(results, run(&p, &opts).unwrap());
        let v = Value::from_u32;
        assert_eq!(recorded.words(2, v(7), 0), [0, 1, 2, 3]);
        assert_eq!(recorded.words(2, v(10), 0), [1, 2, 3]);
        assert_eq!(recorded.words(2, v(2), 0), [9]);
        assert_eq!(recorded.words(0, v(2), 0), [7]);
        // 9 in invocation 2 is ssa_2 and the phi ssa_6 that carries it round the loop.
        assert_eq!(recorded.named(2, 9), [(v(2), 0), (v(6), 0)]);
        assert_eq!(recorded.named(2, 0xdead), []);
    }

    #[test]
    fn a_side_not_taken_records_nothing() {
        // if_else_merge_phis.ir: odd invocations compute ssa_5 = id * 3, even ones ssa_8.
        let p = program("if_else_merge_phis.ir");
        let (_, recorded) = run_recording(&p, &RunOptions::default()).unwrap();
        let v = Value::from_u32;
        assert_eq!(recorded.words(3, v(5), 0), [9]);
        assert_eq!(recorded.words(3, v(8), 0), Vec::<u32>::new());
        assert_eq!(recorded.words(4, v(8), 0), [104]);
        assert_eq!(recorded.words(4, v(10), 0), [104]);
    }
}
