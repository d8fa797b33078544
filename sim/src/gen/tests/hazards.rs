//! Hazards: unwritten register reads (whole and per lane), send payloads covering
//! unwritten registers, unwritten flags, and the cap on recorded hazards.

use super::*;

fn one(r: &Run) -> Hazard {
    assert_eq!(r.hazards.len(), 1, "{:?}", r.hazards);
    r.hazards[0]
}

#[test]
fn reading_a_register_nobody_wrote() {
    let w = ExecSize::S8;
    let v = vec![
        mov(w, 10, Type::UD, Src::ud(1)),
        bin(
            Op::Add,
            w,
            11,
            Type::UD,
            Src::grf(10, Type::UD),
            Src::grf(40, Type::UD),
        ),
    ];
    let r = go(&prog(w, Gen::Gen9, v), &dispatch(8, 0));
    let h = one(&r);
    assert_eq!(
        h,
        Hazard {
            thread: 0,
            inst: 1,
            reg: 40,
            kind: HazardKind::UnwrittenRead
        }
    );
}

#[test]
fn reading_lanes_written_only_under_a_branch() {
    let w = ExecSize::S16;
    let body = |read_inside: bool| {
        let mut v = vec![
            Inst::binary(
                Op::Cmp,
                w,
                Dst::Null(Type::D),
                Src::grf(1, Type::D),
                Src::d(11),
            )
            .with_cmod(CondMod::G, Flag::F0_0),
            Inst::control(Op::If { jip: 4, uip: 4 }, w).predicated(Flag::F0_0, false),
            mov(w, 10, Type::UD, Src::ud(5)),
            bin(Op::Add, w, 20, Type::UD, Src::grf(10, Type::UD), Src::ud(1)),
            Inst::control(Op::EndIf, w),
        ];
        if !read_inside {
            v.push(bin(
                Op::Add,
                w,
                20,
                Type::UD,
                Src::grf(10, Type::UD),
                Src::ud(1),
            ));
        }
        prog(w, Gen::Gen9, v)
    };
    let d = dispatch(16, 0);
    assert!(go(&body(true), &d).hazards.is_empty());
    let h = one(&go(&body(false), &d));
    // lane 0 reads g10 dword 0: unwritten
    assert_eq!((h.inst, h.reg, h.kind), (5, 10, HazardKind::UnwrittenRead));
}

#[test]
fn send_payload_covering_an_unwritten_register() {
    let w = ExecSize::S8;
    let tex = crate::semantics::TextureDesc {
        width: 4,
        height: 4,
        levels: 1,
        layers: 1,
    };
    let d = Dispatch {
        invocations: 8,
        textures: vec![tex],
        ..Dispatch::default()
    };
    let ld = |mlen: u8| {
        Inst::send(
            w,
            Dst::grf(40, Type::UD),
            20,
            SendDesc::new(
                Message::Sampler {
                    op: SamplerOp::Ld,
                    texture: 0,
                    dim: crate::semantics::TexDim::D2,
                },
                mlen,
                4,
                false,
            ),
        )
    };
    // u written, v written: fine; mlen 3 covers g22 which nobody wrote.
    let v = vec![
        mov(w, 20, Type::UD, Src::grf(1, Type::UD)),
        mov(w, 21, Type::UD, Src::ud(0)),
        ld(2),
        ld(3),
    ];
    let r = go(&prog(w, Gen::Gen9, v), &d);
    assert_eq!(
        one(&r),
        Hazard {
            thread: 0,
            inst: 3,
            reg: 22,
            kind: HazardKind::UnwrittenPayload
        }
    );
    // A header with only dword 0 written is a hazard too.
    let v = vec![
        mov(ExecSize::S1, 19, Type::UD, Src::ud(0)).no_mask(),
        mov(w, 20, Type::UD, Src::grf(1, Type::UD)),
        Inst::send(
            w,
            Dst::grf(40, Type::UD),
            19,
            SendDesc::new(
                Message::Sampler {
                    op: SamplerOp::Ld,
                    texture: 0,
                    dim: crate::semantics::TexDim::D2,
                },
                2,
                4,
                true,
            ),
        ),
    ];
    let h = one(&go(&prog(w, Gen::Gen9, v), &d));
    assert_eq!(
        (h.inst, h.reg, h.kind),
        (2, 19, HazardKind::UnwrittenPayload)
    );
}

#[test]
fn predicate_on_a_flag_nobody_wrote_and_the_hazard_cap() {
    let w = ExecSize::S8;
    let v = vec![mov(w, 10, Type::UD, Src::ud(1)).predicated(Flag::F1_0, true)];
    let h = one(&go(&prog(w, Gen::Gen9, v), &dispatch(8, 0)));
    assert_eq!((h.inst, h.reg, h.kind), (0, 2, HazardKind::UnwrittenFlag));

    let v = (0..5)
        .map(|k| mov(w, 10, Type::UD, Src::grf(30 + k, Type::UD)))
        .collect();
    let config = Config {
        max_hazards: 2,
        ..Config::default()
    };
    let r = run(&prog(w, Gen::Gen9, v), &dispatch(16, 0), &config).unwrap();
    assert_eq!(r.hazards.len(), 2);
    assert_eq!(r.hazards_dropped, 8);
    assert_eq!(r.outcome, Outcome::Completed);
}
