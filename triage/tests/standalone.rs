//! The standalone repros (`gpufuzz run F.ir --target vulkan --emit vk_shader_test|amber`) are
//! right, not just well-formed: a small reader for each format runs the file through our own
//! Vulkan runner (SPIR-V assembled with `spirv-as`, buffers as the script sets them, the
//! dispatch it names) and checks its probes. For the signed-zero program the probes fail
//! exactly where the oracle sees the bug (lavapipe from Mesa 22.3.6 and 25.0.7 both have it:
//! CI runs this file on both), and a program that avoids the bug passes; the OpSMod program
//! (undefined in Vulkan, no longer emitted) passes everywhere.
//!
//! Without a device or SPIRV-Tools these tests fail under CI and print why they skip otherwise.

use fuzz::finding::Verdict;
use fuzz::oracle::{self, Case, CaseConfig};
use fuzz::targets::vulkan::VulkanOptions;
use std::collections::BTreeMap;
use std::process::Command;
use vulkan_runner::client::unavailable;
use vulkan_runner::{Binding, Job, Resource, RunError, Worker};

mod common;
use common::{assemble, GPUFUZZ};

/// 1 imod -3 = -2 (lavapipe: 1, the remainder's sign).
const SMOD: &str = "invocations 2\noutputs 1\n\nblock_0:\n  \
    vec1 32 ssa_0 = load_invocation_id\n  vec1 32 ssa_1 = load_const (0xfffffffd)\n  \
    vec1 32 ssa_2 = imod ssa_0, ssa_1\n  store_output 0, ssa_2\n";
/// 0.0 - (+0.0) = +0.0 (lavapipe: -0.0), beside 0.0 - 1.0.
const ZERO_MINUS_ZERO: &str = "invocations 1\noutputs 2\nuniforms 0x00000000 0x3f800000\n\n\
    block_0:\n  vec1 32 ssa_0 = load_const (0x00000000)\n  vec1 32 ssa_1 = load_uniform ssa_0\n  \
    vec1 32 ssa_2 = fsub ssa_0, ssa_1\n  store_output 0, ssa_2\n  \
    vec1 32 ssa_3 = load_const (0x00000001)\n  vec1 32 ssa_4 = load_uniform ssa_3\n  \
    vec1 32 ssa_5 = fsub ssa_0, ssa_4\n  store_output 1, ssa_5\n";
/// The same subtraction from 1.0: no zero minuend to fold.
const ONE_MINUS_ZERO: &str = "invocations 1\noutputs 2\nuniforms 0x00000000 0x3f800000\n\n\
    block_0:\n  vec1 32 ssa_0 = load_const (0x3f800000)\n  vec1 32 ssa_6 = load_const (0x00000000)\n  \
    vec1 32 ssa_1 = load_uniform ssa_6\n  \
    vec1 32 ssa_2 = fsub ssa_0, ssa_1\n  store_output 0, ssa_2\n  \
    vec1 32 ssa_3 = load_const (0x00000001)\n  vec1 32 ssa_4 = load_uniform ssa_3\n  \
    vec1 32 ssa_5 = fsub ssa_0, ssa_4\n  store_output 1, ssa_5\n";

/// What either script asks for: a module, storage buffers by binding, a dispatch, probes.
#[derive(Debug, Default)]
struct Script {
    spvasm: String,
    buffers: BTreeMap<u32, Vec<u32>>,
    workgroups: [u32; 3],
    /// (binding, word index, expected word)
    probes: Vec<(u32, usize, u32)>,
}

fn numbers(words: &[&str]) -> Vec<u32> {
    words
        .iter()
        .map(|w| w.parse().unwrap_or_else(|e| panic!("{w:?}: {e}")))
        .collect()
}

/// Sets `words` at byte offset `offset` of buffer `binding`, growing it as needed.
fn set(buffers: &mut BTreeMap<u32, Vec<u32>>, binding: u32, offset: usize, words: &[u32]) {
    let buf = buffers.entry(binding).or_default();
    let at = offset / 4;
    if buf.len() < at + words.len() {
        buf.resize(at + words.len(), 0);
    }
    buf[at..at + words.len()].copy_from_slice(words);
}

/// Reads a vkrunner script (the subset gpufuzz writes).
fn read_vk_shader_test(text: &str) -> Script {
    let mut s = Script::default();
    let mut section = "";
    for line in text.lines() {
        if line.starts_with('[') {
            section = line;
            continue;
        }
        match section {
            "[compute shader spirv]" => {
                s.spvasm += line;
                s.spvasm.push('\n');
            }
            "[test]" => {
                let w: Vec<&str> = line.split_whitespace().collect();
                match w.as_slice() {
                    [] => {}
                    [c, ..] if c.starts_with('#') => {}
                    ["ssbo", b, size] => {
                        let b = b.parse().unwrap();
                        s.buffers
                            .insert(b, vec![0; size.parse::<usize>().unwrap() / 4]);
                    }
                    ["ssbo", b, "subdata", "uint", off, vals @ ..] => set(
                        &mut s.buffers,
                        b.parse().unwrap(),
                        off.parse().unwrap(),
                        &numbers(vals),
                    ),
                    ["compute", x, y, z] => s.workgroups = [x, y, z].map(|v| v.parse().unwrap()),
                    ["probe", "ssbo", "uint", b, off, "==", vals @ ..] => {
                        let (b, off): (u32, usize) = (b.parse().unwrap(), off.parse().unwrap());
                        for (k, v) in numbers(vals).into_iter().enumerate() {
                            s.probes.push((b, off / 4 + k, v));
                        }
                    }
                    other => panic!("unexpected [test] line {other:?}"),
                }
            }
            _ => {}
        }
    }
    s
}

