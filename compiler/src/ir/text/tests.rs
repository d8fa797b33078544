//! Round-trip tests: hand-written text and builder-made programs print, parse and print back
//! unchanged.

use super::super::{AluOp, Builder, InstKind, PhiSource, Program, Type};
use super::{parse_program, print_inst, print_program};
use sim::dispatch::Dispatch;

/// Every instruction kind, every header line, nested loops with break/continue, if/else
/// with phis, a loop-header phi whose back-edge source is itself, gaps in the numbering.
pub(super) const EVERYTHING: &str = "\
invocations 64
outputs 4
uniforms 0x00000003 0x3f800000
buffer 16
buffer 8
texture 8x8 levels 4 layers 1
texture 4x2 levels 1 layers 3
var_0: vec1[8]
var_1: struct { vec2, vec1[4] }
var_2: struct { vec4[2][3], struct { vec1 } }
reg_0: vec2 32
reg_1: vec1 1

block_0:
  vec1 32 ssa_0 = load_const (0x00000001)
  vec2 32 ssa_1 = load_const (0x3f800000 /* 1.0 */, 0xc0200000 /* -2.5 */)
  vec1 1 ssa_2 = load_const (true)
  vec4 1 ssa_3 = load_const (true, false, false, true)
  vec1 32 ssa_4 = iadd ssa_0, ssa_0
  vec3 32 ssa_5 = vec3 ssa_0, ssa_0, ssa_4
  vec2 32 ssa_6 = mov ssa_5.zx
  vec1 32 ssa_7 = load_invocation_id
  vec4 32 ssa_8 = load_uniform ssa_0
  vec2 32 ssa_9 = load_buffer 1, ssa_0
  store_buffer 1, ssa_0, ssa_9
  store_output 3, ssa_9
  vec4 32 ssa_10 = tex 0, ssa_6, lod ssa_0, bias ssa_0, layer ssa_0
  vec4 32 ssa_11 = txf 1, ssa_6, lod ssa_0, layer ssa_0
  vec4 32 ssa_12 = tex 0, ssa_1
  vec4 32 ssa_13 = txf 0, ssa_6, layer ssa_7
  deref ssa_14 = deref_var var_1
  deref ssa_15 = deref_struct ssa_14.1
  deref ssa_16 = deref_array ssa_15[ssa_7]
  vec1 32 ssa_17 = load_deref ssa_16
  store_deref ssa_16, ssa_17
  deref ssa_18 = deref_cast (vec2) ssa_15
  vec2 32 ssa_19 = load_deref ssa_18
  deref ssa_20 = deref_var var_2
  deref ssa_21 = deref_cast (struct { vec4[2][3], vec1 }) ssa_20
  deref ssa_22 = deref_struct ssa_21.0
  deref ssa_23 = deref_array ssa_22[ssa_0]
  deref ssa_24 = deref_array ssa_23[ssa_4]
  vec4 32 ssa_25 = load_deref ssa_24
  vec2 32 ssa_26 = load_reg reg_0
  store_reg reg_0, ssa_26
  vec1 1 ssa_27 = ilt ssa_0, ssa_7
  store_reg reg_1, ssa_27
  vec1 32 ssa_28 = bcsel ssa_27, ssa_0, ssa_7
  vec2 32 ssa_29 = ffma ssa_1, ssa_1, ssa_6
  vec2 1 ssa_30 = flt ssa_1, ssa_29
  vec2 32 ssa_31 = b2f ssa_30
  vec1 32 ssa_32 = vec1 ssa_28
  vec1 32 ssa_33 = load_const (0x00000000)
