//! The IR: NIR-like SSA in structured control flow.
//!
//! * [`entities`] — typed ids (`ssa_N`, `block_N`, …);
//! * [`types`] — value and variable types;
//! * [`alu`] — ALU opcodes and their exact semantics;
//! * [`instructions`] — instruction kinds and their operands;
//! * [`function`] — programs, the data-flow graph and the control-flow tree;
//! * [`builder`] — building functions front to back;
//! * [`edit`] — rewriting uses and other small edits passes share;
//! * [`cfg`](mod@cfg) — the CFG derived from the tree: edges, reverse post-order, loops, dominators;
//! * [`verify`](mod@verify) — the verifier: every rule a well-formed program keeps.
//!
//! # Text format
//!
//! Modeled on NIR's printer. A program is a header of declarations, then the body:
//!
//! ```text
//! invocations 64
//! outputs 4
//! uniforms 0x00000003 0x3f800000        ; words of the uniform file (line omitted if none)
//! buffer 16                             ; buffer 0: 16 words per invocation (one line each)
//! texture 8x8 levels 4 layers 1         ; texture 0 (one line each)
//! var_0: vec1[8]                        ; local variables
//! var_1: struct { vec2, vec1[4] }
//! reg_0: vec2 32                        ; registers (after out-of-SSA)
//!
//! block_0:
//!   vec1 32 ssa_0 = load_const (0x00000001)
//!   vec2 32 ssa_1 = load_const (0x00000001, 0x3f800000)
//!   vec1 1 ssa_2 = load_const (true)
//!   vec1 32 ssa_3 = iadd ssa_0, ssa_0
//!   vec3 32 ssa_4 = vec3 ssa_0, ssa_0, ssa_3
//!   vec2 32 ssa_5 = mov ssa_4.zx
//!   vec1 32 ssa_7 = load_invocation_id
//!   vec4 32 ssa_8 = load_uniform ssa_0
//!   vec2 32 ssa_9 = load_buffer 1, ssa_0
//!   store_buffer 1, ssa_0, ssa_9
//!   store_output 3, ssa_9
//!   vec4 32 ssa_10 = tex 0, ssa_5, lod ssa_0, bias ssa_0, layer ssa_0
//!   vec4 32 ssa_11 = txf 0, ssa_5, lod ssa_0, layer ssa_0
//!   deref ssa_12 = deref_var var_0
//!   deref ssa_13 = deref_array ssa_12[ssa_0]
//!   deref ssa_18 = deref_var var_1
//!   deref ssa_14 = deref_struct ssa_18.1
//!   deref ssa_15 = deref_cast (vec2) ssa_14
//!   vec2 32 ssa_16 = load_deref ssa_15
//!   store_deref ssa_15, ssa_16
//!   vec2 32 ssa_17 = load_reg reg_0
//!   store_reg reg_0, ssa_17
//! loop {
//!   block_1:
//!     vec1 32 ssa_6 = phi block_0: ssa_0, block_3: ssa_6
//!   if ssa_2 {
//!     block_2:
//!       break
//!   } else {
//!     block_3:
//!   }
//!   block_4:
//! }
//! block_5:
//! ```
//!
//! Constants print as 8-digit hex words (bools as `true`/`false`); the printer may append a
//! `/* 1.0 */` comment with a float reading. `;` and `/* */` comments and free whitespace are
//! ignored by the parser. Names keep their numbers: parsing `ssa_7` creates value 7.
//! print → parse → print is the identity.

pub mod alu;
pub mod builder;
pub mod cfg;
pub mod edit;
pub mod entities;
pub mod function;
pub mod instructions;
pub mod text;
pub mod texture_reads;
pub mod types;
pub mod verify;

pub use alu::AluOp;
pub use builder::Builder;
pub use cfg::{Cfg, DomTree};
pub use entities::{Block, Inst, Reg, Value, Var};
pub use function::{
    first_block, last_block, walk_blocks, BlockData, CfNode, Function, IfNode, InstData, LoopNode,
    Program, ValueData,
};
pub use instructions::{AtomicOp, InstKind, PhiSource, SubgroupOp, TexDim, TexParams};
pub use text::{parse_program, print_program, ParseError};
pub use texture_reads::texture_reads;
pub use types::{BitSize, Type, VarType};
pub use verify::{deref_type, verify, VerifyErrors};
