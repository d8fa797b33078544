//! A module spirv-opt fails on, reduced by SPIRV-Tools' own `spirv-reduce`: what its
//! maintainers run on a report, so the reduction they get is one their tool agrees with. The
//! interestingness test is a shell script that runs the very command that failed and asks for
//! the same status (for a crash: the same signal), so it also serves a person as the repro.
//!
//! Our reducer works on the IR and judges through the whole `vulkan` target; this one works
//! on the SPIR-V and judges by spirv-opt alone, so it also removes what our emitter always
//! writes (the interface, the guards) when the crash does not need it.

use super::{tool, Failure};
use spirv_emit::binary::{from_bytes, to_bytes};
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A folder SPIRV-Tools and we both see, removed when dropped: under the Mesa's root when its
/// tools run there, else under the system's temporary folder.
pub struct Scratch {
    outside: PathBuf,
    inside: PathBuf,
}

impl Scratch {
    /// A new, empty one.
    pub fn new() -> io::Result<Scratch> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "gpufuzz-spirv-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let (outside, inside) = match crate::targets::driver::mesa::current().root() {
            Some(root) => (root.join("tmp").join(&name), Path::new("/tmp").join(&name)),
            None => {
                let p = std::env::temp_dir().join(&name);
                (p.clone(), p)
            }
        };
        let _ = std::fs::remove_dir_all(&outside);
        std::fs::create_dir_all(&outside)?;
        Ok(Scratch { outside, inside })
    }

    /// `name` in it, as we see it.
    pub fn outside(&self, name: &str) -> PathBuf {
        self.outside.join(name)
    }

    /// `name` in it, as the tools see it.
    pub fn inside(&self, name: &str) -> String {
        self.inside.join(name).display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.outside);
    }
}

/// Seconds one spirv-opt run may take inside the interestingness test: a reduction step that
/// makes spirv-opt loop is not the crash.
const RUN_SECONDS: u32 = 20;

/// The interestingness test for `failure`: `spirv-opt` with the same arguments on the file
/// given as its last argument ends with the same status.
pub fn interestingness_test(failure: &Failure) -> String {
    let args = failure.passes.arguments().join(" ");
    let status = failure.shell_status();
    let what = if failure.crashed() {
        format!("it crashed with status {status} (128 + the signal)")
    } else {
        format!("it exited with status {status}")
    };
    format!(
        "#!/bin/sh\n\
         # spirv-reduce's interestingness test, and a repro: spirv-opt {args} on the module\n\
         # \"$1\" (the last argument) fails as it did on the original module: {what}.\n\
         # The status alone is checked: spirv-opt's message names ids the reducer renumbers.\n\
         for f; do spv=\"$f\"; done\n\
         timeout {RUN_SECONDS} spirv-opt {args} \"$spv\" -o /dev/null 2>/dev/null\n\
         test $? -eq {status}\n"
    )
}

/// What [`reduce`] made.
pub struct Reduced {
    /// The reduced module (spirv-opt still fails on it as on the original).
    pub words: Vec<u32>,
    /// Words before and after.
    pub from_words: usize,
    /// Whether the time limit stopped it before it was done.
    pub stopped: bool,
}

/// `words`, on which spirv-opt fails as `failure` says, reduced by `spirv-reduce` within
/// `limit` (the best module so far when it runs out).
pub fn reduce(words: &[u32], failure: &Failure, limit: Duration) -> Result<Reduced, String> {
    let scratch = Scratch::new().map_err(|e| format!("spirv-reduce: a scratch folder: {e}"))?;
    let write = |name: &str, bytes: &[u8]| {
        std::fs::write(scratch.outside(name), bytes)
            .map_err(|e| format!("{}: {e}", scratch.outside(name).display()))
    };
    write("original.spv", &to_bytes(words))?;
    write("interesting.sh", interestingness_test(failure).as_bytes())?;
    let test = scratch.outside("interesting.sh");
    std::fs::set_permissions(&test, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("{}: {e}", test.display()))?;
    let mut child = tool(
        "spirv-reduce",
        &[
            scratch.inside("original.spv"),
            "-o".into(),
            scratch.inside("reduced.spv"),
            format!("--temp-file-prefix={}", scratch.inside("step_")),
            "--".into(),
            scratch.inside("interesting.sh"),
        ],
    )
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .map_err(|e| format!("cannot run spirv-reduce (package spirv-tools): {e}"))?;
    let started = Instant::now();
    let mut stopped = false;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| format!("spirv-reduce: {e}"))? {
            break Some(status);
        }
        if started.elapsed() >= limit {
            let _ = child.kill();
            let _ = child.wait();
            stopped = true;
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let best = if stopped {
        best_step(&scratch)?
    } else {
        let out = std::fs::read(scratch.outside("reduced.spv")).ok();
        let mut stderr = String::new();
        if let Some(mut e) = child.stderr.take() {
            let _ = io::Read::read_to_string(&mut e, &mut stderr);
        }
        match (status, out) {
            (Some(s), Some(bytes)) if s.success() => bytes,
            (s, _) => {
                return Err(format!(
                    "spirv-reduce failed ({}): {}",
                    s.map_or("killed".into(), |s| s.to_string()),
                    stderr.trim()
                ))
            }
        }
    };
    let reduced = from_bytes(&best).ok_or("spirv-reduce wrote no module")?;
    Ok(Reduced {
        words: reduced,
        from_words: words.len(),
        stopped,
    })
}

/// The last interesting module spirv-reduce wrote before it was stopped: its steps are
/// `step_NNNN.spv`, and only interesting ones are kept as the next step's start, so the newest
/// step is not necessarily interesting — each is checked, newest first, by the same test.
fn best_step(scratch: &Scratch) -> Result<Vec<u8>, String> {
    let mut steps: Vec<PathBuf> = std::fs::read_dir(&scratch.outside)
        .map_err(|e| format!("{}: {e}", scratch.outside.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("step_") && n.ends_with(".spv"))
        })
        .collect();
    steps.sort();
    for step in steps.iter().rev() {
        let name = step
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let interesting = tool(
            "sh",
            &[scratch.inside("interesting.sh"), scratch.inside(name)],
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
        if interesting {
            return std::fs::read(step).map_err(|e| format!("{}: {e}", step.display()));
        }
    }
    std::fs::read(scratch.outside("original.spv")).map_err(|e| format!("original.spv: {e}"))
}
