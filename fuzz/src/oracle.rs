//! The oracle: one input in, one verdict out.
//!
//! The input's bytes decide everything — the case configuration (which pipelines, register
//! budgets, pass toggles), the generator's configuration (swarm testing) and the program — so
//! a finding reproduces from its input alone. The reference interpreter runs the original
//! program; every registered [`Pipeline`] compiles and runs it its own way; any word that
//! differs, any hazard, checker error, verifier failure, compiler error, panic or timeout is a
//! [`Finding`].

use crate::finding::{Finding, FindingKind, Rejection, Verdict};
use crate::gen;
use crate::panics;
use crate::pipelines::anv::{Platform as AnvPlatform, Switches as AnvSwitches};
use crate::pipelines::middle;
use crate::pipelines::spirv_opt::SpirvOptPasses;
use crate::rng::SplitMix64;
use arbitrary::{Arbitrary, Unstructured};
use compiler::executed::Executed;
use compiler::heuristics::{A6xxHeuristics, ColourOrder, GenHeuristics, Pick, SpillChoice, Victim};
use compiler::interp::{InterpError, Interpreter, RunOptions};
use std::cell::RefCell;

thread_local! {
    /// One interpreter per fuzz thread, its scratch space reused across inputs.
    pub static INTERPRETER: RefCell<Interpreter> = RefCell::new(Interpreter::new());
}
use compiler::ir::{self, Program};
use compiler::planted::Plants;
use sim::dispatch::Results;

/// Per-input choices of how to compile, decoded from the input's first bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseConfig {
    /// Optional middle-end passes switched off (bit `i` = pass `i` of the pipeline table).
    pub disabled_passes: u32,
    /// Gen: generation 9 (sampler `ld` order u, v, lod) rather than 7 (u, lod, v).
    pub gen9: bool,
    /// Gen: GRFs for allocation at SIMD8 (125 is the whole file; doubled for SIMD16 when
    /// starved).
    pub gen_grfs: u32,
    /// Gen: trim trailing zero sampler parameters (`opt_zero_samples`).
    pub gen_zero_samples: bool,
    /// a6xx: waves of 128 fibers instead of 64.
    pub a6xx_wave128: bool,
    /// a6xx: predicate registers (4, or 1 as before a6xx).
    pub a6xx_predicates: u8,
    /// a6xx: scalar GPR budget (192 is the whole file; small budgets force spills).
    pub a6xx_registers: u32,
    /// a6xx: fold predicates into branches (`opt_predicates`).
    pub a6xx_opt_predicates: bool,
    /// Gen RA: spill cost factor per loop level.
    pub gen_spill_loop_weight: u32,
    /// Gen RA: spill cost per GRF read.
    pub gen_spill_use_weight: u32,
    /// Gen RA: spill cost per GRF written.
    pub gen_spill_def_weight: u32,
    /// Gen RA: which register to spill (`ratio`, `cheapest`, `longest`).
    pub gen_spill_choice: SpillChoice,
    /// Gen RA: which free base a node gets (`lowest`, `highest`, `rotating`).
    pub gen_pick: Pick,
    /// Gen RA: simplify's sweep order (`ascending`, `descending`).
    pub gen_colour_order: ColourOrder,
    /// a6xx predicate RA: which predicate register a predicate gets.
    pub a6xx_pred_pick: Pick,
    /// a6xx GPR RA: which free register an interval gets.
    pub a6xx_gpr_pick: Pick,
    /// a6xx GPR RA: which interval to spill (`furthest`, `newest`).
    pub a6xx_spill_victim: Victim,
    /// vulkan: the driver gets the generator's program rather than the middle end's output.
    /// Drawn (one case in four) from the input's last bytes, after the program and the
    /// spirv-opt list, so inputs saved before this knob existed decode to the same program.
    pub vulkan_unoptimised: bool,
    /// vulkan: `spirv-opt` passes run between the emitter and the driver (`ccp+merge-blocks`;
    /// empty: none). Drawn from the input's last bytes, after the program, so inputs saved
    /// before this knob existed still decode to the same program and backend knobs.
    pub vulkan_spirv_opt: SpirvOptPasses,
    /// anv: the simulated Intel GPU (`INTEL_STUB_GPU_PLATFORM`); drawn from a hash of the
    /// input, so inputs saved before this knob existed decode to the same program.
    pub anv_platform: AnvPlatform,
    /// anv: brw's `INTEL_DEBUG` switches (`spill_fs+nocompact+no16`, or `none`); drawn like
    /// `anv_platform`.
    pub anv_debug: AnvSwitches,
}

