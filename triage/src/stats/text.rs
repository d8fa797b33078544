//! The text report, line for line in the layout of Mesa's shader-db `report.py` (what Mesa
//! merge requests paste): per measurement the shared and affected totals, helped and HURT
//! counts, their statistics, the confidence intervals and the verdict; then LOST and GAINED.

use super::compare::{Change, Comparison, StatComparison, Summary, Verdict};
use super::cost::{worst, BudgetCost};
use super::counts_only;
use std::fmt::Write;

/// What to print besides the summary blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextOptions {
    /// Skip measurements nothing changed (report.py `--changes-only`).
    pub changes_only: bool,
    /// List every helped and HURT program before the summaries (report.py without
    /// `--summary-only`).
    pub list_programs: bool,
}

/// A fraction as report.py prints it: two decimals of a percent, `<.01%` when tiny.
pub fn format_percent(frac: f64) -> String {
    if frac != 0.0 && frac.abs() < 0.0001 {
        "<.01%".to_string()
    } else {
        format!("{:.2}%", frac * 100.0)
    }
}

/// `before -> after (±x.xx%)`, the percentage left out when either side is 0.
pub fn change(before: u64, after: u64) -> String {
    if before != 0 && after != 0 {
        let frac = after as f64 / before as f64 - 1.0;
        format!("{before} -> {after} ({})", format_percent(frac))
    } else {
        format!("{before} -> {after}")
    }
}

/// The verdict line.
pub fn verdict_line(measurement: &str, v: Verdict) -> String {
    match v {
        Verdict::Helped => format!("{} are helped.", capitalize(measurement)),
        Verdict::Hurt => format!("{} are HURT.", capitalize(measurement)),
        Verdict::InconclusiveValue => {
            "Inconclusive result (value mean confidence interval includes 0).".to_string()
        }
        Verdict::InconclusivePercent => {
            "Inconclusive result (%-change mean confidence interval includes 0).".to_string()
        }
        Verdict::InconclusiveDisagree => "Inconclusive result (value mean confidence interval \
             and %-change mean confidence interval disagree)."
            .to_string(),
    }
}

/// Python's `str.capitalize`: first character upper case, the rest lower case.
fn capitalize(s: &str) -> String {
    let mut cs = s.chars();
    match cs.next() {
        Some(c) => c
            .to_uppercase()
            .chain(cs.flat_map(char::to_lowercase))
            .collect(),
        None => String::new(),
    }
}

/// A whole number without decimals, anything else with two.
fn num(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

fn summary_lines(out: &mut String, label: &str, pad: &str, s: &Summary) {
    let _ = writeln!(
        out,
        "{label} stats (abs){pad} min: {} max: {} x\u{304}: {:.2} x\u{303}: {}",
        num(s.min_abs),
        num(s.max_abs),
        s.mean_abs,
        s.median_abs.trunc()
    );
    let _ = writeln!(
        out,
        "{label} stats (rel){pad} min: {} max: {} x\u{304}: {} x\u{303}: {}",
        format_percent(s.min_rel),
        format_percent(s.max_rel),
        format_percent(s.mean_rel),
        format_percent(s.median_rel)
    );
}

/// One measurement's block, ending with a blank line.
pub fn format_stat(s: &StatComparison) -> String {
    let m = &s.measurement;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "total {m} in shared programs: {}",
        change(s.total_before, s.total_after)
    );
    let _ = writeln!(
        out,
        "{m} in affected programs: {}",
        change(s.affected_before, s.affected_after)
    );
    let (helped, hurt) = (s.helped.len(), s.hurt.len());
    let _ = writeln!(out, "helped: {helped}");
    let _ = writeln!(out, "HURT: {hurt}");
    if counts_only(m) {
        out.push('\n');
        return out;
    }
    if helped > 2 || (helped > 0 && hurt > 0) {
        if let Some(sum) = s.helped_summary() {
            summary_lines(&mut out, "helped", "", &sum);
        }
    }
    if hurt > 2 || (hurt > 0 && helped > 0) {
        if let Some(sum) = s.hurt_summary() {
            summary_lines(&mut out, "HURT", "  ", &sum);
        }
    }
    if let (Some(v), Some(p), Some(verdict)) = (s.value_ci, s.percent_ci, s.verdict()) {
        let _ = writeln!(
            out,
            "95% mean confidence interval for {m} value: {:.2} {:.2}",
            v.lo, v.hi
        );
        let _ = writeln!(
            out,
            "95% mean confidence interval for {m} %-change: {} {}",
            format_percent(p.lo),
            format_percent(p.hi)
        );
        let _ = writeln!(out, "{}", verdict_line(m, verdict));
    }
    out.push('\n');
    out
}

