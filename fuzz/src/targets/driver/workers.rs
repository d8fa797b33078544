//! Worker processes for every real-driver target: a driver (lavapipe, or a real one over Mesa's
//! no-op drm-shim) in a process of its own. A driver reads its device and debug switches from
//! its environment once, at start, so each environment a case asks for is one worker process;
//! a thread keeps the most recently used ones alive, since starting one costs a process and a
//! device open (tens of milliseconds) while a compile costs a few.

use std::cell::RefCell;
use std::ffi::OsString;
use vulkan_runner::{RunError, Worker, WorkerOptions};

/// What tells two workers apart: the target and the environment it gives the driver.
pub type Key = (&'static str, Vec<(OsString, OsString)>);

/// Workers a thread keeps (about 100 (device, switches) combinations are drawn, most of the
/// mass in a few dozen). An idle worker holds about 24 MB (RSS of a live anv one, measured); a
/// simulated LRU over anv's draws misses 61% of cases with 16 workers, 23% with 48, and each
/// miss starts a process and opens a device.
const WORKERS_PER_THREAD: usize = 48;

thread_local! {
    /// This thread's workers, most recently used last.
    static WORKERS: RefCell<Vec<(Key, Worker)>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with this thread's worker for `key`, starting one with `options()` if needed.
pub fn with_worker<R>(
    key: Key,
    options: impl FnOnce() -> Result<WorkerOptions, String>,
    f: impl FnOnce(&mut Worker) -> R,
) -> Result<R, RunError> {
    WORKERS.with_borrow_mut(|workers| {
        let index = match workers.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                let options = options().map_err(RunError::NoVulkan)?;
                if workers.len() >= WORKERS_PER_THREAD {
                    workers.remove(0);
                }
                workers.push((key, Worker::start(options)?));
                workers.len() - 1
            }
        };
        let entry = workers.remove(index);
        workers.push(entry);
        let (_, w) = workers.last_mut().expect("pushed above");
        Ok(f(w))
    })
}
