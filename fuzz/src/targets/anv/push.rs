//! anv's driver constants for a compute thread, per Mesa version: which bytes of
//! `struct anv_push_constants` a kernel receives, where, and what anv writes there.
//!
//! **Mesa 22.3 and 25.0.** anv pushes one range, "Vulkan push constants and API params",
//! ending at the 32-byte block that holds `cs.subgroup_id` (`anv_nir_compute_push_layout`: on
//! Gfx9 `push_end` is the subgroup id's offset, brw appends the id itself as the last parameter,
//! and the start is rounded down to 32 bytes). The listing's header names the range's size;
//! where its end falls in the struct, and what lies before it, differ between versions:
//!
//! - Mesa 25.0 (`vulkan/anv_private.h:3682-3758`, 25.0.7): the `cs` block is 32 bytes of its
//!   own — `base_work_group_id[3]`, `num_work_groups[3]`, `subgroup_id`.
//! - Mesa 22.3 (`vulkan/anv_private.h:2378-2408`, 22.3.6): `cs` follows `desc_sets[32]` at byte
//!   504 — `base_work_group_id[3]`, then `subgroup_id` at 516, so the range ends at 544 and is
//!   64 bytes when the shader reads the base workgroup id. There is no `num_work_groups`: 22.3
//!   reads it from binding-table entry 0 (`genX_cmd_buffer.c:5445`), which our programs never
//!   use.
//!
//! On Gfx12.5 the range stays in memory at `g0.0[31:6]` and the code loads it itself.
//!
//! **Mesa 26.x** (read: `src/intel/vulkan/anv_types.h:115-206` and
//! `anv_nir_compute_push_layout.c` of Mesa's main line as mirrored at sailfishos-mirror/mesa,
//! commits 0983c72a and 13960df1 — which release they are is not recorded; 26.2.6's own source
//! is in no archive we reach, so every fact below was checked on 26.2.6's captures). The struct
//! moved to `anv_types.h` and grew: `client_data[256]`, `desc_surface_offsets[32]`,
//! `desc_sampler_offsets[32]`, `dynamic_offsets[16]` and an 8-byte union (`ray_query_globals`)
//! put the `cs` block at 584 — `base_workgroup[3]` 584, `num_workgroups[3]` 596,
//! `unaligned_invocations_x` 608, `subgroup_id` 612 (`:184-205`). Only the dwords the NIR
//! reads are pushed (`anv_nir_compute_push_layout.c:97-185`, `gather_push_data`, sets a bit per
//! dword loaded), and:
//!
//! - Below Gfx12.5 (skl, tgl) the range runs from the first dword read rounded down to 32
//!   bytes to the last one, its size rounded up to a register (`compute_final_push_range`
//!   `:513-600`, start and size at `:567-593`); brw is told where the subgroup id sits only if
//!   it is read (`:835-842`). The range is in a representation of its own ("Shader push map",
//!   not the listing's header), and the final NIR's `load_push_data_intel` bases count from
//!   the range's start, which is the one start at which every load is a `cs` field. So a
//!   program reading its workgroup id and subgroup id gets 64 bytes from 576 (base workgroup
//!   `g1.2-4`, counts `g1.5-7`, subgroup id `g2.1`); one reading only the subgroup id 32 from
//!   608 (`g1.1`); only the counts, 32 from 576.
//! - On Gfx12.5 (dg2, mtl; `stage_has_inline_param` `:504-511`) fewer than 8 dwords go into
//!   the compute walker's inline parameter instead (`:555-565`), in struct order, listed as
//!   "Inline promoted dwords: 146, 147, 148," (dword 146 is byte 584). brw puts that register
//!   right after the hardware's local ids (captured: `r2` at SIMD8 and SIMD16, `r3` at SIMD32,
//!   `r1` with no local ids); the subgroup id stays in `g0.2`. More dwords (a pushed range
//!   beside them) are not modelled: our programs read at most the base workgroup id.
//!
//! Everything else read is zero: our dispatches have no base workgroup and no client push
//! constants, and no descriptor-set offsets are read. anv 26 reads the workgroup counts from
//! memory when `x` is `0xffffffff` (an indirect dispatch); ours are direct.

