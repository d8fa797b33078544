//! Hazards: reads and writes the hardware would get wrong, each with the facts needed to fix
//! the program (register, producer and consumer instruction indices, what was missing).
//! The run goes on with the value the hardware would have produced (the old contents).

use std::fmt;

use super::reg::Reg;

/// What the program lacked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Missing {
    /// A `(ss)` on the consumer (or on an instruction between).
    Ss,
    /// A `(sy)` on the consumer (or on an instruction between).
    Sy,
    /// Delay slots: `needed` were required, `had` were there.
    Slots {
        /// Slots the rule asks for.
        needed: u8,
        /// Slots the program gave.
        had: u8,
    },
}

impl fmt::Display for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Missing::Ss => write!(f, "(ss)"),
            Missing::Sy => write!(f, "(sy)"),
            Missing::Slots { needed, had } => write!(f, "{needed} delay slots (had {had})"),
        }
    }
}

/// The kind of a hazard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum HazardKind {
    /// A register read before its producer's result was visible; the read saw the old value.
    ReadTooEarly(Missing),
    /// A register written while an async instruction still had to read it as a source.
    WriteAfterRead(Missing),
    /// A register written while an async result for the same fibers was still outstanding
    /// and would land after this write (an ALU write after a load, a texture after a slower
    /// load). The model keeps the newer value; the hardware would not.
    WriteAfterWrite(Missing),
    /// A register read by fibers that never wrote it (`producer` is `None`).
    Uninitialized,
    /// `ldp` of a private word no `stp` wrote; it read 0.
    PrivateUninitialized {
        /// The word address (after wrapping).
        address: u32,
    },
    /// A private address at or past `Config::private_words`; it wrapped.
    PrivateOutOfRange {
        /// The address before wrapping.
        address: u32,
    },
    /// Parked fibers rejoined at an instruction not marked `(jp)`.
    MissingJp,
}

/// One hazard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Hazard {
    /// What went wrong.
    pub kind: HazardKind,
    /// The register involved, if any.
    pub reg: Option<Reg>,
    /// Index of the instruction that produced (or, for write-after-read, read) the value.
    pub producer: Option<u32>,
    /// Index of the instruction where the hazard happened.
    pub consumer: u32,
    /// The wave it happened in (first occurrence).
    pub wave: u32,
}

impl fmt::Display for Hazard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.reg.map(|r| r.to_string()).unwrap_or_default();
        let p = self.producer.map(|p| format!("#{p}")).unwrap_or_default();
        let c = self.consumer;
        match self.kind {
            HazardKind::ReadTooEarly(m) => {
                write!(
                    f,
                    "#{c} reads {r} before {p}'s result is visible: missing {m}"
                )
            }
            HazardKind::WriteAfterRead(m) => {
                write!(f, "#{c} overwrites {r} before {p} has read it: missing {m}")
            }
            HazardKind::WriteAfterWrite(m) => {
                write!(
                    f,
                    "#{c} writes {r} while {p}'s result is outstanding: missing {m}"
                )
            }
            HazardKind::Uninitialized => write!(f, "#{c} reads {r}, never written"),
            HazardKind::PrivateUninitialized { address } => {
                write!(f, "#{c} loads private word {address}, never stored")
            }
            HazardKind::PrivateOutOfRange { address } => {
                write!(f, "#{c} accesses private word {address}, past the end")
            }
            HazardKind::MissingJp => write!(f, "fibers rejoin at #{c}, not marked (jp)"),
        }
    }
}

/// The hazards of a run: distinct ones up to a cap, and a count of every occurrence.
#[derive(Clone, Debug, Default)]
pub(super) struct Hazards {
    pub list: Vec<Hazard>,
    pub count: u64,
    pub cap: usize,
}

impl Hazards {
    /// Records `h` (deduplicated by everything but the wave).
    #[cold]
    pub fn push(&mut self, h: Hazard) {
        self.count += 1;
        if self.list.len() < self.cap
            && !self.list.iter().any(|o| {
                o.kind == h.kind
                    && o.reg == h.reg
                    && o.producer == h.producer
                    && o.consumer == h.consumer
            })
        {
            self.list.push(h);
        }
    }
}
