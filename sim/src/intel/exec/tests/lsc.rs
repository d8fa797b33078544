//! LSC messages (`exec/lsc.rs`), hand-built: each test's answer changes if one descriptor or
//! extended-descriptor field were read wrong. The registers a message reads are filled through
//! the thread's payload, so each test shows exactly the message and its effect. The
//! instructions keep the Gfx9 encoding tag: the messages do not depend on it, and Gfx12's
//! software scoreboard (which would want tokens on every send) is tested on its own.

use super::*;

/// `lsc_msg_desc`'s layout (`brw_eu.h:1136-1180`) with the send's mlen and rlen.
struct Lsc {
    op: u32,
    addr_type: u32,
    addr_size: u32,
    data_size: u32,
    vect_or_cmask: u32,
    transpose: bool,
    mlen: u32,
    rlen: u32,
}

const LOAD: u32 = 0;
const LOAD_CMASK: u32 = 2;
const STORE: u32 = 4;
const STORE_CMASK: u32 = 6;
const FLAT: u32 = 0;
const SS: u32 = 2;
const BTI: u32 = 3;
const A32: u32 = 2;
const A64: u32 = 3;
const D32: u32 = 2;
const D8U32: u32 = 4;
const D16U32: u32 = 5;
/// Vector size codes: V1, V2, V3, V4, V8 (`lsc_vect_size`).
const V1: u32 = 0;
const V4: u32 = 3;
const V8: u32 = 4;

impl Lsc {
    fn simt(op: u32, addr_type: u32, vect_or_cmask: u32, mlen: u32, rlen: u32) -> Lsc {
        Lsc {
            op,
            addr_type,
            addr_size: A32,
            data_size: D32,
            vect_or_cmask,
            transpose: false,
            mlen,
            rlen,
        }
    }

    fn desc(&self) -> u32 {
        self.op
            | self.addr_size << 7
            | self.data_size << 9
            | self.vect_or_cmask << 12
            | (self.transpose as u32) << 15
            | self.rlen << 20
            | self.mlen << 25
            | self.addr_type << 29
    }

    /// The send: `exec_size` lanes, addresses from `src0`, data from `src1` (`ex_mlen`
    /// registers), the response into `dst`; `ex_desc` `None` reads it from a0.2.
    fn send(
        &self,
        exec_size: u8,
        dst: Option<u8>,
        src0: u8,
        src1: u8,
        ex_desc: Option<u32>,
    ) -> Inst {
        let mut i = send(15, self.desc(), dst, src0, Some((src1, 0)));
        i.opcode = Opcode::SEND;
        i.exec_size = exec_size;
        if let Some(s) = i.send.as_mut() {
            s.ex_desc = ex_desc;
            s.ex_desc_a0_subreg = 2;
        }
        i
    }
}

/// The extended descriptor of a bti message with `ex_mlen` data registers.
fn bti(index: u32, ex_mlen: u32) -> Option<u32> {
    Some(index << 24 | ex_mlen << 6)
}

/// `mov(1) a0.2<1>UD value` with NoMask, as brw sets an indirect extended descriptor.
fn set_a0_2(value: u32) -> Inst {
    let mut i = alu(
        Opcode::MOV,
        1,
        Dst {
            file: RegFile::Arf,
            nr: 0x10,
            subreg: 8,
            ..dst(0, Type::UD)
        },
        &[imm(Type::UD, value as u64)],
    );
    i.no_mask = true;
    i
}

