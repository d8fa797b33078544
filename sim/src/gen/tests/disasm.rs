//! Disassembly text, Mesa style.

use super::*;

fn text(i: Inst) -> String {
    i.to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn instructions_read_like_mesa() {
    let w8 = ExecSize::S8;
    let w16 = ExecSize::S16;
    assert_eq!(
        text(bin(
            Op::Add,
            w8,
            10,
            Type::F,
            Src::grf(4, Type::F),
            Src::grf(6, Type::F)
        )),
        "add(8) g10<1>F g4<8,8,1>F g6<8,8,1>F"
    );
    assert_eq!(
        text(
            bin(
                Op::Sel,
                w16,
                20,
                Type::UD,
                Src::grf(2, Type::UD),
                Src::ud(1)
            )
            .predicated(Flag::F0_0, false)
        ),
        "(+f0.0) sel(16) g20<1>UD g2<8,8,1>UD 0x1UD"
    );
    assert_eq!(
        text(
            Inst::binary(
                Op::Cmp,
                w8,
                Dst::Null(Type::D),
                Src::grf(4, Type::D),
                Src::d(5)
            )
            .with_cmod(CondMod::L, Flag::F0_0)
        ),
        "cmp.l.f0.0(8) null<1>D g4<8,8,1>D 0x5D"
    );
    let ld = SendDesc::new(
        Message::Sampler {
            op: SamplerOp::Ld,
            texture: 0,
            dim: crate::semantics::TexDim::D2,
        },
        4,
        8,
        false,
    );
    assert_eq!(
        text(Inst::send(w16, Dst::grf(10, Type::UD), 2, ld)),
        "send(16) g10<1>UD g2<8,8,1>UD sampler ld surface 0 mlen 4 rlen 8"
    );
    assert_eq!(
        text(Inst::control(Op::If { jip: 5, uip: 9 }, w8)),
        "if(8) JIP: 5 UIP: 9"
    );
    assert_eq!(
        text(Inst::control(Op::Break { uip: 9 }, w8).predicated(Flag::F1_1, true)),
        "(-f1.1) break(8) UIP: 9"
    );
    assert_eq!(
        text(
            Inst::unary(
                Op::Mov,
                ExecSize::S1,
                Dst::Grf {
                    reg: 50,
                    subreg: 2,
                    ty: Type::UD
                },
                Src::ud(3)
            )
            .no_mask()
        ),
        "mov(1) g50.2<1>UD 0x3UD { WE_all }"
    );
    assert_eq!(
        text(
            bin(
                Op::Add,
                w8,
                11,
                Type::F,
                Src::scalar(4, 3, Type::F).negated().absolute(),
                Src::f(1.5)
            )
            .group(8)
        ),
        "add(8) g11<1>F -(abs)g4.3<0,1,0>F 1.5F { 2Q }"
    );
    let spill = SendDesc {
        eot: false,
        ..SendDesc::new(Message::ScratchBlockWrite { regs: 2 }, 3, 0, true)
    };
    assert_eq!(
        text(Inst::send(w16, Dst::Null(Type::UD), 50, spill).no_mask()),
        "send(16) null<1>UD g50<8,8,1>UD scratch block write regs 2 mlen 3 rlen 0 { WE_all header }"
    );
    assert_eq!(
        text(
            bin(Op::Sel, w8, 3, Type::F, Src::grf(4, Type::F), Src::f(0.0))
                .with_cmod(CondMod::Ge, Flag::F0_0)
        ),
        "sel.ge(8) g3<1>F g4<8,8,1>F 0.0F"
    );
}

#[test]
fn programs_list_instruction_indices() {
    let w = ExecSize::S8;
    let p = prog(
        w,
        Gen::Gen7,
        vec![
            Inst::control(Op::Do, w),
            Inst::control(Op::While { jip: 1 }, w),
        ],
    );
    assert_eq!(
        p.to_string(),
        "// SIMD8 gen7\n   0: do(8)\n   1: while(8) JIP: 1\n"
    );
}

#[test]
fn instruction_size_is_pinned() {
    // Programs are stored and copied by the fuzzer; keep instructions small.
    assert_eq!(std::mem::size_of::<Inst>(), 48);
}
