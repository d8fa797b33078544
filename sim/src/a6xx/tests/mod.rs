//! Hand-assembled programs checking values, timing, hazards and divergence. Helpers here keep
//! the programs readable; each file tests one area.

mod disasm;
mod flow;
mod memory;
mod timing;

use super::*;
use crate::dispatch::Dispatch;

fn r(n: u8, c: u8) -> Reg {
    Reg::r(n, c)
}

fn rs(n: u8, c: u8) -> Src {
    Src::Reg(Reg::r(n, c))
}

fn imm(v: u32) -> Src {
    Src::Imm(v)
}

fn fimm(v: f32) -> Src {
    Src::Imm(v.to_bits())
}

fn alu2(op: Binary, dst: Reg, a: Src, b: Src) -> Instr {
    Instr::new(Op::Alu2 { op, dst, a, b })
}

fn mov(dst: Reg, src: Src) -> Instr {
    Instr::new(Op::Mov { dst, src })
}

fn cmps(ty: CmpType, cond: CmpCond, dst: Reg, a: Src, b: Src) -> Instr {
    Instr::new(Op::Cmps {
        ty,
        cond,
        dst,
        a,
        b,
    })
}

/// `(rpt{n-1})nop`: `n` empty cycles.
fn nops(n: u8) -> Instr {
    Instr::new(Op::Nop { repeat: n - 1 })
}

fn end() -> Instr {
    Instr::new(Op::End)
}

fn br(cond: Cond, offset: i32) -> Instr {
    Instr::new(Op::Br { cond, offset })
}

fn jump(offset: i32) -> Instr {
    Instr::new(Op::Jump { offset })
}

/// `stg.u32 o[slot], src, 1`.
fn out(slot: i32, src: Reg) -> Instr {
    Instr::new(Op::Store {
        space: Space::Output,
        addr: Addr {
            base: None,
            offset: slot,
        },
        src,
        count: 1,
    })
}

fn program(instrs: Vec<Instr>) -> Program {
    Program { instrs }
}

fn dispatch(invocations: u32, outputs: u32) -> Dispatch {
    Dispatch {
        invocations,
        outputs,
        ..Dispatch::default()
    }
}

fn run_default(p: &Program, d: &Dispatch) -> RunResult {
    run(p, d, &Config::default())
}

/// Asserts the run completed without hazards (printing the program and hazards if not).
fn assert_clean(p: &Program, res: &RunResult) {
    assert_eq!(res.outcome, Outcome::Completed, "{p}");
    assert!(
        res.hazards.is_empty(),
        "unexpected hazards:\n{}\n{p}",
        res.hazards
            .iter()
            .map(|h| h.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Output slot `slot` of invocation `inv`.
fn slot(res: &RunResult, d: &Dispatch, inv: u32, slot: u32) -> u32 {
    res.results.outputs[(inv * d.outputs + slot) as usize]
}