/// A thread: the given registers filled, `lanes` enabled, over `memory`; returns the
/// registers `read` (eight dwords each) and the memory after.
fn thread(
    insts: Vec<Inst>,
    registers: &[(u8, [u32; 8])],
    lanes: u32,
    mut memory: Memory,
    read: &[u8],
) -> Result<(Vec<[u32; 8]>, Memory), Stop> {
    // Copy each register read into a surface (bti 200), one register after the other.
    let mut insts = insts;
    for (k, &nr) in read.iter().enumerate() {
        let mut at = alu(
            Opcode::MOV,
            8,
            dst(120, Type::UD),
            &[imm(Type::UD, 32 * k as u64)],
        );
        at.no_mask = true;
        insts.push(at);
        let mut add = alu(
            Opcode(64),
            8,
            dst(120, Type::UD),
            &[reg(120, Type::UD), reg(121, Type::UD)],
        );
        add.no_mask = true;
        insts.push(add);
        let mut copy = alu(Opcode::MOV, 8, dst(122, Type::UD), &[reg(nr, Type::UD)]);
        copy.no_mask = true;
        insts.push(copy);
        let mut write = untyped_write(200, 1);
        write.src[0] = Some(reg(120, Type::UD));
        write.send.as_mut().expect("send").src1 = Some((RegFile::Grf, 122));
        write.no_mask = true;
        insts.push(write);
    }
    memory.surfaces.insert(200, vec![0; 8 * read.len()]);
    let mut payload = vec![
        (0, [0, 0, 0, 0, 0, WINDOW.base, 0, 0]),
        (121, [0, 4, 8, 12, 16, 20, 24, 28]),
    ];
    payload.extend_from_slice(registers);
    let start = Start {
        payload: &payload,
        dispatch_mask: lanes,
        scratch: WINDOW,
    };
    run_thread(&program(insts), &start, &mut memory, &mut 10_000)?;
    let out = memory.surfaces.remove(&200).expect("read-back surface");
    let regs = out
        .chunks(8)
        .map(|c| c.try_into().expect("8 dwords"))
        .collect();
    Ok((regs, memory))
}

fn surface(bti: u8, words: Vec<u32>) -> Memory {
    let mut m = Memory::default();
    m.surfaces.insert(bti, words);
    m
}

/// Lane `i`'s byte address `stride·i` (SIMD8, one register).
fn lane_addresses(stride: u32) -> [u32; 8] {
    std::array::from_fn(|i| stride * i as u32)
}

#[test]
fn a_simt_vector_load_is_component_major_and_a_transposed_one_is_a_block() {
    // Words 100, 101, … at bti 2. SIMT V4 at lane addresses 16·i: component c of lane i is
    // word 4i + c, one register per component. Transposed V8 at byte 8: words 2..9 packed in
    // one register. Read the other way round, both answers would differ.
    let memory = surface(2, (100..164).collect());
    let v4 = Lsc::simt(LOAD, BTI, V4, 1, 4).send(8, Some(20), 3, 0, bti(2, 0));
    let block = Lsc {
        transpose: true,
        ..Lsc::simt(LOAD, BTI, V8, 1, 1)
    }
    .send(1, Some(30), 4, 0, bti(2, 0));
    let (regs, _) = thread(
        vec![v4, block],
        &[(3, lane_addresses(16)), (4, [8, 0, 0, 0, 0, 0, 0, 0])],
        0xff,
        memory,
        &[20, 21, 22, 23, 30],
    )
    .expect("runs");
    for (c, reg) in regs[..4].iter().enumerate() {
        assert_eq!(
            reg.to_vec(),
            (0..8).map(|i| 100 + 4 * i + c as u32).collect::<Vec<_>>()
        );
    }
    assert_eq!(regs[4].to_vec(), (102..110).collect::<Vec<u32>>());
}

#[test]
fn a_simt_load_fills_only_the_enabled_lanes_and_reads_zero_past_the_surfaces_end() {
    // Lanes 0-5 enabled, lane addresses 4·i on a 4-word surface: lanes 0-3 read, 4-5 read 0
    // (the surface's bounds), 6-7 keep the register's 0xeeee.
    let v1 = Lsc::simt(LOAD, BTI, V1, 1, 1).send(8, Some(20), 3, 0, bti(5, 0));
    let (regs, _) = thread(
        vec![v1],
        &[(3, lane_addresses(4)), (20, [0xeeee; 8])],
        0x3f,
        surface(5, vec![7, 8, 9, 10]),
        &[20],
    )
    .expect("runs");
    assert_eq!(regs[0], [7, 8, 9, 10, 0, 0, 0xeeee, 0xeeee]);
}

