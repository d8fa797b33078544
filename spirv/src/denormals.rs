//! Which float operations of a program touch a denormal in some run — read one or make one —
//! the only operations where a device that may flush denormals (no `DenormPreserve`, like
//! lavapipe) can legitimately differ from the interpreter. The others are compared exactly
//! on such a device too.
//!
//! The answer comes from the interpreter itself, on an instrumented copy of the program:
//! around every float operation (ALU ops with float operands or results, except `fneg` and
//! `fabs`, which the emitter does on the bits; `tex` parameters) each float component is
//! tested for a denormal and the test is or-ed into a register of that operation; at the
//! end of the body the registers go to an extra buffer, one word per operation. Nothing else
//! changes, so the run takes the same path with the same values.

use compiler::interp::{self, RunOptions};
use compiler::ir::alu::Kind;
use compiler::ir::{AluOp, Function, Inst, InstKind, Program, Reg, Type, Value};
use cranelift_entity::packed_option::ReservedValue;
use std::collections::HashSet;

const EXPONENT: u32 = 0x7f80_0000;
const MANTISSA: u32 = 0x007f_ffff;

/// The float instructions of `program` that read or make a denormal in some invocation, or
/// `None` if the interpreter cannot run the program (then nothing is claimed exact).
pub fn denormal_insts(program: &Program) -> Option<HashSet<Inst>> {
    let mut p = program.clone();
    let flags = p.dispatch.buffers.len();
    p.dispatch.buffers.push(0);
    let checked = instrument(&mut p.func, flags as u32)?;
    p.dispatch.buffers[flags] = checked.len() as u32;
    let results = interp::run(&p, &RunOptions::default()).ok()?;
    let words = &results.buffers[flags];
    let n = checked.len().max(1);
    Some(
        checked
            .iter()
            .enumerate()
            .filter(|&(k, _)| words.iter().skip(k).step_by(n).any(|&w| w != 0))
            .map(|(_, &inst)| inst)
            .collect(),
    )
}

/// Whether some float operation of some invocation of `program` reads or makes a denormal.
pub fn touches_denormals(program: &Program) -> bool {
    denormal_insts(program).is_none_or(|s| !s.is_empty())
}

struct Consts {
    exponent: Value,
    mantissa: Value,
    zero: Value,
}

/// Instruments `func`; returns the checked instructions, in flag-word order.
fn instrument(func: &mut Function, flag_buffer: u32) -> Option<Vec<Inst>> {
    let blocks = func.blocks_in_order();
    let (&first, &last) = (blocks.first()?, blocks.last()?);
    let mut checked = Vec::new();
    let mut prologue = Vec::new();
    let mut constant = |func: &mut Function, bits: u32| {
        let (inst, v) = func.make_inst(
            InstKind::Const {
                bits: [bits, 0, 0, 0],
            },
            Type::I32,
        );
        prologue.push(inst);
        v.expect("a constant has a result")
    };
    let consts = Consts {
        exponent: constant(func, EXPONENT),
        mantissa: constant(func, MANTISSA),
        zero: constant(func, 0),
    };
    for &b in &blocks {
        let old = std::mem::take(&mut func.blocks[b].insts);
        let mut new = Vec::with_capacity(old.len() * 2);
        if b == first {
            let phis = old
                .iter()
                .take_while(|&&i| matches!(func.insts[i].kind, InstKind::Phi { .. }))
                .count();
            new.extend_from_slice(&old[..phis]);
            new.extend_from_slice(&prologue);
            instrument_insts(func, &old[phis..], &mut new, &mut checked, &consts);
        } else {
            instrument_insts(func, &old, &mut new, &mut checked, &consts);
        }
        if b == last {
            store_flags(func, &mut new, &checked, flag_buffer);
        }
        func.blocks[b].insts = new;
    }
    Some(checked.into_iter().map(|(inst, _)| inst).collect())
}

fn instrument_insts(
    func: &mut Function,
    old: &[Inst],
    new: &mut Vec<Inst>,
    checked: &mut Vec<(Inst, Reg)>,
    c: &Consts,
) {
    for &inst in old {
        let kind = func.insts[inst].kind.clone();
        let mut floats: Vec<Value> = Vec::new();
        match &kind {
            InstKind::Alu { op, args } if !matches!(op, AluOp::Fneg | AluOp::Fabs) => {
                for (k, &src) in op.srcs().iter().enumerate() {
                    if src == Kind::Float {
                        floats.push(args[k]);
                    }
                }
            }
            InstKind::Tex { coord, params, .. } => {
                floats.push(*coord);
                floats.extend(params.lod());
                floats.extend(params.bias());
                floats.extend(params.layer());
                floats.extend(params.compare());
            }
            _ => {}
        }
        let result = match kind {
            InstKind::Alu { op, .. }
                if op.dst() == Kind::Float && !matches!(op, AluOp::Fneg | AluOp::Fabs) =>
            {
                func.result(inst)
            }
            _ => None,
        };
        if floats.is_empty() && result.is_none() {
            new.push(inst);
            continue;
        }
        let reg = func.regs.push(Type::I32);
        checked.push((inst, reg));
        for v in floats {
            check(func, new, v, reg, c);
        }
        new.push(inst);
        if let Some(result) = result {
            check(func, new, result, reg, c);
        }
    }
}

