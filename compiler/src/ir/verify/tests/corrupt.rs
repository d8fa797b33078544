//! Random corruptions of a valid program: the verifier, the CFG and the dominator tree must
//! never panic on them, and the verifier must catch most.

use super::*;

/// A tiny deterministic generator (xorshift) for the mutation test.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

fn mutate_tree(list: &mut Vec<CfNode>, rng: &mut Rng, nblocks: usize) {
    for node in list.iter_mut() {
        match node {
            CfNode::Block(blk) if rng.below(8) == 0 => *blk = b(rng.below(nblocks + 2) as u32),
            CfNode::Block(_) => {}
            CfNode::If(n) => {
                mutate_tree(&mut n.then_list, rng, nblocks);
                mutate_tree(&mut n.else_list, rng, nblocks);
            }
            CfNode::Loop(l) => mutate_tree(&mut l.body, rng, nblocks),
        }
    }
    if rng.below(16) == 0 && !list.is_empty() {
        list.remove(rng.below(list.len()));
    }
}

/// Random corruptions of a valid program never make the verifier, the CFG or the dominator
/// tree panic, and always make the verifier reject or accept (never loop).
#[test]
fn random_corruptions_never_panic() {
    let base = kitchen_sink();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let types = [
        Type::B1,
        Type::I32,
        Type::vec32(3),
        Type::Deref,
        Type::None,
        Type::Data {
            bits: BitSize::B32,
            comps: 0,
        },
        Type::Data {
            bits: BitSize::B1,
            comps: 9,
        },
    ];
    let mut rejected = 0;
    for _ in 0..3000 {
        let mut f = base.clone();
        for _ in 0..1 + rng.below(3) {
            let ni = f.insts.len();
            let nv = f.values.len();
            match rng.below(6) {
                0 => {
                    let inst = Inst::from_u32(rng.below(ni) as u32);
                    let pick = rng.below(4);
                    let mut k = 0;
                    let target = Value::from_u32(rng.below(nv + 3) as u32);
                    f.insts[inst].kind.visit_args_mut(|v| {
                        if k == pick {
                            *v = target;
                        }
                        k += 1;
                    });
                }
                1 => {
                    let v = Value::from_u32(rng.below(nv) as u32);
                    f.values[v].ty = types[rng.below(types.len())];
                }
                2 => {
                    let blk = b(rng.below(f.blocks.len()) as u32);
                    let other = b(rng.below(f.blocks.len()) as u32);
                    if let Some(i) = f.blocks[blk].insts.pop() {
                        f.blocks[other].insts.insert(0, i);
                    }
                }
                3 => mutate_tree(&mut f.body, &mut rng, f.blocks.len()),
                4 => {
                    let inst = Inst::from_u32(rng.below(ni) as u32);
                    match &mut f.insts[inst].kind {
                        InstKind::Phi { sources } if !sources.is_empty() => {
                            let k = rng.below(sources.len());
                            sources[k].pred = b(rng.below(f.blocks.len() + 1) as u32);
                        }
                        InstKind::DerefStruct { field, .. } => *field = rng.below(4) as u32,
                        InstKind::DerefCast { ty, .. } => {
                            *ty = VarType::Array(Box::new(ty.clone()), 3)
                        }
                        InstKind::LoadBuffer { buffer, .. } => *buffer = rng.below(3) as u32,
                        _ => {
                            f.insts[inst].result = Value::from_u32(rng.below(nv + 2) as u32).into()
                        }
                    }
                }
                _ => {
                    let v = Value::from_u32(rng.below(nv) as u32);
                    f.values[v].def = Inst::from_u32(rng.below(ni + 2) as u32).into();
                }
            }
        }
        let cfg = crate::ir::Cfg::compute(&f);
        let dom = crate::ir::DomTree::compute(&cfg);
        for &blk in cfg.rpo() {
            assert!(dom.dominates(cfg.entry().unwrap(), blk));
        }
        if verify(&program(f)).is_err() {
            rejected += 1;
        }
    }
    assert!(
        rejected > 2000,
        "only {rejected} of 3000 corruptions were caught"
    );
}
