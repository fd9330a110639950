//! Launch geometry: the grid and blocks of a kernel launch.

/// A launch of `blocks` blocks (at least one) of `threads` threads, no dynamic shared
/// memory.
pub(crate) fn launch_config(blocks: u32, threads: u32) -> cudarc::driver::LaunchConfig {
    cudarc::driver::LaunchConfig {
        grid_dim: (blocks.max(1), 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Launch geometry: `(blocks, threads)` for one thread per item, at least one block.
pub(crate) fn grid_for(items: u64, threads: u32) -> (u32, u32) {
    let blocks = items
        .div_ceil(u64::from(threads))
        .clamp(1, u64::from(u32::MAX));
    (blocks as u32, threads)
}

/// Lanes given each vertex of a frontier that a group of lanes expands: the mean degree of
/// `n` vertices with `m` arcs rounded up to a power of two, 1 to 32 (a warp), so that a
/// road-like graph's few arcs do not leave most of a warp idle.
pub(crate) fn lanes_per_vertex(n: u64, m: u64) -> u32 {
    (m.div_ceil(n.max(1)).clamp(1, 32) as u32).next_power_of_two()
}

/// Sources searched at once by a batched search whose state takes `per_source` bytes a
/// source, with `free` device bytes left after what every batch shares: as many as 7/8
/// of them hold (the rest left to the driver's own allocations and rounding), 1 to
/// `most`.
pub(crate) fn sources_at_once(free: u64, per_source: u64, most: usize) -> usize {
    let fit = free / 8 * 7 / per_source.max(1);
    (fit.min(most as u64) as usize).max(1)
}