loop {
  block_1:
    vec1 32 ssa_34 = phi block_0: ssa_33, block_9: ssa_36
    vec1 32 ssa_35 = phi block_0: ssa_0, block_9: ssa_35
    vec1 32 ssa_36 = iadd ssa_34, ssa_35
    vec1 1 ssa_37 = uge ssa_36, ssa_7
  if ssa_37 {
    block_2:
      break
  } else {
    block_3:
  }
  block_4:
  loop {
    block_5:
      vec1 1 ssa_38 = ieq ssa_36, ssa_0
    if ssa_38 {
      block_6:
        continue
    } else {
      block_7:
        break
    }
    block_8:
  }
  block_9:
}
block_10:
if ssa_2 {
  block_11:
    vec1 32 ssa_45 = imul ssa_34, ssa_34
} else {
  block_13:
}
block_14:
  vec1 32 ssa_46 = phi block_11: ssa_45, block_13: ssa_34
  store_output 0, ssa_46
";

fn round_trip(text: &str) -> Program {
    let p = parse_program(text, "test.ir").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(print_program(&p), text);
    p
}

#[test]
fn everything_round_trips() {
    let p = round_trip(EVERYTHING);
    assert_eq!(p.dispatch.buffers, vec![16, 8]);
    assert_eq!(p.dispatch.uniforms, vec![3, 0x3f80_0000]);
    assert_eq!(p.dispatch.textures[1].layers, 3);
    assert_eq!(p.func.vars.len(), 3);
    assert_eq!(p.func.regs.len(), 2);
    // Names keep their numbers; gaps are placeholder values and blocks.
    assert_eq!(p.func.values.len(), 47);
    assert_eq!(p.func.blocks.len(), 15);
    assert!(p.func.values.values().filter(|d| d.def.is_none()).count() == 6);
    assert_eq!(p.func.blocks_in_order().len(), 14);
    assert_eq!(p.to_string(), EVERYTHING);
}

#[test]
fn comments_and_whitespace_are_ignored() {
    let messy = "\n\n  invocations 2 ; two\noutputs   1\n/* a\n comment */\n\n\
                 block_0:   ; entry\nvec1 32 ssa_0 = load_const (0x00000002 /* 2 */)\n\n\
                 \t\tstore_output 0 , ssa_0";
    let p = parse_program(messy, "messy.ir").unwrap();
    let clean = "invocations 2\noutputs 1\n\nblock_0:\n  vec1 32 ssa_0 = load_const (0x00000002)\n  store_output 0, ssa_0\n";
    assert_eq!(print_program(&p), clean);
    round_trip(clean);
}

#[test]
fn decimal_numbers_and_bool_words_parse() {
    let p = parse_program(
        "invocations 1\noutputs 1\nuniforms 7\nblock_0:\n  vec1 32 ssa_0 = load_const (42)\n  vec1 1 ssa_1 = load_const (0x00000002)\n",
        "t",
    )
    .unwrap();
    let text = print_program(&p);
    assert!(text.contains("uniforms 0x00000007"));
    assert!(text.contains("load_const (0x0000002a)"));
    assert!(text.contains("vec1 1 ssa_1 = load_const (0x00000002)"));
    round_trip(&text);
}

#[test]
fn empty_program_round_trips() {
    let p = Program::default();
    assert_eq!(print_program(&p), "invocations 0\noutputs 0\n\n");
    round_trip("invocations 0\noutputs 0\n\n");
}

fn builder_program() -> Program {
    let mut b = Builder::new();
    let zero = b.iconst(0);
    let one = b.fconst(1.0);
    let id = b.ins(InstKind::InvocationId, Type::I32).unwrap();
    let entry = b.current_block();
    b.begin_loop();
    let source = PhiSource {
        pred: entry,
        value: zero,
    };
    let (i, phi) = b.phi(Type::I32, vec![source]);
    let done = b.alu(AluOp::Uge, &[i, id]);
    b.begin_if(done);
    b.brk();
    b.end_if();
    let c1 = b.iconst(1);
    let next = b.alu(AluOp::Iadd, &[i, c1]);
    let latch = b.current_block();
    b.add_phi_source(phi, latch, next);
    b.end_loop();
    let f = b.alu(AluOp::I2f, &[i]);
    let s = b.alu(AluOp::Fmul, &[f, one]);
    b.ins(InstKind::StoreOutput { slot: 0, value: s }, Type::None);
    let dispatch = Dispatch {
        invocations: 8,
        outputs: 1,
        ..Dispatch::default()
    };
    Program {
        dispatch,
        func: b.finish(),
    }
}

