//! How many IR instructions `lower_bit_ops` makes of each op it expands (the expansion our
//! backends compile): `cargo run --release -p compiler --example bit_op_sizes`.

use compiler::ir::{parse_program, AluOp};
use compiler::passes::lower_bit_ops::{is_lowered, lower_bit_ops};
fn main() {
    for &op in AluOp::ALL.iter().filter(|&&o| is_lowered(o)) {
        let args: Vec<&str> = ["ssa_0", "ssa_1", "ssa_2", "ssa_3"][..op.arity()].to_vec();
        let text = format!("invocations 1\noutputs 1\n\nblock_0:\n  vec1 32 ssa_0 = load_invocation_id\n  vec1 32 ssa_1 = load_const (1)\n  vec1 32 ssa_2 = load_const (2)\n  vec1 32 ssa_3 = load_const (3)\n  vec1 32 ssa_4 = {op} {}\n  store_output 0, ssa_4\n", args.join(", "));
        let mut p = parse_program(&text, "x").unwrap();
        let before = p.func.inst_count();
        lower_bit_ops(&mut p.func, Default::default());
        println!(
            "{op}: {} instructions (the mov included)",
            p.func.inst_count() - before + 1
        );
    }
}
