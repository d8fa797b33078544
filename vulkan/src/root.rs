//! Processes run inside another system's root (`chroot`): how a driver newer than the
//! system's runs. Debian sid's Mesa needs sid's libc, so `scripts/mesa-sid.sh` installs it in a
//! root of its own; a worker started there loads that root's loader, drivers and libraries,
//! and nothing of the system's.
//!
//! Our own worker executable is built on the system, not in the root, so it is copied in (once
//! per build: the copy is named after its size and modification time) and runs there
//! unchanged — a newer libc runs programs linked against an older one. The environment given
//! to the process is set inside the root (`chroot ROOT /usr/bin/env K=V … PROGRAM`), not on the
//! `chroot` command: a `LD_PRELOAD` naming a library of the root must not be loaded into the
//! system's `chroot`, where that path means nothing.

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use supervisor::stack::{Rerun, Stack};

/// Why a root cannot run processes. Each variant's message is its documentation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[allow(missing_docs)]
pub enum RootError {
    #[error("{} is not a system root (no usr/bin/env): run scripts/mesa-sid.sh", root.display())]
    NotASystemRoot { root: PathBuf },
    #[error("{}/proc is not mounted (after a reboot): run scripts/mesa-sid.sh again", root.display())]
    ProcNotMounted { root: PathBuf },
}

/// Why a crashed command run once more under gdb gave no stack. Each variant's message is its
/// documentation. It travels in a worker's crash report, which is `Clone` and `Eq` and crosses
/// the wire: an I/O error is kept as its text, and so is gdb's own failure (the supervisor
/// reports it as text).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[allow(missing_docs)]
pub enum RerunError {
    #[error("no gdb in {} (scripts/mesa-sid.sh installs it)", root.display())]
    NoGdbInRoot { root: PathBuf },
    #[error("cannot write {}: {error}", file.display())]
    CannotWriteInput { file: PathBuf, error: String },
    #[error("it did not crash again under gdb")]
    DidNotCrashAgain,
    /// This system's gdb would not start.
    #[error("{error} (apt-get install gdb)")]
    NoSystemGdb { error: String },
    #[error("{error}")]
    Gdb { error: String },
}

/// Where copies of our executables live inside a root.
const OURS: &str = "var/lib/gpufuzz/bin";

/// A command running `program` (a path inside `root`) with `args` and `env`, inside `root`.
pub fn command(
    root: &Path,
    program: &Path,
    args: &[OsString],
    env: &[(OsString, OsString)],
) -> Command {
    let mut cmd = Command::new("chroot");
    cmd.arg(root).arg("/usr/bin/env");
    for (k, v) in env {
        let mut kv = k.clone();
        kv.push("=");
        kv.push(v);
        cmd.arg(kv);
    }
    cmd.arg(program).args(args);
    cmd
}

/// `executable` (a file of this system) copied into `root`, if not there yet; its path as
/// seen inside the root.
pub fn place(root: &Path, executable: &Path) -> io::Result<PathBuf> {
    let meta = std::fs::metadata(executable)?;
    let modified = meta
        .modified()?
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let name = executable
        .file_name()
        .unwrap_or_else(|| OsStr::new("program"))
        .as_bytes();
    let inside = PathBuf::from("/").join(OURS).join(format!(
        "{}-{}-{modified}",
        String::from_utf8_lossy(name),
        meta.len()
    ));
    let outside = root.join(inside.strip_prefix("/").expect("absolute"));
    if !outside.is_file() {
        std::fs::create_dir_all(root.join(OURS))?;
        // Copied under a name of this call's own, then renamed: processes and threads
        // starting workers at the same time each see either no copy or a whole one.
        static COPIES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let copy = COPIES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let partial = outside.with_extension(format!("partial-{}-{copy}", std::process::id()));
        std::fs::copy(executable, &partial)?;
        std::fs::rename(&partial, &outside)?;
    }
    Ok(inside)
}

/// Why `root` cannot run processes, if so: it is not a directory, or its `/proc` is not
/// mounted (`scripts/mesa-sid.sh` mounts it, again after a reboot).
pub fn check(root: &Path) -> Result<(), RootError> {
    if !root.join("usr/bin/env").is_file() {
        return Err(RootError::NotASystemRoot { root: root.into() });
    }
    if !root.join("proc/self").exists() {
        return Err(RootError::ProcNotMounted { root: root.into() });
    }
    Ok(())
}

