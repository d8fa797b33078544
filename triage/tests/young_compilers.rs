//! The compile-only targets of Mesa's young compilers — `turnip` (ir3), `nvk` (NAK), `asahi`
//! (AGX) — on Mesa 26.2.6's drivers over their shims (`scripts/mesa-sid.sh`; CI installs it):
//! one regression program compiles on every GPU each target draws, with every debug switch it
//! draws, and the driver reports its statistics. Without the root, each says what to run.

use fuzz::targets::driver::mesa;
use std::path::{Path, PathBuf};
use std::process::Command;
use vulkan_runner::client::unavailable;

const GPUFUZZ: &str = env!("CARGO_BIN_EXE_gpufuzz");

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

/// The newest installed Mesa with `target`'s environment file (whatever `--mesa` the suite
/// runs under: these drivers come only with the newest); `None`, saying so, when there is none.
fn mesa_with(target: &str) -> Option<String> {
    let cache = mesa::cache().ok()?;
    let found = (mesa::installed_in(&cache).into_iter())
        .find(|v| cache.join(format!("mesa-{v}/{target}.env")).is_file());
    if found.is_none() {
        unavailable(&format!("{target}.env (scripts/mesa-sid.sh)"));
    }
    found
}

/// `gpufuzz run --target T` of a regression program with `cases`; its output, which must
/// show a clean compile with the driver's `statistic`.
fn compiles(mesa: &str, target: &str, cases: &[String], statistic: &str) {
    let mut cmd = Command::new(GPUFUZZ);
    cmd.args(["run", "--target", target, "--mesa", mesa]);
    for c in cases {
        cmd.args(["--case", c]);
    }
    let o = cmd
        .arg(repo("corpus/regressions/nested_loop_break_continue.ir"))
        .output()
        .expect("gpufuzz runs");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{target} {cases:?}: {text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(text.contains(statistic), "{target} {cases:?}: {text}");
}

#[test]
fn turnip_compiles_on_every_adreno_it_draws_and_with_every_ir3_switch() {
    let Some(mesa) = mesa_with("turnip") else {
        return;
    };
    for gpu in ["630", "618", "660", "730", "740", "750"] {
        compiles(
            &mesa,
            "turnip",
            &[format!("turnip_gpu={gpu}")],
            "// Instruction Count:",
        );
    }
    let all = "spillall+nopreamble+noearlypreamble+nouboopt+nofp16+expandrpt+noaliastex+\
               nodescprefetch+fullsync+fullnop+asmroundtrip";
    compiles(
        &mesa,
        "turnip",
        &[format!("turnip_debug={all}")],
        "// Instruction Count:",
    );
}

/// ir3's words come out of turnip's pipeline cache and our decoder prints each as ir3 did, on
/// a6xx and a7xx, with spilling forced and without.
#[test]
fn turnip_shows_ir3s_words_and_our_decoder_agrees_with_every_line() {
    let Some(mesa) = mesa_with("turnip") else {
        return;
    };
    for gpu in ["630", "750"] {
        for debug in ["none", "spillall"] {
            let o = Command::new(GPUFUZZ)
                .args([
                    "run", "--target", "turnip", "--mesa", &mesa, "--emit", "asm",
                ])
                .args(["--case", &format!("turnip_gpu={gpu}")])
                .args(["--case", &format!("turnip_debug={debug}")])
                .arg(repo("corpus/regressions/txf_constant_zero_lod.ir"))
                .output()
                .expect("gpufuzz runs");
            let text = String::from_utf8_lossy(&o.stdout);
            assert!(o.status.success(), "{gpu} {debug}: {text}");
            let table = text
                .split_once("ours where it differs\n")
                .unwrap_or_else(|| panic!("{gpu} {debug}: no words: {text}"))
                .1;
            let rows: Vec<&str> = table.lines().take_while(|l| !l.starts_with("//")).collect();
            assert!(rows.len() > 30, "{gpu} {debug}: {table}");
            assert!(rows.iter().any(|r| r.ends_with("end")), "{table}");
            assert!(!table.contains("// ours:"), "{gpu} {debug}: {table}");
        }
    }
}

#[test]
fn nvk_compiles_on_every_chip_it_draws_and_with_every_nak_switch() {
    let Some(mesa) = mesa_with("nvk") else {
        return;
    };
    for chip in ["170", "120", "130", "140", "160", "190", "1b0"] {
        compiles(
            &mesa,
            "nvk",
            &[format!("nvk_chip={chip}")],
            "// Instruction count:",
        );
    }
    compiles(
        &mesa,
        "nvk",
        &["nvk_debug=serial+spill+nougpr".into()],
        "// Instruction count:",
    );
}

#[test]
fn asahi_compiles_with_each_agx_switch() {
    let Some(mesa) = mesa_with("asahi") else {
        return;
    };
    for switch in [
        "none",
        "noopt",
        "nopreamble",
        "demand",
        "nosched",
        "nopromote",
    ] {
        compiles(
            &mesa,
            "asahi",
            &[format!("asahi_debug={switch}")],
            "// Instructions:",
        );
    }
}

/// A knob value no driver table has is refused when read, naming the values.
#[test]
fn an_unknown_gpu_or_switch_is_refused_naming_the_known_ones() {
    let o = Command::new(GPUFUZZ)
        .args(["run", "--target", "middle", "--case", "turnip_gpu=999"])
        .arg(repo("corpus/regressions/nested_loop_break_continue.ir"))
        .output()
        .expect("gpufuzz runs");
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("630, 618, 660, 730, 740, 750"), "{err}");
}

