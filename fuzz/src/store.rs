//! Saving findings: one folder per finding under `OUT/findings/`, holding the raw input
//! (`input.bin`), the program text (`program.ir`) and a JSON record (`finding.json`) with the
//! command that reproduces it; a finding only a fused shader shows also keeps the inputs fused
//! with it (`batch/`), from which it reproduces. A folder appears whole or not at all: it is
//! written under a temporary name and renamed.

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
    /// For a finding only a fused shader shows: the batch it was judged in, saved as
    /// `batch/NN.bin` beside it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch: Option<BatchRecord>,
    /// What the finding's target ran on (e.g. the Vulkan device, driver and ICD), from
    /// `Target::environment`: triage and repro re-judge it there.
    pub environment: &'a BTreeMap<String, String>,
    /// The gpufuzz that found it ([`crate::VERSION`]).
    pub gpufuzz: &'static str,
}

/// Where a saved batch's inputs are, in a finding's folder.
pub const BATCH: &str = "batch";

/// The inputs judged together with a finding's (`--fuse`), in order, the finding's among
/// them: what rebuilds the fused shader it showed in.
pub struct Batch<'a> {
    /// The run's index of the first.
    pub first_index: u64,
    /// The inputs.
    pub inputs: &'a [Vec<u8>],
}

/// A saved batch, in `finding.json`.
#[derive(Serialize)]
pub struct BatchRecord {
    /// The run's index of its first input.
    pub first_index: u64,
    /// How many inputs it holds (`batch/00.bin` …).
    pub inputs: usize,
    /// The finding's own input's place in it, from 0.
    pub position: u64,
}

/// What reproduces the finding saved in `dir`: its batch if it has one, else its input.
pub fn repro_file(dir: &Path) -> PathBuf {
    let batch = dir.join(BATCH);
    if batch.is_dir() {
        batch
    } else {
        dir.join("input.bin")
    }
}

/// The command that re-runs the finding saved in `dir`.
pub fn repro_command(dir: &Path, flags: &str) -> String {
    command_for(&repro_file(dir), flags)
}

/// `gpufuzz repro FILE FLAGS`.
fn command_for(file: &Path, flags: &str) -> String {
    let mut cmd = format!("gpufuzz repro {}", file.display());
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

/// Writes a finding's folder atomically and returns its path; with `batch` (a finding only a
/// fused shader shows), the batch's inputs too.
pub fn save_finding(
    out: &Path,
    f: &Finding,
    input: &[u8],
    program: Option<&str>,
    run: &Provenance,
    index: u64,
    batch: Option<Batch>,
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
    let batch = match batch {
        Some(b) => {
            fs::create_dir_all(tmp.join(BATCH))?;
            for (k, bytes) in b.inputs.iter().enumerate() {
                write_file(&tmp.join(BATCH).join(batch_file(k)), bytes)?;
            }
            Some(BatchRecord {
                first_index: b.first_index,
                inputs: b.inputs.len(),
                position: index - b.first_index,
            })
        }
        None => None,
    };
    let file = if batch.is_some() { BATCH } else { "input.bin" };
    let record = FindingRecord {
        finding: f,
        signature: f.signature(),
        seed: run.seed,
        input_index: index,
        reproduce: command_for(&dir.join(file), run.flags),
        batch,
        environment: run.environment,
        gpufuzz: crate::VERSION,
    };
    let json = serde_json::to_string_pretty(&record).map_err(io::Error::other)?;
    write_file(&tmp.join("finding.json"), json.as_bytes())?;
    fs::rename(&tmp, &dir)?;
    Ok(dir)
}

/// The name of a batch's `k`th input: `NN.bin`, in order by name.
pub fn batch_file(k: usize) -> String {
    format!("{k:02}.bin")
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
