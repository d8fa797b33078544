//! `gpufuzz repro FILE`: re-judge one saved input (`input.bin`) or program (`.ir`), with the
//! configuration the flags give; on a finding, also bisect and print the bug's signature.

use super::config::ConfigArgs;
use super::input;
use clap::Args;
use fuzz::finding::Verdict;
use fuzz::oracle::{self, Case};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct ReproArgs {
    /// A raw input (`input.bin` of a finding) or a program in the text format (`.ir`).
    file: PathBuf,
    #[command(flatten)]
    config: ConfigArgs,
    /// Print the program.
    #[arg(long)]
    print: bool,
}

pub fn run(a: ReproArgs) -> Result<ExitCode, String> {
    let opts = a.config.oracle()?;
    let (case, judgement) = if input::is_ir(&a.file) {
        let case = Case {
            config: a.config.case_config()?,
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
            if let Some(case) = &case {
                let pass = triage::bisect::first_bad_pass(case, &opts, &f);
                let sig = triage::signature::Signature {
                    kind: f.kind,
                    target: f.target.clone(),
                    first_bad_pass: pass,
                    class: f.class.clone(),
                };
                println!("bug: {sig}");
            }
            Ok(ExitCode::from(1))
        }
    }
}
