//! The `anv` target on Mesa's anv/brw over the drm-shim (`scripts/mesa.sh` prepares both; CI
//! runs it): every regression program and hand-written test program compiles on Skylake and on
//! the LSC platforms DG2 and Lunar Lake; on each, every instruction brw emitted — for those programs and for
//! generated ones with brw's spill switch — decodes and prints as brw's disassembler printed it;
//! `run --target anv --emit asm` shows the listing with the agreement; `stats --target anv`
//! records brw's own numbers; brw's Skylake, Tiger Lake and DG2 code runs on our executor and
//! agrees with the interpreter; the second Mesa (22.3.6) is another anv whose Skylake code runs
//! and agrees too, and the proof re-runs name its verdict; on Mesa 26.2.6 (`scripts/mesa-sid.sh`)
//! every regression program's code runs with 26's driver constants and agrees. Through the
//! gpufuzz binary, whose `vk-worker` the target runs.
//!
//! Without the environment file these tests fail under CI and print why they skip otherwise.

use fuzz::targets::anv::Install;
use std::path::{Path, PathBuf};
use std::process::Command;
use vulkan_runner::client::unavailable;

const GPUFUZZ: &str = env!("CARGO_BIN_EXE_gpufuzz");

fn have_anv() -> bool {
    match fuzz::targets::anv::environment() {
        Ok(_) => true,
        Err(why) => {
            unavailable(&format!("anv on drm-shim ({why})"));
            false
        }
    }
}

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

/// `gpufuzz stats --target anv` over `source` with `config`; the JSON it wrote.
fn stats(source: &[&str], config: &[&str], name: &str) -> serde_json::Value {
    stats_on(Install::Target, source, config, name)
}

