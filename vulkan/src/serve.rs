//! The worker process's loop: read a request from stdin, answer on stdout, until stdin
//! closes. The first request opens the device. After a fence timeout or a lost device the
//! loop stops without tearing the device down (the driver may still be running the shader);
//! the client kills the process.
//!
//! Nothing else in the worker may write to stdout: it carries the protocol. Drivers print
//! their warnings to stderr, which the client keeps for crash reports; before each answer the
//! worker writes [`END_OF_ANSWER`] there, so a compile's own stderr can be told apart.

use crate::device::Device;
use crate::job::RunError;
use crate::wire::{read_frame, write_frame, Request, Response, END_OF_ANSWER};
use std::io::{self, BufReader, BufWriter, Write};
use std::process::ExitCode;

/// Serves requests on stdin/stdout; the body of `vk-worker`.
pub fn serve() -> ExitCode {
    let mut input = BufReader::new(io::stdin().lock());
    let mut output = BufWriter::new(io::stdout().lock());
    let mut device: Option<Device> = None;
    loop {
        let frame = match read_frame(&mut input) {
            Ok(Some(f)) => f,
            Ok(None) => return ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("vk-worker: reading a request: {e}");
                return ExitCode::from(3);
            }
        };
        let (response, fatal) = match Request::decode(&frame) {
            Err(e) => (
                Response::Error(RunError::Failed(format!("bad request: {e}"))),
                true,
            ),
            Ok(Request::Open(index)) => match Device::open(index) {
                Ok(d) => {
                    let info = d.info().clone();
                    device = Some(d);
                    (Response::Opened(info), false)
                }
                Err(e) => (Response::Error(e), true),
            },
            Ok(Request::Compile(job)) => match device.as_mut() {
                None => (
                    Response::Error(RunError::Failed("job before the device was opened".into())),
                    true,
                ),
                Some(d) => match d.compile(&job) {
                    Ok(c) => (Response::Compiled(c), false),
                    Err(e) => (Response::Error(e), false),
                },
            },
            Ok(Request::Run { job, timeout }) => match device.as_mut() {
                None => (
                    Response::Error(RunError::Failed("job before the device was opened".into())),
                    true,
                ),
                Some(d) => match d.run(&job, timeout) {
                    Ok(out) => (Response::Finished(out), false),
                    Err(e) => {
                        let fatal = matches!(e, RunError::Timeout(_) | RunError::DeviceLost(_));
                        (Response::Error(e), fatal)
                    }
                },
            },
        };
        // Everything the driver printed for this request is on stderr before the mark, and
        // the mark before the answer: when the client has the answer, the mark is on its way.
        let mut err = io::stderr().lock();
        let _ = writeln!(err, "{END_OF_ANSWER}");
        let _ = err.flush();
        drop(err);
        if let Err(e) = write_frame(&mut output, &response.encode()) {
            eprintln!("vk-worker: writing a response: {e}");
            return ExitCode::from(3);
        }
        if fatal {
            // The device may be busy forever: never drop it (its destructor would wait).
            std::mem::forget(device);
            return ExitCode::from(4);
        }
    }
}
