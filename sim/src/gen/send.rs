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

/// Sampler messages (Mesa's `GFX5_`/`GFX7_`/`HSW_`/`GFX9_SAMPLER_MESSAGE_*`). All parameters
/// are per-lane; a parameter past `mlen` reads as 0 (which is also `0.0`). Parameter orders
/// per generation are [`sampler_params`] (tables in `docs/textures.md`); what a message
/// computes is `semantics::texture_result`. The response is up to four per-lane channels
/// (`P` GRFs each): without a header the first `rlen / P` of them; with a header, the channels
/// whose bit in header dword 2 bits 15:12 is clear (1 means "don't write"), packed in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SamplerOp {
    /// `sample` (0): float coordinates at level 0.
    Sample,
    /// `sample_b` (1): bias first.
    SampleB,
    /// `sample_l` (2): lod first.
    SampleL,
    /// `sample_c` (3): shadow reference first.
    SampleC,
    /// `sample_d` (4): coordinates interleaved with their gradients; SIMD8 only.
    SampleD,
    /// `sample_b_c` (5): reference, bias.
    SampleBC,
    /// `sample_l_c` (6): reference, lod.
    SampleLC,
    /// `ld` (7): integer fetch. Gen7 order (u, lod, v, r); Gen9 order (u, v, lod, r).
    Ld,
    /// `gather4` (8): header required (component select in dword 2 bits 17:16).
    Gather4,
    /// `resinfo` (10): integer lod; returns (width, height, depth, levels).
    Resinfo,
    /// `gather4_c` (16): reference first; header required.
    Gather4C,
    /// `sample_d_c` (20, Haswell and later; Gen9 only here): reference, then `sample_d`'s.
    SampleDC,
    /// `sample_lz` (24, Gen9): `sample` at level 0 with the array index sent.
    SampleLz,
    /// `sample_c_lz` (25, Gen9): reference first, level 0.
    SampleCLz,
    /// `ld_lz` (26, Gen9): integer (u, v, r) at lod 0.
    LdLz,
}

/// One per-lane parameter of a sampler message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SamplerParam {
    /// Shadow reference.
    Ref,
    /// Lod bias.
    Bias,
    /// Lod (float for samples, integer for `ld` and `resinfo`).
    Lod,
    /// First coordinate.
    U,
    /// Second coordinate (the array index of a 1D array).
    V,
    /// Third coordinate (the array index of a 2D array).
    R,
    /// Array index of a cube array (never sent here: there are no cube arrays).
    Ai,
    /// Gradients.
    Dudx,
    /// .
    Dudy,
    /// .
    Dvdx,
    /// .
    Dvdy,
    /// .
    Drdx,
    /// .
    Drdy,
}

/// Hardware generation: decides the sampler `ld` parameter order and whether `ld_lz` exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Gen {
    /// Ivybridge/Haswell class: `ld` is (u, lod, v, r); no `ld_lz`.
    Gen7,
    /// Skylake class: `ld` is (u, v, lod, r); `ld_lz` is (u, v, r).
    Gen9,
}

/// The parameter order of `op` on `gen` (the full list; a message sends a prefix).
pub fn sampler_params(op: SamplerOp, gen: Gen) -> &'static [SamplerParam] {
    use SamplerParam::*;
    const D: [SamplerParam; 10] = [U, Dudx, Dudy, V, Dvdx, Dvdy, R, Drdx, Drdy, Ai];
    const DC: [SamplerParam; 11] = [Ref, U, Dudx, Dudy, V, Dvdx, Dvdy, R, Drdx, Drdy, Ai];
    match op {
        SamplerOp::Sample | SamplerOp::SampleLz | SamplerOp::Gather4 => &[U, V, R, Ai],
        SamplerOp::SampleB => &[Bias, U, V, R, Ai],
        SamplerOp::SampleL => &[Lod, U, V, R, Ai],
        SamplerOp::SampleC | SamplerOp::SampleCLz | SamplerOp::Gather4C => &[Ref, U, V, R, Ai],
        SamplerOp::SampleD => &D,
        SamplerOp::SampleDC => &DC,
        SamplerOp::SampleBC => &[Ref, Bias, U, V, R, Ai],
        SamplerOp::SampleLC => &[Ref, Lod, U, V, R, Ai],
        SamplerOp::Ld => match gen {
            Gen::Gen7 => &[U, Lod, V, R],
            Gen::Gen9 => &[U, V, Lod, R],
        },
        SamplerOp::LdLz => &[U, V, R],
        SamplerOp::Resinfo => &[Lod],
    }
}

impl SamplerOp {
    /// Every message.
    pub const ALL: [SamplerOp; 15] = [
        SamplerOp::Sample,
        SamplerOp::SampleB,
        SamplerOp::SampleL,
        SamplerOp::SampleC,
        SamplerOp::SampleD,
        SamplerOp::SampleBC,
        SamplerOp::SampleLC,
        SamplerOp::Ld,
        SamplerOp::Gather4,
        SamplerOp::Resinfo,
        SamplerOp::Gather4C,
        SamplerOp::SampleDC,
        SamplerOp::SampleLz,
        SamplerOp::SampleCLz,
        SamplerOp::LdLz,
    ];

