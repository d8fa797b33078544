//! The GPUs Mesa's amdgpu no-op drm-shim can pretend to be, read from the shim library itself
//! (so a newer shim's GPUs are drawn without a change here). `AMDGPU_GPU_ID` names one of the
//! shim's `amdgpu_devices[]` (`src/amd/drm-shim/amdgpu_devices.c`): an array of large structs
//! (register dumps, ~3.6 KB each) whose first field is the name, a `const char *`.
//!
//! The library is stripped, so the array is found by its shape: in a position-independent
//! x86-64 library every pointer in `.data.rel.ro` has an `R_X86_64_RELATIVE` relocation whose
//! addend is the pointee's address. The names are the pointers into `.rodata` at a fixed stride
//! of at least [`MIN_STRIDE`] bytes (no other table of strings there has elements that large),
//! the longest such run, in array order (the first is the shim's default device).

use std::path::Path;

/// The smallest element a device table can have: the struct holds 768 register words.
const MIN_STRIDE: u64 = 1024;

/// `R_X86_64_RELATIVE`.
const RELATIVE: u32 = 8;

struct Section {
    addr: u64,
    offset: u64,
    size: u64,
}

impl Section {
    fn contains(&self, addr: u64) -> bool {
        addr >= self.addr && addr - self.addr < self.size
    }
}

fn u16_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?).into())
}

fn u32_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?).into())
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// The sections called `names` of a little-endian ELF64 image, in that order.
fn sections<const N: usize>(elf: &[u8], names: [&str; N]) -> Result<[Section; N], String> {
    if elf.get(..6) != Some(b"\x7fELF\x02\x01") {
        return Err("not a little-endian 64-bit ELF file".into());
    }
    let bad = || "truncated ELF section table".to_string();
    let usize_of = |v: u64| usize::try_from(v).map_err(|_| bad());
    let shoff = usize_of(u64_at(elf, 0x28).ok_or_else(bad)?)?;
    let entsize = usize_of(u16_at(elf, 0x3a).ok_or_else(bad)?)?;
    let count = usize_of(u16_at(elf, 0x3c).ok_or_else(bad)?)?;
    let strndx = usize_of(u16_at(elf, 0x3e).ok_or_else(bad)?)?;
    let header = |i: usize| -> Option<(u64, Section)> {
        let h = shoff.checked_add(i.checked_mul(entsize)?)?;
        Some((
            u32_at(elf, h)?,
            Section {
                addr: u64_at(elf, h + 0x10)?,
                offset: u64_at(elf, h + 0x18)?,
                size: u64_at(elf, h + 0x20)?,
            },
        ))
    };
    let names_at = usize_of(header(strndx).ok_or_else(bad)?.1.offset)?;
    let mut found: [Option<Section>; N] = std::array::from_fn(|_| None);
    for i in 0..count {
        let (name, section) = header(i).ok_or_else(bad)?;
        let name = c_string(elf, names_at + usize_of(name)?).unwrap_or("");
        if let Some(k) = names.iter().position(|n| *n == name) {
            found[k] = Some(section);
        }
    }
    let mut out = Vec::with_capacity(N);
    for (k, s) in found.into_iter().enumerate() {
        out.push(s.ok_or_else(|| format!("no {} section", names[k]))?);
    }
    Ok(out
        .try_into()
        .unwrap_or_else(|_| unreachable!("N sections")))
}

/// The NUL-terminated string at file offset `at`, if it is ASCII text.
fn c_string(b: &[u8], at: usize) -> Option<&str> {
    let rest = b.get(at..)?;
    let end = rest.iter().position(|&c| c == 0)?;
    std::str::from_utf8(&rest[..end]).ok()
}

/// A device name as the shim spells them: lowercase letters, digits and `_`.
fn is_device_name(s: &str) -> bool {
    (2..=32).contains(&s.len())
        && s.bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
}

/// The device names in a shim library's image, in the shim's order.
pub fn gpus_in(elf: &[u8]) -> Result<Vec<String>, String> {
    let [rela, relro, rodata] = sections(elf, [".rela.dyn", ".data.rel.ro", ".rodata"])?;
    // Every pointer from .data.rel.ro to a name-like string in .rodata: (where, the string).
    let mut pointers: Vec<(u64, &str)> = Vec::new();
    let start = usize::try_from(rela.offset).map_err(|e| e.to_string())?;
    for i in 0..(rela.size / 24) as usize {
        let at = start + i * 24;
        let (Some(offset), Some(info), Some(addend)) =
            (u64_at(elf, at), u64_at(elf, at + 8), u64_at(elf, at + 16))
        else {
            return Err("truncated .rela.dyn".into());
        };
        if info as u32 != RELATIVE || !relro.contains(offset) || !rodata.contains(addend) {
            continue;
        }
        let file = rodata.offset + (addend - rodata.addr);
        if let Some(s) = usize::try_from(file)
            .ok()
            .and_then(|f| c_string(elf, f))
            .filter(|s| is_device_name(s))
        {
            pointers.push((offset, s));
        }
    }
    pointers.sort_unstable();
    // The longest run at one stride of at least MIN_STRIDE.
    let mut best: &[(u64, &str)] = &[];
    let mut i = 0;
    while i + 1 < pointers.len() {
        let stride = pointers[i + 1].0 - pointers[i].0;
        let mut j = i + 1;
        while j + 1 < pointers.len() && pointers[j + 1].0 - pointers[j].0 == stride {
            j += 1;
        }
        if stride >= MIN_STRIDE && j + 1 - i > best.len() {
            best = &pointers[i..=j];
        }
        i = j;
    }
    if best.is_empty() {
        return Err("no table of device names found".into());
    }
    Ok(best.iter().map(|(_, s)| s.to_string()).collect())
}

/// The device names of the shim library at `path`; the error names the file.
pub fn gpus(path: &Path) -> Result<Vec<String>, String> {
    let elf = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    gpus_in(&elf).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_not_a_shim_is_refused_with_a_reason() {
        assert!(gpus_in(b"#!/bin/sh\n").unwrap_err().contains("not a"));
        let mut truncated = b"\x7fELF\x02\x01\x01".to_vec();
        truncated.resize(0x30, 0);
        assert!(gpus_in(&truncated).unwrap_err().contains("truncated"));
        let missing = Path::new("/nonexistent/libamdgpu_noop_drm_shim.so");
        assert!(gpus(missing).unwrap_err().starts_with("/nonexistent/"));
    }
}
