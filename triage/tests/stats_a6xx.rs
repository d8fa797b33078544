//! A real comparison on the a6xx backend over the checked-in corpus: `opt_predicates`
//! switched off, then on; and the a6xx measurements, named as ir3's shader-db names them.

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
fn predicate_folding_helps_nops_and_cat0_on_a6xx() {
    let e = entries();
    let off = run(&e, "a6xx", &["a6xx_opt_predicates=off"]);
    let on = run(&e, "a6xx", &[]);
    let c = compare(&off, &on, &[]);
    for m in ["nops", "cat0", "instructions"] {
        assert_eq!(stat(&c, m).verdict(), Some(Verdict::Helped), "{m}");
        assert!(stat(&c, m).hurt.is_empty(), "{m}");
    }
}

#[test]
fn a6xx_records_every_ir3_measurement() {
    let e = entries();
    let f = run(&e[..20], "a6xx", &["a6xx_predicates=1", "a6xx_wave128=on"]);
    for m in [
        "nops", "non-nops", "(ss)", "(sy)", "sstall", "systall", "cat0", "cat7", "waves",
    ] {
        assert!(f.measurements.iter().any(|x| x == m), "{m}");
    }
    for p in &f.programs {
        let s = &p.stats;
        assert_eq!(s["instructions"], s["nops"] + s["non-nops"], "{}", p.name);
        assert!(s["waves"] >= 1 && s["waves"] <= 16, "{}", p.name);
    }
}
