//! The control-flow graph of a flat, structured instruction list (virtual or emitted): every
//! control-flow instruction is a block of its own, the straight runs between them are blocks.
//!
//! Edges follow the machine's channel-mask model per channel: `if` goes to its then-part and
//! to the instruction after its `else` (or to its `endif`); `else` (reached from the end of the
//! then-part) goes to the `endif`; `while` goes back to the body; `break` goes past the
//! `while`, `cont` to the `while`, each also falling through when predicated. An
//! (unpredicated) `while` falls through only once no channel is left in the loop, so no
//! channel takes that way out: the code after a loop is reached through its `break`s, as in
//! the IR. Shared by the
//! liveness analysis and the allocation checker, which must agree on nothing else.

use sim::gen::{Op, Pred};

/// A structured control-flow instruction, as the graph sees it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Not control flow.
    Other,
    /// `if`.
    If,
    /// `else`.
    Else,
    /// `endif`.
    EndIf,
    /// `do`.
    Do,
    /// `while`.
    While,
    /// `break`; predicated or not.
    Break(bool),
    /// `cont`; predicated or not.
    Cont(bool),
}

impl Flow {
    /// The flow kind of a hardware op with predicate `pred`.
    pub fn of(op: Option<Op>, pred: Pred) -> Flow {
        let p = pred != Pred::None;
        match op {
            Some(Op::If { .. }) => Flow::If,
            Some(Op::Else { .. }) => Flow::Else,
            Some(Op::EndIf) => Flow::EndIf,
            Some(Op::Do) => Flow::Do,
            Some(Op::While { .. }) => Flow::While,
            Some(Op::Break { .. }) => Flow::Break(p),
            Some(Op::Cont { .. }) => Flow::Cont(p),
            _ => Flow::Other,
        }
    }
}

/// Matching structure: for each control-flow instruction, its partners.
#[derive(Clone, Debug, Default)]
pub struct Structure {
    /// For an `if`: its `else` (if any); for a `do`/`break`/`cont`: the loop's `while`;
    /// for a `while`: its `do`; for an `else`: its `endif`.
    pub partner: Vec<u32>,
    /// For an `if`: its `endif`.
    pub endif: Vec<u32>,
    /// Loops as (`do`, `while`) index pairs, inner loops after outer ones.
    pub loops: Vec<(u32, u32)>,
}

/// Matches the structure of `flows`; `None` if it is not properly nested.
pub fn structure(flows: &[Flow]) -> Option<Structure> {
    let n = flows.len();
    let mut s = Structure {
        partner: vec![u32::MAX; n],
        endif: vec![u32::MAX; n],
        loops: Vec::new(),
    };
    let mut ifs: Vec<u32> = Vec::new();
    let mut stack: Vec<(bool, u32, Vec<u32>)> = Vec::new(); // (is_loop, at, exits)
    for (i, f) in flows.iter().enumerate() {
        let i = i as u32;
        match f {
            Flow::If => {
                stack.push((false, i, Vec::new()));
                ifs.push(i);
            }
            Flow::Else => {
                let (is_loop, at, _) = stack.last()?;
                if *is_loop {
                    return None;
                }
                s.partner[*at as usize] = i;
            }
            Flow::EndIf => {
                let (is_loop, at, _) = stack.pop()?;
                if is_loop {
                    return None;
                }
                ifs.pop();
                s.endif[at as usize] = i;
                let e = s.partner[at as usize];
                if e != u32::MAX {
                    s.partner[e as usize] = i;
                }
            }
            Flow::Do => {
                s.loops.push((i, u32::MAX));
                stack.push((true, i, Vec::new()));
            }
            Flow::While => {
                let (is_loop, at, exits) = stack.pop()?;
                if !is_loop {
                    return None;
                }
                s.partner[at as usize] = i;
                s.partner[i as usize] = at;
                for x in exits {
                    s.partner[x as usize] = i;
                }
                if let Some(l) = s.loops.iter_mut().rev().find(|l| l.0 == at) {
                    l.1 = i;
                }
            }
            Flow::Break(_) | Flow::Cont(_) => {
                let lp = stack.iter_mut().rev().find(|e| e.0)?;
                lp.2.push(i);
            }
            Flow::Other => {}
        }
    }
    stack.is_empty().then_some(s)
}

/// Basic blocks and edges.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    /// Block `b` is instructions `starts[b]..starts[b + 1]` (a sentinel ends the list).
    pub starts: Vec<u32>,
    /// Successor blocks.
    pub succs: Vec<Succs>,
    /// The block of each instruction.
    pub block_of: Vec<u32>,
    /// The matching structure.
    pub structure: Structure,
}

/// A block's successors: at most two (a conditional branch's), held in place (a vector
/// per block was an allocation per block of every graph built).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Succs {
    len: u8,
    to: [u32; 2],
}

impl Succs {
    /// Adds `t` unless it is there.
    fn add(&mut self, t: u32) {
        if !self.contains(&t) {
            self.to[self.len as usize] = t;
            self.len += 1;
        }
    }
}

impl std::ops::Deref for Succs {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        &self.to[..self.len as usize]
    }
}

impl<'a> IntoIterator for &'a Succs {
    type Item = &'a u32;
    type IntoIter = std::slice::Iter<'a, u32>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl Graph {
    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.succs.len()
    }

    /// Whether there are no blocks.
    pub fn is_empty(&self) -> bool {
        self.succs.is_empty()
    }

    /// Instruction range of block `b`.
    pub fn range(&self, b: usize) -> std::ops::Range<usize> {
        self.starts[b] as usize..self.starts[b + 1] as usize
    }
}

/// Builds the graph of `flows`; `None` if the structure is broken.
pub fn graph(flows: &[Flow]) -> Option<Graph> {
    let s = structure(flows)?;
    let n = flows.len();
    let mut starts = Vec::new();
    let mut block_of = vec![0u32; n];
    for (i, f) in flows.iter().enumerate() {
        let leader = i == 0 || *f != Flow::Other || flows[i - 1] != Flow::Other;
        if leader {
            starts.push(i as u32);
        }
        block_of[i] = starts.len() as u32 - 1;
    }
    let nb = starts.len();
    starts.push(n as u32);
    let at = |i: u32| -> Option<u32> { ((i as usize) < n).then(|| block_of[i as usize]) };
    let mut succs = vec![Succs::default(); nb];
    for (b, out) in succs.iter_mut().enumerate() {
        let last = starts[b + 1] - 1;
        let next = last + 1;
        let mut add = |t: Option<u32>| {
            if let Some(t) = t {
                out.add(t);
            }
        };
        match flows[last as usize] {
            Flow::Other | Flow::EndIf | Flow::Do => add(at(next)),
            Flow::If => {
                add(at(next));
                let e = s.partner[last as usize];
                add(if e != u32::MAX {
                    at(e + 1)
                } else {
                    at(s.endif[last as usize])
                });
            }
            Flow::Else => add(at(s.partner[last as usize])),
            Flow::While => add(at(s.partner[last as usize] + 1)),
            Flow::Break(p) => {
                add(at(s.partner[last as usize] + 1));
                if p {
                    add(at(next));
                }
            }
            Flow::Cont(p) => {
                add(at(s.partner[last as usize]));
                if p {
                    add(at(next));
                }
            }
        }
    }
    Some(Graph {
        starts,
        succs,
        block_of,
        structure: s,
    })
}
