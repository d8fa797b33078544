//! Subgroup operations: what one operation gives each invocation of a subgroup, from the
//! values of the invocations executing it together.
//!
//! A subgroup is a workgroup (the IR's rule: `docs/semantics.md`), so its invocations are
//! numbered by their local id, at most 32 of them, and a set of them is a bit mask. The
//! invocations *active* at an operation are those of the subgroup that execute it together:
//! all of them in uniform control flow, the ones that took the same path elsewhere (maximal
//! reconvergence). Inactive invocations contribute nothing.
//!
//! The reductions and scans combine with the commutative [`AtomicOp`]s (everything but
//! `xchg`): integer operations, so the order of combining cannot show.

use super::AtomicOp;

/// One subgroup operation.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum SubgroupOp {
    /// Every active invocation's value combined (`OpGroupNonUniform* Reduce`).
    Reduce(AtomicOp),
    /// The values of the active invocations numbered up to and including this one
    /// (`InclusiveScan`).
    InclusiveScan(AtomicOp),
    /// The values of the active invocations numbered below this one, the operation's
    /// identity when there are none (`ExclusiveScan`).
    ExclusiveScan(AtomicOp),
    /// A mask of the active invocations whose boolean is true, bit `i` for local id `i`
    /// (`OpGroupNonUniformBallot`, its first word).
    Ballot,
    /// True in the lowest-numbered active invocation only (`OpGroupNonUniformElect`).
    Elect,
    /// The value of the active invocation numbered by the second operand
    /// (`OpGroupNonUniformShuffle`); undefined when that invocation is inactive or does not
    /// exist.
    Shuffle,
    /// The value of the lowest-numbered active invocation (`OpGroupNonUniformBroadcastFirst`).
    BroadcastFirst,
}

/// Why a subgroup operation has no defined result.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SubgroupFault {
    /// A shuffle read an invocation that is not active (or not in the subgroup).
    InactiveSource {
        /// The invocation that read.
        reader: u32,
        /// The invocation it named.
        source: u32,
    },
}

impl SubgroupOp {
    /// Every operation, in text-format order (reductions and scans once per combining op).
    pub fn all() -> impl Iterator<Item = SubgroupOp> {
        let combining = || AtomicOp::ALL.into_iter().filter(|o| o.commutes());
        combining()
            .map(SubgroupOp::Reduce)
            .chain(combining().map(SubgroupOp::InclusiveScan))
            .chain(combining().map(SubgroupOp::ExclusiveScan))
            .chain([
                SubgroupOp::Ballot,
                SubgroupOp::Elect,
                SubgroupOp::Shuffle,
                SubgroupOp::BroadcastFirst,
            ])
    }

    /// Operands: a value (a boolean for `ballot`), plus the source invocation of `shuffle`.
    pub fn arity(self) -> usize {
        match self {
            SubgroupOp::Elect => 0,
            SubgroupOp::Shuffle => 2,
            _ => 1,
        }
    }

    /// The combining operation of a reduction or scan.
    pub fn combining(self) -> Option<AtomicOp> {
        match self {
            SubgroupOp::Reduce(op)
            | SubgroupOp::InclusiveScan(op)
            | SubgroupOp::ExclusiveScan(op) => Some(op),
            _ => None,
        }
    }

    /// Text-format mnemonic (the combining operation follows it for reductions and scans).
    pub fn mnemonic(self) -> &'static str {
        match self {
            SubgroupOp::Reduce(_) => "subgroup_reduce",
            SubgroupOp::InclusiveScan(_) => "subgroup_scan",
            SubgroupOp::ExclusiveScan(_) => "subgroup_exscan",
            SubgroupOp::Ballot => "subgroup_ballot",
            SubgroupOp::Elect => "subgroup_elect",
            SubgroupOp::Shuffle => "subgroup_shuffle",
            SubgroupOp::BroadcastFirst => "subgroup_broadcast_first",
        }
    }

    /// The operation spelled `mnemonic` with the combining operation `combining` (present
    /// exactly for reductions and scans).
    pub fn from_text(mnemonic: &str, combining: Option<AtomicOp>) -> Option<SubgroupOp> {
        let op = match (mnemonic, combining) {
            ("subgroup_reduce", Some(op)) => SubgroupOp::Reduce(op),
            ("subgroup_scan", Some(op)) => SubgroupOp::InclusiveScan(op),
            ("subgroup_exscan", Some(op)) => SubgroupOp::ExclusiveScan(op),
            ("subgroup_ballot", None) => SubgroupOp::Ballot,
            ("subgroup_elect", None) => SubgroupOp::Elect,
            ("subgroup_shuffle", None) => SubgroupOp::Shuffle,
            ("subgroup_broadcast_first", None) => SubgroupOp::BroadcastFirst,
            _ => return None,
        };
        op.combining().is_none_or(|c| c.commutes()).then_some(op)
    }

    /// Whether the mnemonic takes a combining operation.
    pub fn takes_combining(mnemonic: &str) -> bool {
        matches!(
            mnemonic,
            "subgroup_reduce" | "subgroup_scan" | "subgroup_exscan"
        )
    }

    /// The result in each active invocation of a subgroup: `a[i]` and `b[i]` are invocation
    /// `i`'s operands (a boolean is 0 or 1), `active` the mask of those executing the
    /// operation together; `out[i]` is written for every active `i`, left alone elsewhere.
    pub fn eval(
        self,
        active: u32,
        a: &[u32],
        b: &[u32],
        out: &mut [u32],
    ) -> Result<(), SubgroupFault> {
        let lanes = || (0..a.len()).filter(move |&i| active >> i & 1 != 0);
        let first = active.trailing_zeros() as usize;
        match self {
            SubgroupOp::Reduce(op) => {
                let total = lanes().fold(identity(op), |acc, i| op.apply(acc, a[i]));
                lanes().for_each(|i| out[i] = total);
            }
            SubgroupOp::InclusiveScan(op) | SubgroupOp::ExclusiveScan(op) => {
                let inclusive = matches!(self, SubgroupOp::InclusiveScan(_));
                let mut acc = identity(op);
                for i in lanes() {
                    let before = acc;
                    acc = op.apply(acc, a[i]);
                    out[i] = if inclusive { acc } else { before };
                }
            }
            SubgroupOp::Ballot => {
                let mask = lanes().fold(0, |m, i| m | u32::from(a[i] != 0) << i);
                lanes().for_each(|i| out[i] = mask);
            }
            SubgroupOp::Elect => lanes().for_each(|i| out[i] = u32::from(i == first)),
            SubgroupOp::BroadcastFirst => {
                if first < a.len() {
                    let v = a[first];
                    lanes().for_each(|i| out[i] = v);
                }
            }
            SubgroupOp::Shuffle => {
                for i in lanes() {
                    let src = b[i];
                    if src as usize >= a.len() || active >> src & 1 == 0 {
                        return Err(SubgroupFault::InactiveSource {
                            reader: i as u32,
                            source: src,
                        });
                    }
                    out[i] = a[src as usize];
                }
            }
        }
        Ok(())
    }
}

