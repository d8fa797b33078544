//! What a judgement learned besides its verdict: the oracle and the targets note it as they go,
//! for the status line, the pass table and the reach shares.

use compiler::executed::Executed;

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
    /// The features the case's program uses (`crate::reach::features`); `None` when there was
    /// no program to look at.
    pub features: Option<Vec<&'static str>>,
    /// The case's heuristic knob settings, `knob=value` (`crate::reach`).
    pub heuristic_settings: Vec<String>,
    /// Optional passes that changed the program.
    pub passes_changed: Vec<&'static str>,
    /// Passes through loop bodies in the interpreter's run, all invocations together.
    pub loop_passes: u64,
    /// IR instructions the interpreter executed, all invocations together (0: not run yet);
    /// the pipelines' timeouts are judged against it (`targets::work`).
    pub interpreted_insts: u64,
    /// Pipelines that could not judge this case, with why (`vulkan: …`).
    pub skipped: Vec<String>,
    /// Real machine code our decoder read, per target: (instructions, those decoded).
    pub decoded: Vec<(&'static str, (u64, u64))>,
}
