//! brw's Skylake, Tiger Lake, DG2 and Meteor Lake code run on our executor
//! (`sim::intel::exec`), dispatched as anv dispatches a compute shader there (`docs/anv.md`,
//! "How anv lays out a compute dispatch"), and its buffers read back as the `vulkan` target
//! reads a real device's.
//!
//! Per thread on Gfx9 and Gfx12: `g0` is the hardware header (`g0.1` the workgroup id,
//! `g0.3[3:0]` the per-thread scratch size code, `g0.5[31:10]` the scratch base); from `g1` on, anv's driver
//! push constants as the Mesa version that compiled the code lays them out ([`super::push`]:
//! base workgroup id, workgroup counts, subgroup id); thread `t` of a workgroup runs
//! invocations `t·SIMD ..`, the last one with only the channels the workgroup size leaves.
//! Gfx12.5 keeps the push constants in memory and adds the subgroup id and local ids to the
//! payload (`Thread::payload`); from Mesa 26 its driver constants are the inline parameter,
//! the register after the local ids.
//!
//! Each workgroup gets a fresh shared local memory of brw's `Workgroup Memory Size`
//! (`Memory::slm`); every workgroup gpufuzz makes fits one thread (at most 8 invocations),
//! where brw drops the barriers, so running threads one after another is exact.
//!
//! The binding table is anv's own, read from the executable's "Final NIR"
//! ([`super::binding_table`]): each binding the code accesses sits at the index anv gave it.

use super::push::Push;
use super::Capture;
use compiler::ir::Program;
use sim::dispatch::Results;
use sim::intel::exec::{
    run_observed, run_thread, Code, Memory, Observer, ScratchWindow, Start, Stop,
};
use sim::intel::Gen;
use spirv_emit::Resource;
use std::collections::BTreeMap;
use vulkan_runner::StatValue;

/// Where scratch starts for every thread (1 KiB aligned, far from zero so that a lost base
/// faults).
const SCRATCH_BASE: u32 = 0x0040_0000;

/// One run's outcome.
#[derive(Debug)]
pub enum Outcome {
    /// Every thread ended; the results read back.
    Results(Results),
    /// A thread faulted or ran out of its budget.
    Stopped(Stop),
}

/// The per-thread scratch space brw asked for, as the hardware's size code and bytes
/// (1 KiB · 2^code, at least brw's `Scratch Memory Size`).
fn scratch_size(capture: &Capture) -> Result<(u32, u32), String> {
    let bytes = match capture.statistic("Scratch Memory Size") {
        Some(StatValue::Uint(b)) => b,
        Some(StatValue::Int(b)) => b.max(0) as u64,
        None => 0,
        Some(v) => return Err(format!("scratch size statistic {v}")),
    };
    let code = (0..12)
        .find(|c| 1024u64 << c >= bytes)
        .ok_or_else(|| format!("scratch of {bytes} bytes per thread"))?;
    Ok((code, 1024 << code))
}

/// The shared local memory brw asked for, in dwords (its `Workgroup Memory Size`, bytes).
fn slm_words(capture: &Capture) -> Result<usize, String> {
    let bytes = match capture.statistic("Workgroup Memory Size") {
        Some(StatValue::Uint(b)) => b,
        Some(StatValue::Int(b)) => b.max(0) as u64,
        None => 0,
        Some(v) => return Err(format!("workgroup memory size statistic {v}")),
    };
    Ok(bytes.div_ceil(4) as usize)
}

/// Where the dispatch puts anv's driver push constants on Gfx12.5 (64-byte aligned, as
/// `g0.0[31:6]` says; far from zero and from scratch).
const PUSH_ADDRESS: u32 = 0x0080_0000;

/// One thread of a dispatch.
struct Thread {
    workgroup: u32,
    workgroups: u32,
    /// Its index in the workgroup (anv's subgroup id).
    subgroup: u32,
    /// Invocations per workgroup (X; Y and Z are 1).
    local: u32,
    simd: u32,
    /// The per-thread scratch size code.
    size_code: u32,
}

