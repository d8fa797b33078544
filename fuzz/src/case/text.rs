//! A case as one self-contained text file: the program in the text format, preceded by
//! comment lines that carry its compile configuration, so a saved `program.ir` reproduces its
//! finding with no flags:
//!
//! ```text
//! ; case: gen9=true gen_grfs=18 gen_zero_samples=true a6xx_wave128=false ...
//! ; disable-pass: opt_cse opt_dce
//! invocations 4
//! ...
//! ```
//!
//! The `; case:` line lists every knob of [`CaseConfig`] (the `case_knobs!` table), so a knob
//! added later appears without touching this file, and a header written before it existed
//! reads as that knob's default. `; disable-pass:` names middle-end passes switched off (the
//! line is left out when none is). The program parser sees these lines as comments; printing
//! a parsed case gives the same text again. Other comment lines are kept out of the header:
//! only lines starting with exactly `; case:` or `; disable-pass:` are read.
//!
//! Also here: [`BOUNDED_KNOBS`], the range of every numeric knob a user can set, which
//! [`CaseConfig::check`] enforces (a budget below what the backends support is a usage error,
//! not a compiler bug) and `--case help` ([`knob_help`]) prints, and
//! [`looks_like_text`], which decides text versus raw input by content.

use super::config::{Case, CaseConfig};
use crate::Error;
use compiler::ir::{text, verify};
use compiler::passes::pipeline::PASSES;

/// The header line prefix that carries the knobs.
pub const CASE_PREFIX: &str = "; case:";
/// The header line prefix that names the disabled passes.
pub const DISABLE_PREFIX: &str = "; disable-pass:";

// The register budgets' bounds are the targets' (`targets::gen`, `targets::a6xx`).
pub use crate::targets::a6xx::{MAX_A6XX_REGISTERS, MIN_A6XX_REGISTERS};
pub use crate::targets::gen::{MAX_GEN_GRFS, MIN_GEN_GRFS};

/// What a numeric knob may be set to.
#[derive(Clone, Copy, Debug)]
pub enum Allowed {
    /// Any value in `lo..=hi`.
    Range(u32, u32),
    /// One of these.
    OneOf(&'static [u32]),
}

/// The numeric knobs a backend bounds: the one table `CaseConfig::check`, `--case help` and
/// the `--case` flag's help read, with why each bound is there.
pub const BOUNDED_KNOBS: &[(&str, Allowed, &str)] = &[
    (
        "gen_grfs",
        Allowed::Range(MIN_GEN_GRFS, MAX_GEN_GRFS),
        "GRFs at SIMD8; SIMD16 gets twice a starved budget, at most 125",
    ),
    (
        "a6xx_registers",
        Allowed::Range(MIN_A6XX_REGISTERS, MAX_A6XX_REGISTERS),
        "scalar GPRs",
    ),
    (
        "a6xx_predicates",
        Allowed::OneOf(&[1, 4]),
        "predicate registers",
    ),
];

impl std::fmt::Display for Allowed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Allowed::Range(lo, hi) => write!(f, "{lo}..={hi}"),
            Allowed::OneOf(values) => {
                let v: Vec<String> = values.iter().map(u32::to_string).collect();
                f.write_str(&v.join("|"))
            }
        }
    }
}

impl Allowed {
    fn admits(self, v: u32) -> bool {
        match self {
            Allowed::Range(lo, hi) => (lo..=hi).contains(&v),
            Allowed::OneOf(values) => values.contains(&v),
        }
    }
}

/// The values knob `key` takes, as `--case help` prints them: its bound, or what its type
/// takes.
fn values_of(key: &str) -> String {
    if let Some((_, allowed, why)) = BOUNDED_KNOBS.iter().find(|(k, ..)| *k == key) {
        return format!("{allowed} ({why})");
    }
    CaseConfig::values_of(key).unwrap_or_default()
}