fn push(func: &mut Function, new: &mut Vec<Inst>, kind: InstKind, ty: Type) -> Value {
    let (inst, v) = func.make_inst(kind, ty);
    new.push(inst);
    v.unwrap_or_else(Value::reserved_value)
}

fn alu(func: &mut Function, new: &mut Vec<Inst>, op: AluOp, a: Value, b: Value, ty: Type) -> Value {
    let none = Value::reserved_value();
    let args = [a, if op.arity() > 1 { b } else { none }, none, none];
    push(func, new, InstKind::Alu { op, args }, ty)
}

/// `reg |= is_denormal(v[c])` for every component of `v`.
fn check(func: &mut Function, new: &mut Vec<Inst>, v: Value, reg: Reg, c: &Consts) {
    let comps = func.ty(v).comps();
    for comp in 0..comps {
        let x = if comps == 1 {
            v
        } else {
            let swizzle = [comp, 0, 0, 0];
            push(func, new, InstKind::Mov { src: v, swizzle }, Type::I32)
        };
        let e = alu(func, new, AluOp::Iand, x, c.exponent, Type::I32);
        let e_zero = alu(func, new, AluOp::Ieq, e, c.zero, Type::B1);
        let m = alu(func, new, AluOp::Iand, x, c.mantissa, Type::I32);
        let m_set = alu(func, new, AluOp::Ine, m, c.zero, Type::B1);
        let denormal = alu(func, new, AluOp::Band, e_zero, m_set, Type::B1);
        let bit = alu(func, new, AluOp::B2i, denormal, denormal, Type::I32);
        let acc = push(func, new, InstKind::LoadReg { reg }, Type::I32);
        let acc = alu(func, new, AluOp::Ior, acc, bit, Type::I32);
        push(
            func,
            new,
            InstKind::StoreReg { reg, value: acc },
            Type::None,
        );
    }
}

fn store_flags(func: &mut Function, new: &mut Vec<Inst>, checked: &[(Inst, Reg)], buffer: u32) {
    for (k, &(_, reg)) in checked.iter().enumerate() {
        let index = push(
            func,
            new,
            InstKind::Const {
                bits: [k as u32, 0, 0, 0],
            },
            Type::I32,
        );
        let value = push(func, new, InstKind::LoadReg { reg }, Type::I32);
        let store = InstKind::StoreBuffer {
            buffer,
            index,
            value,
        };
        push(func, new, store, Type::None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use compiler::ir::text::parse_program;

    fn program(op_line: &str) -> Program {
        let src = format!(
            "invocations 2\noutputs 1\nuniforms 0x00000003 0x3f800000\n\nblock_0:\n  \
             vec1 32 ssa_0 = load_const (0x00000000)\n  \
             vec1 32 ssa_1 = load_const (0x00000001)\n  \
             vec1 32 ssa_2 = load_uniform ssa_0\n  \
             vec1 32 ssa_3 = load_uniform ssa_1\n  \
             {op_line}\n  store_output 0, ssa_4\n"
        );
        parse_program(&src, "test").unwrap()
    }

    #[test]
    fn float_ops_on_denormals_are_seen_and_bit_ops_are_not() {
        // 0x00000003 read as a float is a denormal.
        assert!(touches_denormals(&program(
            "vec1 32 ssa_4 = fadd ssa_2, ssa_3"
        )));
        assert!(touches_denormals(&program(
            "vec1 32 ssa_4 = fmin ssa_3, ssa_2"
        )));
        // An integer op on the same bits, and fneg (a sign-bit flip), touch no float unit.
        assert!(!touches_denormals(&program(
            "vec1 32 ssa_4 = iadd ssa_2, ssa_3"
        )));
        assert!(!touches_denormals(&program("vec1 32 ssa_4 = fneg ssa_2")));
        assert!(!touches_denormals(&program(
            "vec1 32 ssa_4 = fmul ssa_3, ssa_3"
        )));
    }

    #[test]
    fn only_the_operations_that_touch_one_are_named() {
        let p = program("vec1 32 ssa_4 = fadd ssa_2, ssa_3\n  vec1 32 ssa_5 = fmul ssa_3, ssa_3");
        let touching = denormal_insts(&p).unwrap();
        let names: Vec<_> = touching
            .iter()
            .map(|&i| p.func.insts[i].kind.name())
            .collect();
        assert_eq!(names, ["fadd"]);
    }

    #[test]
    fn a_denormal_result_of_normal_operands_is_seen() {
        let src = "invocations 1\noutputs 1\n\nblock_0:\n  \
                   vec1 32 ssa_0 = load_const (0x00800000)\n  \
                   vec1 32 ssa_1 = load_const (0x3f000000)\n  \
                   vec1 32 ssa_4 = fmul ssa_0, ssa_1\n  store_output 0, ssa_4\n";
        assert!(touches_denormals(&parse_program(src, "test").unwrap()));
    }
}
