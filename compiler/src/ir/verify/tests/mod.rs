//! Tests of the verifier: valid programs pass; each broken program is rejected by the rule
//! it breaks, with the entity and printed instruction in the error.

mod corrupt;

use super::*;
use crate::ir::{
    AluOp, BitSize, Builder, CfNode, IfNode, InstKind, PhiSource, Reg, TexParams, Type, VarType,
};
use cranelift_entity::packed_option::ReservedValue;
use sim::dispatch::Dispatch;
use sim::semantics::TextureDesc;

fn dispatch() -> Dispatch {
    Dispatch {
        invocations: 4,
        outputs: 4,
        uniforms: vec![1, 2, 3, 4],
        buffers: vec![8],
        textures: vec![TextureDesc {
            width: 4,
            height: 4,
            levels: 2,
            layers: 1,
        }],
        ..Default::default()
    }
}

fn program(func: Function) -> Program {
    Program {
        dispatch: dispatch(),
        func,
    }
}

fn b(n: u32) -> Block {
    Block::from_u32(n)
}

fn src(pred: Block, value: Value) -> PhiSource {
    PhiSource { pred, value }
}

#[track_caller]
fn assert_ok(p: &Program) {
    if let Err(e) = verify(p) {
        panic!("expected a valid program, got {e}");
    }
}

/// Asserts `p` is rejected for `rule`, and returns the errors.
#[track_caller]
fn assert_rule(p: &Program, rule: Rule) -> VerifyErrors {
    match verify(p) {
        Ok(()) => panic!("expected a {rule} error, the program verified"),
        Err(e) => {
            assert!(e.has(rule), "expected a {rule} error, got {e}");
            e
        }
    }
}

fn first(e: &VerifyErrors, rule: Rule) -> &VerifierError {
    e.0.iter().find(|x| x.rule == rule).unwrap()
}

