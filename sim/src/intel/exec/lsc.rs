//! Gfx12.5's load/store cache (LSC) messages on the untyped global memory port (UGM, SFID
//! 15), as brw emits them for compute shaders on dg2/mtl (Mesa 25.0.7; paths under
//! `src/intel/`). The descriptor's fields are read by [`crate::intel::lsc`] (`lsc_msg_desc*`,
//! `compiler/brw_eu.h:1136-1245`); cache controls change no result and are ignored.
//!
//! Modelled:
//! * `load`, `store` and their component-mask forms `load_cmask`/`store_cmask`;
//! * SIMT messages (SIMD8/16): one address per lane in the first payload (`a32` a dword,
//!   `a64` a qword), the data component-major — component `c` of lane `i` at dword
//!   `c·SIMD + i` of the response or the second payload (`lower_lsc_memory_logical_send`,
//!   `compiler/brw_lower_logical_sends.cpp:1426-1583`); a vector's component `c` is the
//!   element at `address + c·size`; only the lanes of the execution mask access memory and
//!   get their response dwords; `d32`, and `d8u32`/`d16u32` (one byte or halfword in memory,
//!   zero-extended into the lane's dword);
//! * transposed messages (`transpose`, exec size 1): lane 0's address, a block of `V1…V64`
//!   consecutive `d32` elements packed into the response or taken from the second payload
//!   (brw's uniform block loads, push constants, and fills: `compiler/brw_reg_allocate.cpp:816-862`);
//! * address types: `bti` — the extended descriptor's binding-table index (31:24;
//!   `lsc_bti_ex_desc`, `brw_eu.h:1291-1297`) names a bound buffer, and past its end reads
//!   return 0 and writes are dropped (the surface state's bounds: anv sizes a buffer surface
//!   by its range, `isl/isl_surface_state.c:955-975`); `flat` — stateless addresses into the
//!   flat regions the dispatch placed ([`super::Memory::flat`]; Gfx12.5 loads the push
//!   constants so from `g0.0[31:6]`, `compiler/brw_fs.cpp:937-975`), outside them a fault;
//!   `ss` — the thread's scratch. brw names the scratch surface by `g0.5[31:10]` copied into
//!   the extended descriptor (`and a0.2 g0.5 0xfffffc00`, then ex_mlen and the SFID or-ed in:
//!   `compiler/brw_reg_allocate.cpp:691-727`, `compiler/brw_fs_nir.cpp:6990-7003`,
//!   `brw_lower_send_descriptors`, `compiler/brw_lower_logical_sends.cpp:2671-2707`), so the
//!   surface-state offset is bits 31:10 and must be the thread's own ([`ScratchWindow::base`]);
//!   anv makes that surface `SURFTYPE_SCRATCH` with the per-thread size as its pitch
//!   (`vulkan/anv_allocator.c:1402-1447`, `isl/isl_surface_state.c:1010-1022`), the hardware
//!   adds the thread's slot, so a message's offsets start at 0 in the thread's space and one
//!   past its end is a fault.
//!
//! The extended descriptor comes from the instruction or, when brw computed it, from the
//! `a0` dword the instruction names; with it come the second payload's length (9:6).
//! The SLM port (SFID 14) takes the same messages with `flat` addresses, byte offsets into the
//! workgroup's shared local memory ([`super::Memory::slm`]), which bound it as a surface's
//! state bounds a buffer.
//!
//! Everything else — typed memory, atomics, fences, `d8`/`d16`/`d64`,
//! `a16`, `bss`, non-zero base offsets, other widths — is [`Stop::Unsupported`] with a short
//! reason.

use super::super::inst::Inst;
use super::super::lsc::{self as field, OP_LOAD, OP_LOAD_CMASK, OP_STORE, OP_STORE_CMASK};
use super::super::types::RegFile;
use super::operand::Regs;
use super::payload::{dwords, registers, Memory, Response, ScratchWindow};
use super::{fault, unsupported, Stop};
use std::collections::BTreeMap;

/// The untyped global memory port (`GFX12_SFID_UGM`).
const SFID_UGM: u8 = 15;

/// The shared local memory port (`GFX12_SFID_SLM`): flat addresses into the workgroup's SLM.
const SFID_SLM: u8 = 14;

/// Address types (`lsc_addr_surface_type`).
const FLAT: u32 = 0;
const SS: u32 = 2;
const BTI: u32 = 3;

