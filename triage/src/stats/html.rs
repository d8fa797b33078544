//! `gpufuzz report --html`: one self-contained page (inline CSS and SVG, no scripts) with,
//! per measurement, the text block of the report and a histogram of the relative change of
//! every affected program. Bins are symmetric around 0 and span the largest change rounded
//! up to 1, 2 or 5 × 10ⁿ percent; helped bins are green, HURT bins red. Programs whose
//! value was 0 before have no relative change and are counted under the chart instead.

use super::compare::{Comparison, StatComparison};
use super::higher_is_better;
use super::text::format_stat;
use super::StatsFile;
use std::fmt::Write;

/// Bins per histogram (even, so that 0 is a bin edge).
const BINS: usize = 20;
const WIDTH: f64 = 560.0;
const HEIGHT: f64 = 150.0;
const MARGIN: f64 = 30.0;

/// Escapes text for HTML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The smallest 1, 2 or 5 × 10ⁿ at least `x` (x > 0).
fn nice_ceiling(x: f64) -> f64 {
    let mut scale = 10f64.powf(x.log10().floor());
    loop {
        for m in [1.0, 2.0, 5.0] {
            if m * scale >= x {
                return m * scale;
            }
        }
        scale *= 10.0;
    }
}

/// Bin counts of relative changes (fractions) over `[-range, range]`.
pub fn histogram(rel: &[f64], range: f64) -> [usize; BINS] {
    let mut bins = [0; BINS];
    for &r in rel {
        let i = ((r + range) / (2.0 * range) * BINS as f64).floor() as isize;
        bins[i.clamp(0, BINS as isize - 1) as usize] += 1;
    }
    bins
}

/// The SVG histogram of one measurement (empty when nothing changed).
fn svg(s: &StatComparison) -> String {
    let rel: Vec<f64> = s
        .affected()
        .filter(|c| c.before != 0)
        .map(|c| c.relative())
        .collect();
    let Some(max) = rel.iter().map(|r| r.abs()).reduce(f64::max) else {
        return String::new();
    };
    let range = nice_ceiling((max * 100.0).max(0.01)) / 100.0;
    let bins = histogram(&rel, range);
    let top = *bins.iter().max().unwrap_or(&1) as f64;
    let plot_w = WIDTH - 2.0 * MARGIN;
    let plot_h = HEIGHT - 2.0 * MARGIN;
    let bar_w = plot_w / BINS as f64;
    let mut out = String::new();
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
         role=\"img\" aria-label=\"relative change of {}\">",
        esc(&s.measurement)
    );
    let good_is_up = higher_is_better(&s.measurement);
    for (i, &n) in bins.iter().enumerate() {
        if n == 0 {
            continue;
        }
        let h = n as f64 / top * plot_h;
        let x = MARGIN + i as f64 * bar_w;
        let y = MARGIN + plot_h - h;
        let helped = (i >= BINS / 2) == good_is_up;
        let colour = if helped { "#3a3" } else { "#c33" };
        let _ = write!(
            out,
            "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{h:.1}\" fill=\"{colour}\">\
             <title>{n}</title></rect>",
            bar_w - 1.0
        );
    }
    let base = MARGIN + plot_h;
    let _ = write!(
        out,
        "<line x1=\"{MARGIN}\" y1=\"{base}\" x2=\"{}\" y2=\"{base}\" stroke=\"#000\"/>",
        WIDTH - MARGIN
    );
    let mid = WIDTH / 2.0;
    let _ = write!(
        out,
        "<line x1=\"{mid}\" y1=\"{MARGIN}\" x2=\"{mid}\" y2=\"{base}\" stroke=\"#888\" \
         stroke-dasharray=\"3\"/>"
    );
    let label_y = base + 16.0;
    for (x, label) in [
        (MARGIN, format!("-{}%", range * 100.0)),
        (mid, "0".to_string()),
        (WIDTH - MARGIN, format!("+{}%", range * 100.0)),
    ] {
        let _ = write!(
            out,
            "<text x=\"{x}\" y=\"{label_y}\" text-anchor=\"middle\" font-size=\"11\">{label}</text>"
        );
    }
    let _ = write!(
        out,
        "<text x=\"{MARGIN}\" y=\"{}\" font-size=\"11\">max bin: {top} programs</text></svg>",
        MARGIN - 8.0
    );
    out
}

/// The whole page.
pub fn page(before: &StatsFile, after: &StatsFile, c: &Comparison) -> String {
    let mut out = String::from(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gpufuzz stats report</title>\
         <style>body{font-family:sans-serif;max-width:60em;margin:auto}\
         pre{background:#f4f4f4;padding:.5em}h2{font-size:1.1em;margin-top:2em}</style>\
         </head><body>\n<h1>gpufuzz stats report</h1>\n",
    );
    for (label, f) in [("before", before), ("after", after)] {
        let _ = writeln!(
            out,
            "<p><b>{label}</b>: target {}, config [{}], corpus {}, {} programs, {} failed</p>",
            esc(&f.target),
            esc(&f.config.join(" ")),
            esc(&f.corpus),
            f.programs.len(),
            f.failed.len()
        );
    }
    for s in &c.stats {
        let _ = writeln!(out, "<h2>{}</h2>", esc(&s.measurement));
        let _ = writeln!(out, "<pre>{}</pre>", esc(format_stat(s).trim_end()));
        out.push_str(&svg(s));
        let zero = s.affected().filter(|c| c.before == 0).count();
        if zero > 0 {
            let _ = writeln!(
                out,
                "<p>{zero} programs went from 0 (no relative change).</p>"
            );
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "<p>LOST: {} GAINED: {}</p>\n</body></html>",
        c.lost.len(),
        c.gained.len()
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_and_ranges() {
        assert_eq!(nice_ceiling(3.2), 5.0);
        assert_eq!(nice_ceiling(20.0), 20.0);
        assert!((nice_ceiling(0.07) - 0.1).abs() < 1e-12);
        let b = histogram(&[-0.5, -0.01, 0.01, 0.5, 0.49], 0.5);
        assert_eq!((b[0], b[9], b[10], b[19]), (1, 1, 1, 2));
    }
}