/// Nested loops with `break`/`continue`, an if/else merge phi, loop-header phis (one whose
/// back-edge source is itself), and every intrinsic, deref and register instruction.
fn kitchen_sink() -> Function {
    let mut bld = Builder::new();
    let zero = bld.iconst(0);
    let one = bld.iconst(1);
    let four = bld.iconst(4);
    let half = bld.fconst(0.5);
    let arr = bld.var(VarType::Array(Box::new(VarType::Vector(2)), 4));
    let rec = bld.var(VarType::Struct(vec![
        VarType::Vector(1),
        VarType::Array(Box::new(VarType::Vector(1)), 4),
    ]));
    let reg = bld.reg(Type::vec32(2));

    bld.begin_loop(); // block_1
    let (i, phi_i) = bld.phi(Type::I32, vec![src(b(0), zero)]);
    let (s, phi_s) = bld.phi(Type::I32, vec![src(b(0), one)]);
    let more = bld.alu(AluOp::Ilt, &[i, four]);
    let done = bld.alu(AluOp::Bnot, &[more]);
    bld.begin_if(done); // block_2
    bld.brk();
    bld.begin_else(); // block_3
    bld.end_if(); // block_4
    bld.begin_loop(); // block_5
    let (j, phi_j) = bld.phi(Type::I32, vec![src(b(4), zero)]);
    let is_one = bld.alu(AluOp::Ieq, &[j, one]);
    bld.begin_if(is_one); // block_6
    let j2 = bld.alu(AluOp::Iadd, &[j, one]);
    bld.cont();
    bld.begin_else(); // block_7
    bld.end_if(); // block_8
    bld.brk();
    bld.end_loop(); // block_9
    bld.add_phi_source(phi_j, b(6), j2);
    bld.begin_if(more); // block_10
    let x = bld.alu(AluOp::Fadd, &[half, half]);
    bld.begin_else(); // block_11
    let y = bld.alu(AluOp::Fmul, &[half, half]);
    bld.end_if(); // block_12
    let (m, _) = bld.phi(Type::I32, vec![src(b(10), x), src(b(11), y)]);
    let i2 = bld.alu(AluOp::Iadd, &[i, one]);
    let sel = bld.alu(AluOp::Bcsel, &[more, m, s]);
    bld.ins(
        InstKind::StoreOutput {
            slot: 1,
            value: sel,
        },
        Type::None,
    );
    bld.end_loop(); // block_13
    bld.add_phi_source(phi_i, b(12), i2);
    bld.add_phi_source(phi_s, b(12), s);

    let d = bld
        .ins(InstKind::DerefVar { var: arr }, Type::Deref)
        .unwrap();
    let e = bld.ins(
        InstKind::DerefArray {
            parent: d,
            index: one,
        },
        Type::Deref,
    );
    let e = e.unwrap();
    let v = bld
        .ins(InstKind::LoadDeref { deref: e }, Type::vec32(2))
        .unwrap();
    bld.ins(InstKind::StoreDeref { deref: e, value: v }, Type::None);
    let ds = bld
        .ins(InstKind::DerefVar { var: rec }, Type::Deref)
        .unwrap();
    let f = bld.ins(
        InstKind::DerefStruct {
            parent: ds,
            field: 1,
        },
        Type::Deref,
    );
    let g = bld.ins(
        InstKind::DerefArray {
            parent: f.unwrap(),
            index: zero,
        },
        Type::Deref,
    );
    bld.ins(InstKind::LoadDeref { deref: g.unwrap() }, Type::I32);
    let cast = InstKind::DerefCast {
        parent: ds,
        ty: VarType::Vector(2),
    };
    let c = bld.ins(cast, Type::Deref).unwrap();
    bld.ins(InstKind::LoadDeref { deref: c }, Type::vec32(2));

    let coord = bld.vec(&[half, half]);
    let params = TexParams {
        lod: half,
        ..TexParams::default()
    };
    let tex = InstKind::Tex {
        texture: 0,
        coord,
        params,
    };
    let t = bld.ins(tex, Type::vec32(4)).unwrap();
    let icoord = bld.vec(&[one, zero]);
    let params = TexParams {
        lod: zero,
        layer: zero,
        ..TexParams::default()
    };
    let txf = InstKind::Txf {
        texture: 0,
        coord: icoord,
        params,
    };
    bld.ins(txf, Type::vec32(4));
    bld.ins(InstKind::LoadUniform { index: zero }, Type::vec32(4));
    let id = bld.ins(InstKind::InvocationId, Type::I32).unwrap();
    let lb = bld.ins(
        InstKind::LoadBuffer {
            buffer: 0,
            index: id,
        },
        Type::vec32(2),
    );
    let lb = lb.unwrap();
    let store = InstKind::StoreBuffer {
        buffer: 0,
        index: zero,
        value: lb,
    };
    bld.ins(store, Type::None);
    bld.ins(InstKind::StoreOutput { slot: 0, value: t }, Type::None);
    let wz = bld.mov(t, &[3, 2]);
    bld.ins(InstKind::StoreReg { reg, value: wz }, Type::None);
    bld.ins(InstKind::LoadReg { reg }, Type::vec32(2));
    bld.bconst(true);
    bld.finish()
}

#[test]
fn kitchen_sink_verifies() {
    assert_ok(&program(kitchen_sink()));
}

#[test]
fn loop_header_phi_with_itself_on_the_back_edge_verifies() {
    let mut bld = Builder::new();
    let zero = bld.iconst(0);
    let c = bld.bconst(true);
    bld.begin_loop();
    let (p, phi) = bld.phi(Type::I32, vec![src(b(0), zero)]);
    bld.begin_if(c);
    bld.brk();
    bld.end_if();
    bld.end_loop();
    bld.add_phi_source(phi, b(4), p);
    bld.ins(InstKind::StoreOutput { slot: 0, value: p }, Type::None);
    assert_ok(&program(bld.finish()));
}

#[test]
fn phi_edges_from_unreachable_code_verify() {
    // loop { block_1: phi; break } if c { block_2 } else { block_3 } block_4 }: block_4 is
    // an unreachable predecessor of the header.
    let mut bld = Builder::new();
    let zero = bld.iconst(0);
    let c = bld.bconst(false);
    bld.begin_loop();
    let (p, phi) = bld.phi(Type::I32, vec![src(b(0), zero)]);
    bld.brk();
    bld.begin_if(c);
    bld.begin_else();
    bld.end_if();
    let q = bld.alu(AluOp::Iadd, &[p, p]);
    bld.end_loop();
    bld.add_phi_source(phi, b(4), q);
    assert_ok(&program(bld.finish()));
}

