//! Triage of a fuzz output folder (`gpufuzz triage DIR`): every saved finding is reproduced,
//! reduced while it keeps its signature, bisected, and filed into a bucket; each bucket gets
//! a report in `DIR/bugs/`. Findings triaged before (the index remembers them) are skipped,
//! and a known bug's new hits are counted, not reported again; a smaller repro replaces the
//! bucket's old one.

use crate::bisect::{self, Bisection};
use crate::bucket::{Added, Index};
use crate::reduce::config::{self, Floors};
use crate::reduce::{Reduced, Reducer};
use crate::report::{self, BugReport, ReproConfig};
use crate::signature::{self, Signature};
use crate::Error;
use compiler::interp::{self, RunOptions};
use compiler::planted::{Plant, Plants};
use fuzz::finding::{Finding, FindingKind};
use fuzz::oracle::{Case, OracleOptions};
use fuzz::targets::vulkan::{self, VulkanOptions};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A reduced and bisected case.
#[derive(Clone, Debug)]
pub struct Reduction {
    /// The bug it shows.
    pub signature: Signature,
    /// The reduced case's finding.
    pub finding: Finding,
    /// The reduction.
    pub reduced: Reduced,
    /// Bisection of the reduced case.
    pub bisection: Bisection,
}

/// Smaller interpreter fuel tried first for reductions (timeouts burn all of it, on every
/// candidate); the result is checked with the caller's fuel before it is accepted.
const QUICK_FUEL: u64 = 5_000;

/// The oracle options of a reduction's quick first attempt: less fuel, and only the target
/// that showed the bug (the other pipelines' verdicts cannot make a candidate show it, and
/// judging them was most of a candidate's cost). The result is checked with `opts` in full.
fn quick(opts: &OracleOptions, sig: &Signature) -> OracleOptions {
    let targets = if sig.target == fuzz::worker::PROCESS {
        opts.targets.clone()
    } else {
        vec![sig.target.clone()]
    };
    OracleOptions {
        fuel: QUICK_FUEL.min(opts.fuel),
        targets,
        ..opts.clone()
    }
}

/// Whether `case` shows `sig` ([`signature::shows`]) as the bug, not as a budget too small.
/// The reducer may take a Gen budget under the one the case's allocation choices are sure to
/// compile at ([`Floors::Any`]): a program the allocator compiled and got wrong there is its
/// bug at any budget, but a failure to compile counts there only when the same case compiles
/// and runs right without the planted bugs (so the budget was enough for a correct
/// allocator); with nothing planted, never.
pub fn keeps(case: &Case, opts: &OracleOptions, sig: &Signature) -> bool {
    let Some(f) = signature::shown(case, opts, sig) else {
        return false;
    };
    if f.kind != FindingKind::CompileError || !config::under_sure_floor(&f.target, &case.config) {
        return true;
    }
    let unplanted = OracleOptions {
        plants: Plants::NONE,
        ..opts.clone()
    };
    opts.plants.iter().next().is_some() && fuzz::oracle::finding_of(case, &unplanted).is_none()
}

/// Reduces `case` while it shows the signature it shows now, then bisects the result.
pub fn reduce_case(
    case: Case,
    opts: &OracleOptions,
    reducer: &Reducer,
) -> Result<Reduction, Error> {
    let (sig, _) = signature::signature_of(&case, opts).ok_or(Error::NoFinding)?;
    let quick = quick(opts, &sig);
    let reducer = &reducer.clone().budgets_of(&sig.target).floors(Floors::Any);
    let mut reduced = None;
    if keeps(&case, &quick, &sig) {
        let r = reducer.reduce(case.clone(), &mut |c: &Case| keeps(c, &quick, &sig));
        reduced = r.ok().filter(|r| keeps(&r.case, opts, &sig));
    }
    let reduced = match reduced {
        Some(r) => r,
        None => reducer.reduce(case, &mut |c: &Case| keeps(c, opts, &sig))?,
    };
    let finding = fuzz::oracle::finding_of(&reduced.case, opts).ok_or(Error::ReducedCasePasses)?;
    let bisection = bisect::bisect(&reduced.case, opts, &finding);
    Ok(Reduction {
        signature: sig,
        finding,
        reduced,
        bisection,
    })
}

