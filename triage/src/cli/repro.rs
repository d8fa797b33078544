//! `gpufuzz repro FILE`: re-judge one saved input (`input.bin`) or program (`.ir`).

use super::input;
use clap::Args;
use fuzz::finding::Verdict;
use fuzz::oracle::{self, Case, CaseConfig, OracleOptions};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct ReproArgs {
    /// A raw input (`input.bin` of a finding) or a program in the text format (`.ir`).
    file: PathBuf,
    /// Only these pipelines (repeatable); default all.
    #[arg(long = "target")]
    targets: Vec<String>,
    /// Print the program.
    #[arg(long)]
    print: bool,
}

pub fn run(a: ReproArgs) -> Result<ExitCode, String> {
    let opts = OracleOptions {
        targets: a.targets.clone(),
        ..OracleOptions::default()
    };
    let (case, judgement) = if input::is_ir(&a.file) {
        let case = Case {
            config: CaseConfig::default(),
            program: input::read_program(&a.file)?,
        };
        let j = oracle::judge(&case, &opts);
        (Some(case), j)
    } else {
        let bytes = input::read_bytes(&a.file)?;
        (oracle::decode(&bytes), oracle::judge_bytes(&bytes, &opts))
    };
    if a.print {
        if let Some(case) = &case {
            print!("{}", compiler::ir::text::print_program(&case.program));
        }
    }
    match judgement.verdict {
        Verdict::Pass => {
            println!("pass");
            Ok(ExitCode::SUCCESS)
        }
        Verdict::Rejected(r) => {
            println!("rejected: {r:?}");
            Ok(ExitCode::SUCCESS)
        }
        Verdict::Finding(f) => {
            println!("{f}");
            println!("signature: {}", f.signature());
            Ok(ExitCode::from(1))
        }
    }
}
