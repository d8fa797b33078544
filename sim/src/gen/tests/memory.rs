//! Data port and scratch: wrapped per-invocation buffer reads and writes, the uniform file,
//! masked writes, block spill/fill round trips and scattered scratch.

use super::*;
use crate::semantics::buffer_word;

fn send(
    w: ExecSize,
    dst: Dst,
    payload: u8,
    msg: Message,
    mlen: u8,
    rlen: u8,
    header: bool,
) -> Inst {
    Inst::send(w, dst, payload, SendDesc::new(msg, mlen, rlen, header))
}

#[test]
fn buffer_read_modify_write_wraps_per_component() {
    for w in [ExecSize::S8, ExecSize::S16] {
        let p = per(w);
        let buf = Surface::Buffer(1);
        let v = vec![
            // address = id * 3 + 4 (wraps at the region length 5)
            bin(Op::Mul, w, 20, Type::UD, Src::grf(1, Type::UD), Src::ud(3)),
            bin(Op::Add, w, 20, Type::UD, Src::grf(20, Type::UD), Src::ud(4)),
            send(
                w,
                Dst::grf(30, Type::UD),
                20,
                Message::UntypedRead {
                    surface: buf,
                    channels: 2,
                },
                p,
                2 * p,
                false,
            ),
            // write back (x + 1000, y * 2) at the same address, only for even ids
            mov(w, 40, Type::UD, Src::grf(20, Type::UD)),
            bin(
                Op::Add,
                w,
                40 + p,
                Type::UD,
                Src::grf(30, Type::UD),
                Src::ud(1000),
            ),
            bin(
                Op::Mul,
                w,
                40 + 2 * p,
                Type::UD,
                Src::grf(30 + p, Type::UD),
                Src::ud(2),
            ),
            Inst::binary(
                Op::And,
                w,
                Dst::Null(Type::UD),
                Src::grf(1, Type::UD),
                Src::ud(1),
            )
            .with_cmod(CondMod::Z, Flag::F1_1),
            send(
                w,
                Dst::Null(Type::UD),
                40,
                Message::UntypedWrite {
                    surface: buf,
                    channels: 2,
                },
                3 * p,
                0,
                false,
            )
            .predicated(Flag::F1_1, false),
        ];
        let d = Dispatch {
            invocations: 19,
            buffers: vec![3, 5],
            ..Dispatch::default()
        };
        let r = go(&prog(w, Gen::Gen9, v), &d);
        assert!(r.hazards.is_empty(), "{:?}", r.hazards);
        assert_eq!(r.results.buffers[0], d.initial_results().buffers[0]);
        for i in 0..19u32 {
            let a = i * 3 + 4;
            let (k0, k1) = (a % 5, (a + 1) % 5);
            let mut e: Vec<u32> = (0..5).map(|k| buffer_word(1, i, k)).collect();
            if i % 2 == 0 {
                e[k0 as usize] = buffer_word(1, i, k0) + 1000;
                e[k1 as usize] = buffer_word(1, i, k1) * 2;
            }
            assert_eq!(
                &r.results.buffers[1][(i * 5) as usize..(i * 5 + 5) as usize],
                &e[..],
                "{w:?} inv {i}"
            );
        }
    }
}

#[test]
fn uniform_reads_wrap_and_empty_uniforms_read_zero() {
    let w = ExecSize::S8;
    let mut v = vec![
        bin(
            Op::Add,
            w,
            20,
            Type::UD,
            Src::grf(1, Type::UD),
            Src::ud(u32::MAX - 1),
        ),
        send(
            w,
            Dst::grf(30, Type::UD),
            20,
            Message::UntypedRead {
                surface: Surface::Uniform,
                channels: 3,
            },
            1,
            3,
            false,
        ),
    ];
    v.extend(store(w, 30, 0, 3));
    let p = prog(w, Gen::Gen9, v);
    let mut d = dispatch(8, 3);
    d.uniforms = vec![10, 20, 30, 40, 50];
    let r = go(&p, &d);
    for i in 0..8u32 {
        let a = i.wrapping_add(u32::MAX - 1);
        for c in 0..3 {
            assert_eq!(
                out(&r, &d, i, c),
                d.uniforms[(a.wrapping_add(c) % 5) as usize]
            );
        }
    }
    d.uniforms.clear();
    let r = go(&p, &d);
    assert!(r.results.outputs.iter().all(|&x| x == 0));
}

/// `mov(8) g50 = g0; mov(1) g50.2 = 3`: a scratch header for slot 3.
fn slot3_header() -> [Inst; 2] {
    let dword2 = Dst::Grf {
        reg: 50,
        subreg: 2,
        ty: Type::UD,
    };
    [
        mov(ExecSize::S8, 50, Type::UD, Src::grf(0, Type::UD)).no_mask(),
        Inst::unary(Op::Mov, ExecSize::S1, dword2, Src::ud(3)).no_mask(),
    ]
}