#[test]
fn the_slm_port_stores_and_loads_the_workgroups_words_by_flat_offset() {
    // brw's `store.slm.d32.a32` then `load.slm.d32.a32` (descriptors 0x02000504 and 0x02100500
    // in the skl/dg2 captures' lnl twin): lane i stores 50 + i at byte 4·(7 - i) of an 8-word
    // SLM, then loads byte 4·i back, so the words arrive reversed; no surface is touched.
    let mut store = Lsc::simt(STORE, FLAT, V1, 1, 0).send(8, None, 3, 10, Some(1 << 6));
    store.send.as_mut().expect("send").sfid = 14;
    let mut load = Lsc::simt(LOAD, FLAT, V1, 1, 1).send(8, Some(20), 4, 0, Some(0));
    load.send.as_mut().expect("send").sfid = 14;
    let memory = Memory {
        slm: vec![0; 8],
        ..Memory::default()
    };
    let (regs, memory) = thread(
        vec![store, load],
        &[
            (3, std::array::from_fn(|i| 4 * (7 - i as u32))),
            (4, lane_addresses(4)),
            (10, std::array::from_fn(|i| 50 + i as u32)),
        ],
        0xff,
        memory,
        &[20],
    )
    .expect("runs");
    assert_eq!(memory.slm, (50..58).rev().collect::<Vec<u32>>());
    assert_eq!(regs[0], [57, 56, 55, 54, 53, 52, 51, 50]);
    assert!(memory.surfaces.is_empty() || memory.surfaces.keys().all(|&k| k == 200));
}

#[test]
fn a_simd16_store_takes_two_registers_of_addresses_and_of_data_per_component() {
    // brw's `store a32 d32 V2 bti` at SIMD16 (descriptor 0x64001504 in a dg2 capture: mlen 2,
    // ex_mlen 4): lane i writes x = 1000 + i at 8·i and y = 2000 + i at 8·i + 4.
    let addresses: Vec<u32> = (0..16).map(|i| 8 * i).collect();
    let store = Lsc::simt(STORE, BTI, 1, 2, 0).send(16, None, 3, 10, bti(1, 4));
    assert_eq!(store.send.expect("send").desc, Some(0x6400_1504));
    let (_, memory) = thread(
        vec![store],
        &[
            (3, addresses[..8].try_into().expect("8")),
            (4, addresses[8..].try_into().expect("8")),
            (10, std::array::from_fn(|i| 1000 + i as u32)),
            (11, std::array::from_fn(|i| 1008 + i as u32)),
            (12, std::array::from_fn(|i| 2000 + i as u32)),
            (13, std::array::from_fn(|i| 2008 + i as u32)),
        ],
        0xffff,
        surface(1, vec![0; 32]),
        &[],
    )
    .expect("runs");
    let want: Vec<u32> = (0..16).flat_map(|i| [1000 + i, 2000 + i]).collect();
    assert_eq!(memory.surfaces[&1], want);
}

#[test]
fn a_store_cmask_writes_only_the_masked_components_from_packed_data() {
    // Component mask xz (0b0101): the data holds x then z; lane i writes x at 16·i and z at
    // 16·i + 8, y and w untouched. A vector-size reading would write x, y at +0, +4.
    let store = Lsc::simt(STORE_CMASK, BTI, 0b0101, 1, 0).send(8, None, 3, 10, bti(1, 2));
    let (_, memory) = thread(
        vec![store],
        &[
            (3, lane_addresses(16)),
            (10, std::array::from_fn(|i| 10 + i as u32)),
            (11, std::array::from_fn(|i| 30 + i as u32)),
        ],
        0xff,
        surface(1, vec![0xffff_ffff; 32]),
        &[],
    )
    .expect("runs");
    let want: Vec<u32> = (0..8)
        .flat_map(|i| [10 + i, 0xffff_ffff, 30 + i, 0xffff_ffff])
        .collect();
    assert_eq!(memory.surfaces[&1], want);
    // load_cmask yw reads the packed components back: y = +4, w = +12.
    let load = Lsc::simt(LOAD_CMASK, BTI, 0b1010, 1, 2).send(8, Some(20), 3, 0, bti(1, 0));
    let (regs, _) = thread(
        vec![load],
        &[(3, lane_addresses(16))],
        0xff,
        surface(1, (0..32).collect()),
        &[20, 21],
    )
    .expect("runs");
    assert_eq!(
        regs[0].to_vec(),
        (0..8).map(|i| 4 * i + 1).collect::<Vec<u32>>()
    );
    assert_eq!(
        regs[1].to_vec(),
        (0..8).map(|i| 4 * i + 3).collect::<Vec<u32>>()
    );
}

