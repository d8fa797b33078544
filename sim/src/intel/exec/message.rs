//! SEND messages by their descriptors (`brw_eu_defines.h`, `brw_eu.h` `brw_dp_*_desc`, Mesa
//! 25.0.7): descriptor bits 28:25 mlen, 24:20 rlen, 19 header present; for the data port
//! 18:14 message type, 13:8 message control, 7:0 binding-table index.
//!
//! Modelled, Gfx9:
//! * data cache 1 (SFID 12) untyped surface read (type 1) and write (type 9): message control
//!   3:0 the channels *disabled* (R, G, B, A), 5:4 the SIMD mode (1 SIMD16, 2 SIMD8); one
//!   dword address per lane in bytes, then the data channel by channel; only lanes of the
//!   execution mask access memory; past the surface's end reads return 0 and writes are
//!   dropped (the surface state's bounds check);
//! * data cache 0 (SFID 10) on the stateless surface 253, i.e. the thread's scratch space, with
//!   brw's scratch header (`g0.5[31:10]` the base, `.2` the offset): OWORD block read (type 0)
//!   and write (type 8), offset in OWORDs, 2, 4 or 8 OWORDs (control 2:0 = 2, 3, 4); dword
//!   `k` of the block belongs to lane `k`, so without NoMask only the enabled lanes' dwords
//!   are written (brw's spills rely on it: `brw_reg_allocate.cpp:1216-1228`, "Spills should
//!   only write data initialized by the instruction for whichever channels are enabled");
//!   DWORD scattered read (3) and write (11), one dword offset per lane, control bit 0
//!   SIMD16, bit 1 the legacy SIMD mode;
//! * data cache 0 OWORD block reads of a bound surface (type 0 offset in OWORDs, type 1 in
//!   bytes), past the surface's end reading zero;
//! * the sampler (SFID 2): see [`super::sampler`];
//! * the thread spawner (SFID 7) with EOT: the end of the thread; from Gfx12.5 on the message
//!   gateway (SFID 3) with EOT (`compiler/brw_fs_visitor.cpp:386-390`);
//! * Gfx12.5's LSC ports (SFID 13-15): see [`super::lsc`].
//!
//! A split send (`sends`) carries its data in a second payload; laid after the first, it reads
//! exactly as a plain send's single payload does.

use super::super::gen::Gen;
use super::super::inst::Inst;
use super::super::types::RegFile;
use super::operand::Regs;
use super::payload::{dwords, registers, Memory, Response, ScratchWindow};
use super::{fault, unsupported, Stop};
use super::{lsc, sampler};

/// The stateless binding-table index brw's scratch messages use on Gfx9
/// (`GFX8_BTI_STATELESS_NON_COHERENT`).
pub const BTI_STATELESS: u8 = 253;

/// The binding-table index of shared local memory (`GFX7_BTI_SLM`).
pub const BTI_SLM: u8 = 254;

const SFID_SAMPLER: u8 = 2;
const SFID_GATEWAY: u8 = 3;
const SFID_THREAD_SPAWNER: u8 = 7;
const SFID_DC0: u8 = 10;
const SFID_DC1: u8 = 12;

/// What a message did to the thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Nothing beyond its response.
    None,
    /// End of thread.
    EndOfThread,
}

/// The message's fields decoded from its descriptor.
struct Message {
    mlen: usize,
    rlen: usize,
    header: bool,
    kind: u32,
    control: u32,
    bti: u8,
}

