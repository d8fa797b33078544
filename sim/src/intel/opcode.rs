//! Opcodes: hardware value, mnemonic and operand counts as brw's opcode table gives them for
//! Gfx9 and Gfx12 (`src/intel/compiler/brw_eu.c`, `opcode_descs`, Mesa 25.0.7).
//!
//! An [`Opcode`] is named by its Gfx9 hardware value whatever the encoding it was read from,
//! so `Opcode::MOV` is a move on every generation. Opcodes Gfx9 lacks take a value no Gfx9
//! opcode has: Gfx11's for `ror`/`rol`, Gfx12's for `add3`/`dp4a`, and 127 for `sync` (whose
//! Gfx12 value, 1, is Gfx9's `mov`).

use super::gen::Gen;

/// An opcode, by its canonical value (Gfx9's hardware value, see the module comment).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Opcode(pub u8);

/// One row of the table: canonical value (Gfx9's hardware value), mnemonic, sources,
/// destinations, whether Gfx9 has it, its Gfx12 hardware value.
struct Row(u8, &'static str, u8, u8, bool, Option<u8>);

/// Every opcode Gfx9 or Gfx12 has, but `dpas` (Gfx11-only rows left out). Gfx12 moved the
/// logic and move opcodes up by 96 and gave `nop` 96 and `sync` 1 (`opcode_descs`,
/// `brw_eu.c:561-658`).
const TABLE: &[Row] = &[
    Row(0, "illegal", 0, 0, true, Some(0)),
    Row(1, "mov", 1, 1, true, Some(97)),
    Row(2, "sel", 2, 1, true, Some(98)),
    Row(3, "movi", 2, 1, true, Some(99)),
    Row(4, "not", 1, 1, true, Some(100)),
    Row(5, "and", 2, 1, true, Some(101)),
    Row(6, "or", 2, 1, true, Some(102)),
    Row(7, "xor", 2, 1, true, Some(103)),
    Row(8, "shr", 2, 1, true, Some(104)),
    Row(9, "shl", 2, 1, true, Some(105)),
    Row(10, "smov", 0, 0, true, Some(106)),
    Row(12, "asr", 2, 1, true, Some(108)),
    Row(16, "cmp", 2, 1, true, Some(112)),
    Row(17, "cmpn", 2, 1, true, Some(113)),
    Row(18, "csel", 3, 1, true, Some(114)),
    Row(23, "bfrev", 1, 1, true, Some(119)),
    Row(24, "bfe", 3, 1, true, Some(120)),
    Row(25, "bfi1", 2, 1, true, Some(121)),
    Row(26, "bfi2", 3, 1, true, Some(122)),
    Row(32, "jmpi", 0, 0, true, Some(32)),
    Row(33, "brd", 0, 0, true, Some(33)),
    Row(34, "if", 0, 0, true, Some(34)),
    Row(35, "brc", 0, 0, true, Some(35)),
    Row(36, "else", 0, 0, true, Some(36)),
    Row(37, "endif", 0, 0, true, Some(37)),
    Row(39, "while", 0, 0, true, Some(39)),
    Row(40, "break", 0, 0, true, Some(40)),
    Row(41, "cont", 0, 0, true, Some(41)),
    Row(42, "halt", 0, 0, true, Some(42)),
    Row(43, "calla", 0, 0, true, Some(43)),
    Row(44, "call", 0, 0, true, Some(44)),
    Row(45, "ret", 0, 0, true, Some(45)),
    Row(46, "goto", 0, 0, true, Some(46)),
    Row(48, "wait", 0, 1, true, None),
    Row(49, "send", 1, 1, true, Some(49)),
    Row(50, "sendc", 1, 1, true, Some(50)),
    Row(51, "sends", 2, 1, true, None),
    Row(52, "sendsc", 2, 1, true, None),
    Row(56, "math", 2, 1, true, Some(56)),
    Row(64, "add", 2, 1, true, Some(64)),
    Row(65, "mul", 2, 1, true, Some(65)),
    Row(66, "avg", 2, 1, true, Some(66)),
    Row(67, "frc", 1, 1, true, Some(67)),
    Row(68, "rndu", 1, 1, true, Some(68)),
    Row(69, "rndd", 1, 1, true, Some(69)),
    Row(70, "rnde", 1, 1, true, Some(70)),
    Row(71, "rndz", 1, 1, true, Some(71)),
    Row(72, "mac", 2, 1, true, Some(72)),
    Row(73, "mach", 2, 1, true, Some(73)),
    Row(74, "lzd", 1, 1, true, Some(74)),
    Row(75, "fbh", 1, 1, true, Some(75)),
    Row(76, "fbl", 1, 1, true, Some(76)),
    Row(77, "cbit", 1, 1, true, Some(77)),
    Row(78, "addc", 2, 1, true, Some(78)),
    Row(79, "subb", 2, 1, true, Some(79)),
    Row(84, "dp4", 2, 1, true, None),
    Row(85, "dph", 2, 1, true, None),
    Row(86, "dp3", 2, 1, true, None),
    Row(87, "dp2", 2, 1, true, None),
    Row(89, "line", 2, 1, true, None),
    Row(90, "pln", 2, 1, true, None),
    Row(91, "mad", 3, 1, true, Some(91)),
    Row(92, "lrp", 3, 1, true, None),
    Row(93, "madm", 3, 1, true, Some(93)),
    Row(126, "nop", 0, 0, true, Some(96)),
    Row(14, "ror", 2, 1, false, Some(110)),
    Row(15, "rol", 2, 1, false, Some(111)),
    Row(82, "add3", 3, 1, false, Some(82)),
    Row(88, "dp4a", 3, 1, false, Some(88)),
    Row(127, "sync", 1, 0, false, Some(1)),
    // Xe2 only (`from_hw`): seen in Jay's listings from brw 26 as `macl (16) r122:d r108:d
    // r108:d`; decoded and printed, not executed (its accumulator semantics are not at hand).
    Row(83, "macl", 2, 1, false, Some(83)),
];

impl Opcode {
    /// The opcodes named below, for code that executes or inspects instructions.
    pub const MOV: Opcode = Opcode(1);
    /// `and` (logic: a source negate is a bitwise not).
    pub const AND: Opcode = Opcode(5);
    /// `not`.
    pub const NOT: Opcode = Opcode(4);
    /// `or`.
    pub const OR: Opcode = Opcode(6);
    /// `xor`.
    pub const XOR: Opcode = Opcode(7);
    /// `sel` (its conditional modifier writes no flag).
    pub const SEL: Opcode = Opcode(2);
    /// `csel`.
    pub const CSEL: Opcode = Opcode(18);
    /// `if`.
    pub const IF: Opcode = Opcode(34);
    /// `else`.
    pub const ELSE: Opcode = Opcode(36);
    /// `endif`.
    pub const ENDIF: Opcode = Opcode(37);
    /// `while`.
    pub const WHILE: Opcode = Opcode(39);
    /// `break`.
    pub const BREAK: Opcode = Opcode(40);
    /// `cont`.
    pub const CONT: Opcode = Opcode(41);
    /// `halt`.
    pub const HALT: Opcode = Opcode(42);
    /// `send`.
    pub const SEND: Opcode = Opcode(49);
    /// `sendc`.
    pub const SENDC: Opcode = Opcode(50);
    /// `sends`: split send, two payloads.
    pub const SENDS: Opcode = Opcode(51);
    /// `sendsc`.
    pub const SENDSC: Opcode = Opcode(52);
    /// `math`: the function sits where the conditional modifier would.
    pub const MATH: Opcode = Opcode(56);
    /// `add`.
    pub const ADD: Opcode = Opcode(64);
    /// `mul`.
    pub const MUL: Opcode = Opcode(65);
    /// `mad`.
    pub const MAD: Opcode = Opcode(91);
    /// `macl` (Xe2).
    pub const MACL: Opcode = Opcode(83);
    /// `jmpi`.
    pub const JMPI: Opcode = Opcode(32);
    /// `nop`.
    pub const NOP: Opcode = Opcode(126);
    /// `sync` (Gfx12+): waits on the software scoreboard; its function sits where the
    /// conditional modifier would.
    pub const SYNC: Opcode = Opcode(127);

    fn row(self) -> Option<&'static Row> {
        TABLE.iter().find(|r| r.0 == self.0)
    }

    /// Whether Gfx9 has this opcode.
    pub fn exists(self) -> bool {
        self.row().is_some_and(|r| r.4)
    }

    /// The opcode whose hardware value in `gen`'s encoding is `hw`, if there is one.
    pub fn from_hw(gen: Gen, hw: u8) -> Option<Opcode> {
        TABLE
            .iter()
            .find(|r| {
                if gen.is_gfx12() {
                    r.5 == Some(hw)
                } else {
                    r.4 && r.0 == hw
                }
            })
            .map(|r| Opcode(r.0))
            .filter(|o| *o != Opcode::MACL || gen.is_xe2())
    }

    /// brw's mnemonic (`"???"` for a value no generation has; the decoder refuses those).
    pub fn name(self) -> &'static str {
        self.row().map_or("???", |r| r.1)
    }

    /// Source operands in the encoding.
    pub fn sources(self) -> u8 {
        self.row().map_or(0, |r| r.2)
    }

    /// Destination operands in the encoding.
    pub fn destinations(self) -> u8 {
        self.row().map_or(0, |r| r.3)
    }

    /// Any send (its operands are payload registers, its src1 a descriptor).
    pub fn is_send(self) -> bool {
        matches!(self, Self::SEND | Self::SENDC | Self::SENDS | Self::SENDSC)
    }

    /// A split send (`sends`/`sendsc`): a second payload and an extended descriptor.
    pub fn is_split_send(self) -> bool {
        matches!(self, Self::SENDS | Self::SENDSC)
    }

    /// Bitwise ops, whose source negate is a bitwise not (printed `~`).
    pub fn is_logic(self) -> bool {
        matches!(self, Self::AND | Self::NOT | Self::OR | Self::XOR)
    }

    /// Control flow with a JIP (jump target when no channel goes on).
    pub fn has_jip(self) -> bool {
        matches!(
            self,
            Self::IF
                | Self::ELSE
                | Self::ENDIF
                | Self::WHILE
                | Self::BREAK
                | Self::CONT
                | Self::HALT
        )
    }

    /// Control flow with a UIP as well (where the channels reconverge).
    pub fn has_uip(self) -> bool {
        matches!(
            self,
            Self::IF | Self::ELSE | Self::BREAK | Self::CONT | Self::HALT
        )
    }

    /// Flow control whose bit 28 is BranchCtrl rather than AccWrEnable.
    pub fn has_branch_ctrl(self) -> bool {
        self.has_jip() || matches!(self.0, 32 | 33 | 35 | 43 | 44 | 45 | 46)
    }
}