#[test]
fn d16u32_and_d8u32_access_halfwords_and_bytes_zero_extended() {
    // Words 0x44332211, 0x88776655, … Lane i loads the halfword at 2·i as d16u32 and the byte
    // at i as d8u32; d32 at the same addresses would fault (unaligned) or read whole words.
    let words = vec![0x4433_2211, 0x8877_6655, 0xccbb_aa99, 0x00ff_eedd];
    let d16 = Lsc {
        data_size: D16U32,
        ..Lsc::simt(LOAD, BTI, V1, 1, 1)
    }
    .send(8, Some(20), 3, 0, bti(1, 0));
    let d8 = Lsc {
        data_size: D8U32,
        ..Lsc::simt(LOAD, BTI, V1, 1, 1)
    }
    .send(8, Some(21), 4, 0, bti(1, 0));
    // d8u32 store of 0x1234_56ab at byte 2·i + 1: only the low byte 0xab lands.
    let store = Lsc {
        data_size: D8U32,
        ..Lsc::simt(STORE, BTI, V1, 1, 0)
    }
    .send(8, None, 5, 10, bti(1, 1));
    let (regs, memory) = thread(
        vec![d16, d8, store],
        &[
            (3, lane_addresses(2)),
            (4, lane_addresses(1)),
            (5, std::array::from_fn(|i| 2 * i as u32 + 1)),
            (10, [0x1234_56ab; 8]),
        ],
        0xff,
        surface(1, words),
        &[20, 21],
    )
    .expect("runs");
    assert_eq!(
        regs[0],
        [0x2211, 0x4433, 0x6655, 0x8877, 0xaa99, 0xccbb, 0xeedd, 0x00ff]
    );
    assert_eq!(regs[1], [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]);
    assert_eq!(
        memory.surfaces[&1],
        [0xab33_ab11, 0xab77_ab55, 0xabbb_ab99, 0xabff_abdd]
    );
    let unaligned = Lsc::simt(LOAD, BTI, V1, 1, 1).send(8, Some(20), 3, 0, bti(1, 0));
    let got = thread(
        vec![unaligned],
        &[(3, lane_addresses(2))],
        0xff,
        surface(1, vec![0; 4]),
        &[],
    );
    assert!(
        matches!(got, Err(Stop::Fault(ref m)) if m.contains("unaligned")),
        "{got:?}"
    );
}

/// brw's scratch extended descriptor: `g0.5 & 0xfffffc00`, ex_mlen in 9:6, the SFID in 3:0
/// (`brw_reg_allocate.cpp:691-727`).
fn scratch_ex_desc(g0_5: u32, ex_mlen: u32) -> u32 {
    g0_5 & 0xffff_fc00 | ex_mlen << 6 | 15
}

#[test]
fn a_spill_and_fill_address_the_threads_scratch_from_its_surface_state_at_an_offset() {
    // brw's spill (`store a32 d32 V1 ss`, 0x42000504 at SIMD8) of 50 + i at offsets
    // 0x40 + 4·i, then its fill (`load … V8, transpose … ss`, 0x4210c500) from 0x40 and from
    // 0x44: the second register is the first shifted by one dword.
    let spill = Lsc::simt(STORE, SS, V1, 1, 0).send(8, None, 3, 10, None);
    assert_eq!(spill.send.expect("send").desc, Some(0x4200_0504));
    let fill = |dst, src| {
        let mut i = Lsc {
            transpose: true,
            ..Lsc::simt(LOAD, SS, V8, 1, 1)
        }
        .send(1, Some(dst), src, 0, None);
        i.no_mask = true;
        i
    };
    assert_eq!(fill(20, 4).send.expect("send").desc, Some(0x4210_c500));
    let insts = vec![
        set_a0_2(scratch_ex_desc(WINDOW.base, 1)),
        spill,
        set_a0_2(scratch_ex_desc(WINDOW.base, 0)),
        fill(20, 4),
        fill(21, 5),
    ];
    let (regs, _) = thread(
        insts,
        &[
            (3, std::array::from_fn(|i| 0x40 + 4 * i as u32)),
            (4, [0x40, 0, 0, 0, 0, 0, 0, 0]),
            (5, [0x44, 0, 0, 0, 0, 0, 0, 0]),
            (10, std::array::from_fn(|i| 50 + i as u32)),
        ],
        0xff,
        Memory::default(),
        &[20, 21],
    )
    .expect("runs");
    assert_eq!(regs[0].to_vec(), (50..58).collect::<Vec<u32>>());
    assert_eq!(regs[1].to_vec(), [51, 52, 53, 54, 55, 56, 57, 0]);
}

