//! Register names and source operands: full GPRs `r0.x`–`r47.w`, predicates `p0.x`–`p0.w`,
//! the const file `c0.x`… and immediates.
//!
//! A [`Reg`] is one scalar register. GPRs are numbered `4 * n + component` (so `r1.y` is 5);
//! the four predicates follow the 192 GPRs in the same numbering, which lets the executor keep
//! one register file and one set of timing records for both.

use std::fmt;

/// Number of full scalar GPRs (`r0.x`–`r47.w`).
pub const GPRS: usize = 192;
/// Number of predicate registers on a6xx (`p0.x`–`p0.w`).
pub const PREDS: usize = 4;
/// Rows of the register file: the GPRs, then the predicates.
pub const ROWS: usize = GPRS + PREDS;

const COMPONENTS: [char; 4] = ['x', 'y', 'z', 'w'];

/// One scalar register: a GPR `r<n>.<c>` or a predicate `p0.<c>`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Reg(u8);

impl Reg {
    /// The GPR with scalar index `index` (`4 * n + component`), or `None` past `r47.w`.
    pub const fn gpr(index: u16) -> Option<Reg> {
        if (index as usize) < GPRS {
            Some(Reg(index as u8))
        } else {
            None
        }
    }

    /// `r<n>.<component>`. Panics if `n >= 48` or `component >= 4` (a caller bug; programs
    /// built from untrusted data should use [`Reg::gpr`]).
    pub const fn r(n: u8, component: u8) -> Reg {
        assert!(n < 48 && component < 4, "no such GPR");
        Reg(n * 4 + component)
    }

    /// Predicate `p0.<component>`. Panics if `component >= 4`.
    pub const fn p(component: u8) -> Reg {
        assert!(component < 4, "no such predicate");
        Reg(GPRS as u8 + component)
    }

    /// Row of the register file: the GPR's scalar index, or `192 + c` for `p0.c`.
    #[inline]
    pub const fn row(self) -> usize {
        self.0 as usize
    }

    /// Whether this is a predicate register.
    #[inline]
    pub const fn is_pred(self) -> bool {
        self.0 as usize >= GPRS
    }

    /// The GPR `k` scalars after this one (`r0.w + 1 = r1.x`), or `None` past `r47.w` or for a
    /// predicate.
    pub const fn add(self, k: u8) -> Option<Reg> {
        if self.is_pred() {
            return None;
        }
        Reg::gpr(self.0 as u16 + k as u16)
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = self.0 as usize;
        if i < GPRS {
            write!(f, "r{}.{}", i / 4, COMPONENTS[i % 4])
        } else {
            write!(f, "p0.{}", COMPONENTS[i - GPRS])
        }
    }
}

/// A source operand of a cat1–cat4 instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Src {
    /// A register (GPR, or a predicate where the instruction allows one: `mov` and the bit ops).
    Reg(Reg),
    /// Scalar `k` of the const file, printed `c<k/4>.<comp>`: the dispatch's uniform `k`, or 0
    /// past the last uniform.
    Const(u16),
    /// A 32-bit immediate, the same for every fiber.
    Imm(u32),
}

impl From<Reg> for Src {
    fn from(r: Reg) -> Src {
        Src::Reg(r)
    }
}

/// A predicate condition of a branch: `p0.c`, or `!p0.c` when inverted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cond {
    /// Which predicate (0–3 for `p0.x`–`p0.w`).
    pub pred: u8,
    /// The invert bit: branch when the predicate is false.
    pub inv: bool,
}

impl Cond {
    /// `p0.<pred>`.
    pub const fn p(pred: u8) -> Cond {
        Cond { pred, inv: false }
    }

    /// `!p0.<pred>`.
    pub const fn not(pred: u8) -> Cond {
        Cond { pred, inv: true }
    }

    /// The predicate register read.
    pub fn reg(self) -> Option<Reg> {
        if (self.pred as usize) < PREDS {
            Some(Reg(GPRS as u8 + self.pred))
        } else {
            None
        }
    }
}

impl fmt::Display for Cond {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = COMPONENTS.get(self.pred as usize).copied().unwrap_or('?');
        write!(f, "{}p0.{c}", if self.inv { "!" } else { "" })
    }
}

/// Prints const scalar `k` as `c<k/4>.<comp>`.
pub(super) fn fmt_const(f: &mut fmt::Formatter<'_>, k: u16) -> fmt::Result {
    write!(f, "c{}.{}", k / 4, COMPONENTS[k as usize % 4])
}
