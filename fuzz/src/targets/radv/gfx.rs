//! AMD's graphics IP generations, as Mesa names them (`amd_gfx_level`), and the generation of
//! each GPU the drm-shim can pretend to be. ACO's rules (how many scalar operands an
//! instruction may read, which encodings exist) change with the generation, so a validator's
//! complaint is only understood together with it: a finding's cause records it, and a known
//! ACO bug is one on a range of generations.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A graphics IP generation (Mesa's `enum amd_gfx_level`), oldest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GfxLevel {
    /// Southern Islands (GCN 1).
    Gfx6,
    /// Sea Islands (GCN 2).
    Gfx7,
    /// Volcanic Islands, Polaris (GCN 3/4).
    Gfx8,
    /// Vega (GCN 5), Raven, Renoir.
    Gfx9,
    /// RDNA 1 (Navi 1x).
    Gfx10,
    /// RDNA 2 (Navi 2x, Van Gogh, Raphael/Mendocino).
    Gfx10_3,
    /// RDNA 3 (Navi 3x, Phoenix).
    Gfx11,
    /// RDNA 3.5.
    Gfx11_5,
    /// RDNA 4.
    Gfx12,
}

impl GfxLevel {
    /// The generation of the GPU the shim calls `name` (`vega10` → GFX9), from Mesa's
    /// `amd_family` → `amd_gfx_level` table; `None` for a name Mesa 25.0 does not know
    /// (a newer shim's: its findings then carry no generation, and no known rule applies).
    pub fn of_gpu(name: &str) -> Option<GfxLevel> {
        use GfxLevel::*;
        Some(match name {
            "tahiti" | "pitcairn" | "verde" | "oland" | "hainan" => Gfx6,
            "bonaire" | "kaveri" | "kabini" | "hawaii" => Gfx7,
            "tonga" | "iceland" | "carrizo" | "fiji" | "stoney" | "polaris10" | "polaris11"
            | "polaris12" | "vegam" => Gfx8,
            "vega10" | "vega12" | "vega20" | "raven" | "raven2" | "renoir" | "arcturus"
            | "aldebaran" => Gfx9,
            "navi10" | "navi12" | "navi14" => Gfx10,
            "navi21" | "navi22" | "navi23" | "navi24" | "vangogh" | "rembrandt"
            | "raphael_mendocino" | "gfx1036" | "gfx1037" => Gfx10_3,
            "navi31" | "navi32" | "navi33" | "gfx1103_r1" | "gfx1103_r2" | "phoenix" => Gfx11,
            "gfx1150" | "gfx1151" | "gfx1152" | "gfx1153" => Gfx11_5,
            "gfx1200" | "gfx1201" => Gfx12,
            _ => return None,
        })
    }
}

impl fmt::Display for GfxLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GfxLevel::Gfx6 => "GFX6",
            GfxLevel::Gfx7 => "GFX7",
            GfxLevel::Gfx8 => "GFX8",
            GfxLevel::Gfx9 => "GFX9",
            GfxLevel::Gfx10 => "GFX10",
            GfxLevel::Gfx10_3 => "GFX10.3",
            GfxLevel::Gfx11 => "GFX11",
            GfxLevel::Gfx11_5 => "GFX11.5",
            GfxLevel::Gfx12 => "GFX12",
        })
    }
}
