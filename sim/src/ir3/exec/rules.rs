//! ir3's own rules for when a result may be read, as facts from Mesa 25.0.7's
//! `src/freedreno/ir3/` (the 26.2.6 source is not in the archive; the listings of 26.2.6 follow
//! the same rules, `docs/ir3-execute.md`):
//!
//! * **delay slots** (`ir3_delay.c`, `ir3_delayslots`): an ALU (cat1–3) result needs
//!   `alu_to_alu` slots before an ALU reader and `non_alu` before a cat0/4/5/6 reader; a write
//!   of `a0.x`/`a1.x` needs `non_alu` before any reader; reading half of a full register
//!   written whole (or the reverse) adds 3; a cat3's third source is read
//!   `cat3_src2_read` cycles late (`ir3_src_read_delay`; before a7xx only `mad*`/`madsh*`);
//!   `end` needs none. `ir3_compiler.c`: 3 / 6 / 2 before a7xx, 2 / 5 / 1 from a7xx on;
//! * **`(ss)`** (`is_ss_producer`, `ir3.h`; `legalize_block`, `ir3_legalize.c`): results of
//!   cat4 (SFU), `shfl`, local-memory loads and any write of a shared register are read only
//!   after an `(ss)` — except a scalar-ALU result read by a scalar-ALU instruction of the
//!   same register size (`needs_ss`); a const read after `stc` needs `(ss)`;
//! * **`(sy)`** (`is_sy_producer`): results of cat5 and of non-local loads are read only
//!   after a `(sy)`; a const read after `ldc.k` needs `(sy)`;
//! * **write after read** (`is_war_hazard_producer`): cat5, cat6, SFU, shared-register writers
//!   and `stc` read their sources late; overwriting such a source needs an `(ss)` first (or a
//!   `(sy)` when the reader was a load or cat5);
//! * **write after write**: a register with an outstanding `(ss)`/`(sy)` result is written
//!   only after the flag (`legalize_block` applies the same masks to destinations).
//!
//! `(ss)` waits for every outstanding ss-class result of the wave, `(sy)` for every sy-class
//! one; slots are counted in cycles: one per instruction, plus its `(rptN)` and `(nopN)`.

use std::fmt;

use super::super::Gen;

/// The chip facts the executor needs (`common/freedreno_devices.py`, `ir3_compiler.c`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chip {
    /// The ISA generation.
    pub gen: Gen,
    /// `has_scalar_alu`: ALU instructions writing shared registers run on the scalar ALU
    /// (a660 and later).
    pub scalar_alu: bool,
}

impl Chip {
    /// Slots between an ALU result and an ALU reader.
    pub fn alu_to_alu(self) -> u64 {
        match self.gen {
            Gen::A6xx => 3,
            Gen::A7xx => 2,
        }
    }

    /// Slots between an ALU (or address register) result and any other reader.
    pub fn non_alu(self) -> u64 {
        match self.gen {
            Gen::A6xx => 6,
            Gen::A7xx => 5,
        }
    }

    /// How late a cat3's third source is read.
    pub fn cat3_src2_read(self) -> u64 {
        match self.gen {
            Gen::A6xx => 2,
            Gen::A7xx => 1,
        }
    }
}

/// Which of ir3's rules a read or write broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// An ss-class result read without an `(ss)` since.
    Ss,
    /// A sy-class result read without a `(sy)` since.
    Sy,
    /// An ALU result read too soon.
    Slots {
        /// Slots the rule asks for.
        needed: u64,
        /// Slots there were.
        had: u64,
    },
    /// A source of a late reader overwritten without an `(ss)` (or `(sy)`) since.
    WriteAfterRead,
    /// A register with an outstanding `(ss)`/`(sy)` result written without the flag.
    WriteAfterWrite,
    /// A const read after `stc` without `(ss)`, or after `ldc.k` without `(sy)`.
    Const {
        /// Whether `(sy)` (`ldc.k`) rather than `(ss)` (`stc`) was missing.
        sy: bool,
    },
}

impl Rule {
    /// The bucket word: what was missing.
    pub fn class(&self) -> &'static str {
        match self {
            Rule::Ss => "missing-ss",
            Rule::Sy => "missing-sy",
            Rule::Slots { .. } => "delay-slots",
            Rule::WriteAfterRead => "war",
            Rule::WriteAfterWrite => "waw",
            Rule::Const { sy: false } => "const-ss",
            Rule::Const { sy: true } => "const-sy",
        }
    }
}

/// One broken rule: the instruction pair and the register.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Hazard {
    /// What was broken.
    pub rule: Rule,
    /// The register (or `c[…]`), as ir3 names it.
    pub reg: String,
    /// The instruction that wrote it (or, for a write after read, read it).
    pub producer: usize,
    /// The instruction that read (or wrote) it too early.
    pub consumer: usize,
}

impl fmt::Display for Hazard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (p, c, r) = (self.producer, self.consumer, &self.reg);
        match self.rule {
            Rule::Ss => write!(f, "#{c} reads {r}, written by #{p}, without (ss) since"),
            Rule::Sy => write!(f, "#{c} reads {r}, written by #{p}, without (sy) since"),
            Rule::Slots { needed, had } => write!(
                f,
                "#{c} reads {r} {had} slots after #{p} wrote it; ir3's rule needs {needed}"
            ),
            Rule::WriteAfterRead => {
                write!(
                    f,
                    "#{c} overwrites {r} before #{p} has read it (no (ss) since)"
                )
            }
            Rule::WriteAfterWrite => write!(
                f,
                "#{c} writes {r} while #{p}'s result for it is outstanding (no sync since)"
            ),
            Rule::Const { sy } => write!(
                f,
                "#{c} reads {r} after #{p} wrote the const file, without {} since",
                if sy { "(sy)" } else { "(ss)" }
            ),
        }
    }
}
