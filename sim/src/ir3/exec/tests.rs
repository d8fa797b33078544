//! ir3's captured code (`corpus/ir3/*.words`, Mesa 26.2.6 on a630 and a750) run with the
//! dispatch turnip sets up, against answers known by hand; ir3's rules checked by taking a
//! sync away; what is not modelled named.

use super::*;
use crate::ir3::{decode_program, parse_header, Body, Flags, Gen, Reg, Sync};

const A630: Chip = Chip {
    gen: Gen::A6xx,
    scalar_alu: false,
};
const A750: Chip = Chip {
    gen: Gen::A7xx,
    scalar_alu: true,
};

/// The words of a captured program.
fn words(text: &str) -> Vec<u64> {
    (text.lines())
        .filter(|l| !l.starts_with(';') && !l.ends_with(':'))
        .map(|l| u64::from_str_radix(l.split_once(' ').expect("word, text").0, 16).unwrap())
        .collect()
}

fn captured(gen: Gen, text: &str) -> Vec<Instr> {
    program(&decode_program(gen, &words(text))).expect("every word decodes")
}

/// `struct ir3_driver_params_cs` of one workgroup in waves of 64.
fn params() -> Vec<u32> {
    let mut p = vec![0; 16];
    p[..3].copy_from_slice(&[1, 1, 1]);
    p[7] = 64;
    p[11] = 6;
    p
}

/// One workgroup of 64 writing `outputs` words to one storage buffer (descriptor 0): ids in
/// `r0.x` and `r48.x`; on a630 the driver params and `immediates` in the const file, on a750
/// the params in UBO 1 for the preamble.
fn dispatch(chip: Chip, outputs: usize, immediates: &[(u16, Vec<u32>)]) -> Dispatch {
    let mut consts = vec![None; 2048];
    let mut ubos = BTreeMap::new();
    if chip.gen == Gen::A7xx {
        ubos.insert(1, params());
    } else {
        for (k, &w) in params().iter().enumerate() {
            consts[k] = Some(w);
        }
        for (at, ws) in immediates {
            for (k, &w) in ws.iter().enumerate() {
                consts[*at as usize + k] = Some(w);
            }
        }
    }
    Dispatch {
        chip,
        wave: 64,
        local_size: 64,
        workgroups: 1,
        local_id: Some(Reg::Gpr { num: 0, comp: 0 }),
        workgroup_id: Some(Reg::Gpr { num: 48, comp: 0 }),
        consts,
        ubos,
        descriptors: BTreeMap::from([(0, Descriptor::Buffer(0))]),
        buffers: vec![vec![0; outputs]],
        images: Vec::new(),
        private_bytes: 1024,
    }
}

const IF_ELSE_A630: &str = include_str!("../../../../corpus/ir3/if_else_merge_phis_a630.words");
const IF_ELSE_A750: &str = include_str!("../../../../corpus/ir3/if_else_merge_phis_a750.words");

/// `if_else_merge_phis.ir`: odd invocations write `(id * 3, 1)`, even ones `(id + 100, 0)`,
/// for the five invocations that exist.
const IF_ELSE_ANSWER: [u32; 10] = [0x64, 0, 3, 1, 0x66, 0, 9, 1, 0x68, 0];

fn a630_immediates() -> Vec<(u16, Vec<u32>)> {
    parse_header(include_str!("../tests/if_else_merge_phis_a630.txt"))
        .unwrap()
        .immediates
}

#[test]
fn captured_a6xx_and_a7xx_code_computes_the_known_answers() {
    for (chip, text, imm) in [
        (A630, IF_ELSE_A630, a630_immediates()),
        (A750, IF_ELSE_A750, Vec::new()),
    ] {
        let code = captured(chip.gen, text);
        let ran = run(&code, &dispatch(chip, 10, &imm), 10_000, None).unwrap();
        assert_eq!(ran.stopped, None, "{:?}", chip.gen);
        assert_eq!(ran.buffers[0], IF_ELSE_ANSWER, "{:?}", chip.gen);
        assert_eq!(
            ran.hazards,
            [],
            "{:?}: ir3's code keeps ir3's rules",
            chip.gen
        );
        assert!(ran.issued > 10 && ran.cycles > 10, "{ran:?}");
    }
}

