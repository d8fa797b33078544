//! Decoding a validated program into the flat form the executor runs: operands as dword
//! offsets, opcodes specialised by type, and costs, register ranges and jump targets
//! precomputed, so executing an instruction does no lookups and no allocation.

use super::isa::{CondMod, Dst, MathFn, Op, Pred, Program, Region, Src, Type};
use super::layout::Layout;
use super::send::{Message, SendDesc};
use super::timing;
use super::validate::Structure;

/// A decoded source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Operand {
    /// Unused.
    None,
    /// Per-lane from dword `start`.
    Vector(u32),
    /// Broadcast of dword `start`.
    Scalar(u32),
    /// Immediate bits.
    Imm(u32),
}

/// A source modifier, resolved by type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Modifier {
    None,
    NegF,
    AbsF,
    NegAbsF,
    NegI,
    AbsI,
    NegAbsI,
}

/// Operation, specialised by execution (and for `mov`, destination) type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// A `mov` that converts nothing, with no source modifier and no flag write.
    Copy,
    /// A [`Kind::Copy`] of an immediate: no source to check.
    CopyImm,
    MovRaw,
    MovF2I,
    MovF2U,
    MovI2F,
    MovU2F,
    SelPred,
    MinF,
    MinD,
    MinU,
    MaxF,
    MaxD,
    MaxU,
    Not,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Asr,
    AddI,
    AddF,
    MulI,
    MulF,
    MadI,
    MadF,
    Cmp(Cmp),
    Frc,
    Rndd,
    Rndz,
    Rnde,
    Inv,
    Sqrt,
    Rsq,
    Exp,
    Log,
    Sin,
    Cos,
    Pow,
    DivD,
    DivU,
    ModD,
    ModU,
    If,
    Else,
    EndIf,
    Do,
    While,
    Break,
    Cont,
    Send(SendDesc),
    Nop,
}

impl Kind {
    /// Structured control flow (`if` … `cont`): executed by `control`, no lanes written.
    pub(super) fn is_control(self) -> bool {
        matches!(
            self,
            Kind::If | Kind::Else | Kind::EndIf | Kind::Do | Kind::While | Kind::Break | Kind::Cont
        )
    }
}

/// The executor's path for an instruction: its kind, told apart by one small tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// [`Kind::CopyImm`].
    CopyImm,
    /// [`Kind::Copy`].
    Copy,
    /// A [`Kind::Copy`] of eight per-lane dwords from channel 0, NoMask and unpredicated:
    /// every channel executes whatever the masks, so nothing about them is computed (the
    /// header copy from g0 before each spill and fill).
    CopyGrf,
    /// A [`Kind::CopyImm`] of one channel, NoMask and unpredicated: one dword set (a spill
    /// or fill header's slot offset).
    SetDword,
    /// Every other ALU kind.
    Alu,
    /// Structured control flow.
    Control,
    /// [`Kind::Send`] of any message but the scratch block ones.
    Send,
    /// [`Kind::Send`] of a scratch block read or write: the spill and fill code, three in four
    /// sends executed. Whole GRFs at a slot from the header or the descriptor, no per-lane
    /// parameter, so it skips the general message path (see `exec`).
    ScratchBlock,
    /// [`Kind::Nop`].
    Nop,
}

/// How values compare, by type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cmp {
    F,
    D,
    U,
}

/// What an ALU instruction writes to its flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FlagWrite {
    /// Nothing.
    None,
    /// `cmp`: the comparison outcome (the result is nonzero).
    Outcome,
    /// Any other ALU op with a conditional modifier: the result compared with zero.
    Result(CondMod, Cmp),
}

/// A range of GRFs `[first, first + count)`; `count == 0` is empty.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Regs {
    pub first: u8,
    pub count: u8,
}

/// How many entries of a GRF list the scoreboard takes at once: each list is padded with
/// [`NO_WAIT`] to a multiple, so the wait is a fixed number of branch-free steps (a loop over
/// the exact count was one of the simulator's most mispredicted branches).
pub const WAIT_CHUNK: usize = 4;

/// A `waits` entry that waits for nothing: the scoreboard entry past the GRFs, never booked.
pub const NO_WAIT: u8 = 128;

/// The scoreboard entries of the four flags, after [`NO_WAIT`]: a flag is waited for and
/// booked like a GRF, in the same lists.
pub const FLAG_READY: u8 = 129;

