//! anv's driver constants for a compute thread on Gfx9, per Mesa version: which bytes of
//! `struct anv_push_constants` the listing's push range holds, and what anv writes there.
//!
//! anv pushes one range, "Vulkan push constants and API params", ending at the 32-byte block
//! that holds `cs.subgroup_id` (`anv_nir_compute_push_layout`: on Gfx9 `push_end` is the
//! subgroup id's offset, brw appends the id itself as the last parameter, and the start is
//! rounded down to 32 bytes). The listing names the range's size; where its end falls in the
//! struct, and what lies before it, differ between versions:
//!
//! - Mesa 25.0 (`vulkan/anv_private.h:3682-3758`, 25.0.7): the `cs` block is 32 bytes of its
//!   own — `base_work_group_id[3]`, `num_work_groups[3]`, `subgroup_id`.
//! - Mesa 22.3 (`vulkan/anv_private.h:2378-2408`, 22.3.6): `cs` follows `desc_sets[32]` at byte
//!   504 — `base_work_group_id[3]`, then `subgroup_id` at 516, so the range ends at 544 and is
//!   64 bytes when the shader reads the base workgroup id. There is no `num_work_groups`: 22.3
//!   reads it from binding-table entry 0 (`genX_cmd_buffer.c:5445`), which our programs never
//!   use.
//!
//! Everything else in the range is zero: our dispatches have no base workgroup and no client
//! push constants, and on Gfx9 no descriptor-set addresses are read.

/// Where anv's compute constants sit, in bytes before the end of the pushed range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fields {
    base_work_group_id: u32,
    num_work_groups: Option<u32>,
    subgroup_id: u32,
}

/// Mesa 25.0's `cs` block: the range's last 32 bytes.
const MESA_25: Fields = Fields {
    base_work_group_id: 32,
    num_work_groups: Some(20),
    subgroup_id: 8,
};

/// Mesa 22.3's: `base_work_group_id` at 504 and `subgroup_id` at 516 of a range ending at 544.
const MESA_22: Fields = Fields {
    base_work_group_id: 40,
    num_work_groups: None,
    subgroup_id: 28,
};

/// The pushed range of one kernel: its size and its fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Push {
    bytes: u32,
    fields: Fields,
}

impl Push {
    /// The push layout of a kernel compiled by anv of Mesa `mesa` (`22.3.6`, `25.0.7`) whose
    /// listing starts with `header`; `None` when nothing is pushed. `Err` when the version's
    /// layout is not known or the listing pushes something else.
    pub fn of(mesa: &str, header: &[String]) -> Result<Option<Push>, String> {
        let fields = if mesa.starts_with("25.0.") {
            MESA_25
        } else if mesa.starts_with("22.3.") {
            MESA_22
        } else {
            return Err(format!(
                "anv's push constants of Mesa {mesa} are not modelled"
            ));
        };
        let ranges: Vec<&str> = (header.iter().map(|l| l.trim()))
            .filter(|l| l.starts_with("RANGE"))
            .collect();
        let bytes = match ranges.as_slice() {
            [] => return Ok(None),
            [range] => range
                .strip_prefix("RANGE0 (")
                .and_then(|r| r.strip_suffix("B): Vulkan push constants and API params"))
                .and_then(|b| b.parse::<u32>().ok())
                .filter(|b| b % 32 == 0 && (32..=64).contains(b)),
            _ => None,
        };
        let bytes = bytes
            .ok_or_else(|| format!("push constant ranges {} (Mesa {mesa})", ranges.join("; ")))?;
        Ok(Some(Push { bytes, fields }))
    }

    /// The registers from `g1` for thread `thread` of a dispatch of `workgroups` workgroups
    /// (along x).
    pub fn registers(&self, workgroups: u32, thread: u32) -> Vec<(u8, [u32; 8])> {
        let mut dwords = vec![0u32; self.bytes as usize / 4];
        let mut put = |before_end: u32, values: &[u32]| {
            for (i, v) in values.iter().enumerate() {
                let at = (self.bytes as i64 - before_end as i64) / 4 + i as i64;
                if let Some(d) = usize::try_from(at).ok().and_then(|a| dwords.get_mut(a)) {
                    *d = *v;
                }
            }
        };
        put(self.fields.base_work_group_id, &[0, 0, 0]);
        if let Some(at) = self.fields.num_work_groups {
            put(at, &[workgroups, 1, 1]);
        }
        put(self.fields.subgroup_id, &[thread]);
        (dwords.chunks(8).enumerate())
            .map(|(i, c)| (1 + i as u8, c.try_into().expect("32-byte blocks")))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(range: &str) -> Vec<String> {
        vec!["Push constant ranges:".into(), format!("    {range}")]
    }

    #[test]
    fn mesa_25_pushes_the_cs_block_and_mesa_22_the_subgroup_id_after_the_base_workgroup() {
        let range = |b: u32| {
            header(&format!(
                "RANGE0 ({b}B): Vulkan push constants and API params"
            ))
        };
        let p25 = Push::of("25.0.7", &range(32)).unwrap().unwrap();
        assert_eq!(p25.registers(3, 2), vec![(1, [0, 0, 0, 3, 1, 1, 2, 0])]);
        // 22.3.6's listing reads the subgroup id as g2.1 and the base workgroup id x as g1.6
        // (`shl g7 g2.1 4`, `add g5 g26 g1.6`, nested_loop_break_continue.ir on skl).
        let p22 = Push::of("22.3.6", &range(64)).unwrap().unwrap();
        assert_eq!(
            p22.registers(3, 2),
            vec![(1, [0; 8]), (2, [0, 2, 0, 0, 0, 0, 0, 0])]
        );
        // Without the base workgroup id the range is only the block holding the subgroup id.
        let p22 = Push::of("22.3.6", &range(32)).unwrap().unwrap();
        assert_eq!(p22.registers(3, 5), vec![(1, [0, 5, 0, 0, 0, 0, 0, 0])]);
        assert_eq!(Push::of("22.3.6", &[]).unwrap(), None);
    }

    #[test]
    fn an_unknown_version_or_range_is_not_run() {
        let range = header("RANGE0 (32B): Vulkan push constants and API params");
        assert!(Push::of("24.1.0", &range)
            .unwrap_err()
            .contains("Mesa 24.1.0"));
        let ubo = header("RANGE0 (32B): UBO (set=0 binding=1 start=0B)");
        assert!(Push::of("25.0.7", &ubo).unwrap_err().contains("UBO"));
    }
}
