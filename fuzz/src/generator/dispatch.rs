//! The dispatch a program runs in: invocation count, output slots, uniform words (small ints,
//! zeros, simple floats, occasionally big ints), buffer lengths and texture shapes.

use super::config::Config;
use arbitrary::{Result, Unstructured};
use sim::dispatch::Dispatch;
use sim::semantics::TextureDesc;

fn range(u: &mut Unstructured, r: &std::ops::RangeInclusive<u32>) -> Result<u32> {
    u.int_in_range(*r.start()..=*r.end())
}

/// One uniform word.
fn uniform_word(u: &mut Unstructured) -> Result<u32> {
    const FLOATS: [f32; 6] = [1.0, 0.5, -2.0, 0.25, 3.0, -0.0];
    Ok(match u.int_in_range(0..=7)? {
        0..=2 => u.int_in_range(0..=8)?,
        3 | 4 => 0,
        5 | 6 => FLOATS[u.int_in_range(0..=FLOATS.len() - 1)?].to_bits(),
        _ => u.arbitrary::<u32>()?,
    })
}

/// Draws a dispatch within the config's ranges.
pub fn generate(u: &mut Unstructured, cfg: &Config) -> Result<Dispatch> {
    // Counted down from the top, so running out of bytes gives the largest dispatch (several
    // SIMD threads / waves) rather than a single invocation.
    let span = cfg.invocations.end() - cfg.invocations.start();
    let invocations = cfg.invocations.end() - u.int_in_range(0..=span)?;
    let outputs = range(u, &cfg.outputs)?;
    let n = range(u, &cfg.uniforms)?;
    let mut uniforms = Vec::with_capacity(n as usize);
    for _ in 0..n {
        uniforms.push(uniform_word(u)?);
    }
    let n = range(u, &cfg.buffers)?;
    let mut buffers = Vec::with_capacity(n as usize);
    for _ in 0..n {
        buffers.push(range(u, &cfg.buffer_len)?);
    }
    let n = range(u, &cfg.textures)?;
    let mut textures = Vec::with_capacity(n as usize);
    for _ in 0..n {
        textures.push(TextureDesc {
            width: range(u, &cfg.texture_size)?,
            height: range(u, &cfg.texture_size)?,
            levels: range(u, &cfg.texture_levels)?,
            layers: range(u, &cfg.texture_layers)?,
        });
    }
    Ok(Dispatch {
        invocations,
        outputs,
        uniforms,
        buffers,
        textures,
        ..Dispatch::default()
    })
}
