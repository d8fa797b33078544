//! Every texture shape (`texture_common::shapes`): the interpreter gives the known answer, the
//! text round-trips, and the Gen (gen7/gen9 × SIMD8/16) and a6xx backends agree with the
//! interpreter.

mod a6xx_common;
mod gen_common;
mod texture_common;

use compiler::interp::{self, RunOptions};
use compiler::ir::{parse_program, print_program, verify};
use texture_common::{expected, program, shapes, INVOCATIONS};

#[test]
fn interpreter_gives_the_known_answers() {
    for s in shapes() {
        let text = program(&s);
        let p =
            parse_program(&text, "shape.ir").unwrap_or_else(|e| panic!("{}: {e}\n{text}", s.name));
        verify(&p).unwrap_or_else(|e| panic!("{}: {e:?}\n{text}", s.name));
        let printed = print_program(&p);
        let again = parse_program(&printed, "again.ir").expect("printed text parses");
        assert_eq!(
            print_program(&again),
            printed,
            "{}: text round trip",
            s.name
        );
        assert_eq!(again, p, "{}: same program after the round trip", s.name);
        let r = interp::run(&p, &RunOptions::default()).expect("runs");
        let n = s.used as usize;
        for id in 0..INVOCATIONS {
            let got = &r.outputs[id as usize * n..][..n];
            assert_eq!(got, &expected(&s, id)[..], "{} invocation {id}", s.name);
        }
    }
}

#[test]
fn verifier_rejects_shapes_no_target_has() {
    let head = "invocations 1\noutputs 4\ntexture 4x4 levels 1 layers 1\n\nblock_0:\n  vec1 32 ssa_0 = load_const (0x00000000)\n  vec2 32 ssa_1 = vec2 ssa_0, ssa_0\n  vec3 32 ssa_2 = vec3 ssa_0, ssa_0, ssa_0\n";
    for (line, why) in [
        ("txf 0, ssa_1, compare ssa_0", "txf with a compare"),
        ("txf 0, ssa_2, dim cube", "txf of a cube"),
        ("tex 0, ssa_2, dim 3d, layer ssa_0", "a layer on a 3D"),
        (
            "tex 0, ssa_2, dim cube, offset (1, 0, 0)",
            "offsets on a cube",
        ),
        (
            "tex 0, ssa_1, lod ssa_0, ddx ssa_1, ddy ssa_1",
            "gradients with a lod",
        ),
        ("tex 0, ssa_1, ddx ssa_1", "ddx without ddy"),
        ("tex 0, ssa_2, dim 3d, gather 1", "gather of a 1D or 3D"),
        ("tex 0, ssa_2, dim 3d, compare ssa_0", "compare on a 3D"),
        ("txs 0, layer ssa_0", "txs takes only"),
    ] {
        let text = format!("{head}  vec4 32 ssa_3 = {line}\n  store_output 0, ssa_3\n");
        let p = parse_program(&text, "bad.ir").unwrap_or_else(|e| panic!("{line}: {e}"));
        let e = verify(&p).expect_err(line);
        assert!(format!("{e:?}").contains(why), "{line}: {e:?}");
    }
    let text = format!("{head}  vec4 32 ssa_3 = tex 0, ssa_1, offset (8, 0)\n");
    assert!(
        parse_program(&text, "bad.ir").is_err(),
        "offset 8 is out of range"
    );
}

#[test]
fn gen_agrees_with_the_interpreter() {
    for s in shapes() {
        let p = gen_common::parse(&program(&s));
        for o in gen_common::grid(40) {
            if let gen_common::Outcome::Bad(why) = gen_common::run(&p, &o) {
                panic!("{} {o:?}: {why}", s.name);
            }
        }
    }
}

/// Writes every shape program to `$TEXTURE_SHAPES_DIR` (for looking at the code by hand).
#[test]
fn dump_programs_when_asked() {
    if let Some(dir) = std::env::var_os("TEXTURE_SHAPES_DIR") {
        for s in shapes() {
            std::fs::write(
                std::path::Path::new(&dir).join(format!("{}.ir", s.name)),
                program(&s),
            )
            .expect("write");
        }
    }
}

