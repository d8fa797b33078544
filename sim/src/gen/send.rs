//! SEND message descriptors: which shared function, which message, and the payload/response
//! layouts each one uses.
//!
//! Common rules for every message (a SEND of exec size `n`, 8 or 16, channel group `g`;
//! `P = n / 8` GRFs per per-lane parameter):
//!
//! * The payload is `mlen` consecutive GRFs starting at `src[0]`'s register. If
//!   `header` is set, the first payload GRF is the header (checked as a whole for
//!   written-ness; only scratch block messages read its contents). The per-lane parameters
//!   follow, each `P` GRFs: channel `g + i` of parameter `k` is dword `i` of the
//!   `P`-GRF block `header + k * P` (i.e. GRF `src + header + k*P + i/8`, dword `i % 8`).
//! * The response is `rlen` GRFs starting at `dst`, channel-major: channel `c` of lane `i`
//!   lands in GRF `dst + c*P + i/8`, dword `i % 8`. Only enabled lanes are written
//!   (block reads write whole GRFs).
//! * `eot` ends the thread after the message; an EOT send must have `rlen == 0`.
//! * `mlen` is at most [`MAX_MLEN`] (15) and at most [`MAX_SAMPLER_MLEN`] (11) for the sampler.

/// Largest `mlen` of any message.
pub const MAX_MLEN: u8 = 15;
/// Largest `mlen` of a sampler message.
pub const MAX_SAMPLER_MLEN: u8 = 11;

/// Sampler messages. All parameters are per-lane; a parameter past `mlen` reads as 0 (which is
/// also `0.0`). The sampled texel's four channels (float bits) are returned as four per-lane
/// response channels (`rlen = 4 * P` for all four; a smaller multiple of `P` returns the
/// first `rlen / P` channels).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SamplerOp {
    /// `sample`: float (u, v, r); level 0. `r` is the array layer as a float.
    /// Texel: `semantics::sample_coords(t, u, v, 0, 0, r)`.
    Sample,
    /// `sample_l`: float (lod, u, v, r). Texel: `sample_coords(t, u, v, lod, 0, r)`.
    SampleL,
    /// `sample_b`: float (bias, u, v, r). Texel: `sample_coords(t, u, v, 0, bias, r)`.
    SampleB,
    /// `ld`: integer texel fetch. Gen7 order (u, lod, v, r); Gen9 order (u, v, lod, r).
    /// Texel: `semantics::fetch_coords(t, u, v, lod, r)`.
    Ld,
    /// `ld_lz` (Gen9 only): integer (u, v, r) at lod 0. Texel: `fetch_coords(t, u, v, 0, r)`.
    LdLz,
}

impl SamplerOp {
    /// Mesa's name for the message.
    pub fn name(self) -> &'static str {
        match self {
            SamplerOp::Sample => "sample",
            SamplerOp::SampleL => "sample_l",
            SamplerOp::SampleB => "sample_b",
            SamplerOp::Ld => "ld",
            SamplerOp::LdLz => "ld_lz",
        }
    }
}

/// A data-port surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Surface {
    /// Buffer `b` of the dispatch: each invocation sees its own `dispatch.buffers[b]` words.
    Buffer(u8),
    /// The uniform file (read-only, shared by all invocations; empty reads as 0).
    Uniform,
    /// The output slots (write-only, `dispatch.outputs` words per invocation).
    Output,
}