/// The same program is well formed for [`verify`] and rejected by [`verify_reachable`], which
/// names each dead block; a program with no dead code passes both.
#[test]
fn unreachable_blocks_only_for_verify_reachable() {
    // loop { block_1; break } if c { block_2 } else { block_3 } block_4 }: blocks 2, 3, 4 sit
    // after the break.
    let mut bld = Builder::new();
    let c = bld.bconst(false);
    bld.begin_loop();
    bld.brk();
    bld.begin_if(c);
    bld.begin_else();
    bld.end_if();
    bld.end_loop();
    let p = program(bld.finish());
    assert_ok(&p);
    let e = verify_reachable(&p).expect_err("dead code after a break");
    let dead: Vec<Location> = e.0.iter().map(|e| e.location).collect();
    assert_eq!(dead, [2, 3, 4].map(|n| Location::Block(b(n))), "{e}");
    assert!(e.0.iter().all(|e| e.rule == Rule::UnreachableBlock), "{e}");
    let sink = program(kitchen_sink());
    assert_eq!(verify_reachable(&sink), Ok(()));
}

#[test]
fn use_not_dominated_by_def() {
    let mut bld = Builder::new();
    let c = bld.bconst(true);
    bld.begin_if(c);
    let x = bld.iconst(1);
    bld.end_if();
    bld.ins(InstKind::StoreOutput { slot: 0, value: x }, Type::None);
    let e = assert_rule(&program(bld.finish()), Rule::NotDominated);
    let err = first(&e, Rule::NotDominated);
    assert_eq!(err.location, Location::Inst(Inst::from_u32(2)));
    assert!(err.context.contains("store_output"), "{}", err.context);
    assert_eq!(e.0.len(), 1, "{e}");
}

/// The verifier keeps the dominator tree of its previous run when the edges are the same;
/// programs with one CFG but different definitions are still told apart, in either order.
#[test]
fn same_cfg_different_dominance_across_runs() {
    let with_def = |inside: bool| {
        let mut bld = Builder::new();
        let c = bld.bconst(true);
        let outside = (!inside).then(|| bld.iconst(1));
        bld.begin_if(c);
        let x = outside.unwrap_or_else(|| bld.iconst(1));
        bld.end_if();
        bld.ins(InstKind::StoreOutput { slot: 0, value: x }, Type::None);
        program(bld.finish())
    };
    let (good, bad) = (with_def(false), with_def(true));
    assert_eq!(
        Cfg::compute(&good.func).rpo(),
        Cfg::compute(&bad.func).rpo()
    );
    for _ in 0..2 {
        assert_ok(&good);
        assert_ok(&good);
        let e = assert_rule(&bad, Rule::NotDominated);
        assert_eq!(e.0.len(), 1, "{e}");
        assert_rule(&bad, Rule::NotDominated);
    }
}

#[test]
fn use_of_value_from_unreachable_block() {
    let mut bld = Builder::new();
    bld.begin_loop();
    bld.end_loop();
    let x = bld.iconst(1);
    let f = {
        let mut f = bld.finish();
        // Move the use to the (reachable) loop header.
        let (store, _) = f.make_inst(InstKind::StoreOutput { slot: 0, value: x }, Type::None);
        f.blocks[b(1)].insts.push(store);
        f
    };
    assert_rule(&program(f), Rule::NotDominated);
}

/// `if c { block_1: x } else { block_2: y } block_3: phi …` with the given sources.
fn merge_phi(sources: impl Fn(Value, Value) -> Vec<PhiSource>) -> Program {
    let mut bld = Builder::new();
    let c = bld.bconst(true);
    bld.begin_if(c);
    let x = bld.iconst(1);
    bld.begin_else();
    let y = bld.iconst(2);
    bld.end_if();
    let (m, _) = bld.phi(Type::I32, sources(x, y));
    bld.ins(InstKind::StoreOutput { slot: 0, value: m }, Type::None);
    program(bld.finish())
}

