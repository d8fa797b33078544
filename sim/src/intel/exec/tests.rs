//! The executor on brw's own code (a checked-in skl listing, run over a dispatch whose
//! answer is known) and on hand-built instructions, one test per descriptor field or rule that
//! would give another answer if it were read wrong.

use super::super::inst::{Dst, Flag, Inst, Predicate, RegSrc, Region, Send, Src};
use super::super::opcode::Opcode;
use super::super::types::{RegFile, Type};
use super::*;

fn listing_code(name: &str) -> Code {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/intel/tests")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let listing = super::super::parse(&text).expect("listing");
    Code::new(super::super::decode_program(&listing.bytes()).expect("decodes"))
}

const WINDOW: ScratchWindow = ScratchWindow {
    base: 0x10_0000,
    bytes: 1024,
};

/// anv's Gfx9 compute payload for the tests: g0.1 the workgroup id, g0.5 the scratch base, g1
/// the driver push constants (base workgroup 0, counts, subgroup id).
fn payload(workgroup: u32, workgroups: u32, subgroup: u32) -> Vec<(u8, [u32; 8])> {
    vec![
        (0, [0, workgroup, 0, 0, 0, WINDOW.base, 0, 0]),
        (1, [0, 0, 0, workgroups, 1, 1, subgroup, 0]),
    ]
}

#[test]
fn brws_doubling_kernel_runs_over_three_workgroups_of_four() {
    // skl_double.lst, local size 4 at SIMD8: buffer (surface 1) word i doubles, surface 0
    // word i becomes i, for i = workgroup * 4 + lane; lanes 4-7 are off and write nothing.
    let code = listing_code("skl_double.lst");
    let mut memory = Memory::default();
    memory.surfaces.insert(0, vec![0xdead; 12]);
    memory
        .surfaces
        .insert(1, (0..12).map(|i| 100 + i).collect());
    let mut budget = 10_000;
    for wg in 0..3 {
        let p = payload(wg, 3, 0);
        let start = Start {
            payload: &p,
            dispatch_mask: 0xf,
            scratch: WINDOW,
        };
        let stats = run_thread(&code, &start, &mut memory, &mut budget).expect("runs");
        assert_eq!(stats.instructions, code.insts.len() as u64);
    }
    assert_eq!(memory.surfaces[&0], (0..12).collect::<Vec<u32>>());
    assert_eq!(
        memory.surfaces[&1],
        (0..12).map(|i| 2 * (100 + i)).collect::<Vec<u32>>()
    );
}

#[test]
fn past_a_surfaces_end_reads_return_zero_and_writes_are_dropped() {
    // Workgroup 1 of skl_double on 6-dword surfaces: lanes 0-1 (dwords 4, 5) are inside,
    // lanes 2-3 (dwords 6, 7) past the end read 0 (doubled: 0) and write nothing.
    let code = listing_code("skl_double.lst");
    let mut memory = Memory::default();
    memory.surfaces.insert(0, vec![0; 6]);
    memory.surfaces.insert(1, (0..6).map(|i| 10 + i).collect());
    let p = payload(1, 2, 0);
    let start = Start {
        payload: &p,
        dispatch_mask: 0xf,
        scratch: WINDOW,
    };
    run_thread(&code, &start, &mut memory, &mut 1000).expect("runs");
    assert_eq!(memory.surfaces[&0], vec![0, 0, 0, 0, 4, 5]);
    assert_eq!(memory.surfaces[&1], vec![10, 11, 12, 13, 28, 30]);
}

// Hand-built instructions.

fn inst(opcode: Opcode, exec_size: u8) -> Inst {
    Inst {
        opcode,
        compacted: false,
        align16: false,
        exec_size,
        qtr_control: 0,
        nib_control: false,
        predicate: None,
        flag: Flag::default(),
        cond_modifier: 0,
        math_function: None,
        saturate: false,
        debug: false,
        no_mask: false,
        no_dd_clear: false,
        no_dd_check: false,
        thread_control: 0,
        acc_wr_or_branch: false,
        dst: None,
        src: [None, None, None],
        send: None,
        jip: None,
        uip: None,
        swsb: None,
        sync_function: None,
        gen: super::super::gen::Gen::Gfx9,
    }
}

fn dst(nr: u8, ty: Type) -> Dst {
    Dst {
        file: RegFile::Grf,
        nr,
        subreg: 0,
        hstride: 1,
        ty,
        indirect: None,
        writemask: 0xf,
    }
}

fn null() -> Dst {
    Dst {
        file: RegFile::Arf,
        nr: 0,
        ..dst(0, Type::UD)
    }
}

fn reg(nr: u8, ty: Type) -> Src {
    Src::Reg(RegSrc {
        file: RegFile::Grf,
        nr,
        subreg: 0,
        ty,
        region: Region {
            vstride: Some(8),
            width: 8,
            hstride: 1,
        },
        negate: false,
        abs: false,
        indirect: None,
        swizzle: None,
    })
}