/// The planted bugs of `opts` the case needs to show `sig`: a plant whose removal leaves the
/// bug in place does not belong in a report or a regression's command.
pub fn needed_plants(case: &Case, opts: &OracleOptions, sig: &Signature) -> Plants {
    let mut needed = opts.plants;
    if sig.target == fuzz::worker::PROCESS {
        // A hang or crash cannot be re-judged in this process.
        return needed;
    }
    for p in opts.plants.iter() {
        let without = OracleOptions {
            plants: needed.without(p),
            ..opts.clone()
        };
        if signature::shows(case, &without, sig) {
            needed = without.plants;
        }
    }
    needed
}

/// The flags a case and oracle options need on the command line.
pub fn repro_config(case: &Case, opts: &OracleOptions) -> ReproConfig {
    ReproConfig {
        plants: opts.plants.iter().map(|p| p.name().to_string()).collect(),
        targets: opts.targets.clone(),
        disabled_passes: fuzz::targets::middle::disabled_passes(case),
        case: case.config.non_default(),
        case_config: format!("{:?}", case.config),
        mesa: opts
            .targets
            .iter()
            .any(|t| fuzz::targets::by_name(t).is_some_and(|p| p.runs_on_mesa()))
            .then(|| fuzz::targets::driver::mesa::current().to_string()),
    }
}

/// The report for a reduction, its repro to live at `bugs/<id>.ir`.
pub fn build_report(
    id: &str,
    bugs: &Path,
    r: &Reduction,
    opts: &OracleOptions,
    findings: Vec<String>,
) -> BugReport {
    let case = &r.reduced.case;
    let opts = &OracleOptions {
        plants: needed_plants(case, opts, &r.signature),
        ..opts.clone()
    };
    let config = repro_config(case, opts);
    // As given (relative to where triage ran), so a report stays valid when the folder moves
    // with the repository; the `.ir` file carries its configuration in its header.
    let (_, _, ir) = report::paths(bugs, id);
    let diffs = report::differences(case, opts, &r.signature.target);
    let disassembly = report::disassembly(case, opts, &r.signature.target, diffs.first());
    let mut rep = BugReport {
        id: id.to_string(),
        title: report::title(&r.signature, &r.finding.detail),
        key: r.signature.key(),
        signature: r.signature.clone(),
        hits: findings.len(),
        findings,
        detail: r.finding.to_string(),
        command: format!("gpufuzz repro {}{}", ir.display(), config.command_flags()),
        repro_file: ir,
        config,
        first_bad_pass: None,
        evidence: None,
        bisect_limit: None,
        pass_runs: 0,
        direct: None,
        size_before: r.reduced.before,
        size_after: r.reduced.after,
        reduce_seconds: r.reduced.elapsed.as_secs_f64(),
        reduce_runs: r.reduced.runs,
        differences_total: diffs.len(),
        differences: diffs.into_iter().take(report::MAX_DIFFERENCES).collect(),
        program: fuzz::case::text::print_case(case),
        disassembly,
        gpufuzz: fuzz::VERSION.to_string(),
        standalone: report::standalone(bugs, id, case, opts, &r.signature.target),
    };
    report::with_bisection(&mut rep, &r.bisection);
    rep
}

/// What a finding's reproduce command says about its configuration.
#[derive(Debug, Default, PartialEq)]
pub struct ReproFlags {
    /// `--plant`s.
    pub plants: Plants,
    /// `--target`s.
    pub targets: Vec<String>,
    /// `--case KEY=VALUE`s: the knobs its run pinned.
    pub pins: Vec<String>,
}

