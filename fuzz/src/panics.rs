//! Panics as findings: the compiler or a simulator panicking on an input is caught in-process
//! and reported with its location (the bucket key), without the default hook's noise.

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    static LAST: RefCell<Option<(String, String)>> = const { RefCell::new(None) };
}

/// Replaces the panic hook with one that records message and location for [`catch`] instead
/// of printing (panics outside `catch` still print).
pub fn install_quiet_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let inside = LAST.with(|l| l.borrow().is_some());
            if !inside {
                default(info);
                return;
            }
            let msg = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".into());
            let loc = info
                .location()
                .map(|l| format!("{}:{}", l.file(), l.line()))
                .unwrap_or_default();
            LAST.with(|l| *l.borrow_mut() = Some((msg, loc)));
        }));
    });
}

/// A caught panic: its message and `file:line`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caught {
    /// The panic message.
    pub message: String,
    /// Where it panicked.
    pub location: String,
}

/// Runs `f`, turning a panic into `Err` with its message and location.
pub fn catch<R>(f: impl FnOnce() -> R) -> Result<R, Caught> {
    install_quiet_hook();
    LAST.with(|l| *l.borrow_mut() = Some((String::new(), String::new())));
    let r = panic::catch_unwind(AssertUnwindSafe(f));
    let last = LAST.with(|l| l.borrow_mut().take()).unwrap_or_default();
    r.map_err(|_| Caught {
        message: last.0,
        location: last.1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catches_message_and_location() {
        let caught = catch(|| -> u32 { panic!("boom {}", 7) }).unwrap_err();
        assert_eq!(caught.message, "boom 7");
        assert!(caught.location.contains("panics.rs"), "{}", caught.location);
        assert_eq!(catch(|| 5), Ok(5));
    }
}
