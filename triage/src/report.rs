//! Bug reports: one markdown file ready to paste into an issue tracker and one JSON record
//! per bucket, next to the repro (`bugs/<id>.ir`), all written atomically.
//!
//! A report holds the title (`[target] kind after pass: detail`), the signature, the hit
//! count, the minimized program, the exact `gpufuzz repro …` command, expected vs actual for
//! every differing invocation (capped), the target's code around the first difference when
//! the pipeline can show it ([`disassembly`]), the configuration, the bisection, and the
//! program's size before and after reduction. Markdown is rendered from the JSON record, so
//! a re-triage that only adds hits rewrites both from one source.

use crate::bisect::Bisection;
use crate::signature::Signature;
use compiler::interp::{self, RunOptions};
use fuzz::oracle::{Case, Coverage, OracleOptions};
use serde::{Deserialize, Serialize};
use std::fmt::Write;
use std::io;
use std::path::{Path, PathBuf};

/// At most this many differing words are listed.
pub const MAX_DIFFERENCES: usize = 32;

/// One differing word.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Difference {
    /// `output` or `buffer N`.
    pub place: String,
    /// The invocation.
    pub invocation: u32,
    /// Slot or word index.
    pub index: u32,
    /// The interpreter's value.
    pub expected: u32,
    /// The pipeline's value.
    pub actual: u32,
}

/// How to compile a repro: what the command line carries.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct ReproConfig {
    /// Planted bugs switched on.
    pub plants: Vec<String>,
    /// Pipelines run.
    pub targets: Vec<String>,
    /// Optional middle-end passes switched off.
    pub disabled_passes: Vec<String>,
    /// Backend knobs that differ from the default, as `KEY=VALUE`.
    #[serde(default)]
    pub case: Vec<String>,
    /// The whole `CaseConfig`, as Rust debug text.
    pub case_config: String,
    /// The Mesa its real-driver targets ran on (`--mesa`), if it has any.
    #[serde(default)]
    pub mesa: Option<String>,
}

impl ReproConfig {
    /// The flags a repro file needs besides its own `; case:` header: targets and plants.
    pub fn command_flags(&self) -> String {
        let mut s = String::new();
        for t in &self.targets {
            let _ = write!(s, " --target {t}");
        }
        for p in &self.plants {
            let _ = write!(s, " --plant {p}");
        }
        if let Some(m) = &self.mesa {
            let _ = write!(s, " --mesa {m}");
        }
        s
    }

    /// The flags `gpufuzz repro` (and `reduce`) take for this configuration.
    pub fn flags(&self) -> String {
        let mut s = String::new();
        for t in &self.targets {
            let _ = write!(s, " --target {t}");
        }
        for p in &self.plants {
            let _ = write!(s, " --plant {p}");
        }
        for d in &self.disabled_passes {
            let _ = write!(s, " --disable-pass {d}");
        }
        for kv in &self.case {
            let _ = write!(s, " --case {kv}");
        }
        if let Some(m) = &self.mesa {
            let _ = write!(s, " --mesa {m}");
        }
        s
    }
}

/// Everything a report says (the JSON record).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BugReport {
    /// Bucket id (file stem).
    pub id: String,
    /// Issue title.
    pub title: String,
    /// The bug's signature.
    pub signature: Signature,
    /// The signature as text.
    pub key: String,
    /// Findings triaged into this bucket.
    pub hits: usize,
    /// Their folders.
    pub findings: Vec<String>,
    /// The reduced finding's detail.
    pub detail: String,
    /// The repro file.
    pub repro_file: PathBuf,
    /// The command that reproduces it.
    pub command: String,
    /// How to compile it.
    pub config: ReproConfig,
    /// What bisection found.
    pub first_bad_pass: Option<String>,
    /// Why that pass: what is right before it and wrong after it.
    #[serde(default)]
    pub evidence: Option<String>,
    /// Smallest pass limit showing the bug (`0`: no optional pass needed).
    pub bisect_limit: Option<usize>,
    /// Optional pass runs in the full pipeline.
    pub pass_runs: usize,
    /// The middle end checked pass by pass: first run whose IR misbehaves.
    pub direct: Option<(usize, String)>,
    /// Instructions before reduction.
    pub size_before: usize,
    /// Instructions after.
    pub size_after: usize,
    /// Reduction time in seconds.
    pub reduce_seconds: f64,
    /// Reduction candidates run.
    pub reduce_runs: usize,
    /// Differing words (at most [`MAX_DIFFERENCES`]).
    pub differences: Vec<Difference>,
    /// All differing words.
    pub differences_total: usize,
    /// The minimized program, canonical text.
    pub program: String,
    /// The target's code, annotated, when the pipeline exposes it.
    pub disassembly: Option<String>,
    /// The gpufuzz that triaged it: version and commit ([`fuzz::VERSION`]).
    #[serde(default)]
    pub gpufuzz: String,
    /// Repro files that need no gpufuzz (a `vulkan` bug's `.vk_shader_test`, `.amber`,
    /// `.spvasm`), beside the report, with the vkrunner script's text; or why there are none.
    #[serde(default)]
    pub standalone: Option<StandaloneFiles>,
}

