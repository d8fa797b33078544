//! Gen12.5's load/store cache (LSC) messages: the descriptor of a send to the untyped global
//! (UGM), shared local (SLM) or typed (TGM) memory port, and brw's text for it.
//!
//! Descriptor bits (`lsc_msg_desc*`, `src/intel/compiler/brw_eu.h:1136-1245`, Mesa 25.0.7):
//! operation 5:0, address size 8:7, data size 11:9, vector size 14:12 (or a component mask
//! 15:12 for the `_cmask` operations), transpose 15, cache control 19:17 (Xe2: 19:16),
//! address type 30:29;
//! fences put scope in 11:9, flush type 14:12 and routing in 18. The extended descriptor holds
//! the surface: a binding-table index in 31:24 with an offset in 23:12, a surface-state index
//! in 31:6, or a flat base offset in 31:12 (`lsc_*_ex_desc*`, `:1292-1340`). Text as
//! `brw_disassemble_inst` prints it (`brw_disasm.c:2342-2425, 1928-1955`), invalid values as
//! brw's `*** invalid ... value N`.

/// `lsc_operation` (`brw_disasm.c:564-589`), by opcode.
fn operation(op: u32) -> Option<&'static str> {
    Some(match op {
        0 => "load",
        2 => "load_cmask",
        4 => "store",
        6 => "store_cmask",
        8 => "atomic_inc",
        9 => "atomic_dec",
        10 => "atomic_load",
        11 => "atomic_store",
        12 => "atomic_add",
        13 => "atomic_sub",
        14 => "atomic_min",
        15 => "atomic_max",
        16 => "atomic_umin",
        17 => "atomic_umax",
        18 => "atomic_cmpxchg",
        19 => "atomic_fadd",
        20 => "atomic_fsub",
        21 => "atomic_fmin",
        22 => "atomic_fmax",
        23 => "atomic_fcmpxchg",
        24 => "atomic_and",
        25 => "atomic_or",
        26 => "atomic_xor",
        31 => "fence",
        _ => return None,
    })
}

/// `lsc_opcode` values the executor tells apart (`brw_eu_defines.h`).
pub const OP_LOAD: u32 = 0;
/// Load with a component mask rather than a vector size.
pub const OP_LOAD_CMASK: u32 = 2;
/// Store.
pub const OP_STORE: u32 = 4;
/// Store with a component mask.
pub const OP_STORE_CMASK: u32 = 6;
/// Fence.
pub const OP_FENCE: u32 = 31;
const FENCE: u32 = OP_FENCE;
const ADDR_SIZE: [Option<&str>; 4] = [None, Some("a16"), Some("a32"), Some("a64")];
const DATA_SIZE: [Option<&str>; 8] = [
    Some("d8"),
    Some("d16"),
    Some("d32"),
    Some("d64"),
    Some("d8u32"),
    Some("d16u32"),
    Some("d16bf32"),
    None,
];
const VECT_SIZE: [&str; 8] = ["V1", "V2", "V3", "V4", "V8", "V16", "V32", "V64"];
const CMASK: [Option<&str>; 16] = [
    None,
    Some("x"),
    Some("y"),
    Some("xy"),
    Some("z"),
    Some("xz"),
    Some("yz"),
    Some("xyz"),
    Some("w"),
    Some("xw"),
    Some("yw"),
    Some("xyw"),
    Some("zw"),
    Some("xzw"),
    Some("yzw"),
    Some("xyzw"),
];
const CACHE_LOAD: [&str; 8] = [
    "L1STATE_L3MOCS",
    "L1UC_L3UC",
    "L1UC_L3C",
    "L1C_L3UC",
    "L1C_L3C",
    "L1S_L3UC",
    "L1S_L3C",
    "L1IAR_L3C",
];
const CACHE_STORE: [&str; 8] = [
    "L1STATE_L3MOCS",
    "L1UC_L3UC",
    "L1UC_L3WB",
    "L1WT_L3UC",
    "L1WT_L3WB",
    "L1S_L3UC",
    "L1S_L3WB",
    "L1WB_L3WB",
];
/// Xe2's 4-bit cache controls (`xe2_lsc_cache_load`/`_store`, `brw_disasm.c:711-733`).
const XE2_CACHE_LOAD: [Option<&str>; 16] = [
    Some("L1STATE_L3MOCS"),
    None,
    Some("L1UC_L3UC"),
    None,
    Some("L1UC_L3C"),
    Some("L1UC_L3CC"),
    Some("L1C_L3UC"),
    None,
    Some("L1C_L3C"),
    Some("L1C_L3CC"),
    Some("L1S_L3UC"),
    None,
    Some("L1S_L3C"),
    None,
    Some("L1IAR_L3IAR"),
    None,
];
const XE2_CACHE_STORE: [Option<&str>; 16] = [
    Some("L1STATE_L3MOCS"),
    None,
    Some("L1UC_L3UC"),
    None,
    Some("L1UC_L3WB"),
    None,
    Some("L1WT_L3UC"),
    None,
    Some("L1WT_L3WB"),
    None,
    Some("L1S_L3UC"),
    None,
    Some("L1S_L3WB"),
    None,
    Some("L1WB_L3WB"),
    None,
];
const FENCE_SCOPE: [Option<&str>; 8] = [
    Some("threadgroup"),
    Some("local"),
    Some("tile"),
    Some("gpu"),
    Some("all_gpu"),
    Some("system_release"),
    Some("system_acquire"),
    None,
];
const FLUSH_TYPE: [Option<&str>; 8] = [
    Some("none"),
    Some("evict"),
    Some("invalidate"),
    Some("discard"),
    Some("clean"),
    Some("l3only"),
    Some("none_6"),
    None,
];
const ROUTING: [&str; 2] = ["normal_routing", "route_to_lsc"];
const ADDR_TYPE: [&str; 4] = ["flat", "bss", "ss", "bti"];

