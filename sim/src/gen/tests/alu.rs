//! ALU semantics: integer and float ops, conversions, modifiers, min/max, compares, SIMD16.

use super::*;
use crate::semantics::{canon, f2i, fmax, i2f, idiv, irem};

fn alu_program(w: ExecSize) -> Program {
    let p = per(w);
    let r = |k: u8| 10 + k * p;
    let mut v = vec![
        // r0 = id + 5; r1 = r0 * id (low); r2 = -(r1) >> 1 (asr)
        bin(
            Op::Add,
            w,
            r(0),
            Type::UD,
            Src::grf(1, Type::UD),
            Src::ud(5),
        ),
        bin(
            Op::Mul,
            w,
            r(1),
            Type::D,
            Src::grf(r(0), Type::D),
            Src::grf(1, Type::D),
        ),
        bin(
            Op::Asr,
            w,
            r(2),
            Type::D,
            Src::grf(r(1), Type::D).negated(),
            Src::d(33),
        ),
        // r3 = float(id) * 0.75 - 1.0 via mad: -1 + r3*0.75
        mov(w, r(3), Type::F, Src::grf(1, Type::D)),
        Inst::new(
            Op::Mad,
            w,
            Dst::grf(r(3), Type::F),
            [Src::f(-1.0), Src::grf(r(3), Type::F), Src::f(0.75)],
        ),
        // r4 = max(r3, 2.0); r5 = int(r4 * 3.3)
        bin(
            Op::Sel,
            w,
            r(4),
            Type::F,
            Src::grf(r(3), Type::F),
            Src::f(2.0),
        )
        .with_cmod(CondMod::Ge, Flag::F0_0),
        bin(
            Op::Mul,
            w,
            r(5),
            Type::F,
            Src::grf(r(4), Type::F),
            Src::f(3.3),
        ),
        mov(w, r(5), Type::D, Src::grf(r(5), Type::F)),
        // r6 = idiv(r2, 7), r7 = irem(r2, 7)
        bin(
            Op::Math(MathFn::IntDiv),
            w,
            r(6),
            Type::D,
            Src::grf(r(2), Type::D),
            Src::d(7),
        ),
        bin(
            Op::Math(MathFn::IntMod),
            w,
            r(7),
            Type::D,
            Src::grf(r(2), Type::D),
            Src::d(7),
        ),
    ];
    v.extend(store(w, r(0), 0, 8));
    prog(w, Gen::Gen9, v)
}

fn alu_expected(i: u32) -> [u32; 8] {
    let r0 = i + 5;
    let r1 = r0.wrapping_mul(i);
    let r2 = ((r1.wrapping_neg() as i32) >> 1) as u32;
    let x = f32::from_bits(i2f(i));
    let r3 = canon(x.mul_add(0.75, -1.0));
    let r4 = fmax(r3, 2.0f32.to_bits());
    let r5 = f2i(canon(f32::from_bits(r4) * 3.3));
    [r0, r1, r2, r3, r4, r5, idiv(r2, 7), irem(r2, 7)]
}

#[test]
fn integer_and_float_ops_simd8_and_simd16() {
    for w in [ExecSize::S8, ExecSize::S16] {
        let d = dispatch(37, 8);
        let r = go(&alu_program(w), &d);
        assert_eq!(r.outcome, Outcome::Completed);
        assert!(r.hazards.is_empty(), "{:?}", r.hazards);
        for i in 0..37 {
            let e = alu_expected(i);
            for (s, &x) in e.iter().enumerate() {
                assert_eq!(out(&r, &d, i, s as u32), x, "w {w:?} inv {i} slot {s}");
            }
        }
        assert_eq!(r.stats.threads, 37u64.div_ceil(w.lanes() as u64));
    }
}

#[test]
fn cmp_writes_flags_and_masks_and_predicated_sel_chooses() {
    let w = ExecSize::S8;
    let mut v = vec![
        // f0.0 = id < 3 (signed); g10 = 0/~0
        Inst::binary(
            Op::Cmp,
            w,
            Dst::grf(10, Type::D),
            Src::grf(1, Type::D),
            Src::d(3),
        )
        .with_cmod(CondMod::L, Flag::F0_0),
        // (+f0.0) sel g11 = 7 : id
        bin(Op::Sel, w, 11, Type::UD, Src::ud(7), Src::grf(1, Type::UD))
            .predicated(Flag::F0_0, false),
        // (-f0.0) add g12 = id + 100, others keep 0
        mov(w, 12, Type::UD, Src::ud(0)),
        bin(
            Op::Add,
            w,
            12,
            Type::UD,
            Src::grf(1, Type::UD),
            Src::ud(100),
        )
        .predicated(Flag::F0_0, true),
        // add.z.f0.1 g13 = id - 4; (+f0.1) mov g13 = 55
        bin(Op::Add, w, 13, Type::D, Src::grf(1, Type::D), Src::d(-4))
            .with_cmod(CondMod::Z, Flag::F0_1),
        mov(w, 13, Type::D, Src::d(55)).predicated(Flag::F0_1, false),
    ];
    v.extend(store(w, 10, 0, 4));
    let d = dispatch(8, 4);
    let r = go(&prog(w, Gen::Gen9, v), &d);
    for i in 0..8 {
        let lt = i < 3;
        assert_eq!(out(&r, &d, i, 0), if lt { u32::MAX } else { 0 });
        assert_eq!(out(&r, &d, i, 1), if lt { 7 } else { i });
        assert_eq!(out(&r, &d, i, 2), if lt { 0 } else { i + 100 });
        assert_eq!(
            out(&r, &d, i, 3),
            if i == 4 { 55 } else { i.wrapping_sub(4) }
        );
    }
}