/// A `books` entry that books nothing anyone waits for: the last scoreboard entry.
pub const NO_BOOK: u8 = 255;

/// A decoded program: the instructions, and the GRF lists their `more_waits` index.
pub(super) struct Code {
    pub insts: Vec<Decoded>,
    /// Every instruction's scoreboard GRFs past its first [`WAIT_CHUNK`] (see
    /// [`Decoded::more_waits`]), one after another.
    pub waits: Vec<u8>,
    /// One past the highest GRF any instruction reads or writes: the part of the register
    /// file and scoreboard a thread of this program can touch (see `Thread::reset`).
    pub grfs: usize,
}

/// One decoded instruction.
#[derive(Clone, Copy, Debug)]
pub(super) struct Decoded {
    pub kind: Kind,
    pub lanes: u32,
    pub group: u32,
    /// Channels `[group, group + lanes)` as a bit mask.
    pub exec_bits: u32,
    /// How the executor runs it.
    pub step: Step,
    /// SIMD8 halves the instruction executes in (2 for SIMD16, else 1).
    pub halves: u32,
    /// Channels of one half, relative to its first channel: 0xff, or 1 for SIMD1.
    pub half_bits: u32,
    pub no_mask: bool,
    /// All ones for a NoMask instruction, else 0: or-ed into the control-flow mask.
    pub mask_exempt: u32,
    pub pred: Pred,
    /// Whether the predicate narrows the enabled channels: predicated, and not a `sel`,
    /// where it chooses between the sources.
    pub pred_narrows: bool,
    /// The predicate as bit operations on the flag, `(flag ^ pred_invert) | pred_free`:
    /// all ones for an inverted predicate, else 0...
    pub pred_invert: u32,
    /// ...and all ones when unpredicated, else 0.
    pub pred_free: u32,
    pub flag: usize,
    pub cmod: Option<CondMod>,
    pub flag_write: FlagWrite,
    pub src: [Operand; 3],
    pub mods: [Modifier; 3],
    /// First destination dword, if any.
    pub dst: Option<u32>,
    /// Jump target (If: jip; Else: jip; While: jip; Break/Cont: uip; Do: its while).
    pub target: u32,
    pub issue: u32,
    pub latency: u32,
    /// The GRFs the scoreboard waits for (read or written, each once), and the flag if the
    /// instruction is predicated or writes it ([`FLAG_READY`]): listed once here
    /// rather than walking the (often empty, often overlapping) read and write ranges per
    /// execution; padded with [`NO_WAIT`] to a multiple of [`WAIT_CHUNK`]. The first chunk is
    /// here (most instructions touch at most four GRFs: no second memory access for them)...
    pub waits: [u8; WAIT_CHUNK],
    /// ...and the rest is the range `more_waits.0..more_waits.1` of [`Code::waits`].
    pub more_waits: (u32, u32),
    /// The scoreboard entries the result books, the GRFs written and the flag a conditional
    /// modifier writes, padded with [`NO_BOOK`]: a fixed number of stores. GRFs that do not
    /// fit (a send's long response) are in `more_books`, booked by a loop.
    pub books: [u8; WAIT_CHUNK],
    pub more_books: Regs,
    /// Either list goes on past its first chunk (`more_waits` or `more_books` is not empty).
    pub long_lists: bool,
    /// Instructions from this one to the end of its straight-line run, this one included:
    /// the run ends at a control-flow instruction, a send with EOT or the program's end, so
    /// once started it executes to its last instruction (see `exec`).
    pub run_len: u32,
    /// A bound on how far the thread's cycle count can advance between issuing this
    /// instruction and issuing its run's last one: each instruction moves it by at most the
    /// larger of its issue cycles and its latency.
    pub run_cycles: u64,
    /// A send's payload and response registers (the default for other instructions).
    pub layout: Layout,
}

impl Regs {
    /// The GRFs of the range as bits of a 128-bit set (validation keeps them below
    /// `GRF_COUNT`, so no bit is shifted out).
    fn bits(self) -> u128 {
        if self.count == 0 {
            0
        } else {
            (u128::MAX >> (128 - self.count as u32)) << self.first
        }
    }
}

fn regs_of(start: u32, dwords: u32) -> Regs {
    if dwords == 0 {
        return Regs::default();
    }
    let first = start / 8;
    let last = (start + dwords - 1) / 8;
    Regs {
        first: first as u8,
        count: (last - first + 1) as u8,
    }
}

