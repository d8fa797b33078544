//! brw's Skylake code run on our executor (`sim::intel::exec`), dispatched as anv dispatches a
//! compute shader on Gfx9 (`docs/anv.md`, "How anv lays out a compute dispatch"), and its
//! buffers read back as the `vulkan` target reads a real device's.
//!
//! Per thread: `g0` is the hardware header (`g0.1` the workgroup id, `g0.3[3:0]` the
//! per-thread scratch size code, `g0.5[31:10]` the scratch base); `g1` holds anv's 32-byte
//! driver push constants (`struct anv_push_constants`, `vulkan/anv_private.h:3743-3755`: base
//! workgroup id, workgroup counts, subgroup id) when the listing's header names exactly that
//! range; thread `t` of a workgroup runs invocations `t·SIMD ..`, the last one with only the
//! channels the workgroup size leaves.
//!
//! The binding table is anv's, not brw's, and the API does not show it: anv orders the used
//! bindings by a use count taken in NIR (`vulkan/anv_nir_apply_pipeline_layout.c:2300-2340`).
//! The executor therefore tries every assignment of the surfaces the code accesses to the
//! program's bindings that fits their use (sampled ones to textures, no writes to the
//! uniforms, no reads of the outputs), and the case agrees when one assignment reproduces the
//! interpreter. A brw bug cannot hide behind this: brw only uses the indices anv gave it.

use super::super::pipeline::caused;
use super::Capture;
use crate::case::coverage::Coverage;
use crate::case::interpreter::INTERPRETER;
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::cause::Cause;
use crate::finding::{Finding, FindingKind, Mismatch};
use compiler::interp::RunOptions;
use compiler::ir::{InstKind, Program};
use sim::dispatch::Results;
use sim::intel::exec::{run_thread, Code, Image, Memory, ScratchWindow, Start, Stop};
use spirv_emit::{Interface, Resource, StorageRole, TextureData};
use std::collections::BTreeMap;
use vulkan_runner::StatValue;

/// The most binding-table assignments tried for one program.
const MAX_ASSIGNMENTS: usize = 96;

/// Where scratch starts for every thread (1 KiB aligned, far from zero so that a lost base
/// faults).
const SCRATCH_BASE: u32 = 0x0040_0000;

/// What running brw's code gave.
#[derive(Debug)]
pub enum Executed {
    /// It ran to completion under some binding-table assignment and its results agree with
    /// the expected ones.
    Agrees,
    /// It ran (or stopped) under every assignment and never agreed: the first assignment's
    /// outcome.
    Differs(Outcome),
    /// It could not be judged (a feature the executor does not model, or a dispatch shape
    /// this module does not lay out), with the reason to count.
    Skipped(String),
}

/// One run's outcome.
#[derive(Debug)]
pub enum Outcome {
    /// Every thread ended; the results read back.
    Results(Results),
    /// A thread faulted or ran out of its budget.
    Stopped(Stop),
}

/// How the code uses a binding-table index.
#[derive(Clone, Copy, Debug, Default)]
struct Uses {
    read: bool,
    written: bool,
    sampled: bool,
}

/// The binding-table indices the code's data-port and sampler messages name (scratch's
/// stateless index aside), with how each is used.
fn surfaces(code: &Code) -> BTreeMap<u8, Uses> {
    let mut out: BTreeMap<u8, Uses> = BTreeMap::new();
    for (_, inst) in &code.insts {
        let Some(send) = inst.send.filter(|_| inst.opcode.is_send()) else {
            continue;
        };
        let Some(desc) = send.desc else {
            continue;
        };
        let kind = desc >> 14 & 0x1f;
        let uses = out.entry(desc as u8);
        match (send.sfid, kind) {
            (2, _) => uses.or_default().sampled = true,
            (12, 1) => uses.or_default().read = true,
            (12, 9) => uses.or_default().written = true,
            _ => {}
        }
    }
    out
}

