//! Which of brw's instructions first went wrong: a wrong word traced back through the thread's
//! data flow to the first instruction whose result the interpreter never computed, and named
//! in the IR.
//!
//! The thread that runs the failing invocation is run again under an observer
//! ([`sim::intel::exec::observe`]) that keeps, for every executed instruction and every channel,
//! the places it wrote (GRF elements, flag bits) with their bits and the places it read. The
//! interpreter runs the program anv compiled, recording every value each invocation computed
//! ([`compiler::interp::record`]). A written element is *named* when some value of the
//! invocation its channel runs held exactly those bits (an element narrower than a dword: its
//! low bits); flag bits are never named (one bit says nothing).
//!
//! The rule, from the word back:
//! 1. The message that stored the word is the last SEND of the thread after which the word
//!    changed; the payload dword of the failing channel that holds the word's value is where
//!    the data came from. Each read place leads to the instruction that last wrote it, in any
//!    channel (a scalar region reads another channel's element).
//! 2. *A result the IR never computes.* When the stored data is unnamed, walk back through
//!    the instructions whose written element is unnamed. The earliest of them is the first
//!    differing instruction: each of its inputs holds a named value, an immediate, the
//!    thread's payload or a flag, yet its result is no value of the program. Instructions whose
//!    unnamed results end in a named one — brw's own intermediates, a `mul`/`mach` partial
//!    product, address arithmetic — are never on that walk, since a named value stops it.
//!    The IR values its inputs carried are listed, with the IR instructions that take most of
//!    them as operands: the instruction brw was computing.
//! 3. *A value from the wrong place or time.* When the stored data is some IR value, but not
//!    the expected one (a lost copy, a spill reloaded from the wrong slot, a stale loop value),
//!    the copies carrying it are followed back to the instruction that computed it; the report
//!    names the IR value it is, and where brw's code first wrote the expected value, if it did.
//!
//! What the trace cannot see: memory (a message's response is where the walk stops: what a
//! spill stored or a buffer held is not followed to its writer), message headers and
//! addresses, the accumulator, `a0` and indirect regions, control flow (a wrong branch shows
//! only as the values it lets through), and values brw computes that the IR never names — a
//! wrong one of those is blamed on the first named-input instruction that produced an unnamed
//! result feeding the word, which is the right instruction or one that merely reformats its
//! value (a `mov` into a narrower type).

use super::execute::{budget, execute, execute_watched, Outcome};
use super::AnvKnobs;
use super::{compile, Capture, Install};
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::finding::{Mismatch, MismatchPlace};
use compiler::interp::record::Recorded;
use compiler::interp::{self, RunOptions};
use compiler::ir::text::print_inst;
use compiler::ir::{Program, Value};
use sim::intel::exec::{Input, Observer, Place, Step};
use spirv_emit::{Resource, StorageRole};
use std::collections::BTreeMap;
use std::fmt::Write;

/// One executed instruction as the tracer keeps it.
#[derive(Clone, Debug, Default)]
struct Traced {
    /// Its index in the program.
    index: usize,
    /// (channel, place, bits) of every element and flag bit it wrote.
    writes: Vec<(u8, Place, u64)>,
    /// Per channel that wrote, what it read.
    reads: BTreeMap<u8, Vec<Input>>,
    /// Whether it is a message (SEND).
    message: bool,
    /// Whether it is a message after which the watched word changed.
    stored: bool,
}

/// Keeps every step of one thread and watches one word of one surface.
struct Recorder {
    surface: u8,
    word: usize,
    last: Option<u32>,
    steps: Vec<Traced>,
}

impl Observer for Recorder {
    fn executed(&mut self, step: &Step<'_>) {
        let now = (step.memory.surfaces.get(&self.surface)).and_then(|w| w.get(self.word).copied());
        let message = step.inst.opcode.is_send();
        let stored = message && now != self.last;
        self.last = now;
        let mut t = Traced {
            index: step.index,
            message,
            stored,
            ..Traced::default()
        };
        for c in (0..32u8).filter(|c| step.lanes >> c & 1 == 1) {
            (t.writes).extend(step.writes(c as usize).into_iter().map(|(p, b)| (c, p, b)));
            t.reads.insert(c, step.reads(c as usize));
        }
        self.steps.push(t);
    }
}