/// A report's standalone repro files (see `fuzz::targets::driver::standalone`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct StandaloneFiles {
    /// The files written, as given (relative to where triage ran).
    pub files: Vec<PathBuf>,
    /// The text the report shows: the vkrunner script, or for a target without one the module
    /// the driver compiled.
    pub vk_shader_test: String,
    /// The spirv-opt command, for a case with a pass list.
    pub spirv_opt: Option<String>,
    /// Why no files could be written (e.g. a program with textures).
    pub refused: Option<String>,
    /// What the shown text is, when the target says (`Written::how`).
    #[serde(default)]
    pub how: Option<String>,
}

/// Writes `case`'s standalone repro files as `bugs/<id>.*` when `target` has a standalone
/// repro (`Target::write_standalone`).
pub fn standalone(
    bugs: &Path,
    id: &str,
    case: &Case,
    opts: &OracleOptions,
    target: &str,
) -> Option<StandaloneFiles> {
    let made = fuzz::targets::by_name(target)?.write_standalone(case, opts, bugs, id)?;
    Some(match made {
        Ok(w) => StandaloneFiles {
            files: w.files,
            vk_shader_test: w.shown,
            spirv_opt: w.by_hand,
            refused: None,
            how: w.how,
        },
        Err(why) => StandaloneFiles {
            refused: Some(why),
            ..StandaloneFiles::default()
        },
    })
}

/// The issue title: `[target] kind after pass: detail`.
pub fn title(sig: &Signature, detail: &str) -> String {
    let mut t = format!("[{}] {}", sig.target, sig.kind);
    if let Some(p) = &sig.first_bad_pass {
        let _ = write!(t, " after {p}");
    }
    t.push_str(": ");
    if let Some(c) = &sig.class {
        let _ = write!(t, "{c}: ");
    }
    let d: String = detail
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(100)
        .collect();
    t.push_str(&d);
    t
}

/// Every word where `target`'s results differ from the interpreter's on `case`.
pub fn differences(case: &Case, opts: &OracleOptions, target: &str) -> Vec<Difference> {
    let Some(pipeline) = fuzz::targets::all().iter().find(|p| p.name() == target) else {
        return Vec::new();
    };
    let run = RunOptions {
        fuel: opts.fuel,
        ..RunOptions::default()
    };
    let Ok(expected) = interp::run(&case.program, &run) else {
        return Vec::new();
    };
    let mut cov = Coverage::default();
    let Ok(Ok(actual)) = fuzz::panics::catch(|| {
        let optimised = fuzz::targets::middle::optimise(case, opts, &mut cov).map_err(|_| ())?;
        pipeline
            .run(case, &optimised, opts, &mut cov)
            .map_err(|_| ())
    }) else {
        return Vec::new();
    };
    let d = &case.program.dispatch;
    let mut out = Vec::new();
    let mut scan = |place: String, width: u32, e: &[u32], a: &[u32]| {
        for (k, (&x, &y)) in e.iter().zip(a).enumerate() {
            if x != y && width > 0 {
                out.push(Difference {
                    place: place.clone(),
                    invocation: k as u32 / width,
                    index: k as u32 % width,
                    expected: x,
                    actual: y,
                });
            }
        }
    };
    scan(
        "output".into(),
        d.outputs,
        &expected.outputs,
        &actual.outputs,
    );
    for (b, (e, a)) in expected.buffers.iter().zip(&actual.buffers).enumerate() {
        scan(format!("buffer {b}"), d.buffers[b], e, a);
    }
    out
}

