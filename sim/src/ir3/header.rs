//! What ir3's listing says around the instructions that a dispatch needs: where the system
//! values arrive, the immediates it expects in the const file, where its driver params and
//! UBO ranges sit, and the register footprint — as turnip's "IR3 Assembly" prints them
//! (`ir3_shader_disasm`; the lines are shown in `docs/ir3-dispatch.md`).

use super::Reg;

/// A listing's dispatch facts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    /// The system values the shader reads and the registers they arrive in (`; CL: inputs:`).
    pub inputs: Vec<Input>,
    /// Immediates ir3 placed in the const file: the first const component and its words
    /// (`@const(c4.x) 0x00000003, …`).
    pub immediates: Vec<(u16, Vec<u32>)>,
    /// Named const-file regions (`;   driver_params c0.x (4 vec4)`): name, first component,
    /// size in vec4s.
    pub offsets: Vec<(String, u16, u16)>,
    /// UBO ranges ir3 pushed into the const file (`range[i]:` blocks).
    pub ubo_ranges: Vec<UboRange>,
    /// Full registers used (`N full`).
    pub full_regs: u32,
    /// Half registers used (`N half`).
    pub half_regs: u32,
    /// Const vec4s the shader needs (`N constlen`).
    pub constlen: u32,
    /// Whether ir3 chose waves of 128 fibers (`N double_threadsize`, 26.x).
    pub double_threadsize: bool,
}

/// A system value's register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// Its first register (a vec3 for ids: this and the next two components).
    pub reg: Reg,
    /// Mesa's name for it, e.g. `SYSTEM_VALUE_LOCAL_INVOCATION_ID`.
    pub sysval: String,
}

/// A UBO range ir3 loads into the const file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UboRange {
    /// The UBO's block index.
    pub block: u32,
    /// Where in the const file it lands: the first component.
    pub offset: u16,
    /// Its size in vec4s.
    pub vec4s: u32,
}

/// A line of the header that does not read as its kind should.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("ir3 listing line {line}: {why}: {text:?}")]
pub struct BadLine {
    /// 1-based line number.
    pub line: usize,
    /// What was wrong.
    pub why: &'static str,
    /// The line.
    pub text: String,
}

/// `rN.c` as a register.
fn reg(s: &str) -> Option<Reg> {
    let (n, c) = s.strip_prefix('r')?.split_once('.')?;
    let comp = "xyzw".find(c)? as u8;
    Some(Reg::from_field(
        u64::from(n.parse::<u8>().ok()?) << 2 | u64::from(comp),
    ))
}

/// `cN.c` as a component index (`4N + c`).
fn konst(s: &str) -> Option<u16> {
    let (n, c) = s.strip_prefix('c')?.split_once('.')?;
    Some(n.parse::<u16>().ok()? * 4 + "xyzw".find(c)? as u16)
}

/// The number before `word` in `text` (`2 full` → 2).
fn count_before(text: &str, word: &str) -> Option<u32> {
    let words: Vec<&str> = text.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    let i = words.iter().position(|w| *w == word)?;
    words.get(i.checked_sub(1)?)?.parse().ok()
}

/// Reads the dispatch facts of an ir3 listing; lines of other kinds are passed over, a line of
/// a known kind that does not parse is an error naming it.
pub fn parse_header(text: &str) -> Result<Header, BadLine> {
    let mut h = Header::default();
    let mut range: Option<UboRange> = None;
    for (i, raw) in text.lines().enumerate() {
        let l = raw.trim();
        let bad = |why| BadLine {
            line: i + 1,
            why,
            text: raw.to_string(),
        };
        if let Some(rest) = l.strip_prefix("@const(") {
            let (at, words) = rest.split_once(')').ok_or_else(|| bad("no `)`"))?;
            let at = konst(at).ok_or_else(|| bad("not a const register"))?;
            let words = (words.split(',').map(str::trim))
                .map(|w| u32::from_str_radix(w.trim_start_matches("0x"), 16))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|_| bad("not hex words"))?;
            h.immediates.push((at, words));
        } else if let Some(rest) = l.strip_prefix("; CL: inputs:") {
            // `r48.x (SYSTEM_VALUE_WORKGROUP_ID slot=47 …) r0.x (…)`
            let mut rest = rest.trim();
            while !rest.is_empty() {
                let (r, tail) = rest.split_once(" (").ok_or_else(|| bad("no `(`"))?;
                let (inside, tail) = tail.split_once(')').ok_or_else(|| bad("no `)`"))?;
                let reg = reg(r.trim()).ok_or_else(|| bad("not a register"))?;
                let sysval = inside.split_whitespace().next().unwrap_or("").to_string();
                h.inputs.push(Input { reg, sysval });
                rest = tail.trim();
            }
        } else if let Some(rest) = l.strip_prefix("; CL prog") {
            if rest.contains(" double_threadsize") {
                h.double_threadsize =
                    count_before(rest, "double_threadsize").ok_or_else(|| bad("no count"))? != 0;
            } else if rest.contains(" full") {
                let n = |w| count_before(rest, w).ok_or_else(|| bad("no count"));
                h.full_regs = n("full")?;
                h.half_regs = n("half")?;
                h.constlen = n("constlen")?;
            }
        } else if let Some(rest) = l.strip_prefix(';') {
            let rest = rest.trim();
            let words: Vec<&str> = rest.split_whitespace().collect();
            match words.as_slice() {
                [name, at, size, "vec4)"] if at.starts_with('c') && size.starts_with('(') => {
                    let at = konst(at).ok_or_else(|| bad("not a const register"))?;
                    let size = size[1..].parse().map_err(|_| bad("not a size"))?;
                    h.offsets.push((name.to_string(), at, size));
                }
                [r] if r.starts_with("range[") && r.ends_with("]:") => {
                    h.ubo_ranges.extend(range.take());
                    range = Some(UboRange::default());
                }
                ["block:", n] => {
                    let r = range.as_mut().ok_or_else(|| bad("outside a range"))?;
                    r.block = n.parse().map_err(|_| bad("not a block"))?;
                }
                ["offset:", c] => {
                    let r = range.as_mut().ok_or_else(|| bad("outside a range"))?;
                    r.offset = konst(c).ok_or_else(|| bad("not a const register"))?;
                }
                ["size:", n, "vec4", ..] => {
                    let r = range.as_mut().ok_or_else(|| bad("outside a range"))?;
                    r.vec4s = n.parse().map_err(|_| bad("not a size"))?;
                }
                _ => {}
            }
        }
    }
    h.ubo_ranges.extend(range);
    Ok(h)
}
