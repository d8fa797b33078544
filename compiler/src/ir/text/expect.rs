//! `; expect I: W0 W1 …` comment lines: what invocation `I`'s output slots must hold, as hex
//! words (docs/ir.md). The parser ignores them as comments; `gpufuzz run` and `repro`, the
//! regression tests and the documentation's examples check them against the interpreter, and
//! `gpufuzz triage --promote` writes them.

use std::fmt::Write;

/// The comment prefix of an expectation line.
pub const EXPECT_PREFIX: &str = "; expect ";

/// One `; expect` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    /// 1-based line in the file.
    pub line: usize,
    /// The invocation whose outputs it states.
    pub invocation: u32,
    /// Its output slots, in order.
    pub words: Vec<u32>,
}

/// The text of an expectation line (without the newline).
pub fn line(invocation: usize, words: &[u32]) -> String {
    let mut s = format!("{EXPECT_PREFIX}{invocation}:");
    for w in words {
        let _ = write!(s, " {w:#010x}");
    }
    s
}

/// Every `; expect` line of `src`; a malformed one is an error naming `file` and the line.
pub fn parse(src: &str, file: &str) -> Result<Vec<Expectation>, String> {
    let mut out = Vec::new();
    for (n, text) in src.lines().enumerate() {
        let Some(rest) = text.trim().strip_prefix(EXPECT_PREFIX) else {
            continue;
        };
        let bad = |why: &str| {
            format!(
                "{file}:{}: {why}: expected `; expect I: W0 W1 ...` (docs/ir.md)",
                n + 1
            )
        };
        let (inv, words) = rest.split_once(':').ok_or_else(|| bad("no `:`"))?;
        let invocation = inv
            .trim()
            .parse()
            .map_err(|_| bad(&format!("invocation `{}` is not a number", inv.trim())))?;
        let words = words
            .split_whitespace()
            .map(|w| {
                let (digits, radix) = match w.strip_prefix("0x") {
                    Some(hex) => (hex, 16),
                    None => (w, 10),
                };
                u32::from_str_radix(digits, radix)
                    .map_err(|_| bad(&format!("`{w}` is not a 32-bit word")))
            })
            .collect::<Result<_, _>>()?;
        out.push(Expectation {
            line: n + 1,
            invocation,
            words,
        });
    }
    Ok(out)
}

/// Checks `expected` against a run's outputs (`slots` words per invocation); the error names
/// the first line that differs and what the run gave instead.
pub fn check(
    expected: &[Expectation],
    outputs: &[u32],
    slots: usize,
    file: &str,
) -> Result<(), String> {
    for e in expected {
        let start = e.invocation as usize * slots;
        let got = outputs.get(start..start + slots);
        if got != Some(&e.words[..]) {
            let got = match got {
                Some(g) => line(e.invocation as usize, g),
                None => format!(
                    "no invocation {} ({} ran)",
                    e.invocation,
                    outputs.len() / slots.max(1)
                ),
            };
            return Err(format!(
                "{file}:{}: {}\n  the interpreter gives: {got}",
                e.line,
                line(e.invocation as usize, &e.words)
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_and_mismatches_name_the_line() {
        let src = format!("; a comment\n{}\n; expect 1: 7 0x8\n", line(0, &[1, 2]));
        let e = parse(&src, "f.ir").unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(
            (e[0].line, e[0].invocation, &e[0].words[..]),
            (2, 0, &[1, 2][..])
        );
        assert_eq!(
            (e[1].line, e[1].invocation, &e[1].words[..]),
            (3, 1, &[7, 8][..])
        );
        check(&e, &[1, 2, 7, 8], 2, "f.ir").unwrap();
        let err = check(&e, &[1, 2, 7, 9], 2, "f.ir").unwrap_err();
        assert!(
            err.starts_with("f.ir:3: ; expect 1: 0x00000007 0x00000008"),
            "{err}"
        );
        assert!(err.ends_with("; expect 1: 0x00000007 0x00000009"), "{err}");
        let err = check(&e, &[1, 2], 2, "f.ir").unwrap_err();
        assert!(err.contains("no invocation 1 (1 ran)"), "{err}");
        let err = parse("; expect x: 1\n", "f.ir").unwrap_err();
        assert!(err.starts_with("f.ir:1: invocation `x`"), "{err}");
        let err = parse("; expect 0: 0xzz\n", "f.ir").unwrap_err();
        assert!(err.contains("`0xzz` is not a 32-bit word"), "{err}");
    }
}
