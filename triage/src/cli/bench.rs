//! `gpufuzz bench`: end-to-end fuzzing throughput on one core, with the time split by stage
//! (generate, verify, interpret, each pipeline) and each pipeline split by phase
//! ([`compiler::profile`]) — the numbers docs/performance.md quotes. With a target that fuses
//! programs (`vulkan`), the oracle's rate unfused and fused, back to back (docs/fusion.md).

use super::config::DriverArgs;
use super::error::CliError;
use super::shapes::{self, Shape};
use clap::Args;
use compiler::interp::{Interpreter, RunOptions};
use compiler::ir::verify;
use compiler::profile::{self, Phase};
use fuzz::oracle::{self, Coverage, OracleOptions};
use fuzz::rng;
use fuzz::targets::{self, middle, Target};
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Programs to run.
    #[arg(long, default_value_t = 3000, value_parser = clap::value_parser!(u64).range(1..))]
    programs: u64,
    /// Seed of the inputs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Only these pipelines (repeatable; `all` for every one); default the default set.
    /// A target that times its own parts (`vulkan`: emit, pipeline creation, dispatch) is
    /// split into them.
    #[arg(long = "target", value_name = "T")]
    targets: Vec<String>,
    /// With a target that fuses (vulkan): after the split, the same programs judged by the
    /// oracle one at a time and then N at a time, back to back (repeatable: one line per N)
    /// [default: gpufuzz fuzz's --fuse default].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    fuse: Vec<u16>,
    /// After the split, the N programs a target took longest on, each with its time and shape
    /// (size, loops, instruction histogram): which shapes a driver compiles slowly.
    #[arg(long, value_name = "N", default_value_t = 0)]
    slowest: usize,
    #[command(flatten)]
    driver: DriverArgs,
}

