//! Phase 2: `opt_zero_samples` — strip trailing constant-zero parameters from sampler
//! messages by shrinking `mlen`; the sampler reads unsent parameters as zero.
//!
//! The conditions real versions needed (Mesa's i965 history, see `targets/gen.md`):
//! * the payload is built by the `LoadPayload` right before the send, and the payload is not
//!   read after the send (liveness) — a later message reusing it would read a shortened
//!   payload (planted: [`Plant::ZeroSamplesSharedPayload`] skips the check);
//! * parameter 0 is always sent, and the header (none here) stays;
//! * one parameter is `exec_size / 8` GRFs — the first version stepped by the dispatch width
//!   (planted: [`Plant::ZeroSamplesSimd16Step`] steps by one GRF);
//! * only a provable zero (an immediate 0) counts (planted: [`Plant::ZeroSamplesNonzero`] also
//!   trusts parameters loaded from the uniform file);
//! * shadow references come first (Gen7+ orders, `sim::gen::sampler_params`), so trimming
//!   never reaches them; every other trailing zero (a layer, a gradient, an `ld` lod) is a
//!   parameter the sampler reads as zero anyway. A header (texel offsets, gather4) stays.
//!
//! The payload's `LoadPayload` and register shrink with the message. The liveness computed
//! here is dropped when the pass ends: after an `mlen` change it is stale, and the allocator
//! computes its own.

use super::liveness;
use super::vinst::{VOp, VProgram};
use crate::planted::{Plant, Plants};
use cranelift_entity::EntityRef;
use sim::gen::{Message, Op};

/// Trims sampler payloads in `p`; returns the number of messages trimmed.
pub fn opt_zero_samples(p: &mut VProgram, plants: Plants) -> u32 {
    // Liveness only for a program with a sampler message that could be trimmed.
    let sampler = |i: &super::vinst::VInst| matches!(i.hw(), Some(Op::Send(d)) if matches!(d.msg, Message::Sampler { .. }));
    if !p.insts.iter().skip(1).any(sampler) {
        return 0;
    }
    let Some(live) = liveness::compute(p) else {
        return 0;
    };
    let mut trimmed = 0;
    for i in 1..p.insts.len() {
        let Some(Op::Send(desc)) = p.insts[i].hw() else {
            continue;
        };
        if !matches!(desc.msg, Message::Sampler { .. }) {
            continue;
        }
        let Some(payload) = p.insts[i].src[0].vref().map(|r| r.reg) else {
            continue;
        };
        let prev = &p.insts[i - 1];
        let VOp::LoadPayload(lp) = &prev.op else {
            continue;
        };
        if prev.dst.map(|d| d.reg) != Some(payload) {
            continue;
        }
        if !plants.has(Plant::ZeroSamplesSharedPayload) {
            let after = live.live_after(p, i);
            let b = live.base[payload.index()] as usize;
            let size = p.regs[payload].size as usize;
            if (b..b + size).any(|u| after.has(u)) {
                continue;
            }
        }
        let per = p.insts[i].exec.regs() as u8;
        let step = if plants.has(Plant::ZeroSamplesSimd16Step) {
            1
        } else {
            per
        };
        let trust_uniform = plants.has(Plant::ZeroSamplesNonzero);
        let mut keep = lp.srcs.len();
        while keep > 1
            && (lp.srcs[keep - 1].is_zero() || trust_uniform && lp.uniform >> (keep - 1) & 1 != 0)
        {
            keep -= 1;
        }
        let cut = lp.srcs.len() - keep;
        if cut == 0 {
            continue;
        }
        let header = desc.header as u8;
        let mlen = desc.mlen - cut as u8 * step;
        if let VOp::LoadPayload(lp) = &mut p.insts[i - 1].op {
            lp.srcs.truncate(keep);
        }
        p.regs[payload].size = header + keep as u8 * per;
        if let VOp::Hw(Op::Send(d)) = &mut p.insts[i].op {
            d.mlen = mlen;
        }
        trimmed += 1;
    }
    trimmed
}
