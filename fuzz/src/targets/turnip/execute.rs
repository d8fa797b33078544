//! ir3's code for a case run on our executor (`sim::ir3::exec`) with the dispatch turnip would
//! set up (`docs/ir3-dispatch.md`), its storage buffers read back as the `vulkan` target
//! reads a real device's.
//!
//! The dispatch, from the listing's header and the module's interface:
//! * the local id arrives in the GPR vec3 and the hardware workgroup id in the shared vec3
//!   the `; CL: inputs:` line names; anything else there is a skip;
//! * the driver params (`struct ir3_driver_params_cs`: group counts, base group 0, subgroup
//!   size, subgroup id shift) go where `driver_params` says, or, on a750, in UBO 1 for the
//!   preamble's `ldc.k`; the immediates (`@const`) are loaded by the CP except on a750, whose
//!   preamble stores them;
//! * set 0's bindings sit in binding order, a storage buffer taking one 64-byte descriptor
//!   (two on a7xx), a combined image sampler two (the image, then the sampler);
//! * waves of 128 fibers when the header says `double_threadsize`, else 64.

use super::agree::Code;
use super::knobs::AdrenoFacts;
use compiler::ir::Program;
use compiler::planted::{Plant, Plants};
use sim::dispatch::Results;
use sim::ir3::exec::{self, Descriptor, Dispatch, Run, Stop};
use sim::ir3::{parse_header, Header};
use spirv_emit::{Interface, Resource};
use std::collections::BTreeMap;

/// Private bytes each fiber may use: more than any spill area ir3 made for our programs
/// (`spillall` on the largest of `corpus/stats` stays under 1 KiB; a run past it is a skip).
const PRIVATE_BYTES: u32 = 16 * 1024;

/// The words of `struct ir3_driver_params_cs` for a dispatch of `workgroups` × 1 × 1 at base
/// group 0 in waves of `wave` fibers (`build_driver_params_cs`, `vulkan/tu_cmd_buffer.cc`).
fn driver_params(workgroups: u32, wave: u32) -> [u32; 16] {
    let mut p = [0; 16];
    p[..3].copy_from_slice(&[workgroups, 1, 1]);
    p[7] = wave;
    p[11] = wave.trailing_zeros();
    p
}

/// The dispatch turnip sets up for code whose listing has `header`, compiled from a module
/// with `interface`, on a GPU with `facts`. `Err`: a fact we do not model (a skip).
pub fn dispatch(
    header: &Header,
    interface: &Interface,
    facts: AdrenoFacts,
) -> Result<Dispatch, String> {
    let wave = if header.double_threadsize { 128 } else { 64 };
    let (mut local_id, mut workgroup_id) = (None, None);
    for input in &header.inputs {
        match input.sysval.as_str() {
            "SYSTEM_VALUE_LOCAL_INVOCATION_ID" => local_id = Some(input.reg),
            "SYSTEM_VALUE_WORKGROUP_ID" => workgroup_id = Some(input.reg),
            other => return Err(format!("system value {other}")),
        }
    }
    let mut consts = vec![None; 4 * facts.const_vec4s];
    let params = driver_params(interface.workgroups, wave);
    let mut ubos = BTreeMap::new();
    if facts.consts_via_preamble {
        // The driver UBO takes the first free slot after 0 (`ir3_get_driver_ubo`).
        ubos.insert(1, params.to_vec());
    } else {
        for (name, at, vec4s) in &header.offsets {
            if name == "driver_params" {
                for k in 0..4 * *vec4s as usize {
                    if let Some(c) = consts.get_mut(*at as usize + k) {
                        *c = Some(params.get(k).copied().unwrap_or(0));
                    }
                }
            }
        }
    }
    if !facts.consts_via_preamble {
        for (at, words) in &header.immediates {
            for (k, &w) in words.iter().enumerate() {
                match consts.get_mut(*at as usize + k) {
                    Some(c) => *c = Some(w),
                    None => return Err("an immediate past the const file".into()),
                }
            }
        }
    }
    let mut descriptors = BTreeMap::new();
    let mut buffers = Vec::new();
    let mut images = Vec::new();
    let mut slot = 0;
    for b in &interface.bindings {
        match &b.resource {
            Resource::Storage { words, .. } => {
                descriptors.insert(slot, Descriptor::Buffer(buffers.len()));
                buffers.push(words.clone());
                slot += facts.ssbo_descriptors;
            }
            Resource::Texture(t) => {
                descriptors.insert(slot, Descriptor::Texture(images.len()));
                descriptors.insert(slot + 1, Descriptor::Sampler);
                images.push(t.image());
                slot += 2;
            }
        }
    }
    Ok(Dispatch {
        chip: facts.chip,
        wave,
        local_size: interface.local_size,
        workgroups: interface.workgroups,
        local_id,
        workgroup_id,
        consts,
        ubos,
        descriptors,
        buffers,
        images,
        private_bytes: PRIVATE_BYTES,
    })
}