/// Executes an LSC send; `lanes` has bit `i` set for each lane its execution mask enables.
/// Returns the response to write, if the message has one.
pub(super) fn send(
    r: &Regs,
    inst: &Inst,
    lanes: u32,
    memory: &mut Memory,
    scratch: &mut [u8],
    window: ScratchWindow,
) -> Result<Option<Response>, Stop> {
    let Some(send) = inst.send else {
        return fault("send without a message");
    };
    let Some(desc) = send.desc else {
        return unsupported("send with an a0 descriptor");
    };
    match send.sfid {
        SFID_UGM | SFID_SLM => {}
        13 => return unsupported("LSC typed memory"),
        sfid => return unsupported(format!("LSC shared function {sfid}")),
    }
    if send.ex_bso {
        return unsupported("LSC extended bindless surface offset");
    }
    let ex_desc = match send.ex_desc {
        Some(ex) => ex,
        None => {
            let at = send.ex_desc_a0_subreg as usize * 4;
            u32::from_le_bytes(r.a0[at..at + 4].try_into().expect("4 bytes of a0"))
        }
    };
    let op = field::op(desc);
    // The component-mask operations use bit 15 for `w`: they are never transposed.
    let masked = op == OP_LOAD_CMASK || op == OP_STORE_CMASK;
    let store = match op {
        OP_LOAD | OP_LOAD_CMASK => false,
        OP_STORE | OP_STORE_CMASK => true,
        op => {
            let name = field::op_name(op).unwrap_or("invalid operation");
            return unsupported(format!("LSC {name}"));
        }
    };
    let element = Element::of(field::data_size(desc))?;
    let mlen = (desc >> 25 & 0xf) as usize;
    let ex_mlen = (ex_desc >> 6 & 0xf) as usize;
    let addresses = registers(r, inst.src[0].as_ref(), mlen)?;
    let data = match (ex_mlen, send.src1) {
        (0, _) => Vec::new(),
        (n, Some((RegFile::Grf, nr))) => dwords(r, nr as usize, n)?,
        _ => return fault("LSC second payload is not a GRF"),
    };
    let mut space = match field::addr_type(desc) {
        FLAT if send.sfid == SFID_SLM => {
            if field::flat_base_offset(ex_desc) != 0 {
                return unsupported("LSC SLM base offset");
            }
            Space::Surface(&mut memory.slm)
        }
        _ if send.sfid == SFID_SLM => return unsupported("LSC SLM through a surface"),
        BTI => {
            if field::bti_base_offset(ex_desc) != 0 {
                return unsupported("LSC bti base offset");
            }
            let bti = field::bti_index(ex_desc) as u8;
            match memory.surfaces.get_mut(&bti) {
                Some(words) => Space::Surface(words),
                None => return unsupported(format!("surface {bti} not bound")),
            }
        }
        FLAT => {
            if field::flat_base_offset(ex_desc) != 0 {
                return unsupported("LSC flat base offset");
            }
            Space::Flat(&mut memory.flat)
        }
        SS => {
            if ex_desc & 0xffff_fc00 != window.base & 0xffff_fc00 {
                return fault(format!(
                    "scratch surface state {:#x} is not the thread's {:#x}",
                    ex_desc & 0xffff_fc00,
                    window.base & 0xffff_fc00
                ));
            }
            Space::Scratch(scratch)
        }
        _ => return unsupported("LSC bss surface"),
    };
    let wide = match field::addr_size(desc) {
        2 => false,
        3 => true,
        _ => return unsupported("LSC a16 address"),
    };
    let address = |lane: usize| -> Result<u64, Stop> {
        let at = if wide { 2 * lane } else { lane };
        let missing = || Stop::Fault(format!("LSC address payload of {mlen} registers"));
        let lo = *addresses.get(at).ok_or_else(missing)? as u64;
        if !wide {
            return Ok(lo);
        }
        Ok(lo | (*addresses.get(at + 1).ok_or_else(missing)? as u64) << 32)
    };
    if !masked && field::transpose(desc) {
        if element != Element::D32 {
            return unsupported("LSC transposed data other than d32");
        }
        if inst.exec_size != 1 {
            return unsupported("LSC transposed message of more than one lane");
        }
        let n = field::vector_length(field::vect_size(desc));
        if lanes & 1 == 0 {
            return Ok((!store).then(|| Response::Block {
                words: vec![0; n.div_ceil(8) * 8],
                dwords: 0,
            }));
        }
        let base = address(0)?;
        if store {
            let words = data.get(..n).ok_or(Stop::Fault(format!(
                "LSC transposed store of {n} dwords with {} data dwords",
                data.len()
            )))?;
            for (k, &w) in words.iter().enumerate() {
                space.store(base + 4 * k as u64, Element::D32, w)?;
            }
            return Ok(None);
        }
        let mut words = vec![0; n.div_ceil(8) * 8];
        for (k, word) in words.iter_mut().take(n).enumerate() {
            *word = space.load(base + 4 * k as u64, Element::D32)?;
        }
        let dwords = u64::MAX.checked_shr(64 - n as u32).unwrap_or(0);
        return Ok(Some(Response::Block { words, dwords }));
    }
    let simd = inst.exec_size as usize;
    if simd != 8 && simd != 16 {
        return unsupported(format!("LSC message of {simd} lanes"));
    }
    // The components the message carries, in payload order.
    let components: Vec<u64> = if masked {
        (0..4)
            .filter(|c| field::cmask(desc) >> c & 1 == 1)
            .collect()
    } else {
        (0..field::vector_length(field::vect_size(desc)) as u64).collect()
    };
    if store && data.len() < components.len() * simd {
        return fault(format!(
            "LSC store of {} components with {} data dwords",
            components.len(),
            data.len()
        ));
    }
    let mut words = vec![0; components.len() * simd];
    for lane in (0..simd).filter(|i| lanes >> i & 1 == 1) {
        let at = address(lane)?;
        for (k, &c) in components.iter().enumerate() {
            let element_at = at + c * element.bytes() as u64;
            if store {
                space.store(element_at, element, data[k * simd + lane])?;
            } else {
                words[k * simd + lane] = space.load(element_at, element)?;
            }
        }
    }
    Ok((!store).then_some(Response::Lanes { words, simd }))
}

