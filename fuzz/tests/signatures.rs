//! Bucket keys do not move under a refactor: the signature (`kind:target:pass:class`) of every
//! finding among fixed inputs, with each planted bug on in turn and with none, is compared
//! with `corpus/signatures.txt`. A change that means to move them (a new class, a better
//! bucket) rewrites the file with `GPUFUZZ_BLESS=1 cargo test -p fuzz --test signatures`, and
//! the diff shows every bucket it moved. (A finding's folder name hashes its input bytes, which
//! no code change moves.)

use compiler::planted::{Plant, Plants};
use fuzz::driver::FuzzOptions;
use fuzz::finding::Verdict;
use fuzz::oracle::{self, OracleOptions};
use std::fmt::Write as _;
use std::path::Path;

/// Inputs judged per configuration, from seed [`SEED`].
const INPUTS: u64 = 60;
const SEED: u64 = 45;

/// One line per finding: the configuration, the input's index, its signature.
fn signatures() -> String {
    let d = FuzzOptions::default();
    let mut plants: Vec<Option<Plant>> = vec![None];
    plants.extend(
        Plant::ALL
            .iter()
            .filter(|p| !p.test_only())
            .map(|&p| Some(p)),
    );
    let mut out = String::new();
    let mut buf = Vec::new();
    for plant in plants {
        let opts = OracleOptions {
            plants: plant.map_or(Plants::NONE, |p| Plants::NONE.with(p)),
            ..OracleOptions::default()
        };
        let name = plant.map_or("none", |p| p.name());
        for i in 0..INPUTS {
            fuzz::rng::input_bytes(SEED, i, d.min_len, d.max_len, &mut buf);
            if let Verdict::Finding(f) = oracle::judge_bytes(&buf, &opts).verdict {
                writeln!(out, "{name} {i} {}", f.signature()).unwrap();
            }
        }
    }
    out
}

#[test]
fn every_finding_of_fixed_inputs_keeps_its_bucket() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/signatures.txt");
    let now = signatures();
    if std::env::var_os("GPUFUZZ_BLESS").is_some() {
        std::fs::write(&file, &now).unwrap();
        return;
    }
    let recorded = std::fs::read_to_string(&file).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (GPUFUZZ_BLESS=1 cargo test -p fuzz --test signatures writes it)",
            file.display()
        )
    });
    let moved: Vec<String> = (recorded.lines().zip(now.lines()))
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("  was {a}\n  now {b}"))
        .take(10)
        .collect();
    assert!(
        recorded == now,
        "{} finding(s) recorded, {} now; first moved:\n{}\n(a change meant to move buckets: \
         GPUFUZZ_BLESS=1 cargo test -p fuzz --test signatures)",
        recorded.lines().count(),
        now.lines().count(),
        moved.join("\n")
    );
    // Not trivially true: the planted bugs are found.
    assert!(now.lines().count() > 20, "{now}");
}