/// `--case help`: every knob, its default and the values it takes.
pub fn knob_help() -> String {
    let mut s = String::from(
        "The knobs of a case's configuration (`--case KEY=VALUE`, the `; case:` line of a \
         .ir file; docs/ir.md), at their defaults:\n",
    );
    for (key, default) in CaseConfig::default().knobs() {
        s += &format!("  {key}={default}\n      {}\n", values_of(key));
    }
    s
}

/// The `--case` flag's help, with the bounds of [`BOUNDED_KNOBS`].
pub fn case_flag_help() -> String {
    let bounds: Vec<String> = BOUNDED_KNOBS
        .iter()
        .map(|(k, allowed, _)| format!("{k}={allowed}"))
        .collect();
    format!(
        "Set a knob of the case configuration (repeatable), overriding the input's own (`; \
         case:` header of a .ir file, or what raw bytes decode to); `on`/`off` spell true and \
         false. `--case help` lists every knob with its default and values. Bounds: {}",
        bounds.join(", ")
    )
}

impl CaseConfig {
    /// Checks every knob against what the backends can honour ([`BOUNDED_KNOBS`]); the error
    /// names the knob, what it may be and why.
    pub fn check(&self) -> Result<(), Error> {
        for (key, value) in self.knobs() {
            let Some((_, allowed, why)) = BOUNDED_KNOBS.iter().find(|(k, ..)| *k == key) else {
                continue;
            };
            let v: u32 = value.parse().unwrap_or(u32::MAX);
            if !allowed.admits(v) {
                let (allowed, why, value) = (*allowed, *why, v);
                return Err(match allowed {
                    Allowed::Range(..) => Error::KnobOutOfRange {
                        key,
                        value,
                        allowed,
                        why,
                    },
                    Allowed::OneOf(_) => Error::KnobNotOneOf {
                        key,
                        value,
                        allowed,
                        why,
                    },
                });
            }
        }
        Ok(())
    }

    /// Sets a knob from `KEY=VALUE` text (`on`/`off` also spell a switch) and checks the
    /// result.
    pub fn set_checked(&mut self, key_value: &str) -> Result<(), Error> {
        let (k, v) = key_value
            .split_once('=')
            .ok_or_else(|| Error::NotKeyValue {
                setting: key_value.to_string(),
            })?;
        let v = match v.trim() {
            "on" | "yes" => "true",
            "off" | "no" => "false",
            v => v,
        };
        self.set(k.trim(), v)?;
        self.check()
    }

    /// Switches a middle-end pass off by name; an unknown name lists the passes.
    pub fn disable_pass(&mut self, name: &str) -> Result<(), Error> {
        let i = PASSES
            .iter()
            .position(|(n, _)| *n == name)
            .ok_or_else(|| Error::UnknownPass {
                name: name.to_string(),
            })?;
        self.disabled_passes |= 1 << i;
        Ok(())
    }

    /// The middle-end passes switched off, by name, in pipeline order.
    pub fn disabled_pass_names(&self) -> Vec<&'static str> {
        PASSES
            .iter()
            .enumerate()
            .filter(|(i, _)| self.disabled_passes & (1 << i) != 0)
            .map(|(_, (n, _))| *n)
            .collect()
    }
}

/// Every knob at its default, as `KEY=VALUE`, in header order.
pub fn default_knobs() -> Vec<String> {
    CaseConfig::default()
        .knobs()
        .into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect()
}

