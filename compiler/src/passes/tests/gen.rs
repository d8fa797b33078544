//! A small random program generator for the property tests: straight-line integer, boolean
//! and float-bit arithmetic (NaN payloads and signed zeros included), vectors and swizzles,
//! uniform and buffer loads, buffer stores and outputs, a local array accessed with constant
//! and dynamic indices, nested ifs, and counted loops with data-dependent `continue`,
//! loop-carried values, trivial self phis and swapping phis. Every loop terminates.
//!
//! Self-contained (the fuzz crate's generator depends on this crate, so it cannot be used
//! from unit tests here); deterministic from a seed.

use crate::ir::{AluOp, Builder, InstKind, PhiSource, Program, Type, Value, Var, VarType};
use sim::dispatch::Dispatch;

/// SplitMix64.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0xd1b5_4a32_d192_ed03)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }
}

const SPECIAL: &[u32] = &[
    0,
    1,
    2,
    31,
    32,
    u32::MAX,
    0x8000_0000,
    0x7fff_ffff,
    0x3f80_0000, // 1.0
    0x8000_0000, // -0.0
    0x7fc0_0001, // a non-canonical NaN
    0xffc0_0000, // a negative NaN
];

const INT_BIN: &[AluOp] = &[
    AluOp::Iadd,
    AluOp::Isub,
    AluOp::Imul,
    AluOp::Iand,
    AluOp::Ior,
    AluOp::Ixor,
    AluOp::Ishl,
    AluOp::Ishr,
    AluOp::Ushr,
    AluOp::Udiv,
    AluOp::Umod,
    AluOp::Idiv,
    AluOp::Irem,
    AluOp::Imod,
    AluOp::Imin,
    AluOp::Umax,
    AluOp::Fadd,
    AluOp::Fmul,
    AluOp::Fmin,
];
const INT_UN: &[AluOp] = &[
    AluOp::Ineg,
    AluOp::Inot,
    AluOp::Iabs,
    AluOp::Fneg,
    AluOp::Fabs,
];
const CMP: &[AluOp] = &[
    AluOp::Ieq,
    AluOp::Ine,
    AluOp::Ilt,
    AluOp::Ige,
    AluOp::Ult,
    AluOp::Feq,
];
const BOOL_BIN: &[AluOp] = &[AluOp::Band, AluOp::Bor, AluOp::Bxor];

struct Gen<'r> {
    rng: &'r mut Rng,
    b: Builder,
    /// Values usable here, innermost scope last.
    avail: Vec<Value>,
    var: Var,
    budget: usize,
}

fn rng_budget(seed: u64) -> usize {
    (Rng::new(seed ^ 0x55).next() % 40) as usize
}

/// A random valid program.
pub fn program(seed: u64) -> Program {
    let mut rng = Rng::new(seed);
    let mut b = Builder::new();
    let var = b.var(VarType::Array(Box::new(VarType::Vector(1)), 4));
    let mut g = Gen {
        rng: &mut rng,
        b,
        avail: Vec::new(),
        var,
        budget: 20 + rng_budget(seed),
    };
    let id = g.ins(InstKind::InvocationId, Type::I32);
    g.avail.push(id);
    g.konst();
    g.list(0);
    for slot in 0..3 {
        let v = g.pick(1, false);
        g.b.ins(InstKind::StoreOutput { slot, value: v }, Type::None);
    }
    Program {
        dispatch: Dispatch {
            invocations: 5,
            outputs: 4,
            uniforms: vec![7, 0x7fc0_0001, 0x8000_0000, 3, u32::MAX],
            buffers: vec![6],
            textures: vec![],
            ..Default::default()
        },
        func: g.b.finish(),
    }
}