#[test]
fn scratch_of_another_surface_state_or_past_the_threads_space_is_a_fault() {
    let fill = |address: u32, g0_5: u32| {
        let mut i = Lsc {
            transpose: true,
            ..Lsc::simt(LOAD, SS, V8, 1, 1)
        }
        .send(1, Some(20), 4, 0, None);
        i.no_mask = true;
        thread(
            vec![set_a0_2(scratch_ex_desc(g0_5, 0)), i],
            &[(4, [address, 0, 0, 0, 0, 0, 0, 0])],
            0xff,
            Memory::default(),
            &[],
        )
    };
    assert!(fill(WINDOW.bytes - 32, WINDOW.base).is_ok());
    let past = fill(WINDOW.bytes - 28, WINDOW.base);
    assert!(
        matches!(past, Err(Stop::Fault(ref m)) if m.contains("outside the thread's space")),
        "{past:?}"
    );
    let other = fill(0, WINDOW.base + 0x400);
    assert!(
        matches!(other, Err(Stop::Fault(ref m)) if m.contains("is not the thread's")),
        "{other:?}"
    );
}

#[test]
fn flat_loads_read_the_regions_the_dispatch_placed_by_a32_and_a64_addresses() {
    // brw's push-constant load (`load a32 d32 V8, transpose … flat`, 0x0210c500) from a
    // region at 0x4000_0040, and a SIMT a64 load whose high dwords matter: lane i reads
    // 0x1_0000_0000 + 4·i, another region.
    let mut memory = Memory::default();
    memory.flat.insert(0x4000_0040, (500..508).collect());
    memory.flat.insert(0x1_0000_0000, (900..908).collect());
    let push = Lsc {
        transpose: true,
        ..Lsc::simt(LOAD, FLAT, V8, 1, 1)
    }
    .send(1, Some(20), 3, 0, Some(0));
    assert_eq!(push.send.expect("send").desc, Some(0x0210_c500));
    let a64 = Lsc {
        addr_size: A64,
        ..Lsc::simt(LOAD, FLAT, V1, 2, 1)
    }
    .send(8, Some(21), 4, 0, Some(0));
    // a64 addresses are one qword per lane: (low, high) dword pairs over two registers.
    let qwords: Vec<u32> = (0..8u32).flat_map(|i| [4 * i, 1]).collect();
    let (regs, _) = thread(
        vec![push, a64],
        &[
            (3, [0x4000_0040, 0, 0, 0, 0, 0, 0, 0]),
            (4, qwords[..8].try_into().expect("8")),
            (5, qwords[8..].try_into().expect("8")),
        ],
        0xff,
        memory.clone(),
        &[20, 21],
    )
    .expect("runs");
    assert_eq!(regs[0].to_vec(), (500..508).collect::<Vec<u32>>());
    assert_eq!(regs[1].to_vec(), (900..908).collect::<Vec<u32>>());
    let outside = Lsc {
        transpose: true,
        ..Lsc::simt(LOAD, FLAT, V8, 1, 1)
    }
    .send(1, Some(20), 3, 0, Some(0));
    let got = thread(
        vec![outside],
        &[(3, [0x4000_0060, 0, 0, 0, 0, 0, 0, 0])],
        0xff,
        memory,
        &[],
    );
    assert!(
        matches!(got, Err(Stop::Fault(ref m)) if m.contains("flat access at 0x40000060")),
        "{got:?}"
    );
}

#[test]
fn a_bti_from_a0_names_the_surface_as_an_immediate_one_would() {
    // brw's non-constant surface index: `shl a0.2 surface 24` as the extended descriptor.
    let load = Lsc::simt(LOAD, BTI, V1, 1, 1).send(8, Some(20), 3, 0, None);
    let mut memory = surface(1, vec![1; 8]);
    memory.surfaces.insert(3, (30..38).collect());
    let (regs, _) = thread(
        vec![set_a0_2(3 << 24), load],
        &[(3, lane_addresses(4))],
        0xff,
        memory,
        &[20],
    )
    .expect("runs");
    assert_eq!(regs[0].to_vec(), (30..38).collect::<Vec<u32>>());
}

