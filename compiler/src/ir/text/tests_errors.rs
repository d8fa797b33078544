//! Parse errors: each bad input gives one message at the right line and column.

use super::{parse_program, ParseError};

const HEAD: &str = "invocations 1\noutputs 1\n\n";

fn parse_err(text: &str) -> ParseError {
    match parse_program(text, "t.ir") {
        Ok(p) => panic!("parsed:\n{p}"),
        Err(e) => e,
    }
}

/// Parses `HEAD` + `body` (so the body's first line is line 4) and checks the error.
fn body_err(body: &str, line: u32, col: u32, message: &str) {
    let e = parse_err(&format!("{HEAD}{body}"));
    assert_eq!(
        (e.line, e.col, e.message.as_str()),
        (line, col, message),
        "{e}"
    );
}

#[test]
fn display_names_file_line_and_column() {
    let e = parse_err("invocations 1\noutputs x\n");
    assert_eq!(
        e.to_string(),
        "t.ir:2:9: expected a number of outputs, found `x`"
    );
}

#[test]
fn truncated_input() {
    body_err(
        "block_0:\nloop {\n  block_1:\n",
        7,
        1,
        "unexpected end of input: `loop {` of line 5:1 is not closed",
    );
    body_err(
        "block_0:\n  vec1 32 ssa_0 = iadd ssa_1,",
        5,
        30,
        "expected a value `ssa_N`, found end of input",
    );
    let e = parse_err("invocations 1\n");
    assert_eq!(
        (e.line, e.message.as_str()),
        (2, "expected `outputs`, found end of input")
    );
    body_err("block_0:\n/* open", 5, 1, "unterminated `/*` comment");
}

#[test]
fn unknown_opcode() {
    body_err(
        "block_0:\n  vec1 32 ssa_0 = frobnicate ssa_1\n",
        5,
        19,
        "unknown opcode `frobnicate`",
    );
    body_err(
        "block_0:\n  frobnicate\n",
        5,
        3,
        "unknown opcode `frobnicate`",
    );
}

#[test]
fn undefined_value_is_reported_at_the_use() {
    body_err(
        "block_0:\n  vec1 32 ssa_1 = load_const (0x00000001)\n  vec1 32 ssa_2 = iadd ssa_1, ssa_7\n",
        6,
        31,
        "undefined value ssa_7",
    );
    body_err(
        "block_0:\nif ssa_3 {\n  block_1:\n} else {\n  block_2:\n}\nblock_3:\n",
        5,
        4,
        "undefined value ssa_3",
    );
}

#[test]
fn type_mismatches() {
    let consts = "block_0:\n  vec1 32 ssa_1 = load_const (0x00000001)\n  vec1 32 ssa_2 = load_const (0x00000002)\n";
    body_err(
        &format!("{consts}  vec1 1 ssa_3 = iadd ssa_1, ssa_2\n"),
        7,
        3,
        "type mismatch: `iadd` of these operands produces vec1 32, but the result is declared vec1 1",
    );
    body_err(
        &format!(
            "{consts}  vec1 1 ssa_3 = ieq ssa_1, ssa_2\n  vec1 32 ssa_4 = iadd ssa_1, ssa_3\n"
        ),
        8,
        31,
        "type mismatch: operand 2 of `iadd` must be vec1 32, found vec1 1",
    );
    body_err(
        &format!("{consts}  vec3 32 ssa_3 = vec2 ssa_1, ssa_2\n"),
        7,
        3,
        "type mismatch: `vec2` produces vec2 32, but the result is declared vec3 32",
    );
    body_err(
        &format!("{consts}  vec2 32 ssa_3 = mov ssa_1.xy\n"),
        7,
        29,
        "swizzle out of range: `.y` of a vec1 32",
    );
    body_err(
        &format!("{consts}  vec4 32 ssa_3 = tex 0, ssa_1\n"),
        7,
        26,
        "type mismatch: the coordinate must be vec2 32, found vec1 32",
    );
    body_err(
        "block_0:\n  vec2 32 ssa_0 = load_const (0x00000001)\n",
        5,
        3,
        "type mismatch: the constant has 1 components, but it is declared vec2 32",
    );
    body_err(
        "block_0:\n  vec1 32 ssa_0 = load_const (true)\n",
        5,
        31,
        "type mismatch: boolean `true` in a constant declared vec1 32",
    );
    body_err(
        "block_0:\n  vec1 32 ssa_0 = load_invocation_id\nif ssa_0 {\n  block_1:\n} else {\n  block_2:\n}\nblock_3:\n",
        6,
        4,
        "type mismatch: an `if` condition must be vec1 1, found vec1 32",
    );
    body_err(
        "block_0:\n  vec4 32 ssa_0 = load_invocation_id\n",
        5,
        3,
        "type mismatch: `load_invocation_id` produces vec1 32, but the result is declared vec4 32",
    );
}

