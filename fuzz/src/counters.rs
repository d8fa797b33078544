//! A fuzz run's counters ([`FuzzStats`], what `--stats-json` and `OUT/summary.json` hold) and
//! their status lines, and what judging one input adds to them ([`Judged`]): shared by the
//! loop (`crate::fuzz_loop`) and its worker processes (`crate::worker`).

use crate::finding::{Finding, FindingKind, Rejection, Verdict};
use crate::oracle::Judgement;
use crate::reach::Reach;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;

/// Counters of a run; `--stats-json` writes them.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct FuzzStats {
    /// Inputs judged.
    pub programs: u64,
    /// Inputs rejected, by reason.
    pub rejected: BTreeMap<String, u64>,
    /// Findings by kind (every hit).
    pub findings: BTreeMap<String, u64>,
    /// Hits per signature.
    pub signatures: BTreeMap<String, u64>,
    /// Programs that ran some loop back-edge twice or more in some invocation.
    pub loops_taken_twice: u64,
    /// Programs with a branch that diverged within one group of 8 invocations.
    pub divergent_simd8: u64,
    /// Compiles that spilled registers.
    pub spills: u64,
    /// Compiles that trimmed a SEND payload.
    pub trimmed_sends: u64,
    /// Programs some target ran correctly but past the simulator's cycle budget (`slow`).
    pub slow: u64,
    /// Programs in which at least one spill store and one fill of spill code executed, per
    /// pipeline.
    pub spill_fill_executed: BTreeMap<String, u64>,
    /// What the backends' allocators executed, against the goals (`crate::reach`).
    pub reach: Reach,
    /// Programs each optional pass changed (the pass-firing table).
    pub pass_fired: BTreeMap<String, u64>,
    /// Programs a pipeline could not judge, by `pipeline: reason` (e.g. lavapipe's
    /// loop-iteration limit).
    pub skipped: BTreeMap<String, u64>,
    /// Real machine code our decoders read, per target: instructions captured and those
    /// decoded (the rest are counted in `skipped` by reason).
    pub decoded: BTreeMap<String, Decoded>,
    /// Inputs still being judged when `--time` ran out, left unjudged (neither passed nor
    /// found anything; a resumed run does not judge them again).
    pub abandoned: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Inputs per second.
    pub programs_per_second: f64,
    /// Saved findings (folders under OUT/findings).
    pub saved: Vec<String>,
    /// Findings that could not be saved (the run stopped at the first).
    pub save_errors: Vec<String>,
    /// Inputs that tested nothing because a target's infrastructure failed
    /// ([`Verdict::Broken`]), by what broke: neither passed nor found anything.
    pub broken: BTreeMap<String, u64>,
    /// Why the run stopped early, when its targets stopped working (`None` otherwise).
    pub stopped: Option<String>,
    /// Seconds spent judging the inputs of `broken` (a batch's time shared out evenly among
    /// its inputs), summed over threads.
    pub untested_seconds: f64,
    /// What the targets ran on (`Target::environment`: the Mesa, its drivers' and
    /// SPIRV-Tools' versions), as every finding records it.
    pub environment: BTreeMap<String, String>,
}

/// Instructions of real machine code captured, and how many our decoder read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decoded {
    /// Instructions captured.
    pub instructions: u64,
    /// Those decoded.
    pub decoded: u64,
}

impl FuzzStats {
    /// Total findings of all kinds.
    pub fn total_findings(&self) -> u64 {
        self.findings.values().sum()
    }

    /// Counts one judged input.
    pub fn record(&mut self, j: &Judgement) {
        self.programs += 1;
        let c = &j.coverage;
        self.loops_taken_twice += u64::from(c.loop_back_edge_twice);
        self.divergent_simd8 += u64::from(c.divergent_simd8);
        self.spills += u64::from(c.spills);
        self.trimmed_sends += u64::from(c.trimmed_sends);
        self.slow += u64::from(c.slow);
        for pass in &c.passes_changed {
            *self.pass_fired.entry((*pass).to_string()).or_default() += 1;
        }
        for (target, e) in &c.executed {
            if e.spilled_and_filled() {
                *self
                    .spill_fill_executed
                    .entry(target.to_string())
                    .or_default() += 1;
            }
        }
        self.reach.record(c);
        for why in &c.skipped {
            *self.skipped.entry(why.clone()).or_default() += 1;
        }
        for (target, (n, read)) in &c.decoded {
            let d = self.decoded.entry(target.to_string()).or_default();
            d.instructions += n;
            d.decoded += read;
        }
        match &j.verdict {
            Verdict::Pass => {}
            Verdict::Rejected(r) => {
                *self.rejected.entry(rejection_name(*r).into()).or_default() += 1
            }
            Verdict::Finding(f) => {
                *self.findings.entry(f.kind.name().into()).or_default() += 1;
                *self.signatures.entry(f.signature()).or_default() += 1;
            }
            Verdict::Broken(why) => *self.broken.entry(why.clone()).or_default() += 1,
        }
    }

