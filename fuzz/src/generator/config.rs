//! Every knob of the generator in one place, with the reason for each default; swarm testing
//! draws a whole `Config` from the fuzz input ([`Arbitrary`]), clamped to sane ranges.

use arbitrary::{Arbitrary, Unstructured};
use compiler::ir::AluOp;
use std::ops::RangeInclusive;

/// A rate `num / den` (0 ≤ num ≤ den, den ≥ 1).
pub type Rate = (u32, u32);

/// Bounds and rates of the random program generator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Invocations per dispatch. 1..=96: often not a multiple of 8 or 16 (tail lanes disabled),
    /// sometimes above 64 so several SIMD threads / waves run.
    pub invocations: RangeInclusive<u32>,
    /// Output slots per invocation. 2..=8: slot 0 receives the final fold, the others the
    /// observations made inside branches and loops.
    pub outputs: RangeInclusive<u32>,
    /// Words of the uniform file. 0..=8: enough for constant and dynamic indices, and for
    /// words that are zero only at run time.
    pub uniforms: RangeInclusive<u32>,
    /// Number of buffers. 0..=3: each is a separate SEND/ldg surface.
    pub buffers: RangeInclusive<u32>,
    /// Words per invocation of each buffer. 1..=16: wrapping indices stay interesting.
    pub buffer_len: RangeInclusive<u32>,
    /// Number of textures. 0..=3.
    pub textures: RangeInclusive<u32>,
    /// Width and height of a texture's level 0. 1..=16: small enough that wrapping is hit.
    pub texture_size: RangeInclusive<u32>,
    /// Mip levels. 1..=4: lod clamping and non-zero lods both happen.
    pub texture_levels: RangeInclusive<u32>,
    /// Array layers. 1..=3.
    pub texture_layers: RangeInclusive<u32>,
    /// Local variables (arrays, arrays of arrays, structs). 0..=2: enough for dynamic
    /// indexing to need scratch/private memory without drowning the program in stores.
    pub local_vars: RangeInclusive<u32>,
    /// Elements of a local array. 1..=8: every word is initialised in the entry block.
    pub array_len: RangeInclusive<u32>,
    /// Budget of instructions for statements (closing code — counters, phis, the final fold —
    /// comes on top). 160: big enough for nested loops and spills, small enough to reduce.
    pub max_insts: u32,
    /// Maximum nesting of ifs and loops together. 5: deeper nests rarely add new shapes.
    pub max_depth: u32,
    /// Maximum nesting of loops. 3: trip counts multiply, so deeper nests only cost time.
    pub max_loop_depth: u32,
    /// Upper bound of the mask on every loop's trip count (a loop runs at most
    /// `max_trip_count + 1` times per entry). 8: lanes leave at different iterations without
    /// making nested loops slow.
    pub max_trip_count: u32,
    /// Statements per straight-line block. 1..=5.
    pub block_len: RangeInclusive<u32>,
    /// Control-flow items (ifs, loops) per list. 0..=3.
    pub list_len: RangeInclusive<u32>,
    /// Chance that a control-flow item is a loop rather than an if. 2/5: most programs get loops.
    pub loop_rate: Rate,
    /// Chance that an if has an else list. 2/3.
    pub else_rate: Rate,
    /// Chance that a branch inside a loop ends in `break` or `continue`. 1/3.
    pub jump_rate: Rate,
    /// Among jumps, chance of `continue` rather than `break`. 1/2.
    pub continue_rate: Rate,
    /// Loop-carried values (header phis besides the counter) per loop. 0..=4.
    pub carried_phis: RangeInclusive<u32>,
    /// Phis at each if merge. 0..=3.
    pub merge_phis: RangeInclusive<u32>,
    /// Chance that a carried phi's back-edge source is the phi itself (`bar = phi(foo, bar)`).
    /// 1/4: the trivial back-edge phi that phi removal gets wrong.
    pub self_phi_rate: Rate,
    /// Chance that two carried phis swap (`a = phi(x, b); b = phi(y, a)`). 1/4: the lost-copy
    /// / swap problem of out-of-SSA.
    pub swap_phi_rate: Rate,
    /// Chance that a phi's sources are all the same value. 1/6.
    pub same_phi_rate: Rate,
    /// Chance of values defined in a loop header that are used only after the loop. 1/3.
    pub header_only_rate: Rate,
    /// Chance of register pressure: many values defined early and all used at the end. 1/3:
    /// with the starved budgets the case randomiser draws, the most reliable way to make spill
    /// code run (a spill at the definition, a fill at the final fold).
    pub pressure_rate: Rate,
    /// How many values the pressure block defines. 8..=40: more than a6xx's or a small
    /// GRF budget's registers.
    pub pressure_values: RangeInclusive<u32>,
    /// Chance that a loop's pre-header defines loop-invariant compares that only branches in
    /// its body read (each once; the ones the body's own branches leave get an `if` of their
    /// own at the end of the body). 3/4: the backends keep such a predicate live across the
    /// loop, so it must survive the body's predicates and be back in its register at every
    /// back-edge (a6xx `ra_predicates`); without this, every branch's predicate is defined
    /// next to it and never crosses a loop header.
    pub hoisted_cond_rate: Rate,
    /// How many such compares. 1..=6: a6xx has 4 predicate registers, and the loop's exit
    /// test takes one more, so five or six overflow them (and two or more overflow one).
    pub hoisted_conds: RangeInclusive<u32>,
    /// Chance that an operand comes from the older half of the values in scope. 1/2: live
    /// ranges overlap, predicates stay alive across branches.
    pub old_operand_rate: Rate,
    /// Chance that a texture parameter is an explicit constant zero. 1/2: the trailing-zero
    /// trimming of SEND payloads fires.
    pub tex_zero_rate: Rate,
    /// Chance that a texture parameter is zero only at run time. 1/4.
    pub tex_runtime_zero_rate: Rate,
    /// Chance that a memory access uses a dynamic (non-constant) index. 1/2.
    pub dynamic_index_rate: Rate,
    /// Chance of a store of a recent value to an output slot at the end of a branch or body. 2/3.
    pub observe_rate: Rate,
    /// Enabled ALU ops: bit `i` is `AluOp::ALL[i]`. All by default; swarm testing drops some.
    pub alu_ops: u128,
    /// Chance that a program has workgroups (2, 4 or 8 invocations) talking through shared
    /// arrays between top-level barriers (`generator::workgroup`). 1/4: shared-memory and
    /// barrier lowering get a steady share without starving the rest.
    pub workgroup_rate: Rate,
    /// Chance that a buffer or shared access is an atomic, and that a program with
    /// workgroups has an array every invocation applies atomics to (`generator::workgroup`).
    /// 1/6: atomics in about a quarter of programs (measured in `docs/reach.md`).
    pub atomic_rate: Rate,
    /// Chance that a program with workgroups has subgroup operations
    /// (`generator::workgroup`). 2/3: about one program in six, most of them with divergent
    /// ones, where backends break most (shares measured in `docs/reach.md`).
    pub subgroup_rate: Rate,
    /// Chance that a program has 16- and 64-bit integers (`generator::wide`): then a fifth
    /// of its statements are chains of them. 1/8: our own backends refuse such programs, so
    /// each point of share is a point of gen/a6xx runs lost (shares in `docs/reach.md`).
    pub sized_int_rate: Rate,
    /// Statement weights: ALU, constant, vec/mov, uniform, buffer, output, texture, local
    /// variable, shared array. ALU-heavy, as real shaders are; every kind still shows up in
    /// most programs that can have it.
    pub weights: [u32; 9],
}