fn scalar(nr: u8, subreg: u8, ty: Type) -> Src {
    let Src::Reg(r) = reg(nr, ty) else {
        unreachable!()
    };
    Src::Reg(RegSrc {
        subreg,
        region: Region {
            vstride: Some(0),
            width: 1,
            hstride: 0,
        },
        ..r
    })
}

fn imm(ty: Type, bits: u64) -> Src {
    Src::Imm { ty, bits }
}

fn alu(opcode: Opcode, n: u8, d: Dst, srcs: &[Src]) -> Inst {
    let mut i = inst(opcode, n);
    i.dst = Some(d);
    for (k, s) in srcs.iter().enumerate() {
        i.src[k] = Some(*s);
    }
    i
}

fn send(sfid: u8, desc: u32, dst_nr: Option<u8>, src0: u8, src1: Option<(u8, u32)>) -> Inst {
    let opcode = if src1.is_some() {
        Opcode::SENDS
    } else {
        Opcode::SEND
    };
    let mut i = inst(opcode, 8);
    i.dst = Some(dst_nr.map_or(null(), |n| dst(n, Type::UD)));
    i.src[0] = Some(reg(src0, Type::UD));
    i.send = Some(Send {
        sfid,
        desc: Some(desc),
        ex_desc: Some(src1.map_or(0, |(_, ex_mlen)| ex_mlen << 6)),
        ex_desc_a0_subreg: 0,
        eot: false,
        src1: src1.map(|(nr, _)| (RegFile::Grf, nr)),
        ex_bso: false,
        src1_len: 0,
    });
    i
}

fn eot() -> Inst {
    let mut i = send(7, 0x0200_0010, None, 126, None);
    i.no_mask = true;
    if let Some(s) = i.send.as_mut() {
        s.eot = true;
    }
    i
}

/// Lays the instructions out 16 bytes apart, ending with an EOT.
fn program(mut insts: Vec<Inst>) -> Code {
    insts.push(eot());
    Code::new(
        insts
            .into_iter()
            .enumerate()
            .map(|(k, i)| (16 * k, i))
            .collect(),
    )
}

/// Runs `insts` as one SIMD8 thread with `surfaces`; returns them after.
fn run(insts: Vec<Inst>, surfaces: &[(u8, Vec<u32>)]) -> Result<Memory, Stop> {
    let mut memory = Memory::default();
    for (bti, words) in surfaces {
        memory.surfaces.insert(*bti, words.clone());
    }
    run_with(insts, memory)
}

/// Runs `insts` as one SIMD8 thread over `memory`; returns it after.
fn run_with(insts: Vec<Inst>, mut memory: Memory) -> Result<Memory, Stop> {
    let code = program(insts);
    let p = payload(0, 1, 0);
    let start = Start {
        payload: &p,
        dispatch_mask: 0xff,
        scratch: WINDOW,
    };
    run_thread(&code, &start, &mut memory, &mut 10_000)?;
    Ok(memory)
}

/// Channel ids 0..7 in g2 (UD), byte addresses 4·id in g3.
fn ids() -> Vec<Inst> {
    vec![
        alu(
            Opcode::MOV,
            8,
            dst(2, Type::UW),
            &[imm(Type::V, 0x7654_3210)],
        ),
        alu(Opcode::MOV, 8, dst(2, Type::UD), &[reg(2, Type::UW)]),
        alu(
            Opcode(9),
            8,
            dst(3, Type::UD),
            &[reg(2, Type::UD), imm(Type::UD, 2)],
        ),
    ]
}

/// Untyped surface write, SIMD8, to surface `bti` with message control `control` (channel
/// mask in 3:0), addresses in g3 and data from g10 on.
fn untyped_write(bti: u8, channels: u32) -> Inst {
    let mask = !((1u32 << channels) - 1) & 0xf;
    let desc = (1 << 25) | (9 << 14) | ((0x20 | mask) << 8) | bti as u32;
    send(12, desc, None, 3, Some((10, channels)))
}

#[test]
fn an_untyped_write_with_two_channels_writes_consecutive_dwords_per_lane() {
    // Mask 0xc: R and G enabled. Lane i writes g10[i] at dword i and g11[i] at dword i + 1;
    // lanes write in order, so dword i ends as lane i's R except the last lane's G.
    let mut insts = ids();
    insts.push(alu(
        Opcode(64),
        8,
        dst(10, Type::UD),
        &[reg(2, Type::UD), imm(Type::UD, 100)],
    ));
    insts.push(alu(
        Opcode(64),
        8,
        dst(11, Type::UD),
        &[reg(2, Type::UD), imm(Type::UD, 200)],
    ));
    // Byte address 8·id: lane i writes dwords 2i (R) and 2i + 1 (G).
    insts.push(alu(
        Opcode(9),
        8,
        dst(3, Type::UD),
        &[reg(2, Type::UD), imm(Type::UD, 3)],
    ));
    insts.push(untyped_write(1, 2));
    let m = run(insts, &[(1, vec![0; 16])]).expect("runs");
    let want: Vec<u32> = (0..8).flat_map(|i| [100 + i, 200 + i]).collect();
    assert_eq!(m.surfaces[&1], want);
}

