//! The Gen backend on corpus-style programs: every width, generation and `opt_zero_samples`
//! setting, with a generous and a starved GRF budget, in SSA and in register form, against
//! the reference interpreter — no mismatch, no simulator hazard, a clean allocation checker.

mod gen_common;
use gen_common::*;

fn both_forms(src: &str, starved: u32) -> (Vec<compiler::gen::CompileStats>, Vec<compiler::gen::CompileStats>) {
    let p = parse(src);
    assert_clean(&p, 125);
    let s = assert_clean(&p, starved);
    let r = registers(&p);
    assert_clean(&r, 125);
    let rs = assert_clean(&r, starved);
    (s, rs)
}

#[test]
fn corpus_regressions() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/regressions");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).expect("corpus") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "ir") {
            let src = std::fs::read_to_string(&path).expect("read");
            both_forms(&src, 10);
            n += 1;
        }
    }
    assert!(n > 0);
}