impl Default for CaseConfig {
    /// The configuration real drivers use: every pass on, whole register files.
    fn default() -> Self {
        let (g, a) = (GenHeuristics::default(), A6xxHeuristics::default());
        CaseConfig {
            disabled_passes: 0,
            gen9: true,
            gen_grfs: 125,
            gen_zero_samples: true,
            a6xx_wave128: false,
            a6xx_predicates: 4,
            a6xx_registers: 192,
            a6xx_opt_predicates: true,
            gen_spill_loop_weight: g.loop_weight,
            gen_spill_use_weight: g.use_weight,
            gen_spill_def_weight: g.def_weight,
            gen_spill_choice: g.spill,
            gen_pick: g.pick,
            gen_colour_order: g.order,
            a6xx_pred_pick: a.pred_pick,
            a6xx_gpr_pick: a.gpr_pick,
            a6xx_spill_victim: a.victim,
            vulkan_unoptimised: false,
            vulkan_spirv_opt: SpirvOptPasses::default(),
            anv_platform: AnvPlatform::default(),
            anv_debug: AnvSwitches::default(),
        }
    }
}

impl CaseConfig {
    /// The Gen allocator's choices.
    pub fn gen_heuristics(&self) -> GenHeuristics {
        GenHeuristics {
            loop_weight: self.gen_spill_loop_weight,
            use_weight: self.gen_spill_use_weight,
            def_weight: self.gen_spill_def_weight,
            spill: self.gen_spill_choice,
            pick: self.gen_pick,
            order: self.gen_colour_order,
        }
    }

    /// The a6xx allocators' choices.
    pub fn a6xx_heuristics(&self) -> A6xxHeuristics {
        A6xxHeuristics {
            pred_pick: self.a6xx_pred_pick,
            gpr_pick: self.a6xx_gpr_pick,
            victim: self.a6xx_spill_victim,
        }
    }
}

/// The backend knobs of [`CaseConfig`] by name, as `--case KEY=VALUE` sets them (the middle
/// end's pass toggles go by `--disable-pass`).
macro_rules! case_knobs {
    ($($field:ident: $ty:ty),* $(,)?) => {
        impl CaseConfig {
            /// Every knob name `--case` takes.
            pub const KNOBS: &'static [&'static str] = &[$(stringify!($field)),*];

            /// Sets knob `key` from text; an error names the key or the bad value.
            pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
                match key {
                    $(stringify!($field) => {
                        self.$field = value.parse::<$ty>().map_err(|e| e.to_string())?;
                    })*
                    _ => return Err(format!(
                        "unknown --case key {key:?}; known: {}", Self::KNOBS.join(", ")
                    )),
                }
                Ok(())
            }

            /// Every knob with its value as text, in declaration order (the `; case:` header of
            /// a saved program).
            pub fn knobs(&self) -> Vec<(&'static str, String)> {
                vec![$((stringify!($field), self.$field.to_string())),*]
            }

            /// The knobs that differ from the default, as `KEY=VALUE`.
            pub fn non_default(&self) -> Vec<String> {
                let d = CaseConfig::default();
                let mut out = Vec::new();
                $(if self.$field != d.$field {
                    out.push(format!("{}={}", stringify!($field), self.$field));
                })*
                out
            }

            /// The same configuration with knob `index` back at its default, if it differs
            /// (the reducer's way of shrinking a configuration toward the real driver's).
            pub fn with_default_knob(&self, index: usize) -> Option<CaseConfig> {
                let d = CaseConfig::default();
                let mut c = self.clone();
                let mut i = 0;
                $(
                    if i == index {
                        if c.$field == d.$field { return None; }
                        c.$field = d.$field;
                        return Some(c);
                    }
                    i += 1;
                )*
                let _ = i;
                None
            }
        }
    };
}

