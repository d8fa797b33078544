//! Sampler messages: parameter orders per generation, trimmed payloads reading zeros,
//! headers, SIMD16 payloads, and descriptor validation.

use super::*;
use crate::semantics::{fetch_coords, i2f, sample_coords, texel, TextureDesc};

const TEX: TextureDesc = TextureDesc {
    width: 8,
    height: 4,
    levels: 3,
    layers: 2,
};

fn tex_dispatch(n: u32) -> Dispatch {
    Dispatch {
        invocations: n,
        outputs: 4,
        textures: vec![TEX, TEX],
        ..Dispatch::default()
    }
}

/// Payload at g20 (+ header), parameters `params` (Src per parameter, typed), `sent` of them
/// in the message; response at g40; stored to slots 0..4.
fn sample_program(
    w: ExecSize,
    gen: Gen,
    op: SamplerOp,
    params: &[Src],
    sent: u8,
    header: bool,
) -> Program {
    let p = per(w);
    let h = header as u8;
    let mut v = Vec::new();
    if header {
        v.push(mov(ExecSize::S8, 20, Type::UD, Src::grf(0, Type::UD)).no_mask());
    }
    for (k, s) in params.iter().enumerate() {
        let ty = s.ty().unwrap();
        v.push(mov(w, 20 + h + p * k as u8, ty, *s));
    }
    v.push(Inst::send(
        w,
        Dst::grf(40, Type::F),
        20,
        SendDesc::new(
            Message::Sampler {
                op,
                texture: 1,
                dim: crate::semantics::TexDim::D2,
            },
            h + p * sent,
            4 * p,
            header,
        ),
    ));
    v.extend(store(w, 40, 0, 4));
    prog(w, gen, v)
}

fn check(r: &Run, d: &Dispatch, expect: impl Fn(u32) -> [u32; 4], what: &str) {
    assert_eq!(r.outcome, Outcome::Completed);
    assert!(r.hazards.is_empty(), "{what}: {:?}", r.hazards);
    for i in 0..d.invocations {
        let e = expect(i);
        for c in 0..4 {
            assert_eq!(out(r, d, i, c), e[c as usize], "{what} inv {i} channel {c}");
        }
    }
}

#[test]
fn trimmed_ld_reads_zero_lod_like_the_full_message() {
    for w in [ExecSize::S8, ExecSize::S16] {
        let d = tex_dispatch(21);
        let id = Src::grf(1, Type::D);
        let lod0 = [id, Src::d(1), Src::d(0), Src::d(0)];
        let full = go(
            &sample_program(w, Gen::Gen9, SamplerOp::Ld, &lod0, 4, false),
            &d,
        );
        let trimmed = go(
            &sample_program(w, Gen::Gen9, SamplerOp::Ld, &lod0, 2, false),
            &d,
        );
        let at_lod0 = |i: u32| texel(1, fetch_coords(&TEX, i, 1, 0, 0));
        check(&full, &d, at_lod0, "full");
        check(&trimmed, &d, at_lod0, "trimmed");
        assert_eq!(
            full.stats.send_mlen - trimmed.stats.send_mlen,
            2 * per(w) as u64 * 21u64.div_ceil(w.lanes() as u64)
        );
        assert!(trimmed.stats.cycles < full.stats.cycles);

        // With lod 1 the trimmed message is wrong: it still reads lod 0.
        let lod1 = [id, Src::d(1), Src::d(1), Src::d(0)];
        let full = go(
            &sample_program(w, Gen::Gen9, SamplerOp::Ld, &lod1, 4, false),
            &d,
        );
        let trimmed = go(
            &sample_program(w, Gen::Gen9, SamplerOp::Ld, &lod1, 2, false),
            &d,
        );
        check(
            &full,
            &d,
            |i| texel(1, fetch_coords(&TEX, i, 1, 1, 0)),
            "lod1",
        );
        check(&trimmed, &d, at_lod0, "lod1 trimmed");
    }
}