#[test]
fn float_rounding_math_and_modifiers() {
    let w = ExecSize::S8;
    let mut v = vec![
        // g2 = (id - 3.5) as float
        mov(w, 2, Type::F, Src::grf(1, Type::UD)),
        bin(Op::Add, w, 2, Type::F, Src::grf(2, Type::F), Src::f(-3.5)),
        Inst::unary(Op::Rndd, w, Dst::grf(10, Type::F), Src::grf(2, Type::F)),
        Inst::unary(Op::Rndz, w, Dst::grf(11, Type::F), Src::grf(2, Type::F)),
        Inst::unary(Op::Rnde, w, Dst::grf(12, Type::F), Src::grf(2, Type::F)),
        Inst::unary(Op::Frc, w, Dst::grf(13, Type::F), Src::grf(2, Type::F)),
        Inst::unary(
            Op::Math(MathFn::Sqrt),
            w,
            Dst::grf(14, Type::F),
            Src::grf(2, Type::F).absolute(),
        ),
        Inst::unary(
            Op::Math(MathFn::Inv),
            w,
            Dst::grf(15, Type::F),
            Src::grf(2, Type::F),
        ),
        // min(-|x|, -1.0)
        bin(
            Op::Sel,
            w,
            16,
            Type::F,
            Src::grf(2, Type::F).absolute().negated(),
            Src::f(-1.0),
        )
        .with_cmod(CondMod::L, Flag::F1_0),
        // sqrt(x) of negatives: canonical NaN
        Inst::unary(
            Op::Math(MathFn::Sqrt),
            w,
            Dst::grf(17, Type::F),
            Src::grf(2, Type::F),
        ),
    ];
    v.extend(store(w, 10, 0, 8));
    let d = dispatch(8, 8);
    let r = go(&prog(w, Gen::Gen9, v), &d);
    for i in 0..8 {
        let x = i as f32 - 3.5;
        let e = [
            x.floor(),
            x.trunc(),
            x.round_ties_even(),
            x - x.floor(),
            x.abs().sqrt(),
            1.0 / x,
            (-x.abs()).min(-1.0),
        ];
        for (s, v) in e.iter().enumerate() {
            assert_eq!(out(&r, &d, i, s as u32), canon(*v), "inv {i} slot {s}");
        }
        assert_eq!(out(&r, &d, i, 7), canon(x.sqrt()));
    }
}

#[test]
fn simd16_compressed_halves_see_first_half_writes() {
    // dst g11 overlaps src g10..g11 shifted by one GRF: the second half reads what the
    // first half wrote.
    let w = ExecSize::S16;
    let mut v = vec![
        mov(w, 10, Type::UD, Src::grf(1, Type::UD)),
        bin(
            Op::Add,
            w,
            11,
            Type::UD,
            Src::grf(10, Type::UD),
            Src::ud(100),
        ),
    ];
    v.extend(store(w, 10, 0, 1));
    v.extend(store(w, 12, 1, 1));
    let d = dispatch(16, 2);
    let r = go(&prog(w, Gen::Gen9, v), &d);
    for i in 0..8 {
        assert_eq!(out(&r, &d, i, 0), i);
        assert_eq!(out(&r, &d, i + 8, 0), i + 100);
        assert_eq!(out(&r, &d, i, 1), i + 200);
        assert_eq!(out(&r, &d, i + 8, 1), 0, "g13 was never written");
    }
}

#[test]
fn simd8_halves_of_a_simd16_thread_and_simd1_scalar_writes() {
    let w = ExecSize::S16;
    let mut v = vec![
        mov(w, 10, Type::UD, Src::ud(1)),
        // second half only: g11 = id * 2
        bin(
            Op::Mul,
            ExecSize::S8,
            11,
            Type::UD,
            Src::grf(2, Type::UD),
            Src::ud(2),
        )
        .group(8),
        // SIMD1 write of dword 3 of g10 (channel 3), then broadcast of it to all of g12-13
        mov(ExecSize::S1, 10, Type::UD, Src::ud(77)).no_mask(),
        Inst::unary(
            Op::Mov,
            ExecSize::S1,
            Dst::Grf {
                reg: 10,
                subreg: 3,
                ty: Type::UD,
            },
            Src::ud(99),
        )
        .no_mask(),
        mov(w, 12, Type::UD, Src::scalar(10, 3, Type::UD)),
    ];
    v.extend(store(w, 10, 0, 2));
    let d = dispatch(16, 2);
    let r = go(&prog(w, Gen::Gen9, v), &d);
    let e0 = |i: u32| match i {
        0 => 77,
        3 => 99,
        i if i >= 8 => i * 2,
        _ => 1,
    };
    for i in 0..16 {
        assert_eq!(out(&r, &d, i, 0), e0(i), "inv {i}");
        assert_eq!(out(&r, &d, i, 1), 99);
    }
}