/// Where anv's 22.3 and 25.0 compute constants sit, in bytes before the end of the pushed range.
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

/// Where Mesa 26's `cs` fields sit in `struct anv_push_constants`, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Offsets {
    base_workgroup: u32,
    num_workgroups: u32,
    unaligned_invocations_x: u32,
    subgroup_id: u32,
}

/// Mesa 26.x (checked on 26.2.6).
const MESA_26: Offsets = Offsets {
    base_workgroup: 584,
    num_workgroups: 596,
    unaligned_invocations_x: 608,
    subgroup_id: 612,
};

impl Offsets {
    /// The driver value at byte `at` of the struct, if it is a `cs` field's.
    fn slot(&self, at: u32) -> Option<Slot> {
        let field = |start: u32, words: u32| (start..start + 4 * words).contains(&at);
        let word = |start: u32| ((at - start) / 4) as u8;
        if field(self.base_workgroup, 3) {
            Some(Slot::BaseWorkgroup)
        } else if field(self.num_workgroups, 3) {
            Some(Slot::Workgroups(word(self.num_workgroups)))
        } else if field(self.unaligned_invocations_x, 1) {
            Some(Slot::Unaligned)
        } else if field(self.subgroup_id, 1) {
            Some(Slot::SubgroupId)
        } else {
            None
        }
    }

    /// The 32-byte blocks a range may start at: those holding a `cs` field.
    fn starts(&self) -> Vec<u32> {
        let mut starts: Vec<u32> = [
            self.base_workgroup,
            self.num_workgroups,
            self.unaligned_invocations_x,
            self.subgroup_id,
        ]
        .iter()
        .map(|o| o / 32 * 32)
        .collect();
        starts.dedup();
        starts
    }
}

/// How a version lays out the driver constants.
#[derive(Clone, Copy, Debug)]
enum Layout {
    /// 22.3, 25.0: a range ending at the subgroup id's 32-byte block.
    EndsAtSubgroupId(Fields),
    /// 26.x: only the dwords read, as a range (below Gfx12.5) or inline (Gfx12.5).
    Read(Offsets),
}

/// What one dword of the driver constants holds for a thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// Nothing our dispatch sets (client data, descriptor offsets, padding).
    Zero,
    /// `base_workgroup[i]`: our dispatches start at workgroup 0.
    BaseWorkgroup,
    /// `num_workgroups[i]`: the dispatch's count along x, 1 along y and z.
    Workgroups(u8),
    /// `unaligned_invocations_x`: only unaligned dispatches (not ours) set it.
    Unaligned,
    /// The thread's index in its workgroup.
    SubgroupId,
}

impl Slot {
    fn value(self, workgroups: u32, thread: u32) -> u32 {
        match self {
            Slot::Workgroups(0) => workgroups,
            Slot::Workgroups(_) => 1,
            Slot::SubgroupId => thread,
            Slot::Zero | Slot::BaseWorkgroup | Slot::Unaligned => 0,
        }
    }
}

/// What one kernel's capture says about the driver constants it reads, besides the listing's
/// header: anv 26's "Shader push map" and the loads of its final NIR.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reads {
    /// The lines of the "Shader push map" representation (Mesa 26; none before).
    pub map: Vec<String>,
    /// Each `load_push_data_intel` of the final NIR: (base, range) in bytes from the range's
    /// start; `None` when one's offset is not the constant 0.
    pub loads: Option<Vec<(u32, u32)>>,
    /// Whether the final NIR reads the local invocation id (on Gfx12.5 the hardware then
    /// generates it into the registers after `g0`).
    pub local_ids: bool,
}

