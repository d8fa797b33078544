//! `gpufuzz repro FILE`: re-judge one saved input (`input.bin`) or program (`.ir`), with the
//! configuration the flags give; on a finding, also bisect and print the bug's signature.
//!
//! The judgement runs in a child process (this command again, with `--guarded`) under a
//! wall-clock deadline: the inputs worth re-judging include the ones that made a fuzz worker
//! hang or die, and `repro` must report those as what they are — `timeout` or `crash` — rather
//! than hang the user's shell or die with them.

use super::config::{CaseArgs, ConfigArgs};
use super::input;
use clap::Args;
use fuzz::finding::{Finding, FindingKind, Rejection, Verdict};
use fuzz::oracle;
use fuzz::pipelines::{self, Pipeline};
use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct ReproArgs {
    /// A program in the text format (a finding's `program.ir`, with its `; case:` header) or a
    /// raw input (`input.bin`); which one is decided by the content, whatever the name.
    /// A folder is a batch judged together (a fused finding's `batch/`, or a reduced one):
    /// each program's verdict is printed.
    file: PathBuf,
    /// Read the file as raw fuzz bytes even if it looks like a program.
    #[arg(long)]
    raw: bool,
    #[command(flatten)]
    config: ConfigArgs,
    #[command(flatten)]
    case: CaseArgs,
    /// Print the program.
    #[arg(long)]
    print: bool,
    /// On a `vulkan` finding, judge the case again with this ICD manifest too (repeatable, e.g.
    /// another Mesa's `lvp_icd.x86_64.json`) and say whether the bug is still there or gone.
    #[arg(long = "also-icd", value_name = "JSON")]
    also_icd: Vec<PathBuf>,
    /// Wall-clock seconds the judgement and bisection may take; past it the input is reported
    /// as a `timeout` (the compiler or a simulator does not finish). 0: no deadline, and no
    /// child process.
    #[arg(long = "deadline-secs", value_name = "SECONDS", default_value_t = 120)]
    deadline_secs: u64,
    /// Judge here: the parent `repro` process guards this one with the deadline.
    #[arg(long, hide = true)]
    guarded: bool,
}

