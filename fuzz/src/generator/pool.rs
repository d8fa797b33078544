//! The values in scope: every value whose definition dominates the insertion point.
//!
//! Invariant: an entry is in the pool only while its definition dominates the block being
//! appended to. Scopes are marks (pool lengths): entering an `if` side or a loop body pushes
//! a mark, leaving truncates to it. Values of a loop header are pushed before the body's mark,
//! so they stay in scope after the loop (the header dominates the block after the loop).

use compiler::ir::{BitSize, Type, Value};

/// How a 32-bit value is meant to be read (types do not say; this steers op choice so
/// float ops mostly see floats and integer ops integers).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Flavor {
    /// A 32-bit integer.
    Int,
    /// A 32-bit float.
    Float,
    /// A boolean.
    Bool,
}

/// One value in scope.
#[derive(Copy, Clone, Debug)]
pub struct Entry {
    /// The value.
    pub v: Value,
    /// Its type.
    pub ty: Type,
    /// How it is meant to be read.
    pub flavor: Flavor,
    /// Produced by a long-latency unit (SFU op or texture): steered across blocks/back-edges.
    pub slow: bool,
}

/// Values in scope, oldest first, with the positions of each type's entries: operands are
/// picked among the values of one type, and scanning the whole pool for them was most of
/// the generator's time on large programs.
#[derive(Default, Debug)]
pub struct Pool {
    entries: Vec<Entry>,
    /// Positions in `entries` of each type's entries, ascending ([`slot`]).
    by_type: [Vec<usize>; SLOTS],
    marks: Vec<usize>,
}

/// Types a value can have: `vec1`–`vec4` of 1, 16 or 32 bits, `vec1 64`, and derefs.
const SLOTS: usize = 14;

/// Where `ty`'s positions are kept.
fn slot(ty: Type) -> usize {
    match ty {
        Type::Data { bits, comps } => {
            let bits = match bits {
                BitSize::B1 => 0,
                BitSize::B32 => 4,
                BitSize::B16 => 9,
                BitSize::B64 => 13,
            };
            bits + (comps.clamp(1, 4) as usize - 1)
        }
        Type::Deref | Type::None => 8,
    }
}

impl Pool {
    /// The values in scope, oldest first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The newest value in scope.
    pub fn last(&self) -> Option<Entry> {
        self.entries.last().copied()
    }

    /// Adds a value.
    pub fn push(&mut self, e: Entry) {
        self.by_type[slot(e.ty)].push(self.entries.len());
        self.entries.push(e);
    }

    /// Drops the newest value.
    pub fn pop_last(&mut self) {
        self.split_off(self.entries.len().saturating_sub(1));
    }

    /// Removes and returns the values from position `at` on.
    pub fn split_off(&mut self, at: usize) -> Vec<Entry> {
        let gone = self.entries.split_off(at);
        // The removed entries are the newest of their types: each list loses its tail.
        for e in gone.iter().rev() {
            self.by_type[slot(e.ty)].pop();
        }
        gone
    }

    /// Opens a scope.
    pub fn mark(&mut self) {
        self.marks.push(self.entries.len());
    }

    /// Closes the innermost scope, dropping its values.
    pub fn pop(&mut self) {
        let m = self.marks.pop().expect("pool scope underflow");
        self.split_off(m);
    }

    /// Positions of the entries of type `ty`, ascending.
    pub fn matching(&self, ty: Type) -> &[usize] {
        // A deref shares its list with `None`, which no value has.
        &self.by_type[slot(ty)]
    }
}
