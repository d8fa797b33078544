//! CPU-time measurement shared by the simulator benches.

/// CPU time of this thread in seconds (the machine is shared, so wall time undercounts).
pub fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}