/// Reads an Amber script (the subset gpufuzz writes).
fn read_amber(text: &str) -> Script {
    let mut s = Script::default();
    let mut names: BTreeMap<String, u32> = BTreeMap::new();
    let mut data: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.as_slice() {
            ["SHADER", "compute", _, "SPIRV-ASM", ..] => {
                for l in lines.by_ref().take_while(|l| *l != "END") {
                    s.spvasm += l;
                    s.spvasm.push('\n');
                }
            }
            ["BUFFER", name, "DATA_TYPE", "uint32", "SIZE", n, "FILL", v] => {
                let n: usize = n.parse().unwrap();
                data.insert(name.to_string(), vec![v.parse().unwrap(); n]);
            }
            ["BUFFER", name, "DATA_TYPE", "uint32", "DATA"] => {
                let mut words = Vec::new();
                for l in lines.by_ref().take_while(|l| *l != "END") {
                    words.extend(numbers(&l.split_whitespace().collect::<Vec<_>>()));
                }
                data.insert(name.to_string(), words);
            }
            ["BIND", "BUFFER", name, "AS", "storage", "DESCRIPTOR_SET", "0", "BINDING", b] => {
                names.insert(name.to_string(), b.parse().unwrap());
            }
            ["RUN", _, x, y, z] => s.workgroups = [x, y, z].map(|v| v.parse().unwrap()),
            ["EXPECT", name, "IDX", off, "EQ", vals @ ..] => {
                let b = names[*name];
                let off: usize = off.parse().unwrap();
                for (k, v) in numbers(vals).into_iter().enumerate() {
                    s.probes.push((b, off / 4 + k, v));
                }
            }
            _ => {}
        }
    }
    for (name, b) in names {
        s.buffers
            .insert(b, data.remove(&name).expect("a bound buffer is declared"));
    }
    s
}

/// Runs a script on the device; the probes that fail, as (binding, word, expected, got).
fn failing_probes(
    w: &mut Worker,
    script: &Script,
    tag: &str,
) -> Option<Vec<(u32, usize, u32, u32)>> {
    let spirv = assemble(&script.spvasm, tag)?;
    let bindings: Vec<u32> = script.buffers.keys().copied().collect();
    let job = Job {
        spirv,
        workgroups: script.workgroups,
        subgroup_size: None,
        bindings: script
            .buffers
            .iter()
            .map(|(&binding, words)| Binding {
                binding,
                resource: Resource::Buffer(words.clone()),
            })
            .collect(),
    };
    let out = w.run(&job).expect("the script's job runs");
    assert!(
        !script.probes.is_empty(),
        "a script without probes tests nothing"
    );
    Some(
        script
            .probes
            .iter()
            .filter_map(|&(b, word, want)| {
                let i = bindings
                    .iter()
                    .position(|&x| x == b)
                    .expect("probed binding exists");
                let got = out.buffers[i][word];
                (got != want).then_some((b, word, want, got))
            })
            .collect(),
    )
}

/// `gpufuzz run FILE --target vulkan --emit FORMAT` for `program`.
fn emitted(program: &str, format: &str, tag: &str) -> String {
    let file = std::env::temp_dir().join(format!(
        "gpufuzz-standalone-{}-{tag}-{format}.ir",
        std::process::id()
    ));
    std::fs::write(&file, program).unwrap();
    let out = Command::new(GPUFUZZ)
        .args(["run", "--target", "vulkan", "--emit", format])
        .arg(&file)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&file);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The worker the `vulkan` target uses by default: the chosen Mesa's lavapipe (`--mesa`,
/// `$GPUFUZZ_MESA`), or for the system's the loader's ICD (`VK_ICD_FILENAMES`).
fn worker() -> Option<Worker> {
    let options = VulkanOptions {
        worker: Some(common::worker_command()),
        ..VulkanOptions::default()
    };
    let started = options.worker_options().and_then(Worker::start);
    match started {
        Ok(w) => Some(w),
        Err(RunError::NoVulkan(why)) => {
            unavailable(&format!("a Vulkan device ({why})"));
            None
        }
        Err(e) => panic!("starting the worker: {e}"),
    }
}

/// Whether the oracle finds a bug in `program` on the default device.
fn oracle_finds(program: &str) -> bool {
    let opts = common::on_device("vulkan");
    let case = Case {
        config: CaseConfig::default(),
        program: compiler::ir::text::parse_program(program, "t.ir").unwrap(),
    };
    matches!(oracle::judge(&case, &opts).verdict, Verdict::Finding(_))
}

