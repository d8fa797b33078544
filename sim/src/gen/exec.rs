//! Running a program over a dispatch: `ceil(invocations / width)` independent threads, each to
//! completion in order, thread `t` channel `c` being invocation `t * width + c` (channels past
//! the last invocation start disabled). Returns the results, statistics, hazards and whether
//! the run completed or ran out of its cycle or instruction budget.
//!
//! Per instruction, the enabled channels are `[group, group + exec_size)` ∩ (the control-flow
//! mask, unless NoMask) ∩ (the predicate, except for `sel`, where it chooses). A thread ends at
//! a `send` with EOT or by running past the last instruction.
//!
//! The executor works in straight-line runs (decoded once, see `Decoded::run_len`): a run
//! that fits in what is left of both budgets executes with no per-instruction check and is
//! counted in the profile once, by its edges; near a budget, instructions go one at a time,
//! so a run stops at exactly the instruction it always did.
//!
//! Each decoded instruction names its handler (`Decoded::step`), chosen by its shape at decode
//! time. The spill and fill code, most of what a spilling program executes, has its own: a
//! NoMask header copy from g0 and slot-offset dword set compute no channel mask, and scratch
//! block sends skip the general message path.

use super::alu;
use super::control;
use super::dataport::{self, Lanes};
use super::decode::{decode, Code, Decoded, Kind, Step};
use super::hazard::{Hazard, HazardKind, HazardLog};
use super::isa::{Pred, Program};
use super::layout::Layout;
use super::payload;
use super::sampler;
use super::scratch;
use super::send::{Message, SendDesc, SharedFunction};
use super::state::Thread;
use super::validate::{validate, Structure, ValidProgram, ValidationError};
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
    Ok(execute(program, &structure, dispatch, config))
}

/// [`run`] for a program validated already: only what validation checks against the
/// dispatch is checked again, with the same result.
pub fn run_valid(
    program: &ValidProgram,
    dispatch: &Dispatch,
    config: &Config,
) -> Result<Run, Vec<ValidationError>> {
    program.check_resources(dispatch)?;
    Ok(execute(program, program.structure(), dispatch, config))
}

/// Run `program`, valid for `dispatch`, whose loop structure is `structure`.
fn execute(program: &Program, structure: &Structure, dispatch: &Dispatch, config: &Config) -> Run {
    let code = decode(program, structure);
    let width = program.width.lanes();
    let mut results = dispatch.initial_results();
    let mut log = HazardLog {
        cap: config.max_hazards,
        ..HazardLog::default()
    };
    let mut stats = Stats::default();
    let mut run_edges = vec![0i64; code.insts.len() + 1];
    let mut thread = Thread::take(config.scratch_grfs as usize * 8, structure.max_depth);
    let mut outcome = Outcome::Completed;
    let threads = dispatch.invocations.div_ceil(width);
    let mut m = Machine {
        code: &code,
        program,
        dispatch,
        results: &mut results,
        slm: dataport::Slm::new(dispatch, width),
        log: &mut log,
        stats: &mut stats,
        width,
        width_bits: if width >= 32 {
            u32::MAX
        } else {
            (1u32 << width) - 1
        },
    };
    for index in 0..threads {
        thread.reset(index, width, dispatch.invocations, code.grfs);
        m.slm.data.fill(0);
        let cycles = config.max_cycles.saturating_sub(m.stats.cycles);
        let insts = config.max_instructions.saturating_sub(m.stats.instructions);
        let done = m.run_thread(&mut thread, &mut run_edges, cycles, insts);
        m.stats.threads += 1;
        m.stats.cycles += thread.cycles();
        if !done {
            outcome = Outcome::Timeout;
            break;
        }
    }
    thread.give_back();
    Run {
        results,
        outcome,
        stats,
        hazards: log.list,
        hazards_dropped: log.dropped,
        profile: profile_of(&run_edges),
    }
}

/// The executions of each instruction from the runs' edges: +1 at each run's first
/// instruction, -1 past its last, so an instruction's count is the sum up to it.
fn profile_of(run_edges: &[i64]) -> Vec<u64> {
    let mut count = 0i64;
    run_edges[..run_edges.len() - 1]
        .iter()
        .map(|&e| {
            count += e;
            count as u64
        })
        .collect()
}

