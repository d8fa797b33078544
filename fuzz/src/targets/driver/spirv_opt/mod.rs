//! The optional `spirv-opt` stage of the `vulkan` target: SPIRV-Tools' optimiser (the one in
//! most games' shader pipelines) run as a process between our emitter and the driver, with a
//! pass list the case draws from its bytes. A difference that appears only with a pass list is
//! SPIRV-Tools' bug (or the driver's on code only spirv-opt makes); its findings carry the
//! class `spirv-opt` and the list in the case configuration (`vulkan_spirv_opt=ccp+merge-blocks`),
//! which the reducer can reset to none.
//!
//! The pool holds passes that keep the meaning of a valid module: no `--relax-float-ops`,
//! `--convert-relaxed-to-half` or `--graphics-robust-access`, which change results on purpose.

use arbitrary::Unstructured;
use spirv_emit::binary::{from_bytes, to_bytes};
use std::ffi::OsString;
use std::fmt;
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::str::FromStr;
use std::sync::OnceLock;
use supervisor::stack::Stack;
use vulkan_runner::root;

pub mod reduce;
pub use reduce::{reduce, Reduced, Scratch};

/// The passes a case may draw (`spirv-opt --NAME`; `O` is the whole `-O` recipe).
pub const POOL: &[&str] = &[
    "O",
    "ccp",
    "cfg-cleanup",
    "combine-access-chains",
    "convert-local-access-chains",
    "copy-propagate-arrays",
    "eliminate-dead-branches",
    "eliminate-dead-code-aggressive",
    "eliminate-dead-inserts",
    "eliminate-insert-extract",
    "eliminate-local-multi-store",
    "eliminate-local-single-block",
    "eliminate-local-single-store",
    "if-conversion",
    "inline-entry-points-exhaustive",
    "local-redundancy-elimination",
    "loop-invariant-code-motion",
    "loop-peeling",
    "loop-unroll",
    "loop-unswitch",
    "merge-blocks",
    "merge-return",
    "private-to-local",
    "redundancy-elimination",
    "scalar-replacement",
    "simplify-instructions",
    "ssa-rewrite",
    "strength-reduction",
    "vector-dce",
];

/// A `spirv-opt` pass list; empty means the stage is off.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpirvOptPasses(pub Vec<&'static str>);

impl SpirvOptPasses {
    /// One to six passes from the pool, repeats allowed (spirv-opt runs them in order).
    pub fn draw(u: &mut Unstructured) -> arbitrary::Result<SpirvOptPasses> {
        let n = u.int_in_range(1..=6)?;
        let passes = (0..n)
            .map(|_| u.choose(POOL).copied())
            .collect::<arbitrary::Result<_>>()?;
        Ok(SpirvOptPasses(passes))
    }

    /// `spirv-opt`'s arguments before the files: the environment, then the passes in order.
    pub fn arguments(&self) -> Vec<String> {
        let passes = self.0.iter().map(|p| match *p {
            "O" => "-O".to_string(),
            p => format!("--{p}"),
        });
        std::iter::once("--target-env=vulkan1.1".to_string())
            .chain(passes)
            .collect()
    }

    /// Whether the stage is off.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for SpirvOptPasses {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.join("+"))
    }
}

impl FromStr for SpirvOptPasses {
    type Err = String;

    /// `ccp+merge-blocks` (empty: no stage); an unknown pass lists the pool.
    fn from_str(s: &str) -> Result<Self, String> {
        let mut passes = Vec::new();
        for name in s.split('+').map(str::trim).filter(|n| !n.is_empty()) {
            let known = POOL.iter().find(|&&p| p == name).ok_or_else(|| {
                format!(
                    "unknown spirv-opt pass {name:?}; passes: {}",
                    POOL.join(", ")
                )
            })?;
            passes.push(*known);
        }
        Ok(SpirvOptPasses(passes))
    }
}

impl crate::targets::knob_values::KnobValues for SpirvOptPasses {
    fn values() -> String {
        format!(
            "spirv-opt passes joined by `+` (empty: none) from {}",
            POOL.join(", ")
        )
    }
}

