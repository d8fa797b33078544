//! anv's binding table for one compiled shader, read from the driver's own "Final NIR".
//!
//! anv numbers the bindings a shader uses in `anv_nir_apply_pipeline_layout`
//! (`vulkan/anv_nir_apply_pipeline_layout.c:2293-2403`, Mesa 25.0.7): each used binding gets a
//! score, its NIR use count shifted left by 7 and divided by its array size, with bit 15 set
//! when the descriptor cannot be bindless (on Gfx9 a sampled image); the bindings are sorted
//! by score, then set, then binding (`compare_binding_infos`, :2006-2016), and take binding
//! table slots in that order after the descriptor-set buffers. The use count is taken over the
//! NIR that `spirv_to_nir` and `brw_preprocess_nir` left (`get_used_bindings`, :255-296), so
//! it cannot be derived from our IR: CSE and dead-code elimination change it.
//!
//! The same pass leaves its answer in the NIR: every descriptor access becomes a
//! `resource_intel` intrinsic whose indices name the set and binding and whose second source is
//! the binding-table index (`build_surface_index_for_binding`, :919-995), printed as
//! `@resource_intel (%a (0xdeaddead), %b (0x2), …) (desc_set=0, binding=6, resource_intel=0,
//! …)`. anv reports that NIR as the executable's "Final NIR", so the table is the driver's,
//! not a guess.

use std::collections::BTreeMap;

/// Binding-table index → binding number (set 0; our programs use one set).
pub type BindingTable = BTreeMap<u8, u32>;

/// The surfaces of the `resource_intel` intrinsics in `nir` (sampler-table entries aside);
/// Mesa 22.3's NIR has none and is solved by `binding_table_22` (`super::binding_table`
/// chooses). `Err` says why the table cannot be known: a bindless access, an index that is not
/// a constant, another set, or two bindings claiming one index.
pub fn from_nir(nir: &str) -> Result<BindingTable, String> {
    let mut table = BindingTable::new();
    for line in nir.lines().filter(|l| l.contains("@resource_intel (")) {
        let access = Access::parse(line).ok_or_else(|| format!("unreadable NIR: {line:?}"))?;
        if access.flags.split('|').any(|f| f == "sampler") {
            continue;
        }
        if access.flags.split('|').any(|f| f == "bindless") {
            return Err(format!("binding {} is bindless", access.binding));
        }
        if access.set != 0 {
            return Err(format!("descriptor set {}", access.set));
        }
        let index = access
            .index
            .ok_or_else(|| format!("binding {}'s table index is not a constant", access.binding))?;
        let index = u8::try_from(index)
            .map_err(|_| format!("binding {} at table index {index}", access.binding))?;
        match table.insert(index, access.binding) {
            Some(other) if other != access.binding => {
                return Err(format!(
                    "bindings {other} and {} both at table index {index}",
                    access.binding
                ))
            }
            _ => {}
        }
    }
    Ok(table)
}

/// One printed `resource_intel`.
struct Access<'a> {
    /// The second source's constant, when printed: the binding-table index.
    index: Option<u32>,
    set: u32,
    binding: u32,
    /// `resource_intel=`'s value: `0`, or flags such as `sampler|nonuniform`.
    flags: &'a str,
}

impl<'a> Access<'a> {
    fn parse(line: &'a str) -> Option<Self> {
        let (_, rest) = line.split_once("@resource_intel (")?;
        let (sources, indices) = rest.split_once(") (")?;
        // A source prints as `%n` or `%n (0xvalue)` when constant.
        let second = sources.split(", ").nth(1)?;
        let index = second
            .split_once("(0x")
            .and_then(|(_, v)| v.split(|c: char| !c.is_ascii_hexdigit()).next())
            .and_then(|v| u32::from_str_radix(v, 16).ok());
        let field = |name: &str| -> Option<&'a str> {
            indices
                .split(", ")
                .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
                .map(|v| v.trim_end_matches(')'))
        };
        Some(Access {
            index,
            set: field("desc_set")?.parse().ok()?,
            binding: field("binding")?.parse().ok()?,
            flags: field("resource_intel")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines of a real Skylake "Final NIR" (Mesa 25.0.7): an SSBO at binding 0 used twice, a
    /// sampled image at binding 6 with its sampler.
    const SKL: &str = "\
        con 32    %278 = @resource_intel (%274 (0xdeaddead), %820 (0x2), %35 (0x0), %277 (0x0)) (desc_set=0, binding=0, resource_intel=0, resource_block_intel=-1)
        con 32    %311 = @resource_intel (%307 (0xdeaddead), %822 (0x2), %35 (0x0), %310 (0x0)) (desc_set=0, binding=0, resource_intel=0, resource_block_intel=-1)
        con 32    %756 = @resource_intel (%752 (0xdeaddead), %753 (0x1), %751 (0x0), %755 (0x0)) (desc_set=0, binding=6, resource_intel=0, resource_block_intel=-1)
        con 32    %760 = @resource_intel (%759 (0xdeaddead), %757 (0x0), %757 (0x0), %758 (0x0)) (desc_set=0, binding=6, resource_intel=sampler, resource_block_intel=-1)
        div 32x4  %110 = (uint32)txl %756 (texture_offset), %760 (sampler_offset), %108 (coord), %109 (lod), 0 (texture), 0 (sampler)
";

    #[test]
    fn the_table_is_read_from_the_surfaces_and_the_sampler_entry_is_not_a_surface() {
        let table = from_nir(SKL).unwrap();
        assert_eq!(table, BindingTable::from([(1, 6), (2, 0)]));
    }

    #[test]
    fn a_table_that_cannot_be_known_says_why() {
        let bindless = SKL.replace("resource_intel=0,", "resource_intel=bindless,");
        assert!(from_nir(&bindless).unwrap_err().contains("bindless"));
        let variable = SKL.replace("%820 (0x2)", "%820");
        assert!(from_nir(&variable).unwrap_err().contains("not a constant"));
        let clash = SKL.replace("%753 (0x1)", "%753 (0x2)");
        assert!(from_nir(&clash)
            .unwrap_err()
            .contains("both at table index 2"));
        let set = SKL.replace(
            "desc_set=0, binding=6, resource_intel=0",
            "desc_set=1, binding=6, resource_intel=0",
        );
        assert!(from_nir(&set).unwrap_err().contains("descriptor set 1"));
    }

    #[test]
    fn no_descriptor_access_is_an_empty_table() {
        assert_eq!(from_nir("impl main {\n}\n").unwrap(), BindingTable::new());
    }
}