#[test]
fn merge_phi_verifies() {
    assert_ok(&merge_phi(|x, y| vec![src(b(2), y), src(b(1), x)]));
}

#[test]
fn phi_missing_source() {
    let e = assert_rule(
        &merge_phi(|x, _| vec![src(b(1), x)]),
        Rule::PhiMissingSource,
    );
    assert!(first(&e, Rule::PhiMissingSource)
        .message
        .contains("block_2"));
}

#[test]
fn phi_source_from_non_predecessor() {
    let p = merge_phi(|x, y| vec![src(b(1), x), src(b(2), y), src(b(0), x)]);
    assert_rule(&p, Rule::PhiExtraSource);
    let p = merge_phi(|x, y| vec![src(b(1), x), src(b(2), y), src(b(99), x)]);
    assert_rule(&p, Rule::PhiExtraSource);
}

#[test]
fn phi_duplicate_source() {
    let p = merge_phi(|x, y| vec![src(b(1), x), src(b(2), y), src(b(2), y)]);
    assert_rule(&p, Rule::PhiDuplicateSource);
}

#[test]
fn phi_source_not_available_on_its_edge() {
    // The else-edge carries the then-branch's value.
    let e = assert_rule(
        &merge_phi(|x, _| vec![src(b(1), x), src(b(2), x)]),
        Rule::NotDominated,
    );
    assert!(first(&e, Rule::NotDominated).message.contains("block_2"));
}

#[test]
fn phi_not_at_block_head() {
    let mut bld = Builder::new();
    let zero = bld.iconst(0);
    bld.begin_loop();
    let (p, phi) = bld.phi(Type::I32, vec![src(b(0), zero)]);
    let q = bld.alu(AluOp::Iadd, &[zero, zero]);
    bld.add_phi_source(phi, b(1), p);
    bld.end_loop();
    let mut f = bld.finish();
    f.blocks[b(1)].insts.reverse();
    let _ = q;
    let e = assert_rule(&program(f), Rule::PhiPlacement);
    assert_eq!(first(&e, Rule::PhiPlacement).location, Location::Inst(phi));
}

#[test]
fn break_outside_a_loop() {
    let mut bld = Builder::new();
    let c = bld.bconst(true);
    bld.begin_if(c);
    bld.brk();
    bld.end_if();
    assert_rule(&program(bld.finish()), Rule::JumpOutsideLoop);
}

#[test]
fn instruction_after_break() {
    let mut bld = Builder::new();
    bld.begin_loop();
    bld.brk();
    bld.end_loop();
    let mut f = bld.finish();
    let (i, _) = f.make_inst(InstKind::InvocationId, Type::I32);
    f.blocks[b(1)].insts.push(i);
    let e = assert_rule(&program(f), Rule::JumpPlacement);
    assert!(first(&e, Rule::JumpPlacement).context.contains("break"));
}

#[test]
fn alu_of_the_wrong_kind() {
    let mut bld = Builder::new();
    let t = bld.bconst(true);
    let s = bld.alu(AluOp::Fadd, &[t, t]);
    bld.ins(InstKind::StoreOutput { slot: 0, value: s }, Type::None);
    let e = assert_rule(&program(bld.finish()), Rule::OperandType);
    let err = first(&e, Rule::OperandType);
    assert!(err.context.contains("fadd"), "{}", err.context);
    assert!(err.message.contains("vec1 1"), "{}", err.message);
}

#[test]
fn alu_component_counts_differ() {
    let mut bld = Builder::new();
    let a = bld.const_vec(&[1, 2]);
    let c = bld.iconst(3);
    bld.alu(AluOp::Iadd, &[a, c]);
    assert_rule(&program(bld.finish()), Rule::OperandType);

    let mut bld = Builder::new();
    let a = bld.const_vec(&[1, 2]);
    let s = bld.alu(AluOp::Iadd, &[a, a]);
    let mut f = bld.finish();
    f.values[s].ty = Type::vec32(3);
    assert_rule(&program(f), Rule::ResultType);
}

#[test]
fn bcsel_operands_differ() {
    let mut bld = Builder::new();
    let t = bld.bconst(true);
    let a = bld.iconst(1);
    bld.alu(AluOp::Bcsel, &[t, a, t]);
    assert_rule(&program(bld.finish()), Rule::OperandType);
}

