//! `gpufuzz`: differential fuzzing of GPU shader compilers, from the command line.

mod cli;

use clap::Parser;
use std::process::ExitCode;

// The fuzz loop allocates and frees small vectors per program and per compile; mimalloc's
// thread-local free lists make that cheaper than glibc's malloc (docs/performance.md). It is
// built without transparent huge pages (`no_thp`): its arenas, purged and touched again as the
// loop runs, otherwise fault in as 2 MiB pages that the kernel clears: 3.2-4.4% of
// `gpufuzz bench`'s CPU samples were the kernel's, 0.4-0.5% without.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    quiet_broken_pipe();
    let args = cli::Cli::parse();
    match cli::dispatch(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            e.exit_code()
        }
    }
}

/// Ends the process quietly with status 0 when stdout or stderr is a closed pipe
/// (`gpufuzz run F.ir | head -1`): the reader has all it wanted, which is no error. Rust
/// ignores SIGPIPE and `println!` panics instead; this hook turns that one panic into an exit.
fn quiet_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to std") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}