case_knobs! {
    gen9: bool,
    gen_grfs: u32,
    gen_zero_samples: bool,
    a6xx_wave128: bool,
    a6xx_predicates: u8,
    a6xx_registers: u32,
    a6xx_opt_predicates: bool,
    gen_spill_loop_weight: u32,
    gen_spill_use_weight: u32,
    gen_spill_def_weight: u32,
    gen_spill_choice: SpillChoice,
    gen_pick: Pick,
    a6xx_pred_pick: Pick,
    a6xx_gpr_pick: Pick,
    a6xx_spill_victim: Victim,
    gen_colour_order: ColourOrder,
    vulkan_unoptimised: bool,
    vulkan_spirv_opt: SpirvOptPasses,
    anv_platform: AnvPlatform,
    anv_debug: AnvSwitches,
}

/// Half the time `default`, else one of `others` (so every value is drawn in a sizeable share
/// of cases while the tuned choice stays the most common).
fn vary<T: Copy>(r: &mut SplitMix64, default: T, others: &[T]) -> T {
    if r.next_u64() & 1 == 1 {
        others[r.range(0, others.len() as u64 - 1) as usize]
    } else {
        default
    }
}

/// The values of a choice other than its default (the first).
fn others<T: Copy>(all: &[T]) -> &[T] {
    &all[1..]
}

/// The values the case randomiser draws for the numeric heuristic knobs besides their
/// defaults.
const LOOP_WEIGHTS: [u32; 3] = [1, 2, 100];
const USE_DEF_WEIGHTS: [u32; 2] = [2, 4];

impl CaseConfig {
    /// Draws the allocation choices from a hash of `rest` (the input bytes after the knobs):
    /// any choice is correct, and a bug only one of them exposes stays hidden while the choice
    /// never varies. Hashing rather than consuming bytes keeps every input decoding to the
    /// same program and other knobs as before these knobs existed.
    fn vary_heuristics(&mut self, rest: &[u8]) {
        let hash = rest.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
        });
        let r = &mut SplitMix64::for_input(hash, 0x6865_7572);
        let d = CaseConfig::default();
        self.gen_spill_loop_weight = vary(r, d.gen_spill_loop_weight, &LOOP_WEIGHTS);
        self.gen_spill_use_weight = vary(r, d.gen_spill_use_weight, &USE_DEF_WEIGHTS);
        self.gen_spill_def_weight = vary(r, d.gen_spill_def_weight, &USE_DEF_WEIGHTS);
        self.gen_spill_choice = vary(r, d.gen_spill_choice, others(SpillChoice::ALL));
        self.gen_pick = vary(r, d.gen_pick, others(Pick::ALL));
        self.a6xx_pred_pick = vary(r, d.a6xx_pred_pick, others(Pick::ALL));
        self.a6xx_gpr_pick = vary(r, d.a6xx_gpr_pick, others(Pick::ALL));
        self.a6xx_spill_victim = vary(r, d.a6xx_spill_victim, others(Victim::ALL));
        // Drawn last, so the earlier knobs of an input stay what they were before it existed.
        self.gen_colour_order = vary(r, d.gen_colour_order, others(ColourOrder::ALL));
    }

    /// Draws the anv knobs (platform and brw switches) from a hash of `rest`, apart from the
    /// other knobs' draws so theirs stay what they were.
    fn vary_anv(&mut self, rest: &[u8]) {
        let hash = rest.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
        });
        let r = &mut SplitMix64::for_input(hash, 0x0061_6e76);
        self.anv_platform = crate::pipelines::anv::draw_platform(r.next_u64());
        self.anv_debug = AnvSwitches::draw(r.next_u64());
    }

    /// Every value the case randomiser draws for heuristic knob `knob`, the default first
    /// (empty for other knobs).
    pub fn drawn_values(knob: &str) -> Vec<String> {
        fn text<T: ToString>(xs: &[T]) -> Vec<String> {
            xs.iter().map(T::to_string).collect()
        }
        let d = CaseConfig::default();
        let with = |default: u32, others: &[u32]| {
            let mut v = vec![default];
            v.extend_from_slice(others);
            text(&v)
        };
        match knob {
            "gen_spill_loop_weight" => with(d.gen_spill_loop_weight, &LOOP_WEIGHTS),
            "gen_spill_use_weight" => with(d.gen_spill_use_weight, &USE_DEF_WEIGHTS),
            "gen_spill_def_weight" => with(d.gen_spill_def_weight, &USE_DEF_WEIGHTS),
            "gen_spill_choice" => text(SpillChoice::ALL),
            "gen_pick" | "a6xx_pred_pick" | "a6xx_gpr_pick" => text(Pick::ALL),
            "gen_colour_order" => text(ColourOrder::ALL),
            "a6xx_spill_victim" => text(Victim::ALL),
            _ => Vec::new(),
        }
    }
}