/// A write in the trace: (step, channel, place, bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Node {
    step: usize,
    channel: u8,
    place: Place,
    bits: u64,
}

/// What the tracer found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The instruction to mark (its index in the listing) and what to say there.
    pub marks: Vec<(usize, String)>,
    /// Lines for the listing's head.
    pub summary: Vec<String>,
}

/// Traces `mismatch` (a word where brw's code on our executor differs from the interpreter)
/// in `capture`'s code for `program` (what anv compiled). `Err` says why it cannot.
pub fn trace(
    capture: &Capture,
    program: &Program,
    budget: u64,
    fuel: u64,
    mismatch: &Mismatch,
) -> Result<Found, String> {
    let [kernel] = capture.kernels.as_slice() else {
        return Err(format!("{} executables", capture.kernels.len()));
    };
    let table = (kernel.binding_table.as_ref()).map_err(|why| format!("binding table: {why}"))?;
    let d = &program.dispatch;
    let (role, width) = match mismatch.place {
        MismatchPlace::Output => (StorageRole::Outputs, d.outputs),
        MismatchPlace::Buffer(b) => (StorageRole::Buffer(b), d.buffers[b as usize]),
    };
    let binding = (capture.module.interface.bindings.iter())
        .find(|b| matches!(b.resource, Resource::Storage { role: r, .. } if r == role))
        .ok_or("the word's buffer is not in the module")?;
    let (&surface, _) = (table.iter())
        .find(|(_, &n)| n == binding.binding)
        .ok_or("brw's code never names the word's buffer")?;
    let invocation = mismatch.invocation;
    let mut recorder = Recorder {
        surface,
        word: (invocation * width + mismatch.index) as usize,
        last: None,
        steps: Vec::new(),
    };
    let watched = Some((invocation, &mut recorder as &mut dyn Observer));
    match execute_watched(capture, program, budget, watched)? {
        (Outcome::Results(_), _) => {}
        (Outcome::Stopped(stop), _) => return Err(format!("the run stopped: {stop}")),
    }
    let run = RunOptions {
        fuel,
        ..RunOptions::default()
    };
    let (_, recorded) =
        interp::run_recording(program, &run).map_err(|e| format!("the interpreter: {e}"))?;
    let simd = kernel.simd;
    let local = capture.module.interface.local_size;
    let base = invocation - invocation % local + (invocation % local) / simd * simd;
    let walk = Walk {
        steps: &recorder.steps,
        recorded: &recorded,
        program,
        base,
        invocations: d.invocations,
    };
    Ok(walk.explain((invocation - base) as u8, mismatch))
}

/// The trace of one thread against the interpreter's values.
struct Walk<'a> {
    steps: &'a [Traced],
    recorded: &'a Recorded,
    program: &'a Program,
    /// The invocation of channel 0.
    base: u32,
    invocations: u32,
}

