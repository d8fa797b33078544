//! Unit tests of the `anv` target that need no driver.

use super::*;

#[test]
fn the_mesa_version_is_read_from_the_drivers_own_description() {
    let d25 = "Intel(R) HD Graphics 530 (SKL GT2) [Intel open-source Mesa driver Mesa 25.0.7-2~bpo12+1] (Vulkan 1.4.305, device 0)";
    let d22 = "Intel(R) HD Graphics 530 (SKL GT2) [Intel open-source Mesa driver Mesa 22.3.6] (Vulkan 1.3.230, device 0)";
    assert_eq!(mesa_version(d25), "25.0.7");
    assert_eq!(mesa_version(d22), "22.3.6");
    assert_eq!(mesa_version("llvmpipe"), "");
}