#[test]
fn lsc_messages_not_modelled_are_named() {
    let not_modelled = |i: Inst| {
        thread(
            vec![i],
            &[(3, lane_addresses(4))],
            0xff,
            surface(1, vec![0; 8]),
            &[],
        )
        .err()
        .map(|e| e.to_string())
    };
    let atomic = Lsc::simt(12, BTI, V1, 1, 1).send(8, Some(20), 3, 0, bti(1, 0));
    assert_eq!(
        not_modelled(atomic).as_deref(),
        Some("not modelled: LSC atomic_add")
    );
    let d64 = Lsc {
        data_size: 3,
        ..Lsc::simt(LOAD, BTI, V1, 1, 2)
    }
    .send(8, Some(20), 3, 0, bti(1, 0));
    assert_eq!(
        not_modelled(d64).as_deref(),
        Some("not modelled: LSC data size d64")
    );
    // The SLM port takes flat offsets only.
    let mut slm = Lsc::simt(LOAD, BTI, V1, 1, 1).send(8, Some(20), 3, 0, bti(1, 0));
    slm.send.as_mut().expect("send").sfid = 14;
    assert_eq!(
        not_modelled(slm).as_deref(),
        Some("not modelled: LSC SLM through a surface")
    );
    let simd4 = Lsc::simt(LOAD, BTI, V1, 1, 1).send(4, Some(20), 3, 0, bti(1, 0));
    assert_eq!(
        not_modelled(simd4).as_deref(),
        Some("not modelled: LSC message of 4 lanes")
    );
}

#[test]
fn from_gfx12_5_a_thread_ends_through_the_gateway_not_the_thread_spawner() {
    // brw's dg2 end of thread: `send(16) null g126 0x02000000` to the gateway with EOT.
    let end = |sfid: u8| {
        let mut i = send(sfid, 0x0200_0000, None, 126, None);
        i.gen = super::super::super::gen::Gen::Gfx125;
        i.no_mask = true;
        if let Some(s) = i.send.as_mut() {
            s.eot = true;
        }
        let code = Code::new(vec![(0, i)]);
        let p = [(0, [0; 8])];
        let start = Start {
            payload: &p,
            dispatch_mask: 0xff,
            scratch: WINDOW,
        };
        run_thread(&code, &start, &mut Memory::default(), &mut 10)
    };
    assert_eq!(end(3).map(|s| s.instructions), Ok(1));
    assert_eq!(
        end(7).err(),
        Some(Stop::Unsupported(
            "end of thread through shared function 7".into()
        ))
    );
}

#[test]
fn brws_dg2_spill_code_keeps_each_lanes_values_through_lsc_scratch() {
    // dg2_sum_spill_fs.lst: brw's SIMD8 code (INTEL_DEBUG=spill_fs: 8 spills, 11 fills, all
    // LSC `ss`) for docs/ir.md's worked example at 12 invocations in one workgroup of 64:
    // invocation i stores (0 + 1 + … + i, i + 1) at dwords 2i, 2i + 1 of surface 1 (`store
    // … V2 bti`). Push constants come from the flat region at g0.0 (`load … V8, transpose
    // … flat`), the local ids as words in g1; each thread's scratch starts empty.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/intel/tests/dg2_sum_spill_fs.lst");
    let text = std::fs::read_to_string(&path).expect("listing");
    let listing = super::super::super::parse(&text).expect("listing");
    let gen = super::super::super::gen::Gen::Gfx125;
    let code =
        Code::new(super::super::super::decode_program_as(gen, &listing.bytes()).expect("decodes"));
    const PUSH: u32 = 0x0080_0000;
    let mut memory = surface(1, vec![0xdead; 24]);
    memory.flat.insert(PUSH as u64, vec![0; 8]);
    let mut budget = 100_000;
    for t in 0..8u32 {
        let ids: [u32; 8] = std::array::from_fn(|k| {
            let lane = 8 * t + 2 * k as u32;
            if k < 4 {
                lane | (lane + 1) << 16
            } else {
                0
            }
        });
        let payload = [(0, [PUSH, 0, t, 0, 0, WINDOW.base, 0, 0]), (1, ids)];
        let start = Start {
            payload: &payload,
            dispatch_mask: 0xff,
            scratch: WINDOW,
        };
        run_thread(&code, &start, &mut memory, &mut budget).expect("runs");
    }
    let want: Vec<u32> = (0..12).flat_map(|i| [i * (i + 1) / 2, i + 1]).collect();
    assert_eq!(memory.surfaces[&1], want);
}
