//! Hazards: compiler bugs the machine notices while running (reads of registers nobody wrote,
//! sends whose payload covers unwritten registers, scratch misuse), recorded, never panicked on.

/// What went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum HazardKind {
    /// An ALU source read a dword no instruction had written in an enabled channel.
    UnwrittenRead,
    /// A send's payload covered a GRF not written in the channels that matter (per-lane
    /// parameters: the enabled channels' dwords; headers: all 8 dwords; block-write data:
    /// any dword).
    UnwrittenPayload,
    /// A predicate read a flag bit no instruction had written in an enabled channel.
    UnwrittenFlag,
    /// Scratch read of a dword (scattered) or 32-byte slot (block) never written by this
    /// thread; the value read is 0.
    ScratchUnwritten,
    /// Scratch access past the thread's scratch space (`Config::scratch_grfs`); reads give 0,
    /// writes are dropped.
    ScratchOutOfRange,
}

/// One hazard: where, and which register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Hazard {
    /// Thread index.
    pub thread: u32,
    /// Instruction index.
    pub inst: u32,
    /// The GRF involved (flag hazards: the flag index 0..4, f0.0 f0.1 f1.0 f1.1; scratch
    /// hazards: the 32-byte scratch slot, saturated at 65535).
    pub reg: u16,
    /// The kind.
    pub kind: HazardKind,
}

/// Hazards of a run, de-duplicated and capped.
#[derive(Clone, Debug, Default)]
pub(super) struct HazardLog {
    pub list: Vec<Hazard>,
    pub dropped: u64,
    pub cap: usize,
}

impl HazardLog {
    /// Record `h` unless an identical one is already recorded; past the cap, only count it.
    #[cold]
    pub fn report(&mut self, h: Hazard) {
        if self.list.contains(&h) {
            return;
        }
        if self.list.len() < self.cap {
            self.list.push(h);
        } else {
            self.dropped += 1;
        }
    }
}