/// SPIRV-Tools' `tool` (`spirv-opt`, `spirv-reduce`) with `args`: the one of the Mesa under
/// test (`--mesa`), inside its root when it has one, else the system's. Paths in `args` are
/// the tool's: inside the root ([`Scratch`] gives a folder both sides see).
pub fn tool(tool: &str, args: &[String]) -> Command {
    let args: Vec<OsString> = args.iter().map(Into::into).collect();
    match crate::targets::driver::mesa::current().root() {
        Some(root) => root::command(root, &program(tool), &args, &[]),
        None => {
            let mut c = Command::new(tool);
            c.args(args);
            c
        }
    }
}

/// `tool`'s program as its process sees it: in the Mesa's root, `/usr/bin`'s; on this system,
/// the bare name, looked up in `PATH`.
fn program(tool: &str) -> PathBuf {
    match crate::targets::driver::mesa::current().root() {
        Some(_) => Path::new("/usr/bin").join(tool),
        None => PathBuf::from(tool),
    }
}

/// `spirv-opt --version`'s first line (`SPIRV-Tools v2026.4 …`), or `None` when it cannot be
/// started (read once per process).
pub fn version() -> Option<&'static str> {
    static VERSION: OnceLock<Option<String>> = OnceLock::new();
    VERSION
        .get_or_init(|| {
            let out = tool("spirv-opt", &["--version".into()])
                .output()
                .ok()
                .filter(|o| o.status.success())?;
            // 2023.1 prints it on stdout, 2026.4 on stderr.
            let text = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
            text.lines()
                .map(str::trim)
                .find(|l| l.starts_with("SPIRV-Tools"))
                .map(str::to_string)
        })
        .as_deref()
}

/// Whether the `spirv-opt` in use reads `MaximallyReconvergesKHR`, which every module with
/// subgroup operations carries: SPIRV-Tools 2023.1 (Debian bookworm's) refuses it ("Invalid
/// execution mode operand: 6023"), 2026.4 reads it. Releases from 2024 on are taken to read it
/// (the extension was published that year); none between was measured.
pub fn reads_maximal_reconvergence() -> bool {
    let year = version().and_then(|v| {
        let at = v.find(" v")? + 2;
        v.get(at..at + 4)?.parse::<u32>().ok()
    });
    year.is_some_and(|y| y >= 2024)
}

/// Whether `spirv-opt` can be started.
pub fn installed() -> bool {
    version().is_some()
}

/// The command line that runs `passes` on `in.spv` as gpufuzz does, for a person to paste
/// (inside the Mesa's root when SPIRV-Tools is there).
pub fn command_line(passes: &SpirvOptPasses, input: &str, output: &str) -> String {
    let line = format!(
        "spirv-opt {} {input} -o {output}",
        passes.arguments().join(" ")
    );
    match crate::targets::driver::mesa::current().root() {
        Some(root) => format!("chroot {} {line}", root.display()),
        None => line,
    }
}

/// How a `spirv-opt` run failed: what a SPIRV-Tools bug report states, and what
/// [`reduce`]'s interestingness test checks again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The pass list run.
    pub passes: SpirvOptPasses,
    /// Its exit status (`None` when a signal ended it).
    pub code: Option<i32>,
    /// The signal that ended it (`Some(11)`: a segmentation fault).
    pub signal: Option<i32>,
    /// What it printed on stderr.
    pub stderr: String,
    /// For a crash, where it crashed when run once more under gdb (or why that is not
    /// known); for a refusal, that it did not crash.
    pub stack: Result<Stack, String>,
}

impl Failure {
    /// Its bucket: `spirv-opt` for a refused module, and for a crash where it crashed
    /// (`spirv-opt SIGSEGV at spvtools::opt::… (libSPIRV-Tools-opt.so)`) when gdb says.
    pub fn class(&self) -> String {
        match &self.stack {
            Ok(stack) => format!("spirv-opt {}", stack.signature()),
            Err(_) => "spirv-opt".into(),
        }
    }

    /// The status a POSIX shell reports for it (`128 + signal` for a crash).
    pub fn shell_status(&self) -> i32 {
        match (self.signal, self.code) {
            (Some(sig), _) => 128 + sig,
            (None, Some(code)) => code,
            (None, None) => 1,
        }
    }

