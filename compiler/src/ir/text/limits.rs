//! What one program in the text format may ask for. The parser refuses a header beyond these
//! bounds with an error naming the limit and the flag that raises it, so no single line
//! (`outputs 100000000`) can make the interpreter or a simulator allocate gigabytes or run for
//! minutes. The defaults are well above anything the generator makes (at most 512
//! invocations, 16 outputs, 64 uniforms, 8 buffers of 256 words, 8 textures of 64×64).

use std::fmt;

/// Upper bounds on a program's resources, each settable with `--limit NAME=N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Invocations of the dispatch.
    pub invocations: u32,
    /// Output slots per invocation.
    pub outputs: u32,
    /// Words of the uniform file.
    pub uniforms: u32,
    /// Words per invocation of one buffer.
    pub buffer_words: u32,
    /// Words of one workgroup-shared array.
    pub shared_words: u32,
    /// Buffers, shared arrays and textures, each.
    pub resources: u32,
    /// Texture width or height in texels, mip levels, array layers.
    pub texture_extent: u32,
    /// Words of one local variable.
    pub variable_words: u32,
    /// Words all invocations' outputs and buffers hold together (the results' memory).
    pub result_words: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            invocations: 4096,
            outputs: 256,
            uniforms: 4096,
            buffer_words: 4096,
            shared_words: 4096,
            resources: 32,
            texture_extent: 16384,
            variable_words: 65536,
            result_words: 1 << 24,
        }
    }
}

/// A program beyond a limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LimitError {
    /// The limit's name (`--limit NAME=N`).
    pub name: &'static str,
    /// What the program asks for.
    pub asked: u64,
    /// The limit.
    pub limit: u64,
}

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} is over the limit of {} (raise it with --limit {}=N)",
            self.name, self.asked, self.limit, self.name
        )
    }
}

impl Limits {
    /// Every limit's name, as `--limit` takes it.
    pub const NAMES: [&'static str; 9] = [
        "invocations",
        "outputs",
        "uniforms",
        "buffer_words",
        "shared_words",
        "resources",
        "texture_extent",
        "variable_words",
        "result_words",
    ];

    /// Sets limit `name` from `NAME=N` text.
    pub fn set(&mut self, name_value: &str) -> Result<(), String> {
        let (name, value) = name_value
            .split_once('=')
            .ok_or_else(|| format!("--limit {name_value}: expected NAME=N"))?;
        let n: u64 = value
            .parse()
            .map_err(|e| format!("--limit {name_value}: {e}"))?;
        let small = || u32::try_from(n).map_err(|e| format!("--limit {name_value}: {e}"));
        match name {
            "invocations" => self.invocations = small()?,
            "outputs" => self.outputs = small()?,
            "uniforms" => self.uniforms = small()?,
            "buffer_words" => self.buffer_words = small()?,
            "shared_words" => self.shared_words = small()?,
            "resources" => self.resources = small()?,
            "texture_extent" => self.texture_extent = small()?,
            "variable_words" => self.variable_words = small()?,
            "result_words" => self.result_words = n,
            _ => {
                return Err(format!(
                    "--limit {name_value}: unknown limit {name:?}; limits: {}",
                    Limits::NAMES.join(", ")
                ))
            }
        }
        Ok(())
    }

    /// Checks one value against limit `name`.
    pub fn check(&self, name: &'static str, asked: u64) -> Result<(), LimitError> {
        let limit = match name {
            "invocations" => u64::from(self.invocations),
            "outputs" => u64::from(self.outputs),
            "uniforms" => u64::from(self.uniforms),
            "buffer_words" => u64::from(self.buffer_words),
            "shared_words" => u64::from(self.shared_words),
            "resources" => u64::from(self.resources),
            "texture_extent" => u64::from(self.texture_extent),
            "variable_words" => u64::from(self.variable_words),
            _ => self.result_words,
        };
        if asked > limit {
            Err(LimitError { name, asked, limit })
        } else {
            Ok(())
        }
    }
}
