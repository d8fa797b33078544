//! Where a send's payload and response live, worked out once at decode time from the
//! instruction and its descriptor; `payload.rs` reads and writes a thread's registers through
//! it at execution.

use super::send::SendDesc;

/// Where a send's payload and response live, in dwords.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Layout {
    /// First payload dword (the header, if any).
    pub payload: u32,
    /// First dword of parameter 0.
    pub params: u32,
    /// GRFs per parameter (exec size / 8).
    pub per: u32,
    /// Parameters sent (past these, parameters read as 0).
    pub sent: u32,
    /// First response dword.
    pub dst: u32,
    /// Enabled channels relative to the instruction's group (0 in a decoded instruction's
    /// layout, which block messages use as it is: set per execution by [`Layout::on`]).
    pub live: u32,
    /// Channels of the instruction (8 or 16).
    pub lanes: u32,
}

impl Layout {
    /// The layout of a send of `lanes` channels with payload at dword `payload`, response at `dst` and
    /// descriptor `desc`, no channel enabled (computed once, at decode time).
    pub fn of(payload: u32, lanes: u32, dst: Option<u32>, desc: &SendDesc) -> Layout {
        let per = lanes.div_ceil(8);
        let h = desc.header as u32;
        Layout {
            payload,
            params: payload + h * 8,
            per,
            sent: (desc.mlen as u32).saturating_sub(h) / per,
            dst: dst.unwrap_or(0),
            live: 0,
            lanes,
        }
    }

    /// This layout for an execution on relative channels `live`.
    #[inline]
    pub fn on(&self, live: u32) -> Layout {
        Layout { live, ..*self }
    }
}
