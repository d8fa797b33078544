//! Every ALU op through the Gen backend, on interesting operands (zeros, signs, extremes,
//! NaN, infinities, halves), SIMD8 and SIMD16, against the interpreter.

mod gen_common;
use compiler::ir::alu::Kind;
use compiler::ir::AluOp;
use gen_common::*;

const VALUES: [u32; 16] = [
    0,
    1,
    0xffff_ffff,
    0x8000_0000,
    0x7fff_ffff,
    0x3f00_0000,
    0x8000_0000,
    0x7fc0_0000,
    0x7f80_0000,
    3,
    0xffff_fff9,
    0x3fc0_0000,
    0x4020_0000,
    0xc020_0000,
    0xbf40_0000,
    37,
];

/// `op` on operands loaded from the uniform file, or with the invocation id (a payload
/// register) as first operand when `payload`.
fn program(op: AluOp, payload: bool) -> String {
    let uniforms: Vec<String> = VALUES.iter().map(|v| format!("0x{v:08x}")).collect();
    let mut s = format!(
        "invocations 40\noutputs 1\nuniforms {}\n\nblock_0:\n",
        uniforms.join(" ")
    );
    s += "  vec1 32 ssa_0 = load_invocation_id\n";
    s += "  vec1 32 ssa_1 = load_uniform ssa_0\n";
    s += "  vec1 32 ssa_2 = load_const (0x00000005)\n";
    s += "  vec1 32 ssa_3 = iadd ssa_0, ssa_2\n";
    s += "  vec1 32 ssa_4 = load_uniform ssa_3\n";
    s += "  vec1 32 ssa_5 = load_const (0x0000000b)\n";
    s += "  vec1 32 ssa_6 = iadd ssa_0, ssa_5\n";
    s += "  vec1 32 ssa_7 = load_uniform ssa_6\n";
    s += "  vec1 32 ssa_8 = load_const (0x00000000)\n";
    s += "  vec1 1 ssa_9 = ilt ssa_1, ssa_4\n";
    s += "  vec1 1 ssa_10 = ine ssa_7, ssa_8\n";
    let args: Vec<&str> = op
        .srcs()
        .iter()
        .enumerate()
        .map(|(k, kind)| match (kind, k) {
            (Kind::Bool, 0) => "ssa_9",
            (Kind::Bool, _) => "ssa_10",
            (_, 0) if payload => "ssa_0",
            (_, 0) => "ssa_1",
            (_, 1) => "ssa_4",
            _ => "ssa_7",
        })
        .collect();
    let bool_out = op.dst() == Kind::Bool;
    let bits = if bool_out { 1 } else { 32 };
    s += &format!("  vec1 {bits} ssa_11 = {} {}\n", op.name(), args.join(", "));
    if bool_out {
        s += "  vec1 32 ssa_12 = b2i ssa_11\n  store_output 0, ssa_12\n";
    } else {
        s += "  store_output 0, ssa_11\n";
    }
    s
}

#[test]
fn every_alu_op() {
    for &op in AluOp::ALL {
        for payload in [false, true] {
            let src = program(op, payload);
            let p = parse(&src);
            for o in grid(125) {
                if let Outcome::Bad(why) = run(&p, &o) {
                    panic!("{}: {o:?}: {why}\n{src}", op.name());
                }
            }
        }
    }
}
