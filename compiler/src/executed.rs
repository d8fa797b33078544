//! What the allocators' code did at run time: a compile marks each emitted instruction with
//! its [`Role`] (spill store, fill, pre-fill, predicate reload), the simulator counts how
//! often each instruction ran (its per-instruction profile), and the two together say how
//! much spill traffic and how many predicate reloads a run *executed* — which is what a
//! register allocation bug or a spill-heuristic change shows up in, not the static counts.
//!
//! The simulators know nothing of roles (they are the hardware); the compiler knows nothing
//! of a particular run. [`gen`] and [`a6xx`] fold one into the other, and [`gen_sends`]
//! counts the Gen messages sent by type and payload/response length.

use std::collections::BTreeMap;

/// What an emitted instruction is for, beyond computing the program.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Role {
    /// Program code (including fixed prologue/epilogue code).
    #[default]
    Program,
    /// A spill store (Gen: the scratch block write of spill code; a6xx: `stp`).
    Spill,
    /// A fill before a use (Gen: a scratch block read; a6xx: `ldp`).
    Fill,
    /// Gen: the block read that gives a spilled register's payload its old contents before a
    /// partial write under control flow (so the store writes back what it did not change).
    PreFill,
    /// a6xx: a predicate rematerialised into a predicate register (a cloned def); the value
    /// is the predicate's virtual register, so reloads of distinct predicates can be told
    /// apart.
    PredReload(u32),
}

/// Executed counts of one run, summed over threads (Gen) or waves (a6xx).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Executed {
    /// Spill stores executed.
    pub spills: u64,
    /// Fills executed.
    pub fills: u64,
    /// Gen pre-fills executed.
    pub prefills: u64,
    /// Bytes spill code moved (stores, fills and pre-fills). Gen: block messages move whole
    /// GRFs (NoMask), 32 bytes each. a6xx: 4 bytes per word per fiber, counted once per
    /// issue (so per fiber, not per wave).
    pub spill_bytes: u64,
    /// a6xx predicate reloads executed.
    pub pred_reloads: u64,
    /// a6xx: the most distinct predicates whose reloads ran inside one loop (a loop being a
    /// backward branch and the code it jumps back over).
    pub loop_pred_reloads: u32,
}

impl Executed {
    /// At least one spill store and one fill ran.
    pub fn spilled_and_filled(&self) -> bool {
        self.spills > 0 && self.fills > 0
    }
}

/// The executed counts of a Gen run: `roles` from the compile, `profile` from
/// `sim::gen::Run::profile` (both one entry per instruction of `program`).
pub fn gen(program: &sim::gen::Program, roles: &[Role], profile: &[u64]) -> Executed {
    let mut e = Executed::default();
    for ((inst, role), &n) in program.insts.iter().zip(roles).zip(profile) {
        if n == 0 || *role == Role::Program {
            continue;
        }
        let grfs = match inst.op {
            sim::gen::Op::Send(d) => match d.msg {
                sim::gen::Message::ScratchBlockRead { regs, .. }
                | sim::gen::Message::ScratchBlockWrite { regs } => u64::from(regs),
                _ => 0,
            },
            _ => 0,
        };
        match role {
            Role::Spill => e.spills += n,
            Role::Fill => e.fills += n,
            Role::PreFill => e.prefills += n,
            Role::Program | Role::PredReload(_) => {}
        }
        e.spill_bytes += n * grfs * sim::gen::GRF_DWORDS as u64 * 4;
    }
    e
}

/// The executed counts of an a6xx run: `roles` from the compile, `profile` from
/// `sim::a6xx::RunResult::profile`.
pub fn a6xx(program: &sim::a6xx::Program, roles: &[Role], profile: &[u64]) -> Executed {
    use sim::a6xx::Op;
    let mut e = Executed::default();
    let instrs = &program.instrs;
    for ((ins, role), &n) in instrs.iter().zip(roles).zip(profile) {
        if n == 0 {
            continue;
        }
        let words = match ins.op {
            Op::Load { count, .. } | Op::Store { count, .. } => u64::from(count),
            _ => 0,
        };
        match role {
            Role::Spill => e.spills += n,
            Role::Fill => e.fills += n,
            Role::PredReload(_) => e.pred_reloads += n,
            Role::Program | Role::PreFill => continue,
        }
        e.spill_bytes += n * words * 4;
    }
    // Loops: every backward branch, from its target to itself.
    for (end, ins) in instrs.iter().enumerate() {
        let Some(offset) = ins.op.branch_offset() else {
            continue;
        };
        if offset > 0 {
            continue;
        }
        let start = (end as i64 + offset as i64).max(0) as usize;
        let mut seen: Vec<u32> = Vec::new();
        for k in start..=end {
            if let (Some(Role::PredReload(v)), Some(&n)) = (roles.get(k), profile.get(k)) {
                if n > 0 && !seen.contains(v) {
                    seen.push(*v);
                }
            }
        }
        e.loop_pred_reloads = e.loop_pred_reloads.max(seen.len() as u32);
    }
    e
}

/// Gen messages sent in a run, by (message type, `mlen`, `rlen`) → executions.
pub fn gen_sends(program: &sim::gen::Program, profile: &[u64]) -> BTreeMap<SendShape, u64> {
    let mut out = BTreeMap::new();
    for (inst, &n) in program.insts.iter().zip(profile) {
        if let (sim::gen::Op::Send(d), true) = (inst.op, n > 0) {
            let shape = SendShape {
                message: d.msg.type_name(),
                mlen: d.mlen,
                rlen: d.rlen,
            };
            *out.entry(shape).or_insert(0) += n;
        }
    }
    out
}

/// A message's type and lengths.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SendShape {
    /// `sim::gen::Message::type_name`.
    pub message: &'static str,
    /// Payload GRFs.
    pub mlen: u8,
    /// Response GRFs.
    pub rlen: u8,
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::a6xx::{Instr, Op};

    #[test]
    fn a6xx_counts_distinct_predicates_reloaded_in_one_loop() {
        let nop = Instr::new(Op::Nop { repeat: 0 });
        let back = Instr::new(Op::Jump { offset: -4 });
        let program = sim::a6xx::Program {
            instrs: vec![nop, nop, nop, nop, nop, back, Instr::new(Op::End)],
        };
        let roles = [
            Role::PredReload(9),
            Role::Program,
            Role::PredReload(3),
            Role::PredReload(4),
            Role::PredReload(3),
            Role::Program,
            Role::Program,
        ];
        // The reload of 4 never ran; 9 ran but outside the loop (pcs 1..=5).
        let profile = [1, 5, 5, 0, 5, 5, 1];
        let e = a6xx(&program, &roles, &profile);
        assert_eq!(e.pred_reloads, 1 + 5 + 5);
        assert_eq!(e.loop_pred_reloads, 1);
    }
}