/// Where a crashed command crashes when run once more under gdb, in `root` (with the root's
/// gdb) or on this system: `program` (a path as the command sees it) with `args` and `env`,
/// its stdin reading `stdin`. `Err` says why there is no stack: no gdb, gdb failed or timed
/// out, or the command did not crash again.
pub fn crash_stack(
    root: Option<&Path>,
    program: &Path,
    args: &[OsString],
    env: &[(OsString, OsString)],
    stdin: &[u8],
    limit: std::time::Duration,
) -> Result<Stack, RerunError> {
    static RERUNS: AtomicU64 = AtomicU64::new(0);
    let name = format!(
        "gpufuzz-crash-{}-{}.in",
        std::process::id(),
        RERUNS.fetch_add(1, Ordering::Relaxed)
    );
    let (gdb, file, seen_as): (Vec<OsString>, _, _) = match root {
        None => {
            let file = std::env::temp_dir().join(&name);
            (vec!["gdb".into()], file.clone(), file)
        }
        Some(root) => {
            if !root.join("usr/bin/gdb").is_file() {
                return Err(RerunError::NoGdbInRoot { root: root.into() });
            }
            let gdb = vec!["chroot".into(), root.into(), "/usr/bin/gdb".into()];
            (
                gdb,
                root.join("tmp").join(&name),
                Path::new("/tmp").join(&name),
            )
        }
    };
    std::fs::write(&file, stdin).map_err(|e| RerunError::CannotWriteInput {
        file: file.clone(),
        error: e.to_string(),
    })?;
    let rerun = Rerun {
        gdb,
        program,
        args,
        env,
        stdin: Some(&seen_as),
        limit,
    };
    let stack = rerun.stack();
    let _ = std::fs::remove_file(&file);
    match stack {
        Ok(Some(stack)) => Ok(stack),
        Ok(None) => Err(RerunError::DidNotCrashAgain),
        // The supervisor's errors are text; this prefix is its failure to start gdb.
        Err(error) if root.is_none() && error.starts_with("cannot start gdb") => {
            Err(RerunError::NoSystemGdb { error })
        }
        Err(error) => Err(RerunError::Gdb { error }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_is_set_inside_the_root_and_the_program_follows_it() {
        let cmd = command(
            Path::new("/r"),
            Path::new("/var/lib/gpufuzz/bin/gpufuzz-1-2"),
            &["vk-worker".into()],
            &[("LD_PRELOAD".into(), "/usr/lib/shim.so".into())],
        );
        assert_eq!(cmd.get_program(), "chroot");
        let args: Vec<&OsStr> = cmd.get_args().collect();
        assert_eq!(
            args,
            [
                "/r",
                "/usr/bin/env",
                "LD_PRELOAD=/usr/lib/shim.so",
                "/var/lib/gpufuzz/bin/gpufuzz-1-2",
                "vk-worker"
            ]
        );
        // Nothing is set on chroot itself.
        assert_eq!(cmd.get_envs().count(), 0);
    }

    #[test]
    fn an_executable_is_copied_once_and_named_after_its_build() {
        let root = std::env::temp_dir().join(format!("gpufuzz-root-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        let exe = root.join("tool");
        std::fs::write(&exe, b"#!/bin/sh\n").unwrap();
        let inside = place(&root, &exe).unwrap();
        assert!(inside.starts_with("/var/lib/gpufuzz/bin"));
        let copy = root.join(inside.strip_prefix("/").unwrap());
        assert_eq!(std::fs::read(&copy).unwrap(), b"#!/bin/sh\n");
        // The same build again: the same copy, not another.
        assert_eq!(place(&root, &exe).unwrap(), inside);
        assert_eq!(
            std::fs::read_dir(copy.parent().unwrap()).unwrap().count(),
            1
        );
        // Not a root.
        let err = check(&root).unwrap_err();
        assert_eq!(err, RootError::NotASystemRoot { root: root.clone() });
        assert_eq!(
            err.to_string(),
            format!(
                "{} is not a system root (no usr/bin/env): run scripts/mesa-sid.sh",
                root.display()
            )
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn threads_placing_the_same_executable_at_once_all_get_the_whole_copy() {
        let root = std::env::temp_dir().join(format!("gpufuzz-root-race-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        let exe = root.join("tool");
        let body = vec![7u8; 1 << 20];
        std::fs::write(&exe, &body).unwrap();
        let placed: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8).map(|_| s.spawn(|| place(&root, &exe))).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let first = placed[0].as_ref().unwrap().clone();
        for p in &placed {
            assert_eq!(p.as_ref().unwrap(), &first);
        }
        assert_eq!(
            std::fs::read(root.join(first.strip_prefix("/").unwrap())).unwrap(),
            body
        );
        std::fs::remove_dir_all(&root).unwrap();
    }
}