#[test]
fn an_untyped_read_fills_only_the_enabled_channels_registers() {
    // Read R and B (mask 0xa) at dword 4·id: g20 = word 4i, g21 = word 4i + 2.
    let mut insts = ids();
    insts.push(alu(
        Opcode(9),
        8,
        dst(3, Type::UD),
        &[reg(2, Type::UD), imm(Type::UD, 4)],
    ));
    let desc = (1 << 25) | (2 << 20) | (1 << 14) | ((0x20 | 0xa) << 8) | 5;
    insts.push(send(12, desc, Some(20), 3, None));
    insts.push(alu(Opcode::MOV, 8, dst(10, Type::UD), &[reg(20, Type::UD)]));
    insts.push(alu(Opcode::MOV, 8, dst(11, Type::UD), &[reg(21, Type::UD)]));
    insts.push(alu(
        Opcode(9),
        8,
        dst(3, Type::UD),
        &[reg(2, Type::UD), imm(Type::UD, 3)],
    ));
    insts.push(untyped_write(1, 2));
    let source: Vec<u32> = (0..32).map(|w| 1000 + w).collect();
    let m = run(insts, &[(1, vec![0; 16]), (5, source)]).expect("runs");
    let want: Vec<u32> = (0..8)
        .flat_map(|i| [1000 + 4 * i, 1000 + 4 * i + 2])
        .collect();
    assert_eq!(m.surfaces[&1], want);
}

/// The scratch header brw builds: g0 copied with `.2` the offset, `.5` the base.
fn header(nr: u8, offset: u32) -> Vec<Inst> {
    let mut copy = alu(Opcode::MOV, 8, dst(nr, Type::UD), &[reg(0, Type::UD)]);
    copy.no_mask = true;
    let mut at = alu(
        Opcode::MOV,
        1,
        Dst {
            subreg: 8,
            ..dst(nr, Type::UD)
        },
        &[imm(Type::UD, offset as u64)],
    );
    at.no_mask = true;
    vec![copy, at]
}

#[test]
fn an_oword_block_read_at_a_nonzero_offset_reads_that_slot() {
    // Two blocks of 2 OWORDs at OWORD offsets 2 and 4; the read at 4 must return the second.
    let mut insts = ids();
    insts.push(alu(
        Opcode(64),
        8,
        dst(10, Type::UD),
        &[reg(2, Type::UD), imm(Type::UD, 10)],
    ));
    insts.push(alu(
        Opcode(64),
        8,
        dst(11, Type::UD),
        &[reg(2, Type::UD), imm(Type::UD, 50)],
    ));
    let write = (1 << 25) | (1 << 19) | (8 << 14) | (2 << 8) | 253;
    insts.extend(header(4, 2));
    insts.push(send(10, write, None, 4, Some((10, 1))));
    insts.extend(header(5, 4));
    insts.push(send(10, write, None, 5, Some((11, 1))));
    let read = (1 << 25) | (1 << 20) | (1 << 19) | (2 << 8) | 253;
    insts.extend(header(6, 4));
    insts.push(send(10, read, Some(12), 6, None));
    insts.push(alu(Opcode::MOV, 8, dst(13, Type::UD), &[reg(12, Type::UD)]));
    insts.push(untyped_write(1, 1));
    // untyped_write(1, 1) writes g10 (the first block's data) at byte 4·id; overwrite g10
    // with the read block first.
    let n = insts.len();
    insts.insert(
        n - 1,
        alu(Opcode::MOV, 8, dst(10, Type::UD), &[reg(13, Type::UD)]),
    );
    let m = run(insts, &[(1, vec![0; 8])]).expect("runs");
    assert_eq!(m.surfaces[&1], (50..58).collect::<Vec<u32>>());
}

#[test]
fn a_masked_oword_block_write_keeps_the_disabled_lanes_dwords() {
    // A NoMask write of id + 10, then a write of id + 50 predicated on odd lanes: the even
    // lanes' dwords keep id + 10 (brw spills inside control flow rely on it).
    let mut insts = ids();
    insts.push(alu(
        Opcode(64),
        8,
        dst(10, Type::UD),
        &[reg(2, Type::UD), imm(Type::UD, 10)],
    ));
    insts.push(alu(
        Opcode(64),
        8,
        dst(11, Type::UD),
        &[reg(2, Type::UD), imm(Type::UD, 50)],
    ));
    let write = (1 << 25) | (1 << 19) | (8 << 14) | (2 << 8) | 253;
    insts.extend(header(4, 0));
    let mut all = send(10, write, None, 4, Some((10, 1)));
    all.no_mask = true;
    insts.push(all);
    let mut odd = alu(Opcode(5), 8, null(), &[reg(2, Type::UD), imm(Type::UD, 1)]);
    odd.cond_modifier = 2;
    insts.push(odd);
    let mut masked = send(10, write, None, 4, Some((11, 1)));
    masked.predicate = Some(Predicate {
        control: 1,
        invert: false,
    });
    insts.push(masked);
    let mut read = send(
        10,
        (1 << 25) | (1 << 20) | (1 << 19) | (2 << 8) | 253,
        Some(10),
        4,
        None,
    );
    read.no_mask = true;
    insts.push(read);
    insts.push(untyped_write(1, 1));
    let m = run(insts, &[(1, vec![0; 8])]).expect("runs");
    let want: Vec<u32> = (0..8)
        .map(|i| if i % 2 == 1 { i + 50 } else { i + 10 })
        .collect();
    assert_eq!(m.surfaces[&1], want);
}

