//! Atomic read-modify-write operations: what one atomic does to a word, shared by the
//! interpreter and the machines' memory units.
//!
//! An atomic returns the word's old value and stores `op(old, value)`. All but `xchg` are
//! commutative and associative, so a set of them on one word leaves the same final value in
//! any order; that is what lets invocations of a workgroup apply them to one shared word
//! without a barrier between them (as long as none uses the returned value, which does depend
//! on the order: the interpreter's race rule, `docs/semantics.md`).

/// One atomic operation on a 32-bit word.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum AtomicOp {
    /// Wrapping add.
    Add,
    /// Unsigned minimum.
    Umin,
    /// Unsigned maximum.
    Umax,
    /// Signed minimum.
    Imin,
    /// Signed maximum.
    Imax,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise exclusive or.
    Xor,
    /// Replaces the word (order shows in the final value: never unordered).
    Xchg,
}

impl AtomicOp {
    /// Every operation, in text-format order.
    pub const ALL: [AtomicOp; 9] = [
        AtomicOp::Add,
        AtomicOp::Umin,
        AtomicOp::Umax,
        AtomicOp::Imin,
        AtomicOp::Imax,
        AtomicOp::And,
        AtomicOp::Or,
        AtomicOp::Xor,
        AtomicOp::Xchg,
    ];

    /// The word after the operation, from the old word and the operand.
    #[inline]
    pub fn apply(self, old: u32, value: u32) -> u32 {
        match self {
            AtomicOp::Add => old.wrapping_add(value),
            AtomicOp::Umin => old.min(value),
            AtomicOp::Umax => old.max(value),
            AtomicOp::Imin => (old as i32).min(value as i32) as u32,
            AtomicOp::Imax => (old as i32).max(value as i32) as u32,
            AtomicOp::And => old & value,
            AtomicOp::Or => old | value,
            AtomicOp::Xor => old ^ value,
            AtomicOp::Xchg => value,
        }
    }

    /// Whether operations of this kind on one word give the same final word in any order.
    pub fn commutes(self) -> bool {
        self != AtomicOp::Xchg
    }

    /// Text-format name.
    pub fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "add",
            AtomicOp::Umin => "umin",
            AtomicOp::Umax => "umax",
            AtomicOp::Imin => "imin",
            AtomicOp::Imax => "imax",
            AtomicOp::And => "and",
            AtomicOp::Or => "or",
            AtomicOp::Xor => "xor",
            AtomicOp::Xchg => "xchg",
        }
    }

    /// The operation with a text-format name.
    pub fn from_name(name: &str) -> Option<AtomicOp> {
        AtomicOp::ALL.into_iter().find(|op| op.name() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::AtomicOp;

    #[test]
    fn names_round_trip() {
        for op in AtomicOp::ALL {
            assert_eq!(AtomicOp::from_name(op.name()), Some(op));
        }
        assert_eq!(AtomicOp::from_name("sub"), None);
    }

    #[test]
    fn signed_and_unsigned_differ() {
        let (a, b) = (0xffff_fff0, 5);
        assert_eq!(AtomicOp::Umin.apply(a, b), 5);
        assert_eq!(AtomicOp::Imin.apply(a, b), 0xffff_fff0);
        assert_eq!(AtomicOp::Umax.apply(a, b), 0xffff_fff0);
        assert_eq!(AtomicOp::Imax.apply(a, b), 5);
        assert_eq!(AtomicOp::Add.apply(u32::MAX, 2), 1);
        assert_eq!(AtomicOp::Xchg.apply(a, b), 5);
    }

    #[test]
    fn the_commutative_ops_commute() {
        let words = [0, 1, 5, 0x8000_0000, 0xffff_ffff, 0x1234_5678];
        for op in AtomicOp::ALL.into_iter().filter(|op| op.commutes()) {
            for &w in &words {
                for &a in &words {
                    for &b in &words {
                        assert_eq!(op.apply(op.apply(w, a), b), op.apply(op.apply(w, b), a));
                    }
                }
            }
        }
    }
}
