//! `gpufuzz repro FILE`: re-judge one saved input (`input.bin`) or program (`.ir`), with the
//! configuration the flags give; on a finding, also bisect and print the bug's signature.
//!
//! The judgement runs in a child process (this command again, with `--guarded`) under a
//! wall-clock deadline: the inputs worth re-judging include the ones that made a fuzz worker
//! hang or die, and `repro` must report those as what they are — `timeout` or `crash` — rather
//! than hang the user's shell or die with them.

use super::config::{CaseArgs, ConfigArgs};
use super::error::CliError;
use super::input;
use clap::Args;
use fuzz::finding::{Finding, FindingKind, Rejection, Verdict};
use fuzz::oracle;
use fuzz::targets::driver::mesa;
use fuzz::targets::{self, Target};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
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
    /// On a finding of a real-driver target, judge the case again on this installed Mesa too
    /// (repeatable: `--also-mesa 25.0.7 --also-mesa 22.3.6`) and say per version whether the
    /// bug is still in it, gone in it or changed in it.
    #[arg(long = "also-mesa", value_name = "V")]
    also_mesa: Vec<String>,
    /// Writes the verdict's finding as JSON (`null` for none) to this file: how `--also-mesa`
    /// hears another Mesa's verdict.
    #[arg(long = "finding-json", value_name = "FILE", hide = true)]
    finding_json: Option<PathBuf>,
    /// Wall-clock seconds the judgement and bisection may take; past it the input is reported
    /// as a `timeout` (the compiler or a simulator does not finish). 0: no deadline, and no
    /// child process.
    #[arg(long = "deadline-secs", value_name = "SECONDS", default_value_t = 120)]
    deadline_secs: u64,
    /// Judge here: the parent `repro` process guards this one with the deadline.
    #[arg(long, hide = true)]
    guarded: bool,
}

pub fn run(a: ReproArgs) -> Result<ExitCode, CliError> {
    if !a.guarded && a.deadline_secs > 0 {
        return judge_in_child(Duration::from_secs(a.deadline_secs));
    }
    // Every other Mesa named must be installed: checked before any judging.
    for v in &a.also_mesa {
        mesa::resolve(v).map_err(CliError::Usage)?;
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
    if let Some(path) = &a.finding_json {
        let finding = match &judgement.verdict {
            Verdict::Finding(f) => Some(f),
            _ => None,
        };
        let json = serde_json::to_string(&finding).map_err(|e| e.to_string())?;
        fuzz::store::write_atomically(path, json.as_bytes()).map_err(CliError::io(path))?;
    }
    if a.print {
        print!("{}", fuzz::case::text::print_case(&case));
    }
    match judgement.verdict {
        Verdict::Pass => {
            // A driver that cannot show a saved finding says so by name.
            let environment = super::config::recorded_environment(&a.file);
            let elsewhere = (opts.targets.iter())
                .filter_map(|t| targets::by_name(t))
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
        Verdict::Broken(why) => Err(CliError::Failed(format!(
            "{}: not tested: {why}",
            a.file.display()
        ))),
        Verdict::Finding(f) if input::is_text(&a.file, a.raw) && beyond_backend_limits(&f) => {
            Err(CliError::Input(format!(
                "{}: the backend cannot compile this program with this configuration (a \
                 limit, not a compiler bug): {f}",
                a.file.display()
            )))
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
            if let Some(target) = targets::by_name(&f.target) {
                for icd in &a.also_icd {
                    println!("{}", on_other_icd(target, &case, &opts, &f, icd));
                }
                for v in &a.also_mesa {
                    println!("{}", on_other_mesa(target, &f, v, a.deadline_secs));
                }
            }
            Ok(ExitCode::from(1))
        }
    }
}

/// `repro DIR`: the batch in `DIR` judged together as the fuzz loop judged it
/// ([`oracle::judge_cases`]), one verdict per program; exit 1 on any finding.
fn repro_batch(a: &ReproArgs, opts: &fuzz::oracle::OracleOptions) -> Result<ExitCode, CliError> {
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
            Verdict::Broken(why) => {
                return Err(CliError::Failed(format!("{name}: not tested: {why}")));
            }
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
    target: &dyn Target,
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
        Verdict::Broken(why) => format!("not tested in {driver}: {why}"),
    }
}

/// `still in Mesa V` / `gone in Mesa V` / `changed in Mesa V` for this `repro` judged again on
/// the installed Mesa `version`: a process of its own (a process judges on one Mesa), given
/// this command line with `--mesa version`.
fn on_other_mesa(target: &dyn Target, f: &Finding, version: &str, deadline_secs: u64) -> String {
    let on = format!("Mesa {version}");
    let Ok(exe) = std::env::current_exe() else {
        return format!("{on}: not judged, cannot find this program");
    };
    let out = std::env::temp_dir().join(format!(
        "gpufuzz-also-mesa-{}-{version}.json",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&out);
    let status = Command::new(exe)
        .args(without_mesa_choice(std::env::args_os().skip(1)))
        .args([
            "--mesa",
            version,
            "--deadline-secs",
            &deadline_secs.to_string(),
        ])
        .arg("--finding-json")
        .arg(&out)
        .stdout(Stdio::null())
        .status();
    let verdict = std::fs::read_to_string(&out)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str::<Option<Finding>>(&t).map_err(|e| e.to_string()));
    let _ = std::fs::remove_file(&out);
    match (verdict, status) {
        (Ok(Some(g)), _) if target.same_bug(f, &g) => format!("still in {on}"),
        (Ok(Some(g)), _) => format!("changed in {on}: {g}"),
        (Ok(None), _) => format!("gone in {on}"),
        (Err(_), Ok(s)) => format!("{on}: no verdict (its repro ended with {s})"),
        (Err(e), Err(_)) => format!("{on}: not judged ({e})"),
    }
}

/// This process's arguments without what chooses Mesas (`--mesa`, `--also-mesa`, their
/// `=` forms) or the judging process's own flags.
fn without_mesa_choice(args: impl Iterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    const TAKING_A_VALUE: [&str; 4] =
        ["--mesa", "--also-mesa", "--deadline-secs", "--finding-json"];
    let mut kept = Vec::new();
    let mut skip_value = false;
    for arg in args {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        let text = arg.to_string_lossy();
        if TAKING_A_VALUE.contains(&text.as_ref()) {
            skip_value = true;
        } else if !(TAKING_A_VALUE
            .iter()
            .any(|f| text.starts_with(&format!("{f}=")))
            || text == "--guarded")
        {
            kept.push(arg);
        }
    }
    kept
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
fn judge_in_child(deadline: Duration) -> Result<ExitCode, CliError> {
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