/// A scratch block write of the `regs` GRFs after the header in g50.
fn block_write(w: ExecSize, regs: u8) -> Inst {
    let msg = Message::ScratchBlockWrite { regs };
    send(w, Dst::Null(Type::UD), 50, msg, 1 + regs, 0, true)
}

/// A NoMask scratch block read of `regs` GRFs into g60 through the header in `header`, at
/// the descriptor's `offset` or the header's.
fn block_read(w: ExecSize, header: u8, regs: u8, offset: Option<u16>) -> Inst {
    let msg = Message::ScratchBlockRead { regs, offset };
    send(w, Dst::grf(60, Type::UD), header, msg, 1, regs, true).no_mask()
}

#[test]
fn scratch_block_spill_and_fill_round_trip() {
    // The fill takes its offset from a header of its own, or from the descriptor with g0 as
    // its header.
    for (w, offset) in [ExecSize::S8, ExecSize::S16]
        .into_iter()
        .flat_map(|w| [(w, None), (w, Some(3))])
    {
        let p = per(w);
        let seven_times_id = bin(Op::Mul, w, 10, Type::UD, Src::grf(1, Type::UD), Src::ud(7));
        let mut v = slot3_header().to_vec();
        v.extend([
            seven_times_id,
            mov(w, 51, Type::UD, Src::grf(10, Type::UD)).no_mask(),
            block_write(w, p).no_mask(),
            mov(w, 10, Type::UD, Src::ud(0)),
        ]);
        // The fill's header in the last GRF: a send reads `mlen` GRFs of payload whatever
        // its execution size, so this is legal at SIMD16 too.
        let header = match offset {
            Some(_) => 0,
            None => {
                v.push(mov(ExecSize::S8, 127, Type::UD, Src::grf(50, Type::UD)).no_mask());
                127
            }
        };
        v.push(block_read(w, header, p, offset));
        v.extend(store(w, 60, 0, 1));
        let d = dispatch(13, 1);
        let r = go(&prog(w, Gen::Gen9, v), &d);
        assert!(r.hazards.is_empty(), "{:?}", r.hazards);
        for i in 0..13 {
            assert_eq!(out(&r, &d, i, 0), i * 7);
        }
        let threads = 13u64.div_ceil(w.lanes() as u64);
        assert_eq!(
            (r.stats.scratch_reads, r.stats.scratch_writes),
            (threads, threads)
        );
        // A payload running past g127 is still rejected.
        let past = send(
            w,
            Dst::Null(Type::UD),
            127,
            Message::ScratchBlockWrite { regs: p },
            1 + p,
            0,
            true,
        );
        let e = validate(&prog(w, Gen::Gen9, vec![past.no_mask()]), None).unwrap_err();
        assert_eq!(
            e[0].problem,
            Problem::RegisterOutOfRange { operand: "payload" }
        );
        // So is a descriptor offset wider than its 12 bits.
        let far = |o| vec![block_read(w, 0, p, Some(o))];
        assert!(validate(&prog(w, Gen::Gen9, far(4095)), None).is_ok());
        let e = validate(&prog(w, Gen::Gen9, far(4096)), None).unwrap_err();
        assert_eq!(
            e[0].problem,
            Problem::Message("scratch block read offset past 12 bits")
        );
    }
}

/// A block write without NoMask stores only its enabled channels' dwords: the lanes an `if`
/// leaves out keep what a NoMask write put in the slot before it.
#[test]
fn masked_scratch_block_write_keeps_the_disabled_channels() {
    for w in [ExecSize::S8, ExecSize::S16] {
        let p = per(w);
        let mut v = slot3_header().to_vec();
        v.extend([
            mov(w, 51, Type::UD, Src::ud(7)).no_mask(),
            block_write(w, p).no_mask(),
            // What a write of whole GRFs would store in the disabled channels.
            mov(w, 51, Type::UD, Src::ud(9)).no_mask(),
            cmp(w, CondMod::L, Flag::F0_0, Src::grf(1, Type::D), Src::d(3)),
            Inst::control(Op::If { jip: 9, uip: 9 }, w).predicated(Flag::F0_0, false),
            bin(Op::Mul, w, 51, Type::UD, Src::grf(1, Type::UD), Src::ud(5)),
            block_write(w, p),
            Inst::control(Op::EndIf, w),
            block_read(w, 0, p, Some(3)),
        ]);
        v.extend(store(w, 60, 0, 1));
        let d = dispatch(13, 1);
        let r = go(&prog(w, Gen::Gen9, v), &d);
        assert!(r.hazards.is_empty(), "{:?}", r.hazards);
        for i in 0..13 {
            let expected = if i < 3 { i * 5 } else { 7 };
            assert_eq!(out(&r, &d, i, 0), expected, "{w:?} inv {i}");
        }
    }
}