/// The target code: the compiled program as the target shows it ([`fuzz::targets::Target::listing`]: the
/// middle end its optimised IR annotated at the first difference, a backend its disassembly
/// headed by its checks' verdicts, `vulkan` the SPIR-V module with the device). Only for a
/// registered target's findings: a worker process's hang or crash must not be re-run here (it
/// would hang or kill triage).
pub fn disassembly(
    case: &Case,
    opts: &OracleOptions,
    target: &str,
    first: Option<&Difference>,
) -> Option<String> {
    let pipeline = fuzz::targets::by_name(target)?;
    let optimised = fuzz::targets::middle::optimise(case, opts, &mut Coverage::default()).ok()?;
    let first_output = first.filter(|d| d.place == "output").map(|d| d.index);
    pipeline.listing(case, opts, &optimised, first_output)
}

/// The targets a bucket's findings showed on, from their folder names
/// (`<kind>-<target>-<hash>`): one root cause seen on gen8 and gen16 is one report that says so.
pub fn seen_on(findings: &[String]) -> Vec<&str> {
    let mut targets: Vec<&str> = findings
        .iter()
        .filter_map(|f| f.rsplit('-').nth(1))
        .collect();
    targets.sort_unstable();
    targets.dedup();
    targets
}

/// Renders the markdown issue.
pub fn markdown(r: &BugReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# {}\n", r.title);
    let _ = writeln!(s, "- **Signature:** `{}`", r.key);
    let _ = writeln!(
        s,
        "- **Hits:** {} (findings: {})",
        r.hits,
        r.findings.join(", ")
    );
    let _ = writeln!(s, "- **Seen on:** {}", seen_on(&r.findings).join(", "));
    let pass = r.first_bad_pass.as_deref().unwrap_or("unknown");
    let _ = writeln!(s, "- **First bad pass:** `{pass}`");
    if let Some(why) = &r.evidence {
        let _ = writeln!(s, "- **Evidence:** {why}");
    }
    if r.pass_runs > 0 {
        let limit = r.bisect_limit.map_or("not found".into(), |n| n.to_string());
        let _ = writeln!(
            s,
            "- **Bisection:** first bad pass limit {limit} of {} optional pass runs",
            r.pass_runs
        );
    }
    if let Some((i, name)) = &r.direct {
        let _ = writeln!(
            s,
            "- **Direct check:** the IR first misbehaves after run {i} (`{name}`)"
        );
    }
    let _ = writeln!(
        s,
        "- **Size:** {} → {} instructions (reduced in {:.1}s, {} candidates)",
        r.size_before, r.size_after, r.reduce_seconds, r.reduce_runs
    );
    if r.size_after == 0 {
        let _ = writeln!(
            s,
            "- **Note:** the reduced program has no instruction: the bug shows in the code \
             the backend emits for every program (its fixed prologue and epilogue), not in \
             code made from the program"
        );
    }
    let _ = writeln!(s, "- **gpufuzz:** {}", r.gpufuzz);
    let _ = writeln!(s, "\n## Reproduce\n\n```sh\n{}\n```\n", r.command);
    let _ = writeln!(s, "Repro file: `{}`\n", r.repro_file.display());
    let _ = writeln!(s, "## Configuration\n");
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    let _ = writeln!(s, "- targets: {}", list(&r.config.targets));
    let _ = writeln!(s, "- planted bugs: {}", list(&r.config.plants));
    let _ = writeln!(s, "- disabled passes: {}", list(&r.config.disabled_passes));
    // The knobs in the words of the repro's `; case:` header; the rest are defaults.
    let knobs = if r.config.case.is_empty() {
        "all defaults".to_string()
    } else {
        r.config.case.join(" ")
    };
    let _ = writeln!(s, "- backend knobs not at their defaults: `{knobs}`\n");
    let _ = writeln!(s, "## What differs\n\n{}\n", r.detail);
    if !r.differences.is_empty() {
        let _ = writeln!(
            s,
            "| place | invocation | index | expected | actual |\n|---|---|---|---|---|"
        );
        for d in &r.differences {
            let _ = writeln!(
                s,
                "| {} | {} | {} | `{:#010x}` | `{:#010x}` |",
                d.place, d.invocation, d.index, d.expected, d.actual
            );
        }
        if r.differences_total > r.differences.len() {
            let _ = writeln!(
                s,
                "\n({} more differing words not shown)",
                r.differences_total - r.differences.len()
            );
        }
        s.push('\n');
    }
    if let Some(st) = &r.standalone {
        let _ = writeln!(s, "## Standalone repro (no gpufuzz needed)\n");
        match &st.refused {
            Some(why) => {
                let _ = writeln!(s, "None: {why}.\n");
            }
            None => {
                for f in &st.files {
                    let _ = writeln!(s, "- `{}`", f.display());
                }
                if let Some(cmd) = &st.spirv_opt {
                    let _ = writeln!(s, "- the spirv-opt step: `{cmd}`");
                }
                let runnable =
                    (st.files.iter()).any(|f| f.extension().is_some_and(|e| e == "vk_shader_test"));
                let how = if let Some(how) = &st.how {
                    how.as_str()
                } else if runnable {
                    "Run with `vkrunner FILE.vk_shader_test` or `amber FILE.amber`; the probes \
                     hold the reference interpreter's values."
                } else {
                    "The module the driver compiled:"
                };
                let _ = writeln!(s, "\n{how}\n\n```\n{}```\n", st.vk_shader_test);
            }
        }
    }
    let _ = writeln!(s, "## Minimized program\n\n```\n{}```\n", r.program);
    let _ = writeln!(s, "## Target code\n");
    match &r.disassembly {
        Some(d) => {
            let _ = writeln!(s, "```\n{d}```");
        }
        None => {
            let _ = writeln!(
                s,
                "The `{}` pipeline does not expose its code yet.",
                r.signature.target
            );
        }
    }
    s
}