/// What a SEND asks of which shared function. Payloads below list the per-lane parameters
/// after the optional header; every one takes `P` GRFs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Message {
    /// Sampler (SFID sampler). Parameters per [`SamplerOp`]; `texture` indexes
    /// `dispatch.textures`. `mlen = header + k*P` for the `k >= 1` parameters sent.
    Sampler {
        /// The message.
        op: SamplerOp,
        /// Texture (binding table) index.
        texture: u8,
    },
    /// Data cache untyped read, `channels` (1..=4) dwords per lane.
    /// Payload: address (word index, UD). `mlen = header + P`, `rlen = channels * P`.
    /// Response channel `c` of lane `i` = word `(address + c) % len` (wrapping u32 add) of
    /// the lane's invocation's region (buffer) or of the uniform file.
    UntypedRead {
        /// Buffer or uniforms.
        surface: Surface,
        /// Dwords per lane, 1..=4.
        channels: u8,
    },
    /// Data cache untyped write, `channels` (1..=4) dwords per lane, masked per lane.
    /// Payload: address, then `channels` data parameters. `mlen = header + (1 + channels) * P`,
    /// `rlen = 0`. Word `(address + c) % len` of the lane's invocation gets data `c`.
    UntypedWrite {
        /// Buffer or outputs.
        surface: Surface,
        /// Dwords per lane, 1..=4.
        channels: u8,
    },
    /// Scratch block read (spill fill), NoMask semantics: `regs` whole GRFs from scratch
    /// offset `header.dword[2]` (in 32-byte units). Header required, `mlen = 1`, `rlen = regs`.
    ScratchBlockRead {
        /// GRFs read, 1..=8.
        regs: u8,
    },
    /// Scratch block write (spill), NoMask semantics: the `regs` GRFs after the header are
    /// stored at scratch offset `header.dword[2]` (32-byte units). Header required,
    /// `mlen = 1 + regs`, `rlen = 0`.
    ScratchBlockWrite {
        /// GRFs written, 1..=8.
        regs: u8,
    },
    /// Scratch scattered read, masked per lane: payload is a per-lane dword offset `o` (UD);
    /// response channel `c` = scratch dword `o + c`. `mlen = header + P`, `rlen = channels * P`.
    ScratchRead {
        /// Dwords per lane, 1..=4.
        channels: u8,
    },
    /// Scratch scattered write, masked per lane: payload is the dword offset `o`, then
    /// `channels` data parameters; data `c` goes to scratch dword `o + c`. Lanes are stored in
    /// increasing order (the highest lane wins a collision). `mlen = header + (1+channels)*P`.
    ScratchWrite {
        /// Dwords per lane, 1..=4.
        channels: u8,
    },
}

/// The shared function a message goes to (timing and statistics group).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SharedFunction {
    /// Texture sampler.
    Sampler,
    /// Data cache (buffers, uniforms, outputs).
    DataPort,
    /// Per-thread scratch (through the data cache on real hardware).
    Scratch,
}

impl Message {
    /// The message type's short name, the same for every surface, texture and size
    /// (`sample_l`, `untyped_read`, `scratch_block_write`, …): what statistics group by.
    pub fn type_name(&self) -> &'static str {
        match self {
            Message::Sampler { op, .. } => op.name(),
            Message::UntypedRead { .. } => "untyped_read",
            Message::UntypedWrite { .. } => "untyped_write",
            Message::ScratchBlockRead { .. } => "scratch_block_read",
            Message::ScratchBlockWrite { .. } => "scratch_block_write",
            Message::ScratchRead { .. } => "scratch_read",
            Message::ScratchWrite { .. } => "scratch_write",
        }
    }

    /// The shared function serving this message.
    pub fn shared_function(&self) -> SharedFunction {
        match self {
            Message::Sampler { .. } => SharedFunction::Sampler,
            Message::UntypedRead { .. } | Message::UntypedWrite { .. } => SharedFunction::DataPort,
            _ => SharedFunction::Scratch,
        }
    }
}

/// The message descriptor of a SEND.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SendDesc {
    /// The message.
    pub msg: Message,
    /// Payload GRFs read, starting at `src[0]`.
    pub mlen: u8,
    /// Response GRFs written, starting at `dst`.
    pub rlen: u8,
    /// The first payload GRF is a header (a copy of g0, possibly modified).
    pub header: bool,
    /// End of thread after this message.
    pub eot: bool,
}

impl SendDesc {
    /// A descriptor without EOT.
    pub fn new(msg: Message, mlen: u8, rlen: u8, header: bool) -> SendDesc {
        SendDesc {
            msg,
            mlen,
            rlen,
            header,
            eot: false,
        }
    }
}
