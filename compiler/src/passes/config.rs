//! What a pass may consult besides the function: [`PassConfig`]. It sits below both the
//! passes that read it and the pass table (`pipeline.rs`) that hands it to them, so neither
//! imports the other for it.

use crate::planted::Plants;

/// What a pass may consult besides the function: the planted bugs that are switched on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PassConfig {
    /// Planted bugs (none by default).
    pub plants: Plants,
}
