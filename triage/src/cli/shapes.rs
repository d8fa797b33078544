//! What a program is made of, for `gpufuzz bench --slowest N`: its size, control flow and
//! histogram of instructions, beside the time a target took on it — the data that tells which
//! emitted shapes a driver compiles slowly (docs/fusion.md, "Where lavapipe's time goes").

use compiler::ir::{CfNode, Program};
use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

/// One program's shape.
#[derive(Clone, Debug, Default)]
pub struct Shape {
    /// Instructions (after the middle end: what the target compiles).
    pub insts: usize,
    /// IR instructions the interpreter executed over all invocations.
    pub executed: u64,
    /// Loops and ifs.
    pub loops: usize,
    /// Deepest loop nest.
    pub depth: usize,
    /// Ifs.
    pub ifs: usize,
    /// Instructions by text-format name.
    pub ops: BTreeMap<&'static str, usize>,
}

impl Shape {
    /// `program`'s shape, with `executed` from the interpreter.
    pub fn of(program: &Program, executed: u64) -> Shape {
        let f = &program.func;
        let mut s = Shape {
            insts: f.inst_count(),
            executed,
            ..Shape::default()
        };
        for (_, inst) in f.insts_in_order() {
            *s.ops.entry(f.insts[inst].kind.name()).or_default() += 1;
        }
        s.walk(&f.body, 0);
        s
    }

    fn walk(&mut self, list: &[CfNode], depth: usize) {
        for node in list {
            match node {
                CfNode::Block(_) => {}
                CfNode::If(n) => {
                    self.ifs += 1;
                    self.walk(&n.then_list, depth);
                    self.walk(&n.else_list, depth);
                }
                CfNode::Loop(n) => {
                    self.loops += 1;
                    self.depth = self.depth.max(depth + 1);
                    self.walk(&n.body, depth + 1);
                }
            }
        }
    }
}

impl fmt::Display for Shape {
    /// `insts 477 executed 12345 loops 3 (depth 2) ifs 4: fmul 40, tex 3, …`, the ops by
    /// count, most first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "insts {} executed {} loops {} (depth {}) ifs {}:",
            self.insts, self.executed, self.loops, self.depth, self.ifs
        )?;
        let mut ops: Vec<_> = self.ops.iter().collect();
        ops.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (k, (op, n)) in ops.into_iter().enumerate() {
            let sep = if k == 0 { " " } else { ", " };
            write!(f, "{sep}{op} {n}")?;
        }
        Ok(())
    }
}

/// The `n` slowest of `timed` (input index, time, shape), slowest first, one line each.
pub fn slowest(timed: &[(u64, Duration, Shape)], n: usize) -> Vec<String> {
    let mut order: Vec<&(u64, Duration, Shape)> = timed.iter().collect();
    order.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    order
        .into_iter()
        .take(n)
        .map(|(i, d, shape)| format!("  input {i:>5} {:>8.1} ms  {shape}", d.as_secs_f64() * 1e3))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shape_counts_ops_loops_and_depth() {
        let text = include_str!("../../../corpus/regressions/nested_loop_break_continue.ir");
        let program = compiler::ir::text::parse_program(text, "nested.ir").unwrap();
        let shape = Shape::of(&program, 9);
        assert_eq!((shape.loops, shape.depth, shape.ifs), (2, 2, 3));
        assert_eq!(
            (shape.ops["iadd"], shape.ops["break"], shape.ops["phi"]),
            (5, 2, 4)
        );
        assert!(shape.to_string().starts_with("insts "), "{shape}");
        let timed = vec![
            (0, Duration::from_millis(5), shape.clone()),
            (1, Duration::from_millis(9), shape),
        ];
        let lines = slowest(&timed, 1);
        assert_eq!(lines.len(), 1);
        assert!(
            lines[0].starts_with("  input     1      9.0 ms"),
            "{}",
            lines[0]
        );
    }
}