fn bits(v: u32, hi: u32, lo: u32) -> u32 {
    (v >> lo) & ((1 << (hi - lo + 1)) - 1)
}

/// A descriptor's operation (`lsc_opcode`, 5:0).
pub fn op(desc: u32) -> u32 {
    bits(desc, 5, 0)
}

/// The operation's name as brw prints it, or `None` for a value brw has none for.
pub fn op_name(op: u32) -> Option<&'static str> {
    operation(op)
}

/// The address size (`lsc_addr_size`, 8:7): 1 a16, 2 a32, 3 a64.
pub fn addr_size(desc: u32) -> u32 {
    bits(desc, 8, 7)
}

/// The data size (`lsc_data_size`, 11:9): 0 d8, 1 d16, 2 d32, 3 d64, 4 d8u32, 5 d16u32,
/// 6 d16bf32.
pub fn data_size(desc: u32) -> u32 {
    bits(desc, 11, 9)
}

/// The data size's name (`d32`, …), or `None` for the invalid 7.
pub fn data_size_name(code: u32) -> Option<&'static str> {
    DATA_SIZE[code as usize & 7]
}

/// The vector size code (`lsc_vect_size`, 14:12) of an operation without a component mask.
pub fn vect_size(desc: u32) -> u32 {
    bits(desc, 14, 12)
}

/// The elements a vector size code stands for (`lsc_vector_length`, `brw_eu.h:1104-1118`).
pub fn vector_length(code: u32) -> usize {
    [1, 2, 3, 4, 8, 16, 32, 64][code as usize & 7]
}

/// The component mask (15:12, x = bit 0) of `load_cmask`/`store_cmask`.
pub fn cmask(desc: u32) -> u32 {
    bits(desc, 15, 12)
}

/// Whether the data is transposed (bit 15): one address, a block of elements. Only for the
/// operations without a component mask, whose bit 15 is `w`.
pub fn transpose(desc: u32) -> bool {
    bits(desc, 15, 15) != 0
}

/// The address type (`lsc_addr_surface_type`, 30:29): 0 flat, 1 bss, 2 ss, 3 bti.
pub fn addr_type(desc: u32) -> u32 {
    bits(desc, 30, 29)
}

/// The binding-table index of a `bti` extended descriptor (31:24; `lsc_bti_ex_desc_index`).
pub fn bti_index(ex_desc: u32) -> u32 {
    bits(ex_desc, 31, 24)
}

/// The base offset of a `bti` extended descriptor (23:12; `lsc_bti_ex_desc_base_offset`).
pub fn bti_base_offset(ex_desc: u32) -> u32 {
    bits(ex_desc, 23, 12)
}

