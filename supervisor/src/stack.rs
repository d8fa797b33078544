//! A crash's own evidence: the command that crashed, run once more under gdb in batch mode,
//! gives the signal, the library that faulted and the frames above it. A crash in a driver is
//! then told apart by where it happened, not by what our program looked like — two programs
//! that crash the same function are one bug, and reducing a crash keeps that place.
//!
//! Distribution libraries carry no debug information, and Mesa's exports almost nothing, so
//! most driver frames have no name: such a frame is its library and the address inside it
//! (`libvulkan_radeon.so+0x2f1a40`, from the process's own mappings), which is what
//! `addr2line -e` takes once the library's debug symbols are installed. A name is used where
//! gdb has one (SPIRV-Tools' and LLVM's exported functions, our own binary).

use crate::{end, exit_class, wait_within};
use std::ffi::OsString;
use std::fmt;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::Duration;

/// The frames a stack keeps, innermost first.
const FRAMES: usize = 12;

/// Where a crash happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stack {
    /// The signal's name, `SIGSEGV`.
    pub signal: String,
    /// Innermost first.
    pub frames: Vec<Frame>,
}

/// One frame of a [`Stack`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The function, when gdb could name it.
    pub function: Option<String>,
    /// The file name of the library or executable it is in (`libvulkan_radeon.so`), when
    /// known.
    pub library: Option<String>,
    /// The address inside the library (or executable) it was loaded from, when known.
    pub offset: Option<u64>,
}

/// Libraries whose frames only carry a crash out (`abort`, `raise`, `__assert_fail`, C++'s
/// terminate): the faulting frame is the first one outside them.
const RUNTIME: &[&str] = &["libc.so", "ld-linux", "libstdc++.so", "libgcc_s.so"];

impl Frame {
    fn in_runtime(&self) -> bool {
        (self.library.as_deref()).is_some_and(|l| RUNTIME.iter().any(|r| l.starts_with(r)))
    }
}

impl fmt::Display for Frame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let library = self.library.as_deref().unwrap_or("?");
        match (&self.function, self.offset) {
            (Some(function), _) => write!(f, "{function} ({library})"),
            (None, Some(offset)) => write!(f, "{library}+{offset:#x}"),
            (None, None) => write!(f, "?? ({library})"),
        }
    }
}

impl Stack {
    /// The frame the crash is blamed on: the innermost outside the C and C++ runtimes.
    pub fn faulting(&self) -> Option<&Frame> {
        (self.frames.iter().find(|f| !f.in_runtime())).or(self.frames.first())
    }

    /// The crash's bucket: the signal and the faulting frame (`SIGSEGV at
    /// libvulkan_radeon.so+0x2f1a40`).
    pub fn signature(&self) -> String {
        match self.faulting() {
            Some(frame) => format!("{} at {frame}", self.signal),
            None => self.signal.clone(),
        }
    }
}

impl fmt::Display for Stack {
    /// The signal and one line per frame, as a report shows them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.signal)?;
        for (i, frame) in self.frames.iter().enumerate() {
            write!(f, "\n  #{i} {frame}")?;
        }
        Ok(())
    }
}

/// A command to run under gdb: `gdb` starts gdb (`["gdb"]`, or `["chroot", ROOT,
/// "/usr/bin/gdb"]`), and the program, its arguments, its environment and the file its stdin
/// reads are as gdb sees them.
pub struct Rerun<'a> {
    /// The command line that starts gdb.
    pub gdb: Vec<OsString>,
    /// The program that crashed.
    pub program: &'a Path,
    /// Its arguments.
    pub args: &'a [OsString],
    /// Its environment on top of gdb's (set by gdb, so that gdb itself runs without, e.g., a
    /// preloaded kernel shim).
    pub env: &'a [(OsString, OsString)],
    /// What its stdin reads (the requests that made it crash).
    pub stdin: Option<&'a Path>,
    /// How long the whole rerun may take, gdb's start included.
    pub limit: Duration,
}