impl Walk<'_> {
    /// The invocation channel `c` runs, if any.
    fn invocation(&self, c: u8) -> Option<u32> {
        Some(self.base + u32::from(c)).filter(|&i| i < self.invocations)
    }

    /// The IR values (with component) of `node`'s invocation that held its bits.
    fn names(&self, node: &Node) -> Vec<(Value, u8)> {
        let Place::Grf { bytes, .. } = node.place else {
            return Vec::new();
        };
        let Some(inv) = self.invocation(node.channel).filter(|_| bytes <= 4) else {
            return Vec::new();
        };
        let mask = u64::MAX >> (64 - 8 * u32::from(bytes));
        let mut out: Vec<(Value, u8)> = Vec::new();
        for s in &self.recorded.invocations[inv as usize] {
            if u64::from(s.word) & mask == node.bits && !out.contains(&(s.value, s.component)) {
                out.push((s.value, s.component));
            }
        }
        out
    }

    /// The write that `place`, read at step `step`, got its bits from (`None`: the payload).
    fn writer(&self, step: usize, place: Place) -> Option<Node> {
        self.steps[..step]
            .iter()
            .enumerate()
            .rev()
            .find_map(|(k, t)| {
                let (channel, p, bits) = t.writes.iter().rev().find(|w| w.1.overlaps(place))?;
                Some(Node {
                    step: k,
                    channel: *channel,
                    place: *p,
                    bits: *bits,
                })
            })
    }

    /// The IR values the GRF element `step` wrote held in every channel with an invocation
    /// (see [`Walk::carried`]).
    fn written(&self, step: usize) -> Vec<(Value, u8)> {
        let mut agreed: Option<Vec<(Value, u8)>> = None;
        let mut seen = Vec::new();
        for &(channel, place, bits) in &self.steps[step].writes {
            if seen.contains(&channel) || matches!(place, Place::Flag { .. }) {
                continue;
            }
            seen.push(channel);
            let names = self.names(&Node {
                step,
                channel,
                place,
                bits,
            });
            if !names.is_empty() {
                agreed = Some(match agreed {
                    None => names,
                    Some(a) => a.into_iter().filter(|n| names.contains(n)).collect(),
                });
            }
        }
        agreed.unwrap_or_default()
    }

    /// What `channel` read at `step`, each with the write it came from.
    fn inputs(&self, step: usize, channel: u8) -> Vec<(Input, Option<Node>)> {
        let reads = self.steps[step].reads.get(&channel);
        (reads.into_iter().flatten())
            .map(|&i| match i {
                Input::Place(p) => (i, self.writer(step, p)),
                _ => (i, None),
            })
            .collect()
    }

    /// The IR values input `j` of `step` carried in every channel that ran it with an
    /// invocation: one SIMD instruction computes one IR value in all its channels, so a value
    /// that one channel's element happens to share (a zero, the invocation id) is dropped by
    /// the others.
    fn carried(&self, step: usize, j: usize) -> Vec<(Value, u8)> {
        let mut agreed: Option<Vec<(Value, u8)>> = None;
        for &c in self.steps[step].reads.keys() {
            let Some(inv) = self.invocation(c) else {
                continue;
            };
            let names = match self.inputs(step, c).get(j) {
                Some((Input::Imm(v), _)) => self.recorded.named(inv, *v),
                Some((_, Some(w))) => self.names(w),
                _ => continue,
            };
            if !names.is_empty() {
                agreed = Some(match agreed {
                    None => names,
                    Some(a) => a.into_iter().filter(|n| names.contains(n)).collect(),
                });
            }
        }
        agreed.unwrap_or_default()
    }

    fn explain(&self, channel: u8, m: &Mismatch) -> Found {
        let mut found = Found {
            marks: Vec::new(),
            summary: vec![format!(
                "first difference: {} word {} of invocation {} (channel {channel}): interpreter {:#010x}, brw {:#010x}",
                match m.place {
                    MismatchPlace::Output => "output".to_string(),
                    MismatchPlace::Buffer(b) => format!("buffer {b}"),
                },
                m.index,
                m.invocation,
                m.expected,
                m.actual
            )],
        };
        let Some(store) = self.steps.iter().rposition(|t| t.stored) else {
            found.summary.push(
                "no message of the invocation's thread changed the word: brw's code never stored it".into(),
            );
            return found;
        };
        let data = self.inputs(store, channel);
        let Some(data) = (data.iter().rev())
            .filter_map(|(_, w)| *w)
            .find(|w| w.bits as u32 == m.actual)
        else {
            found.marks.push((
                self.steps[store].index,
                format!(
                    "stored the word ({:#010x}), from no payload dword holding it",
                    m.actual
                ),
            ));
            return found;
        };
        found.marks.push((
            self.steps[store].index,
            format!("stores the word: {:#010x}", m.actual),
        ));
        if self.names(&data).is_empty() {
            self.computed_wrong(data, &mut found);
        } else {
            self.moved_wrong(data, m, &mut found);
        }
        found
    }

    /// Rule 2: the stored data is unnamed; the earliest unnamed result on its way.
    fn computed_wrong(&self, data: Node, found: &mut Found) {
        // Each unnamed write that feeds the data through unnamed writes only, with the write
        // it feeds (toward the store).
        let mut feeds: BTreeMap<Node, Option<Node>> = BTreeMap::from([(data, None)]);
        let mut todo = vec![data];
        while let Some(n) = todo.pop() {
            if self.steps[n.step].message {
                continue;
            }
            for (_, w) in self.inputs(n.step, n.channel) {
                let Some(w) = w else { continue };
                let flag = matches!(w.place, Place::Flag { .. });
                if flag || feeds.contains_key(&w) || !self.names(&w).is_empty() {
                    continue;
                }
                feeds.insert(w, Some(n));
                todo.push(w);
            }
        }
        // Nodes order by step first: the earliest. Its inputs are all named, immediates, the
        // payload or flags (an unnamed one would be earlier and on the walk).
        let (&first, _) = feeds.iter().next().expect("the data itself");
        let inv = self.invocation(first.channel);
        let inv_text = inv.map_or("no invocation".into(), |i| format!("invocation {i}"));
        let mut text = format!(
            "first differing result: channel {} wrote {:#010x}, which no IR value of {inv_text} holds",
            first.channel, first.bits
        );
        let mut carried = Vec::new();
        if self.steps[first.step].message {
            text += "\n(a message's response: it came through memory — a spill slot or a buffer — which the trace does not follow)";
        } else {
            let inputs: Vec<String> = (self.inputs(first.step, first.channel).into_iter())
                .enumerate()
                .map(|(j, (i, w))| {
                    let names = self.carried(first.step, j);
                    carried.extend(names.iter().map(|(v, _)| *v));
                    input_text(i, w, &self.name_list(&names), self.steps)
                })
                .collect();
            let _ = write!(text, "\ninputs: {}", inputs.join("; "));
        }
        for line in self.consumers(&carried, inv) {
            let _ = write!(text, "\nIR: {line}");
        }
        found.marks.push((self.steps[first.step].index, text));
        let mut path = Vec::new();
        let mut at = feeds[&first];
        while let Some(n) = at {
            path.push(format!("#{}", self.steps[n.step].index));
            at = feeds[&n];
        }
        found.summary.push(format!(
            "first differing instruction: #{}, whose inputs are IR values and whose result is none{}",
            self.steps[first.step].index,
            if path.is_empty() {
                String::new()
            } else {
                format!(", carried to the store by {}", path.join(", "))
            }
        ));
    }

    /// Rule 3: the stored data is an IR value, not the expected one.
    fn moved_wrong(&self, data: Node, m: &Mismatch, found: &mut Found) {
        let mut origin = data;
        let mut copies = Vec::new();
        while !self.steps[origin.step].message {
            let same = (self.inputs(origin.step, origin.channel).into_iter())
                .filter_map(|(_, w)| w)
                .find(|w| matches!(w.place, Place::Grf { .. }) && w.bits == origin.bits);
            let Some(w) = same else { break };
            copies.push(format!("#{}", self.steps[origin.step].index));
            origin = w;
        }
        let names = self.name_list(&self.written(origin.step));
        let expected_names = self.name_list(&self.recorded.named(m.invocation, m.expected));
        found.summary.push(format!(
            "no instruction computes a value the IR never computes: the word holds {names} of the IR, the interpreter stores {:#010x} ({expected_names}) — a value from the wrong place or time",
            m.expected,
        ));
        found.marks.push((
            self.steps[origin.step].index,
            format!(
                "computes the stored value {:#010x} = {names}{}",
                origin.bits,
                if copies.is_empty() {
                    String::new()
                } else {
                    format!(", copied to the store by {}", copies.join(", "))
                }
            ),
        ));
        let channel = data.channel;
        let expected = (self.steps.iter().enumerate()).find_map(|(k, t)| {
            (t.writes.iter())
                .find(|w| w.0 == channel && w.2 == u64::from(m.expected))
                .map(|_| k)
        });
        if let Some(k) = expected {
            found.marks.push((
                self.steps[k].index,
                format!(
                    "first write of the expected value {:#010x} in this channel",
                    m.expected
                ),
            ));
        }
    }

    /// The IR instructions taking the most of `carried` as operands, with the interpreter's
    /// value of their result in `invocation`.
    fn consumers(&self, carried: &[Value], invocation: Option<u32>) -> Vec<String> {
        let f = &self.program.func;
        let scored: Vec<(usize, compiler::ir::Inst)> = (f.insts_in_order().into_iter())
            .map(|(_, inst)| {
                let mut args = Vec::new();
                f.insts[inst].kind.visit_args(|v| args.push(v));
                args.sort();
                args.dedup();
                (args.iter().filter(|v| carried.contains(v)).count(), inst)
            })
            .collect();
        let best = scored.iter().map(|s| s.0).max().unwrap_or(0);
        if best == 0 {
            return Vec::new();
        }
        (scored.into_iter())
            .filter(|s| s.0 == best)
            .take(3)
            .map(|(_, inst)| {
                let mut line = print_inst(f, inst);
                if let (Some(v), Some(i)) = (f.result(inst), invocation) {
                    let words: Vec<String> = (self.recorded.words(i, v, 0).iter())
                        .map(|w| format!("{w:#010x}"))
                        .collect();
                    let _ = match words.as_slice() {
                        [] => write!(line, "   (not computed by invocation {i})"),
                        _ => write!(line, "   (interpreter: {})", words.join(", ")),
                    };
                }
                line
            })
            .collect()
    }

    /// `ssa_4, ssa_9.y` or `no IR value`.
    fn name_list(&self, names: &[(Value, u8)]) -> String {
        if names.is_empty() {
            return "no IR value".into();
        }
        let f = &self.program.func;
        let text: Vec<String> = (names.iter())
            .map(|&(v, c)| {
                if f.ty(v).comps() > 1 {
                    format!("{v}.{}", ["x", "y", "z", "w"][c as usize % 4])
                } else {
                    v.to_string()
                }
            })
            .collect();
        text.join(", ")
    }
}

