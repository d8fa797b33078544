//! A real comparison on the Gen backend over the checked-in corpus: `opt_zero_samples` on
//! gen9 SIMD8, switched off, then on. Trimming trailing zero sampler parameters shortens
//! messages, so total `mlen` goes down, instructions are helped, and nothing is HURT (except
//! possibly operand-wait cycles, which move with the schedule).

use std::path::Path;
use triage::stats::collect::collect;
use triage::stats::compare::{compare, Comparison, StatComparison, Verdict};
use triage::stats::corpus::{self, Entry};
use triage::stats::options::{self, Settings};
use triage::stats::StatsFile;

fn entries() -> Vec<Entry> {
    corpus::load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/stats")).unwrap()
}

fn run(entries: &[Entry], target: &str, config: &[&str]) -> StatsFile {
    let config: Vec<String> = config.iter().map(|s| s.to_string()).collect();
    let settings = Settings::parse(options::target(target).unwrap(), &config).unwrap();
    let f = collect(entries, &settings, "corpus/stats", &config);
    assert!(
        f.failed.is_empty(),
        "{target}: {:?}",
        &f.failed[..f.failed.len().min(3)]
    );
    f
}

fn stat<'a>(c: &'a Comparison, m: &str) -> &'a StatComparison {
    c.stats.iter().find(|s| s.measurement == m).unwrap()
}

#[test]
fn zero_samples_cut_mlen_and_help_instructions_on_gen9() {
    let e = entries();
    let off = run(&e, "gen8", &["gen9=on", "gen_zero_samples=off"]);
    let on = run(&e, "gen8", &["gen9=on"]);
    let c = compare(&off, &on, &[]);
    let mlen = stat(&c, "mlen");
    assert!(mlen.total_after < mlen.total_before, "{mlen:?}");
    assert_eq!(mlen.verdict(), Some(Verdict::Helped));
    let inst = stat(&c, "instructions");
    assert!(!inst.helped.is_empty(), "{inst:?}");
    assert_eq!(inst.verdict(), Some(Verdict::Helped));
    for s in &c.stats {
        if s.measurement != "stalls" {
            assert!(s.hurt.is_empty(), "{} HURT: {:?}", s.measurement, s.hurt);
        }
    }
}

#[test]
fn gen16_and_gen7_compile_the_corpus() {
    let e = entries();
    let f = run(&e[..24], "gen16", &["gen9=off"]);
    assert_eq!(f.programs.len(), 24);
    assert!(f.programs.iter().all(|p| p.stats["registers"] <= 128));
    // A starved budget spills (or fails to allocate, which is recorded, not fatal).
    let config = vec!["gen_grfs=16".to_string()];
    let settings = Settings::parse(options::target("gen16").unwrap(), &config).unwrap();
    let f = collect(&e[..24], &settings, "corpus/stats", &config);
    assert_eq!(f.programs.len() + f.failed.len(), 24);
    assert!(
        f.failed
            .iter()
            .all(|x| x.error.contains("no register left")),
        "{:?}",
        f.failed
    );
    assert!(f.programs.iter().map(|p| p.stats["spills"]).sum::<u64>() > 0);
}
