//! Static counts of the shapes the generator aims for, so tests and the fuzz status line can
//! measure how often each one is produced.

use compiler::ir::{CfNode, Function, InstKind, Program, Value};
use std::collections::HashMap;

/// Shape counts of one program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShapeStats {
    /// Loops.
    pub loops: u32,
    /// Deepest loop nesting (0 without loops).
    pub max_loop_depth: u32,
    /// Ifs.
    pub ifs: u32,
    /// Phis.
    pub phis: u32,
    /// Phis with a source equal to the phi itself (`bar = phi(foo, bar)`).
    pub trivial_backedge_phis: u32,
    /// Pairs of phis of one block that feed each other along the same edge.
    pub swapped_phi_pairs: u32,
    /// Phis with at least two sources, all the same value.
    pub same_source_phis: u32,
    /// `tex`/`txf` whose last present parameter is a constant zero.
    pub tex_const_zero_param: u32,
    /// Texture messages.
    pub tex_ops: u32,
    /// Bit `i` set when texture shape [`TEX_SHAPES`]`[i]` appears.
    pub tex_shapes: u32,
    /// `deref_array`s whose index is not a constant.
    pub dynamic_derefs: u32,
    /// `break`s.
    pub breaks: u32,
    /// `continue`s.
    pub continues: u32,
    /// Placed instructions.
    pub insts: u32,
    /// Bit `i` set when `AluOp::ALL[i]` appears.
    pub alu_ops: u128,
}

fn walk(list: &[CfNode], depth: u32, s: &mut ShapeStats) {
    for n in list {
        match n {
            CfNode::Block(_) => {}
            CfNode::If(i) => {
                s.ifs += 1;
                walk(&i.then_list, depth, s);
                walk(&i.else_list, depth, s);
            }
            CfNode::Loop(l) => {
                s.loops += 1;
                s.max_loop_depth = s.max_loop_depth.max(depth + 1);
                walk(&l.body, depth + 1, s);
            }
        }
    }
}

/// Texture shapes counted by [`ShapeStats::tex_shapes`], by name.
pub const TEX_SHAPES: [&str; 16] = [
    "1d",
    "2d",
    "3d",
    "cube",
    "array",
    "offset",
    "compare",
    "gradient",
    "gather",
    "gather_compare",
    "size",
    "fetch",
    "lod",
    "bias",
    "zero_lod",
    "partial",
];

fn shape_bit(name: &str) -> u32 {
    1 << TEX_SHAPES.iter().position(|&n| n == name).unwrap_or(0)
}

/// The [`TEX_SHAPES`] bits one texture instruction shows (`reads`: components read per
/// texture result, `compiler::ir::texture_reads`).
fn tex_shape_bits(
    f: &Function,
    kind: &InstKind,
    result: Option<Value>,
    reads: &HashMap<Value, u8>,
) -> u32 {
    let (params, fetch, size) = match kind {
        InstKind::Tex { params, .. } => (params, false, false),
        InstKind::Txf { params, .. } => (params, true, false),
        InstKind::Txs { params, .. } => (params, false, true),
        _ => return 0,
    };
    let mut b = shape_bit(params.dim.name());
    let mut on = |yes: bool, name: &str| {
        if yes {
            b |= shape_bit(name);
        }
    };
    on(params.layer().is_some(), "array");
    on(params.has_offset(), "offset");
    on(
        params.compare().is_some() && params.gather.is_none(),
        "compare",
    );
    on(params.grad().is_some(), "gradient");
    on(
        params.gather.is_some() && params.compare().is_none(),
        "gather",
    );
    on(
        params.gather.is_some() && params.compare().is_some(),
        "gather_compare",
    );
    on(size, "size");
    on(fetch, "fetch");
    on(params.lod().is_some() && !size, "lod");
    on(params.bias().is_some(), "bias");
    on(
        params.lod().is_some_and(|v| is_zero_const(f, v)) && !fetch && !size,
        "zero_lod",
    );
    let read = result.and_then(|r| reads.get(&r)).copied().unwrap_or(0xf);
    on(read != 0xf && read != 0, "partial");
    b
}

fn is_zero_const(f: &Function, v: Value) -> bool {
    matches!(f.def_kind(v), Some(InstKind::Const { bits }) if bits[0] == 0)
}

/// Counts the shapes of `p`.
pub fn shape_stats(p: &Program) -> ShapeStats {
    let f = &p.func;
    let mut s = ShapeStats::default();
    let reads = compiler::ir::texture_reads(f);
    walk(&f.body, 0, &mut s);
    for b in f.blocks_in_order() {
        let insts = &f.blocks[b].insts;
        s.insts += insts.len() as u32;
        // (pred, value) -> phi, for swapped pairs.
        let mut edges: HashMap<(u32, Value), Value> = HashMap::new();
        let mut phis = Vec::new();
        for &i in insts {
            let result = f.result(i);
            match &f.insts[i].kind {
                InstKind::Phi { sources } => {
                    s.phis += 1;
                    let me = result.expect("phis have values");
                    if sources.iter().any(|src| src.value == me) {
                        s.trivial_backedge_phis += 1;
                    }
                    if sources.len() >= 2 && sources.iter().all(|x| x.value == sources[0].value) {
                        s.same_source_phis += 1;
                    }
                    for src in sources {
                        edges.insert((src.pred.as_u32(), me), src.value);
                    }
                    phis.push((me, sources));
                }
                InstKind::Alu { op, .. } => {
                    let k = compiler::ir::AluOp::ALL.iter().position(|o| o == op);
                    s.alu_ops |= 1u128 << k.unwrap_or(0);
                }
                InstKind::Txs { .. } => {
                    s.tex_ops += 1;
                    s.tex_shapes |= tex_shape_bits(f, &f.insts[i].kind, result, &reads);
                }
                InstKind::Tex { params, .. } | InstKind::Txf { params, .. } => {
                    s.tex_ops += 1;
                    s.tex_shapes |= tex_shape_bits(f, &f.insts[i].kind, result, &reads);
                    let last = params.layer().or(params.bias()).or(params.lod());
                    if last.is_some_and(|v| is_zero_const(f, v)) {
                        s.tex_const_zero_param += 1;
                    }
                }
                InstKind::DerefArray { index, .. }
                    if !matches!(f.def_kind(*index), Some(InstKind::Const { .. })) =>
                {
                    s.dynamic_derefs += 1;
                }
                InstKind::Break => s.breaks += 1,
                InstKind::Continue => s.continues += 1,
                _ => {}
            }
        }
        for (me, sources) in &phis {
            for src in sources.iter() {
                let other = src.value;
                if other != *me && other < *me && edges.get(&(src.pred.as_u32(), other)) == Some(me)
                {
                    s.swapped_phi_pairs += 1;
                }
            }
        }
    }
    s
}