#[test]
fn a_scratch_block_past_the_threads_space_is_a_fault() {
    let mut insts = ids();
    let write = (1 << 25) | (1 << 19) | (8 << 14) | (2 << 8) | 253;
    insts.extend(header(4, WINDOW.bytes / 16));
    insts.push(send(10, write, None, 4, Some((10, 1))));
    let got = run(insts, &[]);
    assert!(
        matches!(got, Err(Stop::Fault(ref m)) if m.contains("outside the thread's space")),
        "{got:?}"
    );
}

#[test]
fn dword_scattered_scratch_round_trips_per_lane_in_dwords() {
    // Lane i writes 7·i at dword offset 8 - i and reads back dword offset 8 - i; if the
    // offsets were bytes (or the lanes were crossed) the values would move.
    let mut insts = ids();
    insts.extend(header(4, 0));
    // g5 = 8 - id (dword offsets), g6 = 7·id (data): the payload is header, offsets, data.
    let mut neg = reg(2, Type::D);
    if let Src::Reg(r) = &mut neg {
        r.negate = true;
    }
    insts.push(alu(Opcode(64), 8, dst(5, Type::D), &[neg, imm(Type::D, 8)]));
    insts.push(alu(
        Opcode(65),
        8,
        dst(6, Type::D),
        &[reg(2, Type::D), imm(Type::W, 7)],
    ));
    let write = (3 << 25) | (1 << 19) | (11 << 14) | (2 << 8) | 253;
    insts.push(send(10, write, None, 4, None));
    let read = (2 << 25) | (1 << 20) | (1 << 19) | (3 << 14) | (2 << 8) | 253;
    insts.push(send(10, read, Some(10), 4, None));
    insts.push(untyped_write(1, 1));
    let m = run(insts, &[(1, vec![0; 8])]).expect("runs");
    assert_eq!(m.surfaces[&1], (0..8).map(|i| 7 * i).collect::<Vec<u32>>());
}

#[test]
fn if_else_endif_runs_each_side_on_its_channels_and_reconverges() {
    // Odd channels: g10 = id + 100, even: g10 = id · 3 (the regression if_else_merge_phis).
    let mut insts = ids();
    let mut test = alu(Opcode(5), 8, null(), &[reg(2, Type::UD), imm(Type::UD, 1)]);
    test.cond_modifier = 2; // nz
    insts.push(test);
    let mut iff = inst(Opcode::IF, 8);
    iff.predicate = Some(Predicate {
        control: 1,
        invert: false,
    });
    // if at k, then-side at k+1, else at k+2, else-side k+3, endif k+4.
    iff.jip = Some(3 * 16);
    iff.uip = Some(4 * 16);
    insts.push(iff);
    insts.push(alu(
        Opcode(64),
        8,
        dst(10, Type::UD),
        &[reg(2, Type::UD), imm(Type::UD, 100)],
    ));
    let mut els = inst(Opcode::ELSE, 8);
    els.jip = Some(2 * 16);
    els.uip = Some(2 * 16);
    insts.push(els);
    insts.push(alu(
        Opcode(65),
        8,
        dst(10, Type::UD),
        &[reg(2, Type::UD), imm(Type::UW, 3)],
    ));
    let mut endif = inst(Opcode::ENDIF, 8);
    endif.jip = Some(16);
    insts.push(endif);
    insts.push(untyped_write(1, 1));
    let m = run(insts, &[(1, vec![0; 8])]).expect("runs");
    let want: Vec<u32> = (0..8)
        .map(|i| if i % 2 == 1 { i + 100 } else { 3 * i })
        .collect();
    assert_eq!(m.surfaces[&1], want);
}

