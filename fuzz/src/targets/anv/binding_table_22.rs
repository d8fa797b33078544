//! anv's binding table in Mesa 22.3, where the "Final NIR" names no bindings.
//!
//! Mesa 22.3's `anv_nir_apply_pipeline_layout` numbers the used bindings as 25.0 does — by a
//! score from each binding's NIR use count, then set, then binding
//! (`vulkan/anv_nir_apply_pipeline_layout.c:1295-1445`, Mesa 22.3.6) — but lowers each
//! descriptor access to a bare constant, the binding-table index (`build_res_index`,
//! :348-360; textures keep only `N (texture)`). Its "Final NIR" is the NIR right after that
//! lowering (anv keeps `stage.nir`, brw compiles clones), so it still declares every variable
//! with its binding and its access qualifiers (`decl_var ssbo … writeonly block @0 (~0, 0, 0)`)
//! and shows each access with its index; what links the two is gone.
//!
//! The table is therefore *solved*, never guessed: each index the code uses must go to a
//! binding of its kind (storage buffer or sampled image) whose declared access allows what the
//! code does there (no store into a `readonly` block, no load from a `writeonly` one), each
//! binding at most once. Only when exactly one assignment fits is it the table; otherwise the
//! error says how many fit, and the run is a counted skip. The use counts cannot break the
//! ties: they were taken before `brw_preprocess_nir`'s CSE, on NIR nobody prints.

use super::binding_table::BindingTable;
use std::collections::{BTreeMap, BTreeSet};

/// What the code does at one table index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Uses {
    loads: bool,
    stores: bool,
    texture: bool,
}

/// A declared binding: a storage block (with its `readonly`/`writeonly`) or a sampled image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Declared {
    binding: u32,
    texture: bool,
    readonly: bool,
    writeonly: bool,
}

impl Declared {
    fn allows(&self, uses: Uses) -> bool {
        if uses.texture || self.texture {
            return uses.texture && self.texture;
        }
        let stores_allowed = !uses.stores || !self.readonly;
        let loads_allowed = !uses.loads || !self.writeonly;
        stores_allowed && loads_allowed
    }
}

/// Whether `nir` is printed in Mesa 22.3's dialect (`intrinsic load_ssbo (ssa_1, …)`), where
/// 25.0 prints `@load_ssbo (%1, …)`.
pub fn is_mesa_22(nir: &str) -> bool {
    nir.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with("intrinsic ") || l.contains(" = intrinsic ")
    })
}

/// The binding table of a Mesa 22.3 "Final NIR" (see the module doc).
pub fn from_nir(nir: &str) -> Result<BindingTable, String> {
    let mut declared = Vec::new();
    let mut constants: BTreeMap<&str, u32> = BTreeMap::new();
    let mut uses: BTreeMap<u32, Uses> = BTreeMap::new();
    for line in nir.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("decl_var ") {
            declared.extend(declaration(rest)?);
        } else if let Some((name, value)) = constant(line) {
            constants.insert(name, value);
        } else if let Some((intrinsic, sources)) = intrinsic(line) {
            // The source holding the table index, and what the access does there.
            let (source, loads, stores) = match intrinsic {
                "load_ssbo" => (0, true, false),
                "store_ssbo" => (1, false, true),
                "get_ssbo_size" => (0, false, false),
                i if i.starts_with("ssbo_atomic") => (0, true, true),
                i if i.contains("ubo") || i.starts_with("image") || i.contains("bindless") => {
                    return Err(format!("Mesa 22.3 NIR with {i}"))
                }
                _ => continue,
            };
            let name = sources
                .get(source)
                .ok_or_else(|| format!("unreadable NIR: {line:?}"))?;
            let index = *constants.get(name).ok_or_else(|| {
                format!("a {intrinsic} whose table index {name} is not a constant")
            })?;
            let u = uses.entry(index).or_default();
            u.loads |= loads;
            u.stores |= stores;
        } else if line.contains("(texture_offset)") || line.contains("(texture_handle)") {
            return Err("a texture whose table index is not a constant".into());
        } else if let Some(index) = texture_index(line) {
            uses.entry(index).or_default().texture = true;
        }
    }
    let indices: Vec<(u32, Uses)> = uses.into_iter().collect();
    let mut found = Vec::new();
    solve(&indices, &declared, &mut Vec::new(), &mut found);
    match found.as_slice() {
        [one] => indices
            .iter()
            .zip(one)
            .map(|(&(index, _), &binding)| {
                let index = u8::try_from(index).map_err(|_| format!("table index {index}"))?;
                Ok((index, binding))
            })
            .collect(),
        [] => Err("Mesa 22.3's NIR: no binding fits every table index".into()),
        many => Err(format!(
            "Mesa 22.3's NIR names no bindings and {}{} assignments fit",
            many.len(),
            if many.len() >= SOLUTIONS {
                " or more"
            } else {
                ""
            }
        )),
    }
}