pub fn run(a: ReproArgs) -> Result<ExitCode, String> {
    if !a.guarded && a.deadline_secs > 0 {
        return judge_in_child(Duration::from_secs(a.deadline_secs));
    }
    let opts = a.config.oracle_for(&a.file)?;
    if a.file.is_dir() {
        return repro_batch(&a, &opts);
    }
    let case = input::load(&a.file, a.raw, &a.case)?;
    let Some(case) = case else {
        println!("rejected: {:?}", Rejection::NoProgram);
        return Ok(ExitCode::SUCCESS);
    };
    // A program file's `; expect` lines say what it computes: a file whose claim the
    // interpreter does not bear out is reported before any target is judged.
    if input::is_text(&a.file, a.raw) {
        if let Some(unmet) = input::unmet_expectation(&a.file, &case.program, None)? {
            println!("expectation not met: {unmet}");
            return Ok(ExitCode::from(1));
        }
    }
    let judgement = oracle::judge(&case, &opts);
    if a.print {
        print!("{}", fuzz::case::text::print_case(&case));
    }
    match judgement.verdict {
        Verdict::Pass => {
            // A driver that cannot show a saved finding says so by name.
            let environment = super::config::recorded_environment(&a.file);
            let elsewhere = (opts.targets.iter())
                .filter_map(|t| pipelines::by_name(t))
                .find_map(|p| p.elsewhere(&environment, &opts));
            match elsewhere {
                Some(why) => println!("pass: {why}"),
                None => println!("pass"),
            }
            // A target that could not judge the case says why: a pass it did not check.
            for why in &judgement.coverage.skipped {
                println!("skipped: {why}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Verdict::Rejected(r) => {
            println!("rejected: {r:?}");
            Ok(ExitCode::SUCCESS)
        }
        Verdict::Finding(f) if input::is_text(&a.file, a.raw) && beyond_backend_limits(&f) => {
            Err(format!(
                "{}: the backend cannot compile this program with this configuration (a \
                 limit, not a compiler bug): {f}",
                a.file.display()
            ))
        }
        Verdict::Finding(f) => {
            println!("{f}");
            println!("signature: {}", f.signature());
            let pass = triage::bisect::first_bad_pass(&case, &opts, &f);
            let sig = triage::signature::Signature {
                kind: f.kind,
                target: f.target.clone(),
                first_bad_pass: pass,
                class: f.class.clone(),
            };
            println!("bug: {sig}");
            if let Some(target) = pipelines::by_name(&f.target) {
                for icd in &a.also_icd {
                    println!("{}", on_other_icd(target, &case, &opts, &f, icd));
                }
            }
            Ok(ExitCode::from(1))
        }
    }
}

/// `repro DIR`: the batch in `DIR` judged together as the fuzz loop judged it
/// ([`oracle::judge_cases`]), one verdict per program; exit 1 on any finding.
fn repro_batch(a: &ReproArgs, opts: &fuzz::oracle::OracleOptions) -> Result<ExitCode, String> {
    let batch = input::load_batch(&a.file, a.raw, &a.case)?;
    let cases: Vec<_> = batch.iter().map(|(_, case)| case.clone()).collect();
    let mut found = false;
    for ((name, case), j) in batch.iter().zip(oracle::judge_cases(&cases, opts)) {
        if a.print {
            print!("; {name}\n{}", fuzz::case::text::print_case(case));
        }
        match j.verdict {
            Verdict::Pass => println!("{name}: pass"),
            Verdict::Rejected(r) => println!("{name}: rejected: {r:?}"),
            Verdict::Finding(f) => {
                found = true;
                println!("{name}: {f}\nsignature: {}", f.signature());
            }
        }
    }
    Ok(ExitCode::from(u8::from(found)))
}

/// `still in DRIVER` / `gone in DRIVER` / `changed in DRIVER` for `case` judged on the driver
/// of ICD `icd`: the same bug is the same known bug or the same word wrong the same way, whatever
/// the driver's name.
fn on_other_icd(
    target: &dyn Pipeline,
    case: &fuzz::oracle::Case,
    opts: &fuzz::oracle::OracleOptions,
    f: &Finding,
    icd: &std::path::Path,
) -> String {
    let (other, driver) = match target.with_driver(opts, icd) {
        Some(Ok(on)) => on,
        Some(Err(e)) => return e,
        None => {
            return format!(
                "{}: not judged, the {} target runs on no driver",
                icd.display(),
                target.name()
            )
        }
    };
    match oracle::judge(case, &other).verdict {
        Verdict::Finding(g) if target.same_bug(f, &g) => format!("still in {driver}"),
        Verdict::Finding(g) => format!("changed in {driver}: {g}"),
        Verdict::Pass => format!("gone in {driver}"),
        Verdict::Rejected(r) => format!("rejected in {driver}: {r:?}"),
    }
}

/// Compile errors that say a hand-written program or configuration asks for more than the
/// backend supports (a register budget too small for the program, private memory exceeded):
/// a usage error for a user's `.ir` file, never reported as a bug. Fuzzer-generated inputs stay
/// findings, since the generator is meant to stay within the limits.
fn beyond_backend_limits(f: &Finding) -> bool {
    f.kind == FindingKind::CompileError
        && f.cause.as_ref().is_some_and(|c| c.beyond_backend_limits())
}

/// Runs this `repro` command again as a child with `--guarded` and waits at most `deadline`;
/// the child prints the verdict. A child killed at the deadline is a `timeout`, one that dies
/// of a signal a `crash` (its own stderr, inherited, says where), both bugs (exit 1).
fn judge_in_child(deadline: Duration) -> Result<ExitCode, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let mut child = Command::new(exe)
        .args(std::env::args_os().skip(1))
        .arg("--guarded")
        .spawn()
        .map_err(|e| format!("cannot start the judging process: {e}"))?;
    let start = Instant::now();
    loop {
        let waited = child.try_wait().map_err(|e| e.to_string())?;
        if let Some(status) = waited {
            return Ok(match status.code() {
                Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
                None => {
                    println!(
                        "crash: the judgement died of {}",
                        fuzz::worker::exit_class(&status)
                    );
                    ExitCode::from(1)
                }
            });
        }
        if start.elapsed() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            println!(
                "timeout: no verdict within {} s (--deadline-secs): the compiler or a simulator \
                 does not finish on this input",
                deadline.as_secs()
            );
            return Ok(ExitCode::from(1));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