impl<'a> Arbitrary<'a> for CaseConfig {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let d = CaseConfig::default();
        // One case in four runs with some passes off: the passes after a disabled one see
        // shapes the full pipeline would have cleaned up. The Gen budget is starved (16–32
        // GRFs) two cases in three, a6xx's GPRs half the time, and a6xx gets one predicate
        // register two cases in three (and folds predicates into branches, without which
        // nothing is reloaded, five in six), so that spill code and predicate reloads *run* in
        // a large share of cases, not just compile (`crate::reach` measures the shares).
        let mut c = CaseConfig {
            disabled_passes: if u.ratio(1, 4)? { u.arbitrary()? } else { 0 },
            gen9: !u.ratio(1, 3)?,
            // 16 GRFs at least: every program compiles down to the register floor (10,
            // docs/budgets.md) when select takes the lowest free base, but the randomised
            // `gen_pick` heuristics fragment multi-GRF placement and need more room.
            gen_grfs: if u.ratio(2, 3)? {
                u.int_in_range(16..=32)?
            } else {
                d.gen_grfs
            },
            gen_zero_samples: !u.ratio(1, 4)?,
            a6xx_wave128: u.ratio(1, 4)?,
            a6xx_predicates: if u.ratio(2, 3)? { 1 } else { 4 },
            a6xx_registers: if u.ratio(1, 2)? {
                u.int_in_range(8..=48)?
            } else {
                d.a6xx_registers
            },
            a6xx_opt_predicates: !u.ratio(1, 6)?,
            vulkan_unoptimised: d.vulkan_unoptimised,
            ..d
        };
        if let Some(rest) = u.peek_bytes(u.len()) {
            c.vary_heuristics(rest);
            c.vary_anv(rest);
        }
        Ok(c)
    }
}

