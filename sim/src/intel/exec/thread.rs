//! One hardware thread from its payload to its end-of-thread message.
//!
//! Control flow is modelled with an instruction pointer per channel. The thread executes the
//! instruction at the lowest pointer among its live channels, with those channels whose
//! pointer is there as its execution mask; a channel that does not jump moves to the next
//! instruction. For brw's structured code this is exactly the hardware's mask-stack behaviour
//! (the channels a branch parks always wait further down, or at the `while` for the loop's
//! next pass), and every jump is taken from the instruction's own JIP/UIP:
//! * `if`: channels whose predicate fails go to JIP (the else-part or the `endif`);
//! * `else`: its channels go to JIP (the `endif`); `endif` does nothing;
//! * `break`: its channels go to UIP (the loop's `while`, Gfx7+) and leave the loop there;
//! * `cont`: its channels go to UIP (the `while`) and take the loop's decision there;
//! * `while`: channels whose predicate holds go back to JIP, the rest (and those that broke
//!   out) go on;
//! * `halt`: its channels go to UIP and wait there for the others.
//!
//! An instruction with NoMask (`WE_all`) runs on every lane of its group, even lanes whose
//! channel the dispatch left off.

use super::super::inst::Inst;
use super::super::opcode::Opcode;
use super::alu;
use super::code::Code;
use super::message::{self, Effect};
use super::observe::{Observer, Step, Unobserved};
use super::operand::Regs;
use super::payload::{Memory, ScratchWindow};
use super::scoreboard::Scoreboard;
use super::timing::Clock;
use super::{fault, unsupported, Stop};

/// How a thread starts.
#[derive(Clone, Debug)]
pub struct Start<'a> {
    /// Registers the dispatch fills: (GRF number, its eight dwords). The rest are zero.
    pub payload: &'a [(u8, [u32; 8])],
    /// Channels the dispatch enables (bit `c` = channel `c`).
    pub dispatch_mask: u32,
    /// The thread's scratch space.
    pub scratch: ScratchWindow,
}

/// What a finished thread did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ThreadStats {
    /// Instructions executed.
    pub instructions: u64,
    /// Cycles by the Gen simulator's cycle model (`timing`).
    pub cycles: u64,
}

/// Channels a thread can have.
const CHANNELS: usize = 32;

/// Runs one thread of `code` to its end of thread; `budget` is the instructions it may still
/// execute (decremented).
pub fn run_thread(
    code: &Code,
    start: &Start,
    memory: &mut Memory,
    budget: &mut u64,
) -> Result<ThreadStats, Stop> {
    run_observed(code, start, memory, budget, &mut Unobserved)
}

/// [`run_thread`], showing `observer` every instruction after it executed (the end of thread
/// aside).
pub fn run_observed<O: Observer + ?Sized>(
    code: &Code,
    start: &Start,
    memory: &mut Memory,
    budget: &mut u64,
    observer: &mut O,
) -> Result<ThreadStats, Stop> {
    let mut r = Regs::default();
    for (nr, words) in start.payload {
        for (i, &w) in words.iter().enumerate() {
            r.set_dword(*nr as usize, i, w)?;
        }
    }
    let mut scratch = vec![0u8; start.scratch.bytes as usize];
    let mut pc = [0i64; CHANNELS];
    let live = start.dispatch_mask;
    let mut broken = 0u32;
    let mut stats = ThreadStats::default();
    let mut clock = Clock::default();
    let mut scoreboard = code.insts.first().map(|(_, i)| Scoreboard::new(i.gen));
    if live == 0 {
        return Ok(stats);
    }
    loop {
        let ip = (0..CHANNELS)
            .filter(|c| live >> c & 1 == 1)
            .map(|c| pc[c])
            .min()
            .expect("a live channel");
        if ip as usize >= code.len {
            return fault("ran past the last instruction without an end of thread");
        }
        let index = code.at(ip)?;
        let (_, inst) = &code.insts[index];
        let active = (0..CHANNELS)
            .filter(|&c| live >> c & 1 == 1 && pc[c] == ip)
            .fold(0u32, |m, c| m | 1 << c);
        if *budget == 0 {
            return Err(Stop::Timeout);
        }
        *budget -= 1;
        stats.instructions += 1;
        clock.step(inst);
        if let Some(s) = &mut scoreboard {
            s.step(inst, ip as usize)?;
        }
        let next = ip + inst.len() as i64;
        let group = inst.group() as usize;
        let n = inst.exec_size as usize;
        if group + n > CHANNELS {
            return fault("instruction lanes past channel 31");
        }
        let lane_mask = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
        let exec = if inst.no_mask {
            lane_mask
        } else {
            (active >> group) & lane_mask
        };
        let pred = predicate(&r, inst, group, n)?;
        let mut moved = 0u32;
        let op = inst.opcode;
        match op {
            Opcode::IF
            | Opcode::ELSE
            | Opcode::ENDIF
            | Opcode::WHILE
            | Opcode::BREAK
            | Opcode::CONT
            | Opcode::HALT => {
                let jip = ip + inst.jip.unwrap_or(0) as i64;
                let uip = ip + inst.uip.unwrap_or(0) as i64;
                for c in (0..CHANNELS).filter(|c| active >> c & 1 == 1) {
                    let holds = c >= group && c < group + n && pred >> (c - group) & 1 == 1;
                    let target = match op {
                        Opcode::IF if !holds => Some(jip),
                        Opcode::ELSE => Some(jip),
                        Opcode::WHILE if broken >> c & 1 == 1 => {
                            broken &= !(1 << c);
                            None
                        }
                        Opcode::WHILE if holds => Some(jip),
                        Opcode::BREAK if holds => {
                            broken |= 1 << c;
                            Some(uip)
                        }
                        Opcode::CONT | Opcode::HALT if holds => Some(uip),
                        _ => None,
                    };
                    if let Some(t) = target {
                        code.at(t)?;
                        pc[c] = t;
                        moved |= 1 << c;
                    }
                }
            }
            // `sync` orders nothing but the scoreboard (its SWSB wait); `nop` does nothing.
            Opcode::NOP | Opcode::SYNC => {}
            _ if op.is_send() => {
                if message::send(
                    &mut r,
                    inst,
                    exec & pred,
                    memory,
                    &mut scratch,
                    start.scratch,
                )? == Effect::EndOfThread
                {
                    stats.cycles = clock.cycles();
                    return Ok(stats);
                }
            }
            _ if op.has_branch_ctrl() => {
                return unsupported(format!("flow control {}", op.name()));
            }
            _ => alu::execute(&mut r, inst, exec, pred)?,
        }
        observer.executed(&Step::new(index, inst, exec, pred, &r, memory));
        for c in (0..CHANNELS).filter(|c| (active & !moved) >> c & 1 == 1) {
            pc[c] = next;
        }
    }
}

/// Bit `i` set for each lane `i` of `inst` whose predicate holds (all lanes when it has
/// none). Only the per-channel predicate (control 1) is modelled.
fn predicate(r: &Regs, inst: &Inst, group: usize, n: usize) -> Result<u32, Stop> {
    let Some(p) = inst.predicate else {
        return Ok(u32::MAX);
    };
    if p.control != 1 {
        return unsupported(format!("predicate control {}", p.control));
    }
    let mut bits = 0;
    for lane in 0..n {
        if r.flag_bit(inst.flag, group + lane)? != p.invert {
            bits |= 1 << lane;
        }
    }
    Ok(bits)
}