/// The value `op` leaves any word unchanged with: an exclusive scan's result in the first
/// active invocation.
pub fn identity(op: AtomicOp) -> u32 {
    match op {
        AtomicOp::Add | AtomicOp::Umax | AtomicOp::Or | AtomicOp::Xor | AtomicOp::Xchg => 0,
        AtomicOp::Umin | AtomicOp::And => u32::MAX,
        AtomicOp::Imin => i32::MAX as u32,
        AtomicOp::Imax => i32::MIN as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(op: SubgroupOp, active: u32, a: &[u32], b: &[u32]) -> Vec<u32> {
        let mut out = vec![0xdead; a.len()];
        op.eval(active, a, b, &mut out).unwrap();
        out
    }

    #[test]
    fn text_round_trips() {
        let mut n = 0;
        for op in SubgroupOp::all() {
            assert_eq!(
                SubgroupOp::from_text(op.mnemonic(), op.combining()),
                Some(op)
            );
            assert_eq!(
                SubgroupOp::takes_combining(op.mnemonic()),
                op.combining().is_some()
            );
            n += 1;
        }
        assert_eq!(n, 8 * 3 + 4);
        assert_eq!(
            SubgroupOp::from_text("subgroup_reduce", Some(AtomicOp::Xchg)),
            None
        );
        assert_eq!(SubgroupOp::from_text("subgroup_reduce", None), None);
        assert_eq!(
            SubgroupOp::from_text("subgroup_elect", Some(AtomicOp::Add)),
            None
        );
    }

    #[test]
    fn identities_leave_words_alone() {
        for op in AtomicOp::ALL.into_iter().filter(|o| o.commutes()) {
            for w in [0, 1, 7, 0x8000_0000, u32::MAX, 0x7fff_ffff] {
                assert_eq!(op.apply(identity(op), w), w, "{op:?}");
            }
        }
    }

    #[test]
    fn known_answers_over_some_lanes() {
        let a = [5, 1, 9, 3];
        // Lanes 0, 2 and 3 active; lane 1 keeps its old result.
        let active = 0b1101;
        let add = AtomicOp::Add;
        assert_eq!(
            run(SubgroupOp::Reduce(add), active, &a, &[]),
            [17, 0xdead, 17, 17]
        );
        assert_eq!(
            run(SubgroupOp::InclusiveScan(add), active, &a, &[]),
            [5, 0xdead, 14, 17]
        );
        assert_eq!(
            run(SubgroupOp::ExclusiveScan(add), active, &a, &[]),
            [0, 0xdead, 5, 14]
        );
        assert_eq!(
            run(SubgroupOp::ExclusiveScan(AtomicOp::Umin), active, &a, &[]),
            [u32::MAX, 0xdead, 5, 5]
        );
        assert_eq!(
            run(
                SubgroupOp::Reduce(AtomicOp::Imin),
                0b11,
                &[1, u32::MAX],
                &[]
            ),
            [u32::MAX; 2]
        );
        assert_eq!(
            run(SubgroupOp::Ballot, active, &[1, 1, 0, 1], &[]),
            [0b1001, 0xdead, 0b1001, 0b1001]
        );
        assert_eq!(
            run(SubgroupOp::Elect, 0b1100, &a, &[]),
            [0xdead, 0xdead, 1, 0]
        );
        assert_eq!(
            run(SubgroupOp::BroadcastFirst, 0b1010, &a, &[]),
            [0xdead, 1, 0xdead, 1]
        );
        assert_eq!(
            run(SubgroupOp::Shuffle, active, &a, &[3, 0, 0, 2]),
            [3, 0xdead, 5, 9]
        );
    }

    #[test]
    fn a_shuffle_of_an_inactive_lane_is_undefined() {
        let mut out = [0; 4];
        let e = SubgroupOp::Shuffle.eval(0b1101, &[1, 2, 3, 4], &[1, 0, 0, 0], &mut out);
        assert_eq!(
            e,
            Err(SubgroupFault::InactiveSource {
                reader: 0,
                source: 1
            })
        );
        let e = SubgroupOp::Shuffle.eval(0b1, &[1], &[4], &mut out);
        assert_eq!(
            e,
            Err(SubgroupFault::InactiveSource {
                reader: 0,
                source: 4
            })
        );
    }
}
