//! Cycles of one thread of brw's Gfx9 code, by the cycle model our own Gen code is timed with
//! (`crate::gen::timing`), so that the cycles of brw's code and of ours are comparable. Its
//! figures are brw's own Gfx9 ones (`compiler/brw_ir_performance.cpp`, Mesa 25.0.7): ALU issue
//! 2 cycles per destination GRF and latency 8 (`:331-345`), math issue 4 per GRF and latency
//! 16, `pow` 24, integer division 28 (`:412-430`), control flow 8 issue cycles (`:436-444`),
//! data-port responses after 100 (`:630-646`); the sampler's 200 is the Gen simulator's (brw
//! assumes 750, `:626-628`).
//!
//! In order, per thread: an instruction starts when the issue port is free and every GRF it
//! reads or writes is ready (the Gfx9 scoreboard stalls on a send's destination until the
//! response arrives: `brw_lower_scoreboard.cpp:22-27` — "Gfx12+ hardware lacks the register
//! scoreboard logic" of earlier generations), holds the port for its issue cycles, and its
//! destination GRFs are ready its latency after it started.

use super::super::inst::{Inst, Src};
use super::super::opcode::Opcode;
use super::super::types::RegFile;
use super::message::BTI_STATELESS;
use crate::gen::send::SharedFunction;
use crate::gen::timing::{
    send_latency, ALU_ISSUE_PER_GRF, ALU_LATENCY, CONTROL_ISSUE, INT_DIV_LATENCY,
    MATH_ISSUE_PER_GRF, MATH_LATENCY, POW_LATENCY, SEND_ISSUE,
};

const GRFS: usize = 128;
const GRF_BYTES: u32 = 32;

/// A thread's clock.
#[derive(Clone, Debug)]
pub struct Clock {
    /// When the issue port is next free.
    now: u64,
    /// When each GRF's pending write lands.
    ready: [u64; GRFS],
    /// The latest result seen.
    last: u64,
}

impl Default for Clock {
    fn default() -> Self {
        Clock {
            now: 0,
            ready: [0; GRFS],
            last: 0,
        }
    }
}

impl Clock {
    /// Times one executed instruction.
    pub fn step(&mut self, inst: &Inst) {
        let (reads, writes) = registers(inst);
        let start = reads
            .iter()
            .chain(&writes)
            .flat_map(|r| r.clone())
            .map(|g| self.ready[g])
            .fold(self.now, u64::max);
        let (issue, latency) = cost(inst, writes.iter().map(|r| r.len()).sum());
        self.now = start + issue;
        for g in writes.into_iter().flatten() {
            self.ready[g] = start + latency;
            self.last = self.last.max(start + latency);
        }
    }

    /// The thread's cycles so far: its last issue or its last result, whichever is later.
    pub fn cycles(&self) -> u64 {
        self.now.max(self.last)
    }
}

/// Issue cycles and result latency of `inst`, which writes `grfs` GRFs.
fn cost(inst: &Inst, grfs: usize) -> (u64, u64) {
    let grfs = grfs.max(1) as u32;
    let op = inst.opcode;
    let (issue, latency) = if op.is_send() {
        let mlen = inst
            .send
            .and_then(|s| s.desc)
            .map_or(0, |d| (d >> 25 & 0xf) as u8);
        let function = match inst.send.map(|s| (s.sfid, s.desc.map(|d| d as u8))) {
            Some((2, _)) => SharedFunction::Sampler,
            Some((10, Some(BTI_STATELESS))) => SharedFunction::Scratch,
            _ => SharedFunction::DataPort,
        };
        (SEND_ISSUE, send_latency(function, mlen))
    } else if op == Opcode::MATH {
        let latency = match inst.math_function {
            Some(10) => POW_LATENCY,
            Some(11..=13) => INT_DIV_LATENCY,
            _ => MATH_LATENCY,
        };
        (MATH_ISSUE_PER_GRF * grfs, latency)
    } else if op.has_branch_ctrl() {
        (CONTROL_ISSUE, 0)
    } else {
        (ALU_ISSUE_PER_GRF * grfs, ALU_LATENCY)
    };
    (u64::from(issue), u64::from(latency))
}

/// The GRFs `inst` reads and writes, as ranges of register numbers.
pub(super) fn registers(inst: &Inst) -> (Vec<std::ops::Range<usize>>, Vec<std::ops::Range<usize>>) {
    let n = u32::from(inst.exec_size.max(1));
    let span = |nr: u8, bytes: u32| {
        let first = nr as usize;
        first..(first + bytes.div_ceil(GRF_BYTES) as usize).min(GRFS)
    };
    let mut reads = Vec::new();
    let mut writes = Vec::new();
    if let Some(send) = inst.send.filter(|_| inst.opcode.is_send()) {
        let desc = send.desc.unwrap_or(0);
        if let Some(Src::Reg(r)) = &inst.src[0] {
            if r.file == RegFile::Grf {
                reads.push(span(r.nr, (desc >> 25 & 0xf) * GRF_BYTES));
            }
        }
        let ex_mlen = if send.ex_bso {
            Some(u32::from(send.src1_len))
        } else {
            send.ex_mlen()
        };
        if let (Some((RegFile::Grf, nr)), Some(ex_mlen)) = (send.src1, ex_mlen) {
            reads.push(span(nr, ex_mlen * GRF_BYTES));
        }
        if let Some(d) = inst.dst.filter(|d| d.file == RegFile::Grf) {
            writes.push(span(d.nr, (desc >> 20 & 0x1f) * GRF_BYTES));
        }
        return (reads, writes);
    }
    for src in inst.src.iter().flatten() {
        let Src::Reg(r) = src else { continue };
        if r.file != RegFile::Grf {
            continue;
        }
        let size = r.ty.size();
        let width = u32::from(r.region.width.max(1));
        let vstride = u32::from(r.region.vstride.unwrap_or(0));
        let last =
            (n - 1) / width * vstride * size + (n - 1) % width * u32::from(r.region.hstride) * size;
        reads.push(span(r.nr, u32::from(r.subreg) + last + size));
    }
    if let Some(d) = inst.dst.filter(|d| d.file == RegFile::Grf) {
        let size = d.ty.size();
        let last = (n - 1) * u32::from(d.hstride.max(1)) * size;
        writes.push(span(d.nr, u32::from(d.subreg) + last + size));
    }
    (reads, writes)
}
