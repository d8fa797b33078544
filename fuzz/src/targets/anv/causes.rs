//! anv's own finding classes: what the capture of brw's output shows wrong, and what brw's
//! code did on our executor. Each is a finding's class as written here, so a bucket is named
//! in one place.

use crate::cause::Cause;

/// What anv's capture or brw's code on our executor showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnvClass {
    /// The pipeline came back with no executables.
    NoExecutables,
    /// brw's own validator complained in the listing (brw's bug).
    BrwValidator,
    /// The "GEN Assembly" has no instruction with bytes (`INTEL_DEBUG=hex` unheard).
    NoListing,
    /// Our decoder prints an instruction otherwise than brw's disassembler, in this field (our
    /// bug, never brw's).
    Decoder(String),
    /// brw's code computed another value than the interpreter.
    Mismatch,
    /// brw's code faulted on our executor.
    Fault,
    /// brw's code read a register before its producer's scoreboard said it could.
    Hazard,
    /// brw's code ran past its instruction budget.
    Timeout,
}

impl AnvClass {
    /// The class, as the finding's bucket names it.
    pub fn name(&self) -> String {
        match self {
            AnvClass::NoExecutables => "no-executables".into(),
            AnvClass::BrwValidator => "brw-validator".into(),
            AnvClass::NoListing => "no-listing".into(),
            AnvClass::Decoder(field) => format!("decoder {field}"),
            AnvClass::Mismatch => "mismatch".into(),
            AnvClass::Fault => "fault".into(),
            AnvClass::Hazard => "hazard".into(),
            AnvClass::Timeout => "timeout".into(),
        }
    }

    /// The finding's cause.
    pub fn cause(&self) -> Cause {
        Cause::named(self.name())
    }
}