impl Reads {
    /// Reads the "Shader push map" (`map`) and "Final NIR" (`nir`) representations.
    pub fn read(map: Option<&str>, nir: Option<&str>) -> Reads {
        let map = map.map_or(vec![], |m| m.lines().map(str::to_string).collect());
        let nir = nir.unwrap_or_default();
        let loads = nir
            .lines()
            .filter_map(|l| l.split_once("@load_push_data_intel (").map(|(_, r)| r))
            .map(|rest| {
                let (source, indices) = rest.split_once(") (")?;
                let number = |key: &str| {
                    let (_, v) = indices.split_once(key)?;
                    let digits: String = v.chars().take_while(char::is_ascii_digit).collect();
                    digits.parse::<u32>().ok()
                };
                (source.ends_with("(0x0)")).then_some(())?;
                Some((number("base=")?, number("range=")?))
            })
            .collect();
        Reads {
            map,
            loads,
            local_ids: nir.contains("@load_local_invocation_id"),
        }
    }
}

/// The driver constants of one kernel: its pushed range, and on Gfx12.5 from Mesa 26 its
/// inline parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Push {
    /// The pushed range's dwords: from `g1` below Gfx12.5, in memory at `g0.0` on Gfx12.5.
    pushed: Vec<Slot>,
    /// Gfx12.5, Mesa 26: the inline parameter register's dwords.
    inline: Vec<Slot>,
}

impl Push {
    /// The driver constants of a kernel compiled by anv of Mesa `mesa` (`22.3.6`, `25.0.7`,
    /// `26.2.6`) for a GPU of `xehp` (Gfx12.5) or not, whose listing starts with `header` and
    /// whose capture shows `reads`; `None` when nothing is pushed. `Err` when the version's
    /// layout is not known or the kernel reads something else.
    pub fn of(
        mesa: &str,
        xehp: bool,
        header: &[String],
        reads: &Reads,
    ) -> Result<Option<Push>, String> {
        let layout = if mesa.starts_with("26.") {
            Layout::Read(MESA_26)
        } else if mesa.starts_with("25.0.") {
            Layout::EndsAtSubgroupId(MESA_25)
        } else if mesa.starts_with("22.3.") {
            Layout::EndsAtSubgroupId(MESA_22)
        } else {
            return Err(format!(
                "anv's push constants of Mesa {mesa} are not modelled"
            ));
        };
        // Mesa 26 prints the push map on its own; before, it heads the listing.
        let lines = if reads.map.is_empty() {
            header
        } else {
            &reads.map
        };
        let lines: Vec<&str> = lines.iter().map(|l| l.trim()).collect();
        let ranges: Vec<&str> = (lines.iter().copied())
            .filter(|l| l.starts_with("RANGE"))
            .collect();
        let inline = (lines.iter())
            .find_map(|l| l.strip_prefix("Inline promoted dwords:"))
            .map(|list| {
                (list.split(',').map(str::trim).filter(|w| !w.is_empty()))
                    .map(|w| w.parse::<u32>().map_err(|_| format!("inline dword {w:?}")))
                    .collect::<Result<Vec<u32>, String>>()
            })
            .transpose()?
            .unwrap_or_default();
        let bytes = match ranges.as_slice() {
            [] => None,
            [range] => Some(
                range
                    .strip_prefix("RANGE0 (")
                    .and_then(|r| r.strip_suffix("B): Vulkan push constants and API params"))
                    .and_then(|b| b.parse::<u32>().ok())
                    .filter(|b| b % 32 == 0 && (32..=64).contains(b))
                    .ok_or_else(|| format!("push constant range {range} (Mesa {mesa})"))?,
            ),
            _ => {
                return Err(format!(
                    "push constant ranges {} (Mesa {mesa})",
                    ranges.join("; ")
                ))
            }
        };
        let push = match layout {
            Layout::EndsAtSubgroupId(fields) => {
                if !inline.is_empty() {
                    return Err(format!("inline push data before Mesa 26 (Mesa {mesa})"));
                }
                bytes.map(|b| Push {
                    pushed: before_end(fields, b),
                    inline: vec![],
                })
            }
            Layout::Read(offsets) => read(offsets, xehp, bytes, &inline, reads)
                .map_err(|why| format!("{why} (Mesa {mesa})"))?,
        };
        Ok(push)
    }

