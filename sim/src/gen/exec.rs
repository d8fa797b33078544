//! Running a program over a dispatch: `ceil(invocations / width)` independent threads, each to
//! completion in order, thread `t` channel `c` being invocation `t * width + c` (channels past
//! the last invocation start disabled). Returns the results, statistics, hazards and whether
//! the run completed or ran out of its cycle or instruction budget.
//!
//! Per instruction, the enabled channels are `[group, group + exec_size)` ∩ (the control-flow
//! mask, unless NoMask) ∩ (the predicate, except for `sel`, where it chooses). A thread ends at
//! a `send` with EOT or by running past the last instruction.

use super::alu;
use super::control;
use super::dataport::{self, Lanes};
use super::decode::{decode, Code, Decoded, Kind};
use super::hazard::{Hazard, HazardKind, HazardLog};
use super::isa::{Pred, Program};
use super::payload::{self, Layout};
use super::sampler;
use super::scratch;
use super::send::{Message, SendDesc, SharedFunction};
use super::state::Thread;
use super::validate::{validate, ValidationError};
use crate::dispatch::{Dispatch, Results};

/// Knobs of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    /// Budget of cycles summed over all threads; past it the run stops with
    /// [`Outcome::Timeout`]. Default 50 million: far above any terminating fuzz program.
    pub max_cycles: u64,
    /// Budget of instructions executed, summed over all threads; past it the run stops with
    /// [`Outcome::Timeout`]. Default unlimited: a caller that knows how much work the program
    /// should do (the fuzzer's oracle) sets it from that, since cycles also count stalls.
    pub max_instructions: u64,
    /// Hazards recorded (identical ones once); the rest are only counted. Default 64.
    pub max_hazards: usize,
    /// Scratch space per thread in GRFs (32-byte slots). Default 1024 (32 KiB).
    pub scratch_grfs: u32,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            max_cycles: 50_000_000,
            max_instructions: u64::MAX,
            max_hazards: 64,
            scratch_grfs: 1024,
        }
    }
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Every thread finished.
    Completed,
    /// The cycle or instruction budget ran out (results are partial).
    Timeout,
}

/// Counters summed over all threads of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Stats {
    /// Threads started.
    pub threads: u64,
    /// Cycles (each thread's cycle count, summed).
    pub cycles: u64,
    /// Instructions executed (each dynamic execution, even with no channel enabled).
    pub instructions: u64,
    /// Enabled channels summed over executed instructions (control flow: the active mask).
    pub lane_instructions: u64,
    /// Cycles instructions waited for their operands.
    pub stall_cycles: u64,
    /// Sends executed.
    pub sends: u64,
    /// Sum of `mlen` over executed sends.
    pub send_mlen: u64,
    /// Sampler sends executed.
    pub sampler_sends: u64,
    /// Scratch read messages executed (block and scattered).
    pub scratch_reads: u64,
    /// Scratch write messages executed (block and scattered).
    pub scratch_writes: u64,
}

/// Everything a run produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// Output slots and buffers after the run.
    pub results: Results,
    /// Completed or timed out.
    pub outcome: Outcome,
    /// Counters.
    pub stats: Stats,
    /// Hazards recorded (at most `Config::max_hazards`, duplicates once).
    pub hazards: Vec<Hazard>,
    /// Hazards beyond the cap, counted but not recorded.
    pub hazards_dropped: u64,
    /// How many times each instruction executed (index = instruction), summed over threads:
    /// the per-instruction profile that lets a caller who knows what an instruction is for
    /// (spill code, scratch initialisation) count its executions.
    pub profile: Vec<u64>,
}

