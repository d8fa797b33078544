//! The reference interpreter of this thread, its scratch space reused across inputs.

use compiler::interp::Interpreter;
use std::cell::RefCell;

thread_local! {
    /// One interpreter per fuzz thread, its scratch space reused across inputs.
    pub static INTERPRETER: RefCell<Interpreter> = RefCell::new(Interpreter::new());
}