    /// Whether the run crashed (ended by a signal) rather than refused the module.
    pub fn crashed(&self) -> bool {
        self.signal.is_some()
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let status = supervisor::ending(self.signal, self.code);
        write!(f, "spirv-opt {} failed ({status})", self.passes)?;
        if !self.stderr.trim().is_empty() {
            write!(f, ": {}", self.stderr.trim())?;
        }
        match (&self.stack, self.crashed()) {
            (Ok(stack), _) => write!(f, "; under gdb: {stack}"),
            (Err(why), true) => write!(f, "; no stack: {why}"),
            (Err(_), false) => Ok(()),
        }
    }
}

/// `words` through `spirv-opt --target-env=vulkan1.1` with `passes`; the error holds what it
/// printed.
pub fn optimise(words: &[u32], passes: &SpirvOptPasses) -> Result<Vec<u32>, String> {
    run(words, passes).map_err(|e| e.to_string())
}

/// [`optimise`], with a failure of spirv-opt itself (not of starting it) as a [`Failure`].
pub fn run(words: &[u32], passes: &SpirvOptPasses) -> Result<Vec<u32>, RunFailure> {
    let mut args = passes.arguments();
    args.extend(["-".into(), "-o".into(), "-".into()]);
    let mut child = tool("spirv-opt", &args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            RunFailure::NotStarted(format!("cannot run spirv-opt (package spirv-tools): {e}"))
        })?;
    let bytes = to_bytes(words);
    let mut stdin = child.stdin.take().expect("stdin is piped");
    // Written from a thread: spirv-opt may start writing before it has read everything.
    let writer = std::thread::spawn(move || stdin.write_all(&bytes));
    let out = child
        .wait_with_output()
        .map_err(|e| RunFailure::NotStarted(format!("spirv-opt: {e}")))?;
    let _ = writer.join();
    if !out.status.success() {
        let signal = out.status.signal();
        let stack = match signal {
            Some(_) => crash_stack(&args, &to_bytes(words)),
            None => Err("it did not crash".into()),
        };
        return Err(RunFailure::Failed(Failure {
            passes: passes.clone(),
            code: out.status.code(),
            signal,
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            stack,
        }));
    }
    from_bytes(&out.stdout).ok_or_else(|| {
        RunFailure::NotStarted(format!(
            "spirv-opt {passes} wrote {} bytes, not a module",
            out.stdout.len()
        ))
    })
}

/// Where spirv-opt with `args` crashes on `module` (its stdin) under gdb, or why not known.
fn crash_stack(args: &[String], module: &[u8]) -> Result<Stack, String> {
    let args: Vec<OsString> = args.iter().map(Into::into).collect();
    let root = crate::targets::driver::mesa::current().root();
    root::crash_stack(root, &program("spirv-opt"), &args, &[], module, GDB_LIMIT)
        .map_err(|e| e.to_string())
}

/// How long spirv-opt under gdb may take (it ran in milliseconds; gdb reads its symbols).
const GDB_LIMIT: std::time::Duration = std::time::Duration::from_secs(60);

/// Why [`run`] gave no module.
#[derive(Clone, Debug)]
pub enum RunFailure {
    /// spirv-opt ran and failed: its bug, or a module it refuses.
    Failed(Failure),
    /// It could not be run, or wrote no module.
    NotStarted(String),
}

impl fmt::Display for RunFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunFailure::Failed(e) => e.fmt(f),
            RunFailure::NotStarted(e) => f.write_str(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pass_lists_print_and_parse_back_and_unknown_passes_are_refused() {
        let mut u = Unstructured::new(&[7, 1, 2, 3, 200, 9, 44, 5]);
        let drawn = SpirvOptPasses::draw(&mut u).unwrap();
        assert!(!drawn.is_empty());
        assert_eq!(drawn.to_string().parse::<SpirvOptPasses>().unwrap(), drawn);
        assert_eq!(
            "".parse::<SpirvOptPasses>().unwrap(),
            SpirvOptPasses::default()
        );
        let e = "ccp+fast-math".parse::<SpirvOptPasses>().unwrap_err();
        assert!(e.contains("fast-math") && e.contains("merge-blocks"), "{e}");
    }
}