/// What a judgement learned besides the verdict (for the status line and the pass table).
#[derive(Clone, Debug, Default)]
pub struct Coverage {
    /// Some loop back-edge was taken twice or more in some invocation.
    pub loop_back_edge_twice: bool,
    /// Some `if` went both ways within one aligned group of 8 invocations.
    pub divergent_simd8: bool,
    /// Some backend spilled.
    pub spills: bool,
    /// Some backend trimmed a SEND payload.
    pub trimmed_sends: bool,
    /// Some compiled program outran the simulator's cycle budget but finished inside the
    /// instruction budget its own work allows (correct but pathologically slow; not a bug).
    pub slow: bool,
    /// What the allocators' code executed, per pipeline that compiled and ran the case
    /// (spill stores, fills, predicate reloads: `compiler::executed`).
    pub executed: Vec<(&'static str, Executed)>,
    /// The case's heuristic knob settings, `knob=value` (`crate::reach`).
    pub heuristic_settings: Vec<String>,
    /// Optional passes that changed the program.
    pub passes_changed: Vec<&'static str>,
    /// Passes through loop bodies in the interpreter's run, all invocations together.
    pub loop_passes: u64,
    /// IR instructions the interpreter executed, all invocations together (0: not run yet);
    /// the pipelines' timeouts are judged against it (`pipelines::work`).
    pub interpreted_insts: u64,
    /// Pipelines that could not judge this case, with why (`vulkan: …`).
    pub skipped: Vec<String>,
}

/// The oracle's answer for one input.
#[derive(Clone, Debug)]
pub struct Judgement {
    /// Pass, rejected or finding.
    pub verdict: Verdict,
    /// What the input exercised.
    pub coverage: Coverage,
    /// The case in the text format (configuration header and program), kept only for
    /// findings.
    pub program_text: Option<String>,
}

/// How the oracle runs.
#[derive(Clone, Debug)]
pub struct OracleOptions {
    /// Interpreter fuel per invocation; running out rejects the input.
    pub fuel: u64,
    /// Only these pipelines (by name, checked by [`crate::pipelines::select`]); empty means
    /// the default set.
    pub targets: Vec<String>,
    /// Planted bugs switched on in every pipeline.
    pub plants: Plants,
    /// Run only the first N optional middle-end pass runs (bisection).
    pub pass_limit: Option<usize>,
    /// Device, ICD and time limit of the `vulkan` target.
    pub vulkan: crate::pipelines::vulkan::VulkanOptions,
}

impl Default for OracleOptions {
    fn default() -> Self {
        OracleOptions {
            fuel: 200_000,
            targets: Vec::new(),
            plants: Plants::NONE,
            pass_limit: None,
            vulkan: Default::default(),
        }
    }
}

impl OracleOptions {
    /// What every target these options run is run on (`Pipeline::environment`), for the
    /// records of findings.
    pub fn environment(&self) -> std::collections::BTreeMap<String, String> {
        crate::pipelines::all()
            .iter()
            .filter(|p| self.runs(**p))
            .flat_map(|p| p.environment(self))
            .collect()
    }

