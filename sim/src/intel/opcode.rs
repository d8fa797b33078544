//! Gen9 opcodes: hardware value, mnemonic and operand counts as brw's opcode table gives them
//! for Gfx9 (`src/intel/compiler/brw_eu.c`, `opcode_descs`, Mesa 25.0.7).

/// A Gen9 opcode, by its 7-bit hardware value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Opcode(pub u8);

/// One row of the table: hardware value, mnemonic, sources, destinations.
struct Row(u8, &'static str, u8, u8);

/// Every opcode Gfx9 has (the Gfx11/Gfx12-only rows left out).
const TABLE: &[Row] = &[
    Row(0, "illegal", 0, 0),
    Row(1, "mov", 1, 1),
    Row(2, "sel", 2, 1),
    Row(3, "movi", 2, 1),
    Row(4, "not", 1, 1),
    Row(5, "and", 2, 1),
    Row(6, "or", 2, 1),
    Row(7, "xor", 2, 1),
    Row(8, "shr", 2, 1),
    Row(9, "shl", 2, 1),
    Row(10, "smov", 0, 0),
    Row(12, "asr", 2, 1),
    Row(16, "cmp", 2, 1),
    Row(17, "cmpn", 2, 1),
    Row(18, "csel", 3, 1),
    Row(23, "bfrev", 1, 1),
    Row(24, "bfe", 3, 1),
    Row(25, "bfi1", 2, 1),
    Row(26, "bfi2", 3, 1),
    Row(32, "jmpi", 0, 0),
    Row(33, "brd", 0, 0),
    Row(34, "if", 0, 0),
    Row(35, "brc", 0, 0),
    Row(36, "else", 0, 0),
    Row(37, "endif", 0, 0),
    Row(39, "while", 0, 0),
    Row(40, "break", 0, 0),
    Row(41, "cont", 0, 0),
    Row(42, "halt", 0, 0),
    Row(43, "calla", 0, 0),
    Row(44, "call", 0, 0),
    Row(45, "ret", 0, 0),
    Row(46, "goto", 0, 0),
    Row(48, "wait", 0, 1),
    Row(49, "send", 1, 1),
    Row(50, "sendc", 1, 1),
    Row(51, "sends", 2, 1),
    Row(52, "sendsc", 2, 1),
    Row(56, "math", 2, 1),
    Row(64, "add", 2, 1),
    Row(65, "mul", 2, 1),
    Row(66, "avg", 2, 1),
    Row(67, "frc", 1, 1),
    Row(68, "rndu", 1, 1),
    Row(69, "rndd", 1, 1),
    Row(70, "rnde", 1, 1),
    Row(71, "rndz", 1, 1),
    Row(72, "mac", 2, 1),
    Row(73, "mach", 2, 1),
    Row(74, "lzd", 1, 1),
    Row(75, "fbh", 1, 1),
    Row(76, "fbl", 1, 1),
    Row(77, "cbit", 1, 1),
    Row(78, "addc", 2, 1),
    Row(79, "subb", 2, 1),
    Row(84, "dp4", 2, 1),
    Row(85, "dph", 2, 1),
    Row(86, "dp3", 2, 1),
    Row(87, "dp2", 2, 1),
    Row(89, "line", 2, 1),
    Row(90, "pln", 2, 1),
    Row(91, "mad", 3, 1),
    Row(92, "lrp", 3, 1),
    Row(93, "madm", 3, 1),
    Row(126, "nop", 0, 0),
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
    /// `jmpi`.
    pub const JMPI: Opcode = Opcode(32);
    /// `nop`.
    pub const NOP: Opcode = Opcode(126);

    fn row(self) -> Option<&'static Row> {
        TABLE.iter().find(|r| r.0 == self.0)
    }

    /// Whether Gfx9 has this opcode.
    pub fn exists(self) -> bool {
        self.row().is_some()
    }

    /// brw's mnemonic (`"???"` for a value Gfx9 does not have; the decoder refuses those).
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