/// The base offset of a `flat` extended descriptor (31:12; `lsc_flat_ex_desc_base_offset`).
pub fn flat_base_offset(ex_desc: u32) -> u32 {
    bits(ex_desc, 31, 12)
}

/// The surface-state index of an `ss`/`bss` extended descriptor (31:6; `lsc_bss_ex_desc_index`).
pub fn surface_state_index(ex_desc: u32) -> u32 {
    bits(ex_desc, 31, 6)
}

/// brw's `control()`: a space-separated name, or its complaint about a value it has none for.
fn control(out: &mut String, what: &str, name: Option<&str>, value: u32) {
    match name {
        Some(n) => {
            out.push(' ');
            out.push_str(n);
        }
        None => out.push_str(&format!("*** invalid {what} value {value} ")),
    }
}

/// The text of an LSC descriptor after `MsgDesc:`, from ` (` to ` )`; `ex_desc` is the
/// immediate extended descriptor (`None` when it comes from a0, which brw then leaves out).
pub fn describe(desc: u32, ex_desc: Option<u32>, xe2: bool) -> String {
    let mut s = String::from(" (");
    let op = op(desc);
    control(&mut s, "operation", operation(op), op);
    s.push(',');
    let addr_size = addr_size(desc);
    control(
        &mut s,
        "addr_size",
        ADDR_SIZE[addr_size as usize],
        addr_size,
    );
    if op == FENCE {
        s.push(',');
        let scope = bits(desc, 11, 9);
        control(&mut s, "scope", FENCE_SCOPE[scope as usize], scope);
        s.push(',');
        let flush = bits(desc, 14, 12);
        control(&mut s, "flush_type", FLUSH_TYPE[flush as usize], flush);
        s.push(',');
        let routing = bits(desc, 18, 18);
        control(
            &mut s,
            "backup_mode_fence_routing",
            Some(ROUTING[routing as usize]),
            routing,
        );
    } else {
        s.push(',');
        let data = data_size(desc);
        control(&mut s, "data_size", DATA_SIZE[data as usize], data);
        s.push(',');
        if op == OP_LOAD_CMASK || op == OP_STORE_CMASK {
            let mask = cmask(desc);
            control(&mut s, "component_mask", CMASK[mask as usize], mask);
        } else {
            let v = vect_size(desc);
            control(&mut s, "vector_size", Some(VECT_SIZE[v as usize]), v);
            if transpose(desc) {
                s.push_str(", transpose");
            }
        }
        s.push(',');
        let load = op == OP_LOAD || op == OP_LOAD_CMASK;
        let what = if load { "cache_load" } else { "cache_store" };
        if xe2 {
            let cache = bits(desc, 19, 16);
            let table = if load {
                XE2_CACHE_LOAD
            } else {
                XE2_CACHE_STORE
            };
            control(&mut s, what, table[cache as usize], cache);
        } else {
            let cache = bits(desc, 19, 17);
            let table = if load { CACHE_LOAD } else { CACHE_STORE };
            control(&mut s, what, Some(table[cache as usize]), cache);
        }
    }
    s.push_str(&format!(" dst_len = {},", bits(desc, 24, 20)));
    s.push_str(&format!(" src0_len = {},", bits(desc, 28, 25)));
    if let Some(ex) = ex_desc {
        let len = if xe2 { bits(ex, 10, 6) } else { bits(ex, 9, 6) };
        s.push_str(&format!(" src1_len = {len}"));
    }
    control(
        &mut s,
        "address_type",
        Some(ADDR_TYPE[addr_type(desc) as usize]),
        0,
    );
    s.push_str(" )");
    s
}

/// The surface the extended descriptor names (`lsc_disassemble_ex_desc`), read as the
/// descriptor's address type says; brw reads an indirect extended descriptor as 0.
pub fn surface(desc: u32, ex_desc: u32) -> String {
    match addr_type(desc) {
        0 => format!(" base_offset {} ", flat_base_offset(ex_desc)),
        1 | 2 => format!(" surface_state_index {} ", surface_state_index(ex_desc)),
        _ => format!(
            " BTI {}  base_offset {} ",
            bti_index(ex_desc),
            bti_base_offset(ex_desc)
        ),
    }
}