/// Executes a send; `lanes` has bit `i` set for each lane its execution mask enables.
pub fn send(
    r: &mut Regs,
    inst: &Inst,
    lanes: u32,
    memory: &mut Memory,
    scratch: &mut [u8],
    window: ScratchWindow,
) -> Result<Effect, Stop> {
    let Some(send) = inst.send else {
        return fault("send without a message");
    };
    let Some(desc) = send.desc else {
        return unsupported("send with an a0 descriptor");
    };
    if send.is_lsc() && !send.eot {
        if let Some(words) = lsc::send(r, inst, lanes, memory, scratch, window)? {
            write_response(r, inst, (desc >> 20 & 0x1f) as usize, &words, lanes)?;
        }
        return Ok(Effect::None);
    }
    let ex_mlen = if inst.opcode.is_split_send() || inst.gen.is_gfx12() {
        match send.ex_mlen() {
            Some(n) => n as usize,
            None => return unsupported("send with an a0 extended descriptor"),
        }
    } else {
        0
    };
    let m = Message {
        mlen: (desc >> 25 & 0xf) as usize,
        rlen: (desc >> 20 & 0x1f) as usize,
        header: desc >> 19 & 1 == 1,
        kind: desc >> 14 & 0x1f,
        control: desc >> 8 & 0x3f,
        bti: desc as u8,
    };
    if send.eot {
        let ends_threads = match inst.gen {
            Gen::Gfx9 | Gen::Gfx12 => SFID_THREAD_SPAWNER,
            Gen::Gfx125 | Gen::Gfx125Mtl | Gen::Xe2 => SFID_GATEWAY,
        };
        if send.sfid == ends_threads {
            return Ok(Effect::EndOfThread);
        }
        return unsupported(format!(
            "end of thread through shared function {}",
            send.sfid
        ));
    }
    let mut payload = registers(r, inst.src[0].as_ref(), m.mlen)?;
    if ex_mlen > 0 {
        let Some((RegFile::Grf, nr)) = send.src1 else {
            return fault("split send whose second payload is not a GRF");
        };
        payload.extend(dwords(r, nr as usize, ex_mlen)?);
    }
    let response = match (send.sfid, m.kind) {
        (SFID_DC1, 1 | 9) => untyped(&m, &payload, lanes, inst, memory)?,
        (SFID_DC1, k) => return unsupported(format!("data cache 1 message type {k}")),
        (SFID_DC0, 0 | 1) if m.bti != BTI_STATELESS => surface_block(&m, &payload, memory)?,
        (SFID_DC0, k) if m.bti != BTI_STATELESS => {
            return unsupported(format!(
                "data cache 0 message type {k} on surface {}",
                m.bti
            ))
        }
        (SFID_DC0, 0 | 8) => block(&m, &payload, block_lanes(inst, lanes), scratch, window)?,
        (SFID_DC0, 3 | 11) => scattered(&m, &payload, lanes, inst, scratch, window)?,
        (SFID_DC0, k) => return unsupported(format!("data cache 0 message type {k}")),
        (SFID_SAMPLER, _) => {
            let Some(image) = memory.images.get(&m.bti) else {
                return unsupported(format!("sampler surface {} not bound", m.bti));
            };
            let (words, simd) = sampler::sample(desc, m.header, &payload, m.rlen, lanes, image)?;
            if simd != inst.exec_size as usize {
                return unsupported("sampler message of another width than its instruction");
            }
            Some(Response::Lanes { words, simd })
        }
        (sfid, _) => return unsupported(format!("shared function {sfid}")),
    };
    if let Some(words) = response {
        write_response(r, inst, m.rlen, &words, lanes)?;
    }
    Ok(Effect::None)
}

fn write_response(
    r: &mut Regs,
    inst: &Inst,
    rlen: usize,
    response: &Response,
    lanes: u32,
) -> Result<(), Stop> {
    let words: &[u32] = match response {
        Response::Block { words: w, .. } | Response::Lanes { words: w, .. } => w,
    };
    if words.len() != rlen * 8 {
        return fault(format!(
            "descriptor rlen {} for a response of {} registers",
            rlen,
            words.len().div_ceil(8)
        ));
    }
    let Some(dst) = inst.dst else {
        return fault("send with a response and no destination");
    };
    if dst.file != RegFile::Grf {
        return fault("send response into an ARF");
    }
    let base = dst.nr as usize;
    for (k, &w) in words.iter().enumerate() {
        let enabled = match response {
            Response::Lanes { simd, .. } => lanes >> (k % simd) & 1 == 1,
            Response::Block { dwords, .. } => {
                dwords.checked_shr(k as u32).is_some_and(|d| d & 1 == 1)
            }
        };
        if !enabled {
            continue;
        }
        r.set_dword(base + k / 8, k % 8, w)?;
    }
    Ok(())
}

