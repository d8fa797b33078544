//! Why bytes are no instruction: the Intel decoders' one error (Gfx9 in `decode`, Gfx12 to Xe2
//! in `decode12` and the compaction tables), a file of its own so that they share it without
//! importing each other.

use super::gen::Gen;
use super::types::{RegFile, Type};

/// Why the bytes at one offset are no instruction of the generation asked for. `operand`
/// fields name the operand as brw does: `dst`, `src0`, `src1`, `src2` (`src` for a Gfx9
/// three-source instruction's one source type). Each variant's message is its documentation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[allow(missing_docs)]
pub enum Undecodable {
    #[error("{left} bytes left, an instruction needs 8 or 16")]
    Truncated { left: usize },
    #[error("{left} bytes left, a native instruction needs 16")]
    TruncatedNative { left: usize },
    #[error("opcode {opcode} is not a {gen} opcode")]
    UnknownOpcode { gen: Gen, opcode: u8 },
    #[error("exec size code {code}")]
    ExecSizeCode { code: u64 },
    #[error("thread control 3")]
    ReservedThreadControl,
    #[error("Xe2 predicate control {control}")]
    Xe2PredicateControl { control: u8 },
    #[error("{operand} register file {code} (MRF) on Gfx9")]
    MessageRegisterFile { operand: &'static str, code: u64 },
    #[error("{operand} type code {code} has no meaning for {file:?}")]
    TypeCodeForFile {
        operand: &'static str,
        code: u64,
        file: RegFile,
    },
    #[error("{operand} type code {code} has no meaning")]
    TypeCode { operand: &'static str, code: u64 },
    #[error("3-src {operand} type code {code}")]
    ThreeSourceTypeCode { operand: &'static str, code: u64 },
    #[error("3-src {operand} type code {code} (float {float})")]
    ThreeSourceTypeCodeGen12 {
        operand: &'static str,
        code: u8,
        float: bool,
    },
    #[error("vertical stride code {code}")]
    VerticalStrideCode { code: u64 },
    #[error("width code {code}")]
    WidthCode { code: u64 },
    #[error("{operand} width code {code}")]
    SourceWidthCode { operand: &'static str, code: u64 },
    #[error("{operand}: no width for vertical stride {vstride}, horizontal code {hstride_code}")]
    NoImpliedWidth {
        operand: &'static str,
        vstride: u8,
        hstride_code: u64,
    },
    #[error("an immediate destination")]
    ImmediateDestination,
    #[error("align16 indirect destination")]
    Align16IndirectDestination,
    #[error("align16 indirect {operand}")]
    Align16IndirectSource { operand: &'static str },
    #[error("indirect split-send destination")]
    IndirectSplitSendDestination,
    #[error("indirect split-send payload")]
    IndirectSplitSendPayload,
    #[error("align1 three-source instruction (Gfx10+)")]
    Align1ThreeSource,
    #[error("compacted immediate of type code {code}")]
    CompactedImmediateTypeCode { code: u64 },
    #[error("a compacted {ty:?} immediate")]
    CompactedImmediateType { ty: Type },
}
