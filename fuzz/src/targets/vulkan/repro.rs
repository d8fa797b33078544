//! A `vulkan` case's standalone repro files: the module its device got, written in the
//! formats of [`crate::targets::driver::standalone`], and the spirv-opt failure of a case whose
//! spirv-opt step fails, ready for a SPIRV-Tools report.

use super::device;
use crate::case::coverage::Coverage;
use crate::case::options::OracleOptions;
use crate::case::Case;
use crate::targets::driver::knobs::ModuleKnobs;
use crate::targets::driver::module::{emit, emit_options, source};
use crate::targets::driver::standalone::{spirv_opt_fails, standalone, SpirvOptFails, Standalone};

/// The standalone repro of `case` as the `vulkan` target runs it: the program the driver gets
/// (the middle end's output, or the generator's with `vulkan_unoptimised`), through the case's
/// spirv-opt passes, on the device of `opts`.
pub fn of_case(case: &Case, opts: &OracleOptions) -> Result<Standalone, String> {
    let optimised = crate::targets::middle::optimise(case, opts, &mut Coverage::default())
        .map_err(|f| f.to_string())?;
    let info = device(&opts.vulkan).map_err(|e| e.to_string())?;
    standalone(
        source(case, &optimised),
        &ModuleKnobs::of(case).spirv_opt,
        &info,
    )
}

/// The spirv-opt failure of `case`, if its spirv-opt step fails on the device of `opts`
/// (`None`: it has no pass list, or spirv-opt succeeds).
pub fn spirv_opt_failure(
    case: &Case,
    opts: &OracleOptions,
) -> Option<Result<SpirvOptFails, String>> {
    let passes = &ModuleKnobs::of(case).spirv_opt;
    if passes.is_empty() {
        return None;
    }
    let optimised = match crate::targets::middle::optimise(case, opts, &mut Coverage::default()) {
        Ok(p) => p,
        Err(f) => return Some(Err(f.to_string())),
    };
    let program = source(case, &optimised);
    let module = match device(&opts.vulkan)
        .map_err(|e| e.to_string())
        .and_then(|info| emit(program, &emit_options(&info)).map_err(|e| e.to_string()))
    {
        Ok(m) => m,
        Err(e) => return Some(Err(e)),
    };
    spirv_opt_fails(module.words, passes)
}
