//! The `radv` target on Mesa 25.0.7's radv/ACO over the amdgpu drm-shim
//! (`scripts/mesa-backports.sh` prepares both; CI runs it): every regression program compiles
//! with ACO's validators quiet on three GPU generations (GFX9 Vega 10, GFX10.3 Navi 21 at both
//! wave sizes, GFX11 Navi 31), `stats --target radv` records the driver's numbers, and a test
//! program that ACO 25.0.7's IR validator rejects on GFX9 is reported as that finding.
//! The found bug in `docs/found-bugs/radv-sigsegv-shift-compare.md` crashes 25.0.7 and not
//! Debian bookworm's 22.3.6 (scripts/mesa.sh writes its `radv.env`).
//! Through the gpufuzz binary, whose `vk-worker` the target runs.
//!
//! Without the environment file these tests fail under CI and print why they skip otherwise.

use std::path::{Path, PathBuf};
use std::process::Command;
use vulkan_runner::client::unavailable;

const GPUFUZZ: &str = env!("CARGO_BIN_EXE_gpufuzz");

fn have_radv() -> bool {
    match fuzz::targets::radv::shim_gpus() {
        Ok(_) => true,
        Err(why) => {
            unavailable(&format!("radv on drm-shim ({why})"));
            false
        }
    }
}

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

/// The Mesa whose radv a version-specific test asks for (`--mesa 25.0.7`), unless the
/// environment names radv's own file (CI's main pass: `GPUFUZZ_RADV_ENV`, 25.0.7's).
fn pinned_to_25(cmd: &mut Command) -> &mut Command {
    if std::env::var_os("GPUFUZZ_RADV_ENV").is_none() {
        cmd.env("GPUFUZZ_MESA", "25.0.7");
    }
    cmd
}

/// `gpufuzz stats --target radv` over `source` with `config`; the JSON it wrote.
fn stats(source: &[&str], config: &[&str], name: &str) -> serde_json::Value {
    stats_with(source, config, name, |c| c)
}