/// An input, described, with `names`, the IR values it carried.
fn input_text(input: Input, writer: Option<Node>, names: &str, steps: &[Traced]) -> String {
    match (input, writer) {
        (Input::Imm(v), _) => format!("the immediate {v:#x} ({names})"),
        (Input::Other, _) => "a register the trace does not follow".into(),
        (Input::Place(p @ Place::Flag { .. }), _) => format!("the flag bit {}", place_text(p)),
        (Input::Place(p), None) => format!("{} from the thread's payload", place_text(p)),
        (Input::Place(p), Some(w)) => format!(
            "{} = {:#010x} ({names}, written by #{})",
            place_text(p),
            w.bits,
            steps[w.step].index
        ),
    }
}

/// `g14.5` (a dword), `g6.4:2` (bytes) or `f0.0[3]`.
fn place_text(p: Place) -> String {
    match p {
        Place::Grf { byte, bytes: 4 } if byte % 4 == 0 => {
            format!("g{}.{}", byte / 32, byte % 32 / 4)
        }
        Place::Grf { byte, bytes } => format!("g{}+{}:{bytes}B", byte / 32, byte % 32),
        Place::Flag { bit } => format!("f{}.{}[{}]", bit / 32, bit % 32 / 16, bit % 16),
    }
}

/// brw's listing with `found`'s head and marks.
pub fn render(listing: &sim::intel::Listing, found: &Found) -> String {
    let mut out = String::new();
    for line in &found.summary {
        let _ = writeln!(out, "// {line}");
    }
    for (k, inst) in listing.insts.iter().enumerate() {
        let text = inst.text.replace('\n', "\n      ");
        let _ = writeln!(out, "{k:>4}  {text}");
        for (_, mark) in found.marks.iter().filter(|(at, _)| *at == k) {
            let mut lines = mark.lines();
            let _ = writeln!(out, "      ^^^ {}", lines.next().unwrap_or(""));
            for l in lines {
                let _ = writeln!(out, "          {l}");
            }
        }
    }
    out
}