/// `gpufuzz stats --target T` over generated programs with `config`: the programs' total of
/// `measurement`, every program recorded with every measurement the target names.
fn total(mesa: &str, target: &str, config: &[&str], measurement: &str) -> u64 {
    let out = std::env::temp_dir().join(format!(
        "gpufuzz-young-stats-{target}-{}-{}.json",
        config.join("-"),
        std::process::id()
    ));
    let mut cmd = Command::new(GPUFUZZ);
    cmd.env("GPUFUZZ_MESA", mesa).args([
        "stats",
        "--target",
        target,
        "--generate",
        "40",
        // A seed whose 40 programs the emitter takes whole (no cube textures).
        "--seed",
        "9",
    ]);
    for c in config {
        cmd.args(["--config", c]);
    }
    let o = cmd.arg("--out").arg(&out).output().expect("gpufuzz runs");
    assert!(
        o.status.success(),
        "{target} {config:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read_to_string(&out).expect("the stats file");
    let _ = std::fs::remove_file(&out);
    let file: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(file["failed"].as_array().map(Vec::len), Some(0), "{text}");
    let names: Vec<&str> = (file["measurements"].as_array().unwrap().iter())
        .map(|m| m.as_str().unwrap())
        .collect();
    assert!(names.contains(&measurement), "{names:?}");
    let programs = file["programs"].as_array().unwrap();
    assert_eq!(programs.len(), 40);
    programs
        .iter()
        .map(|p| {
            for n in &names {
                assert!(p["stats"][n].is_u64(), "{target}: {n} missing in {p}");
            }
            p["stats"][measurement].as_u64().unwrap()
        })
        .sum()
}

/// Each driver's statistics are recorded, and its spill switch shows in them: spills where
/// there were none.
#[test]
fn each_young_compiler_records_its_statistics_and_its_spill_switch_spills() {
    for (target, spill) in [
        ("turnip", "turnip_debug=spillall"),
        ("nvk", "nvk_debug=spill"),
        ("asahi", "asahi_debug=spill"),
    ] {
        let Some(mesa) = mesa_with(target) else {
            continue;
        };
        assert!(total(&mesa, target, &[], "instructions") > 0, "{target}");
        assert_eq!(total(&mesa, target, &[], "spills"), 0, "{target}");
        assert!(total(&mesa, target, &[spill], "spills") > 0, "{target}");
    }
}

/// `gpufuzz run X.ir --target turnip` with `cases`: its stdout and exit code.
fn turnip_run(mesa: &str, file: &str, cases: &[&str], extra: &[&str]) -> (String, Option<i32>) {
    let mut cmd = Command::new(GPUFUZZ);
    cmd.args(["run", "--target", "turnip", "--mesa", mesa])
        .args(extra);
    for c in cases {
        cmd.args(["--case", c]);
    }
    let o = cmd.arg(repo(file)).output().expect("gpufuzz runs");
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        o.status.code(),
    )
}

