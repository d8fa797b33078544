//! A corpus's executed counts in a few lines, for `gpufuzz stats`: spill traffic and
//! predicate reloads summed over the programs, how many programs ran a spill and a fill (or a
//! reload), and the Gen sends executed by message type and payload/response length.

use super::StatsFile;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The summary of `file` (empty when it has no executed counters).
pub fn summary(file: &StatsFile) -> String {
    let mut out = String::new();
    let n = file.programs.len();
    if n == 0 || !file.measurements.iter().any(|m| m == "spills-run") {
        return out;
    }
    let total = |m: &str| -> u64 { file.programs.iter().filter_map(|p| p.stats.get(m)).sum() };
    let having = |pred: &dyn Fn(&BTreeMap<String, u64>) -> bool| {
        file.programs.iter().filter(|p| pred(&p.stats)).count()
    };
    let pct = |k: usize| 100.0 * k as f64 / n as f64;
    let get = |s: &BTreeMap<String, u64>, m: &str| s.get(m).copied().unwrap_or(0);
    let both = having(&|s| get(s, "spills-run") > 0 && get(s, "fills-run") > 0);
    let _ = writeln!(
        out,
        "executed: spill stores {}, fills {}{}, spill bytes {}; a spill and a fill ran in {both}/{n} programs ({:.1}%)",
        total("spills-run"),
        total("fills-run"),
        if file.measurements.iter().any(|m| m == "prefills-run") {
            format!(" (+ {} pre-fills)", total("prefills-run"))
        } else {
            String::new()
        },
        total("spill-bytes"),
        pct(both)
    );
    if file.measurements.iter().any(|m| m == "pred-reloads-run") {
        let reload = having(&|s| get(s, "pred-reloads-run") > 0);
        let three = having(&|s| get(s, "loop-pred-reloads") >= 3);
        let _ = writeln!(
            out,
            "executed: predicate reloads {} in {reload}/{n} programs ({:.1}%); 3 or more distinct in one loop in {three} ({:.1}%)",
            total("pred-reloads-run"),
            pct(reload),
            pct(three)
        );
    }
    let mut sends: BTreeMap<&str, u64> = BTreeMap::new();
    for p in &file.programs {
        for (k, v) in &p.stats {
            if let Some(shape) = k.strip_prefix("sent ") {
                *sends.entry(shape).or_default() += v;
            }
        }
    }
    if !sends.is_empty() {
        let _ = writeln!(out, "sends executed by type and length (mlen, rlen):");
        for (shape, count) in sends {
            let _ = writeln!(out, "  {shape:<32} {count}");
        }
    }
    out
}
