//! `lower_bit_ops` against `AluOp::eval`: every lowered op, on edge cases and on scattered
//! words, as scalars and as a vec2, gives the interpreter's answer for the original op.

use crate::interp::{run, RunOptions};
use crate::ir::{parse_program, print_program, verify, AluOp, Program};
use crate::passes::lower_bit_ops::{is_lowered, lower_bit_ops};
use crate::planted::{Plant, Plants};

/// Operand quadruples `[a, x, b, c]`: the edges of every op's cases in `b` and `c` (a bit
/// field's offset and count), then pseudo-random words. An op takes `a`; `a, b`; `a, b, c`;
/// or all four ([`operands`]).
fn inputs() -> Vec<[u32; 4]> {
    let edges = [
        0,
        1,
        2,
        7,
        15,
        16,
        31,
        32,
        33,
        0x7fff_ffff,
        0x8000_0000,
        u32::MAX,
        0xabcd_1234,
    ];
    let mut out = Vec::new();
    for &a in &[0, u32::MAX, 0x8000_0000, 0xabcd_1234, 0x0000_f00d] {
        for &b in &edges {
            for &c in &edges {
                out.push([a, a.rotate_left(13) ^ 0x5a5a_5a5a, b, c]);
            }
        }
    }
    let mut x = 0x1234_5678u32;
    for _ in 0..150 {
        let mut word = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        out.push([word(), word(), word(), word()]);
    }
    out
}

/// Which of a quadruple's words an op of `arity` operands takes, in order.
fn operands(arity: usize) -> &'static [usize] {
    match arity {
        1 => &[0],
        2 => &[0, 2],
        3 => &[0, 2, 3],
        _ => &[0, 1, 2, 3],
    }
}

/// `op` applied to quadruple `q` by [`AluOp::eval`].
fn eval(op: AluOp, q: [u32; 4]) -> u32 {
    let mut x = [0; 4];
    for (k, &i) in operands(op.arity()).iter().enumerate() {
        x[k] = q[i];
    }
    op.eval(x[0], x[1], x[2], x[3])
}

/// A program in which invocation `i` applies `op` to uniform words `4i..4i+4` (as a vec2
/// when `vec2`, the second component taking the words plus one).
fn program(op: AluOp, n: usize, vec2: bool) -> Program {
    let mut uniforms = String::new();
    for q in inputs().into_iter().take(n) {
        for w in q {
            uniforms += &format!(" {w:#x}");
        }
    }
    let comps = if vec2 { 2 } else { 1 };
    let mut text = format!("invocations {n}\noutputs {comps}\nuniforms{uniforms}\n\nblock_0:\n");
    text += "  vec1 32 ssa_0 = load_invocation_id\n  vec1 32 ssa_1 = load_const (4)\n";
    text += "  vec1 32 ssa_2 = imul ssa_0, ssa_1\n  vec1 32 ssa_3 = load_const (1)\n";
    let mut names = Vec::new();
    for k in 0..4 {
        text += &format!("  vec1 32 ssa_{} = load_const ({k})\n", 50 + k);
        text += &format!("  vec1 32 ssa_{} = iadd ssa_2, ssa_{}\n", 60 + k, 50 + k);
        text += &format!("  vec1 32 ssa_{} = load_uniform ssa_{}\n", 10 + k, 60 + k);
        names.push(format!("ssa_{}", 10 + k));
    }
    let mut names: Vec<String> = operands(op.arity())
        .iter()
        .map(|&i| names[i].clone())
        .collect();
    if vec2 {
        for (k, name) in names.iter_mut().enumerate() {
            let v = 20 + k;
            let w = 30 + k;
            text += &format!("  vec1 32 ssa_{w} = {} {name}, ssa_3\n", "iadd");
            text += &format!("  vec2 32 ssa_{v} = vec2 {name}, ssa_{w}\n");
            *name = format!("ssa_{v}");
        }
    }
    let args = names.join(", ");
    text += &format!("  vec{comps} 32 ssa_40 = {op} {args}\n  store_output 0, ssa_40\n");
    parse_program(&text, "bit_ops.ir").unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn outputs(p: &Program) -> Vec<u32> {
    run(p, &RunOptions::default()).unwrap().outputs
}

#[test]
fn lowered_ops_compute_what_eval_defines() {
    let n = inputs().len();
    for &op in AluOp::ALL.iter().filter(|&&op| is_lowered(op)) {
        for vec2 in [false, true] {
            let p = program(op, n, vec2);
            let expected = outputs(&p);
            // The original program gives eval's answers, word for word.
            if !vec2 {
                for (i, q) in inputs().into_iter().enumerate() {
                    assert_eq!(expected[i], eval(op, q), "{op} {q:x?}");
                }
            }
            let mut q = p.clone();
            assert!(lower_bit_ops(&mut q.func, Plants::NONE));
            verify(&q).unwrap_or_else(|e| panic!("{op}: {e}\n{}", print_program(&q)));
            let got = outputs(&q);
            for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
                let q = inputs()[i / if vec2 { 2 } else { 1 }];
                assert_eq!(g, e, "{op} (vec2 {vec2}) word {i}, operands {q:x?}");
            }
        }
    }
}

#[test]
fn the_planted_slip_changes_signed_fields_only() {
    let n = inputs().len();
    for (op, differs) in [
        (AluOp::IbitfieldExtract, true),
        (AluOp::UbitfieldExtract, false),
    ] {
        let p = program(op, n, false);
        let mut q = p.clone();
        lower_bit_ops(&mut q.func, Plants::NONE.with(Plant::LowerIbfeLogical));
        assert_eq!(outputs(&q) != outputs(&p), differs, "{op}");
    }
}
