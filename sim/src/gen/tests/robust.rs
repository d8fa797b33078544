//! Bad programs are errors, never panics: seeded random instruction soup, plus EOT.

use super::*;
use crate::semantics::TextureDesc;

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.next() as usize % xs.len()]
    }
}

fn src(g: &mut Lcg) -> Src {
    let ty = g.pick(&[Type::UD, Type::D, Type::F]);
    match g.next() % 4 {
        0 => Src::Null,
        1 => Src::Imm { bits: g.next(), ty },
        _ => Src::Grf(GrfSrc {
            reg: g.pick(&[0, 1, 2, 10, 20, 126, 127, 200]),
            subreg: g.pick(&[0, 0, 3, 7, 9]),
            ty,
            region: g.pick(&[Region::Vector, Region::Scalar]),
            neg: g.next().is_multiple_of(5),
            abs: g.next().is_multiple_of(5),
        }),
    }
}

fn inst(g: &mut Lcg, len: u32) -> Inst {
    let t = |g: &mut Lcg| g.next() % (len + 2);
    let msg = match g.next() % 7 {
        0 => Message::Sampler {
            op: g.pick(&SamplerOp::ALL),
            texture: g.pick(&[0, 1, 5]),
            dim: g.pick(&crate::semantics::TexDim::ALL),
        },
        1 => Message::UntypedRead {
            surface: g.pick(&[
                Surface::Buffer(0),
                Surface::Buffer(3),
                Surface::Uniform,
                Surface::Output,
            ]),
            channels: (g.next() % 6) as u8,
        },
        2 => Message::UntypedWrite {
            surface: g.pick(&[Surface::Buffer(0), Surface::Uniform, Surface::Output]),
            channels: (g.next() % 6) as u8,
        },
        3 => Message::ScratchBlockRead {
            regs: (g.next() % 10) as u8,
            offset: [None, Some(g.next() as u16 % 5000)][(g.next() % 2) as usize],
        },
        4 => Message::ScratchBlockWrite {
            regs: (g.next() % 10) as u8,
        },
        5 => Message::ScratchRead {
            channels: (g.next() % 5) as u8,
        },
        _ => Message::ScratchWrite {
            channels: (g.next() % 5) as u8,
        },
    };
    let desc = SendDesc {
        msg,
        mlen: (g.next() % 14) as u8,
        rlen: (g.next() % 10) as u8,
        header: g.next().is_multiple_of(2),
        eot: g.next().is_multiple_of(4),
    };
    let op = match g.next() % 16 {
        0 => Op::If {
            jip: t(g),
            uip: t(g),
        },
        1 => Op::Else { jip: t(g) },
        2 => Op::EndIf,
        3 => Op::Do,
        4 => Op::While { jip: t(g) },
        5 => Op::Break { uip: t(g) },
        6 => Op::Cont { uip: t(g) },
        7 => Op::Send(desc),
        8 => Op::Math(g.pick(&[MathFn::Inv, MathFn::Pow, MathFn::IntDiv, MathFn::IntMod])),
        _ => g.pick(&[
            Op::Mov,
            Op::Sel,
            Op::Not,
            Op::And,
            Op::Shl,
            Op::Asr,
            Op::Add,
            Op::Mul,
            Op::Mad,
            Op::Cmp,
            Op::Frc,
            Op::Rnde,
            Op::Nop,
        ]),
    };
    Inst {
        op,
        exec_size: g.pick(&[ExecSize::S1, ExecSize::S8, ExecSize::S16]),
        group: g.pick(&[0, 0, 8, 3]),
        no_mask: g.next().is_multiple_of(3),
        pred: g.pick(&[Pred::None, Pred::Normal, Pred::Inverted]),
        cmod: g.pick(&[None, Some(CondMod::L), Some(CondMod::Ge), Some(CondMod::Nz)]),
        flag: g.pick(&[Flag::F0_0, Flag::F1_1]),
        dst: if g.next().is_multiple_of(4) {
            Dst::Null(Type::UD)
        } else {
            Dst::Grf {
                reg: g.pick(&[10, 30, 127, 130]),
                subreg: g.pick(&[0, 0, 5]),
                ty: g.pick(&[Type::UD, Type::D, Type::F]),
            }
        },
        src: [src(g), src(g), src(g)],
    }
}

#[test]
fn random_instruction_soup_never_panics() {
    let mut g = Lcg(7);
    let tex = TextureDesc {
        width: 4,
        height: 2,
        levels: 2,
        layers: 1,
    };
    let d = Dispatch {
        invocations: 21,
        outputs: 3,
        uniforms: vec![1, 2],
        buffers: vec![4, 0],
        textures: vec![tex, tex],
        ..Default::default()
    };
    let config = Config {
        max_cycles: 20_000,
        scratch_grfs: 16,
        ..Config::default()
    };
    let mut valid = 0;
    for _ in 0..20_000 {
        let len = 1 + g.next() % 6;
        let width = g.pick(&[ExecSize::S8, ExecSize::S16]);
        let insts = (0..len).map(|_| inst(&mut g, len)).collect();
        let p = prog(width, g.pick(&[Gen::Gen7, Gen::Gen9]), insts);
        let _ = p.to_string();
        if run(&p, &d, &config).is_ok() {
            valid += 1;
        }
    }
    assert!(valid > 30, "only {valid} valid programs");
}

#[test]
fn eot_ends_the_thread() {
    let w = ExecSize::S8;
    let mut v = vec![mov(w, 10, Type::UD, Src::ud(5))];
    v.extend(store(w, 10, 0, 1));
    if let Op::Send(d) = &mut v.last_mut().unwrap().op {
        d.eot = true;
    }
    v.push(mov(w, 10, Type::UD, Src::ud(6)));
    v.extend(store(w, 10, 0, 1));
    let d = dispatch(8, 1);
    let r = go(&prog(w, Gen::Gen9, v), &d);
    assert!(r.results.outputs.iter().all(|&x| x == 5));
    assert_eq!(r.stats.instructions, 4);
}
