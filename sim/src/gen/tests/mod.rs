//! Hand-assembled programs with known answers, and the helpers that assemble them.

mod alu;
mod control;
mod disasm;
mod hazards;
mod memory;
mod robust;
mod sampler;
mod timing;

use super::*;
use crate::dispatch::Dispatch;

/// Registers one 32-bit value takes at `w`.
pub fn per(w: ExecSize) -> u8 {
    w.regs() as u8
}

/// A program from instructions.
pub fn prog(width: ExecSize, gen: Gen, insts: Vec<Inst>) -> Program {
    Program { width, gen, insts }
}

/// A dispatch of `n` invocations with `outputs` slots and nothing else.
pub fn dispatch(n: u32, outputs: u32) -> Dispatch {
    Dispatch {
        invocations: n,
        outputs,
        ..Dispatch::default()
    }
}

/// `mov(w) g<dst><1>T src`.
pub fn mov(w: ExecSize, dst: u8, ty: Type, src: Src) -> Inst {
    Inst::unary(Op::Mov, w, Dst::grf(dst, ty), src)
}

/// `op(w) g<dst><1>T a b`.
/// `cmp.cm flag null, a, b`.
pub fn cmp(w: ExecSize, cm: CondMod, flag: Flag, a: Src, b: Src) -> Inst {
    Inst::binary(Op::Cmp, w, Dst::Null(Type::UD), a, b).with_cmod(cm, flag)
}

pub fn bin(op: Op, w: ExecSize, dst: u8, ty: Type, a: Src, b: Src) -> Inst {
    Inst::binary(op, w, Dst::grf(dst, ty), a, b)
}

/// Store `channels` values starting at GRF `data` to output slots `slot..` of each enabled
/// lane, four at a time through a payload at g100.
pub fn store(w: ExecSize, data: u8, slot: u32, channels: u8) -> Vec<Inst> {
    let p = per(w);
    let mut v = Vec::new();
    for first in (0..channels).step_by(4) {
        let n = (channels - first).min(4);
        v.push(mov(w, 100, Type::UD, Src::ud(slot + first as u32)));
        for c in 0..n {
            let from = data + p * (first + c);
            v.push(mov(
                w,
                100 + p * (1 + c),
                Type::UD,
                Src::grf(from, Type::UD),
            ));
        }
        v.push(Inst::send(
            w,
            Dst::Null(Type::UD),
            100,
            SendDesc::new(
                Message::UntypedWrite {
                    surface: Surface::Output,
                    channels: n,
                },
                p * (1 + n),
                0,
                false,
            ),
        ));
    }
    v
}

/// Run with the default configuration; the program must be valid.
pub fn go(p: &Program, d: &Dispatch) -> Run {
    match run(p, d, &Config::default()) {
        Ok(r) => r,
        Err(e) => panic!("invalid program: {e:?}\n{p}"),
    }
}

/// Output slot `slot` of invocation `i`.
pub fn out(r: &Run, d: &Dispatch, i: u32, slot: u32) -> u32 {
    r.results.outputs[(i * d.outputs + slot) as usize]
}
