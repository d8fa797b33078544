//! Standalone repros of a case, in the formats driver developers run without gpufuzz:
//! a vkrunner/piglit `.vk_shader_test` (what Mesa developers add to piglit for their bugs), an
//! Amber script (what Vulkan-CTS and SPIRV-Tools bug reports use) and the `.spvasm`; for a case
//! with a spirv-opt pass list also the module before spirv-opt and the `spirv-opt` command.
//!
//! Both scripts hold the SPIR-V assembly the driver got (after spirv-opt when the case has a
//! pass list, so they reproduce without SPIRV-Tools' optimiser), every storage buffer's initial
//! words, the dispatch, and a probe for every word the oracle compares, its value the
//! interpreter's. A word the comparison leaves out (an op the Vulkan spec does not make exact
//! feeds it) is not probed; the header says how many and why. A program with textures has no
//! standalone form here (vkrunner has no way to fill a sampled image with our texels): refused.
//!
//! Offsets in both formats are in bytes; values are decimal `uint`s (vkrunner and Amber read
//! them so), with the hexadecimal form in the header's notes where it helps a reader.

use super::module::{emit, emit_options};
use super::spirv_opt::{self, Failure, Reduced, RunFailure, SpirvOptPasses};
use crate::targets::shown::Written;
use compiler::interp::{self, RunOptions};
use compiler::ir::Program;
use sim::dispatch::Results;
use spirv_emit::{InexactWords, Resource, StorageRole};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use vulkan_runner::DeviceInfo;

/// A case's standalone repro files, as text.
#[derive(Clone, Debug)]
pub struct Standalone {
    /// The device and driver the case was emitted for (its float controls decide the module).
    pub device: String,
    /// The SPIR-V assembly the driver got.
    pub spvasm: String,
    /// The vkrunner script.
    pub vk_shader_test: String,
    /// The Amber script.
    pub amber: String,
    /// For a case with a spirv-opt pass list: the module before it and the command.
    pub spirv_opt: Option<SpirvOptStep>,
    /// How many words are probed, and how many were left out.
    pub probed: usize,
    /// Words not probed (inexact).
    pub unprobed: usize,
}

/// The spirv-opt step of a case, to be run by hand.
#[derive(Clone, Debug)]
pub struct SpirvOptStep {
    /// The shell commands that assemble the module before spirv-opt and optimise it.
    pub command: String,
    /// The SPIR-V assembly before spirv-opt.
    pub before: String,
}

/// One storage binding of the repro.
struct Buffer {
    binding: u32,
    /// What it holds, for comments (`outputs`, `uniforms`, `buffer 0`).
    role: String,
    initial: Vec<u32>,
    /// Per word, the value to probe (`None`: not compared, or never compared: uniforms).
    expected: Vec<Option<u32>>,
}

/// The standalone repro of `program` run through `passes` on the device `info` describes.
pub fn standalone(
    program: &Program,
    passes: &SpirvOptPasses,
    info: &DeviceInfo,
) -> Result<Standalone, String> {
    if !program.dispatch.textures.is_empty() {
        return Err("a program with textures has no vkrunner/Amber form".into());
    }
    let options = emit_options(info);
    let module = emit(program, &options).map_err(|e| e.to_string())?;
    let (words, spirv_opt) = if passes.is_empty() {
        (module.words.clone(), None)
    } else {
        let after = spirv_opt::optimise(&module.words, passes)?;
        let command = format!(
            "spirv-as --target-env vulkan1.1 before.spvasm -o before.spv && spirv-opt {} \
             before.spv -o after.spv && spirv-dis after.spv",
            passes.arguments().join(" ")
        );
        let before = disassemble(&module.words)?;
        (after, Some(SpirvOptStep { command, before }))
    };
    let spvasm = disassemble(&words)?;
    let expected = interp::run(program, &RunOptions::default()).map_err(|e| e.to_string())?;
    let inexact = spirv_emit::inexact_words_for(program, &options);
    let buffers = buffers(program, &module.interface, &expected, &inexact);
    let probed = buffers
        .iter()
        .filter(|b| b.role != "uniforms")
        .map(|b| b.expected.iter().flatten().count())
        .sum();
    let unprobed = buffers
        .iter()
        .filter(|b| b.role != "uniforms")
        .map(|b| b.expected.iter().filter(|e| e.is_none()).count())
        .sum();
    let device = info.describe();
    let mut notes = vec![
        format!("found by gpufuzz on {device}"),
        "expected values: gpufuzz's reference interpreter (the IR's defined semantics)".into(),
        format!(
            "{probed} word(s) probed; {unprobed} not probed (an op the Vulkan spec does not \
             make exact feeds them: docs/semantics.md)"
        ),
    ];
    if !passes.is_empty() {
        notes.push(format!("the module after spirv-opt {passes}"));
    }
    let extensions = vulkan_extensions(&spvasm);
    let workgroups = module.interface.workgroups.max(1);
    Ok(Standalone {
        vk_shader_test: vk_shader_test(&notes, &extensions, &spvasm, &buffers, workgroups),
        amber: amber(&notes, &extensions, &spvasm, &buffers, workgroups),
        spvasm,
        spirv_opt,
        device,
        probed,
        unprobed,
    })
}