const BUILDER_GOLDEN: &str = "\
invocations 8
outputs 1

block_0:
  vec1 32 ssa_0 = load_const (0x00000000)
  vec1 32 ssa_1 = load_const (0x3f800000 /* 1.0 */)
  vec1 32 ssa_2 = load_invocation_id
loop {
  block_1:
    vec1 32 ssa_3 = phi block_0: ssa_0, block_4: ssa_6
    vec1 1 ssa_4 = uge ssa_3, ssa_2
  if ssa_4 {
    block_2:
      break
  } else {
    block_3:
  }
  block_4:
    vec1 32 ssa_5 = load_const (0x00000001)
    vec1 32 ssa_6 = iadd ssa_3, ssa_5
}
block_5:
  vec1 32 ssa_7 = i2f ssa_3
  vec1 32 ssa_8 = fmul ssa_7, ssa_1
  store_output 0, ssa_8
";

#[test]
fn builder_program_prints_golden_and_round_trips() {
    let p = builder_program();
    assert_eq!(print_program(&p), BUILDER_GOLDEN);
    let q = round_trip(BUILDER_GOLDEN);
    assert_eq!(q, p, "parsing rebuilds the same data structures");
}

#[test]
fn print_inst_quotes_one_line() {
    let p = builder_program();
    let (_, inst) = p.func.insts_in_order()[3];
    assert_eq!(
        print_inst(&p.func, inst),
        "vec1 32 ssa_3 = phi block_0: ssa_0, block_4: ssa_6"
    );
}

#[test]
fn float_comments_only_when_every_component_is_nice() {
    use super::nice_float;
    assert_eq!(nice_float(0x3f80_0000).as_deref(), Some("1.0"));
    assert_eq!(nice_float(0xbf00_0000).as_deref(), Some("-0.5"));
    assert_eq!(nice_float(1), None, "small integers are denormals");
    assert_eq!(nice_float(0), None);
    assert_eq!(nice_float(0x7fc0_0000), None, "NaN");
    assert_eq!(nice_float(0x7f80_0000), None, "infinity");
    let mut b = Builder::new();
    b.const_vec(&[0x3f80_0000, 7]);
    b.const_vec(&[0x3f80_0000, 0x4000_0000]);
    let p = Program {
        func: b.finish(),
        ..Program::default()
    };
    let text = print_program(&p);
    assert!(text.contains("vec2 32 ssa_0 = load_const (0x3f800000, 0x00000007)\n"));
    assert!(text.contains("(0x3f800000 /* 1.0 */, 0x40000000 /* 2.0 */)\n"));
    round_trip(&text);
}

/// The example in the IR's module doc (the format's specification) parses, and prints as
/// itself without its `;` comments.
#[test]
fn module_doc_example_parses() {
    let doc = include_str!("../mod.rs");
    let start = doc.find("//! ```text\n").expect("example start") + "//! ```text\n".len();
    let len = doc[start..].find("//! ```\n").expect("example end");
    let mut example = String::new();
    let mut expected = String::new();
    for line in doc[start..start + len].lines() {
        let line = line.strip_prefix("//!").unwrap_or(line);
        let line = line.strip_prefix(' ').unwrap_or(line);
        example.push_str(line);
        example.push('\n');
        let code = line.split(';').next().unwrap_or("").trim_end();
        expected.push_str(code);
        expected.push('\n');
    }
    let p = parse_program(&example, "mod.rs").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(print_program(&p), expected);
}
