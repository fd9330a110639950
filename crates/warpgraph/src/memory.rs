//! Knowing how much memory there is before allocating.
//!
//! Every large allocation in warpgraph is sized first and checked with [`check`], so that
//! a graph or a result that cannot fit is refused with a clear message (needed vs
//! available) instead of aborting the process.

use crate::error::{Error, Result};

/// Bytes of host memory available for new allocations, if the platform says.
///
/// On Linux this is `MemAvailable` from `/proc/meminfo`, capped by a cgroup v2
/// `memory.max` limit when one is set. `None` elsewhere.
pub fn available_bytes() -> Option<u64> {
    if let Ok(v) = std::env::var("WARPGRAPH_MEMORY_LIMIT") {
        if let Ok(limit) = v.trim().parse::<u64>() {
            return Some(limit);
        }
    }
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    let mut avail = kib.saturating_mul(1024);
    if let Ok(max) = std::fs::read_to_string("/sys/fs/cgroup/memory.max") {
        if let Ok(max) = max.trim().parse::<u64>() {
            let used = std::fs::read_to_string("/sys/fs/cgroup/memory.current")
                .ok()
                .and_then(|s| s.trim().parse::<u64>().ok())
                .unwrap_or(0);
            avail = avail.min(max.saturating_sub(used));
        }
    }
    Some(avail)
}

/// Refuses with [`Error::OutOfMemory`] when `needed` bytes exceed what is available.
///
/// `what` names the allocation for the message ("CSR for 2^32 vertices"). Where the
/// platform does not report available memory, the check passes.
/// The environment variable `WARPGRAPH_MEMORY_LIMIT` (bytes) overrides the limit, which is
/// how tests exercise this path.
pub fn check(what: impl FnOnce() -> String, needed: u64) -> Result<()> {
    match available_bytes() {
        Some(available) if needed > available => Err(Error::OutOfMemory {
            what: what(),
            needed,
            available,
        }),
        _ => Ok(()),
    }
}

/// `count * size` in bytes, saturating (absurd sizes then fail the check instead of wrapping).
pub fn bytes_for(count: u64, size: usize) -> u64 {
    count.saturating_mul(size as u64)
}