#[test]
fn a_missing_delay_or_sync_is_a_hazard_naming_the_pair_and_the_rule() {
    // a630: `(nop3) add.u r0.w, r48.x, r0.w` feeds the next `shl.b` through 3 slots.
    let mut code = captured(Gen::A6xx, IF_ELSE_A630);
    let add = (code.iter()).position(|i| i.name == "add.u").unwrap();
    assert_eq!(code[add].flags.nop, 3);
    code[add].flags.nop = 0;
    let ran = run(&code, &dispatch(A630, 10, &a630_immediates()), 10_000, None).unwrap();
    assert_eq!(
        ran.buffers[0], IF_ELSE_ANSWER,
        "values are the architectural ones"
    );
    let h = &ran.hazards[0];
    assert_eq!(
        (h.rule, h.reg.as_str(), h.producer, h.consumer),
        (Rule::Slots { needed: 3, had: 0 }, "r0.w", add, add + 1)
    );
    assert!(h.to_string().contains("ir3's rule needs 3"), "{h}");
    // a750: the vector `add.u r0.x, r48.x, r0.x` reads the scalar ALU's `r48.x` after (ss).
    let mut code = captured(Gen::A7xx, IF_ELSE_A750);
    let reader = (code.iter())
        .position(|i| i.name == "add.u" && i.flags.ss)
        .unwrap();
    code[reader].flags = Flags {
        ss: false,
        ..code[reader].flags
    };
    let ran = run(&code, &dispatch(A750, 10, &[]), 10_000, None).unwrap();
    let h = &ran.hazards[0];
    assert_eq!(
        (h.rule, h.reg.as_str(), h.consumer),
        (Rule::Ss, "r48.x", reader)
    );
    // The preamble's `(sy)(ss)shpe` orders the `ldc.k` before the const read after it.
    let mut code = captured(Gen::A7xx, IF_ELSE_A750);
    let shpe = (code.iter()).position(|i| i.name == "shpe").unwrap();
    code[shpe].flags.sy = false;
    let ran = run(&code, &dispatch(A750, 10, &[]), 10_000, None).unwrap();
    let rules: Vec<Rule> = ran.hazards.iter().map(|h| h.rule).collect();
    assert!(
        rules.contains(&Rule::Const { sy: true }),
        "{:?}",
        ran.hazards
    );
}

#[test]
fn the_tracer_follows_one_invocation_with_its_writes_and_stores() {
    let code = captured(Gen::A6xx, IF_ELSE_A630);
    let ran = run(
        &code,
        &dispatch(A630, 10, &a630_immediates()),
        10_000,
        Some(3),
    )
    .unwrap();
    let stores: Vec<&(String, u32)> = (ran.trace.iter())
        .flat_map(|t| &t.writes)
        .filter(|(place, _)| place.starts_with("t#"))
        .collect();
    assert_eq!(
        stores,
        [&("t#0[6]".to_string(), 9), &("t#0[7]".to_string(), 1)]
    );
    let cycles: Vec<u64> = ran.trace.iter().map(|t| t.cycle).collect();
    assert!(cycles.windows(2).all(|w| w[0] < w[1]), "{cycles:?}");
    // Invocation 5 does not exist: a wave of 5 live fibers out of 64 never runs it.
    let none = run_traced(&code, 5);
    assert!(none.is_empty());
}

fn run_traced(code: &[Instr], watch: u32) -> Vec<Traced> {
    (run(
        code,
        &dispatch(A630, 10, &a630_immediates()),
        10_000,
        Some(watch),
    )
    .unwrap())
    .trace
    .into_iter()
    .filter(|t| !t.writes.is_empty())
    .filter(|t| t.writes.iter().any(|(p, _)| p.starts_with("t#")))
    .collect()
}

#[test]
fn what_is_not_modelled_stops_the_run_by_name_and_budgets_hold() {
    let mut code = captured(Gen::A6xx, IF_ELSE_A630);
    let end = (code.iter()).position(|i| i.name == "end").unwrap();
    code[end].name = "sleep";
    code[end].body = Body::Sync(Sync::Sleep { long: false });
    let e = run(&code, &dispatch(A630, 10, &a630_immediates()), 10_000, None).unwrap_err();
    assert_eq!(e, Stop::Unsupported("sleep".into()));
    let code = captured(Gen::A6xx, IF_ELSE_A630);
    let short = run(&code, &dispatch(A630, 10, &a630_immediates()), 5, None).unwrap();
    assert_eq!(short.stopped, Some(Stop::Timeout));
    // A const the dispatch leaves empty is not read as zero.
    let e = run(&code, &dispatch(A630, 10, &[]), 10_000, None).unwrap_err();
    assert!(
        matches!(e, Stop::Unsupported(ref w) if w.contains("c4.x")),
        "{e}"
    );
}

/// The bit searches ir3 builds `find_lsb`/`ufind_msb`/`ifind_msb` from answer -1 when no bit
/// qualifies (ir3 selects clz's own result for a zero input), and otherwise count as their
/// names say.
#[test]
fn bit_searches_answer_minus_one_for_no_bit() {
    use super::alu::cat2;
    assert_eq!(cat2("clz.b", 0, 0), Some(u32::MAX));
    assert_eq!(cat2("clz.b", 1, 0), Some(31));
    assert_eq!(cat2("clz.s", 0, 0), Some(u32::MAX));
    assert_eq!(cat2("clz.s", u32::MAX, 0), Some(u32::MAX));
    assert_eq!(cat2("clz.s", 5, 0), Some(29), "31 - ifind_msb(5)");
    assert_eq!(
        cat2("clz.s", 0xffff_fff0, 0),
        Some(28),
        "31 - ifind_msb(-16)"
    );
    // find_lsb(0) = clz.b(bfrev.b(0)) = -1.
    let reversed = cat2("bfrev.b", 0, 0).unwrap();
    assert_eq!(cat2("clz.b", reversed, 0), Some(u32::MAX));
}