impl Standalone {
    /// Writes `stem.vk_shader_test`, `stem.amber`, `stem.spvasm` (and for a spirv-opt case
    /// `stem.before.spvasm` and `stem.spirv-opt.sh`) into `dir`; returns the paths.
    pub fn write(&self, dir: &Path, stem: &str) -> std::io::Result<Vec<PathBuf>> {
        let mut files = vec![
            (
                format!("{stem}.vk_shader_test"),
                self.vk_shader_test.clone(),
            ),
            (format!("{stem}.amber"), self.amber.clone()),
            (format!("{stem}.spvasm"), self.spvasm.clone()),
        ];
        if let Some(step) = &self.spirv_opt {
            files.push((format!("{stem}.before.spvasm"), step.before.clone()));
            let script = format!(
                "#!/bin/sh\n# The spirv-opt step of this repro: {stem}.before.spvasm in, the \
                 module of {stem}.spvasm out.\nset -e\ncp {stem}.before.spvasm before.spvasm\n{}\n",
                step.command
            );
            files.push((format!("{stem}.spirv-opt.sh"), script));
        }
        let mut paths = Vec::new();
        for (name, text) in files {
            let path = dir.join(name);
            crate::store::write_atomically(&path, text.as_bytes())?;
            paths.push(path);
        }
        Ok(paths)
    }
}

/// A case whose spirv-opt step fails (crashes, or refuses the module our emitter made valid):
/// what a SPIRV-Tools report holds — the module before, the command that fails with what it
/// printed, and spirv-reduce's reduction of the module with the interestingness test it used.
pub struct SpirvOptFails {
    /// How spirv-opt failed on the module.
    pub failure: Failure,
    /// The module before spirv-opt, as spirv-opt got it.
    pub before: Vec<u32>,
    /// Its assembly.
    pub before_spvasm: String,
    /// spirv-reduce's reduction, or why there is none.
    pub reduced: Result<(Reduced, String), String>,
    /// `SPIRV-Tools vYYYY.N …`, as the tool says.
    pub version: String,
}

/// How long spirv-reduce may work on a failing module.
const SPIRV_REDUCE_TIME: std::time::Duration = std::time::Duration::from_secs(120);

/// The failure of spirv-opt with `passes` on the module `words`, if it fails (`None`: it
/// succeeds), with spirv-reduce's reduction.
pub fn spirv_opt_fails(
    words: Vec<u32>,
    passes: &SpirvOptPasses,
) -> Option<Result<SpirvOptFails, String>> {
    let failure = match spirv_opt::run(&words, passes) {
        Ok(_) => return None,
        Err(RunFailure::Failed(f)) => f,
        Err(RunFailure::NotStarted(e)) => return Some(Err(e)),
    };
    Some((|| {
        let before_spvasm = disassemble(&words)?;
        let reduced = spirv_opt::reduce(&words, &failure, SPIRV_REDUCE_TIME)
            .and_then(|r| disassemble(&r.words).map(|asm| (r, asm)));
        Ok(SpirvOptFails {
            version: spirv_opt::version()
                .unwrap_or("SPIRV-Tools (version unknown)")
                .into(),
            failure,
            before: words,
            before_spvasm,
            reduced,
        })
    })())
}

impl SpirvOptFails {
    /// The shell script that shows the failure with SPIRV-Tools alone: `stem.spv` through the
    /// same `spirv-opt` command; it exits with spirv-opt's status.
    pub fn script(&self, stem: &str) -> String {
        let f = &self.failure;
        let actual = f.to_string().replace('\n', "\n#   ");
        let args = f.passes.arguments().join(" ");
        let reduced =
            match &self.reduced {
                Ok((r, _)) => format!(
                "# {stem}.reduced.spv ({} words, from {}; spirv-reduce{}) fails the same way:\n\
                 #   spirv-opt {args} {stem}.reduced.spv -o {stem}.after.spv\n",
                r.words.len(),
                r.from_words,
                if r.stopped { ", stopped at its time limit" } else { "" }
            ),
                Err(why) => format!("# No reduction: {why}\n"),
            };
        format!(
            "#!/bin/sh\n\
             # {version}: spirv-opt fails on a valid module (spirv-val --target-env vulkan1.1\n\
             # accepts {stem}.spv). Expected: exit status 0 and a module in {stem}.after.spv.\n\
             # Actual: {actual}\n\
             {reduced}\
             # Reduce again: spirv-reduce {stem}.spv -o {stem}.reduced.spv -- ./{stem}.interesting.sh\n\
             spirv-opt {args} {stem}.spv -o {stem}.after.spv\n",
            version = self.version,
        )
    }