/// Enough assignments to know the table is ambiguous.
const SOLUTIONS: usize = 2;

/// Every assignment of `indices[chosen.len()..]` to distinct declared bindings, up to
/// [`SOLUTIONS`].
fn solve(
    indices: &[(u32, Uses)],
    declared: &[Declared],
    chosen: &mut Vec<u32>,
    found: &mut Vec<Vec<u32>>,
) {
    if found.len() >= SOLUTIONS {
        return;
    }
    let Some(&(_, uses)) = indices.get(chosen.len()) else {
        found.push(chosen.clone());
        return;
    };
    for d in declared {
        if d.allows(uses) && !chosen.contains(&d.binding) {
            chosen.push(d.binding);
            solve(indices, declared, chosen, found);
            chosen.pop();
        }
    }
}

/// `ssbo INTERP_MODE_NONE restrict writeonly block @0 (~0, 0, 3)`: binding 3 of set 0.
/// `Ok(None)` for other variables (shared memory, ...); another set is an error.
fn declaration(rest: &str) -> Result<Option<Declared>, String> {
    let words: BTreeSet<&str> = rest.split_whitespace().collect();
    let texture = words.contains("uniform") && rest.contains("sampler");
    if !words.contains("ssbo") && !texture {
        return Ok(None);
    }
    let location = rest
        .rsplit_once('(')
        .and_then(|(_, l)| l.strip_suffix(')'))
        .ok_or_else(|| format!("unreadable declaration: {rest:?}"))?;
    let fields: Vec<&str> = location.split(", ").collect();
    let [_, set, binding] = fields.as_slice() else {
        return Err(format!("unreadable declaration: {rest:?}"));
    };
    if *set != "0" {
        return Err(format!("descriptor set {set}"));
    }
    let binding = binding
        .parse()
        .map_err(|_| format!("unreadable declaration: {rest:?}"))?;
    Ok(Some(Declared {
        binding,
        texture,
        readonly: words.contains("readonly"),
        writeonly: words.contains("writeonly"),
    }))
}

/// `vec1 32 ssa_5 = load_const (0x00000002 = 0.000000)` → (`ssa_5`, 2).
fn constant(line: &str) -> Option<(&str, u32)> {
    let (def, value) = line.split_once(" = load_const (0x")?;
    let name = def.rsplit(' ').next()?;
    let hex = value.split(|c: char| !c.is_ascii_hexdigit()).next()?;
    Some((name, u32::from_str_radix(hex, 16).ok()?))
}

/// `intrinsic store_ssbo (ssa_1, ssa_2, ssa_3) (…)` → (`store_ssbo`, its sources).
fn intrinsic(line: &str) -> Option<(&str, Vec<&str>)> {
    let (_, rest) = line.split_once("intrinsic ")?;
    let (name, rest) = rest.split_once(" (")?;
    let (sources, _) = rest.split_once(')')?;
    Some((name, sources.split(", ").map(str::trim).collect()))
}