/// [`stats`], the command first given to `adjust`.
fn stats_with(
    source: &[&str],
    config: &[&str],
    name: &str,
    adjust: impl FnOnce(&mut Command) -> &mut Command,
) -> serde_json::Value {
    let out = std::env::temp_dir().join(format!("radv-{}-{name}.json", std::process::id()));
    let mut cmd = Command::new(GPUFUZZ);
    adjust(&mut cmd);
    cmd.args(["stats", "--target", "radv", "--out"]).arg(&out);
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

fn column(v: &serde_json::Value, key: &str) -> Vec<u64> {
    v["programs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["stats"][key].as_u64().unwrap())
        .collect()
}

#[test]
fn regressions_compile_cleanly_on_three_gpu_generations_and_both_wave_sizes() {
    if !have_radv() {
        return;
    }
    let dir = repo("corpus/regressions");
    let dir = dir.to_str().unwrap();
    let files = compiler::ir::text::ir_files(Path::new(dir)).unwrap().len();
    for (gpu, wave) in [
        ("vega10", 64),
        ("navi21", 32),
        ("navi21", 64),
        ("navi31", 32),
    ] {
        let config = [format!("radv_gpu={gpu}"), format!("radv_wave={wave}")];
        let config: Vec<&str> = config.iter().map(String::as_str).collect();
        let v = stats(&[dir], &config, &format!("{gpu}-{wave}"));
        assert_eq!(v["failed"].as_array().unwrap().len(), 0, "{gpu}: {v}");
        assert_eq!(v["programs"].as_array().unwrap().len(), files, "{gpu}");
        assert!(column(&v, "instructions").iter().all(|&n| n > 0), "{gpu}");
        assert!(column(&v, "vgprs").iter().all(|&n| n > 0), "{gpu}");
        // GFX9 has only wave64; GFX10 and later run what was asked, except that a workgroup
        // of at most 32 invocations runs in wave32 (`radv_get_wave_size`,
        // `amd/vulkan/radv_shader_info.c:1060`: the workgroup regression's 4).
        let expect = if gpu == "vega10" { 64 } else { wave };
        for p in v["programs"].as_array().unwrap() {
            let small = p["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("workgroup"));
            let want = if small && gpu != "vega10" { 32 } else { expect };
            assert_eq!(p["stats"]["wave"].as_u64(), Some(want), "{gpu}: {p}");
        }
    }
}

#[test]
fn aco_25_0_7s_ir_validator_rejects_a_test_program_on_gfx9() {
    if !have_radv() {
        return;
    }
    // Known answer: ACO 25.0.7 gives `seed1_input10502.ir`'s `v_cndmask_b32` two scalar
    // operands on Vega 10 (one is all GFX9's constant bus takes) and its IR validator says
    // so; the folder's other program compiles cleanly.
    let dir = repo("fuzz/tests/programs");
    let dir = dir.to_str().unwrap();
    let v = stats_with(&[dir], &["radv_gpu=vega10"], "known", pinned_to_25);
    let failed = v["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{v}");
    assert_eq!(failed[0]["name"], "seed1_input10502", "{v}");
    let error = failed[0]["error"].as_str().unwrap();
    assert!(
        error.contains("ACO's validator") && error.contains("Too many SGPRs/literals"),
        "{error}"
    );
    assert!(error.contains("v_cndmask_b32"), "{error}");
    // The known-bug rule names it (GFX9, that message, that instruction).
    assert!(error.contains("known: ACO's"), "{error}");
    // The same program is fine on RDNA2, whose constant bus takes two.
    let v = stats_with(&[dir], &["radv_gpu=navi21"], "known-navi21", pinned_to_25);
    assert_eq!(v["failed"].as_array().unwrap().len(), 0, "{v}");
    // So is the reduced write-up's program: the known bug on GFX6-9 only.
    // (`stats` reads folders: the write-up's program alone in one.)
    let reduced = std::env::temp_dir().join(format!("radv-reduced-{}", std::process::id()));
    std::fs::create_dir_all(&reduced).unwrap();
    let file = "aco-gfx9-cndmask-two-sgprs.ir";
    std::fs::copy(repo("docs/found-bugs").join(file), reduced.join(file)).unwrap();
    let reduced = reduced.to_str().unwrap();
    for (gpu, fails) in [("pitcairn", true), ("raven", true), ("navi10", false)] {
        let v = stats_with(&[reduced], &[&format!("radv_gpu={gpu}")], gpu, pinned_to_25);
        let failed = v["failed"].as_array().unwrap();
        assert_eq!(failed.len(), usize::from(fails), "{gpu}: {v}");
        if fails {
            let error = failed[0]["error"].as_str().unwrap();
            assert!(error.contains("known: ACO's"), "{gpu}: {error}");
        }
    }
}

#[test]
fn run_emit_asm_shows_aco_ir_statistics_and_the_gpu() {
    if !have_radv() {
        return;
    }
    let file = repo("corpus/regressions/nested_loop_break_continue.ir");
    let o = Command::new(GPUFUZZ)
        .args(["run", "--target", "radv", "--emit", "asm"])
        .arg(&file)
        .args(["--case", "radv_gpu=navi31", "--case", "radv_wave=32"])
        .output()
        .expect("gpufuzz runs");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(text.contains("RADV NAVI31"), "{text}");
    assert!(text.contains("(subgroup size 32)"), "{text}");
    assert!(text.contains("// VGPRs:"), "{text}");
    assert!(text.contains("s_endpgm"), "{text}");
}

#[test]
fn the_shift_compare_crash_is_radv_25s_and_not_22_3_6s() {
    // docs/found-bugs/radv-sigsegv-shift-compare.md: Mesa 25.0.7's radv segfaults creating the
    // pipeline, Debian bookworm's 22.3.6 (`mesa-22.3.6/radv.env`, scripts/mesa.sh) compiles it.
    if !have_radv() {
        return;
    }
    let second = fuzz::targets::anv::Install::Second
        .environment_file()
        .unwrap()
        .with_file_name("radv.env");
    if !second.is_file() {
        unavailable(&format!("{} (run scripts/mesa.sh)", second.display()));
        return;
    }
    let repro = |env: Option<&Path>| {
        let mut cmd = Command::new(GPUFUZZ);
        match env {
            Some(env) => cmd.env("GPUFUZZ_RADV_ENV", env),
            None => pinned_to_25(&mut cmd),
        };
        cmd.args(["repro", "--target", "radv", "--case", "radv_gpu=navi21"])
            .arg(repo("docs/found-bugs/radv-sigsegv-shift-compare.ir"));
        let o = cmd.output().expect("gpufuzz runs");
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let on_25 = repro(None);
    // Bucketed by where it crashes, from gdb (the whole stack in the detail).
    assert!(
        on_25.contains("crash:radv:worker SIGSEGV at libvulkan_radeon.so+0x"),
        "{on_25}"
    );
    assert!(
        on_25.contains("under gdb: SIGSEGV\n  #0 libvulkan_radeon.so+0x"),
        "{on_25}"
    );
    let on_22 = repro(Some(&second));
    assert!(on_22.trim_end().ends_with("pass"), "{on_22}");
}

#[test]
fn also_mesa_says_the_shift_compare_crash_is_gone_in_26_2_6() {
    let installed = fuzz::targets::driver::mesa::cache()
        .map(|c| fuzz::targets::driver::mesa::installed_in(&c))
        .unwrap_or_default();
    if !["25.0.7", "26.2.6"]
        .iter()
        .all(|v| installed.iter().any(|i| i == v))
    {
        return unavailable(&format!(
            "Mesa 25.0.7 and 26.2.6 (scripts/mesa-backports.sh, scripts/mesa-sid.sh; installed: {installed:?})"
        ));
    }
    let file = repo("docs/found-bugs/radv-sigsegv-shift-compare.ir");
    let o = Command::new(GPUFUZZ)
        .arg("repro")
        .arg(&file)
        .args(["--target", "radv", "--mesa", "25.0.7"])
        .args(["--also-mesa", "26.2.6", "--also-mesa", "25.0.7"])
        .env_remove("GPUFUZZ_RADV_ENV")
        .output()
        .expect("gpufuzz runs");
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(
        text.contains("signature: crash:radv:worker SIGSEGV at libvulkan_radeon.so+0x"),
        "{text}"
    );
    assert!(text.contains("gone in Mesa 26.2.6"), "{text}");
    assert!(text.contains("still in Mesa 25.0.7"), "{text}");
}

#[test]
fn the_module_radv_compiles_is_its_standalone_repro() {
    // What a radv finding's report keeps beside the program (`<stem>.spvasm`), and what
    // `run --emit spvasm` prints: the module the worker's device was given, valid SPIR-V.
    if !have_radv() {
        return;
    }
    let mut cmd = Command::new(GPUFUZZ);
    pinned_to_25(&mut cmd);
    let o = cmd
        .args(["run", "--target", "radv", "--emit", "spvasm"])
        .arg(repo("docs/found-bugs/radv-sigsegv-shift-compare.ir"))
        .output()
        .expect("gpufuzz runs");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(text.starts_with("; SPIR-V"), "{text}");
    assert!(text.contains("OpShiftLeftLogical"), "{text}");
    let dir = std::env::temp_dir().join(format!("gpufuzz-radv-spvasm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, spv) = (dir.join("m.spvasm"), dir.join("m.spv"));
    std::fs::write(&src, text.as_bytes()).unwrap();
    let assembled = Command::new("spirv-as")
        .args(["--target-env", "vulkan1.1", "-o"])
        .arg(&spv)
        .arg(&src)
        .status();
    let valid = Command::new("spirv-val")
        .args(["--target-env", "vulkan1.1"])
        .arg(&spv)
        .status();
    let _ = std::fs::remove_dir_all(&dir);
    match (assembled, valid) {
        (Ok(a), Ok(v)) => assert!(a.success() && v.success(), "spirv-as {a}, spirv-val {v}"),
        _ => unavailable("spirv-as and spirv-val (package spirv-tools)"),
    }
}