#[test]
fn deref_types_come_from_the_variable() {
    let text = "invocations 1\noutputs 1\nvar_0: struct { vec2, vec1[4] }\n\nblock_0:\n  deref ssa_0 = deref_var var_0\n";
    let e = parse_err(&format!(
        "{text}  deref ssa_1 = deref_struct ssa_0.0\n  vec1 32 ssa_2 = load_deref ssa_1\n"
    ));
    assert_eq!(e.message, "type mismatch: `load_deref` of a vec2 produces vec2 32, but the result is declared vec1 32");
    let e = parse_err(&format!("{text}  deref ssa_1 = deref_var var_1\n"));
    assert_eq!(e.message, "undeclared variable var_1 (1 declared)");
}

#[test]
fn duplicate_definitions() {
    body_err(
        "block_0:\n  vec1 32 ssa_0 = load_invocation_id\n  vec1 32 ssa_0 = load_invocation_id\n",
        6,
        11,
        "ssa_0 defined twice (first at 5:11)",
    );
    body_err(
        "block_0:\nloop {\n  block_0:\n}\nblock_1:\n",
        6,
        3,
        "block_0 defined twice (first at 4:1)",
    );
}

#[test]
fn phi_errors() {
    body_err(
        "block_0:\n  vec1 32 ssa_0 = load_invocation_id\nloop {\n  block_1:\n    vec1 32 ssa_1 = phi block_0: ssa_0, block_9: ssa_1\n}\nblock_2:\n",
        8,
        41,
        "unknown block block_9 in phi",
    );
    body_err(
        "block_0:\n  vec1 32 ssa_0 = load_invocation_id\n  vec1 32 ssa_1 = phi block_0: ssa_0\n",
        6,
        19,
        "phi after a non-phi instruction: phis come first in their block",
    );
}

#[test]
fn operand_counts_and_numbers() {
    let c = "block_0:\n  vec1 32 ssa_0 = load_invocation_id\n";
    body_err(
        &format!("{c}  vec1 32 ssa_1 = iadd ssa_0\n"),
        6,
        29,
        "`iadd` takes 2 operands, found 1",
    );
    body_err(
        &format!("{c}  vec1 32 ssa_1 = ineg ssa_0, ssa_0\n"),
        6,
        29,
        "`ineg` takes 1 operands, found more",
    );
    body_err(
        &format!("{c}  vec1 32 ssa_1 = fsqrt\n"),
        6,
        24,
        "`fsqrt` takes 1 operands, found 0",
    );
    body_err(
        &format!("{c}  store_output 0x1g, ssa_0\n"),
        6,
        16,
        "malformed number `0x1g`",
    );
    body_err(
        &format!("{c}  store_output 4294967296, ssa_0\n"),
        6,
        16,
        "number `4294967296` does not fit in 32 bits",
    );
    body_err(
        &format!("{c}  vec1 32 ssa_1 = mov ssa_0.q\n"),
        6,
        29,
        "malformed swizzle `.q`: 1–4 of x, y, z, w",
    );
    body_err(
        &format!("{c}  vec1 32 ssa_99999999 = mov ssa_0.x\n"),
        6,
        11,
        "`ssa_99999999`: number too large (at most 1048575)",
    );
    body_err(
        &format!("{c}  vec4 32 ssa_1 = txf 0, ssa_0, layer ssa_0, lod ssa_0\n"),
        6,
        46,
        "`lod` out of place: parameters go in the order dim, lod, bias, layer, compare, ddx, ddy, offset, gather, each once",
    );
    body_err(
        &format!("{c}  vec1 32 ssa_1 = iadd ssa_0 ssa_0\n"),
        6,
        30,
        "expected `,`, found `ssa_0`",
    );
    body_err(
        &format!("{c}  store_output 0, ssa_0 }}\n"),
        6,
        25,
        "expected end of line, found `}`",
    );
    body_err(
        &format!("{c}  store_output 0, ssa_0 # x\n"),
        6,
        25,
        "unexpected character '#'",
    );
}