/// ir3's code for the hand-written programs with known answers runs on our executor, as
/// turnip dispatches it, and agrees with them — on a6xx and a7xx, with spilling forced and
/// without — keeping ir3's own delay and sync rules (the workgroup program's `ldl` result
/// read after an `(ss)`, `stl`, `fence` and a one-wave `bar`).
#[test]
fn turnip_runs_ir3s_code_for_programs_of_known_answer_and_they_agree() {
    let Some(mesa) = mesa_with("turnip") else {
        return;
    };
    for file in [
        "corpus/regressions/workgroup_neighbour.ir",
        "corpus/regressions/if_else_merge_phis.ir",
        "corpus/regressions/nested_loop_break_continue.ir",
        "corpus/regressions/trivial_backedge_phi.ir",
        "corpus/regressions/txf_constant_zero_lod.ir",
        "corpus/regressions/sized_ints.ir",
    ] {
        for gpu in ["turnip_gpu=630", "turnip_gpu=750"] {
            for debug in ["turnip_debug=none", "turnip_debug=spillall"] {
                let (text, code) = turnip_run(&mesa, file, &[gpu, debug], &[]);
                let at = format!("{file} {gpu} {debug}");
                assert_eq!(code, Some(0), "{at}: {text}");
                assert!(
                    text.contains("// ir3's code on our executor: agrees with the interpreter"),
                    "{at}: {text}"
                );
                assert!(!text.contains("// hazard:"), "{at}: {text}");
            }
        }
    }
}

/// NIR's wrong upper bound of a wrapping `imul` (`docs/found-bugs/nir-uub-imul-wrap.md`)
/// reaches ir3 too: its code stores the folded 1 where the product compares to 0, and the
/// tracer shows the store of the differing invocation.
#[test]
fn turnip_shows_nirs_imul_bound_bug_in_ir3s_code_and_traces_it() {
    let Some(mesa) = mesa_with("turnip") else {
        return;
    };
    let file = "docs/found-bugs/nir-uub-imul-wrap.ir";
    let (text, code) = turnip_run(&mesa, file, &["turnip_gpu=630"], &["--trace"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains(
            "differs from the interpreter: output slot 0 of invocation 7: expected 0x00000000, \
             got 0x00000001"
        ),
        "{text}"
    );
    let trace = text
        .split_once("-- trace of invocation 7")
        .expect("a trace")
        .1;
    assert!(
        trace
            .lines()
            .any(|l| l.contains("stib.b") && l.contains("t#0[7]=0x1")),
        "{trace}"
    );
}

/// A planted slip in our decoder shows in every ir3 build of a program, so the proof re-runs
/// blame us: the findings are `unconfirmed`, never ir3's `mismatch`.
#[test]
fn a_planted_decoder_slip_is_blamed_on_us_not_on_ir3() {
    let Some(mesa) = mesa_with("turnip") else {
        return;
    };
    let out = std::env::temp_dir().join(format!("gpufuzz-turnip-slip-{}", std::process::id()));
    let o = Command::new(GPUFUZZ)
        .args(["fuzz", "--target", "turnip", "--mesa", &mesa, "--seed", "3"])
        .args([
            "--runs",
            "40",
            "--jobs",
            "1",
            "--force",
            "--plant",
            "ir3-decoder-cmps-cond",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .expect("gpufuzz runs");
    let text = String::from_utf8_lossy(&o.stdout);
    let summary = std::fs::read_to_string(out.join("summary.json")).expect("a summary");
    let _ = std::fs::remove_dir_all(&out);
    assert!(summary.contains("unconfirmed:turnip"), "{text}");
    assert!(!summary.contains("\"mismatch:turnip"), "{text}");
}