/// SIMD lanes of a data-port message from its control bits 5:4.
fn untyped_simd(control: u32) -> Result<usize, Stop> {
    match control >> 4 & 3 {
        1 => Ok(16),
        2 => Ok(8),
        mode => unsupported(format!("untyped surface SIMD mode {mode}")),
    }
}

/// Untyped surface read (type 1) or write (type 9).
fn untyped(
    m: &Message,
    payload: &[u32],
    lanes: u32,
    inst: &Inst,
    memory: &mut Memory,
) -> Result<Option<Response>, Stop> {
    if m.header {
        return unsupported("untyped surface message with a header");
    }
    let simd = untyped_simd(m.control)?;
    if simd != inst.exec_size as usize {
        return unsupported("untyped surface message of another width than its instruction");
    }
    let channels: Vec<usize> = (0..4).filter(|c| m.control >> c & 1 == 0).collect();
    let write = m.kind == 9;
    let need = simd * (1 + if write { channels.len() } else { 0 });
    if payload.len() < need {
        return fault(format!(
            "untyped surface message with {} payload dwords, {need} needed",
            payload.len()
        ));
    }
    let surface = match m.bti {
        BTI_SLM => &mut memory.slm,
        bti => match memory.surfaces.get_mut(&bti) {
            Some(surface) => surface,
            None => return unsupported(format!("surface {bti} not bound")),
        },
    };
    let mut words = vec![0; channels.len() * simd];
    for lane in (0..simd).filter(|i| lanes >> i & 1 == 1) {
        let address = payload[lane];
        if !address.is_multiple_of(4) {
            return fault(format!(
                "untyped surface access at unaligned byte {address}"
            ));
        }
        // The surface state bounds the buffer: past its end reads return 0 and writes are
        // dropped (brw may load a wider vector than it uses).
        for (k, &c) in channels.iter().enumerate() {
            let index = address as usize / 4 + c;
            match (surface.get_mut(index), write) {
                (Some(word), true) => *word = payload[simd * (1 + k) + lane],
                (Some(word), false) => words[k * simd + lane] = *word,
                (None, _) => {}
            }
        }
    }
    Ok((!write).then_some(Response::Lanes { words, simd }))
}

/// The scratch byte range `[address, address + len)` inside the thread's window.
fn scratch_range(
    address: u64,
    len: usize,
    window: ScratchWindow,
) -> Result<std::ops::Range<usize>, Stop> {
    let base = window.base as u64;
    if address < base || address + len as u64 > base + window.bytes as u64 {
        return fault(format!(
            "scratch access at {address:#x}+{len} outside the thread's space {base:#x}+{:#x}",
            window.bytes
        ));
    }
    let at = (address - base) as usize;
    Ok(at..at + len)
}

/// The scratch base a header names (`g0.5[31:10]` as brw copies it).
fn header_base(payload: &[u32]) -> u64 {
    (payload[5] & 0xffff_fc00) as u64
}

/// The dwords of a block message that are accessed: all with NoMask, else dword `k` when
/// lane `k` is enabled.
fn block_lanes(inst: &Inst, lanes: u32) -> u64 {
    if inst.no_mask {
        u64::MAX
    } else {
        lanes as u64
    }
}

