//! libFuzzer's findings brought into the fuzz loop's form, so `gpufuzz triage` takes a
//! libFuzzer artifact folder (`fuzz/artifacts/diff/`) as it takes a `gpufuzz fuzz --out`
//! folder.
//!
//! libFuzzer names what it keeps `crash-<sha1>` (a finding panicked the `diff` target),
//! `timeout-…`, `oom-…` and `slow-unit-…`, each holding the input alone (raw bytes or, under
//! the structure-aware mutator, a case file). Each one not yet imported is judged again here
//! with the planted bugs triage is told about; one that reproduces is saved as a finding
//! folder (`DIR/findings/<kind>-<target>-<hash>/`, [`fuzz::store`]) with its reproduce
//! command, and the usual triage takes it from there. One that does not reproduce in this
//! process (a timeout or an out-of-memory that depended on libFuzzer's limits, or a finding
//! under plants triage was not told about) is listed with why, never dropped silently.

use crate::Error;
use compiler::planted::Plants;
use fuzz::case::text as case_file;
use fuzz::finding::Verdict;
use fuzz::oracle::OracleOptions;
use std::path::{Path, PathBuf};

/// The file-name prefixes libFuzzer gives the inputs it keeps.
pub const PREFIXES: &[&str] = &["crash-", "timeout-", "oom-", "slow-unit-", "leak-"];

/// What an import did.
#[derive(Debug, Default)]
pub struct Imported {
    /// Artifacts saved as finding folders now.
    pub saved: Vec<PathBuf>,
    /// Artifacts that did not reproduce here, with why.
    pub unreproduced: Vec<(String, Error)>,
}

/// libFuzzer's artifacts directly in `dir`, sorted by name.
pub fn artifacts(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .filter(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            PREFIXES.iter().any(|pre| name.starts_with(pre))
        })
        .collect();
    v.sort();
    v
}

/// Judges every artifact in `dir` not imported before (`DIR/findings/.imported` lists those
/// that were) with `plants` on, and saves those that reproduce as finding folders.
pub fn import(dir: &Path, plants: Plants) -> Result<Imported, Error> {
    let list = dir.join("findings").join(".imported");
    let mut done: Vec<String> = std::fs::read_to_string(&list)
        .map(|s| s.lines().map(String::from).collect())
        .unwrap_or_default();
    let opts = OracleOptions {
        plants,
        ..OracleOptions::default()
    };
    let flags: String = plants.iter().map(|p| format!("--plant {p} ")).collect();
    let environment = Default::default();
    let run = fuzz::store::Provenance {
        flags: flags.trim_end(),
        environment: &environment,
        seed: 0,
    };
    let mut out = Imported::default();
    for path in artifacts(dir) {
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        if done.contains(&name) {
            continue;
        }
        let bytes = std::fs::read(&path).map_err(Error::io(&path))?;
        match judge(&bytes, &path, &opts) {
            Ok((f, program)) => {
                let saved =
                    fuzz::store::save_finding(dir, &f, &bytes, program.as_deref(), &run, 0, None)
                        .map_err(|error| Error::NotSaved {
                        path: path.clone(),
                        error,
                    })?;
                out.saved.push(saved);
            }
            Err(why) => out.unreproduced.push((name.clone(), why)),
        }
        done.push(name);
        // Named after the list, not the folder: the list is what could not be kept.
        std::fs::create_dir_all(dir.join("findings")).map_err(Error::io(&list))?;
        fuzz::store::write_atomically(&list, (done.join("\n") + "\n").as_bytes())
            .map_err(Error::io(&list))?;
    }
    Ok(out)
}

/// The finding an artifact shows, and its case file.
fn judge(
    bytes: &[u8],
    path: &Path,
    opts: &OracleOptions,
) -> Result<(Box<fuzz::finding::Finding>, Option<String>), Error> {
    let Some(j) = fuzz::libfuzzer::judge_input(bytes, opts) else {
        let name = path.display().to_string();
        // `judge_input` refuses only a case file that does not read: reading it again says why.
        return Err(Error::Fuzz(match case_file::read_input(bytes, &name) {
            Err(e) => e,
            Ok(_) => fuzz::Error::NoProgram { name },
        }));
    };
    match j.verdict {
        Verdict::Finding(f) => Ok((f, j.program_text)),
        Verdict::Pass => Err(Error::PassesHere),
        Verdict::Rejected(r) => Err(Error::RejectedHere(r)),
        Verdict::Broken(why) => Err(Error::BrokenHere(why)),
    }
}