/// A binding of the program's descriptor set.
enum Bound<'a> {
    /// A storage buffer: its role and initial words.
    Storage(StorageRole, &'a [u32]),
    /// A sampled image.
    Texture(&'a TextureData),
}

fn bindings(interface: &Interface) -> Vec<Bound<'_>> {
    interface
        .bindings
        .iter()
        .map(|b| match &b.resource {
            Resource::Storage { role, words } => Bound::Storage(*role, words.as_slice()),
            Resource::Texture(t) => Bound::Texture(t),
        })
        .collect()
}

/// How often the program names each binding (IR loads, stores and texture operations): a
/// stand-in for the use count anv ranks bindings by, so that the likeliest table comes first.
fn accesses(program: &Program, bindings: &[Bound]) -> Vec<usize> {
    let func = &program.func;
    let mut count = vec![0; bindings.len()];
    for (_, inst) in func.insts_in_order() {
        let named = |b: &Bound| match (&func.insts[inst].kind, b) {
            (InstKind::LoadUniform { .. }, Bound::Storage(StorageRole::Uniforms, _)) => true,
            (InstKind::StoreOutput { .. }, Bound::Storage(StorageRole::Outputs, _)) => true,
            (
                InstKind::LoadBuffer { buffer, .. } | InstKind::StoreBuffer { buffer, .. },
                Bound::Storage(StorageRole::Buffer(n), _),
            ) => buffer == n,
            (
                InstKind::Tex { texture, .. }
                | InstKind::Txf { texture, .. }
                | InstKind::Txs { texture, .. },
                Bound::Texture(t),
            ) => *texture == t.texture,
            _ => false,
        };
        for (k, b) in bindings.iter().enumerate() {
            count[k] += usize::from(named(b));
        }
    }
    count
}

/// Every injective assignment of `surfaces` to `bindings` (indices into `bindings`) that fits
/// how the code uses each (sampled ones to textures; no writes to the uniforms, no reads of
/// the outputs), at most [`MAX_ASSIGNMENTS`]. anv numbers the used bindings by a use count,
/// ties by binding number: the assignment in binding order comes first, then the one in the
/// program's access order (most accessed first), then the others in access order.
fn assignments(surfaces: &[(u8, Uses)], bindings: &[Bound], accesses: &[usize]) -> Vec<Vec<usize>> {
    let by_number: Vec<usize> = (0..bindings.len()).collect();
    let mut by_access = by_number.clone();
    by_access.sort_by_key(|&b| (std::cmp::Reverse(accesses[b]), b));
    let mut out = enumerate(surfaces, bindings, &by_number, 1);
    for a in enumerate(surfaces, bindings, &by_access, MAX_ASSIGNMENTS) {
        if out.len() < MAX_ASSIGNMENTS && !out.contains(&a) {
            out.push(a);
        }
    }
    out
}