impl Rerun<'_> {
    /// Runs the program under gdb: its [`Stack`] if it crashed again, `Ok(None)` if it did
    /// not, `Err` when gdb could not run or did not finish in time.
    pub fn stack(&self) -> Result<Option<Stack>, String> {
        let (gdb, before) = self.gdb.split_first().ok_or("no gdb command")?;
        let mut cmd = Command::new(gdb);
        cmd.args(before).args(["-batch", "-nx", "-q"]);
        for (k, v) in self.env {
            let mut set = OsString::from("set environment ");
            set.push(k);
            set.push("=");
            set.push(v);
            cmd.arg("-ex").arg(set);
        }
        // `run`'s words replace the program's arguments: they are given there, quoted for the
        // shell gdb starts the program with, before the redirections.
        let mut run = String::from("run");
        for arg in self.args {
            run.push(' ');
            run.push_str(&quoted(&arg.to_string_lossy()));
        }
        if let Some(stdin) = self.stdin {
            run.push_str(" < ");
            run.push_str(&quoted(&stdin.to_string_lossy()));
        }
        // The program's own output is not gdb's: only the stack is read.
        run.push_str(" > /dev/null 2> /dev/null");
        cmd.arg("-ex").arg(run);
        cmd.args(["-ex", &format!("bt {FRAMES}"), "-ex", "info proc mappings"]);
        cmd.arg(self.program);
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start gdb ({}): {e}", gdb.to_string_lossy()))?;
        let text = |pipe: Option<Box<dyn Read + Send>>| {
            thread::spawn(move || {
                let mut text = String::new();
                if let Some(mut pipe) = pipe {
                    let _ = pipe.read_to_string(&mut text);
                }
                text
            })
        };
        let out = text(child.stdout.take().map(|p| Box::new(p) as _));
        let err = text(child.stderr.take().map(|p| Box::new(p) as _));
        let status = match wait_within(&mut child, self.limit) {
            Some(status) => status.map_err(|e| format!("waiting for gdb: {e}"))?,
            None => {
                end(&mut child);
                return Err(format!("gdb did not finish within {:?}", self.limit));
            }
        };
        let (out, err) = (
            out.join().unwrap_or_default(),
            err.join().unwrap_or_default(),
        );
        if let Some(stack) = parse(&out) {
            return Ok(Some(stack));
        }
        // The program ran to its end (gdb then fails the commands that need a process).
        if out
            .lines()
            .any(|l| l.starts_with("[Inferior 1 (process ") && l.contains(" exited"))
        {
            return Ok(None);
        }
        Err(format!(
            "gdb ({}) did not run the program: {}",
            exit_class(&status),
            err.trim()
        ))
    }
}

/// `text` as one word of a POSIX shell.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// The stack in gdb's output of `run`, `bt` and `info proc mappings`; `None` when the
/// program did not stop on a signal.
pub fn parse(output: &str) -> Option<Stack> {
    let signal = output.lines().find_map(|l| {
        let (_, after) = l.split_once("received signal ")?;
        Some(after.split([',', ' ']).next()?.to_string())
    })?;
    let maps = mappings(output);
    let frames = (output.lines())
        .filter_map(|l| frame(l, &maps))
        .take(FRAMES)
        .collect();
    Some(Stack { signal, frames })
}

/// A loaded file's address range: start, end, the file offset at start, and its path.
type Mapping = (u64, u64, u64, String);

/// The file-backed mappings of `info proc mappings` (`Start End Size Offset [Perms] objfile`).
fn mappings(output: &str) -> Vec<Mapping> {
    (output.lines())
        .filter_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let hex = |w: &str| u64::from_str_radix(w.strip_prefix("0x")?, 16).ok();
            let (start, end, offset) = (
                hex(words.first()?)?,
                hex(words.get(1)?)?,
                hex(words.get(3)?)?,
            );
            let path = words.last().filter(|p| p.starts_with('/'))?;
            Some((start, end, offset, path.to_string()))
        })
        .collect()
}