#[test]
fn vec_mov_and_const_rules() {
    let mut bld = Builder::new();
    let a = bld.iconst(1);
    let t = bld.bconst(true);
    bld.vec(&[a, t]);
    let v2 = bld.const_vec(&[1, 2]);
    bld.mov(v2, &[0, 2]);
    let mut f = bld.finish();
    let (_, bad) = f.make_inst(InstKind::Const { bits: [2, 0, 0, 0] }, Type::B1);
    let bad = f.values[bad.unwrap()].def.unwrap();
    f.blocks[b(0)].insts.push(bad);
    let e = assert_rule(&program(f), Rule::OperandType);
    assert!(e.has(Rule::Swizzle) && e.has(Rule::ConstBits), "{e}");
}

#[test]
fn deref_struct_of_an_array() {
    let mut bld = Builder::new();
    let arr = bld.var(VarType::Array(Box::new(VarType::Vector(1)), 4));
    let d = bld
        .ins(InstKind::DerefVar { var: arr }, Type::Deref)
        .unwrap();
    bld.ins(
        InstKind::DerefStruct {
            parent: d,
            field: 0,
        },
        Type::Deref,
    );
    let e = assert_rule(&program(bld.finish()), Rule::DerefChain);
    assert!(first(&e, Rule::DerefChain).message.contains("vec1[4]"));
}

#[test]
fn load_deref_of_an_array() {
    let mut bld = Builder::new();
    let arr = bld.var(VarType::Array(Box::new(VarType::Vector(1)), 4));
    let d = bld
        .ins(InstKind::DerefVar { var: arr }, Type::Deref)
        .unwrap();
    bld.ins(InstKind::LoadDeref { deref: d }, Type::I32);
    assert_rule(&program(bld.finish()), Rule::DerefAccess);
}

#[test]
fn deref_misuse() {
    let mut bld = Builder::new();
    let v = bld.var(VarType::Vector(2));
    let d = bld.ins(InstKind::DerefVar { var: v }, Type::Deref).unwrap();
    let big = InstKind::DerefCast {
        parent: d,
        ty: VarType::Vector(3),
    };
    bld.ins(big, Type::Deref);
    let one = bld.iconst(1);
    bld.ins(
        InstKind::StoreDeref {
            deref: d,
            value: one,
        },
        Type::None,
    );
    let mut f = bld.finish();
    let (add, _) = f.make_inst(
        InstKind::Alu {
            op: AluOp::Iadd,
            args: [d, d, Value::reserved_value(), Value::reserved_value()],
        },
        Type::I32,
    );
    f.blocks[b(0)].insts.push(add);
    let e = assert_rule(&program(f), Rule::DerefUse);
    assert!(e.has(Rule::DerefChain) && e.has(Rule::DerefAccess), "{e}");
    assert_eq!(deref_type(&kitchen_sink(), Value::from_u32(0)), None);
}

#[test]
fn access_through_a_cast_to_a_malformed_vector_is_an_error_not_a_panic() {
    for comps in [0, 5] {
        let mut bld = Builder::new();
        let v = bld.var(VarType::Vector(2));
        let d = bld.ins(InstKind::DerefVar { var: v }, Type::Deref).unwrap();
        let cast = InstKind::DerefCast {
            parent: d,
            ty: VarType::Vector(comps),
        };
        let c = bld.ins(cast, Type::Deref).unwrap();
        bld.ins(InstKind::LoadDeref { deref: c }, Type::I32);
        let one = bld.iconst(1);
        bld.ins(
            InstKind::StoreDeref {
                deref: c,
                value: one,
            },
            Type::None,
        );
        assert_rule(&program(bld.finish()), Rule::DerefChain);
    }
}

#[test]
fn deref_type_follows_chains() {
    let f = kitchen_sink();
    let derefs: Vec<_> = f
        .values
        .iter()
        .filter(|(_, vd)| vd.ty == Type::Deref)
        .map(|(v, _)| deref_type(&f, v))
        .collect();
    let vec2 = VarType::Vector(2);
    assert_eq!(derefs.len(), 6);
    assert_eq!(derefs[1], Some(vec2.clone()));
    assert_eq!(derefs[4], Some(VarType::Vector(1)));
    assert_eq!(derefs[5], Some(vec2));
}

