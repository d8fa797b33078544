//! Output paths checked before any work: a folder is created and a file written and removed
//! in it, so a run that could not keep its results stops at once with the reason.

use super::error::CliError;
use std::path::Path;

/// Creates `dir` (and its parents) and checks that files can be written in it.
pub fn prepare_dir(dir: &Path) -> Result<(), CliError> {
    std::fs::create_dir_all(dir).map_err(CliError::io(dir))?;
    let probe = dir.join(format!(".gpufuzz-write-test-{}", std::process::id()));
    std::fs::write(&probe, b"probe").map_err(CliError::io(dir))?;
    std::fs::remove_file(&probe).map_err(CliError::io(&probe))
}

/// Checks that `file` can be written later: its folder exists (created if needed) and takes
/// files, and `file` itself is not a folder.
pub fn prepare_file(file: &Path) -> Result<(), CliError> {
    if file.is_dir() {
        return Err(CliError::Usage(format!(
            "{}: is a folder, expected a file",
            file.display()
        )));
    }
    match file.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => prepare_dir(dir),
        None => prepare_dir(Path::new(".")),
    }
}
