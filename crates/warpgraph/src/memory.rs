//! Knowing how much memory there is before allocating.
//!
//! Every large allocation in warpgraph is sized first and checked with [`check`], so that
//! a graph or a result that cannot fit is refused with a clear message (needed vs
//! available) instead of aborting the process.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use crate::error::{Error, Result};

/// No limit set (a limit of `u64::MAX` bytes limits nothing).
const UNSET: u64 = u64::MAX;

/// The host and device limits: `WARPGRAPH_MEMORY_LIMIT` and `WARPGRAPH_GPU_MEMORY_LIMIT`
/// ([`crate::settings`]) until [`set_limit`] or [`set_gpu_limit`] replaces them.
fn limits() -> &'static [AtomicU64; 2] {
    static LIMITS: OnceLock<[AtomicU64; 2]> = OnceLock::new();
    LIMITS.get_or_init(|| {
        let s = crate::settings::get();
        [
            AtomicU64::new(s.memory_limit.unwrap_or(UNSET)),
            AtomicU64::new(s.gpu_memory_limit.unwrap_or(UNSET)),
        ]
    })
}

/// The host memory warpgraph may use, in bytes, where a limit is set.
pub fn limit() -> Option<u64> {
    Some(limits()[0].load(Ordering::Relaxed)).filter(|&l| l != UNSET)
}

/// Sets (or with `None` lifts) the host memory warpgraph may use, in place of what the
/// system reports; for the whole process.
pub fn set_limit(bytes: Option<u64>) {
    limits()[0].store(bytes.unwrap_or(UNSET), Ordering::Relaxed);
}

/// The device memory warpgraph may use on each GPU, in bytes, where a limit is set.
pub fn gpu_limit() -> Option<u64> {
    Some(limits()[1].load(Ordering::Relaxed)).filter(|&l| l != UNSET)
}

/// Sets (or with `None` lifts) the device memory warpgraph may use on each GPU, below
/// what the driver reports free; for the whole process.
pub fn set_gpu_limit(bytes: Option<u64>) {
    limits()[1].store(bytes.unwrap_or(UNSET), Ordering::Relaxed);
}

/// Bytes of host memory available for new allocations, if the platform says.
///
/// On Linux this is `MemAvailable` from `/proc/meminfo`, capped by a cgroup v2
/// `memory.max` limit when one is set. `None` elsewhere.
pub fn available_bytes() -> Option<u64> {
    if let Some(limit) = limit() {
        return Some(limit);
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
/// A [`limit`] (`WARPGRAPH_MEMORY_LIMIT`, or [`set_limit`]) takes the place of what is
/// available.
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
