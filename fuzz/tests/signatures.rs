//! Bucket keys do not move under a refactor: the signature (`kind:target:pass:class`) of every
//! finding among fixed inputs, with each planted bug on in turn and with none, is compared
//! with `corpus/signatures.txt`. A change that means to move them (a new class, a better
//! bucket) rewrites the file with `GPUFUZZ_BLESS=1 cargo test -p fuzz --test signatures`, and
//! the diff shows every bucket it moved. (A finding's folder name hashes its input bytes, which
//! no code change moves.)

use compiler::planted::{Plant, Plants};
use fuzz::finding::Verdict;
use fuzz::fuzz_loop::FuzzOptions;
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

/// Compares `now` with the recorded file `name` under `corpus/` (or rewrites it under
/// `GPUFUZZ_BLESS=1`), showing the first lines that moved.
fn compare_with_recorded(name: &str, now: &str) {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus")
        .join(name);
    if std::env::var_os("GPUFUZZ_BLESS").is_some() {
        std::fs::write(&file, now).unwrap();
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
        "{name}: {} line(s) recorded, {} now; first moved:\n{}\n(a change meant to move them: \
         GPUFUZZ_BLESS=1 cargo test -p fuzz --test signatures)",
        recorded.lines().count(),
        now.lines().count(),
        moved.join("\n")
    );
}

#[test]
fn every_finding_of_fixed_inputs_keeps_its_bucket() {
    let now = signatures();
    compare_with_recorded("signatures.txt", &now);
    // Not trivially true: the planted bugs are found.
    assert!(now.lines().count() > 20, "{now}");
}

/// The FNV-1a hash of a program's text: the decoded program, in a line.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Decoding never reads the machine and never moves under a refactor: every knob of the cases
/// fixed inputs decode to (every target's, the drivers' included) and a hash of the program
/// are compared with `corpus/decoded-cases.txt`, written on another machine.
#[test]
fn fixed_inputs_decode_to_the_recorded_cases() {
    let d = FuzzOptions::default();
    let mut now = String::new();
    let mut buf = Vec::new();
    for i in 0..300 {
        fuzz::rng::input_bytes(SEED, i, d.min_len, d.max_len, &mut buf);
        match oracle::decode(&buf) {
            Some(case) => {
                let knobs: Vec<String> = (case.config.knobs().into_iter())
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect();
                let program = compiler::ir::text::print_program(&case.program);
                writeln!(
                    now,
                    "{i} {:016x} passes={:x} {}",
                    fnv1a(&program),
                    case.config.disabled_passes,
                    knobs.join(" ")
                )
                .unwrap();
            }
            None => writeln!(now, "{i} no program").unwrap(),
        }
    }
    compare_with_recorded("decoded-cases.txt", &now);
}
