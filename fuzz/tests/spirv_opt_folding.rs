//! spirv-opt's constant folding of `OpSConvert` of an unsigned constant, as written up in
//! docs/found-bugs/spirv-opt-sconvert-unsigned-fold.md: SPIRV-Tools v2026.4 folds it as a
//! zero-extension, v2023.1 leaves the instruction alone. The write-up's standalone module is
//! run through `spirv-opt -O` with whichever SPIRV-Tools the chosen Mesa has; when a release
//! folds it right, this test fails: move the write-up's row to "fixed".

use fuzz::targets::driver::spirv_opt::{self, Scratch};
use std::process::Stdio;
use vulkan_runner::client::unavailable;

const MODULE: &str = include_str!("../../docs/found-bugs/spirv-opt-sconvert-unsigned-fold.spvasm");

#[test]
fn spirv_opt_folds_sconvert_of_an_unsigned_constant_as_the_write_up_says() {
    if !spirv_opt::installed() {
        return unavailable("spirv-opt (package spirv-tools, or scripts/mesa-sid.sh)");
    }
    let scratch = Scratch::new().unwrap();
    std::fs::write(scratch.outside("x.spvasm"), MODULE).unwrap();
    let at = scratch.inside("");
    let script = format!(
        "cd {at} && spirv-as --target-env vulkan1.1 x.spvasm -o x.spv && \
         spirv-val --target-env vulkan1.1 x.spv && spirv-opt -O x.spv -o o.spv && \
         spirv-dis o.spv -o o.txt"
    );
    let status = spirv_opt::tool("sh", &["-c".into(), script])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("sh runs");
    assert!(
        status.success(),
        "assembling, validating or optimising failed"
    );
    let out = std::fs::read_to_string(scratch.outside("o.txt")).unwrap();
    let version = spirv_opt::version().unwrap_or("spirv-opt");
    // The right fold stores 0xffff8000 (4294934528); the written-up one stores 0x8000.
    assert!(
        !out.contains("4294934528"),
        "{version} folds it right now:\n{out}"
    );
    if version.contains("v2023.") {
        assert!(
            out.contains("OpSConvert"),
            "{version} no longer keeps it:\n{out}"
        );
    } else {
        assert!(
            out.contains("OpStore") && out.contains("%uint_32768"),
            "{version} no longer folds it to 0x8000:\n{out}"
        );
    }
}