#[test]
fn a_loop_with_break_and_continue_counts_per_channel() {
    // g10 = 0; loop { g10 += 1; if g10 < id { continue } ; break } — channel i leaves
    // with g10 = max(i, 1). Code: 0-2 ids, 3 mov, 4 add, 5 cmp, 6 (+f0) cont, 7 break,
    // 8 (+f0) while-back... laid out as: add; cmp.l; (+f0) cont → while; break → while;
    // while (unpredicated) → add.
    let mut insts = ids();
    insts.push(alu(Opcode::MOV, 8, dst(10, Type::UD), &[imm(Type::UD, 0)]));
    let head = insts.len();
    insts.push(alu(
        Opcode(64),
        8,
        dst(10, Type::UD),
        &[reg(10, Type::UD), imm(Type::UD, 1)],
    ));
    let mut cmp = alu(
        Opcode(16),
        8,
        null(),
        &[reg(10, Type::UD), reg(2, Type::UD)],
    );
    cmp.cond_modifier = 5; // l
    insts.push(cmp);
    let cont_at = insts.len();
    let mut cont = inst(Opcode::CONT, 8);
    cont.predicate = Some(Predicate {
        control: 1,
        invert: false,
    });
    insts.push(cont);
    let break_at = insts.len();
    insts.push(inst(Opcode::BREAK, 8));
    let while_at = insts.len();
    let mut wh = inst(Opcode::WHILE, 8);
    wh.jip = Some((head as i32 - while_at as i32) * 16);
    insts.push(wh);
    for (at, k) in [(cont_at, 2), (break_at, 1)] {
        insts[at].jip = Some(k * 16);
        insts[at].uip = Some(k * 16);
    }
    insts.push(alu(
        Opcode(9),
        8,
        dst(3, Type::UD),
        &[reg(2, Type::UD), imm(Type::UD, 2)],
    ));
    insts.push(untyped_write(1, 1));
    let m = run(insts, &[(1, vec![0; 8])]).expect("runs");
    assert_eq!(
        m.surfaces[&1],
        (0..8).map(|i: u32| i.max(1)).collect::<Vec<u32>>()
    );
}

#[test]
fn regions_types_and_modifiers_read_and_write_as_the_hardware_does() {
    // A word region with stride 2 (the odd words of g2's dwords are zero), a negated
    // absolute source, saturation to a byte destination, a scalar region and a float
    // conversion that saturates.
    let mut insts = ids();
    let mut words = reg(2, Type::W);
    if let Src::Reg(r) = &mut words {
        r.region = Region {
            vstride: Some(16),
            width: 8,
            hstride: 2,
        };
        r.negate = true;
        r.abs = true;
    }
    // g10 = -|id| as D.
    insts.push(alu(Opcode::MOV, 8, dst(10, Type::D), &[words]));
    // g11 = saturate(id · 40) into UB at stride 4, then read back as UD.
    let mut sat = alu(
        Opcode(65),
        8,
        Dst {
            hstride: 4,
            ..dst(11, Type::UB)
        },
        &[reg(2, Type::UD), imm(Type::UW, 40)],
    );
    sat.saturate = true;
    insts.push(alu(Opcode::MOV, 8, dst(11, Type::UD), &[imm(Type::UD, 0)]));
    insts.push(sat);
    // g12 = float(g2.3, a scalar) + 5e9 converted to UD: saturates at u32::MAX.
    insts.push(alu(
        Opcode::MOV,
        8,
        dst(13, Type::F),
        &[scalar(2, 12, Type::UD)],
    ));
    insts.push(alu(
        Opcode(64),
        8,
        dst(13, Type::F),
        &[reg(13, Type::F), imm(Type::F, 5e9f32.to_bits() as u64)],
    ));
    insts.push(alu(Opcode::MOV, 8, dst(12, Type::UD), &[reg(13, Type::F)]));
    // Three writes of one channel each: dwords 3id (g10), 3id+1 (g11), 3id+2 (g12).
    insts.push(alu(
        Opcode(65),
        8,
        dst(3, Type::UD),
        &[reg(2, Type::UD), imm(Type::UW, 12)],
    ));
    insts.push(untyped_write(1, 1));
    insts.push(alu(
        Opcode(64),
        8,
        dst(3, Type::UD),
        &[reg(3, Type::UD), imm(Type::UD, 4)],
    ));
    insts.push(alu(Opcode::MOV, 8, dst(10, Type::UD), &[reg(11, Type::UD)]));
    insts.push(untyped_write(1, 1));
    insts.push(alu(
        Opcode(64),
        8,
        dst(3, Type::UD),
        &[reg(3, Type::UD), imm(Type::UD, 4)],
    ));
    insts.push(alu(Opcode::MOV, 8, dst(10, Type::UD), &[reg(12, Type::UD)]));
    insts.push(untyped_write(1, 1));
    let m = run(insts, &[(1, vec![0; 24])]).expect("runs");
    let want: Vec<u32> = (0..8u32)
        .flat_map(|i| [(-(i as i32)) as u32, (i * 40).min(255), u32::MAX])
        .collect();
    assert_eq!(m.surfaces[&1], want);
}