#[inline]
fn kind_of(op: Op, exec: Type, dst: Type, cmod: Option<CondMod>, pred: Pred) -> Kind {
    let int = exec.is_int();
    let signed = exec == Type::D;
    match op {
        Op::Mov => match (exec, dst) {
            (Type::F, Type::D) => Kind::MovF2I,
            (Type::F, Type::UD) => Kind::MovF2U,
            (Type::D, Type::F) => Kind::MovI2F,
            (Type::UD, Type::F) => Kind::MovU2F,
            _ => Kind::MovRaw,
        },
        Op::Sel if pred != Pred::None => Kind::SelPred,
        Op::Sel => match (cmod, exec) {
            (Some(CondMod::L), Type::F) => Kind::MinF,
            (Some(CondMod::L), Type::D) => Kind::MinD,
            (Some(CondMod::L), Type::UD) => Kind::MinU,
            (_, Type::F) => Kind::MaxF,
            (_, Type::D) => Kind::MaxD,
            (_, Type::UD) => Kind::MaxU,
        },
        Op::Not => Kind::Not,
        Op::And => Kind::And,
        Op::Or => Kind::Or,
        Op::Xor => Kind::Xor,
        Op::Shl => Kind::Shl,
        Op::Shr => Kind::Shr,
        Op::Asr => Kind::Asr,
        Op::Add if int => Kind::AddI,
        Op::Add => Kind::AddF,
        Op::Mul if int => Kind::MulI,
        Op::Mul => Kind::MulF,
        Op::Mad if int => Kind::MadI,
        Op::Mad => Kind::MadF,
        Op::Cmp => Kind::Cmp(match exec {
            Type::F => Cmp::F,
            Type::D => Cmp::D,
            Type::UD => Cmp::U,
        }),
        Op::Frc => Kind::Frc,
        Op::Rndd => Kind::Rndd,
        Op::Rndz => Kind::Rndz,
        Op::Rnde => Kind::Rnde,
        Op::Math(f) => match f {
            MathFn::Inv => Kind::Inv,
            MathFn::Sqrt => Kind::Sqrt,
            MathFn::Rsq => Kind::Rsq,
            MathFn::Exp => Kind::Exp,
            MathFn::Log => Kind::Log,
            MathFn::Sin => Kind::Sin,
            MathFn::Cos => Kind::Cos,
            MathFn::Pow => Kind::Pow,
            MathFn::IntDiv if signed => Kind::DivD,
            MathFn::IntDiv => Kind::DivU,
            MathFn::IntMod if signed => Kind::ModD,
            MathFn::IntMod => Kind::ModU,
        },
        Op::If { .. } => Kind::If,
        Op::Else { .. } => Kind::Else,
        Op::EndIf => Kind::EndIf,
        Op::Do => Kind::Do,
        Op::While { .. } => Kind::While,
        Op::Break { .. } => Kind::Break,
        Op::Cont { .. } => Kind::Cont,
        Op::Send(d) => Kind::Send(d),
        Op::Nop => Kind::Nop,
    }
}

fn modifier(neg: bool, abs: bool, ty: Type) -> Modifier {
    match (neg, abs, ty.is_int()) {
        (false, false, _) => Modifier::None,
        (true, false, false) => Modifier::NegF,
        (false, true, false) => Modifier::AbsF,
        (true, true, false) => Modifier::NegAbsF,
        (true, false, true) => Modifier::NegI,
        (false, true, true) => Modifier::AbsI,
        (true, true, true) => Modifier::NegAbsI,
    }
}

/// Lists the GRFs of `touched` (a bit each) and then `flag`, padded with [`NO_WAIT`] to a
/// multiple of [`WAIT_CHUNK`] entries (at least one chunk): returns the first chunk and
/// appends the rest to `more`.
fn list_waits(touched: u128, flag: Option<u8>, more: &mut Vec<u8>) -> [u8; WAIT_CHUNK] {
    let mut first = [NO_WAIT; WAIT_CHUNK];
    let mut n = 0;
    let mut left = touched;
    let grfs = std::iter::from_fn(|| {
        (left != 0).then(|| {
            let g = left.trailing_zeros() as u8;
            left &= left - 1;
            g
        })
    });
    for g in grfs.chain(flag) {
        if n < WAIT_CHUNK {
            first[n] = g;
        } else {
            more.push(g);
        }
        n += 1;
    }
    // A first chunk is padded already.
    if n > WAIT_CHUNK {
        more.resize(more.len() + n.next_multiple_of(WAIT_CHUNK) - n, NO_WAIT);
    }
    first
}