#[test]
fn a6xx_agrees_with_the_interpreter() {
    for s in shapes() {
        let p = a6xx_common::parse(&program(&s));
        let mut ran = 0;
        for o in a6xx_common::grid() {
            ran += a6xx_common::agree(&p, &o).is_some() as u32;
        }
        assert!(ran > 0, "{}: no budget of the grid compiles it", s.name);
    }
}

#[test]
fn gen7_messages_match_the_docs_table() {
    gen_messages_match_the_docs_table(sim::gen::Gen::Gen7);
}

#[test]
fn gen9_messages_match_the_docs_table() {
    gen_messages_match_the_docs_table(sim::gen::Gen::Gen9);
}

/// Each shape's Gen message per width: name, mlen, rlen, header — checked against the table
/// of `docs/textures.md` (read from the file).
fn gen_messages_match_the_docs_table(gen: sim::gen::Gen) {
    use compiler::gen::{compile, Options};
    use sim::gen::{ExecSize, Gen, Message, Op};
    let mut got = Vec::new();
    let g = if gen == Gen::Gen7 { 7 } else { 9 };
    for s in shapes() {
        let p = gen_common::parse(&program(&s));
        {
            for width in [ExecSize::S8, ExecSize::S16] {
                let o = Options {
                    width,
                    gen,
                    opt_zero_samples: false,
                    ..Options::default()
                };
                let c = compile(&p, &o).expect("compiles");
                let sends: Vec<String> = c
                    .program
                    .insts
                    .iter()
                    .filter_map(|i| match i.op {
                        Op::Send(d) => match d.msg {
                            Message::Sampler { op, .. } => Some(format!(
                                "{} {} {}{}",
                                op.name(),
                                d.mlen,
                                d.rlen,
                                if d.header { " h" } else { "" }
                            )),
                            _ => None,
                        },
                        _ => None,
                    })
                    .collect();
                let w = if width == ExecSize::S8 { 8 } else { 16 };
                got.push(format!("{} gen{g} simd{w}: {}", s.name, sends.join(", ")));
            }
        }
    }
    let want: Vec<String> = docs_table()
        .into_iter()
        .filter(|s| s.contains(&format!(" gen{g} ")))
        .collect();
    if got != want {
        panic!(
            "got:\n{}\nthe docs say:\n{}",
            got.join("\n"),
            want.join("\n")
        );
    }
}

/// The shape table of `docs/textures.md` as `name genG simdW: message mlen rlen[ h]` rows:
/// its columns are Gen7 SIMD8, Gen7 SIMD16, Gen9 SIMD8, Gen9 SIMD16, its cells
/// `` `message` mlen/rlen[ H] ``.
fn docs_table() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/textures.md");
    let text = std::fs::read_to_string(path).expect("docs/textures.md");
    let names: Vec<&str> = shapes().iter().map(|s| s.name).collect();
    let mut rows = Vec::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // "", name, four cells, ""
        let Some(name) = cells.get(1).map(|c| c.trim_matches('`')) else {
            continue;
        };
        if cells.len() != 7 || !names.contains(&name) {
            continue;
        }
        for (k, (g, w)) in [(7, 8), (7, 16), (9, 8), (9, 16)].into_iter().enumerate() {
            let cell = cells[2 + k];
            let (msg, rest) = cell
                .trim_start_matches('`')
                .split_once("` ")
                .expect("a cell");
            let mut parts = rest.split_whitespace();
            let (mlen, rlen) = parts
                .next()
                .and_then(|l| l.split_once('/'))
                .expect("mlen/rlen");
            let h = if parts.next() == Some("H") { " h" } else { "" };
            rows.push(format!("{name} gen{g} simd{w}: {msg} {mlen} {rlen}{h}"));
        }
    }
    // Rows in the order of `shapes()`, one generation after the other per shape.
    let mut ordered = Vec::new();
    for n in &names {
        for g in [7, 9] {
            ordered.extend(
                rows.iter()
                    .filter(|r| r.starts_with(&format!("{n} gen{g} ")))
                    .cloned(),
            );
        }
    }
    ordered
}