/// The first `limit` assignments that fit, trying bindings in `order`.
fn enumerate(
    surfaces: &[(u8, Uses)],
    bindings: &[Bound],
    order: &[usize],
    limit: usize,
) -> Vec<Vec<usize>> {
    let fits = |uses: Uses, binding: usize| match &bindings[binding] {
        Bound::Texture(_) => uses.sampled && !uses.read && !uses.written,
        Bound::Storage(_, _) if uses.sampled => false,
        Bound::Storage(StorageRole::Uniforms, _) => !uses.written,
        Bound::Storage(StorageRole::Outputs, _) => !uses.read,
        Bound::Storage(StorageRole::Buffer(_), _) => true,
    };
    let mut out = Vec::new();
    let mut current = Vec::new();
    fn extend(
        surfaces: &[(u8, Uses)],
        order: &[usize],
        fits: &dyn Fn(Uses, usize) -> bool,
        limit: usize,
        current: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if out.len() >= limit {
            return;
        }
        let Some(&(_, uses)) = surfaces.get(current.len()) else {
            out.push(current.clone());
            return;
        };
        for &b in order {
            if !current.contains(&b) && fits(uses, b) {
                current.push(b);
                extend(surfaces, order, fits, limit, current, out);
                current.pop();
            }
        }
    }
    extend(surfaces, order, &fits, limit, &mut current, &mut out);
    out
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

/// Whether the listing pushes exactly anv's 32-byte driver constants (or nothing).
fn push_layout(capture: &Capture, header: &[String]) -> Result<bool, String> {
    let ranges: Vec<&str> = header
        .iter()
        .map(|l| l.trim())
        .filter(|l| l.starts_with("RANGE"))
        .collect();
    match ranges.as_slice() {
        [] => Ok(false),
        ["RANGE0 (32B): Vulkan push constants and API params"] => Ok(true),
        _ => Err(format!(
            "push constant ranges {} on {}",
            ranges.join("; "),
            capture.platform
        )),
    }
}

/// Runs brw's code for `program` as anv would dispatch it and compares with `expected`
/// through `agrees`.
pub fn execute(
    capture: &Capture,
    program: &Program,
    budget: u64,
    agrees: &dyn Fn(&Results) -> bool,
) -> Executed {
    match try_execute(capture, program, budget, agrees) {
        Ok(e) => e,
        Err(why) => Executed::Skipped(why),
    }
}

fn try_execute(
    capture: &Capture,
    program: &Program,
    budget: u64,
    agrees: &dyn Fn(&Results) -> bool,
) -> Result<Executed, String> {
    let [kernel] = capture.kernels.as_slice() else {
        return Err(format!("{} executables", capture.kernels.len()));
    };
    let decoded = sim::intel::decode_program(&kernel.listing.bytes())
        .map_err(|e| format!("undecodable code: {}", e.reason))?;
    let code = Code::new(decoded);
    let pushed = push_layout(capture, &kernel.listing.header)?;
    let (size_code, scratch_bytes) = scratch_size(capture)?;
    let interface = &capture.module.interface;
    let simd = kernel.simd;
    if !matches!(simd, 8 | 16 | 32) {
        return Err(format!("SIMD{simd}"));
    }
    let bindings = bindings(interface);
    let used: Vec<(u8, Uses)> = surfaces(&code).into_iter().collect();
    let candidates = assignments(&used, &bindings, &accesses(program, &bindings));
    if candidates.is_empty() {
        return Err("no binding-table assignment fits the surfaces the code accesses".into());
    }
    // A wrong table can send a loop through garbage bounds: each assignment gets its share
    // of the budget (still far above what the right one needs, see `judge`).
    let budget = budget / candidates.len() as u64;
    let mut first = None;
    for assignment in &candidates {
        let outcome = dispatch(
            &code,
            interface,
            program,
            &bindings,
            &used,
            assignment,
            Layout {
                simd,
                pushed,
                size_code,
                scratch_bytes,
            },
            budget,
        );
        match outcome {
            Ok(Outcome::Results(r)) if agrees(&r) => return Ok(Executed::Agrees),
            Err(why) => return Err(why),
            Ok(o) => {
                first.get_or_insert(o);
            }
        }
    }
    Ok(Executed::Differs(
        first.expect("at least one assignment ran"),
    ))
}

/// The dispatch's shape.
#[derive(Clone, Copy)]
struct Layout {
    simd: u32,
    pushed: bool,
    size_code: u32,
    scratch_bytes: u32,
}

/// One dispatch under one binding-table assignment; `Err` is a skip reason.
#[allow(clippy::too_many_arguments)]
fn dispatch(
    code: &Code,
    interface: &Interface,
    program: &Program,
    bindings: &[Bound],
    used: &[(u8, Uses)],
    assignment: &[usize],
    layout: Layout,
    mut budget: u64,
) -> Result<Outcome, String> {
    let mut memory = Memory::default();
    for (&(surface, _), &b) in used.iter().zip(assignment) {
        match &bindings[b] {
            Bound::Storage(_, words) => {
                memory.surfaces.insert(surface, words.to_vec());
            }
            Bound::Texture(t) => {
                memory.images.insert(
                    surface,
                    Image {
                        width: t.width,
                        height: t.height,
                        levels: t.desc.levels,
                        layers: t.desc.layers,
                        texels: t.subresources.concat(),
                    },
                );
            }
        }
    }
    let local = interface.local_size;
    let threads = local.div_ceil(layout.simd);
    for workgroup in 0..interface.workgroups {
        for t in 0..threads {
            let lanes = (local - t * layout.simd).min(layout.simd);
            let mut payload = vec![(
                0u8,
                [0, workgroup, 0, layout.size_code, 0, SCRATCH_BASE, 0, 0],
            )];
            if layout.pushed {
                payload.push((1, [0, 0, 0, interface.workgroups, 1, 1, t, 0]));
            }
            let start = Start {
                payload: &payload,
                dispatch_mask: if lanes == 32 {
                    u32::MAX
                } else {
                    (1 << lanes) - 1
                },
                scratch: ScratchWindow {
                    base: SCRATCH_BASE,
                    bytes: layout.scratch_bytes,
                },
            };
            match run_thread(code, &start, &mut memory, &mut budget) {
                Ok(_) => {}
                Err(Stop::Unsupported(why)) => return Err(why),
                Err(stop) => return Ok(Outcome::Stopped(stop)),
            }
        }
    }
    let read_back: Vec<Vec<u32>> = bindings
        .iter()
        .enumerate()
        .filter_map(|(k, b)| match b {
            Bound::Storage(_, initial) => Some((k, initial)),
            Bound::Texture(_) => None,
        })
        .map(|(k, initial)| {
            used.iter()
                .zip(assignment)
                .find(|(_, &b)| b == k)
                .map_or_else(
                    || initial.to_vec(),
                    |((s, _), _)| memory.surfaces[s].clone(),
                )
        })
        .collect();
    interface
        .results(&program.dispatch, &read_back)
        .map(Outcome::Results)
        .map_err(|e| format!("read-back: {e}"))
}

/// Judges a compiled case on the executor: `Ok` when brw's code agrees with the interpreter
/// or could not be run (the reason counted in `coverage.skipped`); an [`FindingKind::Unconfirmed`]
/// finding when it differs, faults or times out — until triage can show a difference to be
/// brw's, it is kept for investigation and never filed as brw's bug.
pub fn judge(
    case: &Case,
    program: &Program,
    capture: &Capture,
    opts: &OracleOptions,
    coverage: &mut Coverage,
) -> Result<(), Box<Finding>> {
    let run = RunOptions {
        fuel: opts.fuel,
        ..RunOptions::default()
    };
    let Ok((expected, work)) =
        INTERPRETER.with_borrow_mut(|i| i.run_with_stats(&case.program, &run))
    else {
        coverage
            .skipped
            .push("anv: the interpreter does not finish".into());
        return Ok(());
    };
    let plan = spirv_emit::comparison(program, &capture.emit_options);
    let dispatch = &program.dispatch;
    let agrees = |r: &Results| plan.first_difference(&expected, r, dispatch).is_none();
    // Each of brw's instructions runs a whole SIMD thread, so its instructions per IR
    // instruction of one invocation stay below 2 even when every value spills; split over
    // at most 96 binding-table assignments, each still gets 2.6 per IR instruction, and a
    // thread's fixed cost is covered by the constant.
    let budget = 100_000 + 256 * work.executed_insts;
    let simd = capture.kernels.first().map_or(0, |k| k.simd);
    let at = format!(
        "[anv {}, INTEL_DEBUG={}, SIMD{simd}; {}]",
        capture.platform,
        capture.switches.intel_debug(),
        capture.device
    );
    let (class, detail, difference) = match execute(capture, program, budget, &agrees) {
        Executed::Agrees => return Ok(()),
        Executed::Skipped(why) => {
            coverage.skipped.push(format!("anv: {why}"));
            return Ok(());
        }
        Executed::Differs(Outcome::Results(actual)) => {
            let Some((d, _)) = plan.first_difference(&expected, &actual, dispatch) else {
                return Ok(());
            };
            let m = Mismatch::from(d);
            ("mismatch", m.to_string(), Some(m))
        }
        Executed::Differs(Outcome::Stopped(Stop::Fault(why))) => ("fault", why, None),
        Executed::Differs(Outcome::Stopped(stop)) => ("timeout", stop.to_string(), None),
    };
    let mut f = caused(
        "anv",
        FindingKind::Unconfirmed,
        format!(
            "brw's code on our executor: {detail} {at} (not yet shown to be brw's: our executor may be wrong)"
        ),
        Cause::named(class),
    );
    f.difference = difference;
    Err(f)
}