/// Decode every instruction of a program that passed validation.
pub(super) fn decode(program: &Program, structure: &Structure) -> Code {
    let mut waits = Vec::new();
    // Every GRF some instruction touches, a bit each.
    let mut touched_all = 0u128;
    let mut insts: Vec<Decoded> = Vec::with_capacity(program.insts.len());
    for (pc, inst) in program.insts.iter().enumerate() {
        let lanes = inst.exec_size.lanes();
        let group = inst.group as u32;
        let exec_ty = inst.src[0].ty().unwrap_or(inst.dst.ty());
        let kind = kind_of(inst.op, exec_ty, inst.dst.ty(), inst.cmod, inst.pred);
        let mut src = [Operand::None; 3];
        let mut mods = [Modifier::None; 3];
        let mut reads = [Regs::default(); 3];
        for k in 0..3 {
            match inst.src[k] {
                Src::Null => {}
                Src::Imm { bits, .. } => src[k] = Operand::Imm(bits),
                Src::Grf(g) => {
                    let start = g.reg as u32 * 8 + g.subreg as u32;
                    let n = if g.region == Region::Vector { lanes } else { 1 };
                    src[k] = match g.region {
                        Region::Vector => Operand::Vector(start),
                        Region::Scalar => Operand::Scalar(start),
                    };
                    mods[k] = modifier(g.neg, g.abs, g.ty);
                    reads[k] = regs_of(start, n);
                }
            }
        }
        let mut dst = match inst.dst {
            Dst::Null(_) => None,
            Dst::Grf { reg, subreg, .. } => Some(reg as u32 * 8 + subreg as u32),
        };
        let mut writes = dst.map_or(Regs::default(), |s| regs_of(s, lanes));
        let grfs = inst.exec_size.regs();
        let (mut issue, mut latency) = (timing::ALU_ISSUE_PER_GRF * grfs, timing::ALU_LATENCY);
        let mut target = 0;
        match inst.op {
            Op::Math(f) => {
                issue = timing::MATH_ISSUE_PER_GRF * grfs;
                latency = match f {
                    MathFn::Pow => timing::POW_LATENCY,
                    MathFn::IntDiv | MathFn::IntMod => timing::INT_DIV_LATENCY,
                    _ => timing::MATH_LATENCY,
                };
            }
            Op::If { jip, .. } | Op::Else { jip } | Op::While { jip } => {
                (issue, latency, target) = (timing::CONTROL_ISSUE, 0, jip);
            }
            Op::Break { uip } | Op::Cont { uip } => {
                (issue, latency, target) = (timing::CONTROL_ISSUE, 0, uip);
            }
            Op::EndIf => (issue, latency) = (timing::CONTROL_ISSUE, 0),
            Op::Do => {
                (issue, latency) = (0, 0);
                target = structure.while_of[pc];
            }
            Op::Nop => (issue, latency) = (timing::SEND_ISSUE, 0),
            Op::Send(d) => {
                issue = timing::SEND_ISSUE;
                latency = timing::send_latency(d.msg.shared_function(), d.mlen);
                if let Operand::Vector(s) = src[0] {
                    reads[0] = regs_of(s, d.mlen as u32 * 8);
                }
                if d.rlen == 0 {
                    dst = None;
                }
                writes = dst.map_or(Regs::default(), |s| regs_of(s, d.rlen as u32 * 8));
            }
            _ => {}
        }
        let dst_cmp = match inst.dst.ty() {
            Type::F => Cmp::F,
            Type::D => Cmp::D,
            Type::UD => Cmp::U,
        };
        let flag_write = match (kind, inst.cmod) {
            (_, None) => FlagWrite::None,
            (Kind::Cmp(_), Some(_)) => FlagWrite::Outcome,
            (Kind::MinF | Kind::MinD | Kind::MinU, _) => FlagWrite::None,
            (Kind::MaxF | Kind::MaxD | Kind::MaxU, _) => FlagWrite::None,
            (_, Some(c)) => FlagWrite::Result(c, dst_cmp),
        };
        // The GRFs read or written, each once: the scoreboard takes the latest ready
        // cycle among them, so the order they are listed in does not matter.
        let touched = reads
            .iter()
            .chain([&writes])
            .fold(0u128, |bits, r| bits | r.bits());
        touched_all |= touched;
        let flag_ready = FLAG_READY + inst.flag.index() as u8;
        let waits_flag = inst.pred != Pred::None || inst.cmod.is_some();
        let books_flag = latency > 0 && inst.cmod.is_some();
        let mut books = [NO_BOOK; WAIT_CHUNK];
        let mut more_books = Regs::default();
        if latency > 0 && writes.count as usize + books_flag as usize <= WAIT_CHUNK {
            for k in 0..writes.count {
                books[k as usize] = writes.first + k;
            }
        } else if latency > 0 {
            more_books = writes;
        }
        if books_flag {
            books[WAIT_CHUNK - 1] = flag_ready;
        }
        let first_more = waits.len() as u32;
        let first_waits = list_waits(touched, waits_flag.then_some(flag_ready), &mut waits);
        let plain = mods[0] == Modifier::None && matches!(flag_write, FlagWrite::None);
        let kind = match kind {
            Kind::MovRaw if plain && matches!(src[0], Operand::Imm(_)) => Kind::CopyImm,
            Kind::MovRaw if plain => Kind::Copy,
            k => k,
        };
        let every_channel = inst.no_mask && inst.pred == Pred::None;
        let exec_bits = if lanes >= 32 {
            u32::MAX
        } else {
            ((1u32 << lanes) - 1) << group
        };
        insts.push(Decoded {
            kind,
            lanes,
            group,
            exec_bits,
            step: match kind {
                Kind::CopyImm if every_channel && lanes == 1 && dst.is_some() => Step::SetDword,
                Kind::CopyImm => Step::CopyImm,
                Kind::Copy
                    if every_channel
                        && lanes == 8
                        && group == 0
                        && dst.is_some()
                        && matches!(src[0], Operand::Vector(_)) =>
                {
                    Step::CopyGrf
                }
                Kind::Copy => Step::Copy,
                Kind::Send(SendDesc {
                    msg: Message::ScratchBlockRead { .. } | Message::ScratchBlockWrite { .. },
                    ..
                }) => Step::ScratchBlock,
                Kind::Send(_) => Step::Send,
                Kind::Nop => Step::Nop,
                k if k.is_control() => Step::Control,
                _ => Step::Alu,
            },
            halves: lanes.div_ceil(8),
            half_bits: (1u32 << lanes.min(8)) - 1,
            no_mask: inst.no_mask,
            mask_exempt: 0u32.wrapping_sub(inst.no_mask as u32),
            pred: inst.pred,
            pred_narrows: inst.pred != Pred::None && !matches!(kind, Kind::SelPred),
            pred_invert: 0u32.wrapping_sub((inst.pred == Pred::Inverted) as u32),
            pred_free: 0u32.wrapping_sub((inst.pred == Pred::None) as u32),
            flag: inst.flag.index(),
            cmod: inst.cmod,
            flag_write,
            src,
            mods,
            dst,
            target,
            issue,
            latency,
            waits: first_waits,
            more_waits: (first_more, waits.len() as u32),
            books,
            more_books,
            long_lists: first_more != waits.len() as u32 || more_books.count != 0,
            run_len: 1,
            run_cycles: 0,
            layout: match kind {
                Kind::Send(desc) => {
                    let payload = match src[0] {
                        Operand::Vector(s) => s,
                        _ => 0,
                    };
                    Layout::of(payload, lanes, dst, &desc)
                }
                _ => Layout::default(),
            },
        });
    }
    let grfs_touched = 128 - touched_all.leading_zeros() as usize;
    // Runs, from the end: an instruction that leaves the straight line ends its run.
    let mut next: Option<(u32, u64)> = None;
    for d in insts.iter_mut().rev() {
        let ends = d.kind.is_control() || matches!(d.kind, Kind::Send(desc) if desc.eot);
        (d.run_len, d.run_cycles) = match next {
            Some((len, cycles)) if !ends => (len + 1, cycles + d.issue.max(d.latency) as u64),
            _ => (1, 0),
        };
        next = Some((d.run_len, d.run_cycles));
    }
    Code {
        insts,
        waits,
        grfs: grfs_touched,
    }
}