/// One line of `bt`: `#3  0x00007f1c2a3b4c5d in radv_foo (x=1) at f.c:2` or `... in ?? () from
/// /usr/lib/x86_64-linux-gnu/libvulkan_radeon.so`.
fn frame(line: &str, maps: &[Mapping]) -> Option<Frame> {
    let rest = line.strip_prefix('#')?;
    let (number, rest) = rest.split_once(' ')?;
    number.parse::<u32>().ok()?;
    let rest = rest.trim_start();
    let (pc, rest) = match rest.strip_prefix("0x") {
        Some(hex) => {
            let (digits, after) = hex.split_once(' ')?;
            let after = after.strip_prefix("in ")?;
            (u64::from_str_radix(digits, 16).ok(), after)
        }
        None => (None, rest),
    };
    let (call, from) = match rest.rsplit_once(" from ") {
        Some((call, from)) => (call, Some(from.trim())),
        None => (rest.split(" at ").next().unwrap_or(rest), None),
    };
    // `name (arguments)`: a C++ name keeps its own parameter list.
    let name = call.rsplit_once(" (").map_or(call, |(name, _)| name).trim();
    // The mapping that holds the pc names the file as the process loaded it (gdb's `from` may
    // spell the same file another way, `/lib` for `/usr/lib`); `from` only without one.
    let mapped = pc.and_then(|pc| maps.iter().find(|(s, e, ..)| (*s..*e).contains(&pc)));
    let path = (mapped.map(|m| m.3.clone())).or_else(|| from.map(str::to_string));
    // The library's load address: where its mapping of file offset 0 starts.
    let offset = pc.zip(path.as_ref()).and_then(|(pc, path)| {
        let base = maps.iter().find(|(_, _, off, p)| p == path && *off == 0)?.0;
        pc.checked_sub(base)
    });
    let library = path.map(|p| p.rsplit('/').next().unwrap_or(&p).to_string());
    Some(Frame {
        function: (name != "??" && !name.is_empty()).then(|| name.to_string()),
        library,
        offset,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stripped_driver_frame_is_its_library_and_offset_and_the_c_library_is_passed_over() {
        let gdb = "\
[Thread debugging using libthread_db enabled]
Thread 1 \"vk-worker\" received signal SIGABRT, Aborted.
0x00007ffff7a9e95c in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#0  0x00007ffff7a9e95c in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007ffff7a49cc2 in raise () from /lib/x86_64-linux-gnu/libc.so.6
#2  0x00007ffff5612345 in ?? () from /lib/x86_64-linux-gnu/libvulkan_radeon.so
#3  0x0000555555612345 in vulkan_runner::device::Device::compile ()
process 4242
Mapped address spaces:

          Start Addr           End Addr       Size     Offset  Perms  objfile
      0x555555554000     0x555555600000    0xac000        0x0  r--p   /var/lib/gpufuzz/bin/gpufuzz
      0x555555600000     0x555555700000   0x100000    0xac000  r-xp   /var/lib/gpufuzz/bin/gpufuzz
      0x7ffff5400000     0x7ffff5500000   0x100000        0x0  r--p   /usr/lib/x86_64-linux-gnu/libvulkan_radeon.so
      0x7ffff5500000     0x7ffff5800000   0x300000   0x100000  r-xp   /usr/lib/x86_64-linux-gnu/libvulkan_radeon.so
      0x7ffff7a00000     0x7ffff7b00000   0x100000        0x0  r--p   /lib/x86_64-linux-gnu/libc.so.6
";
        let stack = parse(gdb).expect("a signal");
        assert_eq!(stack.signal, "SIGABRT");
        assert_eq!(stack.frames.len(), 4);
        assert_eq!(stack.frames[1].function.as_deref(), Some("raise"));
        // gdb's `/lib` is the mapping's `/usr/lib`: the offset is from the mapping.
        let driver = &stack.frames[2];
        assert_eq!(driver.library.as_deref(), Some("libvulkan_radeon.so"));
        assert_eq!(driver.offset, Some(0x212345));
        assert_eq!(stack.signature(), "SIGABRT at libvulkan_radeon.so+0x212345");
        // Frames of the executable are named after it too.
        assert_eq!(
            stack.frames[3].to_string(),
            "vulkan_runner::device::Device::compile (gpufuzz)"
        );
    }

    #[test]
    fn a_named_cpp_frame_keeps_its_parameter_list_and_no_signal_is_no_stack() {
        let gdb = "\
Program received signal SIGSEGV, Segmentation fault.
#0  0x00007ffff7e1a2b3 in spvtools::opt::LoopPeeling::PeelBefore(unsigned int) () from /lib/x86_64-linux-gnu/libSPIRV-Tools-opt.so
";
        let stack = parse(gdb).unwrap();
        assert_eq!(
            stack.signature(),
            "SIGSEGV at spvtools::opt::LoopPeeling::PeelBefore(unsigned int) (libSPIRV-Tools-opt.so)"
        );
        assert_eq!(
            parse("[Inferior 1 (process 7) exited normally]\nNo stack.\n"),
            None
        );
    }

    #[test]
    fn a_program_that_kills_itself_is_caught_again_under_gdb() {
        if Command::new("gdb").arg("--version").output().is_err() {
            eprintln!("SKIPPED: no gdb on this system (apt-get install gdb)");
            return;
        }
        let args = ["-c".into(), "kill -SEGV $$".into()];
        let rerun = Rerun {
            gdb: vec!["gdb".into()],
            program: Path::new("/bin/sh"),
            args: &args,
            env: &[("GPUFUZZ_STACK_TEST".into(), "1".into())],
            stdin: None,
            limit: Duration::from_secs(60),
        };
        let stack = rerun.stack().expect("gdb ran").expect("it crashed again");
        assert_eq!(stack.signal, "SIGSEGV");
        let top = stack.frames.first().expect("a frame");
        assert!(top.library.is_some(), "{stack}");
        let fine = ["-c".into(), "true".into()];
        let rerun = Rerun {
            args: &fine,
            ..rerun
        };
        assert_eq!(rerun.stack().unwrap(), None);
    }
}