/// Reads the `--plant`, `--target` and `--case` flags of a reproduce command (unknown plants
/// are left out).
pub fn parse_flags(cmd: &str) -> ReproFlags {
    let mut flags = ReproFlags::default();
    let words: Vec<&str> = cmd.split_whitespace().collect();
    for pair in words.windows(2) {
        match pair[0] {
            "--plant" => {
                if let Some(p) = Plant::from_name(pair[1]) {
                    flags.plants = flags.plants.with(p);
                }
            }
            "--target" => flags.targets.push(pair[1].to_string()),
            "--case" => flags.pins.push(pair[1].to_string()),
            _ => {}
        }
    }
    flags
}

/// How to triage.
#[derive(Clone, Debug, Default)]
pub struct TriageOptions {
    /// Planted bugs on in addition to those each finding's command names.
    pub plants: Plants,
    /// The reducer.
    pub reducer: Reducer,
    /// Print a line per finding.
    pub verbose: bool,
    /// The `vulkan` target's time limit, and its device and ICD when `driver_given`.
    pub vulkan: VulkanOptions,
    /// Judge `vulkan` findings on `vulkan`'s device and ICD (the command line named one)
    /// rather than on the one each finding records it was found on.
    pub driver_given: bool,
}

/// What a triage did.
#[derive(Clone, Debug, Default)]
pub struct TriageSummary {
    /// Findings triaged now.
    pub triaged: usize,
    /// Findings that did not reproduce.
    pub unreproduced: usize,
    /// Buckets opened now.
    pub new_buckets: Vec<String>,
    /// Report ids written or updated.
    pub updated: Vec<String>,
    /// Sizes (before, after) and seconds of each reduction.
    pub reductions: Vec<(usize, usize, f64)>,
}

/// Triage of `dir` (a `gpufuzz fuzz --out` folder, or a libFuzzer artifact folder whose
/// `crash-*` files are imported first, [`crate::artifacts`]): reports go to `dir/bugs/`.
pub fn triage(dir: &Path, t: &TriageOptions) -> Result<TriageSummary, Error> {
    let mut summary = TriageSummary::default();
    let imported = crate::artifacts::import(dir, t.plants)?;
    for (name, why) in &imported.unreproduced {
        eprintln!("triage: {name}: not reproduced: {why}");
    }
    summary.unreproduced += imported.unreproduced.len();
    let bugs = dir.join("bugs");
    // The folder, not the file (index or report), as these messages have always named it.
    let io = |error: std::io::Error| Error::Io {
        path: bugs.clone(),
        error,
    };
    std::fs::create_dir_all(&bugs).map_err(io)?;
    let mut index = Index::load(&bugs).map_err(io)?;
    for folder in finding_folders(dir)? {
        let name = folder
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        if index.processed.contains(&name) {
            continue;
        }
        let start = Instant::now();
        let outcome = triage_one(&folder, t);
        index.processed.insert(name.clone());
        let (opts, red) = match outcome {
            Ok(x) => x,
            Err(e) => {
                if t.verbose {
                    eprintln!("triage: {name}: {e}");
                }
                index.unreproduced.insert(name, e.to_string());
                summary.unreproduced += 1;
                continue;
            }
        };
        summary.triaged += 1;
        let size = red.reduced.after;
        summary
            .reductions
            .push((red.reduced.before, size, red.reduced.elapsed.as_secs_f64()));
        let (added, bucket) = index.add(&red.signature, &name, size);
        let (id, findings) = (bucket.id.clone(), bucket.findings.clone());
        if t.verbose {
            eprintln!(
                "triage: {name}: {} ({} -> {size} insts, {:.1}s) {added:?}",
                red.signature,
                red.reduced.before,
                start.elapsed().as_secs_f64()
            );
        }
        let rep = match added {
            Added::New | Added::Smaller => build_report(&id, &bugs, &red, &opts, findings),
            Added::Counted => {
                let mut rep = report::read(&bugs, &id).map_err(io)?;
                rep.hits = findings.len();
                rep.findings = findings;
                rep
            }
        };
        report::write(&bugs, &rep).map_err(io)?;
        if added == Added::New {
            summary.new_buckets.push(id.clone());
        }
        if !summary.updated.contains(&id) {
            summary.updated.push(id);
        }
        index.save(&bugs).map_err(io)?;
    }
    index.save(&bugs).map_err(io)?;
    Ok(summary)
}