impl Thread {
    /// The registers anv's dispatch fills for this thread on `gen`; on Gfx12.5 it places the
    /// driver push constants (`push`, the listing's range, [`super::push`]) in `memory` too.
    fn payload(&self, gen: Gen, push: Option<&Push>, memory: &mut Memory) -> Vec<(u8, [u32; 8])> {
        let pushed = push.map_or(vec![], |p| p.registers(self.workgroups, self.subgroup));
        let g0 = [0, self.workgroup, 0, self.size_code, 0, SCRATCH_BASE, 0, 0];
        if !gen.is_xehp() {
            // Gfx9 and Gfx12: the header, then the push constants from g1.
            let mut payload = vec![(0, g0)];
            payload.extend(pushed);
            return payload;
        }
        // Gfx12.5 (`cs_thread_payload`, `compiler/brw_fs_thread_payload.cpp:358-390`): the
        // subgroup id in g0.2; the push constants stay in memory at `g0.0[31:6]`, loaded by
        // the code itself (`compiler/brw_fs.cpp:937-975`); the hardware generates the local
        // ids (X as words in g1, g1-g2 at SIMD32) when the workgroup's X and Y sizes are
        // powers of two and X is above 1 (`compiler/brw_nir_lower_cs_intrinsics.c:350-379`).
        let driver = pushed.iter().flat_map(|(_, words)| *words).collect();
        memory.flat.insert(u64::from(PUSH_ADDRESS), driver);
        let mut g0 = g0;
        g0[0] = PUSH_ADDRESS;
        g0[2] = self.subgroup;
        let mut payload = vec![(0, g0)];
        if self.local_ids() {
            let id = |lane: u32| self.subgroup * self.simd + lane;
            for reg in 0..self.simd.div_ceil(16) {
                let mut words = [0; 8];
                for (k, w) in words.iter_mut().enumerate() {
                    let lane = 16 * reg + 2 * k as u32;
                    *w = id(lane) | id(lane + 1) << 16;
                }
                payload.push((1 + reg as u8, words));
            }
        }
        // Mesa 26: the inline parameter follows (`r2` at SIMD16 after the local ids in `r1`,
        // `r1` when there are none; [`super::push`]).
        if let Some(words) = push.and_then(|p| p.inline(self.workgroups, self.subgroup)) {
            payload.push((payload.len() as u8, words));
        }
        payload
    }

    /// Whether the hardware generates the local ids on Gfx12.5: the workgroup's X size is a
    /// power of two above 1 (Y is 1).
    fn local_ids(&self) -> bool {
        self.local > 1 && self.local.is_power_of_two()
    }
}

/// Runs brw's code for `program` as anv would dispatch it, within `budget` instructions:
/// the outcome and the first thread's cycles (`sim::intel::exec`'s timing; 0 if it did not
/// finish). `Err` is the reason it cannot be run (to count as a skip).
pub fn execute(
    capture: &Capture,
    program: &Program,
    budget: u64,
) -> Result<(Outcome, u64), String> {
    execute_watched(capture, program, budget, None)
}