#[test]
fn scratch_scattered_round_trip_and_unwritten_reads() {
    let w = ExecSize::S16;
    let mut v = vec![
        // offsets: lane l at dword 40 - 2*l; two channels (id, id + 100)
        bin(Op::Mul, w, 20, Type::D, Src::grf(1, Type::D), Src::d(-2)),
        bin(
            Op::And,
            w,
            20,
            Type::UD,
            Src::grf(20, Type::UD),
            Src::ud(31),
        ),
        mov(w, 22, Type::UD, Src::grf(1, Type::UD)),
        bin(
            Op::Add,
            w,
            24,
            Type::UD,
            Src::grf(1, Type::UD),
            Src::ud(100),
        ),
        send(
            w,
            Dst::Null(Type::UD),
            20,
            Message::ScratchWrite { channels: 2 },
            6,
            0,
            false,
        ),
        send(
            w,
            Dst::grf(30, Type::UD),
            20,
            Message::ScratchRead { channels: 2 },
            2,
            4,
            false,
        ),
        // read 3 channels: the third was never written by lanes whose neighbour is absent
        send(
            w,
            Dst::grf(40, Type::UD),
            20,
            Message::ScratchRead { channels: 1 },
            2,
            2,
            false,
        ),
    ];
    v.extend(store(w, 30, 0, 2));
    let d = dispatch(16, 2);
    let r = go(&prog(w, Gen::Gen9, v), &d);
    // Lane l writes dwords o(l), o(l)+1 with o(l) = (-2l) & 31; lane 0 at 0..2, lane 15 at 2..4
    // overlaps lane 0's second dword? No: o(15) = 2, lane 0 writes 0 and 1. Later lanes win.
    let o = |l: u32| (l.wrapping_mul(-2i32 as u32)) & 31;
    let mut mem = [None; 40];
    for l in 0..16u32 {
        mem[o(l) as usize] = Some(l);
        mem[o(l) as usize + 1] = Some(l + 100);
    }
    for l in 0..16u32 {
        assert_eq!(out(&r, &d, l, 0), mem[o(l) as usize].unwrap());
        assert_eq!(out(&r, &d, l, 1), mem[o(l) as usize + 1].unwrap());
    }
    assert!(r.hazards.is_empty(), "{:?}", r.hazards);

    // Reading a dword nobody wrote: hazard, value 0.
    let v = vec![
        mov(w, 20, Type::UD, Src::ud(500)),
        send(
            w,
            Dst::grf(30, Type::UD),
            20,
            Message::ScratchRead { channels: 1 },
            2,
            2,
            false,
        ),
    ];
    let r = go(&prog(w, Gen::Gen9, v), &d);
    assert_eq!(r.hazards.len(), 1);
    assert_eq!(r.hazards[0].kind, HazardKind::ScratchUnwritten);
    assert_eq!((r.hazards[0].inst, r.hazards[0].reg), (1, 500 / 8));
}

/// Every lane adds its id to word 1 of its workgroup's shared memory: lanes apply theirs in
/// lane order, so each gets the sum of its workgroup's lower ids, and the word their total.
#[test]
fn shared_atomics_apply_lane_by_lane_within_each_workgroup() {
    for w in [ExecSize::S8, ExecSize::S16] {
        let p = per(w);
        let atomic = |surface, op| Message::UntypedAtomic { surface, op };
        let v = vec![
            mov(w, 20, Type::UD, Src::ud(1)),
            mov(w, 20 + p, Type::UD, Src::grf(1, Type::UD)),
            send(
                w,
                Dst::grf(30, Type::UD),
                20,
                atomic(Surface::Shared, crate::semantics::AtomicOp::Add),
                2 * p,
                p,
                false,
            ),
            // Read the word back (the total) and write both to the two output slots.
            send(
                w,
                Dst::grf(34, Type::UD),
                20,
                Message::UntypedRead {
                    surface: Surface::Shared,
                    channels: 1,
                },
                p,
                p,
                false,
            ),
            mov(w, 40, Type::UD, Src::ud(0)),
            mov(w, 40 + p, Type::UD, Src::grf(30, Type::UD)),
            mov(w, 40 + 2 * p, Type::UD, Src::grf(34, Type::UD)),
            send(
                w,
                Dst::Null(Type::UD),
                40,
                Message::UntypedWrite {
                    surface: Surface::Output,
                    channels: 2,
                },
                3 * p,
                0,
                false,
            ),
        ];
        let d = Dispatch {
            invocations: 16,
            outputs: 2,
            workgroup: 4,
            shared: vec![2],
            ..Dispatch::default()
        };
        let r = go(&prog(w, Gen::Gen9, v), &d);
        assert!(r.hazards.is_empty(), "{:?}", r.hazards);
        for i in 0..16u32 {
            let first = i / 4 * 4;
            let old: u32 = (first..i).sum();
            let total: u32 = (first..first + 4).sum();
            let got = &r.results.outputs[(i * 2) as usize..(i * 2 + 2) as usize];
            assert_eq!(got, [old, total], "{w:?} invocation {i}");
        }
    }
}