/// Finding folders under `dir/findings`, sorted.
fn finding_folders(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let root = dir.join("findings");
    let rd = std::fs::read_dir(&root).map_err(Error::io(&root))?;
    let mut v: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("input.bin").is_file())
        .collect();
    v.sort();
    Ok(v)
}

/// Reproduces, reduces and bisects one saved finding.
fn triage_one(folder: &Path, t: &TriageOptions) -> Result<(OracleOptions, Reduction), Error> {
    let input = folder.join("input.bin");
    let bytes = std::fs::read(&input).map_err(Error::io_unnamed(&input))?;
    let record: serde_json::Value = std::fs::read_to_string(folder.join("finding.json"))
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default();
    if record["batch"].is_object() {
        // Its program passes alone; a bucket holds one program, not a batch.
        return Err(Error::OnlyFused {
            batch: folder.join(fuzz::store::BATCH),
        });
    }
    let ReproFlags {
        mut plants,
        mut targets,
        pins,
    } = parse_flags(record["reproduce"].as_str().unwrap_or(""));
    for p in t.plants.iter() {
        plants = plants.with(p);
    }
    let target = record["finding"]["target"].as_str().unwrap_or("");
    if target != fuzz::worker::PROCESS {
        // A test plant only hangs or crashes; in-process reduction and bisection must not
        // meet it (a candidate that trips it would hang triage).
        plants = plants
            .iter()
            .filter(|p| !p.test_only())
            .fold(Plants::NONE, Plants::with);
    }
    if targets.is_empty() && fuzz::targets::all().iter().any(|p| p.name() == target) {
        targets.push(target.to_string());
    }
    // Where the finding was found, unless the command line names a driver.
    let environment = &record["environment"];
    let opts = OracleOptions {
        plants,
        targets,
        vulkan: if t.driver_given {
            t.vulkan.clone()
        } else {
            vulkan::options_of(environment, &t.vulkan)
        },
        ..OracleOptions::default()
    };
    let pipeline = fuzz::targets::by_name(target);
    if let Some(p) = pipeline {
        // The driver it was found on must open: never judge it silently on another.
        p.prepare(&opts).map_err(Error::DriverWontOpen)?;
    }
    let mut case =
        fuzz::case::text::read_input(&bytes, &input.display().to_string()).map_err(Error::Fuzz)?;
    // The knobs its run pinned (`fuzz --case`), as its reproduce command sets them.
    for kv in &pins {
        case.config
            .set_checked(kv)
            .map_err(|error| Error::RecordedPin {
                pin: kv.clone(),
                error,
            })?;
    }
    if target == fuzz::worker::PROCESS {
        return Ok((opts, unreduced(case, &record)?));
    }
    let reduced = reduce_case(case, &opts, &t.reducer).map_err(|e| {
        // A driver that cannot show the bug says so by name.
        match pipeline.and_then(|p| p.elsewhere(environment, &opts)) {
            Some(why) => Error::FoundOnAnotherDriver {
                error: Box::new(e),
                why,
            },
            None => e,
        }
    })?;
    Ok((opts, reduced))
}

/// A hang or crash of a worker process, filed as found: re-running it in this process would
/// hang or kill triage, so it is neither reduced nor bisected (`gpufuzz repro input.bin` in a
/// shell shows where it hangs or dies).
fn unreduced(case: Case, record: &serde_json::Value) -> Result<Reduction, Error> {
    let mut finding: Finding =
        serde_json::from_value(record["finding"].clone()).map_err(Error::FindingRecord)?;
    finding.detail += " — not reduced or bisected: re-judging it here would hang or kill \
                       triage; `gpufuzz repro` on the file, in a shell, shows where it stops";
    let size = case.program.func.inst_count();
    Ok(Reduction {
        signature: Signature {
            kind: finding.kind,
            target: finding.target.clone(),
            first_bad_pass: None,
            class: finding.class.clone(),
        },
        finding,
        reduced: Reduced {
            case,
            before: size,
            after: size,
            runs: 0,
            accepted: 0,
            invalid: 0,
            duplicates: 0,
            passes: Vec::new(),
            elapsed: std::time::Duration::ZERO,
            truncated: true,
        },
        bisection: Bisection::default(),
    })
}