/// The write-up of `program` (what anv compiles for `case`): the platform, brw's switches and
/// statistics, and brw's listing of the width that ran, with — when its result on our executor
/// differs from the interpreter's — the first differing instruction marked and named in the
/// IR (see the module doc).
pub fn listing(case: &Case, program: &Program, opts: &OracleOptions) -> String {
    let c = AnvKnobs::of(case);
    match compile(program, Install::Target, c.platform, c.debug, c.backend()) {
        Ok(capture) => write_up(&capture, &case.program, program, opts),
        Err(e) => format!(
            "// anv on {}, {}: no code: {e:?}\n",
            c.platform,
            super::versions::target_variables_text(c.debug)
        ),
    }
}

/// [`listing`] of `capture`, anv's code for `program` (the middle end's output for
/// `original`, whose interpreter results are the expectation).
pub fn write_up(
    capture: &Capture,
    original: &Program,
    program: &Program,
    opts: &OracleOptions,
) -> String {
    let mut out = format!(
        "// anv (Mesa {}) on {}, {}; device: {}\n",
        capture.mesa,
        capture.platform,
        capture.variables_text(),
        capture.device
    );
    let plain = |why: String| Found {
        marks: Vec::new(),
        summary: vec![why],
    };
    for k in &capture.kernels {
        let stats: Vec<String> = (k.statistics.iter())
            .map(|(name, value)| format!("{name} {value}"))
            .collect();
        let _ = writeln!(
            out,
            "// == {} (SIMD{}): {}",
            k.name,
            k.simd,
            stats.join(", ")
        );
    }
    let found = if !capture.platform.executed() {
        plain(format!(
            "brw's code for {} is not run on our executor",
            capture.platform
        ))
    } else {
        let run = RunOptions {
            fuel: opts.fuel,
            ..RunOptions::default()
        };
        match interp::run_with_stats(original, &run) {
            Err(e) => plain(format!("the interpreter: {e}")),
            Ok((expected, work)) => {
                let budget = budget(work.executed_insts);
                let plan = spirv_emit::comparison(program, &capture.emit_options);
                match execute(capture, program, budget) {
                    Err(why) => plain(format!("not run on our executor: {why}")),
                    Ok((Outcome::Stopped(stop), _)) => plain(format!("on our executor: {stop}")),
                    Ok((Outcome::Results(actual), _)) => {
                        match plan.first_difference(&expected, &actual, &program.dispatch) {
                            None => plain(
                                "brw's code agrees with the interpreter on our executor: no instruction differs"
                                    .into(),
                            ),
                            Some((d, _)) => {
                                let m = Mismatch::from(d);
                                trace(capture, program, budget, opts.fuel, &m)
                                    .unwrap_or_else(|why| plain(format!("{m}; not traced: {why}")))
                            }
                        }
                    }
                }
            }
        }
    };
    // The width that ran, or every width when more than one was kept (none ran).
    for k in &capture.kernels {
        if capture.kernels.len() > 1 {
            let _ = writeln!(out, "// == {}", k.name);
        }
        out += &render(&k.listing, &found);
    }
    out
}