/// OWORD block read (type 0) or write (type 8) on scratch; `dwords` has bit `k` set for each
/// dword accessed.
fn block(
    m: &Message,
    payload: &[u32],
    dwords: u64,
    scratch: &mut [u8],
    window: ScratchWindow,
) -> Result<Option<Response>, Stop> {
    if !m.header || payload.len() < 8 {
        return fault("OWORD block message without a header");
    }
    let owords = match m.control & 7 {
        2 => 2,
        3 => 4,
        4 => 8,
        c => return unsupported(format!("OWORD block size code {c}")),
    };
    let len = owords * 16;
    let address = header_base(payload) + payload[2] as u64 * 16;
    let range = scratch_range(address, len, window)?;
    if m.kind == 8 {
        let data = payload.get(8..8 + len / 4).ok_or(Stop::Fault(format!(
            "OWORD block write of {owords} OWORDs with {} data dwords",
            payload.len() - 8
        )))?;
        for (k, w) in data.iter().enumerate() {
            if dwords.checked_shr(k as u32).is_some_and(|d| d & 1 == 1) {
                scratch[range.start + 4 * k..][..4].copy_from_slice(&w.to_le_bytes());
            }
        }
        return Ok(None);
    }
    let words = scratch[range]
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
        .collect();
    Ok(Some(Response::Block { words, dwords }))
}

/// OWORD block read of a bound surface: aligned (type 0, header dword 2 in OWORDs) or
/// unaligned (type 1, in bytes; brw's block loads, `brw_lower_logical_sends.cpp:1690-1700`).
/// Dwords past the surface's end read as zero: the surface state bounds the buffer, and brw
/// loads whole blocks past the end of small buffers.
fn surface_block(m: &Message, payload: &[u32], memory: &Memory) -> Result<Option<Response>, Stop> {
    if !m.header || payload.len() < 8 {
        return fault("OWORD block message without a header");
    }
    let owords = match m.control & 7 {
        2 => 2,
        3 => 4,
        4 => 8,
        c => return unsupported(format!("OWORD block size code {c}")),
    };
    let address = if m.kind == 0 {
        payload[2] as u64 * 16
    } else {
        payload[2] as u64
    };
    if !address.is_multiple_of(4) {
        return unsupported("OWORD block read at an address that is not a dword's");
    }
    let Some(surface) = memory.surfaces.get(&m.bti) else {
        return unsupported(format!("surface {} not bound", m.bti));
    };
    let first = (address / 4) as usize;
    let words = (first..first + owords * 4)
        .map(|k| surface.get(k).copied().unwrap_or(0))
        .collect();
    Ok(Some(Response::Block {
        words,
        dwords: u64::MAX,
    }))
}

/// DWORD scattered read (type 3) or write (type 11) on scratch.
fn scattered(
    m: &Message,
    payload: &[u32],
    lanes: u32,
    inst: &Inst,
    scratch: &mut [u8],
    window: ScratchWindow,
) -> Result<Option<Response>, Stop> {
    if !m.header || payload.len() < 8 {
        return fault("DWORD scattered message without a header");
    }
    if m.control & 2 == 0 {
        return unsupported("DWORD scattered message outside the legacy SIMD mode");
    }
    if payload[2] != 0 {
        return unsupported("DWORD scattered message with a global offset");
    }
    let simd = if m.control & 1 == 1 { 16 } else { 8 };
    if simd != inst.exec_size as usize {
        return unsupported("DWORD scattered message of another width than its instruction");
    }
    let write = m.kind == 11;
    let need = 8 + simd * if write { 2 } else { 1 };
    if payload.len() < need {
        return fault(format!(
            "DWORD scattered message with {} payload dwords, {need} needed",
            payload.len()
        ));
    }
    let base = header_base(payload);
    let mut words = vec![0; simd];
    for lane in (0..simd).filter(|i| lanes >> i & 1 == 1) {
        let address = base + payload[8 + lane] as u64 * 4;
        let range = scratch_range(address, 4, window)?;
        if write {
            scratch[range].copy_from_slice(&payload[8 + simd + lane].to_le_bytes());
        } else {
            words[lane] = u32::from_le_bytes(scratch[range].try_into().expect("4 bytes"));
        }
    }
    Ok((!write).then_some(Response::Lanes { words, simd }))
}