    /// Whether `pipeline` is judged under these options.
    pub fn runs(&self, pipeline: &dyn crate::pipelines::Pipeline) -> bool {
        if self.targets.is_empty() {
            pipeline.in_default_set()
        } else {
            self.targets.iter().any(|t| t == pipeline.name())
        }
    }
}

/// One decoded input.
#[derive(Clone, Debug)]
pub struct Case {
    /// How to compile.
    pub config: CaseConfig,
    /// What to compile.
    pub program: Program,
}

/// Decodes an input into a case. Never fails for lack of bytes (missing bytes read as
/// defaults); `None` only if the generator itself gave up.
pub fn decode(bytes: &[u8]) -> Option<Case> {
    let mut u = Unstructured::new(bytes);
    let config = CaseConfig::arbitrary(&mut u).unwrap_or_default();
    // Half the cases use the tuned defaults, half a swarm configuration drawn from the input.
    let gen_config = match u.ratio(1, 2) {
        Ok(true) => gen::Config::arbitrary(&mut u).unwrap_or_default(),
        _ => gen::Config::default(),
    };
    let program = gen::generate(&mut u, &gen_config).ok()?;
    let mut config = config;
    // One case in four with bytes left puts spirv-opt before the driver (only the `vulkan`
    // target reads it); out of bytes, `ratio` would always say yes.
    if u.len() >= 4 && u.ratio(1, 4).unwrap_or(false) {
        config.vulkan_spirv_opt = SpirvOptPasses::draw(&mut u).unwrap_or_default();
    }
    // One case in four gives the driver the generator's program, unoptimised by us.
    if u.len() >= 4 && u.ratio(1, 4).unwrap_or(false) {
        config.vulkan_unoptimised = true;
    }
    Some(Case { config, program })
}

/// Judges raw input bytes.
pub fn judge_bytes(bytes: &[u8], opts: &OracleOptions) -> Judgement {
    match panics::catch(|| decode(bytes)) {
        Ok(Some(case)) => judge(&case, opts),
        Ok(None) => Judgement {
            verdict: Verdict::Rejected(Rejection::NoProgram),
            coverage: Coverage::default(),
            program_text: None,
        },
        Err(p) => Judgement {
            verdict: panicked("generator", p),
            coverage: Coverage::default(),
            program_text: None,
        },
    }
}

/// Judges a decoded case.
pub fn judge(case: &Case, opts: &OracleOptions) -> Judgement {
    let mut coverage = Coverage::default();
    let verdict = match panics::catch(|| judge_inner(case, opts, &mut coverage)) {
        Ok(v) => v,
        Err(p) => panicked("oracle", p),
    };
    // With its configuration header, so the saved `program.ir` reproduces the finding alone.
    let program_text =
        matches!(verdict, Verdict::Finding(_)).then(|| crate::case_file::print_case(case));
    Judgement {
        verdict,
        coverage,
        program_text,
    }
}

fn judge_inner(case: &Case, opts: &OracleOptions, coverage: &mut Coverage) -> Verdict {
    coverage.heuristic_settings = crate::reach::settings(&case.config);
    if let Err(e) = ir::verify::verify(&case.program) {
        return finding(Finding::new(
            FindingKind::GenInvalid,
            "generator",
            e.to_string(),
        ));
    }
    let run = RunOptions {
        fuel: opts.fuel,
        ..RunOptions::default()
    };
    let expected = match INTERPRETER.with_borrow_mut(|i| i.run_with_stats(&case.program, &run)) {
        Ok((results, stats)) => {
            coverage.loop_back_edge_twice = stats.loops_taken_twice > 0;
            coverage.divergent_simd8 = stats.divergent_ifs_simd8 > 0;
            coverage.loop_passes = stats.loop_passes;
            coverage.interpreted_insts = stats.executed_insts;
            results
        }
        Err(InterpError::OutOfFuel { .. }) => return Verdict::Rejected(Rejection::OutOfFuel),
        Err(e) => {
            return finding(Finding::new(
                FindingKind::GenInvalid,
                "interpreter",
                e.to_string(),
            ))
        }
    };
    // The middle end runs once; every pipeline starts from its output.
    let optimised = match panics::catch(|| middle::optimise_verified(case, opts, coverage)) {
        Ok(Ok(p)) => p,
        Ok(Err(f)) => return Verdict::Finding(f),
        Err(p) => return panicked(middle::NAME, p),
    };
    for pipeline in crate::pipelines::all() {
        if !opts.runs(*pipeline) {
            continue;
        }
        if let Some(why) = pipeline.skip(case, opts, coverage) {
            coverage.skipped.push(format!("{}: {why}", pipeline.name()));
            continue;
        }
        let outcome = match panics::catch(|| pipeline.run(case, &optimised, opts, coverage)) {
            Ok(o) => o,
            Err(p) => return panicked(pipeline.name(), p),
        };
        match outcome {
            Ok(actual) => {
                let differs =
                    panics::catch(|| pipeline.compare(case, &optimised, opts, &expected, &actual));
                match differs {
                    Ok(Some(f)) => return finding(f),
                    Ok(None) => {}
                    Err(p) => return panicked(pipeline.name(), p),
                }
            }
            Err(f) => return Verdict::Finding(f),
        }
    }
    Verdict::Pass
}

/// A mismatch finding if `actual` differs from `expected` anywhere.
pub fn compare(target: &str, case: &Case, expected: &Results, actual: &Results) -> Option<Finding> {
    let d = expected.first_difference(actual, &case.program.dispatch)?;
    let mut f = Finding::new(FindingKind::Mismatch, target, String::new());
    let m = crate::finding::Mismatch::from(d);
    f.detail = m.to_string();
    f.difference = Some(m);
    Some(f)
}

fn finding(f: Finding) -> Verdict {
    Verdict::Finding(Box::new(f))
}

/// A panic in `target`, bucketed by where it panicked.
fn panicked(target: &str, p: panics::Caught) -> Verdict {
    Verdict::Finding(crate::pipelines::classified(
        target,
        FindingKind::Panic,
        p.message,
        p.location,
    ))
}