#[test]
fn add3_wraps_the_sum_of_three_sources_and_ror_rol_rotate_in_the_sources_width() {
    // Per lane id: add3 (Gfx12.5) of id, 4·id and -16; ror of 0x80000001 by id (dwords);
    // rol of the word 0x8001 by id, in 16 bits. Each result goes to its own surface.
    let mut insts = ids();
    insts.push(alu(
        Opcode(82),
        8,
        dst(10, Type::D),
        &[
            reg(2, Type::D),
            reg(3, Type::D),
            imm(Type::D, (-16i32) as u32 as u64),
        ],
    ));
    insts.push(untyped_write(1, 1));
    insts.push(alu(
        Opcode(14),
        8,
        dst(10, Type::UD),
        &[imm(Type::UD, 0x8000_0001), reg(2, Type::UD)],
    ));
    insts.push(untyped_write(2, 1));
    insts.push(alu(
        Opcode(15),
        8,
        dst(11, Type::UW),
        &[imm(Type::UW, 0x8001), reg(2, Type::UD)],
    ));
    insts.push(alu(Opcode::MOV, 8, dst(10, Type::UD), &[reg(11, Type::UW)]));
    insts.push(untyped_write(3, 1));
    let m = run(insts, &[(1, vec![0; 8]), (2, vec![0; 8]), (3, vec![0; 8])]).expect("runs");
    let ids = 0..8u32;
    assert_eq!(
        m.surfaces[&1],
        ids.clone()
            .map(|i| (5 * i).wrapping_sub(16))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        m.surfaces[&2],
        ids.clone()
            .map(|i| 0x8000_0001u32.rotate_right(i))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        m.surfaces[&3],
        ids.map(|i| u32::from(0x8001u16.rotate_left(i)))
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_float_compare_writes_all_ones_into_its_float_destination() {
    // brw's `flt` as it compiles it: `cmp.l g10<1>F g11<8,8,1>F 3.0F`, then the result used
    // as a 0/~0 boolean (`and` with 1 for b2i). Lanes 0-2 hold; converting "true" to the
    // float -1.0 instead would give 0xbf800000 and an `and` of 0.
    let mut insts = ids();
    insts.push(alu(Opcode::MOV, 8, dst(11, Type::F), &[reg(2, Type::UD)]));
    let mut cmp = alu(
        Opcode(16),
        8,
        dst(10, Type::F),
        &[reg(11, Type::F), float(3.0)],
    );
    cmp.cond_modifier = 5; // l
    insts.push(cmp);
    insts.push(untyped_write(1, 1));
    insts.push(alu(
        Opcode(5),
        8,
        dst(10, Type::UD),
        &[reg(10, Type::UD), imm(Type::UD, 1)],
    ));
    insts.push(alu(
        Opcode(64),
        8,
        dst(3, Type::UD),
        &[reg(3, Type::UD), imm(Type::UD, 32)],
    ));
    insts.push(untyped_write(1, 1));
    let m = run(insts, &[(1, vec![0xdead; 16])]).expect("runs");
    let holds = |i: u32| i < 3;
    let want: Vec<u32> = (0..8)
        .map(|i| if holds(i) { u32::MAX } else { 0 })
        .chain((0..8).map(|i| u32::from(holds(i))))
        .collect();
    assert_eq!(m.surfaces[&1], want);
}

#[test]
fn a_thread_is_timed_by_the_gen_cycle_model_and_waits_for_a_sends_response() {
    use crate::gen::timing::{ALU_ISSUE_PER_GRF, ALU_LATENCY, DATAPORT_LATENCY};
    let (issue, latency) = (u64::from(ALU_ISSUE_PER_GRF), u64::from(ALU_LATENCY));
    let time = |insts: Vec<Inst>| {
        let code = program(insts);
        let p = payload(0, 1, 0);
        let start = Start {
            payload: &p,
            dispatch_mask: 0xff,
            scratch: WINDOW,
        };
        let mut memory = Memory::default();
        memory.surfaces.insert(1, vec![7; 8]);
        run_thread(&code, &start, &mut memory, &mut 1000)
            .expect("runs")
            .cycles
    };
    let add = |d: u8, s: u8| {
        alu(
            Opcode(64),
            8,
            dst(d, Type::UD),
            &[reg(s, Type::UD), imm(Type::UD, 1)],
        )
    };
    // `sim::gen::timing`'s example: the second add waits for the first's result (8), issues
    // until 10, its result is ready at 16; the EOT issues at 10-12 and writes nothing.
    assert_eq!(time(vec![add(10, 1), add(11, 10)]), 2 * latency);
    // Independent adds only take issue cycles until the last result.
    assert_eq!(time(vec![add(10, 1), add(11, 2)]), issue + latency);
    // An untyped read (mlen 1) into g10, then an add of g10: the add waits for the response.
    let mut insts = ids();
    let read = (1 << 25) | (1 << 20) | (1 << 14) | (0x2e << 8) | 1;
    insts.push(send(12, read, Some(10), 3, None));
    insts.push(add(11, 10));
    // ids() is a chain of three dependent instructions: the send's address is ready at 24.
    let before = 3 * latency;
    let response = before + u64::from(8 + 2 + DATAPORT_LATENCY);
    assert_eq!(time(insts), response + latency);
}

#[test]
fn what_is_not_modelled_is_named_not_guessed() {
    let mut insts = ids();
    insts.push(send(
        2,
        (1 << 25) | (4 << 20) | (1 << 17) | (8 << 12) | 3,
        Some(20),
        3,
        None,
    ));
    let mut memory = Memory::default();
    memory.images.insert(3, image());
    assert_eq!(
        run_with(insts, memory).err(),
        Some(Stop::Unsupported("sampler message type 8".into()))
    );
    let mut insts = ids();
    let mut indirect = reg(2, Type::UD);
    if let Src::Reg(r) = &mut indirect {
        r.indirect = Some(super::super::inst::Indirect {
            a0_subreg: 0,
            offset: 0,
        });
    }
    insts.push(alu(Opcode::MOV, 8, dst(10, Type::UD), &[indirect]));
    assert_eq!(
        run(insts, &[]).err(),
        Some(Stop::Unsupported("indirect addressing".into()))
    );
}

#[test]
fn a_program_that_never_ends_its_thread_is_a_fault_and_a_loop_times_out() {
    let code = Code::new(vec![(
        0,
        alu(Opcode::MOV, 8, dst(10, Type::UD), &[imm(Type::UD, 0)]),
    )]);
    let p = payload(0, 1, 0);
    let start = Start {
        payload: &p,
        dispatch_mask: 0xff,
        scratch: WINDOW,
    };
    let mut memory = Memory::default();
    assert!(matches!(
        run_thread(&code, &start, &mut memory, &mut 100),
        Err(Stop::Fault(_))
    ));
    let mut wh = inst(Opcode::WHILE, 8);
    wh.jip = Some(0);
    let code = Code::new(vec![(0, wh)]);
    assert_eq!(
        run_thread(&code, &start, &mut memory, &mut 100),
        Err(Stop::Timeout)
    );
}

/// A 4×2 image of 2 levels and 2 layers: channel 0 of texel (x, y) of (level, layer) is
/// `1000·level + 100·layer + 10·y + x`, channel 1 that plus 5000.
fn image() -> Image {
    let mut texels = Vec::new();
    for level in 0..2u32 {
        let (w, h) = (4 >> level, (2u32 >> level).max(1));
        for layer in 0..2 {
            for y in 0..h {
                for x in 0..w {
                    let v = 1000 * level + 100 * layer + 10 * y + x;
                    texels.extend([v, v + 5000, 7, 9]);
                }
            }
        }
    }
    Image {
        width: 4,
        height: 2,
        levels: 2,
        layers: 2,
        texels,
    }
}

/// Writes g30 (channel 0) and g31 (channel 1) at dwords 2·id, 2·id + 1 of surface 1.
fn write_two_channels(insts: &mut Vec<Inst>) {
    insts.push(alu(Opcode::MOV, 8, dst(10, Type::UD), &[reg(30, Type::UD)]));
    insts.push(alu(Opcode::MOV, 8, dst(11, Type::UD), &[reg(31, Type::UD)]));
    insts.push(alu(
        Opcode(9),
        8,
        dst(3, Type::UD),
        &[reg(2, Type::UD), imm(Type::UD, 3)],
    ));
    insts.push(untyped_write(1, 2));
}

fn float(x: f32) -> Src {
    imm(Type::F, x.to_bits() as u64)
}

#[test]
fn ld_lz_fetches_each_lanes_texel_in_parameter_order_u_v_r() {
    // u = id % 4, v = id / 4, layer 1: if u and v were swapped or r ignored, the texels move.
    let mut insts = ids();
    insts.push(alu(
        Opcode(5),
        8,
        dst(20, Type::UD),
        &[reg(2, Type::UD), imm(Type::UD, 3)],
    ));
    insts.push(alu(
        Opcode(8),
        8,
        dst(21, Type::UD),
        &[reg(2, Type::UD), imm(Type::UD, 2)],
    ));
    insts.push(alu(Opcode::MOV, 8, dst(22, Type::UD), &[imm(Type::UD, 1)]));
    let desc = (3 << 25) | (4 << 20) | (1 << 17) | (26 << 12) | 3;
    insts.push(send(2, desc, Some(30), 20, None));
    write_two_channels(&mut insts);
    let mut memory = Memory::default();
    memory.surfaces.insert(1, vec![0; 16]);
    memory.images.insert(3, image());
    let m = run_with(insts, memory).expect("runs");
    let want: Vec<u32> = (0..8)
        .flat_map(|i| {
            let v = 100 + 10 * (i / 4) + i % 4;
            [v, v + 5000]
        })
        .collect();
    assert_eq!(m.surfaces[&1], want);
}

#[test]
fn sample_l_takes_the_level_first_then_normalised_coordinates() {
    // Level 1 is 2×1: u = (x + 0.5) / 2 for x = id % 2, v = 0.5, layer 1.0, lod 1.0.
    let mut insts = ids();
    insts.push(alu(Opcode::MOV, 8, dst(20, Type::F), &[float(1.0)]));
    insts.push(alu(
        Opcode(5),
        8,
        dst(24, Type::UD),
        &[reg(2, Type::UD), imm(Type::UD, 1)],
    ));
    insts.push(alu(Opcode::MOV, 8, dst(21, Type::F), &[reg(24, Type::UD)]));
    insts.push(alu(
        Opcode(64),
        8,
        dst(21, Type::F),
        &[reg(21, Type::F), float(0.5)],
    ));
    insts.push(alu(
        Opcode(65),
        8,
        dst(21, Type::F),
        &[reg(21, Type::F), float(0.5)],
    ));
    insts.push(alu(Opcode::MOV, 8, dst(22, Type::F), &[float(0.5)]));
    insts.push(alu(Opcode::MOV, 8, dst(23, Type::F), &[float(1.0)]));
    let desc = (4 << 25) | (4 << 20) | (1 << 17) | (2 << 12) | 3;
    insts.push(send(2, desc, Some(30), 20, None));
    write_two_channels(&mut insts);
    let mut memory = Memory::default();
    memory.surfaces.insert(1, vec![0; 16]);
    memory.images.insert(3, image());
    let m = run_with(insts, memory).expect("runs");
    let want: Vec<u32> = (0..8)
        .flat_map(|i| {
            let v = 1000 + 100 + i % 2;
            [v, v + 5000]
        })
        .collect();
    assert_eq!(m.surfaces[&1], want);
}

#[test]
fn an_unaligned_oword_block_read_of_a_surface_starts_at_a_byte_offset_and_reads_zero_past_its_end()
{
    // Type 1 with header dword 2 = 8 bytes: dwords 2..10 of surface 5 (8 dwords), so the
    // block's last 2 dwords are past the end and read 0. In OWORDs (type 0) the same header
    // would start at dword 32.
    let mut insts = ids();
    insts.extend(header(4, 8));
    let read = (1 << 25) | (1 << 20) | (1 << 19) | (1 << 14) | (2 << 8) | 5;
    let mut block = send(10, read, Some(10), 4, None);
    block.no_mask = true;
    insts.push(block);
    insts.push(untyped_write(1, 1));
    let m = run(insts, &[(1, vec![0; 8]), (5, (100..108).collect())]).expect("runs");
    assert_eq!(m.surfaces[&1], vec![102, 103, 104, 105, 106, 107, 0, 0]);
}

mod lsc;
mod scoreboard;

#[test]
fn qword_shifts_compares_and_min_read_uq_unsigned() {
    // brw's native 64-bit code on Gfx9 (its int64 programs): per lane id, `shr` of all ones
    // by id and then by 32 (a logical shift: the high dword's top bits fill with zeros, not
    // with the sign), `cmp.ge` of 2^63 with id as `uq` (true: 2^63 is large, not negative) and
    // `sel.l` of the same (the min is id). Each result's low dword goes to its own surface.
    let mut insts = ids();
    insts.push(alu(Opcode::MOV, 8, dst(20, Type::UQ), &[reg(2, Type::UD)]));
    insts.push(alu(
        Opcode(8),
        8,
        dst(14, Type::UQ),
        &[imm(Type::UQ, u64::MAX), reg(2, Type::UD)],
    ));
    insts.push(alu(
        Opcode(8),
        8,
        dst(16, Type::UQ),
        &[reg(14, Type::UQ), imm(Type::UD, 32)],
    ));
    insts.push(alu(Opcode::MOV, 8, dst(10, Type::UD), &[reg(16, Type::UQ)]));
    insts.push(untyped_write(1, 1));
    let mut cmp = alu(
        Opcode(16),
        8,
        dst(22, Type::UQ),
        &[imm(Type::UQ, 1 << 63), reg(20, Type::UQ)],
    );
    cmp.cond_modifier = 4;
    insts.push(cmp);
    insts.push(alu(Opcode::MOV, 8, dst(10, Type::UD), &[reg(22, Type::UQ)]));
    insts.push(untyped_write(2, 1));
    let mut min = alu(
        Opcode(2),
        8,
        dst(24, Type::UQ),
        &[imm(Type::UQ, 1 << 63), reg(20, Type::UQ)],
    );
    min.cond_modifier = 5;
    insts.push(min);
    insts.push(alu(Opcode::MOV, 8, dst(10, Type::UD), &[reg(24, Type::UQ)]));
    insts.push(untyped_write(3, 1));
    let m = run(insts, &[(1, vec![0; 8]), (2, vec![0; 8]), (3, vec![0; 8])]).expect("runs");
    let ids = 0..8u32;
    assert_eq!(
        m.surfaces[&1],
        ids.clone().map(|i| u32::MAX >> i).collect::<Vec<_>>()
    );
    assert_eq!(m.surfaces[&2], vec![u32::MAX; 8]);
    assert_eq!(m.surfaces[&3], ids.collect::<Vec<_>>());
}