pub fn run(a: BenchArgs) -> Result<ExitCode, CliError> {
    let opts = OracleOptions {
        vulkan: a.driver.vulkan(),
        ..OracleOptions::default()
    };
    let chosen: Vec<&dyn Target> = targets::all()
        .iter()
        .copied()
        .filter(|p| {
            if a.targets.is_empty() {
                p.in_default_set()
            } else {
                a.targets.iter().any(|t| t == p.name() || t == "all")
            }
        })
        .collect();
    for p in &chosen {
        if let Some(line) = p.prepare(&opts)? {
            println!("{line}");
        }
    }
    let mut buf = Vec::new();
    let mut interp = Interpreter::new();
    let names: Vec<&str> = chosen.iter().map(|p| p.name()).collect();
    let mut stage = vec![Duration::ZERO; 4 + names.len()];
    // The parts of the targets that time their own (`Target::timed_parts`), and how many
    // programs each did not run.
    let mut parts: Vec<Vec<Duration>> = (chosen.iter())
        .map(|p| vec![Duration::ZERO; p.timed_parts().len()])
        .collect();
    let mut not_run = vec![0u64; chosen.len()];
    // Each program's time and shape, per target (`--slowest`).
    let mut timed: Vec<Vec<(u64, Duration, Shape)>> = vec![Vec::new(); chosen.len()];
    let mut phases = vec![profile::Times::default(); names.len()];
    profile::enable();
    profile::take();
    let (mut insts, mut executed) = (0u64, 0u64);
    let start = Instant::now();
    for i in 0..a.programs {
        rng::input_bytes(a.seed, i, 64, 2048, &mut buf);
        let t = Instant::now();
        let Some(case) = oracle::decode(&buf) else {
            continue;
        };
        stage[0] += t.elapsed();
        insts += case.program.func.inst_count() as u64;
        let t = Instant::now();
        let ok = verify::verify(&case.program).is_ok();
        stage[1] += t.elapsed();
        let t = Instant::now();
        let run = interp.run_with_stats(
            &case.program,
            &RunOptions {
                fuel: opts.fuel,
                ..RunOptions::default()
            },
        );
        stage[2] += t.elapsed();
        let Ok((_, stats)) = run else { continue };
        executed += stats.executed_insts;
        if !ok {
            continue;
        }
        let t = Instant::now();
        let optimised = middle::optimise_verified(&case, &opts, &mut Coverage::default());
        stage[3] += t.elapsed();
        let Ok(optimised) = optimised else { continue };
        for (k, p) in chosen.iter().enumerate() {
            let t = Instant::now();
            if p.timed_parts().is_empty() {
                let _ = p.run(&case, &optimised, &opts, &mut Coverage::default());
            } else {
                match p.timed_run(&case, &optimised, &opts) {
                    Ok(times) => {
                        for (sum, d) in parts[k].iter_mut().zip(times) {
                            *sum += d;
                        }
                    }
                    Err(_) => not_run[k] += 1,
                }
            }
            stage[4 + k] += t.elapsed();
            if a.slowest > 0 {
                let shape = Shape::of(&optimised, stats.executed_insts);
                timed[k].push((i, t.elapsed(), shape));
            }
            for (sum, d) in phases[k].iter_mut().zip(profile::take()) {
                *sum += d;
            }
        }
    }
    let total = start.elapsed().as_secs_f64();
    println!(
        "{} programs in {total:.2}s: {:.0} programs/s end to end on one core",
        a.programs,
        a.programs as f64 / total
    );
    println!(
        "average program: {:.0} IR instructions, {:.0} executed over all invocations",
        insts as f64 / a.programs as f64,
        executed as f64 / a.programs as f64
    );
    println!(
        "interpreter: {:.1} M executed IR instructions/s",
        executed as f64 / stage[2].as_secs_f64() / 1e6
    );
    let labels = ["generate", "verify", "interpret", "optimise"]
        .into_iter()
        .chain(names.iter().copied());
    let per_program = |d: &Duration| d.as_secs_f64() * 1e6 / a.programs as f64;
    let row = |label: &str, d: &Duration| {
        println!(
            "  {label:<10} {:>8.1} us/program  {:>5.1}%",
            per_program(d),
            100.0 * d.as_secs_f64() / total
        );
    };
    for (k, (label, d)) in labels.zip(&stage).enumerate() {
        row(label, d);
        let Some(p) = k.checked_sub(4) else {
            continue;
        };
        let timed = chosen[p].timed_parts();
        if !timed.is_empty() {
            for (part, d) in timed.iter().zip(&parts[p]) {
                row(&format!("  {part}"), d);
            }
            if not_run[p] > 0 {
                println!(
                    "  ({} programs not run on the device: emitter refusals or runner errors)",
                    not_run[p]
                );
            }
            continue;
        }
        let split = &phases[p];
        let mut line = String::new();
        for (phase, t) in Phase::ALL.iter().zip(split) {
            if !t.is_zero() {
                line += &format!(" {} {:.0}", phase.name(), per_program(t));
            }
        }
        let rest = d.saturating_sub(split.iter().sum());
        println!("      {line} other {:.0}", per_program(&rest));
    }
    let against: Vec<(&str, bool)> = (chosen.iter())
        .map(|p| (p.name(), p.bench_against_interpreter()))
        .collect();
    println!("{}", ratios(&stage, &against, total));
    for (p, timed) in chosen.iter().zip(&timed).filter(|_| a.slowest > 0) {
        println!("slowest on {}:", p.name());
        shapes::slowest(timed, a.slowest)
            .iter()
            .for_each(|l| println!("{l}"));
    }
    if chosen.iter().any(|p| p.fuses()) {
        let opts = OracleOptions {
            targets: names.iter().map(|n| n.to_string()).collect(),
            ..opts
        };
        fusion(&a, &opts);
    } else if !a.fuse.is_empty() {
        return Err(CliError::Usage(
            "--fuse: none of the chosen targets fuses programs (vulkan does)".into(),
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// Programs/s of the oracle (`gpufuzz fuzz`'s judge, on the chosen targets) over the bench's
/// programs judged one at a time, then in batches of each `--fuse` value, back to back.
fn fusion(a: &BenchArgs, opts: &OracleOptions) {
    let inputs: Vec<Vec<u8>> = (0..a.programs)
        .map(|i| {
            let mut buf = Vec::new();
            rng::input_bytes(a.seed, i, 64, 2048, &mut buf);
            buf
        })
        .collect();
    let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    let fuse: Vec<usize> = if a.fuse.is_empty() {
        vec![oracle::DEFAULT_FUSE]
    } else {
        a.fuse.iter().map(|&n| usize::from(n)).collect()
    };
    println!(
        "fusion: the oracle over the same {} programs, back to back",
        a.programs
    );
    let mut alone = 0.0;
    for n in std::iter::once(1).chain(fuse) {
        let start = Instant::now();
        let mut findings = 0;
        for batch in refs.chunks(n) {
            let judged = if n == 1 {
                vec![oracle::judge_bytes(batch[0], opts)]
            } else {
                oracle::judge_batch(batch, opts)
            };
            findings += judged
                .iter()
                .filter(|j| matches!(j.verdict, fuzz::finding::Verdict::Finding(_)))
                .count();
        }
        let rate = a.programs as f64 / start.elapsed().as_secs_f64();
        if n == 1 {
            alone = rate;
        }
        println!(
            "  --fuse {n:<3} {:>7.2}s  {rate:>7.1} programs/s  {:>5.2}x  ({findings} findings)",
            start.elapsed().as_secs_f64(),
            rate / alone
        );
    }
}

/// The figures issue 16's goals are stated in: each backend pipeline's time over the
/// interpreter's for the same programs, and the whole loop's over generating and interpreting
/// once (the floor no design goes under). `stage` is generate, verify, interpret, optimise,
/// then each pipeline of `pipelines`, named with whether its time is held against the
/// interpreter's (`Target::bench_against_interpreter`).
fn ratios(stage: &[Duration], pipelines: &[(&str, bool)], total: f64) -> String {
    let interpret = stage[2].as_secs_f64().max(1e-9);
    let mut line = String::from("ratios:");
    for ((name, against), d) in pipelines.iter().zip(&stage[4..]) {
        if *against {
            line += &format!(" {name} {:.1}x interpret,", d.as_secs_f64() / interpret);
        }
    }
    let floor = (stage[0] + stage[2]).as_secs_f64().max(1e-9);
    line + &format!(" whole loop {:.1}x (generate + interpret)", total / floor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_divide_by_the_interpreter_and_the_floor() {
        let ms = Duration::from_millis;
        let stage = [ms(1), ms(1), ms(4), ms(3), ms(2), ms(10), ms(6)];
        let line = ratios(
            &stage,
            &[("middle", false), ("gen8", true), ("a6xx", true)],
            0.05,
        );
        assert_eq!(
            line,
            "ratios: gen8 2.5x interpret, a6xx 1.5x interpret, whole loop 10.0x (generate + interpret)"
        );
    }
}