/// [`execute`], showing `watch`'s observer the thread that runs invocation `watch.0` (for
/// triage's tracer, [`super::trace`]).
pub fn execute_watched(
    capture: &Capture,
    program: &Program,
    budget: u64,
    mut watch: Option<(u32, &mut dyn Observer)>,
) -> Result<(Outcome, u64), String> {
    let [kernel] = capture.kernels.as_slice() else {
        return Err(format!("{} executables", capture.kernels.len()));
    };
    let table = kernel
        .binding_table
        .as_ref()
        .map_err(|why| format!("binding table: {why}"))?;
    let decoded = sim::intel::decode_program_as(capture.platform.gen(), &kernel.listing.bytes())
        .map_err(|e| format!("undecodable code: {}", e.reason))?;
    let code = Code::new(decoded);
    let gen = capture.platform.gen();
    let push = Push::of(
        &capture.mesa,
        gen.is_xehp(),
        &kernel.listing.header,
        &kernel.reads,
    )?;
    let (size_code, scratch_bytes) = scratch_size(capture)?;
    let slm_words = slm_words(capture)?;
    let interface = &capture.module.interface;
    let simd = kernel.simd;
    if !matches!(simd, 8 | 16 | 32) {
        return Err(format!("SIMD{simd}"));
    }
    // Threads run one after another, so a barrier could only be honoured inside one thread:
    // a workgroup of several threads with shared memory is not run.
    if interface.local_size > simd && slm_words > 0 {
        return Err(format!(
            "a workgroup of {} over SIMD{simd} threads sharing memory",
            interface.local_size
        ));
    }
    // Each binding at the index anv gave it; the storage buffers' indices, for the read-back.
    let mut memory = Memory::default();
    let mut at = BTreeMap::new();
    for (&index, &number) in table {
        let binding = interface
            .bindings
            .iter()
            .find(|b| b.binding == number)
            .ok_or_else(|| format!("anv's table names binding {number}, which the module lacks"))?;
        match &binding.resource {
            Resource::Storage { words, .. } => {
                memory.surfaces.insert(index, words.clone());
                at.insert(number, index);
            }
            Resource::Texture(t) => {
                let image = t.image();
                memory.images.insert(index, image);
            }
        }
    }
    let mut budget = budget;
    let mut first_thread = None;
    let local = interface.local_size;
    let hardware_ids = local > 1 && local.is_power_of_two();
    if push.as_ref().is_some_and(Push::has_inline) && hardware_ids != kernel.reads.local_ids {
        // The inline parameter's register depends on whether brw had the local ids generated.
        return Err(format!(
            "inline push data with local ids {} by the hardware but {} by the code",
            if hardware_ids {
                "generated"
            } else {
                "not generated"
            },
            if kernel.reads.local_ids {
                "read"
            } else {
                "not read"
            }
        ));
    }
    for workgroup in 0..interface.workgroups {
        memory.slm = vec![0; slm_words];
        for t in 0..local.div_ceil(simd) {
            let lanes = (local - t * simd).min(simd);
            let thread = Thread {
                workgroup,
                workgroups: interface.workgroups,
                subgroup: t,
                local,
                simd,
                size_code,
            };
            let payload = thread.payload(gen, push.as_ref(), &mut memory);
            let start = Start {
                payload: &payload,
                dispatch_mask: u32::MAX >> (32 - lanes),
                scratch: ScratchWindow {
                    base: SCRATCH_BASE,
                    bytes: scratch_bytes,
                },
            };
            let first = workgroup * local + t * simd;
            let ran = match watch.as_mut() {
                Some((invocation, observer)) if (first..first + lanes).contains(invocation) => {
                    run_observed(&code, &start, &mut memory, &mut budget, *observer)
                }
                _ => run_thread(&code, &start, &mut memory, &mut budget),
            };
            match ran {
                Ok(stats) => {
                    first_thread.get_or_insert(stats.cycles);
                }
                Err(Stop::Unsupported(why)) => return Err(why),
                Err(stop) => return Ok((Outcome::Stopped(stop), first_thread.unwrap_or(0))),
            }
        }
    }
    // A buffer the code never names keeps its initial words.
    let read_back: Vec<Vec<u32>> = (interface.bindings.iter())
        .filter_map(|b| match &b.resource {
            Resource::Storage { words, .. } => Some(match at.get(&b.binding) {
                Some(index) => memory.surfaces[index].clone(),
                None => words.clone(),
            }),
            Resource::Texture(_) => None,
        })
        .collect();
    let results = (interface.results(&program.dispatch, &read_back))
        .map_err(|e| format!("read-back: {e}"))?;
    Ok((Outcome::Results(results), first_thread.unwrap_or(0)))
}

/// The instructions brw's code may execute for a program whose interpreter run executed
/// `executed_insts` IR instructions over all invocations. Each of brw's instructions runs a
/// whole SIMD thread, so its instructions per IR instruction of one invocation stay below 2
/// even when every value spills; the factor leaves a wide margin, and a thread's fixed cost is
/// covered by the constant.
pub fn budget(executed_insts: u64) -> u64 {
    100_000 + 32 * executed_insts
}