/// The data sizes modelled: what one element is in memory (its register slot is a dword).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Element {
    D32,
    D8U32,
    D16U32,
}

impl Element {
    fn of(code: u32) -> Result<Element, Stop> {
        match code {
            2 => Ok(Element::D32),
            4 => Ok(Element::D8U32),
            5 => Ok(Element::D16U32),
            c => unsupported(format!(
                "LSC data size {}",
                field::data_size_name(c).unwrap_or("invalid")
            )),
        }
    }

    /// Bytes in memory.
    fn bytes(self) -> usize {
        match self {
            Element::D32 => 4,
            Element::D8U32 => 1,
            Element::D16U32 => 2,
        }
    }
}

/// What an address names.
enum Space<'a> {
    /// A bound buffer, bounded by its surface state: reads past the end return 0, writes there
    /// are dropped.
    Surface(&'a mut Vec<u32>),
    /// The thread's scratch space from offset 0: past its end is a fault.
    Scratch(&'a mut [u8]),
    /// Flat memory: the regions the dispatch placed; anywhere else is a fault.
    Flat(&'a mut BTreeMap<u64, Vec<u32>>),
}

impl Space<'_> {
    /// The element at byte `address`, zero-extended.
    fn load(&mut self, address: u64, element: Element) -> Result<u32, Stop> {
        let n = element.bytes();
        Ok(match self.word(address, n)? {
            Some(Slot::Word(word, shift)) => (*word >> shift) & mask(n),
            Some(Slot::Bytes(bytes)) => {
                let mut word = [0; 4];
                word[..n].copy_from_slice(bytes);
                u32::from_le_bytes(word)
            }
            None => 0,
        })
    }

    /// Writes the element's low bytes of `value` at byte `address`.
    fn store(&mut self, address: u64, element: Element, value: u32) -> Result<(), Stop> {
        let n = element.bytes();
        match self.word(address, n)? {
            Some(Slot::Word(word, shift)) => {
                let m = mask(n) << shift;
                *word = *word & !m | value << shift & m;
            }
            Some(Slot::Bytes(bytes)) => bytes.copy_from_slice(&value.to_le_bytes()[..n]),
            None => {}
        }
        Ok(())
    }

    /// Where the `n` bytes at `address` live, or `None` past a surface's end.
    fn word(&mut self, address: u64, n: usize) -> Result<Option<Slot<'_>>, Stop> {
        if !address.is_multiple_of(n as u64) {
            return fault(format!(
                "LSC {n}-byte access at unaligned byte {address:#x}"
            ));
        }
        let shift = (address % 4 * 8) as u32;
        match self {
            Space::Surface(words) => Ok(words
                .get_mut((address / 4) as usize)
                .map(|w| Slot::Word(w, shift))),
            Space::Scratch(bytes) => {
                let len = bytes.len();
                match bytes.get_mut(address as usize..address as usize + n) {
                    Some(b) => Ok(Some(Slot::Bytes(b))),
                    None => fault(format!(
                        "scratch access at {address:#x}+{n} outside the thread's space of {len:#x}"
                    )),
                }
            }
            Space::Flat(regions) => {
                let word = regions
                    .range_mut(..=address)
                    .next_back()
                    .and_then(|(&base, words)| words.get_mut(((address - base) / 4) as usize));
                match word {
                    Some(w) => Ok(Some(Slot::Word(w, shift))),
                    None => fault(format!("flat access at {address:#x} outside memory")),
                }
            }
        }
    }
}

/// An element's place: inside a word (at a bit shift) or a run of bytes.
enum Slot<'a> {
    Word(&'a mut u32, u32),
    Bytes(&'a mut [u8]),
}

/// The low `n` bytes of a word.
fn mask(n: usize) -> u32 {
    u32::MAX >> (32 - 8 * n as u32)
}