#[cfg(test)]
mod tests {
    //! brw's real SIMD16 code for `fuzz/tests/anv/skl_tracer.ir` (captured from anv, checked
    //! in), run as anv dispatches it, with one instruction's bytes changed: the tracer must
    //! name exactly that instruction and the IR values around it.

    use super::super::{Kernel, Platform, Switches};
    use super::*;
    use crate::targets::driver;
    use sim::intel::{check_as, parse, Gen, Listing};
    use spirv_emit::EmitOptions;

    fn fixture(name: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/anv")
            .join(name);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    fn program() -> Program {
        compiler::ir::text::parse_program(&fixture("skl_tracer.ir"), "skl_tracer.ir").unwrap()
    }

    /// anv's capture of `listing` for `program`: its one SIMD16 kernel with the output buffer
    /// at binding-table index 1 (the listing's `Surface = 1`).
    fn capture(program: &Program, listing: Listing) -> Capture {
        let module = driver::module::emit(program, &EmitOptions::default()).unwrap();
        let outputs = (module.interface.bindings.iter())
            .find(|b| {
                matches!(
                    b.resource,
                    Resource::Storage {
                        role: StorageRole::Outputs,
                        ..
                    }
                )
            })
            .unwrap()
            .binding;
        let agreement = check_as(Gen::Gfx9, &listing);
        assert_eq!(agreement.agreed(), agreement.instructions, "{agreement:?}");
        Capture {
            platform: Platform::Skl,
            switches: Switches::default(),
            backend: Default::default(),
            module,
            emit_options: EmitOptions::default(),
            kernels: vec![Kernel {
                name: "SIMD16 compute shader".into(),
                simd: 16,
                listing,
                validator_errors: Vec::new(),
                statistics: Vec::new(),
                agreement,
                binding_table: Ok(BTreeMap::from([(1, outputs)])),
                reads: Default::default(),
            }],
            pipeline: std::time::Duration::ZERO,
            device: "checked-in skl listing".into(),
            mesa: "25.0.7".into(),
        }
    }

    /// brw's listing with instruction `index`'s byte `byte` set to `value` and its text's
    /// `from` replaced by `to` (our decoder must print the new bytes as the new text).
    fn planted(index: usize, byte: usize, value: u8, from: &str, to: &str) -> Listing {
        let mut listing = parse(&fixture("skl_tracer.lst")).unwrap();
        let inst = &mut listing.insts[index];
        inst.bytes[byte] = value;
        assert!(inst.text.contains(from), "{}", inst.text);
        inst.text = inst.text.replacen(from, to, 1);
        listing
    }

    fn write_up_of(listing: Listing) -> String {
        let p = program();
        write_up(&capture(&p, listing), &p, &p, &OracleOptions::default())
    }

    /// The marks under instruction lines (`^^^ …` and their continuation lines).
    fn marks(text: &str) -> Vec<(String, String)> {
        let lines: Vec<&str> = text.lines().collect();
        let mut out = Vec::new();
        for (k, l) in lines.iter().enumerate() {
            if let Some(mark) = l.trim_start().strip_prefix("^^^ ") {
                let inst = (lines[..k].iter().rev())
                    .find(|l| !l.starts_with("      "))
                    .unwrap()
                    .to_string();
                let more: Vec<&str> = (lines[k + 1..].iter())
                    .take_while(|l| l.starts_with("          "))
                    .map(|l| l.trim())
                    .collect();
                out.push((inst, format!("{mark}\n{}", more.join("\n"))));
            }
        }
        out
    }

    #[test]
    fn brws_unchanged_code_agrees_and_nothing_is_marked() {
        let text = write_up_of(parse(&fixture("skl_tracer.lst")).unwrap());
        assert!(text.contains("no instruction differs"), "{text}");
        assert!(marks(&text).is_empty(), "{text}");
        assert!(text.contains("  17  add(16)         g16<1>D"), "{text}");
    }

    #[test]
    fn a_changed_add_immediate_is_the_first_differing_instruction_and_named_iadd() {
        // #17 `add g16, g14, 74565D` computes ssa_4 = ssa_2 + 0x12345; planted: 74566.
        let text = write_up_of(planted(17, 12, 0x46, "74565D", "74566D"));
        assert!(
            text.contains("first differing instruction: #17, whose inputs"),
            "{text}"
        );
        let marks = marks(&text);
        let (inst, mark) = marks
            .iter()
            .find(|(_, m)| m.contains("first differing"))
            .unwrap();
        assert!(inst.starts_with("  17  add(16)"), "{text}");
        // Invocation 0: ssa_2 = 0, so brw writes 0x12346 where the IR has 0x12345.
        assert!(
            mark.contains("channel 0 wrote 0x00012346, which no IR value of invocation 0 holds"),
            "{mark}"
        );
        assert!(
            mark.contains("inputs: g14.0 = 0x00000000 (ssa_2, written by #14); the immediate 0x12346 (no IR value)"),
            "{mark}"
        );
        assert!(
            mark.contains("IR: vec1 32 ssa_4 = iadd ssa_2, ssa_3   (interpreter: 0x00012345)"),
            "{mark}"
        );
        // Carried on by the xor to the store, which is marked as such.
        assert!(text.contains("carried to the store by #18"), "{text}");
        assert!(marks
            .iter()
            .any(|(i, m)| i.starts_with("  19  sends(16)") && m.starts_with("stores the word")));
        assert_eq!(marks.len(), 2, "{text}");
    }

    #[test]
    fn an_add_reading_the_wrong_register_is_marked_with_the_values_it_carried() {
        // #15 `add g18, g12, 117440512D` computes ssa_6 = id + 0x7000000; planted: its first
        // source is g14 (ssa_2, the product) instead of g12 (the id).
        let text = write_up_of(planted(15, 8, 0xc0, "g12<8,8,1>D", "g14<8,8,1>D"));
        let marks = marks(&text);
        let (inst, mark) = marks
            .iter()
            .find(|(_, m)| m.contains("first differing"))
            .unwrap();
        assert!(
            inst.starts_with("  15  add(16)         g18<1>D         g14"),
            "{text}"
        );
        assert!(
            mark.contains("inputs: g14.1 = 0x9e3779b9 (ssa_2, written by #14); the immediate 0x7000000 (ssa_5)"),
            "{mark}"
        );
        // Invocation 0 agrees (its product is its id, 0): the first difference is channel 1.
        // No IR instruction takes both: each that takes one is listed, the intended one too.
        assert!(
            mark.contains("IR: vec1 32 ssa_4 = iadd ssa_2, ssa_3"),
            "{mark}"
        );
        assert!(
            mark.contains("IR: vec1 32 ssa_6 = iadd ssa_0, ssa_5   (interpreter: 0x07000001)"),
            "{mark}"
        );
        assert!(text.contains("carried to the store by #18"), "{text}");
    }

    #[test]
    fn a_store_of_the_wrong_register_is_a_value_from_the_wrong_place() {
        // The store's data is g16 (ssa_4) instead of g20 (the xor, ssa_7): every instruction
        // computes an IR value, so nothing is "first differing"; the value's origin (#17) and
        // where the expected value was computed (#18) are marked instead.
        let text = write_up_of(planted(19, 5, 0x00, "g20UD", "g16UD"));
        assert!(!text.contains("first differing"), "{text}");
        assert!(
            text.contains(
                "the word holds ssa_4 of the IR, the interpreter stores 0x07012345 (ssa_7)"
            ),
            "{text}"
        );
        let marks = marks(&text);
        assert!(
            marks.iter().any(|(i, m)| i.starts_with("  17  add(16)")
                && m.starts_with("computes the stored value 0x00012345 = ssa_4")),
            "{text}"
        );
        assert!(
            marks.iter().any(|(i, m)| i.starts_with("  18  xor(16)")
                && m.starts_with("first write of the expected value 0x07012345")),
            "{text}"
        );
    }
}
