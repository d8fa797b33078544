//! Running `spirv-val` (SPIRV-Tools) on an emitted module, for tests and the CLI.

use std::io::Write;
use std::process::{Command, Stdio};

/// The target environment modules are validated for.
pub const TARGET_ENV: &str = "vulkan1.1";

/// Why `spirv-val` did not accept a module.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ValidateError {
    /// `spirv-val` could not be started (Debian/Ubuntu package: `spirv-tools`).
    #[error("cannot run spirv-val (install the spirv-tools package): {0}")]
    Missing(String),
    /// `spirv-val` rejected the module.
    #[error("spirv-val rejected the module: {0}")]
    Rejected(String),
}

/// Validates `words` with `spirv-val --target-env vulkan1.1`, reading the module from stdin.
pub fn spirv_val(words: &[u32]) -> Result<(), ValidateError> {
    spirv_val_by(Command::new("spirv-val"), words)
}

impl ValidateError {
    /// Whether the validator refused the module only for not knowing
    /// `MaximallyReconvergesKHR` (SPIRV-Tools before `SPV_KHR_maximal_reconvergence`, such as
    /// Debian bookworm's 2023.1), which every module with subgroup operations carries.
    pub fn predates_maximal_reconvergence(&self) -> bool {
        matches!(self, ValidateError::Rejected(m) if m.contains("Invalid execution mode operand: 6023"))
    }
}

/// [`spirv_val`] with `spirv_val` as the command that starts it (another installation's, e.g.
/// inside a system root); the arguments are added here.
pub fn spirv_val_by(mut spirv_val: Command, words: &[u32]) -> Result<(), ValidateError> {
    let mut child = spirv_val
        .args(["--target-env", TARGET_ENV, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| ValidateError::Missing(e.to_string()))?;
    let bytes = crate::binary::to_bytes(words);
    let mut stdin = child.stdin.take().expect("stdin was piped");
    let written = stdin.write_all(&bytes);
    drop(stdin);
    let out = child
        .wait_with_output()
        .map_err(|e| ValidateError::Missing(e.to_string()))?;
    written.map_err(|e| ValidateError::Missing(format!("writing to spirv-val: {e}")))?;
    if out.status.success() {
        Ok(())
    } else {
        let mut msg = String::from_utf8_lossy(&out.stderr).into_owned();
        msg.push_str(&String::from_utf8_lossy(&out.stdout));
        Err(ValidateError::Rejected(msg.trim().to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_is_rejected_so_a_pass_means_something() {
        match spirv_val(&[0x0723_0203, 0x0001_0300, 0, 99, 0, 1, 2, 3]) {
            Err(ValidateError::Rejected(_)) => {}
            Err(ValidateError::Missing(m)) if std::env::var_os("CI").is_none() => {
                eprintln!("skipped: {m}");
            }
            other => panic!("spirv-val accepted garbage or is missing in CI: {other:?}"),
        }
    }
}