/// Every shape program and the wide-payload floor programs (one sharing a header-carrying
/// payload between two messages across the pressure) compile, spill and run
/// correctly at their own register floor (`compiler::gen::register_floor`, doubled at SIMD16
/// by `gen_common::grid`), and the wide ones need more than `MIN_GRFS`.
#[test]
fn gen_programs_fit_their_register_floor() {
    use compiler::gen::{register_floor, MIN_GRFS};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/gen_programs/");
    let mut programs: Vec<(String, compiler::ir::Program)> = shapes()
        .iter()
        .map(|s| (s.name.to_string(), gen_common::parse(&program(s))))
        .collect();
    for name in [
        "floor_compare_offset",
        "floor_gradients",
        "shared_header_payload",
    ] {
        let src = std::fs::read_to_string(format!("{dir}{name}.ir")).expect("program");
        let p = gen_common::parse(&src);
        assert!(register_floor(&p) > MIN_GRFS, "{name}");
        programs.push((name.to_string(), p));
    }
    for (name, p) in &programs {
        let floor = register_floor(p);
        for o in gen_common::grid(floor) {
            if let gen_common::Outcome::Bad(why) = gen_common::run(p, &o) {
                panic!("{name} at its floor {floor}, {o:?}: {why}");
            }
        }
    }
}

/// `opt_zero_samples` on the new layouts: trailing constant-zero gradients, layers and
/// coordinates are trimmed (the header stays, the reference is never reached), and the
/// trimmed messages still agree with the interpreter.
#[test]
fn zero_samples_trims_the_new_layouts_correctly() {
    use compiler::gen::{compile, Options};
    use sim::gen::{ExecSize, Gen};
    let src = "invocations 19\noutputs 12\ntexture 8x4 levels 3 layers 2\n\nblock_0:\n  \
        vec1 32 ssa_0 = load_invocation_id\n  vec1 32 ssa_1 = u2f ssa_0\n  \
        vec1 32 ssa_2 = load_const (0x3e000000)\n  vec1 32 ssa_3 = fmul ssa_1, ssa_2\n  \
        vec1 32 ssa_4 = load_const (0x00000000)\n  vec3 32 ssa_5 = vec3 ssa_3, ssa_3, ssa_3\n  \
        vec3 32 ssa_6 = vec3 ssa_2, ssa_3, ssa_4\n  vec3 32 ssa_7 = vec3 ssa_3, ssa_2, ssa_4\n  \
        vec4 32 ssa_8 = tex 0, ssa_5, dim 3d, ddx ssa_6, ddy ssa_7\n  store_output 0, ssa_8\n  \
        vec2 32 ssa_9 = vec2 ssa_3, ssa_2\n  \
        vec4 32 ssa_10 = tex 0, ssa_9, layer ssa_4, compare ssa_3, offset (1, 2)\n  \
        store_output 4, ssa_10\n  \
        vec4 32 ssa_11 = tex 0, ssa_9, layer ssa_4, gather 1\n  store_output 8, ssa_11\n";
    let p = gen_common::parse(src);
    for gen in [Gen::Gen7, Gen::Gen9] {
        let o = Options {
            width: ExecSize::S8,
            gen,
            opt_zero_samples: true,
            ..Options::default()
        };
        let c = compile(&p, &o).expect("compiles");
        // sample_d's drdy, sample_c's layer (after the header), gather4's layer.
        assert_eq!(c.stats.trimmed_sends, 3, "{gen:?}\n{}", c.program);
    }
    for o in gen_common::grid(40) {
        if let gen_common::Outcome::Bad(why) = gen_common::run(&p, &o) {
            panic!("{o:?}: {why}");
        }
    }
}
