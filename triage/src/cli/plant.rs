//! `gpufuzz plant [--list] [NAME]`: the catalog of planted bugs (name, pass, targets, story),
//! and whether their targets are registered pipelines yet.

use super::error::CliError;
use clap::Args;
use compiler::planted::Plant;
use std::process::ExitCode;
use triage::selftest;

#[derive(Args, Debug)]
pub struct PlantArgs {
    /// List the whole catalog (the default).
    #[arg(long)]
    list: bool,
    /// Show one planted bug only.
    name: Option<String>,
}

pub fn run(a: PlantArgs) -> Result<ExitCode, CliError> {
    let plants: Vec<Plant> = match &a.name {
        Some(name) if !a.list => vec![Plant::from_name(name).ok_or_else(|| {
            format!("unknown plant {name:?}; `gpufuzz plant --list` shows the catalog")
        })?],
        _ => Plant::ALL.to_vec(),
    };
    let w = plants.iter().map(|p| p.name().len()).max().unwrap_or(0);
    let pw = plants.iter().map(|p| p.pass().len()).max().unwrap_or(0);
    println!("{:w$}  {:pw$}  {:10}  story", "name", "pass", "targets");
    for p in plants {
        let note = match selftest::targets_of(p) {
            Ok(_) => String::new(),
            Err(missing) => format!(" [target not available: {}]", missing.join(" ")),
        };
        println!(
            "{:w$}  {:pw$}  {:10}  {}{note}",
            p.name(),
            p.pass(),
            p.targets(),
            p.story()
        );
    }
    Ok(ExitCode::SUCCESS)
}
