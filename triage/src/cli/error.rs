//! The errors of the `gpufuzz` commands, typed by who is at fault, so the message and the exit
//! status follow from the kind rather than from the text: a usage error lists what exists, an
//! I/O error names the file it is about. Every kind ends the command with exit status 2
//! (1 is a finding, 0 a clean run; docs/fuzzing.md); text is made only when it is printed.
//! The triage library's errors arrive typed ([`triage::Error`]) and take the kind that says who
//! is at fault; the other library crates' errors arrive as strings (their own messages, already
//! naming the file and line where there is one) and become [`CliError::Failed`] unless the
//! caller knows better.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Why a command stopped.
#[derive(Debug)]
pub enum CliError {
    /// The command line names something that does not exist, gives a value out of range or
    /// flags that do not go together; the message says what exists or what to type instead.
    Usage(String),
    /// A file or folder that cannot be read, written or created.
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        error: io::Error,
    },
    /// An input file whose content is wrong (a program's text, a case header, raw bytes the
    /// generator cannot decode); the message names the file and line.
    Input(String),
    /// Anything else that stops the command, said in the message (a driver that does not
    /// open, a run that cannot go on).
    Failed(String),
}

impl CliError {
    /// For `map_err`: an I/O error about `path`.
    pub fn io(path: &Path) -> impl FnOnce(io::Error) -> CliError + '_ {
        move |error| CliError::Io {
            path: path.to_path_buf(),
            error,
        }
    }

    /// The exit status of a command that stopped with this error: 2 for every kind, the
    /// status the documentation promises for "the command could not do what was asked" (a
    /// finding is 1, and no error may be mistaken for one).
    pub fn status(&self) -> u8 {
        match self {
            CliError::Usage(_) | CliError::Io { .. } | CliError::Input(_) | CliError::Failed(_) => {
                2
            }
        }
    }

    /// [`CliError::status`] as the process's exit code.
    pub fn exit_code(&self) -> ExitCode {
        ExitCode::from(self.status())
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Usage(m) | CliError::Input(m) | CliError::Failed(m) => f.write_str(m),
            CliError::Io { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for CliError {}

/// The library crates' errors: their text, already saying what went wrong.
impl From<String> for CliError {
    fn from(message: String) -> CliError {
        CliError::Failed(message)
    }
}

/// The triage library's errors, by who is at fault; each message is the error's own.
impl From<triage::Error> for CliError {
    fn from(e: triage::Error) -> CliError {
        match e {
            triage::Error::Io { path, error } => CliError::Io { path, error },
            triage::Error::Parse(_)
            | triage::Error::InvalidProgram { .. }
            | triage::Error::StatsJson { .. } => CliError::Input(e.to_string()),
            _ => CliError::Failed(e.to_string()),
        }
    }
}

/// Usage errors from the library crates' checks of a name or value.
pub trait UsageContext<T> {
    /// An error of a check of the command line (a library's `String`, or a
    /// [`triage::Error`]), as a usage error.
    fn usage(self) -> Result<T, CliError>;
}

impl<T, E: fmt::Display> UsageContext<T> for Result<T, E> {
    fn usage(self) -> Result<T, CliError> {
        self.map_err(|e| CliError::Usage(e.to_string()))
    }
}
