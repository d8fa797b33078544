//! The values in scope: every value whose definition dominates the insertion point.
//!
//! Invariant: an entry is in the pool only while its definition dominates the block being
//! appended to. Scopes are marks (pool lengths): entering an `if` side or a loop body pushes
//! a mark, leaving truncates to it. Values of a loop header are pushed before the body's mark,
//! so they stay in scope after the loop (the header dominates the block after the loop).

use compiler::ir::{Type, Value};

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

/// Values in scope, oldest first.
#[derive(Default, Debug)]
pub struct Pool {
    /// The entries.
    pub entries: Vec<Entry>,
    marks: Vec<usize>,
}

impl Pool {
    /// Adds a value.
    pub fn push(&mut self, e: Entry) {
        self.entries.push(e);
    }

    /// Opens a scope.
    pub fn mark(&mut self) {
        self.marks.push(self.entries.len());
    }

    /// Closes the innermost scope, dropping its values.
    pub fn pop(&mut self) {
        let m = self.marks.pop().expect("pool scope underflow");
        self.entries.truncate(m);
    }

    /// Indices of the entries of type `ty` (into `out`, cleared first).
    pub fn matching(&self, ty: Type, out: &mut Vec<usize>) {
        out.clear();
        out.extend(
            self.entries
                .iter()
                .enumerate()
                .filter(|(_, e)| e.ty == ty)
                .map(|(i, _)| i),
        );
    }
}