impl Gen<'_> {
    fn ins(&mut self, kind: InstKind, ty: Type) -> Value {
        self.b.ins(kind, ty).expect("has a result")
    }

    fn konst(&mut self) -> Value {
        let x = if self.rng.chance(1, 2) {
            SPECIAL[self.rng.below(SPECIAL.len())]
        } else {
            self.rng.below(9) as u32
        };
        let v = self.b.iconst(x);
        self.avail.push(v);
        v
    }

    /// A value of `comps` 32-bit components (or a boolean scalar with `boolean`).
    fn pick(&mut self, comps: u8, boolean: bool) -> Value {
        let want = if boolean {
            Type::B1
        } else {
            Type::vec32(comps)
        };
        let found: Vec<Value> = self
            .avail
            .iter()
            .copied()
            .filter(|&v| self.b.func().ty(v) == want)
            .collect();
        if !found.is_empty() && self.rng.chance(7, 8) {
            return found[self.rng.below(found.len())];
        }
        if boolean {
            let x = self.pick(1, false);
            let v = self.b.alu(AluOp::I2b, &[x]);
            self.avail.push(v);
            return v;
        }
        if comps == 1 {
            return self.konst();
        }
        let parts: Vec<Value> = (0..comps).map(|_| self.pick(1, false)).collect();
        let v = self.b.vec(&parts);
        self.avail.push(v);
        v
    }

    fn list(&mut self, depth: usize) {
        let n = if depth == 0 {
            usize::MAX
        } else {
            2 + self.rng.below(6)
        };
        for _ in 0..n {
            if self.budget == 0 {
                return;
            }
            self.budget -= 1;
            self.stmt(depth);
        }
    }

    fn stmt(&mut self, depth: usize) {
        let comps = [1u8, 1, 1, 2, 3, 4][self.rng.below(6)];
        let v = match self.rng.below(16) {
            0..=3 => {
                let op = INT_BIN[self.rng.below(INT_BIN.len())];
                let (a, b) = (self.pick(comps, false), self.pick(comps, false));
                let b = if self.rng.chance(1, 4) { a } else { b };
                self.b.alu(op, &[a, b])
            }
            4 => {
                let op = INT_UN[self.rng.below(INT_UN.len())];
                let a = self.pick(comps, false);
                self.b.alu(op, &[a])
            }
            5 => {
                let op = CMP[self.rng.below(CMP.len())];
                let (a, b) = (self.pick(1, false), self.pick(1, false));
                self.b.alu(op, &[a, b])
            }
            6 => {
                let op = BOOL_BIN[self.rng.below(BOOL_BIN.len())];
                let (a, b) = (self.pick(1, true), self.pick(1, true));
                self.b.alu(op, &[a, b])
            }
            7 => {
                let c = self.pick(1, true);
                let (x, y) = (self.pick(1, false), self.pick(1, false));
                self.b.alu(AluOp::Bcsel, &[c, x, y])
            }
            8 => {
                let src = self.pick(comps, false);
                let n = 1 + self.rng.below(4);
                let sw: Vec<u8> = (0..n).map(|_| self.rng.below(comps.into()) as u8).collect();
                self.b.mov(src, &sw)
            }
            9 => {
                let i = self.pick(1, false);
                if self.rng.chance(1, 2) {
                    self.ins(InstKind::LoadUniform { index: i }, Type::vec32(comps))
                } else {
                    self.ins(
                        InstKind::LoadBuffer {
                            buffer: 0,
                            index: i,
                        },
                        Type::vec32(comps),
                    )
                }
            }
            10 => {
                let (index, value) = (self.pick(1, false), self.pick(comps, false));
                self.b.ins(
                    InstKind::StoreBuffer {
                        buffer: 0,
                        index,
                        value,
                    },
                    Type::None,
                );
                return;
            }
            11 => return self.local(),
            12 | 13 if depth < 3 => return self.if_(depth),
            14 | 15 if depth < 2 => return self.loop_(depth),
            _ => {
                let value = self.pick(comps, false);
                let slot = self.rng.below(4) as u32;
                self.b
                    .ins(InstKind::StoreOutput { slot, value }, Type::None);
                return;
            }
        };
        self.avail.push(v);
    }

    fn local(&mut self) {
        let d = self.ins(InstKind::DerefVar { var: self.var }, Type::Deref);
        let index = if self.rng.chance(1, 4) {
            self.pick(1, false)
        } else {
            let k = self.rng.below(6) as u32;
            self.b.iconst(k)
        };
        let e = self.ins(InstKind::DerefArray { parent: d, index }, Type::Deref);
        if self.rng.chance(1, 2) {
            let value = self.pick(1, false);
            self.b
                .ins(InstKind::StoreDeref { deref: e, value }, Type::None);
        } else {
            let v = self.ins(InstKind::LoadDeref { deref: e }, Type::I32);
            self.avail.push(v);
        }
    }

    fn if_(&mut self, depth: usize) {
        let c = self.pick(1, true);
        let mark = self.avail.len();
        self.b.begin_if(c);
        self.list(depth + 1);
        let t = (
            self.b.current_block(),
            self.pick(1, false),
            self.b.is_terminated(),
        );
        self.avail.truncate(mark);
        self.b.begin_else();
        self.list(depth + 1);
        let e = (
            self.b.current_block(),
            self.pick(1, false),
            self.b.is_terminated(),
        );
        self.avail.truncate(mark);
        self.b.end_if();
        if !t.2 && !e.2 {
            let srcs = vec![
                PhiSource {
                    pred: t.0,
                    value: t.1,
                },
                PhiSource {
                    pred: e.0,
                    value: e.1,
                },
            ];
            let (p, _) = self.b.phi(Type::I32, srcs);
            self.avail.push(p);
        }
    }

    fn loop_(&mut self, depth: usize) {
        let one = self.b.iconst(1);
        let zero = self.b.iconst(0);
        let bound = if self.rng.chance(1, 2) {
            let id = self.avail[0];
            let five = self.b.iconst(5);
            self.b.alu(AluOp::Umod, &[id, five])
        } else {
            self.b.iconst(self.rng.below(4) as u32)
        };
        let (x, y) = (self.pick(1, false), self.pick(1, false));
        let prev = self.b.current_block();
        self.b.begin_loop();
        let src = |value| vec![PhiSource { pred: prev, value }];
        let (i, ip) = self.b.phi(Type::I32, src(zero));
        let (acc, accp) = self.b.phi(Type::I32, src(x));
        let (triv, trivp) = self.b.phi(Type::I32, src(y));
        let (sa, sap) = self.b.phi(Type::I32, src(x));
        let (sb, sbp) = self.b.phi(Type::I32, src(y));
        let inext = self.b.alu(AluOp::Iadd, &[i, one]);
        let done = self.b.alu(AluOp::Ige, &[i, bound]);
        self.b.begin_if(done);
        self.b.brk();
        self.b.end_if();
        let mark = self.avail.len();
        self.avail.extend([i, acc, triv, sa, sb]);
        let mut back = Vec::new();
        if self.rng.chance(1, 2) {
            let c = self.pick(1, true);
            self.b.begin_if(c);
            back.push((self.b.current_block(), acc));
            self.b.cont();
            self.b.end_if();
        }
        self.list(depth + 1);
        let nacc = self.pick(1, false);
        if !self.b.is_terminated() {
            back.push((self.b.current_block(), nacc));
        }
        for (pred, a) in back {
            self.b.add_phi_source(ip, pred, inext);
            self.b.add_phi_source(accp, pred, a);
            self.b.add_phi_source(trivp, pred, triv);
            self.b.add_phi_source(sap, pred, sb);
            self.b.add_phi_source(sbp, pred, sa);
        }
        self.avail.truncate(mark);
        self.b.end_loop();
        // Header values dominate the block after the loop.
        self.avail.extend([i, acc, triv, sa, sb]);
    }
}