    /// Writes `stem.spv` and `stem.spvasm` (the module before spirv-opt), `stem.spirv-opt.sh`
    /// (the failing command), `stem.interesting.sh` and, when spirv-reduce made one,
    /// `stem.reduced.spv` and `stem.reduced.spvasm`; returns the paths.
    pub fn write(&self, dir: &Path, stem: &str) -> std::io::Result<Vec<PathBuf>> {
        let mut files = vec![
            (
                format!("{stem}.spirv-opt.sh"),
                self.script(stem).into_bytes(),
            ),
            (
                format!("{stem}.spv"),
                spirv_emit::binary::to_bytes(&self.before),
            ),
            (
                format!("{stem}.spvasm"),
                self.before_spvasm.clone().into_bytes(),
            ),
            (
                format!("{stem}.interesting.sh"),
                spirv_opt::reduce::interestingness_test(&self.failure).into_bytes(),
            ),
        ];
        if let Ok((r, asm)) = &self.reduced {
            files.push((
                format!("{stem}.reduced.spv"),
                spirv_emit::binary::to_bytes(&r.words),
            ));
            files.push((format!("{stem}.reduced.spvasm"), asm.clone().into_bytes()));
        }
        let mut paths = Vec::new();
        for (name, bytes) in files {
            let path = dir.join(name);
            crate::store::write_atomically(&path, &bytes)?;
            if path.extension().is_some_and(|e| e == "sh") {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
            }
            paths.push(path);
        }
        Ok(paths)
    }
}

/// The storage bindings with their initial words and the words to probe.
fn buffers(
    program: &Program,
    interface: &spirv_emit::Interface,
    expected: &Results,
    inexact: &InexactWords,
) -> Vec<Buffer> {
    let d = &program.dispatch;
    interface
        .bindings
        .iter()
        .filter_map(|b| match &b.resource {
            Resource::Storage { role, words } => Some((b.binding, *role, words)),
            Resource::Texture(_) => None,
        })
        .map(|(binding, role, initial)| {
            let (name, expected) = match role {
                StorageRole::Outputs => {
                    let slots = d.outputs.max(1) as usize;
                    let words = expected.outputs.iter().enumerate().map(|(k, &w)| {
                        let skip = inexact.outputs.get(k % slots).copied().unwrap_or(false);
                        (!skip).then_some(w)
                    });
                    ("outputs".to_string(), words.collect())
                }
                StorageRole::Buffer(n) => {
                    let skip = inexact.buffers.get(n as usize).copied().unwrap_or(false);
                    let words = expected.buffers[n as usize].iter();
                    let words = words.map(|&w| (!skip).then_some(w)).collect();
                    (format!("buffer {n}"), words)
                }
                StorageRole::Uniforms => ("uniforms".to_string(), vec![None; initial.len()]),
            };
            Buffer {
                binding,
                role: name,
                initial: initial.clone(),
                expected,
            }
        })
        .collect()
}

/// The Vulkan device extensions the module's SPIR-V extensions need.
fn vulkan_extensions(spvasm: &str) -> Vec<&'static str> {
    let mut v = Vec::new();
    if spvasm.contains("\"SPV_KHR_float_controls\"") {
        v.push("VK_KHR_shader_float_controls");
    }
    v
}

/// Runs of consecutive words to probe: (first word index, values).
fn probe_runs(expected: &[Option<u32>]) -> Vec<(usize, Vec<u32>)> {
    const PER_LINE: usize = 16;
    let mut runs: Vec<(usize, Vec<u32>)> = Vec::new();
    for (k, w) in expected.iter().enumerate() {
        let Some(w) = *w else { continue };
        match runs.last_mut() {
            Some((start, vals)) if *start + vals.len() == k && vals.len() < PER_LINE => {
                vals.push(w)
            }
            _ => runs.push((k, vec![w])),
        }
    }
    runs
}

