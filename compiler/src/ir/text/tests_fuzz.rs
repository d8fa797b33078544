//! Property tests: no input panics the parser, and whatever parses prints to text that
//! parses back to the same text.

use super::tests::EVERYTHING;
use super::{parse_program, print_program};
use quickcheck::{Arbitrary, Gen, QuickCheck};

/// Words the format is made of, so random token soups get past the lexer.
const VOCAB: &[&str] = &[
    "\n",
    " ",
    "  ",
    ":",
    ",",
    "=",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ".",
    ";",
    "/*",
    "*/",
    "invocations",
    "outputs",
    "uniforms",
    "buffer",
    "texture",
    "levels",
    "layers",
    "1x1",
    "var_0",
    "var_1",
    "reg_0",
    "reg_9",
    "block_0",
    "block_1",
    "block_2",
    "block_1048576",
    "ssa_0",
    "ssa_1",
    "ssa_2",
    "ssa_3",
    "ssa_4294967296",
    "vec1",
    "vec2",
    "vec4",
    "vec5",
    "32",
    "1",
    "0",
    "0x",
    "0xffffffff",
    "0x100000000",
    "deref",
    "struct",
    "loop",
    "if",
    "else",
    "break",
    "continue",
    "phi",
    "load_const",
    "true",
    "false",
    "iadd",
    "bcsel",
    "ffma",
    "mov",
    "xyzw",
    "w",
    "tex",
    "txf",
    "lod",
    "bias",
    "layer",
    "deref_var",
    "deref_array",
    "deref_struct",
    "deref_cast",
    "load_deref",
    "store_deref",
    "load_reg",
    "store_reg",
    "store_output",
    "store_buffer",
    "load_buffer",
    "load_uniform",
    "load_invocation_id",
    "é",
    "\t",
    "\r\n",
];

/// One random edit of a text.
#[derive(Clone, Debug)]
enum Edit {
    Truncate(usize),
    Delete(usize, usize),
    Insert(usize, usize),
    SwapLines(usize, usize),
    DuplicateLine(usize),
}

impl Arbitrary for Edit {
    fn arbitrary(g: &mut Gen) -> Self {
        let n = usize::arbitrary(g);
        let m = usize::arbitrary(g);
        match u8::arbitrary(g) % 5 {
            0 => Edit::Truncate(n),
            1 => Edit::Delete(n, m % 12),
            2 => Edit::Insert(n, m),
            3 => Edit::SwapLines(n, m),
            _ => Edit::DuplicateLine(n),
        }
    }
}

fn boundary(s: &str, n: usize) -> usize {
    let mut i = n % (s.len() + 1);
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(text: &str, edit: &Edit) -> String {
    let mut s = text.to_string();
    match *edit {
        Edit::Truncate(n) => s.truncate(boundary(&s, n)),
        Edit::Delete(n, len) => {
            let a = boundary(&s, n);
            let b = boundary(&s, a + len);
            if b > a {
                s.replace_range(a..b, "");
            }
        }
        Edit::Insert(n, w) => {
            let a = boundary(&s, n);
            s.insert_str(a, VOCAB[w % VOCAB.len()]);
        }
        Edit::SwapLines(a, b) => {
            let mut lines: Vec<&str> = s.lines().collect();
            if !lines.is_empty() {
                let (a, b) = (a % lines.len(), b % lines.len());
                lines.swap(a, b);
            }
            s = lines.join("\n");
        }
        Edit::DuplicateLine(a) => {
            let mut lines: Vec<&str> = s.lines().collect();
            if !lines.is_empty() {
                let a = a % lines.len();
                lines.insert(a, lines[a]);
            }
            s = lines.join("\n");
        }
    }
    s
}

/// Parsing never panics; when it succeeds, printing is a fixpoint of parse ∘ print.
fn parses_sanely(text: &str) -> bool {
    if let Ok(p) = parse_program(text, "fuzz.ir") {
        let printed = print_program(&p);
        match parse_program(&printed, "printed.ir") {
            Ok(q) => return print_program(&q) == printed,
            Err(e) => panic!("printed text does not parse: {e}\n{printed}"),
        }
    }
    true
}

#[test]
fn random_strings_never_panic() {
    fn prop(s: String) -> bool {
        parses_sanely(&s)
    }
    QuickCheck::new()
        .tests(2000)
        .quickcheck(prop as fn(String) -> bool);
}

#[test]
fn random_bytes_never_panic() {
    fn prop(bytes: Vec<u8>) -> bool {
        parses_sanely(&String::from_utf8_lossy(&bytes))
    }
    QuickCheck::new()
        .tests(2000)
        .quickcheck(prop as fn(Vec<u8>) -> bool);
}

#[test]
fn random_token_soups_never_panic() {
    fn prop(words: Vec<u16>) -> bool {
        let mut text = String::from("invocations 1\noutputs 1\n");
        for w in words {
            text.push_str(VOCAB[w as usize % VOCAB.len()]);
            text.push(' ');
        }
        parses_sanely(&text)
    }
    QuickCheck::new()
        .tests(3000)
        .quickcheck(prop as fn(Vec<u16>) -> bool);
}

#[test]
fn random_edits_of_valid_programs_never_panic() {
    fn prop(edits: Vec<Edit>) -> bool {
        let mut text = EVERYTHING.to_string();
        for e in edits.iter().take(2) {
            text = apply(&text, e);
        }
        parses_sanely(&text)
    }
    QuickCheck::new()
        .tests(4000)
        .quickcheck(prop as fn(Vec<Edit>) -> bool);
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let mut text = String::from("invocations 1\noutputs 1\nblock_0:\n");
    for i in 0..10_000 {
        text.push_str(&format!("loop {{\nblock_{}:\n", i + 1));
    }
    let e = parse_program(&text, "deep.ir").unwrap_err();
    assert_eq!(e.message, "control flow nested too deeply");
    let mut ty = String::from("invocations 1\noutputs 1\nvar_0: ");
    ty.push_str(&"struct { ".repeat(10_000));
    assert!(parse_program(&ty, "deep.ir").is_err());
    let arrays = format!(
        "invocations 1\noutputs 1\nvar_0: vec1{}\n",
        "[1]".repeat(10_000)
    );
    assert!(parse_program(&arrays, "deep.ir").is_err());
}