#[test]
fn ld_parameter_order_differs_between_gen7_and_gen9() {
    let d = tex_dispatch(8);
    let params = [Src::grf(1, Type::D), Src::d(1), Src::d(2), Src::d(1)];
    let w = ExecSize::S8;
    let g7 = go(
        &sample_program(w, Gen::Gen7, SamplerOp::Ld, &params, 4, true),
        &d,
    );
    let g9 = go(
        &sample_program(w, Gen::Gen9, SamplerOp::Ld, &params, 4, true),
        &d,
    );
    // gen7: (u, lod, v, r); gen9: (u, v, lod, r)
    check(
        &g7,
        &d,
        |i| texel(1, fetch_coords(&TEX, i, 2, 1, 1)),
        "gen7",
    );
    check(
        &g9,
        &d,
        |i| texel(1, fetch_coords(&TEX, i, 1, 2, 1)),
        "gen9",
    );
    assert_ne!(out(&g7, &d, 3, 0), out(&g9, &d, 3, 0));
    let lz = [Src::grf(1, Type::D), Src::d(3), Src::d(1)];
    let r = go(
        &sample_program(w, Gen::Gen9, SamplerOp::LdLz, &lz, 3, false),
        &d,
    );
    check(
        &r,
        &d,
        |i| texel(1, fetch_coords(&TEX, i, 3, 0, 1)),
        "ld_lz",
    );
    let e = validate(
        &sample_program(w, Gen::Gen7, SamplerOp::LdLz, &lz, 3, false),
        None,
    );
    assert!(e.is_err());
}

#[test]
fn float_samples_with_lod_bias_and_layer() {
    for w in [ExecSize::S8, ExecSize::S16] {
        let d = tex_dispatch(16);
        let p = per(w);
        let u = |i: u32| (f32::from_bits(i2f(i)) * 0.13).to_bits();
        // Param values computed in the program: u = float(id) * 0.13.
        let mk = |op: SamplerOp, first: Option<f32>| {
            let mut prg = sample_program(w, Gen::Gen9, op, &[], 0, false);
            let mut params = Vec::new();
            if let Some(x) = first {
                params.push(Src::f(x));
            }
            params.extend([Src::f(0.0), Src::f(0.6), Src::f(0.7)]);
            let mut v = Vec::new();
            for (k, s) in params.iter().enumerate() {
                v.push(mov(w, 20 + p * k as u8, Type::F, *s));
            }
            let k_u = first.is_some() as u8;
            v.push(mov(w, 20 + p * k_u, Type::F, Src::grf(1, Type::UD)));
            v.push(bin(
                Op::Mul,
                w,
                20 + p * k_u,
                Type::F,
                Src::grf(20 + p * k_u, Type::F),
                Src::f(0.13),
            ));
            v.push(Inst::send(
                w,
                Dst::grf(40, Type::F),
                20,
                SendDesc::new(
                    Message::Sampler {
                        op,
                        texture: 1,
                        dim: crate::semantics::TexDim::D2,
                    },
                    p * params.len() as u8,
                    4 * p,
                    false,
                ),
            ));
            v.extend(store(w, 40, 0, 4));
            prg.insts = v;
            prg
        };
        let f = |x: f32| x.to_bits();
        let r = go(&mk(SamplerOp::Sample, None), &d);
        check(
            &r,
            &d,
            |i| texel(1, sample_coords(&TEX, u(i), f(0.6), 0, 0, f(0.7))),
            "sample",
        );
        let r = go(&mk(SamplerOp::SampleL, Some(1.0)), &d);
        check(
            &r,
            &d,
            |i| texel(1, sample_coords(&TEX, u(i), f(0.6), f(1.0), 0, f(0.7))),
            "sample_l",
        );
        let r = go(&mk(SamplerOp::SampleB, Some(1.5)), &d);
        check(
            &r,
            &d,
            |i| texel(1, sample_coords(&TEX, u(i), f(0.6), 0, f(1.5), f(0.7))),
            "sample_b",
        );
        assert_eq!(r.stats.sampler_sends, 16 / w.lanes() as u64);
    }
}

#[test]
fn sampler_descriptor_limits() {
    let w = ExecSize::S16;
    let params: Vec<Src> = (0..6).map(|_| Src::d(0)).collect();
    // header + 6 SIMD16 parameters = 13 > 11
    let pr = sample_program(w, Gen::Gen9, SamplerOp::Ld, &params, 6, true);
    let e = run(&pr, &tex_dispatch(16), &Config::default()).unwrap_err();
    assert!(e
        .iter()
        .any(|e| e.problem == Problem::Message("sampler mlen over 11")));
    // a texture the dispatch lacks
    let mut pr = sample_program(
        ExecSize::S8,
        Gen::Gen9,
        SamplerOp::Ld,
        &params[..2],
        2,
        false,
    );
    let lacking = Dispatch {
        textures: vec![TEX],
        ..tex_dispatch(8)
    };
    let e = run(&pr, &lacking, &Config::default());
    assert_eq!(e.unwrap_err()[0].problem, Problem::NoSuchResource);
    // validated without a dispatch, it still fails against this one, with the same errors,
    // and runs as it did against one that has the texture
    let valid = ValidProgram::new(pr.clone()).expect("valid without a dispatch");
    assert_eq!(
        run_valid(&valid, &lacking, &Config::default()),
        run(&pr, &lacking, &Config::default())
    );
    assert_eq!(
        run_valid(&valid, &tex_dispatch(8), &Config::default()),
        run(&pr, &tex_dispatch(8), &Config::default())
    );
    // odd parameter registers in SIMD16
    pr.width = ExecSize::S16;
    for i in &mut pr.insts {
        i.exec_size = ExecSize::S16;
    }
    if let Op::Send(d) = &mut pr.insts[2].op {
        d.mlen = 3;
    }
    assert!(validate(&pr, None).is_err());
}

