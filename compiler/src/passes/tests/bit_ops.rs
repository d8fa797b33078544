//! `lower_bit_ops` against `AluOp::eval`: every lowered op, on edge cases and on scattered
//! words, as scalars and as a vec2, gives the interpreter's answer for the original op.

use crate::interp::{run, RunOptions};
use crate::ir::{parse_program, print_program, verify, AluOp, Program};
use crate::passes::lower_bit_ops::{is_lowered, lower_bit_ops};
use crate::planted::{Plant, Plants};

/// Operand triples: the edges of every op's cases, then pseudo-random words.
fn inputs() -> Vec<[u32; 3]> {
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
                out.push([a, b, c]);
            }
        }
    }
    let mut x = 0x1234_5678u32;
    for _ in 0..200 {
        let mut word = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        out.push([word(), word(), word()]);
    }
    out
}

/// A program in which invocation `i` applies `op` to uniform words `3i..3i+3` (as a vec2
/// when `vec2`, the second component taking the words of invocation `i + 1`, modulo).
fn program(op: AluOp, n: usize, vec2: bool) -> Program {
    let mut uniforms = String::new();
    for [a, b, c] in inputs().into_iter().take(n) {
        uniforms += &format!(" {a:#x} {b:#x} {c:#x}");
    }
    let comps = if vec2 { 2 } else { 1 };
    let mut text = format!("invocations {n}\noutputs {comps}\nuniforms{uniforms}\n\nblock_0:\n");
    text += "  vec1 32 ssa_0 = load_invocation_id\n  vec1 32 ssa_1 = load_const (3)\n";
    text += "  vec1 32 ssa_2 = imul ssa_0, ssa_1\n  vec1 32 ssa_3 = load_const (1)\n";
    text += "  vec1 32 ssa_4 = load_const (2)\n  vec1 32 ssa_5 = iadd ssa_2, ssa_3\n";
    text += "  vec1 32 ssa_6 = iadd ssa_2, ssa_4\n";
    let mut names = Vec::new();
    for (k, index) in ["ssa_2", "ssa_5", "ssa_6"].iter().enumerate() {
        let v = 10 + k;
        text += &format!("  vec1 32 ssa_{v} = load_uniform {index}\n");
        names.push(format!("ssa_{v}"));
    }
    if vec2 {
        for (k, name) in names.iter_mut().enumerate() {
            let v = 20 + k;
            let w = 30 + k;
            text += &format!("  vec1 32 ssa_{w} = {} {name}, ssa_3\n", "iadd");
            text += &format!("  vec2 32 ssa_{v} = vec2 {name}, ssa_{w}\n");
            *name = format!("ssa_{v}");
        }
    }
    let args = names[..op.arity()].join(", ");
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
                for (i, [a, b, c]) in inputs().into_iter().enumerate() {
                    assert_eq!(expected[i], op.eval(a, b, c), "{op} {a:#x} {b:#x} {c:#x}");
                }
            }
            let mut q = p.clone();
            assert!(lower_bit_ops(&mut q.func, Plants::NONE));
            verify(&q).unwrap_or_else(|e| panic!("{op}: {e}\n{}", print_program(&q)));
            let got = outputs(&q);
            for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
                let [a, b, c] = inputs()[i / if vec2 { 2 } else { 1 }];
                assert_eq!(
                    g, e,
                    "{op} (vec2 {vec2}) word {i}, operands {a:#x} {b:#x} {c:#x}"
                );
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