/// Both formats of `buggy` fail where the oracle sees the bug (always on lavapipe 22.3.6 and
/// 25.0.7), and both formats of `clean` pass.
fn check(buggy: &str, clean: &str, name: &str) {
    let Some(mut w) = worker() else { return };
    let info = w.info().clone();
    let lavapipe_with_bugs = info.driver_name == "llvmpipe"
        && ["Mesa 22.3.6", "Mesa 25.0.7"]
            .iter()
            .any(|v| info.driver_info.starts_with(v));
    let has_bug = oracle_finds(buggy);
    assert!(
        has_bug || !lavapipe_with_bugs,
        "{}: {name} not found",
        info.describe()
    );
    for (format, read) in [
        ("vk_shader_test", read_vk_shader_test as fn(&str) -> Script),
        ("amber", read_amber),
    ] {
        let script = read(&emitted(buggy, format, &format!("{name}-{format}")));
        let Some(failing) = failing_probes(&mut w, &script, &format!("{name}-{format}")) else {
            return;
        };
        assert_eq!(
            !failing.is_empty(),
            has_bug,
            "{name} as {format} on {}: failing probes {failing:?}",
            info.describe()
        );
        let script = read(&emitted(clean, format, &format!("{name}-clean-{format}")));
        let failing = failing_probes(&mut w, &script, &format!("{name}-clean-{format}")).unwrap();
        assert!(
            failing.is_empty(),
            "{name} (clean) as {format}: {failing:?}"
        );
        eprintln!("{name} as {format} on {}: bug {has_bug}", info.describe());
    }
}

/// `OpSMod` of a negative operand is undefined in Vulkan without `maintenance8`, so the
/// emitter computes `imod` from `OpUMod` of magnitudes: the program lavapipe 22.3.6 and 25.0.7
/// got "wrong" as `OpSMod` is right on every driver, and its scripts pass.
#[test]
fn imod_of_a_negative_operand_is_right_on_every_lavapipe_now_that_no_opsmod_is_emitted() {
    let Some(mut w) = worker() else { return };
    let info = w.info().clone();
    assert!(!oracle_finds(SMOD), "{}: 1 imod -3", info.describe());
    for format in ["vk_shader_test", "amber"] {
        let text = emitted(SMOD, format, &format!("smod-{format}"));
        assert!(
            !text.contains("OpSMod") && !text.contains("OpSRem"),
            "{text}"
        );
        let read = if format == "amber" {
            read_amber
        } else {
            read_vk_shader_test
        };
        let failing = failing_probes(&mut w, &read(&text), &format!("smod-{format}")).unwrap();
        assert!(
            failing.is_empty(),
            "smod as {format} on {}: {failing:?}",
            info.describe()
        );
    }
}

#[test]
fn the_signed_zero_repro_files_fail_on_the_buggy_driver_and_pass_without_the_bug() {
    check(ZERO_MINUS_ZERO, ONE_MINUS_ZERO, "zero");
}

/// The repro files of `docs/found-bugs/` fail on the lavapipe versions they were checked on:
/// the write-ups' files are right as they stand.
#[test]
fn the_written_up_repro_files_fail_on_the_lavapipe_they_were_checked_on() {
    let Some(mut w) = worker() else { return };
    let info = w.info().clone();
    let lavapipe_of = |versions: &[&str]| {
        info.driver_name == "llvmpipe" && versions.iter().any(|v| info.driver_info.starts_with(v))
    };
    // The versions the write-ups were checked on, and 26.2.6 (the newest,
    // docs/found-bugs/README.md's column).
    let found_on = lavapipe_of(&["Mesa 22.3.6", "Mesa 25.0.7"]);
    let newest = lavapipe_of(&["Mesa 26.2.6"]);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/found-bugs");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension()
                .is_some_and(|x| x == "vk_shader_test" || x == "amber")
        })
        .collect();
    files.sort();
    assert!(files.len() >= 4, "{files:?}");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let tag = file
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace('.', "-");
        let script = if file.extension().is_some_and(|x| x == "amber") {
            read_amber(&text)
        } else {
            read_vk_shader_test(&text)
        };
        let Some(failing) = failing_probes(&mut w, &script, &tag) else {
            return;
        };
        eprintln!(
            "{} on {}: failing {failing:?}",
            file.display(),
            info.describe()
        );
        // lavapipe's own bugs are gone in 26.2.6; spirv-opt's wrong code is in the module, so
        // it fails everywhere; a NIR bug new in 26.2.6 that lavapipe shares fails there only;
        // another driver's repro (NIR's fold in radv and anv) runs right on lavapipe, which
        // checks its expected values against a driver without the bug.
        const NEWEST_ONLY: [&str; 1] = ["nir-loop-exit-local-index"];
        let fails = if tag.starts_with("lavapipe-") {
            !newest
        } else if NEWEST_ONLY.iter().any(|b| tag.starts_with(b)) {
            newest
        } else {
            tag.starts_with("spirv-opt-")
        };
        if found_on || newest {
            assert_eq!(
                failing.is_empty(),
                !fails,
                "{} on {}: failing {failing:?}",
                file.display(),
                info.describe()
            );
        }
    }
}