/// Statement kinds, the order of [`Config::weights`].
pub const WEIGHT_NAMES: [&str; 9] = [
    "alu", "const", "vec_mov", "uniform", "buffer", "output", "texture", "local", "shared",
];

/// All ALU ops enabled.
pub const ALL_ALU_OPS: u128 = if AluOp::ALL.len() >= 128 {
    u128::MAX
} else {
    (1u128 << AluOp::ALL.len()) - 1
};

impl Config {
    /// The defaults (see each field).
    pub const DEFAULT: Config = Config {
        invocations: 1..=96,
        outputs: 2..=8,
        uniforms: 0..=8,
        buffers: 0..=3,
        buffer_len: 1..=16,
        textures: 0..=3,
        texture_size: 1..=16,
        texture_levels: 1..=4,
        texture_layers: 1..=3,
        local_vars: 0..=2,
        array_len: 1..=8,
        max_insts: 160,
        max_depth: 5,
        max_loop_depth: 3,
        max_trip_count: 8,
        block_len: 1..=5,
        list_len: 0..=3,
        loop_rate: (2, 5),
        else_rate: (2, 3),
        jump_rate: (1, 3),
        continue_rate: (1, 2),
        carried_phis: 0..=4,
        merge_phis: 0..=3,
        self_phi_rate: (1, 4),
        swap_phi_rate: (1, 4),
        same_phi_rate: (1, 6),
        header_only_rate: (1, 3),
        pressure_rate: (1, 3),
        pressure_values: 8..=40,
        hoisted_cond_rate: (3, 4),
        hoisted_conds: 1..=6,
        old_operand_rate: (1, 2),
        tex_zero_rate: (1, 2),
        tex_runtime_zero_rate: (1, 4),
        dynamic_index_rate: (1, 2),
        observe_rate: (2, 3),
        workgroup_rate: (1, 4),
        atomic_rate: (1, 6),
        subgroup_rate: (2, 3),
        sized_int_rate: (1, 8),
        alu_ops: ALL_ALU_OPS,
        weights: [40, 6, 8, 5, 6, 4, 6, 6, 8],
    };