    /// The libFuzzer-like one-line status, at most [`STATUS_WIDTH`] characters: the run's
    /// essentials first, then as many of the generator's health figures as fit
    /// ([`FuzzStats::status_detail`] has the rest).
    pub fn status_line(&self, elapsed: Duration) -> String {
        let secs = elapsed.as_secs_f64().max(1e-9);
        let pct = |n: u64| 100.0 * n as f64 / self.programs.max(1) as f64;
        let rejected: u64 = self.rejected.values().sum();
        let mut s = format!(
            "#{} {:.0}s {:.0} prog/s | findings {}",
            self.programs,
            secs,
            self.programs as f64 / secs,
            self.total_findings()
        );
        let mut kinds = String::new();
        for kind in FindingKind::ALL {
            if let Some(n) = self.findings.get(kind.name()) {
                kinds.push_str(&format!(" {kind}:{n}"));
            }
        }
        let skipped: u64 = self.skipped.values().sum();
        let optional = [
            kinds,
            format!(" | rejected {:.1}%", pct(rejected)),
            format!(
                " | loops>=2 {:.0}% diverge {:.0}%",
                pct(self.loops_taken_twice),
                pct(self.divergent_simd8)
            ),
            if self.slow > 0 {
                format!(" | slow {}", self.slow)
            } else {
                String::new()
            },
            if skipped > 0 {
                format!(" | skipped {skipped}")
            } else {
                String::new()
            },
            match self.broken.values().sum::<u64>() {
                0 => String::new(),
                n => format!(" | untested {n}"),
            },
            if self.abandoned > 0 {
                format!(" | abandoned {}", self.abandoned)
            } else {
                String::new()
            },
        ];
        for part in optional {
            if s.chars().count() + part.chars().count() <= STATUS_WIDTH {
                s.push_str(&part);
            }
        }
        s
    }

    /// What the backends executed, for a second status line on request (`--reach`): spilling
    /// compiles, trimmed sends, and the shares of programs whose spill code and predicate
    /// reloads ran.
    pub fn status_detail(&self) -> String {
        let pct = |n: u64| 100.0 * n as f64 / self.programs.max(1) as f64;
        let mut s = format!("  spills {} trimmed {}", self.spills, self.trimmed_sends);
        if !self.spill_fill_executed.is_empty() {
            s.push_str(" | spill+fill ran");
            for (target, n) in &self.spill_fill_executed {
                s.push_str(&format!(" {target} {:.0}%", pct(*n)));
            }
        }
        s.push_str(&self.reach.status());
        s
    }
}

/// The widest status line: a terminal's 100 columns, so it never wraps.
pub const STATUS_WIDTH: usize = 100;

fn rejection_name(r: Rejection) -> &'static str {
    match r {
        Rejection::OutOfFuel => "out-of-fuel",
        Rejection::NoProgram => "no-program",
    }
}

/// What judging one input left for the loop: the counters it adds and the finding to save.
pub struct Judged {
    /// This input's counters (one program).
    pub stats: FuzzStats,
    /// The finding and the case text, if any.
    pub finding: Option<(Box<Finding>, Option<String>)>,
}

/// Adds `from`'s counters to `into`.
pub fn merge(into: &mut FuzzStats, from: FuzzStats) {
    into.programs += from.programs;
    into.loops_taken_twice += from.loops_taken_twice;
    into.divergent_simd8 += from.divergent_simd8;
    into.spills += from.spills;
    into.trimmed_sends += from.trimmed_sends;
    into.slow += from.slow;
    into.abandoned += from.abandoned;
    into.save_errors.extend(from.save_errors);
    into.stopped = into.stopped.take().or(from.stopped);
    into.untested_seconds += from.untested_seconds;
    into.reach.merge(&from.reach);
    for (maps_into, maps_from) in [
        (&mut into.rejected, from.rejected),
        (&mut into.findings, from.findings),
        (&mut into.signatures, from.signatures),
        (&mut into.pass_fired, from.pass_fired),
        (&mut into.skipped, from.skipped),
        (&mut into.spill_fill_executed, from.spill_fill_executed),
        (&mut into.broken, from.broken),
    ] {
        for (k, v) in maps_from {
            *maps_into.entry(k).or_default() += v;
        }
    }
    for (k, v) in from.decoded {
        let d = into.decoded.entry(k).or_default();
        d.instructions += v.instructions;
        d.decoded += v.decoded;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_line_fits_a_terminal_however_large_the_counts() {
        let mut s = FuzzStats {
            programs: 123_456_789,
            slow: 123_456,
            abandoned: 12,
            ..FuzzStats::default()
        };
        for kind in FindingKind::ALL {
            s.findings.insert(kind.name().into(), 99_999);
        }
        s.rejected.insert("out-of-fuel".into(), 1_234_567);
        s.skipped.insert("vulkan: loop limit".into(), 7_654_321);
        let line = s.status_line(Duration::from_secs(86_400 * 7));
        assert!(line.chars().count() <= STATUS_WIDTH, "{line}");
        // The essentials are always there; what did not fit is left out whole.
        assert!(line.starts_with("#123456789 604800s "), "{line}");
        assert!(line.contains("findings "), "{line}");
        let small = FuzzStats {
            programs: 10,
            ..FuzzStats::default()
        };
        let line = small.status_line(Duration::from_secs(1));
        assert_eq!(
            line,
            "#10 1s 10 prog/s | findings 0 | rejected 0.0% | loops>=2 0% diverge 0%"
        );
    }
}
