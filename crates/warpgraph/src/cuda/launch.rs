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
