//! Phase 2, `opt_predicates` (placeholder).

use super::vir::VFunc;
use crate::planted::Plants;

/// Rewrites predicate producers and branches.
pub fn opt_predicates(_f: &mut VFunc, _predicates: u8, _plants: Plants) {}