/// The number of channels in `en`, channels `d` may enable.
#[inline]
fn enabled_count(d: &Decoded, en: u32) -> u64 {
    if en == d.exec_bits {
        // `exec_bits` is `lanes` ones.
        d.lanes as u64
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
    /// The running thread's workgroups' shared local memory.
    slm: dataport::Slm,
    log: &'a mut HazardLog,
    stats: &'a mut Stats,
    width: u32,
    /// The thread's channels, `width` ones.
    width_bits: u32,
}

/// Lane and stall counts of a thread, kept in registers while it runs. Both are bounded by
/// the thread's cycles and instructions times 32, far below 2^64: the stall sum, added to
/// once per instruction, wraps rather than carrying an overflow check.
#[derive(Default)]
struct Tally {
    lanes: u64,
    stalls: u64,
}

impl Machine<'_> {
    /// Run one thread, counting each instruction's executions in `run_edges` (see
    /// [`profile_of`]); false if it ran out of `budget` cycles or `inst_budget` instructions.
    ///
    /// A straight-line run (see `Decoded::run_len`) that fits in both budgets executes
    /// without a check per instruction and is counted once; otherwise (near a budget) one
    /// instruction at a time, with the checks.
    fn run_thread(
        &mut self,
        t: &mut Thread,
        run_edges: &mut [i64],
        budget: u64,
        inst_budget: u64,
    ) -> bool {
        let code = self.code.insts.as_slice();
        // One longer than the code: a run's end is counted without a second bounds check.
        let run_edges = &mut run_edges[..code.len() + 1];
        let mut pc = 0u32;
        let mut insts = 0u64;
        let mut tally = Tally::default();
        let finished = loop {
            let Some(d) = code.get(pc as usize) else {
                break true;
            };
            let last = pc + d.run_len - 1;
            if inst_budget - insts >= d.run_len as u64 && t.horizon() + d.run_cycles <= budget {
                insts += d.run_len as u64;
                run_edges[pc as usize] += 1;
                run_edges[last as usize + 1] -= 1;
                for (d, at) in code[pc as usize..last as usize].iter().zip(pc..) {
                    self.step(t, d, at, &mut tally);
                }
                pc = self.step(t, &code[last as usize], last, &mut tally);
            } else {
                if t.now > budget || insts >= inst_budget {
                    break false;
                }
                insts += 1;
                run_edges[pc as usize] += 1;
                run_edges[pc as usize + 1] -= 1;
                pc = self.step(t, d, pc, &mut tally);
            }
        };
        self.stats.instructions += insts;
        self.stats.lane_instructions += tally.lanes;
        self.stats.stall_cycles += tally.stalls;
        finished
    }

    /// Execute instruction `d` at `pc`; returns the next pc (the code's length ends the
    /// thread).
    #[inline(always)]
    fn step(&mut self, t: &mut Thread, d: &Decoded, pc: u32, tally: &mut Tally) -> u32 {
        if d.pred != Pred::None {
            self.check_flag(t, d, pc);
        }
        tally.stalls = tally.stalls.wrapping_add(t.issue(d, &self.code.waits));
        match d.step {
            // Most instructions are plain copies: one source or none, and inline rather than
            // through the big dispatch function.
            Step::CopyImm => {
                let en = self.enabled(t, d);
                tally.lanes += enabled_count(d, en);
                alu::copy_imm(t, d, en);
            }
            Step::CopyGrf => {
                tally.lanes += d.lanes as u64;
                alu::copy_grf(t, d, self.log, pc);
            }
            Step::SetDword => {
                tally.lanes += d.lanes as u64;
                alu::set_dword(t, d);
            }
            Step::Copy => {
                let en = self.enabled(t, d);
                tally.lanes += enabled_count(d, en);
                let valid = alu::check_sources::<1>(t, d, en, self.log, pc);
                alu::copy(t, d, en, valid);
            }
            Step::Alu => {
                let en = self.enabled(t, d);
                tally.lanes += enabled_count(d, en);
                let valid = alu::check_sources::<3>(t, d, en, self.log, pc);
                alu::execute(t, d, en, valid);
            }
            Step::Control => {
                tally.lanes += if t.mask == self.width_bits {
                    self.width as u64
                } else {
                    count_ones(t.mask)
                };
                return control::execute(t, d, pc, self.width_bits, self.code.insts.len() as u32);
            }
            Step::Send => {
                let Kind::Send(desc) = d.kind else {
                    unreachable!("a send step of another kind")
                };
                let en = self.enabled(t, d);
                tally.lanes += enabled_count(d, en);
                if self.send(t, d, &desc, en, pc) {
                    return self.code.insts.len() as u32;
                }
            }
            Step::ScratchBlock => {
                let en = self.enabled(t, d);
                tally.lanes += enabled_count(d, en);
                if self.scratch_block(t, d, en, pc) {
                    return self.code.insts.len() as u32;
                }
            }
            Step::Nop => {}
        }
        pc + 1
    }

    /// The channels `d` executes on (for a predicated `sel`, before the predicate chooses).
    #[inline(always)]
    fn enabled(&self, t: &Thread, d: &Decoded) -> u32 {
        let en = d.exec_bits & (t.mask | d.mask_exempt);
        if d.pred_narrows {
            en & t.pred_bits(d)
        } else {
            en
        }
    }

    fn check_flag(&mut self, t: &Thread, d: &Decoded, pc: u32) {
        let lanes = if matches!(d.kind, Kind::If | Kind::While | Kind::Break | Kind::Cont) {
            t.mask
        } else {
            d.exec_bits & (t.mask | d.mask_exempt)
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

    /// Execute a send other than a scratch block one; true if it ends the thread.
    fn send(&mut self, t: &mut Thread, d: &Decoded, desc: &SendDesc, en: u32, pc: u32) -> bool {
        let live = Layout::live(d, en);
        payload::check(t, desc, &d.layout, live, self.log, pc);
        // Messages with per-lane parameters take the layout with its channels.
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
                dataport::Memory {
                    dispatch: self.dispatch,
                    results: self.results,
                    slm: &mut self.slm,
                },
            ),
            Message::UntypedWrite { surface, channels } => dataport::write(
                t,
                &l.on(live),
                lanes,
                surface,
                channels as u32,
                dataport::Memory {
                    dispatch: self.dispatch,
                    results: self.results,
                    slm: &mut self.slm,
                },
            ),
            Message::UntypedAtomic { surface, op } => dataport::atomic(
                t,
                &l.on(live),
                lanes,
                surface,
                op,
                dataport::Memory {
                    dispatch: self.dispatch,
                    results: self.results,
                    slm: &mut self.slm,
                },
            ),
            Message::ScratchBlockRead { .. } | Message::ScratchBlockWrite { .. } => {
                unreachable!("a scratch block send takes its own step")
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

    /// Execute a scratch block send (see [`Step::ScratchBlock`]); true if it ends the thread.
    /// What [`Machine::send`] does for it, with the message known: its payload check is the
    /// header and the data GRFs, and its layout the decoded one as it is.
    fn scratch_block(&mut self, t: &mut Thread, d: &Decoded, en: u32, pc: u32) -> bool {
        let Kind::Send(desc) = d.kind else {
            unreachable!("a scratch block step of another kind")
        };
        // A block write moves the enabled channels' dwords unless it is NoMask (spill code
        // writing back a whole register).
        let live = if d.no_mask {
            payload::WHOLE_GRFS
        } else {
            Layout::live(d, en)
        };
        payload::check(t, &desc, &d.layout, live, self.log, pc);
        self.stats.sends += 1;
        self.stats.send_mlen += desc.mlen as u64;
        match desc.msg {
            Message::ScratchBlockRead { regs, offset } => {
                self.stats.scratch_reads += 1;
                let slot = match offset {
                    Some(o) => u32::from(o),
                    None => t.grf[(d.layout.payload + 2) as usize],
                };
                scratch::block_read(t, &d.layout, slot, regs as u32, self.log, pc);
            }
            Message::ScratchBlockWrite { regs } => {
                self.stats.scratch_writes += 1;
                scratch::block_write(t, &d.layout, regs as u32, live, self.log, pc);
            }
            _ => unreachable!("a scratch block step of another message"),
        }
        desc.eot
    }
}