/// [`stats`] with `mesa`'s anv as the target's.
fn stats_on(mesa: Install, source: &[&str], config: &[&str], name: &str) -> serde_json::Value {
    let out = std::env::temp_dir().join(format!("anv-{}-{name}.json", std::process::id()));
    let mut cmd = Command::new(GPUFUZZ);
    cmd.env("GPUFUZZ_ANV_ENV", mesa.environment_file().unwrap());
    cmd.args(["stats", "--target", "anv", "--out"]).arg(&out);
    cmd.args(source);
    for c in config {
        cmd.args(["--config", c]);
    }
    let o = cmd.output().expect("gpufuzz runs");
    assert!(
        o.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let json = std::fs::read_to_string(&out).expect("stats wrote its JSON");
    let _ = std::fs::remove_file(&out);
    serde_json::from_str(&json).expect("JSON")
}

/// Failures other than the emitter's documented refusals.
fn real_failures(v: &serde_json::Value) -> Vec<String> {
    v["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["error"].as_str().unwrap().to_string())
        .filter(|e| !e.contains("unsupported by the SPIR-V emitter"))
        .filter(|e| !e.contains("not on the anv target yet"))
        .collect()
}

/// Instructions in the listings: 8-byte compacted ones and 16-byte native ones.
fn listed(v: &serde_json::Value) -> u64 {
    let compacted = sum(v, "compacted");
    compacted + (sum(v, "bytes") - 8 * compacted) / 16
}

fn sum(v: &serde_json::Value, key: &str) -> u64 {
    v["programs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["stats"][key].as_u64().unwrap())
        .sum()
}

#[test]
fn regressions_and_test_programs_compile_on_skylake_dg2_and_lunar_lake_and_decode_exactly() {
    if !have_anv() {
        return;
    }
    let dirs = [repo("corpus/regressions"), repo("fuzz/tests/programs")];
    for dir in &dirs {
        let dir = dir.to_str().unwrap();
        for platform in ["skl", "dg2", "lnl"] {
            let v = stats(&[dir], &[&format!("anv_platform={platform}")], platform);
            assert_eq!(
                real_failures(&v),
                Vec::<String>::new(),
                "{dir} on {platform}"
            );
            let programs = v["programs"].as_array().unwrap().len();
            let files = compiler::ir::text::ir_files(Path::new(dir)).unwrap().len();
            assert_eq!(
                programs, files,
                "{dir} on {platform}: every program compiled"
            );
            assert!(sum(&v, "instructions") > 0);
            assert_eq!(sum(&v, "decoded"), listed(&v), "{dir} on {platform}");
        }
    }
}

#[test]
fn generated_programs_with_forced_spills_decode_exactly_on_skylake_and_dg2() {
    if !have_anv() {
        return;
    }
    for (platform, programs) in [("skl", 150), ("dg2", 100)] {
        let v = stats(
            &["--generate", &programs.to_string(), "--seed", "3"],
            &[
                "anv_debug=spill_fs+no16",
                &format!("anv_platform={platform}"),
            ],
            platform,
        );
        assert_eq!(real_failures(&v), Vec::<String>::new(), "{platform}");
        // Subgroup programs (about one in seven) are not on the anv target yet.
        assert!(v["programs"].as_array().unwrap().len() >= programs * 8 / 10);
        assert!(
            sum(&v, "spills") > 0,
            "spill_fs spilled nothing on {platform}"
        );
        assert_eq!(sum(&v, "decoded"), listed(&v), "{platform}");
        assert!(sum(&v, "compacted") > 0);
    }
}

#[test]
fn run_emit_asm_shows_the_listing_statistics_and_agreement() {
    if !have_anv() {
        return;
    }
    let file = repo("corpus/regressions/nested_loop_break_continue.ir");
    let o = Command::new(GPUFUZZ)
        .args(["run", "--target", "anv", "--emit", "asm"])
        .arg(&file)
        .args(["--case", "anv_debug=nocompact"])
        .output()
        .expect("gpufuzz runs");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(text.contains("INTEL_DEBUG=hex,nocompact"), "{text}");
    assert!(text.contains("while("), "{text}");
    assert!(text.contains("// Instruction Count:"), "{text}");
    assert!(text.contains("print as brw printed them"), "{text}");
    assert!(
        !text.contains(" compacted };"),
        "nocompact left compacted code: {text}"
    );
}

#[test]
fn brws_skylake_tiger_lake_and_dg2_code_for_every_test_program_runs_and_agrees_with_the_interpreter(
) {
    if !have_anv() {
        return;
    }
    let mut simd32 = 0;
    for dir in ["corpus/regressions", "fuzz/tests/programs"] {
        let dir = repo(dir);
        let files = compiler::ir::text::ir_files(&dir).unwrap().len() as u64;
        // SIMD16 (brw's choice at 64 invocations per workgroup), SIMD8 and SIMD32, with and
        // without brw's forced spills; on Tiger Lake and DG2 every instruction's scoreboard
        // annotation is checked too (a hazard would be a failure to run), and DG2's memory
        // goes through LSC messages.
        for platform in ["skl", "tgl", "dg2"] {
            for config in ["none", "spill_fs", "no16", "spill_fs+no16", "do32"] {
                let v = stats(
                    &[dir.to_str().unwrap()],
                    &[
                        &format!("anv_platform={platform}"),
                        &format!("anv_debug={config}"),
                    ],
                    &format!("run-{platform}-{config}"),
                );
                assert_eq!(
                    real_failures(&v),
                    Vec::<String>::new(),
                    "{platform} {config}"
                );
                assert_eq!(
                    sum(&v, "ran"),
                    files,
                    "{} {platform} {config}: {v}",
                    dir.display()
                );
                if config.contains("spill_fs") {
                    assert!(sum(&v, "spills") > 0, "{platform} {config} spilled nothing");
                }
                let programs = v["programs"].as_array().unwrap().iter();
                simd32 += programs.filter(|p| p["stats"]["simd"] == 32).count();
            }
        }
    }
    assert!(simd32 > 0, "do32 kept no SIMD32 anywhere");
}

#[test]
fn a_difference_every_build_and_our_backend_share_is_never_called_brws() {
    // A planted middle-end bug makes the program anv compiles wrong: brw compiles it
    // faithfully, so every brw build and our own Gen backend differ alike, and the finding
    // stays `unconfirmed`, listing each comparison. Without the plant the case passes.
    if !have_anv() {
        return;
    }
    let file = repo("corpus/regressions/trivial_backedge_phi.ir");
    let repro = |plant: &[&str]| {
        let o = Command::new(GPUFUZZ)
            .args(["repro", "--target", "anv", "--case", "anv_platform=skl"])
            .args(plant)
            .arg(&file)
            .output()
            .expect("gpufuzz runs");
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let planted = repro(&["--plant", "dce-loop-live-out"]);
    assert!(
        planted.contains("[anv] unconfirmed (mismatch)"),
        "{planted}"
    );
    assert!(planted.contains("not shown to be brw's"), "{planted}");
    assert_eq!(
        planted.matches("brw Mesa 25.0.7 INTEL_DEBUG=hex,").count(),
        2,
        "spill_fs and another width: {planted}"
    );
    // The same switches on the second Mesa: its anv compiled the program and its code ran.
    assert!(
        planted.contains("brw Mesa 22.3.6 INTEL_DEBUG=hex, SIMD16: differs (output slot"),
        "{planted}"
    );
    assert!(planted.contains("our gen16: differs"), "{planted}");
    let clean = repro(&[]);
    assert!(clean.trim_end().ends_with("pass"), "{clean}");
}

/// Whether the second Mesa's environment (`scripts/mesa.sh`) is there; fails under CI.
fn have_second_mesa() -> bool {
    match Install::Second.environment() {
        Ok(_) => true,
        Err(why) => {
            unavailable(&format!("the second Mesa's anv ({why})"));
            false
        }
    }
}

#[test]
fn the_second_mesa_is_another_anv_and_its_skylake_code_runs_and_agrees_too() {
    // The driver itself says which Mesa compiled: the target's 25.0.7 and the second 22.3.6.
    // Its listings decode, its push constants and binding table are laid out as 22.3 lays
    // them out, and every regression program's code runs on our executor and agrees.
    if !have_anv() || !have_second_mesa() {
        return;
    }
    let device = |mesa: Install| {
        let o = Command::new(GPUFUZZ)
            .env("GPUFUZZ_ANV_ENV", mesa.environment_file().unwrap())
            .args([
                "run",
                "--target",
                "anv",
                "--emit",
                "asm",
                "--case",
                "anv_platform=skl",
            ])
            .arg(repo("corpus/regressions/trivial_backedge_phi.ir"))
            .output()
            .expect("gpufuzz runs");
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(o.status.success(), "{text}");
        let line = text.lines().find(|l| l.starts_with("// device:"));
        line.expect("a device line").to_string()
    };
    assert!(device(Install::Target).contains("Mesa 25.0.7"));
    assert!(device(Install::Second).contains("Mesa 22.3.6]"));
    let dir = repo("corpus/regressions");
    let files = compiler::ir::text::ir_files(&dir).unwrap().len() as u64;
    for config in ["none", "spill_fs+no16"] {
        let v = stats_on(
            Install::Second,
            &[dir.to_str().unwrap()],
            &["anv_platform=skl", &format!("anv_debug={config}")],
            &format!("second-{config}"),
        );
        assert_eq!(real_failures(&v), Vec::<String>::new(), "{config}");
        assert_eq!(listed(&v), sum(&v, "decoded"), "{config}: {v}");
        assert_eq!(sum(&v, "ran"), files, "{config}: {v}");
    }
}

#[test]
fn without_the_second_mesa_the_finding_says_it_was_not_run_and_what_to_run() {
    if !have_anv() {
        return;
    }
    let o = Command::new(GPUFUZZ)
        .env("GPUFUZZ_ANV_SECOND_ENV", "/nonexistent/anv.env")
        .args(["repro", "--target", "anv", "--case", "anv_platform=skl"])
        .args(["--plant", "dce-loop-live-out"])
        .arg(repo("corpus/regressions/trivial_backedge_phi.ir"))
        .output()
        .expect("gpufuzz runs");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("brw Mesa 22.3.6 INTEL_DEBUG=hex: not run (Mesa 22.3.6 not installed: /nonexistent/anv.env: "),
        "{text}"
    );
    assert!(
        text.contains("scripts/mesa.sh (25.0.7 and 22.3.6)"),
        "{text}"
    );
}

/// Whether Mesa `version` is installed (`scripts/mesa-sid.sh` 26.2.6, `scripts/mesa.sh`
/// 25.0.7); fails under CI.
fn have_mesa(version: &str) -> bool {
    let installed = fuzz::targets::driver::mesa::cache()
        .map(|c| fuzz::targets::driver::mesa::installed_in(&c))
        .unwrap_or_default();
    let there = installed.iter().any(|i| i == version);
    if !there {
        unavailable(&format!("Mesa {version} (installed: {installed:?})"));
    }
    there
}

/// Whether Mesa 26.2.6 is installed (`scripts/mesa-sid.sh`); fails under CI.
fn have_mesa_26() -> bool {
    have_mesa("26.2.6")
}

#[test]
fn brw_26s_code_for_every_regression_program_runs_with_anv_26s_driver_constants_and_agrees() {
    // Mesa 26 pushes only the driver dwords the shader reads: on skl and tgl 64 bytes from 576
    // (base workgroup id in g1.2, subgroup id in g2.1), on dg2 and mtl the base workgroup id
    // as the inline parameter after the local ids (`push.rs`). Every width, and on skl and
    // tgl brw's forced spills (on dg2 and mtl brw 26's spill code uses an integer `mad` our
    // executor does not model).
    if !have_mesa_26() {
        return;
    }
    let o = Command::new(GPUFUZZ)
        .env_remove("GPUFUZZ_ANV_ENV")
        .env("GPUFUZZ_MESA", "26.2.6")
        .args(["run", "--target", "anv", "--emit", "asm"])
        .args(["--case", "anv_platform=skl"])
        .arg(repo("corpus/regressions/nested_loop_break_continue.ir"))
        .output()
        .expect("gpufuzz runs");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{text}");
    assert!(
        text.contains("Mesa 26.2.6"),
        "the driver is 26.2.6's: {text}"
    );
    let dir = repo("corpus/regressions");
    let files = compiler::ir::text::ir_files(&dir).unwrap().len() as u64;
    for platform in ["skl", "tgl", "dg2", "mtl"] {
        let mut configs = vec!["none", "cs8", "cs16", "cs32"];
        if matches!(platform, "skl" | "tgl") {
            configs.push("spill_fs+cs16");
        }
        for config in configs {
            let out = std::env::temp_dir().join(format!(
                "anv26-{}-{platform}-{config}.json",
                std::process::id()
            ));
            let o = Command::new(GPUFUZZ)
                .env_remove("GPUFUZZ_ANV_ENV")
                .env("GPUFUZZ_MESA", "26.2.6")
                .args(["stats", "--target", "anv", "--out"])
                .arg(&out)
                .arg(&dir)
                .args(["--config", &format!("anv_platform={platform}")])
                .args(["--config", &format!("anv_debug={config}")])
                .output()
                .expect("gpufuzz runs");
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
            let _ = std::fs::remove_file(&out);
            assert_eq!(
                real_failures(&v),
                Vec::<String>::new(),
                "{platform} {config}"
            );
            assert_eq!(listed(&v), sum(&v, "decoded"), "{platform} {config}: {v}");
            assert_eq!(sum(&v, "ran"), files, "{platform} {config}: {v}");
            if config.contains("spill_fs") {
                assert!(sum(&v, "spills") > 0, "{platform} {config} spilled nothing");
            }
        }
    }
}

/// `repro FILE --target anv` with `GPUFUZZ_MESA` = `mesa`: its stdout.
fn repro_on(mesa: &str, file: &str) -> String {
    let o = Command::new(GPUFUZZ)
        .env_remove("GPUFUZZ_ANV_ENV")
        .env("GPUFUZZ_MESA", mesa)
        .args(["repro", "--target", "anv"])
        .arg(repo(file))
        .output()
        .expect("gpufuzz runs");
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn nirs_upper_bound_of_a_wrapping_imul_is_a_miscompile_of_26_2_6_and_not_25_0_7() {
    // docs/found-bugs/nir-uub-imul-wrap.md: brw 26's code stores 1 where the product wraps;
    // 25.0.7's multiplies and compares, and runs right on the same executor.
    if !have_mesa_26() || !have_mesa("25.0.7") {
        return;
    }
    a_miscompile_of_26_2_6_only(
        "docs/found-bugs/nir-uub-imul-wrap.ir",
        "output slot 0 of invocation 7: expected 0x00000000, got 0x00000001",
    );
}

#[test]
fn a_clamped_bit_field_count_is_dropped_by_26_2_6_and_kept_by_25_0_7() {
    // docs/found-bugs/nir-ubfe-clamped-count.md: brw 26's bfe takes the unclamped count
    // (33, read as 1) and stores 0 where bits 1..31 of 33 are 16; 25.0.7's takes the clamp.
    if !have_mesa_26() || !have_mesa("25.0.7") {
        return;
    }
    // The insert's bfm loses the clamp the same way (0x21 for 0xffffffbd).
    for (file, differs) in [
        (
            "docs/found-bugs/nir-ubfe-clamped-count.ir",
            "output slot 0 of invocation 33: expected 0x00000010, got 0x00000000",
        ),
        (
            "docs/found-bugs/nir-ubfe-clamped-count-insert.ir",
            "output slot 0 of invocation 33: expected 0xffffffbd, got 0x00000021",
        ),
    ] {
        a_miscompile_of_26_2_6_only(file, differs);
    }
}

#[test]
fn brw_26s_shared_memory_code_runs_on_every_executed_platform_and_agrees() {
    // Surface 254 of the untyped messages on skl and tgl, the LSC's SLM port on dg2 and mtl:
    // each workgroup gets its own shared local memory, sized by brw's statistic.
    if !have_mesa_26() {
        return;
    }
    for platform in ["skl", "tgl", "dg2", "mtl"] {
        let o = Command::new(GPUFUZZ)
            .env_remove("GPUFUZZ_ANV_ENV")
            .env("GPUFUZZ_MESA", "26.2.6")
            .args(["repro", "--target", "anv", "--case"])
            .arg(format!("anv_platform={platform}"))
            .arg(repo("corpus/regressions/workgroup_neighbour.ir"))
            .output()
            .expect("gpufuzz runs");
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            text.trim_end().ends_with("pass") && !text.contains("skipped"),
            "{platform}: {text}"
        );
    }
}

#[test]
fn a_loop_the_local_index_can_leave_is_folded_to_one_pass_by_26_2_6_and_not_25_0_7() {
    // docs/found-bugs/nir-loop-exit-local-index.md: invocation 0 leaves only when its counter
    // reaches its buffer word, and 26.2.6's NIR stores the first pass's compare instead.
    if !have_mesa_26() || !have_mesa("25.0.7") {
        return;
    }
    a_miscompile_of_26_2_6_only(
        "docs/found-bugs/nir-loop-exit-local-index.ir",
        "output slot 0 of invocation 0: expected 0x00000001, got 0x00000000",
    );
}

/// `file` is a brw miscompile on 26.2.6 that shows as `differs`, and passes on 25.0.7.
fn a_miscompile_of_26_2_6_only(file: &str, differs: &str) {
    let on_26 = repro_on("26.2.6", file);
    assert!(on_26.contains(differs), "{file}: {on_26}");
    assert!(
        on_26.contains("signature: mismatch:anv:mismatch"),
        "{file}: {on_26}"
    );
    let on_25 = repro_on("25.0.7", file);
    assert!(on_25.trim_end().ends_with("pass"), "{file}: {on_25}");
}
