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
        "--seed",
        "3",
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