/// Every middle-end pass name, comma-separated.
pub fn pass_names() -> String {
    PASSES
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The header lines for `config` (each ending in a newline).
pub fn header(config: &CaseConfig) -> String {
    let knobs: Vec<String> = config
        .knobs()
        .into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let mut s = format!("{CASE_PREFIX} {}\n", knobs.join(" "));
    let disabled = config.disabled_pass_names();
    if !disabled.is_empty() {
        s += &format!("{DISABLE_PREFIX} {}\n", disabled.join(" "));
    }
    s
}

/// A case as text: the header, then the program.
pub fn print_case(case: &Case) -> String {
    header(&case.config) + &text::print_program(&case.program)
}

/// Reads the header lines of `src` (anywhere before the program, as comments); lines without
/// a header are the default configuration. Errors name the file and line.
pub fn parse_header(src: &str, file: &str) -> Result<CaseConfig, Error> {
    parse_header_except(src, file, &[])
}

/// [`parse_header`] leaving out the knobs `replaced` names (a command line sets them instead:
/// a value the file has and this machine's driver refuses must not stop its replacement).
pub fn parse_header_except(src: &str, file: &str, replaced: &[&str]) -> Result<CaseConfig, Error> {
    let mut config = CaseConfig::default();
    for (n, line) in src.lines().enumerate() {
        if let Some(rest) = line.strip_prefix(CASE_PREFIX) {
            for kv in rest.split_whitespace() {
                let (k, v) = kv.split_once('=').ok_or_else(|| Error::HeaderNotKeyValue {
                    file: file.to_string(),
                    line: n + 1,
                    knob: kv.to_string(),
                })?;
                if replaced.contains(&k) {
                    continue;
                }
                config.set(k, v).map_err(|e| Error::HeaderKnob {
                    file: file.to_string(),
                    line: n + 1,
                    knob: kv.to_string(),
                    error: Box::new(e),
                })?;
            }
        } else if let Some(rest) = line.strip_prefix(DISABLE_PREFIX) {
            for name in rest.split_whitespace() {
                config.disable_pass(name).map_err(|e| Error::HeaderPass {
                    file: file.to_string(),
                    line: n + 1,
                    error: Box::new(e),
                })?;
            }
        }
    }
    config.check().map_err(|e| Error::HeaderOutOfBounds {
        file: file.to_string(),
        error: Box::new(e),
    })?;
    Ok(config)
}

/// Parses and verifies a case file (header and program) within the default limits.
pub fn parse_case(src: &str, file: &str) -> Result<Case, Error> {
    parse_case_within(src, file, &text::Limits::default())
}

/// Parses and verifies a case file, refusing a program beyond `limits`.
pub fn parse_case_within(src: &str, file: &str, limits: &text::Limits) -> Result<Case, Error> {
    parse_case_except(src, file, limits, &[])
}

/// [`parse_case_within`] with the header's knobs `replaced` names left out
/// ([`parse_header_except`]).
pub fn parse_case_except(
    src: &str,
    file: &str,
    limits: &text::Limits,
    replaced: &[&str],
) -> Result<Case, Error> {
    let config = parse_header_except(src, file, replaced)?;
    let program = text::parse_program_within(src, file, limits)?;
    verify::verify(&program).map_err(|errors| Error::InvalidProgram {
        file: file.to_string(),
        errors,
    })?;
    Ok(Case { config, program })
}

/// Reads fuzz input bytes as the `diff` target and `gpufuzz repro` do: a case file if they
/// look like one ([`looks_like_text`]), else raw bytes for the generator. `name` names the
/// input in errors (a case that does not parse or verify, raw bytes that give no program or
/// panic the generator).
pub fn read_input(bytes: &[u8], name: &str) -> Result<Case, Error> {
    if looks_like_text(bytes) {
        let text = std::str::from_utf8(bytes).map_err(|error| Error::NotUtf8 {
            name: name.to_string(),
            error,
        })?;
        return parse_case(text, name);
    }
    match crate::panics::catch(|| super::draw::decode(bytes)) {
        Ok(Some(case)) => Ok(case),
        Ok(None) => Err(Error::NoProgram {
            name: name.to_string(),
        }),
        Err(p) => Err(Error::GeneratorPanicked {
            name: name.to_string(),
            location: p.location,
            message: p.message,
        }),
    }
}

/// Whether `bytes` are a program in the text format rather than a raw fuzz input: UTF-8 whose
/// first word outside comments is `invocations` (every program's first line).
pub fn looks_like_text(bytes: &[u8]) -> bool {
    let Ok(s) = std::str::from_utf8(bytes) else {
        return false;
    };
    s.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with(';'))
        .is_some_and(|l| l.split_whitespace().next() == Some("invocations"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn print_parse_print_is_the_identity_for_decoded_cases() {
        let mut buf = Vec::new();
        let mut non_default = 0;
        for i in 0..40 {
            crate::rng::input_bytes(3, i, 64, 1024, &mut buf);
            let Some(case) = super::super::draw::decode(&buf) else {
                continue;
            };
            let printed = print_case(&case);
            let parsed = parse_case(&printed, "case.ir").unwrap();
            assert_eq!(print_case(&parsed), printed);
            assert_eq!(parsed.config.knobs(), case.config.knobs());
            assert_eq!(
                parsed.config.disabled_pass_names(),
                case.config.disabled_pass_names()
            );
            non_default += usize::from(!case.config.non_default().is_empty());
            assert!(looks_like_text(printed.as_bytes()));
            assert!(!looks_like_text(&buf));
        }
        assert!(non_default > 10, "only {non_default} non-default cases");
    }

    #[test]
    fn help_lists_every_knob_with_the_bounds_check_enforces() {
        let help = knob_help();
        for key in CaseConfig::keys() {
            assert!(
                help.contains(&format!("  {key}=")),
                "{key} missing:\n{help}"
            );
        }
        assert!(
            help.contains(&format!("{MIN_GEN_GRFS}..={MAX_GEN_GRFS}")),
            "{help}"
        );
        assert!(help.contains("ratio|"), "{help}");
        // Every knob's values say what it takes: a number only for the numeric ones, and each
        // named choice parses back.
        for (key, default) in CaseConfig::default().knobs() {
            let values = values_of(key);
            let bounded = BOUNDED_KNOBS.iter().any(|(k, ..)| *k == key);
            // A number with a list of its own (a GPU by number, a wave size) names its choices.
            let numeric = default.parse::<u32>().is_ok() && !bounded && !values.contains('|');
            assert_eq!(values == "a number", numeric, "{key}: {values}");
            if let Some(first) = values
                .split(['|', ' ', ','])
                .next()
                .filter(|_| values.contains('|'))
            {
                let mut c = CaseConfig::default();
                c.set(key, first)
                    .unwrap_or_else(|e| panic!("{key}={first}: {e}"));
            }
        }
        let mut c = CaseConfig::default();
        c.set_checked(&format!("gen_grfs={MIN_GEN_GRFS}")).unwrap();
        let e = c
            .set_checked(&format!("gen_grfs={}", MIN_GEN_GRFS - 1))
            .unwrap_err()
            .to_string();
        assert!(e.contains(&format!("outside {MIN_GEN_GRFS}..=")), "{e}");
        assert!(case_flag_help().contains(&format!("gen_grfs={MIN_GEN_GRFS}..=125")));
    }

    #[test]
    fn missing_knobs_read_as_defaults_and_bad_ones_are_refused() {
        let program = "invocations 1\noutputs 1\n\nblock_0:\n";
        let c = parse_header(&format!("; case: gen_grfs=20\n{program}"), "a.ir").unwrap();
        assert_eq!(
            c,
            CaseConfig {
                gen_grfs: 20,
                ..CaseConfig::default()
            }
        );
        let e = parse_header("; case: a6xx_predicates=0\n", "a.ir")
            .unwrap_err()
            .to_string();
        assert!(e.contains("must be 1|4"), "{e}");
        let e = parse_header("; case: gen_grfs=0\n", "a.ir")
            .unwrap_err()
            .to_string();
        assert!(e.contains("outside 10..=125"), "{e}");
        // A knob the command line replaces is not read from the file: its value there may be
        // one this machine's driver refuses.
        let c = parse_header_except("; case: gen_grfs=0 gen9=false\n", "a.ir", &["gen_grfs"]);
        assert!(!c.unwrap().gen9);
        let e = parse_header("; case: nosuch=1\n", "a.ir")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("a.ir:1:") && e.contains("known:"), "{e}");
        let e = parse_header("; disable-pass: nosuch\n", "a.ir")
            .unwrap_err()
            .to_string();
        assert!(e.contains("opt_cse"), "{e}");
    }
}
