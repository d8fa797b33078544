//! The case floor: one decoded input — how to compile ([`CaseConfig`]) and what (its
//! program). It stands below the targets and the oracle: they read a case, and nothing here
//! knows them.
//!
//! * [`config`] — the case and its configuration: every knob our own backends read, with the
//!   real driver's defaults, and each driver target's own knobs as its section;
//! * [`section`] — a target's section: its knobs, as a target declares them; [`sections`] —
//!   every target's, stored, drawn, named and compared here without being known;
//! * [`knobs`] — the knob table: setting a knob by name (`--case KEY=VALUE`), listing them
//!   (the `; case:` header), putting one back to its default (the reducer);
//! * [`draw`] — decoding input bytes into a case: the configuration's draws, each rate named
//!   and justified, then the generator's program;
//! * [`text`] — a case as one text file (`program.ir` with its `; case:` header), and the
//!   range check of every knob a user can set;
//!
//! and what every target is handed besides the case: [`options`] (how the oracle runs: fuel,
//! targets, planted bugs, the pass limit, the `vulkan` device), [`coverage`] (what a judgement
//! notes besides its verdict) and the thread's reference [`interpreter`].

pub mod config;
pub mod coverage;
pub mod draw;
pub mod interpreter;
pub mod knobs;
pub mod options;
pub mod section;
pub mod sections;
pub mod text;

pub use config::{Case, CaseConfig};
pub use draw::decode;