#[test]
fn resources_and_texture_params() {
    let mut bld = Builder::new();
    let half = bld.fconst(0.5);
    let coord = bld.vec(&[half, half]);
    let both = TexParams {
        lod: half,
        bias: half,
        ..TexParams::default()
    };
    let tex = |texture| InstKind::Tex {
        texture,
        coord,
        params: both,
    };
    bld.ins(tex(1), Type::vec32(4));
    bld.ins(
        InstKind::LoadBuffer {
            buffer: 3,
            index: half,
        },
        Type::I32,
    );
    let mut p = program(bld.finish());
    let e = assert_rule(&p, Rule::ResourceRange);
    assert!(e.has(Rule::TexParams), "{e}");
    assert!(first(&e, Rule::ResourceRange).message.contains("texture 1"));
    p.dispatch.textures.push(p.dispatch.textures[0]);
    p.dispatch.buffers.extend([1, 1, 1]);
    let e = assert_rule(&p, Rule::TexParams);
    assert!(!e.has(Rule::ResourceRange), "{e}");
}

#[test]
fn if_condition_not_a_bool() {
    let mut bld = Builder::new();
    let x = bld.iconst(1);
    bld.begin_if(x);
    bld.end_if();
    let e = assert_rule(&program(bld.finish()), Rule::IfCondition);
    assert_eq!(first(&e, Rule::IfCondition).location, Location::Value(x));
}

#[test]
fn registers() {
    let mut bld = Builder::new();
    let r = bld.reg(Type::vec32(2));
    let x = bld.iconst(1);
    bld.ins(InstKind::StoreReg { reg: r, value: x }, Type::None);
    let other = Reg::from_u32(5);
    bld.ins(InstKind::LoadReg { reg: other }, Type::I32);
    let e = assert_rule(&program(bld.finish()), Rule::OperandType);
    assert!(e.has(Rule::UnknownEntity), "{e}");
}

#[test]
fn malformed_layouts_are_reported_not_panicked_on() {
    let mut bld = Builder::new();
    let c = bld.bconst(true);
    bld.begin_if(c);
    bld.end_if();
    let mut f = bld.finish();
    let (i, _) = f.make_inst(
        InstKind::StoreOutput {
            slot: 0,
            value: Value::from_u32(1000),
        },
        Type::None,
    );
    f.blocks[b(0)].insts.extend([i, i, Inst::from_u32(500)]);
    f.body.push(CfNode::Block(b(0)));
    f.body.push(CfNode::Block(b(77)));
    f.body.push(CfNode::If(Box::new(IfNode {
        cond: Value::from_u32(4000),
        then_list: vec![],
        else_list: vec![CfNode::Block(b(u32::MAX - 1))],
    })));
    let e = assert_rule(&program(f), Rule::ListShape);
    for rule in [Rule::DuplicatePlacement, Rule::UnknownEntity] {
        assert!(e.has(rule), "expected {rule} in {e}");
    }
}

#[test]
fn result_def_and_presence() {
    let mut bld = Builder::new();
    let x = bld.iconst(1);
    let y = bld.iconst(2);
    let mut f = bld.finish();
    f.values[x].def = f.values[y].def;
    let store = f.blocks[b(0)].insts[1];
    f.insts[store].kind = InstKind::StoreOutput { slot: 0, value: x };
    let e = assert_rule(&program(f), Rule::ResultDef);
    assert!(
        e.has(Rule::ResultPresence) && e.has(Rule::UndefinedValue),
        "{e}"
    );
}

#[test]
fn declarations() {
    let mut bld = Builder::new();
    bld.var(VarType::Array(Box::new(VarType::Vector(1)), 0));
    bld.var(VarType::Struct(vec![]));
    bld.reg(Type::Deref);
    let e = assert_rule(&program(bld.finish()), Rule::Declaration);
    assert_eq!(e.0.len(), 3, "{e}");
    let shown = e.to_string();
    assert!(shown.starts_with("3 verifier errors"), "{shown}");
    let _ = BitSize::B1;
}
