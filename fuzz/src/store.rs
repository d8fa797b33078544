//! Saving findings: one folder per finding under `OUT/findings/`, holding the raw input
//! (`input.bin`), the program text (`program.ir`) and a JSON record (`finding.json`) with the
//! command that reproduces it. A folder appears whole or not at all: it is written under a
//! temporary name and renamed.

use crate::finding::Finding;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The JSON record saved beside each finding.
#[derive(Serialize)]
pub struct FindingRecord<'a> {
    /// The finding.
    pub finding: &'a Finding,
    /// Bucket key.
    pub signature: String,
    /// Seed of the run that found it.
    pub seed: u64,
    /// Index of the input in that run.
    pub input_index: u64,
    /// The shell command that reproduces it.
    pub reproduce: String,
    /// What the finding's target ran on (e.g. the Vulkan device, driver and ICD), from
    /// `Pipeline::environment`: triage and repro re-judge it there.
    pub environment: &'a BTreeMap<String, String>,
    /// The gpufuzz that found it ([`crate::VERSION`]).
    pub gpufuzz: &'static str,
}

/// The command that re-runs a saved finding.
pub fn repro_command(dir: &Path, flags: &str) -> String {
    let mut cmd = format!("gpufuzz repro {}", dir.join("input.bin").display());
    if !flags.is_empty() {
        cmd.push(' ');
        cmd.push_str(flags);
    }
    cmd
}

/// What every finding of one run shares in its record.
pub struct Provenance<'a> {
    /// The extra `gpufuzz` flags its reproduce command needs.
    pub flags: &'a str,
    /// What the targets ran on.
    pub environment: &'a BTreeMap<String, String>,
    /// The run's seed.
    pub seed: u64,
}

/// Writes a finding's folder atomically and returns its path.
pub fn save_finding(
    out: &Path,
    f: &Finding,
    input: &[u8],
    program: Option<&str>,
    run: &Provenance,
    index: u64,
) -> io::Result<PathBuf> {
    let root = out.join("findings");
    fs::create_dir_all(&root)?;
    let name = format!("{}-{}-{:016x}", f.kind, f.target, fnv1a(input));
    let dir = root.join(&name);
    if dir.exists() {
        return Ok(dir);
    }
    let tmp = root.join(format!(".{name}.tmp"));
    let _ = fs::remove_dir_all(&tmp);
    fs::create_dir_all(&tmp)?;
    write_file(&tmp.join("input.bin"), input)?;
    if let Some(text) = program {
        write_file(&tmp.join("program.ir"), text.as_bytes())?;
    }
    let record = FindingRecord {
        finding: f,
        signature: f.signature(),
        seed: run.seed,
        input_index: index,
        reproduce: repro_command(&dir, run.flags),
        environment: run.environment,
        gpufuzz: crate::VERSION,
    };
    let json = serde_json::to_string_pretty(&record).map_err(io::Error::other)?;
    write_file(&tmp.join("finding.json"), json.as_bytes())?;
    fs::rename(&tmp, &dir)?;
    Ok(dir)
}

/// Writes a file through a temporary name and a rename, so readers never see half of it.
pub fn write_atomically(path: &Path, data: &[u8]) -> io::Result<()> {
    let tmp = path.with_extension("tmp");
    write_file(&tmp, data)?;
    fs::rename(&tmp, path)
}

fn write_file(path: &Path, data: &[u8]) -> io::Result<()> {
    let mut f = fs::File::create(path)?;
    f.write_all(data)?;
    f.sync_all()
}

/// FNV-1a, for stable file names from input bytes.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}
