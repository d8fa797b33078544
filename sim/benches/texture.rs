//! Cost of one `texture_result` call for 2D samples and gathers, with ordinary float
//! coordinates and with the denormal ones fuzzed programs often pass (small integer bit
//! patterns), which cost x86 a microcode assist per multiply. Run with
//! `cargo bench -p sim --bench texture`.

use sim::semantics::{texture_result, TexAccess, TexRequest, TextureDesc};
use std::hint::black_box;
use std::time::Instant;

mod cpu_time;
use cpu_time::cpu_seconds;

fn main() {
    let t = TextureDesc {
        width: 16,
        height: 8,
        levels: 3,
        layers: 2,
    };
    // 256 coordinate pairs of each kind: denormals of both signs, and floats in [-2, 2).
    let denormal = |i: u32| (i * 0x9e37) & 0x7f_ffff | (i & 1) << 31;
    let normal = |i: u32| (i as f32 / 64.0 - 2.0).to_bits();
    for (name, access) in [
        ("sample", TexAccess::Sample),
        ("gather", TexAccess::Gather(1)),
    ] {
        for (kind, coord) in [
            ("normal", &normal as &dyn Fn(u32) -> u32),
            ("denormal", &denormal),
        ] {
            let reqs: Vec<TexRequest> = (0..256)
                .map(|i| TexRequest {
                    access,
                    coord: [coord(i), coord(i + 1000), 0],
                    ..TexRequest::default()
                })
                .collect();
            let start = Instant::now();
            let cpu0 = cpu_seconds();
            let mut calls = 0u64;
            while start.elapsed().as_secs_f64() < 1.0 {
                for q in &reqs {
                    black_box(texture_result(&t, 3, black_box(q)));
                }
                calls += reqs.len() as u64;
            }
            let wall = start.elapsed().as_secs_f64();
            let secs = match (cpu0, cpu_seconds()) {
                (Some(a), Some(b)) if b > a => b - a,
                _ => wall,
            };
            println!(
                "texture {name:<6} {kind:<8}: {:.1} ns of CPU time per call ({:.0}% of wall \
                 time on CPU)",
                secs / calls as f64 * 1e9,
                100.0 * secs / wall,
            );
        }
    }
}