    /// Mesa's name for the message.
    pub fn name(self) -> &'static str {
        match self {
            SamplerOp::Sample => "sample",
            SamplerOp::SampleB => "sample_b",
            SamplerOp::SampleL => "sample_l",
            SamplerOp::SampleC => "sample_c",
            SamplerOp::SampleD => "sample_d",
            SamplerOp::SampleBC => "sample_b_c",
            SamplerOp::SampleLC => "sample_l_c",
            SamplerOp::Ld => "ld",
            SamplerOp::Gather4 => "gather4",
            SamplerOp::Resinfo => "resinfo",
            SamplerOp::Gather4C => "gather4_c",
            SamplerOp::SampleDC => "sample_d_c",
            SamplerOp::SampleLz => "sample_lz",
            SamplerOp::SampleCLz => "sample_c_lz",
            SamplerOp::LdLz => "ld_lz",
        }
    }

    /// The hardware message type (descriptor bits 16:12).
    pub fn hw_type(self) -> u8 {
        match self {
            SamplerOp::Sample => 0,
            SamplerOp::SampleB => 1,
            SamplerOp::SampleL => 2,
            SamplerOp::SampleC => 3,
            SamplerOp::SampleD => 4,
            SamplerOp::SampleBC => 5,
            SamplerOp::SampleLC => 6,
            SamplerOp::Ld => 7,
            SamplerOp::Gather4 => 8,
            SamplerOp::Resinfo => 10,
            SamplerOp::Gather4C => 16,
            SamplerOp::SampleDC => 20,
            SamplerOp::SampleLz => 24,
            SamplerOp::SampleCLz => 25,
            SamplerOp::LdLz => 26,
        }
    }

    /// Whether the message exists on Gen9 only here.
    pub fn gen9_only(self) -> bool {
        matches!(
            self,
            SamplerOp::SampleLz | SamplerOp::SampleCLz | SamplerOp::LdLz | SamplerOp::SampleDC
        )
    }

    /// Whether the message needs a header (gather4's component select lives there).
    pub fn needs_header(self) -> bool {
        matches!(self, SamplerOp::Gather4 | SamplerOp::Gather4C)
    }

    /// Whether the message is SIMD8 only (`sample_d`, `sample_d_c`: Mesa splits SIMD16 ones).
    pub fn simd8_only(self) -> bool {
        matches!(self, SamplerOp::SampleD | SamplerOp::SampleDC)
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
    /// Shared local memory: the lane's workgroup's words, the dispatch's shared arrays back
    /// to back; an address is a word of it (no wrapping: past the end reads 0 and drops
    /// writes, as a surface's bounds do).
    Shared,
}

/// What a SEND asks of which shared function. Payloads below list the per-lane parameters
/// after the optional header; every one takes `P` GRFs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Message {
    /// Sampler (SFID sampler). Parameters per [`SamplerOp`]; `texture` indexes
    /// `dispatch.textures`. `mlen = header + k*P` for the `k >= 1` parameters sent. With a
    /// header, its dword 2 holds the texel offsets (bits 11:8 u, 7:4 v, 3:0 r, 4-bit signed),
    /// the channel mask (15:12) and gather4's component (17:16).
    Sampler {
        /// The message.
        op: SamplerOp,
        /// Texture (binding table) index.
        texture: u8,
        /// The surface type the binding table entry gives the texture (real hardware keeps
        /// it in the surface state; here it travels with the message).
        dim: crate::semantics::TexDim,
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
    /// Data cache untyped atomic, one dword per lane, masked per lane: lanes in increasing
    /// order read the word (as [`Message::UntypedWrite`] addresses it), respond with it and
    /// store `op(old, data)`. Payload: address, data. `mlen = header + 2 * P`, `rlen = P`.
    UntypedAtomic {
        /// Buffer or shared local memory.
        surface: Surface,
        /// The operation.
        op: crate::semantics::AtomicOp,
    },
    /// Scratch block read (spill fill), NoMask semantics: `regs` whole GRFs from a scratch
    /// offset in 32-byte units. Header required, `mlen = 1`, `rlen = regs`.
    ScratchBlockRead {
        /// GRFs read, 1..=8.
        regs: u8,
        /// Where the offset comes from. `None`: the header's dword 2 (the OWord block read,
        /// whose header is a copy of g0 with the offset set). `Some(o)`: the descriptor, 12
        /// bits, so below [`SCRATCH_DESCRIPTOR_OFFSETS`] (gen7's scratch read, Mesa's
        /// `gen7_block_read_scratch`: the header is g0 as dispatched, which carries the
        /// thread's scratch base, so a fill needs no header of its own).
        offset: Option<u16>,
    },
    /// Scratch block write (spill): the `regs` GRFs after the header are stored at scratch
    /// offset `header.dword[2]` (32-byte units) — whole under NoMask, else only the dwords
    /// of enabled channels (dword `j` of a data GRF is channel `j`, `8 + j` in the second
    /// GRF of a SIMD16 value), as brw's per-channel spills of whole 32-bit writes rely on.
    /// Header required, `mlen = 1 + regs`, `rlen = 0`.
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

/// Scratch offsets a [`Message::ScratchBlockRead`] descriptor can name (a 12-bit field of
/// 32-byte units).
pub const SCRATCH_DESCRIPTOR_OFFSETS: u32 = 1 << 12;

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
            Message::UntypedAtomic { .. } => "untyped_atomic",
            Message::ScratchBlockRead { .. } => "scratch_block_read",
            Message::ScratchBlockWrite { .. } => "scratch_block_write",
            Message::ScratchRead { .. } => "scratch_read",
            Message::ScratchWrite { .. } => "scratch_write",
        }
    }

    /// Whether the message changes memory (so it stays even when its response is unused).
    pub fn writes_memory(&self) -> bool {
        matches!(
            self,
            Message::UntypedWrite { .. }
                | Message::UntypedAtomic { .. }
                | Message::ScratchBlockWrite { .. }
                | Message::ScratchWrite { .. }
        )
    }

    /// The shared function serving this message.
    pub fn shared_function(&self) -> SharedFunction {
        match self {
            Message::Sampler { .. } => SharedFunction::Sampler,
            Message::UntypedRead { .. }
            | Message::UntypedWrite { .. }
            | Message::UntypedAtomic { .. } => SharedFunction::DataPort,
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
