//! The executable worker processes start from: a private copy of this process's own code.
//!
//! A run starts workers all along (a Vulkan worker after each crash or timeout, a judging
//! worker after each hang). Were they started from the file this process was started from, a
//! rebuild of `gpufuzz` during the run would break them (the file is gone: every start fails)
//! or, worse, change the code under test halfway. So the first start copies this process's
//! own code — `/proc/self/exe`, which names it even after the file is replaced — into a
//! folder of this process's own, keeping the original's modification time (so a system root's
//! copy of it, keyed by size and time, is shared by every run of the same build), and every
//! worker starts from that copy. A worker started from a copy uses it as it is.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Prefix of the folders copies live in, under the temporary folder: `gpufuzz-exe-<pid>`.
const PREFIX: &str = "gpufuzz-exe-";

/// The executable to start workers from (see the module's documentation). When the copy
/// cannot be made, this process's own path, with a warning saying what a rebuild would do.
pub fn worker_program() -> PathBuf {
    static PROGRAM: OnceLock<PathBuf> = OnceLock::new();
    PROGRAM
        .get_or_init(|| {
            let own = std::env::current_exe().unwrap_or_else(|_| "gpufuzz".into());
            if is_copy(&own) {
                return own;
            }
            match copy_of_self(&own) {
                Ok(copy) => copy,
                Err(e) => {
                    eprintln!(
                        "warning: cannot copy {} for its workers ({e}): rebuilding it during this \
                         run will break them",
                        own.display()
                    );
                    own
                }
            }
        })
        .clone()
}

/// Whether `exe` is such a copy.
fn is_copy(exe: &Path) -> bool {
    exe.parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d.to_string_lossy().starts_with(PREFIX))
}

/// Copies this process's code to `<tmp>/gpufuzz-exe-<pid>/<name>` (removing the folders of
/// processes that are gone); the copy's path.
fn copy_of_self(own: &Path) -> std::io::Result<PathBuf> {
    let tmp = std::env::temp_dir();
    remove_stale(&tmp);
    let dir = tmp.join(format!("{PREFIX}{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let name = own.file_name().unwrap_or_else(|| "gpufuzz".as_ref());
    let copy = dir.join(name);
    let code = Path::new("/proc/self/exe");
    let modified = std::fs::metadata(code)?.modified()?;
    let partial = dir.join(".partial");
    std::fs::copy(code, &partial)?;
    std::fs::File::options()
        .write(true)
        .open(&partial)?
        .set_modified(modified)?;
    std::fs::rename(&partial, &copy)?;
    Ok(copy)
}

/// Removes the copy folders of processes that no longer run.
fn remove_stale(tmp: &Path) {
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_string_lossy()
            .strip_prefix(PREFIX)
            .map(str::to_owned)
        else {
            continue;
        };
        let gone = pid
            .parse::<u32>()
            .is_ok_and(|p| !Path::new(&format!("/proc/{p}")).exists());
        if gone {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_start_from_a_copy_with_the_originals_time() {
        let program = worker_program();
        assert!(is_copy(&program), "{}", program.display());
        assert_eq!(worker_program(), program, "one copy per process");
        let own = std::env::current_exe().unwrap();
        let (a, b) = (
            std::fs::metadata(&own).unwrap(),
            std::fs::metadata(&program).unwrap(),
        );
        assert_eq!(a.len(), b.len());
        assert_eq!(a.modified().unwrap(), b.modified().unwrap());
        assert_eq!(
            std::fs::read(&own).unwrap(),
            std::fs::read(&program).unwrap()
        );
    }
}