/// Validate `program` against `dispatch` and run it. Bad programs are an `Err` listing every
/// problem, never a panic.
pub fn run(
    program: &Program,
    dispatch: &Dispatch,
    config: &Config,
) -> Result<Run, Vec<ValidationError>> {
    let structure = validate(program, Some(dispatch))?;
    let code = decode(program, &structure);
    let width = program.width.lanes();
    let mut results = dispatch.initial_results();
    let mut log = HazardLog {
        cap: config.max_hazards,
        ..HazardLog::default()
    };
    let mut stats = Stats::default();
    let mut profile = vec![0u64; code.insts.len()];
    let mut thread = Thread::take(config.scratch_grfs as usize * 8, structure.max_depth);
    let mut outcome = Outcome::Completed;
    let threads = dispatch.invocations.div_ceil(width);
    let mut m = Machine {
        code: &code,
        program,
        dispatch,
        results: &mut results,
        log: &mut log,
        stats: &mut stats,
        width,
    };
    for index in 0..threads {
        thread.reset(index, width, dispatch.invocations);
        let cycles = config.max_cycles.saturating_sub(m.stats.cycles);
        let insts = config.max_instructions.saturating_sub(m.stats.instructions);
        let done = m.run_thread(&mut thread, &mut profile, cycles, insts);
        m.stats.threads += 1;
        m.stats.cycles += thread.cycles();
        if !done {
            outcome = Outcome::Timeout;
            break;
        }
    }
    thread.give_back();
    Ok(Run {
        results,
        outcome,
        stats,
        hazards: log.list,
        hazards_dropped: log.dropped,
        profile,
    })
}

/// The number of channels in `en`, channels `d` may enable.
#[inline]
fn enabled_count(d: &Decoded, en: u32) -> u64 {
    if en == d.exec_bits {
        d.exec_count as u64
    } else {
        // `en` lies within the instruction's at most 16 channels from `group`: two bytes.
        let [lo, hi, ..] = (en >> d.group).to_le_bytes();
        (BYTE_ONES[lo as usize] + BYTE_ONES[hi as usize]) as u64
    }
}

/// Set bits of each byte value.
const BYTE_ONES: [u8; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u32).count_ones() as u8;
        b += 1;
    }
    table
};

/// The number of set bits in `x`, by bytes: `count_ones` is a dozen instructions on CPUs
/// without a popcount instruction (the baseline x86-64 target), and channels are counted per
/// instruction executed.
#[inline]
fn count_ones(x: u32) -> u64 {
    let ones = |b: u8| BYTE_ONES[b as usize] as u32;
    let [a, b, c, d] = x.to_le_bytes();
    (ones(a) + ones(b) + ones(c) + ones(d)) as u64
}

struct Machine<'a> {
    code: &'a Code,
    program: &'a Program,
    dispatch: &'a Dispatch,
    results: &'a mut Results,
    log: &'a mut HazardLog,
    stats: &'a mut Stats,
    width: u32,
}