    /// Small programs for smoke tests and quick CI runs.
    pub const SMALL: Config = Config {
        max_insts: 48,
        max_depth: 3,
        max_loop_depth: 2,
        invocations: 1..=24,
        ..Config::DEFAULT
    };

    /// Whether `op` may be chosen.
    pub fn alu_enabled(&self, op: AluOp) -> bool {
        let i = AluOp::ALL.iter().position(|&o| o == op).unwrap_or(0);
        self.alu_ops & (1u128 << i) != 0
    }

    /// The config made sane: ranges non-empty and bounded, rates proper, at least one ALU op and
    /// one statement kind enabled. [`generate`](super::generate) relies on it.
    pub fn clamped(&self) -> Config {
        fn range(r: &RangeInclusive<u32>, lo: u32, hi: u32) -> RangeInclusive<u32> {
            let a = (*r.start()).clamp(lo, hi);
            let b = (*r.end()).clamp(a, hi);
            a..=b
        }
        fn rate(r: Rate) -> Rate {
            let den = r.1.clamp(1, 1 << 16);
            (r.0.min(den), den)
        }
        let mut weights = self.weights.map(|w| w.min(1000));
        if weights.iter().all(|&w| w == 0) {
            weights[0] = 1;
        }
        let alu_ops = if self.alu_ops & ALL_ALU_OPS == 0 {
            ALL_ALU_OPS
        } else {
            self.alu_ops & ALL_ALU_OPS
        };
        Config {
            invocations: range(&self.invocations, 1, 512),
            outputs: range(&self.outputs, 1, 16),
            uniforms: range(&self.uniforms, 0, 64),
            buffers: range(&self.buffers, 0, 8),
            buffer_len: range(&self.buffer_len, 1, 256),
            textures: range(&self.textures, 0, 8),
            texture_size: range(&self.texture_size, 1, 64),
            texture_levels: range(&self.texture_levels, 1, 7),
            texture_layers: range(&self.texture_layers, 1, 8),
            local_vars: range(&self.local_vars, 0, 8),
            array_len: range(&self.array_len, 1, 64),
            max_insts: self.max_insts.clamp(1, 4000),
            max_depth: self.max_depth.min(12),
            max_loop_depth: self.max_loop_depth.min(6),
            max_trip_count: self.max_trip_count.clamp(1, 64),
            block_len: range(&self.block_len, 0, 32),
            list_len: range(&self.list_len, 0, 8),
            loop_rate: rate(self.loop_rate),
            else_rate: rate(self.else_rate),
            jump_rate: rate(self.jump_rate),
            continue_rate: rate(self.continue_rate),
            carried_phis: range(&self.carried_phis, 0, 12),
            merge_phis: range(&self.merge_phis, 0, 8),
            self_phi_rate: rate(self.self_phi_rate),
            swap_phi_rate: rate(self.swap_phi_rate),
            same_phi_rate: rate(self.same_phi_rate),
            header_only_rate: rate(self.header_only_rate),
            pressure_rate: rate(self.pressure_rate),
            pressure_values: range(&self.pressure_values, 0, 200),
            hoisted_cond_rate: rate(self.hoisted_cond_rate),
            hoisted_conds: range(&self.hoisted_conds, 0, 8),
            old_operand_rate: rate(self.old_operand_rate),
            tex_zero_rate: rate(self.tex_zero_rate),
            tex_runtime_zero_rate: rate(self.tex_runtime_zero_rate),
            dynamic_index_rate: rate(self.dynamic_index_rate),
            observe_rate: rate(self.observe_rate),
            workgroup_rate: rate(self.workgroup_rate),
            atomic_rate: rate(self.atomic_rate),
            subgroup_rate: rate(self.subgroup_rate),
            sized_int_rate: rate(self.sized_int_rate),
            alu_ops,
            weights,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config::DEFAULT
    }
}

fn arb_range(
    u: &mut Unstructured,
    d: &RangeInclusive<u32>,
    lo: u32,
    hi: u32,
) -> arbitrary::Result<RangeInclusive<u32>> {
    let a = u.int_in_range(lo..=hi)?;
    let b = u.int_in_range(a..=hi.max(a))?;
    // Running out of bytes gives `lo..=lo`; keep the default then.
    if u.is_empty() && a == lo && b == lo {
        return Ok(d.clone());
    }
    Ok(a..=b)
}

fn arb_rate(u: &mut Unstructured, d: Rate) -> arbitrary::Result<Rate> {
    if u.is_empty() {
        return Ok(d);
    }
    let den = u.int_in_range(1..=8)?;
    Ok((u.int_in_range(0..=den)?, den))
}

impl<'a> Arbitrary<'a> for Config {
    /// Swarm testing: every knob drawn at random within sane ranges (then [`Config::clamped`]);
    /// ALU ops and statement kinds are sometimes switched off wholesale.
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let d = Config::DEFAULT;
        let mut weights = d.weights;
        for w in &mut weights {
            if !u.is_empty() {
                *w = u.int_in_range(0..=40)?;
            }
        }
        let alu_ops = if u.is_empty() || u.int_in_range(0..=2)? == 0 {
            ALL_ALU_OPS
        } else {
            u.arbitrary::<u128>()? | u.arbitrary::<u128>()?
        };
        let c = Config {
            invocations: arb_range(u, &d.invocations, 1, 200)?,
            outputs: arb_range(u, &d.outputs, 1, 8)?,
            uniforms: arb_range(u, &d.uniforms, 0, 16)?,
            buffers: arb_range(u, &d.buffers, 0, 4)?,
            buffer_len: arb_range(u, &d.buffer_len, 1, 32)?,
            textures: arb_range(u, &d.textures, 0, 4)?,
            texture_size: arb_range(u, &d.texture_size, 1, 32)?,
            texture_levels: arb_range(u, &d.texture_levels, 1, 5)?,
            texture_layers: arb_range(u, &d.texture_layers, 1, 4)?,
            local_vars: arb_range(u, &d.local_vars, 0, 3)?,
            array_len: arb_range(u, &d.array_len, 1, 16)?,
            max_insts: if u.is_empty() {
                d.max_insts
            } else {
                u.int_in_range(8..=400)?
            },
            max_depth: if u.is_empty() {
                d.max_depth
            } else {
                u.int_in_range(1..=7)?
            },
            // At least one loop level: loops are where most of the passes under test bite.
            max_loop_depth: if u.is_empty() {
                d.max_loop_depth
            } else {
                u.int_in_range(1..=4)?
            },
            max_trip_count: if u.is_empty() {
                d.max_trip_count
            } else {
                u.int_in_range(1..=16)?
            },
            block_len: arb_range(u, &d.block_len, 0, 8)?,
            list_len: arb_range(u, &d.list_len, 0, 4)?,
            loop_rate: arb_rate(u, d.loop_rate)?,
            else_rate: arb_rate(u, d.else_rate)?,
            jump_rate: arb_rate(u, d.jump_rate)?,
            continue_rate: arb_rate(u, d.continue_rate)?,
            carried_phis: arb_range(u, &d.carried_phis, 0, 6)?,
            merge_phis: arb_range(u, &d.merge_phis, 0, 4)?,
            self_phi_rate: arb_rate(u, d.self_phi_rate)?,
            swap_phi_rate: arb_rate(u, d.swap_phi_rate)?,
            same_phi_rate: arb_rate(u, d.same_phi_rate)?,
            header_only_rate: arb_rate(u, d.header_only_rate)?,
            pressure_rate: arb_rate(u, d.pressure_rate)?,
            pressure_values: arb_range(u, &d.pressure_values, 0, 64)?,
            hoisted_cond_rate: arb_rate(u, d.hoisted_cond_rate)?,
            hoisted_conds: arb_range(u, &d.hoisted_conds, 0, 6)?,
            old_operand_rate: arb_rate(u, d.old_operand_rate)?,
            tex_zero_rate: arb_rate(u, d.tex_zero_rate)?,
            tex_runtime_zero_rate: arb_rate(u, d.tex_runtime_zero_rate)?,
            dynamic_index_rate: arb_rate(u, d.dynamic_index_rate)?,
            observe_rate: arb_rate(u, d.observe_rate)?,
            workgroup_rate: arb_rate(u, d.workgroup_rate)?,
            atomic_rate: arb_rate(u, d.atomic_rate)?,
            subgroup_rate: arb_rate(u, d.subgroup_rate)?,
            // Not `arb_rate` (half on average): our backends refuse these programs, so the
            // swarm keeps them to the default's share, none or twice it.
            sized_int_rate: if u.is_empty() {
                d.sized_int_rate
            } else {
                u.choose(&[
                    (0, 1),
                    d.sized_int_rate,
                    (2 * d.sized_int_rate.0, d.sized_int_rate.1),
                ])
                .copied()?
            },
            alu_ops,
            weights,
        };
        Ok(c.clamped())
    }
}
