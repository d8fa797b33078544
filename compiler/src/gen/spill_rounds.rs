//! Test support: the Gen test programs (`tests/gen_programs`) lowered at both widths and
//! spilled a few registers per round (gen7, with fills of both forms), for the checks that
//! state carried through a spill (live intervals, the interference graph) is what a
//! recomputation gives.

use super::intervals::Intervals;
use super::spill::{self, Moved};
use super::vinst::{VProgram, VReg};
use super::{dce, liveness, lower};
use crate::passes::pipeline;
use crate::planted::Plants;
use cranelift_entity::EntityRef;
use sim::gen::{ExecSize, Gen};

/// One spill round, as the allocator would make it.
pub struct Round<'a> {
    /// The program after the spill.
    pub p: &'a VProgram,
    /// Where each instruction went ([`spill::spill_regs`]).
    pub moved: &'a Moved,
    /// The registers spilled.
    pub gone: &'a [VReg],
    /// The first register made by the spill (its temporaries).
    pub first_new: usize,
    /// Where it is: the program's file, width and round, for assertion messages.
    pub at: &'a str,
}

/// For every test program at both widths: the state `start` makes of the program before any
/// spill, then up to `rounds` spill rounds, each spilling every `step`-th spillable live
/// register (at most `take`, from an offset that varies with program and round), passed to
/// `round` with the state. Returns the number of rounds made.
pub fn for_each<S>(
    rounds: usize,
    step: usize,
    take: usize,
    start: impl Fn(&VProgram, &Intervals) -> S,
    mut round: impl FnMut(&mut S, Round<'_>),
) -> usize {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/gen_programs");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("test programs")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    let mut made = 0;
    for (k, f) in files.iter().enumerate() {
        let src = std::fs::read_to_string(f).expect("reads");
        let mut ir = crate::ir::parse_program(&src, "test.ir").expect("parses");
        pipeline::to_registers(&mut ir, true, &Default::default()).expect("from_ssa");
        for width in [ExecSize::S8, ExecSize::S16] {
            let mut p = lower::lower(
                &ir.func,
                &ir.dispatch,
                width,
                // Gen7, whose fills take either form (see below).
                Gen::Gen7,
                Plants::NONE,
            )
            .expect("lowers");
            dce::eliminate_dead_code(&mut p);
            let live = liveness::compute(&p).expect("structured");
            let mut state = start(&p, &Intervals::new(&p, &live));
            let mut slot = 0;
            for r in 0..rounds {
                // Chosen by intervals computed afresh: equal to the carried ones while the
                // checks pass, and independent of the state under test.
                let live = liveness::compute(&p).expect("structured");
                let iv = Intervals::new(&p, &live).iv;
                let spills: Vec<(VReg, u32)> = (0..p.regs.len())
                    .filter(|&v| {
                        let info = p.regs[VReg::new(v)];
                        let (s, e) = iv[v];
                        s < e && info.spillable && info.size <= spill::MAX_SPILL_GRFS
                    })
                    .skip((r + k) % 3)
                    .step_by(step)
                    .take(take)
                    .map(|v| {
                        slot += 1;
                        (VReg::new(v), slot)
                    })
                    .collect();
                if spills.is_empty() {
                    break;
                }
                let first_new = p.regs.len();
                // Both forms of fill: offsets in the descriptor in even rounds, in headers of
                // their own in odd ones (as past the descriptor's 12 bits).
                let scratch_end = if r % 2 == 0 { 0 } else { u32::MAX };
                let moved = spill::spill_regs(&mut p, &spills, scratch_end);
                let gone: Vec<VReg> = spills.iter().map(|&(v, _)| v).collect();
                let at = format!("{}, {width:?}, round {r}", f.display());
                round(
                    &mut state,
                    Round {
                        p: &p,
                        moved: &moved,
                        gone: &gone,
                        first_new,
                        at: &at,
                    },
                );
                made += 1;
            }
        }
    }
    made
}