impl Machine<'_> {
    /// Run one thread, counting each instruction's executions in `profile`; false if it ran
    /// out of `budget` cycles or `inst_budget` instructions.
    fn run_thread(
        &mut self,
        t: &mut Thread,
        profile: &mut [u64],
        budget: u64,
        inst_budget: u64,
    ) -> bool {
        let end = self.code.insts.len() as u32;
        let width_bits = if self.width >= 32 {
            u32::MAX
        } else {
            (1u32 << self.width) - 1
        };
        let (code, waits) = (&self.code.insts[..], &self.code.waits[..]);
        // As long as the code: an instruction found is counted without a second bounds check.
        let profile = &mut profile[..code.len()];
        let mut pc = 0u32;
        let (mut insts, mut lanes, mut stalls) = (0u64, 0u64, 0u64);
        let finished = loop {
            let Some(d) = code.get(pc as usize) else {
                break true;
            };
            if t.now > budget {
                break false;
            }
            if insts >= inst_budget {
                break false;
            }
            insts += 1;
            profile[pc as usize] += 1;
            let pred = d.pred != Pred::None;
            if pred {
                self.check_flag(t, d, pc);
            }
            stalls += t.issue(d, waits);
            if d.alu {
                // Tested first, with one flag: most instructions are ALU instructions.
                let en = self.enabled(t, d, d.pred_enables);
                lanes += enabled_count(d, en);
                if matches!(d.kind, Kind::Copy) {
                    // Most ALU instructions are plain copies: one source, and inline rather
                    // than through the big dispatch function.
                    let valid = alu::check_sources::<1>(t, d, en, self.log, pc);
                    alu::copy(t, d, en, valid);
                } else {
                    let valid = alu::check_sources::<3>(t, d, en, self.log, pc);
                    alu::execute(t, d, en, valid);
                }
                pc += 1;
                continue;
            }
            match d.kind {
                kind if kind.is_control() => {
                    lanes += if t.mask == width_bits {
                        self.width as u64
                    } else {
                        count_ones(t.mask)
                    };
                    pc = control::execute(t, d, pc, width_bits, end);
                    continue;
                }
                Kind::Send(desc) => {
                    let en = self.enabled(t, d, true);
                    lanes += enabled_count(d, en);
                    if self.send(t, d, &desc, en, pc) {
                        break true;
                    }
                }
                // Nop (and the ALU kinds, handled above).
                _ => {}
            }
            pc += 1;
        };
        self.stats.instructions += insts;
        self.stats.lane_instructions += lanes;
        self.stats.stall_cycles += stalls;
        finished
    }

    #[inline]
    fn enabled(&self, t: &Thread, d: &Decoded, narrow_by_pred: bool) -> u32 {
        let mut en = d.exec_bits & (t.mask | d.mask_exempt);
        if narrow_by_pred {
            en &= t.pred_bits(d);
        }
        en
    }

    fn check_flag(&mut self, t: &Thread, d: &Decoded, pc: u32) {
        let lanes = if matches!(d.kind, Kind::If | Kind::While | Kind::Break | Kind::Cont) {
            t.mask
        } else {
            self.enabled(t, d, false)
        };
        if lanes & !t.flag_written[d.flag] != 0 {
            self.log.report(Hazard {
                thread: t.index,
                inst: pc,
                reg: d.flag as u16,
                kind: HazardKind::UnwrittenFlag,
            });
        }
    }

    /// Execute a send; true if it ends the thread.
    fn send(&mut self, t: &mut Thread, d: &Decoded, desc: &SendDesc, en: u32, pc: u32) -> bool {
        let live = Layout::live(d, en);
        payload::check(t, desc, &d.layout, live, self.log, pc);
        // Messages with per-lane parameters take the layout with its channels; block
        // messages (the spill and fill code) the decoded one, without a copy.
        let l = &d.layout;
        self.stats.sends += 1;
        self.stats.send_mlen += desc.mlen as u64;
        let per = l.per;
        let lanes = Lanes {
            count: d.lanes,
            first_invocation: t.index.wrapping_mul(self.width).wrapping_add(d.group),
        };
        match desc.msg {
            Message::Sampler { op, texture, dim } => {
                self.stats.sampler_sends += 1;
                let tex = self.dispatch.textures[texture as usize];
                let channels = desc.rlen as u32 / per;
                let header = desc
                    .header
                    .then(|| sampler::SamplerHeader::decode(t.grf[l.payload as usize + 2]));
                sampler::execute(
                    t,
                    &l.on(live),
                    self.program.gen,
                    op,
                    dim,
                    texture as u32,
                    &tex,
                    header,
                    channels,
                );
            }
            Message::UntypedRead { surface, channels } => dataport::read(
                t,
                &l.on(live),
                lanes,
                surface,
                channels as u32,
                self.dispatch,
                self.results,
            ),
            Message::UntypedWrite { surface, channels } => dataport::write(
                t,
                &l.on(live),
                lanes,
                surface,
                channels as u32,
                self.dispatch,
                self.results,
            ),
            Message::ScratchBlockRead { regs } => {
                self.stats.scratch_reads += 1;
                scratch::block_read(t, l, regs as u32, self.log, pc);
            }
            Message::ScratchBlockWrite { regs } => {
                self.stats.scratch_writes += 1;
                scratch::block_write(t, l, regs as u32, self.log, pc);
            }
            Message::ScratchRead { channels } => {
                self.stats.scratch_reads += 1;
                scratch::read(t, &l.on(live), d.lanes, channels as u32, self.log, pc);
            }
            Message::ScratchWrite { channels } => {
                self.stats.scratch_writes += 1;
                scratch::write(t, &l.on(live), d.lanes, channels as u32, self.log, pc);
            }
        }
        debug_assert!(desc.msg.shared_function() != SharedFunction::Sampler || desc.rlen > 0);
        desc.eot
    }
}