/// Paths of a bucket's files.
pub fn paths(bugs: &Path, id: &str) -> (PathBuf, PathBuf, PathBuf) {
    (
        bugs.join(format!("{id}.md")),
        bugs.join(format!("{id}.json")),
        bugs.join(format!("{id}.ir")),
    )
}

/// The repro file's text: a comment header, then the program.
pub fn repro_text(r: &BugReport) -> String {
    format!(
        "; {}\n; signature: {}\n; reproduce: {}\n{}",
        r.title, r.key, r.command, r.program
    )
}

/// Writes the repro, the JSON record and the markdown atomically.
pub fn write(bugs: &Path, r: &BugReport) -> io::Result<()> {
    let (md, json, ir) = paths(bugs, &r.id);
    fuzz::store::write_atomically(&ir, repro_text(r).as_bytes())?;
    let j = serde_json::to_string_pretty(r).map_err(io::Error::other)?;
    fuzz::store::write_atomically(&json, j.as_bytes())?;
    fuzz::store::write_atomically(&md, markdown(r).as_bytes())
}

/// Reads a bucket's JSON record.
pub fn read(bugs: &Path, id: &str) -> io::Result<BugReport> {
    let (_, json, _) = paths(bugs, id);
    serde_json::from_str(&std::fs::read_to_string(json)?).map_err(io::Error::other)
}

/// Builds the bisection part of a report.
pub fn with_bisection(r: &mut BugReport, b: &Bisection) {
    r.first_bad_pass = b.first_bad_pass.clone();
    r.evidence = b.evidence.clone();
    r.bisect_limit = b.limit;
    r.pass_runs = b.runs.len();
    r.direct = b.direct.clone();
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_bucket_names_every_target_its_findings_showed_on() {
        let findings = [
            "ra-check-gen8-1fa04528b07745e2",
            "compile-error-gen16-5662780ca6d5de2d",
            "ra-check-gen8-50022eb0c1d70af9",
        ]
        .map(String::from);
        assert_eq!(super::seen_on(&findings), ["gen16", "gen8"]);
    }
}