/// `NAME: before -> after (x%)`, the name padded to 50 columns, as report.py lists programs.
fn program_line(kind: &str, m: &str, c: &Change) -> String {
    format!(
        "{m} {kind}   {:<50}{}",
        format!("{}: ", c.name),
        change(c.before, c.after)
    )
}

fn list_programs(out: &mut String, s: &StatComparison) {
    let m = &s.measurement;
    let key = |c: &Change| {
        if c.before == 0 {
            c.after as f64
        } else {
            c.relative().abs()
        }
    };
    for (kind, group) in [("helped:", &s.helped), ("HURT:", &s.hurt)] {
        let mut sorted: Vec<&Change> = group.iter().collect();
        sorted.sort_by(|a, b| key(a).total_cmp(&key(b)));
        for c in &sorted {
            let _ = writeln!(out, "{}", program_line(kind, m, c));
        }
        if !sorted.is_empty() {
            out.push('\n');
        }
    }
}

/// The budget a cost was measured at: the sweep's setting, or the programs' own configuration.
fn budget_label(c: &BudgetCost) -> &str {
    if c.budget.is_empty() {
        "as configured"
    } else {
        &c.budget
    }
}

/// Executed cost per budget and the verdict by the worst budget.
fn format_costs(out: &mut String, costs: &[BudgetCost]) {
    if costs.is_empty() {
        return;
    }
    let _ = writeln!(out, "Executed cost by budget (judged by the worst budget):");
    for c in costs {
        let _ = writeln!(
            out,
            "  {:<20} {:<12} {} ({} programs)",
            budget_label(c),
            c.measurement,
            change(c.before, c.after),
            c.programs
        );
    }
    match worst(costs) {
        Some(w) => {
            let _ = writeln!(
                out,
                "Worst budget: {}: {} {} -> HURT\n",
                budget_label(w),
                w.measurement,
                format_percent(w.relative())
            );
        }
        None => {
            let _ = writeln!(out, "Worst budget: no executed cost rose at any budget\n");
        }
    }
}

/// The whole report.
pub fn format_report(c: &Comparison, opts: TextOptions) -> String {
    let mut out = String::new();
    if opts.list_programs {
        for s in &c.stats {
            list_programs(&mut out, s);
        }
        for p in &c.lost {
            let _ = writeln!(out, "LOST:   {p}");
        }
        for p in &c.gained {
            let _ = writeln!(out, "GAINED: {p}");
        }
        if !c.lost.is_empty() || !c.gained.is_empty() {
            out.push('\n');
        }
    }
    let mut any = false;
    for s in &c.stats {
        let changed = !s.helped.is_empty() || !s.hurt.is_empty();
        any |= changed;
        if changed || !opts.changes_only {
            out.push_str(&format_stat(s));
        }
    }
    if !opts.changes_only || c.costs.iter().any(|x| x.before != x.after) {
        format_costs(&mut out, &c.costs);
    }
    if !c.lost.is_empty() || !c.gained.is_empty() || !opts.changes_only {
        let _ = writeln!(out, "LOST:   {}", c.lost.len());
        let _ = writeln!(out, "GAINED: {}", c.gained.len());
    } else if !any {
        let _ = writeln!(out, "No changes.");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_report_py_prints_them() {
        assert_eq!(format_percent(-0.0024), "-0.24%");
        assert_eq!(format_percent(0.00004), "<.01%");
        assert_eq!(format_percent(0.0), "0.00%");
        assert_eq!(change(3427644, 3419435), "3427644 -> 3419435 (-0.24%)");
        assert_eq!(change(0, 0), "0 -> 0");
        assert_eq!(change(0, 5), "0 -> 5");
        assert_eq!(change(7, 7), "7 -> 7 (0.00%)");
        assert_eq!(capitalize("non-nops"), "Non-nops");
        assert_eq!(capitalize("(ss)"), "(ss)");
    }
}