    /// The registers from `g1` for thread `thread` of a dispatch of `workgroups` workgroups
    /// (along x): the pushed range.
    pub fn registers(&self, workgroups: u32, thread: u32) -> Vec<(u8, [u32; 8])> {
        let mut dwords: Vec<u32> = (self.pushed.iter())
            .map(|s| s.value(workgroups, thread))
            .collect();
        dwords.resize(dwords.len().div_ceil(8) * 8, 0);
        (dwords.chunks(8).enumerate())
            .map(|(i, c)| (1 + i as u8, c.try_into().expect("32-byte blocks")))
            .collect()
    }

    /// Whether the kernel reads an inline parameter (Gfx12.5, Mesa 26).
    pub fn has_inline(&self) -> bool {
        !self.inline.is_empty()
    }

    /// The inline parameter register of that thread (Gfx12.5, Mesa 26), if the kernel reads one.
    pub fn inline(&self, workgroups: u32, thread: u32) -> Option<[u32; 8]> {
        if !self.has_inline() {
            return None;
        }
        let mut words = [0; 8];
        for (w, s) in words.iter_mut().zip(&self.inline) {
            *w = s.value(workgroups, thread);
        }
        Some(words)
    }
}

/// A 22.3 or 25.0 range of `bytes` bytes, its fields placed before its end.
fn before_end(fields: Fields, bytes: u32) -> Vec<Slot> {
    let mut slots = vec![Slot::Zero; bytes as usize / 4];
    let mut put = |before_end: u32, values: &[Slot]| {
        for (i, v) in values.iter().enumerate() {
            let at = (bytes as i64 - before_end as i64) / 4 + i as i64;
            if let Some(d) = usize::try_from(at).ok().and_then(|a| slots.get_mut(a)) {
                *d = *v;
            }
        }
    };
    put(fields.base_work_group_id, &[Slot::BaseWorkgroup; 3]);
    if let Some(at) = fields.num_work_groups {
        put(at, &[0, 1, 2].map(Slot::Workgroups));
    }
    put(fields.subgroup_id, &[Slot::SubgroupId]);
    slots
}