/// `… txf ssa_37 (coord), ssa_12 (lod), 3 (texture), 0 (sampler)` → 3.
fn texture_index(line: &str) -> Option<u32> {
    let (before, _) = line.split_once(" (texture)")?;
    before.rsplit([' ', ',']).next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines of real Skylake "Final NIR"s from Mesa 22.3.6 (Debian bookworm's anv):
    /// `corpus/regressions/trivial_backedge_phi.ir`, an output block and a read-only block.
    const TWO_BLOCKS: &str = "\
decl_var ssbo INTERP_MODE_NONE restrict writeonly block @0 (~0, 0, 0)
decl_var ssbo INTERP_MODE_NONE restrict readonly block @1 (~0, 0, 1)
impl main {
	vec1 32 ssa_99 = load_const (0x00000003 = 0.000000)
	vec1 32 ssa_104 = load_const (0x00000002 = 0.000000)
		vec1 32 ssa_53 = intrinsic load_ssbo (ssa_99, ssa_102) (access=80, align_mul=4, align_offset=0)
		intrinsic store_ssbo (ssa_10, ssa_104, ssa_72) (wrmask=x /*1*/, access=8, align_mul=4, align_offset=0)
}
";

    /// `corpus/regressions/txf_constant_zero_lod.ir`: an output block and a texture.
    const TEXTURE: &str = "\
decl_var ssbo INTERP_MODE_NONE restrict writeonly block @0 (~0, 0, 0)
decl_var uniform INTERP_MODE_NONE restrict usampler2DArray @1 (~0, 0, 1)
		vec4 32 ssa_38 = (uint32)txf ssa_37 (coord), ssa_12 (lod), 3 (texture), 0 (sampler)
		vec1 32 ssa_243 = load_const (0x00000002 = 0.000000)
		intrinsic store_ssbo (ssa_45, ssa_243, ssa_84) (wrmask=x /*1*/, access=8, align_mul=4, align_offset=0)
";

    #[test]
    fn the_only_assignment_the_declared_access_allows_is_the_table() {
        assert!(is_mesa_22(TWO_BLOCKS));
        assert_eq!(
            from_nir(TWO_BLOCKS).unwrap(),
            BindingTable::from([(2, 0), (3, 1)])
        );
        assert_eq!(
            from_nir(TEXTURE).unwrap(),
            BindingTable::from([(2, 0), (3, 1)])
        );
    }

    #[test]
    fn an_ambiguous_or_unreadable_table_says_why() {
        // Both blocks writable: the store at 2 and the load at 3 fit either way round.
        let rw = TWO_BLOCKS
            .replace("restrict readonly", "restrict")
            .replace("restrict writeonly", "restrict");
        assert!(from_nir(&rw)
            .unwrap_err()
            .contains("2 or more assignments fit"));
        let variable =
            TWO_BLOCKS.replace("store_ssbo (ssa_10, ssa_104,", "store_ssbo (ssa_10, ssa_7,");
        assert!(from_nir(&variable).unwrap_err().contains("not a constant"));
        let set = TWO_BLOCKS.replace("(~0, 0, 1)", "(~0, 1, 1)");
        assert!(from_nir(&set).unwrap_err().contains("descriptor set 1"));
        // A store into the only read-only block: nothing fits.
        let wrong = TWO_BLOCKS.replace("writeonly block @0", "readonly block @0");
        assert!(from_nir(&wrong).unwrap_err().contains("no binding fits"));
    }

    #[test]
    fn mesa_25s_dialect_is_not_mesa_22s() {
        let nir25 = "con 32 %278 = @resource_intel (%274 (0xdeaddead), %820 (0x2)) (desc_set=0, binding=0, resource_intel=0)\n@store_ssbo (%1, %278, %3) ()\n";
        assert!(!is_mesa_22(nir25));
    }
}