#[test]
fn results_where_they_belong() {
    body_err(
        "block_0:\n  vec1 32 ssa_0 = store_output 0, ssa_0\n",
        5,
        3,
        "`store_output` defines no value",
    );
    body_err(
        "block_0:\n  load_invocation_id\n",
        5,
        3,
        "`load_invocation_id` defines a value: expected `TYPE ssa_N = load_invocation_id ...`",
    );
}

#[test]
fn structure_errors() {
    body_err(
        "block_0:\nblock_1:\n",
        5,
        1,
        "block_1 directly follows block_0: two adjacent blocks (merge them)",
    );
    body_err(
        "loop {\n",
        4,
        1,
        "expected a block label: an `if` or `loop` must follow a block",
    );
    body_err(
        "  vec1 32 ssa_0 = load_invocation_id\n",
        4,
        3,
        "expected a block label, found `vec1`: instructions belong to a block",
    );
    body_err(
        "block_0:\nloop {\n  block_1:\n}\n",
        8,
        1,
        "expected a block label, found end of input: a control-flow list ends with a block",
    );
    body_err(
        "block_0:\nloop {\n}\nblock_1:\n",
        6,
        1,
        "expected a block label (a control-flow list holds at least one block), found `}`",
    );
    body_err(
        "block_0:\nloop {\n  block_1:\n    break\n    break\n}\nblock_2:\n",
        8,
        5,
        "instruction after `break` in block_1: a jump ends its block",
    );
    body_err("block_0:\n  continue\n", 5, 3, "`continue` outside a loop");
    body_err("block_0:\n}\n", 5, 1, "unmatched `}`");
    body_err(
        "block_0:\n  vec1 1 ssa_0 = load_const (true)\nif ssa_0 {\n  block_1:\n}\nblock_2:\n",
        8,
        2,
        "expected `else` (an `if` always has an else-branch), found end of line",
    );
}

#[test]
fn header_errors() {
    let e = parse_err("outputs 1\n");
    assert_eq!(
        (e.line, e.col, e.message.as_str()),
        (1, 1, "expected `invocations`, found `outputs`")
    );
    let e = parse_err("invocations 1\noutputs 1\ntexture 1x1 levels 1 layers 1\nbuffer 4\n");
    assert_eq!(
        (e.line, e.col, e.message.as_str()),
        (4, 1, "`buffer` out of place: the header is invocations, outputs, workgroup, uniforms, buffers, shared arrays, textures, var_N, reg_N, in that order, each once")
    );
    let e = parse_err("invocations 8\noutputs 1\nworkgroup 3\n");
    assert_eq!(
        (e.line, e.col, e.message.as_str()),
        (3, 11, "a workgroup has 1, 2, 4 or 8 invocations, not 3")
    );
    let e = parse_err("invocations 6\noutputs 1\nworkgroup 4\n\nblock_0:\n");
    assert_eq!(e.message, "6 invocations do not make whole workgroups of 4");
    let e = parse_err("invocations 8\noutputs 1\nshared 4\nbuffer 4\n");
    assert_eq!(e.line, 4);
    let e = parse_err("invocations 1\noutputs 1\nvar_1: vec1\n");
    assert_eq!(
        e.message,
        "expected `var_0`, found `var_1` (declare them densely, in order)"
    );
    let e = parse_err("invocations 1\noutputs 1\ntexture 8by8 levels 1 layers 1\n");
    assert_eq!(e.message, "malformed texture size `8by8`: expected `WxH`");
    let e = parse_err("invocations 1\noutputs 1\nvar_0: vec1[0]\n");
    assert_eq!(e.message, "array length must be at least 1");
    let e = parse_err("invocations 1\noutputs 1\nreg_0: vec5 32\n");
    assert_eq!(e.message, "expected a type vec1..vec4, found `vec5`");
}
