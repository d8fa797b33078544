//! A stand-in driver worker for the driver targets' tests: a shell script speaking the
//! worker protocol, which opens a fake device and answers a compile as the test says (a
//! message on stderr, a crash, an empty capture) — what no real module can be made to do on
//! purpose.

use compiler::ir::Program;
use std::time::Duration;
use vulkan_runner::wire::{write_frame, Request, Response, END_OF_ANSWER};
use vulkan_runner::{Compiled, DeviceInfo, Executable, Worker, WorkerCommand, WorkerOptions};

/// A generated program the SPIR-V emitter takes.
pub fn program() -> Program {
    let mut bytes = Vec::new();
    (0..)
        .find_map(|i| {
            crate::rng::input_bytes(36, i, 256, 1024, &mut bytes);
            let p = crate::case::decode(&bytes)?.program;
            super::module::emit(&p, &Default::default())
                .is_ok()
                .then_some(p)
        })
        .expect("some program emits")
}

/// How a stand-in worker answers the compile request, after printing its stderr.
#[derive(Clone, Copy, Debug)]
pub enum Answer {
    /// A capture without executables.
    Empty,
    /// SIGABRT.
    Abort,
    /// SIGSEGV in the first process; a process started after it prints nothing and answers
    /// with one executable (a worker whose state, not the program, made it crash).
    CrashOnce,
}

/// A stand-in worker that opens a fake device and, on the compile request, prints `stderr`
/// and then answers as `answer` says; and the folder of its files, for the caller to remove.
pub fn fake_worker(stderr: &str, answer: Answer) -> (Worker, std::path::PathBuf) {
    // One folder per stand-in: tests run in parallel, each with its own files.
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("gpufuzz-fake-worker-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let frame = |r: Response| {
        let mut b = Vec::new();
        write_frame(&mut b, &r.encode()).unwrap();
        b
    };
    let info = DeviceInfo {
        name: "AMD Radeon RX 6800 (RADV NAVI21)".into(),
        driver_name: "radv".into(),
        driver_info: "Mesa 25.0.7".into(),
        api_version: "1.4.305".into(),
        ..DeviceInfo::default()
    };
    std::fs::write(dir.join("opened"), frame(Response::Opened(info))).unwrap();
    std::fs::write(
        dir.join("compiled"),
        frame(Response::Compiled(Compiled::default())),
    )
    .unwrap();
    let one = Compiled {
        executables: vec![Executable {
            name: "compute".into(),
            subgroup_size: 64,
            ..Executable::default()
        }],
        ..Compiled::default()
    };
    std::fs::write(dir.join("compiled-one"), frame(Response::Compiled(one))).unwrap();
    std::fs::write(dir.join("stderr"), stderr).unwrap();
    let open_len = 4 + Request::Open(0).encode().len();
    let answered =
        |file: &str| format!("printf '%s\\n' '{END_OF_ANSWER}' >&2; cat {file}; cat >/dev/null");
    let answer = match answer {
        Answer::Empty => format!("cat stderr >&2 && {}", answered("compiled")),
        Answer::Abort => "cat stderr >&2 && kill -ABRT $$".to_string(),
        Answer::CrashOnce => format!(
            "if [ -e crashed ]; then {}; else touch crashed; cat stderr >&2; kill -SEGV $$; fi",
            answered("compiled-one")
        ),
    };
    // The client sends the compile request only after reading the open answer, so `head`
    // cannot read past the open request.
    let script = format!(
        "cd {dir:?} && head -c {open_len} >/dev/null && printf '%s\\n' '{END_OF_ANSWER}' >&2 && \
         cat opened && head -c 1 >/dev/null && {answer}"
    );
    let mut o = WorkerOptions::new(WorkerCommand {
        program: "/bin/sh".into(),
        args: vec!["-c".into(), script.into()],
    });
    o.compile_timeout = Duration::from_secs(10);
    let worker = Worker::start(o).expect("the stand-in worker opens its device");
    (worker, dir)
}