#[test]
fn header_dword2_round_trips() {
    for o in -8i8..=7 {
        let h = SamplerHeader {
            offset: [o, -1 - o, o / 2],
            mask: (o as u8) & 0xf,
            component: (o as u8) & 3,
        };
        assert_eq!(SamplerHeader::decode(h.encode()), h);
    }
    // Mesa's layout: u in bits 11:8, v in 7:4, r in 3:0, the mask in 15:12, gather in 17:16.
    let h = SamplerHeader {
        offset: [1, -2, 3],
        mask: 0b1100,
        component: 2,
    };
    assert_eq!(h.encode(), 0x2_c1e3);
}

/// `sample` with a header whose dword 2 offsets u by +3 and v by −1 and masks channels z and
/// w: the response is x and y of the offset texel, packed.
#[test]
fn header_offsets_and_channel_mask() {
    use crate::semantics::{texture_result, TexDim, TexRequest};
    for w in [ExecSize::S8, ExecSize::S16] {
        let p = per(w);
        let d = tex_dispatch(21);
        let u = |i: u32| (i as f32 * 0.07).to_bits();
        let h = SamplerHeader {
            offset: [3, -1, 0],
            mask: 0b1100,
            component: 0,
        };
        let mut v = vec![
            mov(ExecSize::S8, 20, Type::UD, Src::grf(0, Type::UD)).no_mask(),
            Inst::unary(
                Op::Mov,
                ExecSize::S1,
                Dst::Grf {
                    reg: 20,
                    subreg: 2,
                    ty: Type::UD,
                },
                Src::ud(h.encode()),
            )
            .no_mask(),
            mov(w, 40, Type::F, Src::grf(1, Type::UD)),
            bin(Op::Mul, w, 21, Type::F, Src::grf(40, Type::F), Src::f(0.07)),
            mov(w, 21 + p, Type::F, Src::f(0.6)),
        ];
        v.push(Inst::send(
            w,
            Dst::grf(40, Type::F),
            20,
            SendDesc::new(
                Message::Sampler {
                    op: SamplerOp::Sample,
                    texture: 1,
                    dim: TexDim::D2,
                },
                1 + 2 * p,
                2 * p,
                true,
            ),
        ));
        v.extend(store(w, 40, 0, 2));
        let r = go(&prog(w, Gen::Gen9, v), &d);
        assert!(r.hazards.is_empty(), "{:?}", r.hazards);
        for i in 0..d.invocations {
            let q = TexRequest {
                coord: [u(i), 0.6f32.to_bits(), 0],
                offset: [3, -1, 0],
                ..TexRequest::default()
            };
            let t = texture_result(&TEX, 1, &q);
            assert_eq!(out(&r, &d, i, 0), t[0], "{w:?} inv {i} x");
            assert_eq!(out(&r, &d, i, 1), t[1], "{w:?} inv {i} y");
        }
    }
}

#[test]
fn messages_the_generation_or_width_lacks_are_invalid() {
    let params: Vec<Src> = (0..2).map(|_| Src::f(0.5)).collect();
    let invalid = |w: ExecSize, gen: Gen, op: SamplerOp, header: bool| {
        let pr = sample_program(w, gen, op, &params, 2, header);
        run(&pr, &tex_dispatch(16), &Config::default()).is_err()
    };
    assert!(invalid(ExecSize::S8, Gen::Gen9, SamplerOp::Gather4, false));
    assert!(!invalid(ExecSize::S8, Gen::Gen9, SamplerOp::Gather4, true));
    assert!(invalid(ExecSize::S16, Gen::Gen9, SamplerOp::SampleD, false));
    assert!(!invalid(ExecSize::S8, Gen::Gen9, SamplerOp::SampleD, false));
    for op in [
        SamplerOp::SampleLz,
        SamplerOp::SampleCLz,
        SamplerOp::SampleDC,
    ] {
        assert!(invalid(ExecSize::S8, Gen::Gen7, op, false), "{op:?}");
        assert!(!invalid(ExecSize::S8, Gen::Gen9, op, false), "{op:?}");
    }
    // resinfo has one parameter
    assert!(invalid(ExecSize::S8, Gen::Gen9, SamplerOp::Resinfo, false));
}