fn decimal(words: &[u32]) -> String {
    words
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

fn vk_shader_test(
    notes: &[String],
    extensions: &[&str],
    spvasm: &str,
    buffers: &[Buffer],
    workgroups: u32,
) -> String {
    let mut s = String::new();
    for n in notes {
        let _ = writeln!(s, "# {n}");
    }
    s += "# run: vkrunner THIS_FILE (the SPIR-V below is assembled with spirv-as)\n\n[require]\n";
    for e in extensions {
        let _ = writeln!(s, "{e}");
    }
    let _ = write!(s, "\n[compute shader spirv]\n{}\n", spvasm.trim_end());
    s += "\n[test]\n";
    for b in buffers {
        let _ = writeln!(s, "# binding {}: {}", b.binding, b.role);
        if b.initial.iter().all(|&w| w == 0) {
            let _ = writeln!(s, "ssbo {} {}", b.binding, b.initial.len() * 4);
        } else {
            for chunk in b.initial.chunks(16).enumerate() {
                let (i, words) = chunk;
                let _ = writeln!(
                    s,
                    "ssbo {} subdata uint {} {}",
                    b.binding,
                    i * 16 * 4,
                    decimal(words)
                );
            }
        }
    }
    let _ = writeln!(s, "\ncompute {workgroups} 1 1\n");
    for b in buffers {
        for (start, vals) in probe_runs(&b.expected) {
            let _ = writeln!(
                s,
                "probe ssbo uint {} {} == {}",
                b.binding,
                start * 4,
                decimal(&vals)
            );
        }
    }
    s
}

fn amber(
    notes: &[String],
    extensions: &[&str],
    spvasm: &str,
    buffers: &[Buffer],
    workgroups: u32,
) -> String {
    let mut s = String::from("#!amber\n");
    for n in notes {
        let _ = writeln!(s, "# {n}");
    }
    s += "# run: amber THIS_FILE\n\n";
    for e in extensions {
        let _ = writeln!(s, "DEVICE_EXTENSION {e}");
    }
    let _ = write!(
        s,
        "\nSHADER compute gpufuzz SPIRV-ASM TARGET_ENV spv1.3\n{}\nEND\n\n",
        spvasm.trim_end()
    );
    for b in buffers {
        let _ = writeln!(s, "# binding {}: {}", b.binding, b.role);
        if b.initial.iter().all(|&w| w == 0) {
            let _ = writeln!(
                s,
                "BUFFER b{} DATA_TYPE uint32 SIZE {} FILL 0",
                b.binding,
                b.initial.len()
            );
        } else {
            let _ = writeln!(s, "BUFFER b{} DATA_TYPE uint32 DATA", b.binding);
            for words in b.initial.chunks(16) {
                let _ = writeln!(s, "{}", decimal(words));
            }
            s += "END\n";
        }
    }
    s += "\nPIPELINE compute pipeline\n  ATTACH gpufuzz\n";
    for b in buffers {
        let _ = writeln!(
            s,
            "  BIND BUFFER b{0} AS storage DESCRIPTOR_SET 0 BINDING {0}",
            b.binding
        );
    }
    let _ = writeln!(s, "END\n\nRUN pipeline {workgroups} 1 1\n");
    for b in buffers {
        for (start, vals) in probe_runs(&b.expected) {
            let _ = writeln!(
                s,
                "EXPECT b{} IDX {} EQ {}",
                b.binding,
                start * 4,
                decimal(&vals)
            );
        }
    }
    s
}

/// A compile-only target's standalone repro: the module the driver compiled, as
/// `dir/stem.spvasm` (`spirv-dis`; `spirv-as --target-env vulkan1.1` reads it back).
pub fn write_module(words: &[u32], dir: &Path, stem: &str) -> Result<Written, String> {
    let spvasm = disassemble(words)?;
    let path = dir.join(format!("{stem}.spvasm"));
    crate::store::write_atomically(&path, spvasm.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Written {
        files: vec![path],
        shown: spvasm,
        by_hand: None,
        how: None,
    })
}

/// `spirv-dis` of `words`: assembly `spirv-as` (and so vkrunner and Amber) reads back.
pub fn disassemble(words: &[u32]) -> Result<String, String> {
    let mut child = spirv_opt::tool("spirv-dis", &["-".into(), "-o".into(), "-".into()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run spirv-dis (package spirv-tools): {e}"))?;
    let bytes = spirv_emit::binary::to_bytes(words);
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let writer = std::thread::spawn(move || stdin.write_all(&bytes));
    let out = child
        .wait_with_output()
        .map_err(|e| format!("spirv-dis: {e}"))?;
    let _ = writer.join();
    if !out.status.success() {
        return Err(format!(
            "spirv-dis failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("spirv-dis: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_run_over_consecutive_compared_words_only() {
        let e = [Some(1), Some(2), None, Some(4), None, None, Some(7)];
        assert_eq!(
            probe_runs(&e),
            vec![(0, vec![1, 2]), (3, vec![4]), (6, vec![7])]
        );
        let long: Vec<_> = (0..20).map(Some).collect();
        let runs = probe_runs(&long);
        assert_eq!(runs.len(), 2);
        assert_eq!((runs[1].0, runs[1].1.len()), (16, 4));
    }
}