/// Copies bucket `name`'s repro into `corpus` (e.g. `corpus/regressions/`) in canonical
/// form, with a header saying what it caught, its signature, the command, and `; expect`
/// lines holding the interpreter's outputs. Returns the new file.
pub fn promote(dir: &Path, name: &str, corpus: &Path) -> Result<PathBuf, Error> {
    let bugs = dir.join("bugs");
    let index = Index::load(&bugs).map_err(Error::io_unnamed(&bugs))?;
    let bucket = index.find(name).ok_or_else(|| Error::NoBucket {
        name: name.to_string(),
        bugs: bugs.clone(),
    })?;
    let rep = report::read(&bugs, &bucket.id).map_err(Error::io_unnamed(&bugs))?;
    let case = fuzz::case::text::parse_case(&rep.program, &bucket.id).map_err(Error::Fuzz)?;
    let p = &case.program;
    let results = interp::run(p, &RunOptions::default())?;
    let path = corpus.join(format!("{}.ir", bucket.id));
    let mut s = format!(
        "; Caught: {}\n; Signature: {}\n; Command: gpufuzz repro {}{}\n",
        rep.title,
        rep.key,
        path.display(),
        rep.config.command_flags()
    );
    let slots = p.dispatch.outputs as usize;
    if slots > 0 {
        for (i, words) in results.outputs.chunks(slots).enumerate().take(16) {
            s.push_str(&compiler::ir::text::expect::line(i, words));
            s.push('\n');
        }
    }
    s.push_str(&fuzz::case::text::print_case(&case));
    std::fs::create_dir_all(corpus).map_err(Error::io_unnamed(corpus))?;
    fuzz::store::write_atomically(&path, s.as_bytes()).map_err(Error::io_unnamed(&path))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// gen-spill-optimistic-only's seed-3 finding as the reducer leaves it: colouring in
    /// descending order, whose sure floor is 16 GRFs, at 11.
    const UNDER_THE_FLOOR: &str = "\
; case: gen_grfs=11 gen_colour_order=descending
; disable-pass: lower_vars_to_ssa opt_remove_phis opt_copy_prop opt_constant_folding opt_algebraic opt_cse opt_dead_cf opt_dce opt_shrink_vectors
invocations 1
outputs 1
texture 26x27 levels 2 layers 2

block_0:
  vec1 32 ssa_2 = load_const (0x00000000)
  vec2 32 ssa_314 = load_const (0x00000000, 0x00000000)
  vec4 32 ssa_137 = tex 0, ssa_314
  vec2 32 ssa_145 = load_uniform ssa_2
loop {
  block_5:
    store_output 1, ssa_145
    store_output 2, ssa_314
    break
}
block_27:
  store_output 2, ssa_137
";

    #[test]
    fn a_compile_failure_under_the_sure_floor_counts_only_when_it_compiles_unplanted() {
        let case = fuzz::case::text::parse_case(UNDER_THE_FLOOR, "t.ir").expect("parses");
        assert!(config::under_sure_floor("gen8", &case.config));
        let planted = OracleOptions {
            plants: Plants::NONE.with(Plant::GenSpillOptimisticOnly),
            targets: vec!["gen8".into()],
            ..OracleOptions::default()
        };
        let (sig, f) = signature::signature_of(&case, &planted).expect("the plant fails it");
        assert_eq!(
            (f.kind, sig.key().as_str()),
            (FindingKind::CompileError, "gen:gen_ra")
        );
        // Without the plant the allocator meets this budget, so the failure is the plant's.
        assert!(keeps(&case, &planted, &sig));
        // The same failure seen with nothing planted to switch off is not kept.
        let unplanted = OracleOptions {
            plants: Plants::NONE,
            ..planted.clone()
        };
        assert!(fuzz::oracle::finding_of(&case, &unplanted).is_none());
        assert!(!keeps(&case, &unplanted, &sig));
    }
}