/// A Mesa 26 kernel's driver constants: the range of `bytes` (if any) holding the final NIR's
/// loads, or the `inline` dwords.
fn read(
    offsets: Offsets,
    xehp: bool,
    bytes: Option<u32>,
    inline: &[u32],
    reads: &Reads,
) -> Result<Option<Push>, String> {
    if xehp {
        if bytes.is_some() {
            return Err("a pushed range on Gfx12.5 (beside the inline parameter)".into());
        }
        if inline.is_empty() {
            return Ok(None);
        }
        if inline.len() > 8 {
            return Err(format!("{} inline dwords", inline.len()));
        }
        let inline = (inline.iter())
            .map(|&d| {
                offsets
                    .slot(4 * d)
                    .ok_or_else(|| format!("inline dword {d}, no cs field"))
            })
            .collect::<Result<_, String>>()?;
        return Ok(Some(Push {
            pushed: vec![],
            inline,
        }));
    }
    if !inline.is_empty() {
        return Err("inline push data below Gfx12.5".into());
    }
    let Some(bytes) = bytes else {
        return Ok(None);
    };
    let loads =
        (reads.loads.as_ref()).ok_or("a push load at a non-constant offset in the final NIR")?;
    // The range starts at the 32-byte block of the first dword read: the start at which every
    // load is of a `cs` field and the first of them lies in the first block.
    let fits = |start: u32| {
        !loads.is_empty()
            && loads.iter().all(|&(base, range)| {
                base + range <= bytes
                    && (start + base..start + base + range)
                        .step_by(4)
                        .all(|at| offsets.slot(at).is_some())
            })
            && loads.iter().map(|&(base, _)| base).min() < Some(32)
    };
    let starts: Vec<u32> = offsets.starts().into_iter().filter(|&s| fits(s)).collect();
    let [start] = starts.as_slice() else {
        return Err(format!(
            "a {bytes}-byte push range whose loads {loads:?} fit {} starts",
            starts.len()
        ));
    };
    let pushed = (0..bytes / 4)
        .map(|d| offsets.slot(start + 4 * d).unwrap_or(Slot::Zero))
        .collect();
    Ok(Some(Push {
        pushed,
        inline: vec![],
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(range: &str) -> Vec<String> {
        vec!["Push constant ranges:".into(), format!("    {range}")]
    }

    fn range(b: u32) -> Vec<String> {
        header(&format!(
            "RANGE0 ({b}B): Vulkan push constants and API params"
        ))
    }

    fn no_reads() -> Reads {
        Reads::default()
    }

    #[test]
    fn mesa_25_pushes_the_cs_block_and_mesa_22_the_subgroup_id_after_the_base_workgroup() {
        let p25 = Push::of("25.0.7", false, &range(32), &no_reads())
            .unwrap()
            .unwrap();
        assert_eq!(p25.registers(3, 2), vec![(1, [0, 0, 0, 3, 1, 1, 2, 0])]);
        // 22.3.6's listing reads the subgroup id as g2.1 and the base workgroup id x as g1.6
        // (`shl g7 g2.1 4`, `add g5 g26 g1.6`, nested_loop_break_continue.ir on skl).
        let p22 = Push::of("22.3.6", false, &range(64), &no_reads())
            .unwrap()
            .unwrap();
        assert_eq!(
            p22.registers(3, 2),
            vec![(1, [0; 8]), (2, [0, 2, 0, 0, 0, 0, 0, 0])]
        );
        // Without the base workgroup id the range is only the block holding the subgroup id.
        let p22 = Push::of("22.3.6", false, &range(32), &no_reads())
            .unwrap()
            .unwrap();
        assert_eq!(p22.registers(3, 5), vec![(1, [0, 5, 0, 0, 0, 0, 0, 0])]);
        assert_eq!(Push::of("22.3.6", false, &[], &no_reads()).unwrap(), None);
        assert_eq!(p22.inline(3, 5), None);
    }

    /// The push map and final NIR of a Mesa 26.2.6 kernel, as anv reports them.
    fn reads_26(map: &[&str], nir: &[&str]) -> Reads {
        Reads::read(Some(&map.join("\n")), Some(&nir.join("\n")))
    }

    #[test]
    fn mesa_26_pushes_the_dwords_read_from_the_block_of_the_first() {
        // nested_loop_break_continue.ir on skl, SIMD16, 26.2.6 (`gpufuzz run --target anv
        // --mesa 26.2.6 --emit asm`; the push map and final NIR from the same capture): the
        // code reads the base workgroup id x as r1.2 (`add r8 r20<0> r1.2<0>`) and the subgroup
        // id as r2.1 (`shl r3 r2.1<0> 4`).
        let map = [
            "Push constant ranges:",
            "    RANGE0 (64B): Vulkan push constants and API params",
        ];
        let both = reads_26(
            &map,
            &[
                "    con 32    %656 = load_const (0x00000000)",
                "    con 32x3  %653 = @load_push_data_intel (%656 (0x0)) (base=8, range=12, access=none)",
                "    con 32    %655 = @load_push_data_intel (%656 (0x0)) (base=36, range=4, access=none)",
                "    div 32    %642 = @load_subgroup_invocation",
            ],
        );
        assert_eq!(both.loads, Some(vec![(8, 12), (36, 4)]));
        let p = Push::of("26.2.6", false, &[], &both).unwrap().unwrap();
        assert_eq!(
            p.registers(3, 2),
            vec![(1, [0, 0, 0, 0, 0, 3, 1, 1]), (2, [0, 2, 0, 0, 0, 0, 0, 0])]
        );
        // A shader reading only gl_LocalInvocationIndex (skl, SIMD16, 26.2.6): 32 bytes from
        // 608, the subgroup id read as r1.1 (`shl r2 r1.1<0> 4`).
        let subgroup = reads_26(
            &["    RANGE0 (32B): Vulkan push constants and API params"],
            &["@load_push_data_intel (%571 (0x0)) (base=4, range=4, access=none)"],
        );
        let p = Push::of("26.2.6", false, &[], &subgroup).unwrap().unwrap();
        assert_eq!(p.registers(3, 5), vec![(1, [0, 5, 0, 0, 0, 0, 0, 0])]);
        // One reading only gl_NumWorkGroups (local size 1): 32 bytes from 576, the counts read
        // as r1.5-7 (`cmp (eq) r2 r1.5<0> -1`, then r1.6 and r1.7 as an indirect address).
        let counts = reads_26(
            &["    RANGE0 (32B): Vulkan push constants and API params"],
            &["@load_push_data_intel (%567 (0x0)) (base=20, range=12, access=none)"],
        );
        let p = Push::of("26.2.6", false, &[], &counts).unwrap().unwrap();
        assert_eq!(p.registers(4, 0), vec![(1, [0, 0, 0, 0, 0, 4, 1, 1])]);
        // Nothing read, nothing pushed.
        assert_eq!(
            Push::of(
                "26.2.6",
                false,
                &[],
                &reads_26(&["Push constant ranges:"], &[])
            )
            .unwrap(),
            None
        );
    }

    #[test]
    fn mesa_26_on_gfx12_5_promotes_the_dwords_read_to_the_inline_parameter() {
        // nested_loop_break_continue.ir on dg2, 26.2.6: the base workgroup id (dwords 146-148,
        // byte 584) inline, read as r2<0> at SIMD16 (`add r1 r9<0> r2<0>`).
        let base = reads_26(
            &["Inline promoted dwords: 146, 147, 148, "],
            &["@load_inline_data_intel (%742 (0x0)) (base=0, range=12)"],
        );
        let p = Push::of("26.2.6", true, &[], &base).unwrap().unwrap();
        assert_eq!(p.registers(3, 1), vec![]);
        assert_eq!(p.inline(3, 1), Some([0; 8]));
        // gl_NumWorkGroups and gl_GlobalInvocationID (dg2, SIMD16): the counts are inline
        // dwords 3-5, read as r2.3 (`cmp (eq) r5 r2.3<0> -1`).
        let both = reads_26(
            &["Inline promoted dwords: 146, 147, 148, 149, 150, 151, "],
            &[],
        );
        let p = Push::of("26.2.6", true, &[], &both).unwrap().unwrap();
        assert_eq!(p.inline(3, 1), Some([0, 0, 0, 3, 1, 1, 0, 0]));
        assert!(!both.local_ids && reads_26(&[], &["@load_local_invocation_id"]).local_ids);
        // A pushed range beside the inline parameter, or a dword of no cs field, is not run.
        let ranged = reads_26(
            &[
                "    RANGE0 (32B): Vulkan push constants and API params",
                "Inline promoted dwords: 255, 254, ",
            ],
            &[],
        );
        assert!(Push::of("26.2.6", true, &[], &ranged).is_err());
        let client = reads_26(&["Inline promoted dwords: 0, "], &[]);
        assert!(Push::of("26.2.6", true, &[], &client)
            .unwrap_err()
            .contains("dword 0"));
    }

    #[test]
    fn an_unknown_version_or_range_is_not_run() {
        let r = range(32);
        assert!(Push::of("24.1.0", false, &r, &no_reads())
            .unwrap_err()
            .contains("Mesa 24.1.0"));
        let ubo = header("RANGE0 (32B): UBO (set=0 binding=1 start=0B)");
        assert!(Push::of("25.0.7", false, &ubo, &no_reads())
            .unwrap_err()
            .contains("UBO"));
        // Mesa 26: a load reaching past the cs fields from either start, or one at a computed
        // offset.
        let other = reads_26(
            &["    RANGE0 (32B): Vulkan push constants and API params"],
            &["@load_push_data_intel (%5 (0x0)) (base=0, range=12, access=none)"],
        );
        assert!(Push::of("26.2.6", false, &[], &other)
            .unwrap_err()
            .contains("fit 0 starts"));
        let indirect = reads_26(
            &["    RANGE0 (32B): Vulkan push constants and API params"],
            &["@load_push_data_intel (%5) (base=4, range=4, access=none)"],
        );
        assert!(Push::of("26.2.6", false, &[], &indirect)
            .unwrap_err()
            .contains("non-constant"));
    }
}