/// Why a compile's code was not run.
#[derive(Debug)]
pub enum NotRun {
    /// A word we do not decode (its index).
    Undecoded(usize),
    /// The listing's header did not read.
    Header(String),
    /// A dispatch fact or an instruction we do not model.
    Unmodelled(String),
}

impl std::fmt::Display for NotRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotRun::Undecoded(i) => write!(f, "word {i} not decoded"),
            NotRun::Header(why) => write!(f, "listing header: {why}"),
            NotRun::Unmodelled(why) => write!(f, "{why}"),
        }
    }
}

/// The run's outcome read back.
pub struct Executed {
    /// The results, or why the run stopped (a fault or a timeout: not a skip).
    pub results: Result<Results, Stop>,
    /// What the run saw (hazards, cycles, the trace).
    pub run: Option<Run>,
}

/// Runs `code` for `program` (compiled from a module with `interface`) on a GPU with
/// `facts`, within `budget` instructions, tracing invocation `watch`; `plants` may hold our
/// decoder's planted slip.
pub fn execute(
    code: &Code,
    program: &Program,
    interface: &Interface,
    facts: AdrenoFacts,
    (budget, watch): (u64, Option<u32>),
    plants: Plants,
) -> Result<Executed, NotRun> {
    let mut instrs = exec::program(&code.decoded).map_err(|(i, _)| NotRun::Undecoded(i))?;
    if plants.has(Plant::Ir3DecoderCmpsCond) {
        plant_cmps_slip(&mut instrs);
    }
    let header = parse_header(&code.text).map_err(|e| NotRun::Header(e.to_string()))?;
    let dispatch = dispatch(&header, interface, facts).map_err(NotRun::Unmodelled)?;
    let run = match exec::run(&instrs, &dispatch, budget, watch) {
        Ok(run) => run,
        Err(Stop::Unsupported(why)) => return Err(NotRun::Unmodelled(why)),
        Err(stop) => return Err(NotRun::Unmodelled(stop.to_string())),
    };
    if let Some(stop) = run.stopped.clone() {
        return Ok(Executed {
            results: Err(stop),
            run: Some(run),
        });
    }
    let read_back: Vec<Vec<u32>> = run.buffers.clone();
    let results = (interface.results(&program.dispatch, &read_back))
        .map_err(|e| NotRun::Unmodelled(format!("read-back: {e}")))?;
    Ok(Executed {
        results: Ok(results),
        run: Some(run),
    })
}

/// The planted decoder slip: every compare's condition read one off, as a wrong table entry
/// would (`lt` as `le`, `gt` as `ge`, and back).
fn plant_cmps_slip(instrs: &mut [sim::ir3::Instr]) {
    use sim::ir3::{Body, CmpCond};
    for i in instrs {
        if let Body::Alu(a) = &mut i.body {
            a.cond = a.cond.map(|c| match c {
                CmpCond::Lt => CmpCond::Le,
                CmpCond::Le => CmpCond::Lt,
                CmpCond::Gt => CmpCond::Ge,
                CmpCond::Ge => CmpCond::Gt,
                other => other,
            });
        }
    }
}

/// The instructions ir3's code may issue for a program whose interpreter run executed
/// `executed_insts` IR instructions over all invocations: each issue runs a whole wave, so a
/// wide margin over one per IR instruction, and a constant for the fixed cost.
pub fn budget(executed_insts: u64) -> u64 {
    100_000 + 32 * executed_insts
}
